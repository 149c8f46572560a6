import Foundation

extension Outbox {
    /// The outbox's life cycle, its rounds in flight, the worker's wake-ups and the retry
    /// timer: every decision about them, without I/O. The actor holds the handles (the worker
    /// task, its continuation, the timer task, `stop()`'s waiters), feeds each event in here,
    /// and performs what comes back; it asks again after every `await`.
    struct StateMachine: Equatable {
        enum State: Equatable {
            /// Not started, or stopped: submits are refused, nothing is sent.
            case idle
            /// Sending: the worker runs, submitters may send rounds themselves.
            case running(Activity)
            /// `stop()` waits for the worker and the rounds in flight; nothing new starts.
            case stopping(Activity)
        }

        /// What the worker does between rounds.
        enum Worker: Equatable {
            /// Running its loop.
            case busy
            /// Suspended until a signal.
            case waiting
            /// Signalled while busy: its next wait returns at once.
            case signalled
        }

        struct Activity: Equatable {
            /// Rounds being sent, by the worker or by submitters (at most `concurrentSends`).
            var roundsInFlight = 0
            /// Of those, the rounds run by submitters (`stop()` waits for these itself).
            var inlineRounds = 0
            var worker = Worker.busy
            /// When the retry timer wakes the worker; nil without a timer.
            var timerDeadline: Date?
        }

        enum StartAction: Equatable {
            /// Load what the store kept and start the worker (now `running`).
            case startWorker
            /// Already running: nothing to do.
            case none
            /// `stop()` is under way: starting now would race it.
            case refuse
        }

        enum StopAction: Equatable {
            /// Cancel the timer, signal the worker and wait for it and the submitters' rounds.
            case stopWorker
            /// Not running (or already stopping): nothing to do.
            case none
        }

        private(set) var state = State.idle

        var isRunning: Bool {
            if case .running = state { return true }
            return false
        }

        var roundsInFlight: Int { activity?.roundsInFlight ?? 0 }
        var inlineRounds: Int { activity?.inlineRounds ?? 0 }
        var timerDeadline: Date? { activity?.timerDeadline }

        private var activity: Activity? {
            switch state {
            case .idle: return nil
            case .running(let activity), .stopping(let activity): return activity
            }
        }

        /// Applies `change` to the activity of a running or stopping outbox; nil when idle.
        private mutating func update<Value>(_ change: (inout Activity) -> Value) -> Value? {
            switch state {
            case .idle:
                return nil
            case .running(var activity):
                let value = change(&activity)
                state = .running(activity)
                return value
            case .stopping(var activity):
                let value = change(&activity)
                state = .stopping(activity)
                return value
            }
        }

        // MARK: - Life cycle

        mutating func start() -> StartAction {
            switch state {
            case .idle:
                state = .running(Activity())
                return .startWorker
            case .running: return .none
            case .stopping: return .refuse
            }
        }

        /// Loading the store failed: back to idle (no worker was started).
        mutating func startFailed() {
            guard case .running(let activity) = state, activity == Activity() else { return }
            state = .idle
        }

        mutating func stop() -> StopAction {
            guard case .running(var activity) = state else { return .none }
            activity.timerDeadline = nil
            state = .stopping(activity)
            return .stopWorker
        }

        /// The worker and every round have ended: stopped.
        mutating func stopFinished() {
            guard case .stopping(let activity) = state, activity.roundsInFlight == 0 else { return }
            state = .idle
        }

        // MARK: - Rounds

        /// True when a round may start now: running, with fewer than `width` in flight.
        func hasRoom(forRoundsOf width: Int) -> Bool {
            guard case .running(let activity) = state else { return false }
            return activity.roundsInFlight < width
        }

        /// A round goes to the transport. Ignored unless running: once `stop()` began no
        /// round starts.
        mutating func roundStarted(inline: Bool) {
            guard isRunning else { return }
            _ = update {
                $0.roundsInFlight += 1
                if inline { $0.inlineRounds += 1 }
            }
        }

        /// A round's results are applied. True when `stop()`'s waiters are to be resumed (the
        /// last submitter's round ended while stopping). A round nobody counted is ignored.
        mutating func roundFinished(inline: Bool) -> Bool {
            update { activity in
                guard activity.roundsInFlight > 0, !inline || activity.inlineRounds > 0 else { return false }
                activity.roundsInFlight -= 1
                guard inline else { return false }
                activity.inlineRounds -= 1
                return activity.inlineRounds == 0
            } == true && !isRunning
        }

        // MARK: - Waking the worker

        /// Something for the worker to do. True when the waiting worker is to be resumed now;
        /// a busy worker is told at its next wait instead. Nothing to tell when idle.
        mutating func signal() -> Bool {
            update { activity in
                if activity.worker == .waiting {
                    activity.worker = .busy
                    return true
                }
                activity.worker = .signalled
                return false
            } ?? false
        }

        /// The worker has nothing to do. True when it is to suspend until a signal; false
        /// when a signal came meanwhile (consumed) or the outbox is idle.
        mutating func workerWaits() -> Bool {
            update { activity in
                if activity.worker == .signalled {
                    activity.worker = .busy
                    return false
                }
                activity.worker = .waiting
                return true
            } ?? false
        }

        /// The worker runs again: signals sent since it was resumed are covered by this turn.
        mutating func workerWoke() {
            _ = update { $0.worker = .busy }
        }

        // MARK: - The retry timer

        /// A lane waits until `deadline`. True when the timer is to be (re)started for it:
        /// no timer, or one that fires later. Only while running.
        mutating func timerNeeded(at deadline: Date) -> Bool {
            guard case .running(var activity) = state else { return false }
            if let current = activity.timerDeadline, current <= deadline { return false }
            activity.timerDeadline = deadline
            state = .running(activity)
            return true
        }

        /// The timer for `deadline` fired. True when it was the current one (its handle is done).
        mutating func timerFired(_ deadline: Date) -> Bool {
            update { activity in
                guard activity.timerDeadline == deadline else { return false }
                activity.timerDeadline = nil
                return true
            } ?? false
        }
    }
}
