import ParleyTesting
import Testing
import ParleyCore

@Suite struct FallbackProfileProviderTests {
    static let directory = [Profile(id: "alice", name: "Alice (CRM)", phone: "+49 1"), Profile(id: "carol", name: "Carol (CRM)")]
    static let server = [Profile(id: "alice", name: "alice"), Profile(id: "bob", name: "Bob"), Profile(id: "dave", name: "Dave")]

    @Test func theFallbackIsAskedOnlyForWhatThePrimaryLacksAndTheOrderIsTheRequestsOwn() async throws {
        let primary = CountingProvider(Self.directory)
        let fallback = CountingProvider(Self.server)
        let provider = FallbackProfileProvider(primary: primary, fallback: fallback)
        let profiles = try await provider.fetchProfiles(["dave", "alice", "nobody", "bob", "carol", "alice"])
        #expect(profiles == [Profile(id: "dave", name: "Dave"), Profile(id: "alice", name: "Alice (CRM)", phone: "+49 1"),
                             Profile(id: "bob", name: "Bob"), Profile(id: "carol", name: "Carol (CRM)")])
        #expect(primary.recorded == [["dave", "alice", "nobody", "bob", "carol"]])
        #expect(fallback.recorded == [["dave", "nobody", "bob"]])
    }

    @Test func nothingMissingAsksNoFallback() async throws {
        let fallback = CountingProvider(Self.server)
        let provider = FallbackProfileProvider(primary: CountingProvider(Self.directory), fallback: fallback)
        #expect(try await provider.fetchProfiles(["carol", "alice"]).map(\.id) == ["carol", "alice"])
        #expect(fallback.recorded.isEmpty)
    }

    @Test func eachProviderIsAskedWithinItsOwnBatchSize() async throws {
        let people = (0..<250).map { Profile(id: "u\($0)", name: "User \($0)") }
        let primary = CountingProvider(people.enumerated().filter { $0.offset.isMultiple(of: 2) }.map(\.element))
        let fallback = CountingProvider(people, maxBatchSize: 40)
        let provider = FallbackProfileProvider(primary: primary, fallback: fallback)
        #expect(provider.maxBatchSize == 40)
        let profiles = try await provider.fetchProfiles(people.map(\.id))
        #expect(profiles == people)
        #expect(primary.recorded.map(\.count) == [100, 100, 50])
        #expect(fallback.recorded.map(\.count) == [40, 40, 40, 5])
        #expect(fallback.recorded.joined().allSatisfy { Int($0.dropFirst())! % 2 == 1 })
    }

    @Test func throughTheProfileServiceNoCallExceedsAHundred() async throws {
        let people = (0..<250).map { Profile(id: "u\($0)", name: "User \($0)") }
        let primary = CountingProvider(Array(people.prefix(30)))
        let fallback = CountingProvider(people)
        let service = ProfileService(provider: FallbackProfileProvider(primary: primary, fallback: fallback), clock: ManualClock())
        #expect(try await service.profiles(of: people.map(\.id)).count == 250)
        // The service fetches its batches concurrently: the calls' order is not fixed.
        #expect(primary.recorded.map(\.count).sorted() == [50, 100, 100])
        #expect(fallback.recorded.map(\.count).sorted() == [50, 70, 100])
    }

    @Test func aFailingFallbackKeepsThePrimarysProfilesAndIsReported() async throws {
        let failures = Locked<[String]>([])
        let fallback = CountingProvider(Self.server, failure: ParleyError(.networkUnavailable, "homeserver down"))
        let provider = FallbackProfileProvider(primary: CountingProvider(Self.directory), fallback: fallback) { error in
            failures.mutate { $0.append((error as? ParleyError)?.message ?? "\(error)") }
        }
        let profiles = try await provider.fetchProfiles(["bob", "alice"])
        #expect(profiles == [Profile(id: "alice", name: "Alice (CRM)", phone: "+49 1")])
        #expect(fallback.recorded == [["bob"]])
        #expect(failures.value == ["homeserver down"])
    }

    @Test func aFailingPrimaryFailsTheLookupWithoutAskingTheFallback() async throws {
        let primary = CountingProvider(Self.directory, failure: ParleyError(.networkUnavailable, "CRM down"))
        let fallback = CountingProvider(Self.server)
        let provider = FallbackProfileProvider(primary: primary, fallback: fallback)
        let error = await #expect(throws: ParleyError.self) { try await provider.fetchProfiles(["alice", "bob"]) }
        #expect(error?.message == "CRM down")
        #expect(fallback.recorded.isEmpty)
    }
}
