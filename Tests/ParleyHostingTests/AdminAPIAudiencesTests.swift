import Foundation
import ParleyBots
import ParleyCore
import ParleyHosting
import ParleyTesting
import Testing

/// `/api/v1/audiences…` on the embedded hub: the desk bot's `news` audience listed, joined by a
/// user's command and by the API, left through the API.
@Suite struct AdminAPIAudiencesTests {
    typealias Listener = OperationsListenerTests
    typealias Actions = AdminAPIActionsTests

    @Test func audiencesAreListedJoinedAndLeft() async throws {
        let (running, alice, listener) = try await Listener.listening(users: Actions.users)
        let api = listener.url + "/api/v1/audiences"
        try await HostMetricsTests.say("/join", alice, running)
        let joined = try await Actions.post(api + "/desk/news/subscribe", #"{"target": "user:bob"}"#)
        #expect(joined.status == 200)
        #expect(try Listener.json(joined) == ["target": "user:bob", "subscribed": true, "changed": true])
        let members = try await Listener.get(api + "/desk/news", token: Listener.token)
        #expect(try Listener.json(members) == ["bot": "desk", "audience": "news", "members": ["user:alice", "user:bob"]])

        let left = try await Actions.post(api + "/desk/news/unsubscribe", #"{"target": "user:bob"}"#)
        #expect(try Listener.json(left) == ["target": "user:bob", "subscribed": false, "changed": true])
        #expect(try Listener.json(try await Actions.post(api + "/desk/news/unsubscribe", #"{"target": "user:bob"}"#))["changed"] == false)
        let list = try await Listener.get(api, token: Listener.token)
        #expect(try Listener.json(list) == ["audiences": [["bot": "desk", "audience": "news", "description": "Desk news", "members": 1,
                                                           "opted_out": 1, "joined_7d": 1, "left_7d": 1]]])

        #expect(try await Listener.get(api + "/desk/weekly", token: Listener.token).status == 404)
        #expect(try await Actions.post(api + "/desk/news/subscribe", #"{"target": "bob"}"#).status == 400)
        #expect(try await Actions.post(api + "/desk/news/subscribe", #"{"who": "user:bob"}"#).status == 400)
        #expect(try await Listener.get(api + "/desk/news/subscribe", token: Listener.token).status == 405)
        #expect(try await Listener.get(api, token: nil).status == 401)
        await Listener.close(running, alice, listener)
    }
}

/// `parley_broadcast_recipients` of a job to an audience counts who opted out.
@Suite struct AudienceMetricsTests {
    @Test func aJobToAnAudienceCountsItsOptOuts() async throws {
        let (running, alice) = try await HostMetricsTests.host()
        // Outcomes recorded as a run records them (a run of the host's own would race this test's).
        let store = try #require(running.host.options.broadcasts?.store)
        #expect(try store.create(id: "daily", bot: "desk", origin: "test", message: try BroadcastMessage(text: "News"), ratePerSecond: nil,
                                 recipients: [.person("alice"), .person("bob")], audience: "news", now: Date()))
        try store.record(job: "daily", [BroadcastRecipient(position: 0, channel: .person("alice"), outcome: .sent(messageID: "m1")),
                                        BroadcastRecipient(position: 1, channel: .person("bob"), outcome: .optedOut)])
        let text = await running.metrics.registry.exposition()
        #expect(HostMetricsTests.value(text, #"parley_broadcast_recipients{bot="desk",job="daily",state="opted_out"}"#) == 1)
        #expect(HostMetricsTests.value(text, #"parley_broadcast_recipients{bot="desk",job="daily",state="sent"}"#) == 1)
        await alice.close()
        await running.shutdown()
    }
}
