import Glibc

/// An IPv4 or IPv6 address and port to listen on, as the `sockaddr` libmicrohttpd binds.
struct ListenAddress {
    private var storage = sockaddr_storage()
    /// `AF_INET` or `AF_INET6`.
    let family: Int32
    /// "127.0.0.1:8080", "[::1]:8080": how errors name it.
    let text: String

    /// Nil when `host` is not an IPv4 or IPv6 literal (names are not resolved).
    init?(host: String, port: Int) {
        guard (0...65_535).contains(port) else { return nil }
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = UInt16(port).bigEndian
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v4, as: sockaddr_in.self) }
            family = AF_INET
            text = "\(host):\(port)"
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = UInt16(port).bigEndian
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v6, as: sockaddr_in6.self) }
            family = AF_INET6
            text = "[\(host)]:\(port)"
        } else {
            return nil
        }
    }

    private var length: socklen_t {
        socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
    }

    /// Calls `body` with the address as a `sockaddr` pointer.
    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>) -> T) -> T {
        withUnsafeBytes(of: storage) { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self)) }
    }

    /// Why listening here fails, after libmicrohttpd failed to start (it reports no reason):
    /// binds a socket of its own the way libmicrohttpd does (`SO_REUSEADDR`, an IPv6 socket
    /// IPv6 only), then lets it go.
    func bindFailure() -> String {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if family == AF_INET6 { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size)) }
        let failed = withSockaddr { bind(fd, $0, length) != 0 || listen(fd, 1) != 0 }
        return failed ? String(cString: strerror(errno)) : "libmicrohttpd could not start"
    }
}

/// The IP address of `address` as text, without the port; "" for another family.
func ipAddressText(_ address: UnsafePointer<sockaddr>) -> String {
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    let size = socklen_t(text.count)
    let family = Int32(address.pointee.sa_family)
    func format<Address>(_ ip: Address) -> UnsafePointer<CChar>? { withUnsafePointer(to: ip) { inet_ntop(family, $0, &text, size) } }
    let written = switch family {
    case AF_INET: format(address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr })
    case AF_INET6: format(address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr })
    default: UnsafePointer<CChar>?.none
    }
    guard written != nil else { return "" }
    return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}
