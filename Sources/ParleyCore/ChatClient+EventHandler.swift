// MARK: - A consumer called by the receiving task

extension ChatClient {
    /// A consumer of event batches. It runs on the receiving task's executor, the client's
    /// (`nonisolated(nonsending)`): reaching an actor that shares the client's executor
    /// costs no hop, and reaching any other actor one hop, not two (off the client to the
    /// generic executor, then onto the actor).
    public typealias EventHandler = nonisolated(nonsending) @Sendable ([ChatEvent]) async -> Void

    /// Hands every event to `handler`, in order and in batches, called by the client's own
    /// receiving task: the events of one transport batch together, and the next transport
    /// batch is taken only once `handler` returned. A consumer on another actor is reached by
    /// that task hopping over (no task of its own to wake per batch, as `eventBatches()` has),
    /// and a slow one holds the transport back instead of piling events up. Events raised
    /// outside receiving (connection changes, background errors) reach it too, in order.
    /// Never called twice at once. Nil removes the handler.
    public func setEventHandler(_ handler: EventHandler?) {
        eventHandler = handler
        if handler == nil { handlerEvents.removeAll() }
    }

    /// Handles one transport batch, then gives its events to the handler.
    func receiveBatch(_ batch: [TransportEvent]) async {
        delivery.batchStarted()
        for event in batch { handle(event) }
        handledEvents += batch.count
        delivery.batchHandled()
        await deliverToHandler()
    }

    func queueForHandler(_ event: ChatEvent) {
        handlerEvents.append(event)
        // The receiving task delivers its batch's events itself; others need a task.
        if delivery.needsDeliveryTask { Task { await self.deliverToHandler() } }
    }

    /// Gives the handler what is pending until nothing is; at once if a delivery runs (it
    /// takes these too, in order).
    func deliverToHandler() async {
        guard delivery.deliveryStarting() else { return }
        // Bounded by the events raised meanwhile: each round takes all that are pending.
        // The handler's array comes back as the next pending one (emptied, its buffer kept
        // when the handler kept no copy): no new buffer per batch.
        var spare: [ChatEvent] = []
        while !handlerEvents.isEmpty, let handler = eventHandler {
            swap(&spare, &handlerEvents)
            handlerRunning = true
            await handler(spare)
            handlerRunning = false
            spare.removeAll(keepingCapacity: true)
        }
        if flushScheduled { flushWrites() }
        if handlerEvents.isEmpty { swap(&spare, &handlerEvents) }
        delivery.deliveryEnded()
        handlerCaughtUp()
    }
}
