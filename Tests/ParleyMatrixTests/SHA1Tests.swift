import Foundation
import Testing
@testable import ParleyMatrix

@Suite struct SHA1Tests {
    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        (String(repeating: "a", count: 1000), "291e9a6c66994949b57ba5e650361e98fc36b1ba"),
    ])
    func digestsKnownVectors(message: String, hex: String) {
        #expect(SHA1.hex(SHA1.digest(Array(message.utf8))) == hex)
    }

    @Test func hmacMatchesRFC2202() {
        #expect(SHA1.hex(SHA1.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        // Case 6: a key longer than the block size is hashed first.
        #expect(SHA1.hex(SHA1.hmac(key: [UInt8](repeating: 0xAA, count: 80),
                                   message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
            == "aa4ae5e15272d00e95705637ce8a3b55ed402112")
    }

    @Test func nameBasedUUIDMatchesRFC9562Example() throws {
        // RFC 9562 appendix A.4: the DNS namespace and "www.example.com".
        let dns = try #require(UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8"))
        #expect(SHA1.uuid(namespace: dns, name: "www.example.com").uuidString.lowercased() == "2ed6657d-e927-568b-95e1-2665a8aea6a2")
    }
}
