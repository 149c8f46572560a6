import Testing

/// `transport.allow_insecure`: plain http to another machine would send the password and the
/// access tokens in clear, so it is refused at the homeserver line unless allowed.
@Suite struct InsecureHomeserverTests {
    static func config(_ homeserver: String, allowInsecure: Bool? = nil) -> String {
        var text = """
            transport:
              kind: matrix
              homeserver: \(homeserver)
              accounts:
                support: { user: "@support:localhost", password: pw }
            """
        if let allowInsecure { text += "\n  allow_insecure: \(allowInsecure)" }
        return text
    }

    @Test func plainHTTPToAnotherHostIsRefusedAtTheHomeserverLine() {
        #expect(TransportSectionTests.errors(Self.config("http://matrix.example.org")) == """
            config.yaml:3:15: error: homeserver 'http://matrix.example.org' is plain http on another machine: the password and access tokens would cross the network in clear; use https:// or set 'allow_insecure: true'
              homeserver: http://matrix.example.org
                          ^
            """)
        #expect(TransportSectionTests.errors(Self.config("http://matrix.example.org", allowInsecure: false)).contains("config.yaml:3:15: error"))
        #expect(TransportSectionTests.errors(Self.config("http://10.0.0.5:8008")).contains("config.yaml:3:15: error"))
    }

    @Test func allowInsecurePermitsIt() {
        #expect(TransportSectionTests.errors(Self.config("http://matrix.example.org", allowInsecure: true)) == "")
    }

    @Test(arguments: ["http://127.0.0.1:8008", "http://127.1.2.3", "http://localhost:8008", "http://[::1]:8008",
                      "https://matrix.example.org"])
    func loopbackAndHTTPSPass(homeserver: String) {
        #expect(TransportSectionTests.errors(Self.config(homeserver)) == "")
    }

    @Test func aLocalTransportDoesNotKnowTheKey() {
        #expect(TransportSectionTests.errors("transport: { kind: local, allow_insecure: true }").contains(
            "config.yaml:1:27: error: unknown key 'allow_insecure'"))
    }
}
