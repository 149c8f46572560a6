import Foundation
import ParleyCore
import ParleyMatrix
import Synchronization

/// The config's accounts as a Matrix flow-test stage uses them: a password is logged in once
/// per run and its token reused; a token is used as it is.
final class ConfiguredLogins: Sendable {
    private let accounts = Mutex<[String: MatrixRegistrar.Account]>([:])

    /// The account of `configured`, logging in on first use.
    func account(_ configured: MatrixTestStage.ConfiguredAccount, homeserver: URL) async throws -> MatrixRegistrar.Account {
        if let known = accounts.withLock({ $0[configured.userID] }) { return known }
        let account: MatrixRegistrar.Account
        switch configured.credentials {
        case .accessToken(let token):
            account = MatrixRegistrar.Account(userID: configured.userID, password: "", accessToken: token)
        case .password(let password):
            let login = try await MatrixClient(homeserver: homeserver)
                .login(user: configured.userID, password: password, deviceID: nil, deviceName: "Parley tests")
            guard login.userID == configured.userID else {
                throw ParleyError(.unauthorized, "logged in as \(login.userID), configured as \(configured.userID)")
            }
            account = MatrixRegistrar.Account(userID: login.userID, password: password, accessToken: login.accessToken)
        }
        accounts.withLock { $0[configured.userID] = account }
        return account
    }
}
