extension ChatClient {
    /// Who hands events to the event handler (`setEventHandler(_:)`): the receiving task
    /// gives a transport batch's events together once the batch is handled, and one delivery
    /// at a time calls the handler. Decided without I/O; the actor calls the handler.
    struct HandlerDelivery: Equatable {
        enum State: Equatable {
            /// Neither: an event raised now needs a task of its own to reach the handler.
            case idle
            /// The receiving task handles a transport batch (and delivers its events after).
            case receiving
            /// A delivery calls the handler: events raised meanwhile join it.
            case delivering
            /// A batch is handled while another task's delivery runs.
            case receivingWhileDelivering
        }

        private(set) var state = State.idle

        /// The receiving task starts handling a transport batch.
        mutating func batchStarted() {
            switch state {
            case .idle: state = .receiving
            case .delivering: state = .receivingWhileDelivering
            case .receiving, .receivingWhileDelivering: break
            }
        }

        /// The batch is handled; its events are for the delivery that follows.
        mutating func batchHandled() {
            switch state {
            case .receiving: state = .idle
            case .receivingWhileDelivering: state = .delivering
            case .idle, .delivering: break
            }
        }

        /// True when an event queued now needs a task to deliver it: nobody receives or
        /// delivers, who would take it along.
        var needsDeliveryTask: Bool { state == .idle }

        /// A delivery wants to start. True when it may (now delivering); false when one runs
        /// already (it takes the pending events too, in order).
        mutating func deliveryStarting() -> Bool {
            switch state {
            case .idle: state = .delivering
            case .receiving: state = .receivingWhileDelivering
            case .delivering, .receivingWhileDelivering: return false
            }
            return true
        }

        /// The delivery found nothing more pending.
        mutating func deliveryEnded() {
            switch state {
            case .delivering: state = .idle
            case .receivingWhileDelivering: state = .receiving
            case .idle, .receiving: break
            }
        }
    }
}
