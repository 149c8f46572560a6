@testable import ParleyBots
import Testing

@Suite struct LaneTests {
    @Test func aDrainStartsOnlyWhenNoneRunsAndEndsWithTheQueue() {
        var lane = Lane()
        let first = lane.push(.joined), second = lane.push(.resolved(ticket: 1))
        #expect(first && !second)
        #expect(lane.running)
        guard case .joined? = lane.pop() else { Issue.record("first item"); return }
        let whileRunning = lane.push(.resolved(ticket: 2))
        #expect(!whileRunning)
        var tickets: [Int] = []
        while let item = lane.pop() {
            if case .resolved(let ticket) = item { tickets.append(ticket) }
        }
        #expect(tickets == [1, 2])
        #expect(!lane.running)
        let again = lane.push(.joined)
        #expect(again)
    }
}
