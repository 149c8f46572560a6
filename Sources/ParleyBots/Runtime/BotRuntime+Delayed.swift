import Foundation
import ParleyCore

/// `wait`: the rest of a plan is stored in the conversation's state before the timer is
/// armed, and shortened as it runs, so a restart neither loses it nor runs it twice.
extension BotRuntime {
    /// Stores `rest` as a delayed plan due after `duration` (replacing the plan it is the rest
    /// of, in the same write) and arms its timer.
    func delay(_ rest: ArraySlice<Effect>, offset: Int, by duration: Duration, replacing finished: UUID?,
               trigger: Message?, state: inout ConversationState, _ channel: Channel) {
        if let finished { state.delayed.removeAll { $0.id == finished } }
        if !rest.isEmpty {
            let plan = DelayedPlan(id: UUID(), due: clock.now().addingTimeInterval(duration.timeInterval), effects: Array(rest),
                                   offset: offset, trigger: trigger.map(ReceivedMessage.init))
            state.delayed.append(plan)
            armDelayed(plan, in: channel)
        }
        saveState(state, channel)
    }

    /// Runs `plan` when it is due (at once if that has passed, as after a restart).
    func armDelayed(_ plan: DelayedPlan, in channel: Channel) {
        let id = plan.id
        timer.schedule(at: plan.due) { [weak self] in
            self?.acceptFromTimer(.resume(id), in: channel)
        }
    }

    /// Runs the delayed plan `id` of `channel`, if it has not run yet, then forgets it.
    func resumeDelayed(_ id: UUID, in channel: Channel) async {
        var state = loadState(channel)
        guard let plan = state.delayed.first(where: { $0.id == id }) else { return }
        let trigger = plan.trigger?.message(registry: client.configuration.registry)
        await execute(plan.effects, in: channel, trigger: trigger, state: &state, resuming: plan)
        state.delayed.removeAll { $0.id == id }
        saveState(state, channel)
    }

    /// Records that the delayed plan `id` goes on at `remaining` (index `offset` of the whole
    /// plan): a restart runs from there; only the effect running at a crash can repeat, and
    /// its send is recognised by its client message number.
    func saveProgress(of id: UUID, remaining: ArraySlice<Effect>, offset: Int, state: inout ConversationState, _ channel: Channel) {
        guard let index = state.delayed.firstIndex(where: { $0.id == id }), state.delayed[index].offset != offset else { return }
        state.delayed[index].effects = Array(remaining)
        state.delayed[index].offset = offset
        saveState(state, channel)
    }
}
