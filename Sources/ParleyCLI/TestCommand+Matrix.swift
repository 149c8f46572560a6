import Foundation
import ParleyBots
import ParleyFlowTest

extension TestCommand {
    /// The stage of a `kind: matrix` host: its homeserver, test users registered with the
    /// shared secret in `PARLEY_MATRIX_SHARED_SECRET`. Nil for the embedded hub.
    static func matrixStage(_ config: HostConfig?, environment: [String: String]) throws(UsageError) -> (any FlowTestStage)? {
        guard let config, config.transportKind == .matrix else { return nil }
        guard let text = config.transport?.homeserver?.value, let homeserver = URL(string: text),
              homeserver.scheme == "http" || homeserver.scheme == "https"
        else {
            throw UsageError("testing against Matrix needs 'transport.homeserver' in the config as an http(s) URL")
        }
        guard let secret = environment["PARLEY_MATRIX_SHARED_SECRET"], !secret.isEmpty else {
            throw UsageError("testing against Matrix registers test users: set PARLEY_MATRIX_SHARED_SECRET to the homeserver's registration_shared_secret")
        }
        return MatrixFlowTestStage(homeserver: homeserver, sharedSecret: secret)
    }
}
