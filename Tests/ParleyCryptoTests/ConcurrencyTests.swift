import Testing
import ParleyCrypto

/// The types are `Sendable` because each serialises its olm object behind a lock: used from
/// many tasks at once, a Megolm session still hands out each message index exactly once.
@Suite struct ConcurrencyTests {
    @Test func concurrentEncryptsUseEveryIndexOnce() async throws {
        let outbound = try MegolmOutboundSession()
        let inbound = try MegolmInboundSession(sessionKey: try outbound.sessionKey())
        let ciphertexts = try await withThrowingTaskGroup(of: [String].self) { group in
            for task in 0..<8 {
                group.addTask { try (0..<25).map { try outbound.encrypt("task \(task) message \($0)") } }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(outbound.messageIndex == 200)
        let indices = try ciphertexts.map { try inbound.decrypt($0).messageIndex }
        #expect(Set(indices) == Set(0..<200))
    }

    @Test func anAccountGeneratesKeysFromManyTasks() async throws {
        let account = try OlmAccount()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { try account.generateOneTimeKeys(count: 5) }
            }
            try await group.waitForAll()
        }
        #expect(try account.oneTimeKeys().count == 20)
    }
}

@Suite struct OlmMessageTests {
    @Test func onlyOlmsTwoTypesAreMessages() {
        #expect(OlmMessage(type: 0, body: "x")?.kind == .preKey)
        #expect(OlmMessage(type: 1, body: "x")?.kind == .normal)
        #expect(OlmMessage(type: 2, body: "x") == nil)
    }

    @Test func aNormalMessageNeitherMatchesNorStartsASession() throws {
        let account = try OlmAccount()
        let normal = OlmMessage(kind: .normal, body: "AwogAAAA")
        #expect(throws: OlmError.self) { try OlmSession(inboundFrom: account, message: normal) }
    }
}
