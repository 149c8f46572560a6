import Foundation
import ParleyCore
import ParleyHosting
import ParleyTesting
import Testing

/// `GET /api/v1/broadcasts/{id}/failed` and `POST /api/v1/broadcasts/{id}/retry-failed` on the
/// embedded hub.
@Suite struct AdminAPIRetryFailedTests {
    typealias Listener = OperationsListenerTests
    typealias Actions = AdminAPIActionsTests

    @Test func failedRecipientsAreListedAndRetriedAsANewJob() async throws {
        let (running, alice, listener) = try await Listener.listening(users: Actions.users)
        let api = listener.url + "/api/v1/broadcasts"
        let started = try await Actions.post(api, #"{"bot": "desk", "to": ["user:bob", "user:erin", "user:carol"], "text": "Hi {{recipient.id}}", "id": "w"}"#)
        #expect(started.status == 201)
        try await withTimeout { await running.host.waitUntilIdle() }

        let failed = try await Listener.get(api + "/w/failed", token: Listener.token)
        #expect(failed.status == 200)
        #expect(try Listener.json(failed) == ["failed": [["target": "user:erin", "code": "notFound", "message": "no such user", "attempts": 1]]])

        try #require(running.hub).addUser(Profile(id: "erin"))
        let retry = try await Actions.post(api + "/w/retry-failed", #"{"id": "w-again"}"#)
        #expect(retry.status == 201)
        #expect(retry.header("location") == "/api/v1/broadcasts/w-again")
        let job = try Listener.json(retry)
        #expect(job["origin"] == "retry:w" && job["total"] == 1)
        try await withTimeout { await running.host.waitUntilIdle() }
        #expect(try Actions.received("erin", running) == ["Hi erin"])
        #expect(try Actions.received("bob", running) == ["Hi bob"])
        #expect(try Listener.json(try await Listener.get(api + "/w-again/failed", token: Listener.token)) == ["failed": []])
        // Asked again under its id: the same job, nothing sent twice.
        #expect(try await Actions.post(api + "/w/retry-failed", #"{"id": "w-again"}"#).status == 200)
        try await withTimeout { await running.host.waitUntilIdle() }
        #expect(try Actions.received("erin", running) == ["Hi erin"])

        #expect(try await Listener.get(api + "/nope/failed", token: Listener.token).status == 404)
        #expect(try await Actions.post(api + "/nope/retry-failed", "").status == 404)
        #expect(try await Actions.post(api + "/w-again/retry-failed", "").status == 400)
        #expect(try await Actions.post(api + "/w/retry-failed", #"{"id": "a/b"}"#).status == 400)
        #expect(try await Listener.get(api + "/w/retry-failed", token: Listener.token).status == 405)
        await Listener.close(running, alice, listener)
    }
}
