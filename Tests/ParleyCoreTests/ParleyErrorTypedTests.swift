import Foundation
@testable import ParleyCore
import Testing

/// What code decides on travels in typed fields; the context is for people and shows the same.
@Suite struct ParleyErrorTypedTests {
    @Test func aReconnectFailureIsTypedAndShown() {
        let failure = ParleyError(.networkUnavailable, "connection refused")
        let retried = ChatClient.reconnectError(failure, "reconnect attempt 2 failed",
                                                ReconnectFailure(attempt: 2, retryIn: .milliseconds(1500)))
        #expect(retried.reconnectFailure == ReconnectFailure(attempt: 2, retryIn: .milliseconds(1500)))
        #expect(retried.code == .networkUnavailable)
        #expect(retried.message == "reconnect attempt 2 failed: connection refused")
        #expect(retried.context == ["attempt": "2", "retry_in": "1.5s"])
        let gaveUp = ChatClient.reconnectError(failure, "reconnect gave up after 3 attempts", ReconnectFailure(attempt: 3, retryIn: nil))
        #expect(gaveUp.reconnectFailure?.retryInText == nil)
        #expect(gaveUp.context == ["attempt": "3"])
    }

    @Test func typedFieldsStayOutOfTheDescription() {
        let error = ParleyError(.invalidArgument, "bad", serverCode: "M_BAD_JSON", reconnectFailure: ReconnectFailure(attempt: 1, retryIn: nil))
        #expect(error.description == "invalidArgument: bad")
        #expect(error != ParleyError(.invalidArgument, "bad"))
        #expect(ParleyError(.invalidArgument, "bad").serverCode == nil)
    }
}
