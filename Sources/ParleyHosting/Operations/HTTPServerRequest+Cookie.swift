import Foundation
import ParleyHTTPServer

extension HTTPServerRequest {
    /// The value of cookie `name` in the request's `Cookie` header (`a=1; b=2`), if it carries
    /// it: the one reading of the header for the visitors' chat and the agents' console.
    func cookie(_ name: String) -> String? {
        for pair in (header("cookie") ?? "").split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}
