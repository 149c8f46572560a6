import ParleyBots
import Testing

/// `http:` in config.yaml: the listen address and when a token is required.
@Suite struct HostConfigHTTPTests {
    static func errors(_ yaml: String) -> [String] {
        HostConfigValidatorTests.errors(yaml).split(separator: "\n").map(String.init).filter { $0.contains("error:") }
    }

    @Test(arguments: ["127.0.0.1:8080", "localhost:0", "[::1]:9000", "127.3.4.5:65535"])
    func loopbackNeedsNoToken(listen: String) {
        #expect(Self.errors("http: { listen: \"\(listen)\" }") == [])
    }

    @Test func anAddressOthersCanReachNeedsAToken() {
        #expect(Self.errors("http: { listen: 0.0.0.0:8080 }") == [
            "config.yaml:1:17: error: 'http.listen' 0.0.0.0:8080 is reachable from other machines: set 'admin_token' too, or listen on 127.0.0.1",
        ])
        #expect(Self.errors("http: { listen: 0.0.0.0:8080, admin_token: s3cret }") == [])
        #expect(Self.errors("http: { listen: \"[::]:8080\", admin_token: s3cret }") == [])
    }

    @Test(arguments: [
        ("8080", "expected host:port like 127.0.0.1:8080 or [::1]:8080"),
        ("example.com:80", "'example.com' is not an IPv4 address (names other than localhost are not resolved)"),
        ("127.0.0.1:99999", "port '99999' is not a number from 0 to 65535"),
        ("127.0.0.1:", "port '' is not a number from 0 to 65535"),
        ("[zz]:80", "'zz' is not an IPv6 address"),
        ("256.1.1.1:80", "'256.1.1.1' is not an IPv4 address (names other than localhost are not resolved)"),
    ])
    func aBadAddressIsNamedWithWhatIsExpected(listen: String, problem: String) {
        #expect(Self.errors("http: { listen: \"\(listen)\" }") == ["config.yaml:1:17: error: listen address '\(listen)': \(problem)"])
    }

    @Test func anEmptyTokenOrATokenWithoutListenerIsAnError() {
        #expect(Self.errors("http: { listen: 127.0.0.1:80, admin_token: \"\" }").first?.contains("empty 'admin_token'") == true)
        #expect(Self.errors("http: { admin_token: abc }") == ["config.yaml:1:22: error: 'admin_token' without 'listen': add listen: 127.0.0.1:8080"])
    }

    @Test func anUnknownKeyIsNamed() {
        #expect(Self.errors("http: { lisen: 127.0.0.1:80 }").first?.contains("unknown key 'lisen', did you mean 'listen'?") == true)
    }
}
