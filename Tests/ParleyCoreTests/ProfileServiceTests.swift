import Foundation
import Synchronization
import Testing
import ParleyCore
import ParleyTesting

@Suite struct ProfileServiceTests {
    static let people = (0..<300).map { Profile(id: "u\($0)", name: "User \($0)") }

    @Test func hundredConcurrentLookupsOfOneIDMakeOneProviderCall() async throws {
        let provider = CountingProvider(Self.people)
        let service = ProfileService(provider: provider, clock: ManualClock())
        let names = try await withTimeout {
            try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<100 { group.addTask { try await service.profile(of: "u7")?.name } }
                var names: [String?] = []
                for try await name in group { names.append(name) }
                return names
            }
        }
        #expect(names == Array(repeating: "User 7", count: 100))
        #expect(provider.calls.withLock { $0 } == [["u7"]])
    }

    @Test func twoHundredFiftyIDsAreFetchedInThreeCalls() async throws {
        let provider = CountingProvider(Self.people)
        let service = ProfileService(provider: provider, clock: ManualClock())
        let ids = (0..<250).map { "u\($0)" }
        let profiles = try await service.profiles(of: ids)
        #expect(profiles.count == 250)
        #expect(provider.calls.withLock { $0.map(\.count) } == [100, 100, 50])
        _ = try await service.profiles(of: ids)
        #expect(provider.calls.withLock { $0.count } == 3, "the second lookup is served from the cache")
    }

    @Test func entriesExpireAndCanBeInvalidated() async throws {
        let clock = ManualClock()
        let provider = CountingProvider(Self.people)
        let service = ProfileService(provider: provider, clock: clock, expiry: .seconds(60))
        _ = try await service.profile(of: "u1")
        await clock.advance(by: .seconds(59))
        _ = try await service.profile(of: "u1")
        #expect(provider.calls.withLock { $0.count } == 1)
        await clock.advance(by: .seconds(1))
        _ = try await service.profile(of: "u1")
        #expect(provider.calls.withLock { $0.count } == 2)
        await service.invalidate("u1")
        _ = try await service.profiles(of: ["u1", "u2"])
        #expect(provider.calls.withLock { $0.last } == ["u1", "u2"])
        await service.invalidateAll()
        #expect(await service.cachedCount == 0)
        _ = try await service.profiles(of: ["u1", "u2"])
        #expect(provider.calls.withLock { $0.count } == 4)
    }

    @Test func theCacheAndThePreviewsKeepAtMostTheLimitNewestFirst() async throws {
        let provider = CountingProvider(Self.people)
        let service = ProfileService(provider: provider, clock: ManualClock(), limit: 50)
        for person in Self.people {
            service.notePreview(id: person.id, name: person.name, avatar: nil)
            #expect(try await service.profile(of: person.id)?.name == person.name)
        }
        #expect(await service.cachedCount == 50)
        // The oldest were forgotten (a look-up fetches them again), the newest are at hand.
        #expect(service.preview(of: "u0") == nil && service.cachedProfileNow(of: "u0") == nil)
        #expect(service.preview(of: "u299")?.name == "User 299" && service.cachedProfileNow(of: "u299")?.name == "User 299")
        let calls = provider.calls.withLock { $0.count }
        _ = try await service.profiles(of: ["u0", "u299"])
        #expect(provider.calls.withLock { $0.count } == calls + 1)
        #expect(provider.calls.withLock { $0.last } == ["u0"])
    }

    @Test func unknownIDsAreCachedAsUnknownAndPreviewsStandIn() async throws {
        let provider = CountingProvider(Self.people)
        let service = ProfileService(provider: provider, clock: ManualClock())
        service.notePreview(id: "ghost", name: "Ghost", avatar: nil)
        #expect(await service.cachedProfile(of: "ghost")?.name == "Ghost")
        #expect(try await service.profile(of: "ghost") == nil)
        #expect(try await service.profile(of: "ghost") == nil)
        #expect(provider.calls.withLock { $0.count } == 1)
        #expect(await service.cachedProfile(of: "ghost")?.name == "Ghost")
    }

    @Test func httpProviderFetchesFromARealLocalServer() async throws {
        let server = try LoopbackHTTPServer { request in
            let path = request.path
            guard path.hasPrefix("/users?ids=") else { return .init(status: 404, body: "{}") }
            let ids = path.dropFirst("/users?ids=".count).split(separator: ",").map { $0.removingPercentEncoding ?? String($0) }
            let body = ids.filter { $0 != "nobody" }.map { #"{"id":"\#($0)","name":"Name of \#($0)","phone":"+1 555"}"# }
            return .init(status: 200, body: "{\"profiles\":[" + body.joined(separator: ",") + "]}")
        }
        defer { server.stop() }
        let provider = try HTTPProfileProvider(urlTemplate: "http://127.0.0.1:\(server.port)/users?ids={ids}", timeout: .seconds(5))
        let profiles = try await withTimeout { try await provider.fetchProfiles(["alice", "bob smith", "nobody"]) }
        #expect(profiles == [Profile(id: "alice", name: "Name of alice", phone: "+1 555"),
                             Profile(id: "bob smith", name: "Name of bob smith", phone: "+1 555")])
        #expect(server.requests.map(\.path) == ["/users?ids=alice,bob%20smith,nobody"])
    }

    @Test func httpProviderReportsStatusAndBadJSON() async throws {
        let server = try LoopbackHTTPServer { request in
            if request.path.contains("broken") { return .init(status: 200, body: #"[{"name":"no id"}]"#) }
            if request.path.contains("busy") { return .init(status: 503, body: "{}") }
            return .init(status: 200, body: "not json")
        }
        defer { server.stop() }
        let provider = try HTTPProfileProvider(urlTemplate: "http://127.0.0.1:\(server.port)/p/{ids}", timeout: .seconds(5))
        await #expect(throws: ParleyError(.invalidContent, "profile[0]: missing field 'id'", context: ["field": "id", "content": "profile[0]"])) {
            try await withTimeout { try await provider.fetchProfiles(["broken"]) }
        }
        await #expect { try await withTimeout { try await provider.fetchProfiles(["busy"]) } } throws: { error in
            (error as? ParleyError)?.code == .serverError && (error as? ParleyError)?.context["status"] == "503"
        }
        await #expect { try await withTimeout { try await provider.fetchProfiles(["x"]) } } throws: { error in
            (error as? ParleyError)?.code == .invalidContent
        }
        #expect(throws: ParleyError.self) { try HTTPProfileProvider(urlTemplate: "http://127.0.0.1/no-placeholder") }
    }
}
