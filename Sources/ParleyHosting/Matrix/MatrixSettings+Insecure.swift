import Foundation

extension MatrixSettings {
    /// Why `homeserver` may not be used as configured, or nil: plain `http://` is refused unless
    /// the host is this machine (nothing crosses a network) or `allow_insecure: true` says the
    /// clear-text password and tokens are accepted knowingly.
    static func insecureProblem(homeserver: String, allowInsecure: Bool) -> String? {
        guard !allowInsecure, let url = URL(string: homeserver), url.scheme?.lowercased() == "http",
              let host = url.host, !isLoopback(host)
        else { return nil }
        return "homeserver '\(homeserver)' is plain http on another machine: the password and access tokens would cross the network in clear; use https:// or set 'allow_insecure: true'"
    }

    /// `localhost`, 127.0.0.0/8 and ::1: addresses that never leave this machine.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets.allSatisfy({ UInt8($0) != nil }) else { return false }
        return octets[0] == "127"
    }
}
