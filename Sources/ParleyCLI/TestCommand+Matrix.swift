import Foundation
import ParleyBots
import ParleyFlowTest

extension TestCommand {
    /// The stage of a `kind: matrix` host: its homeserver, test users registered with the
    /// shared secret in `PARLEY_MATRIX_SHARED_SECRET`; with `target`, an outside bot is tested
    /// instead of the hosted one. Nil for the embedded hub.
    static func matrixStage(_ config: HostConfig?, target: String?, environment: [String: String])
        throws(UsageError) -> (stage: any FlowTestStage, host: any FlowTestBotHost)?
    {
        guard let config, config.transportKind == .matrix else {
            if target != nil { throw UsageError("option '--target' needs a config with 'transport: {kind: matrix}'") }
            return nil
        }
        if let target, !(target.hasPrefix("@") && target.contains(":")) {
            throw UsageError("option '--target' needs a Matrix user id like @bot:server, got '\(target)'")
        }
        guard let text = config.transport?.homeserver?.value, let homeserver = URL(string: text),
              homeserver.scheme == "http" || homeserver.scheme == "https"
        else {
            throw UsageError("testing against Matrix needs 'transport.homeserver' in the config as an http(s) URL")
        }
        guard let secret = environment["PARLEY_MATRIX_SHARED_SECRET"], !secret.isEmpty else {
            throw UsageError("testing against Matrix registers test users: set PARLEY_MATRIX_SHARED_SECRET to the homeserver's registration_shared_secret")
        }
        let stage = MatrixFlowTestStage(homeserver: homeserver, sharedSecret: secret, target: target)
        return target == nil ? (stage, EngineFlowTestHost()) : (stage, MatrixTargetBotHost())
    }
}
