import Foundation
import Testing
@testable import ParleyHosting

/// The lease decisions of a process, without a database or real time.
struct LeasePlanTests {
    let lease = Duration.seconds(10)
    let t0 = ContinuousClock.now

    @Test func aTakenBotLapsesAMarginBeforeItsLeaseUnlessRenewed() {
        var plan = LeasePlan(lease: lease)
        plan.took("a", generation: 1, startedAt: t0, orphan: false)
        #expect(plan.lapsed(at: t0 + .seconds(7)).isEmpty)
        #expect(plan.lapsed(at: t0 + .seconds(8)) == ["a"])
        plan.renewed("a", generation: 1, startedAt: t0 + .seconds(3))
        #expect(plan.lapsed(at: t0 + .seconds(10)).isEmpty)
        #expect(plan.lapsed(at: t0 + .seconds(11)) == ["a"])
        // A renewal of an earlier generation (the bot was lost and taken again) moves nothing.
        plan.renewed("a", generation: 0, startedAt: t0 + .seconds(20))
        #expect(plan.lapsed(at: t0 + .seconds(11)) == ["a"])
    }

    @Test func candidatesAreTheBotsNeitherHeldNorBackedOffFrom() {
        var plan = LeasePlan(lease: lease)
        plan.took("b", generation: 4, startedAt: t0, orphan: false)
        plan.took("c", generation: 2, startedAt: t0, orphan: false)
        let givenBack = plan.giveBack("c", generation: 2, at: t0)
        let givenBackTwice = plan.giveBack("c", generation: 2, at: t0)
        #expect(givenBack && !givenBackTwice)
        let soon = plan.candidates(among: ["a", "b", "c", "d"], at: t0 + .seconds(19))
        #expect(soon == ["a", "d"])
        // Two leases later the bot it could not start may be taken again.
        let later = plan.candidates(among: ["a", "b", "c", "d"], at: t0 + .seconds(21))
        #expect(later == ["a", "c", "d"])
    }

    @Test func aBotTakenAtItsShareIsAnOrphanAndNeverHandedOver() {
        var plan = LeasePlan(lease: lease)
        #expect(!plan.takesOrphan(share: 1))
        plan.took("a", generation: 1, startedAt: t0, orphan: plan.takesOrphan(share: 1))
        #expect(plan.takesOrphan(share: 1))
        plan.took("b", generation: 1, startedAt: t0, orphan: plan.takesOrphan(share: 1))
        #expect(plan.handOvers(beyond: 0, at: t0 + .seconds(60)) == ["a"])
    }

    @Test func theBotsBeyondTheShareAreHandedOverTheLastByNameOnceSettled() {
        var plan = LeasePlan(lease: lease)
        for bot in ["d", "a", "c", "b"] { plan.took(bot, generation: 1, startedAt: t0, orphan: false) }
        #expect(plan.handOvers(beyond: 4, at: t0 + .seconds(60)).isEmpty)
        // Held for less than two leases: not moved yet.
        #expect(plan.handOvers(beyond: 2, at: t0 + .seconds(19)).isEmpty)
        #expect(plan.handOvers(beyond: 2, at: t0 + .seconds(20)) == ["c", "d"])
        // One still starting stays; the next by name goes in its place.
        plan.setStarting(["d": 1], true)
        #expect(plan.handOvers(beyond: 2, at: t0 + .seconds(20)) == ["b", "c"])
        plan.setStarting(["d": 1], false)
        let dropped = plan.drop(["d", "x"])
        #expect(dropped == ["d"])
        #expect(plan.handOvers(beyond: 2, at: t0 + .seconds(20)) == ["c"])
        let all = plan.dropAll()
        #expect(all == ["a": 1, "b": 1, "c": 1])
        #expect(plan.generations.isEmpty)
    }
}
