@testable import ParleyCore
import Testing

/// Who hands events to the event handler, alone: every event against every state.
@Suite struct ChatClientHandlerDeliveryTests {
    typealias Delivery = ChatClient.HandlerDelivery

    @Test func anEventRaisedOutsideReceivingNeedsATaskOnlyWhenIdle() {
        var delivery = Delivery()
        #expect(delivery.needsDeliveryTask)
        delivery.batchStarted()
        #expect(!delivery.needsDeliveryTask)
        delivery.batchHandled()
        expectTrue(delivery.deliveryStarting())
        #expect(!delivery.needsDeliveryTask)
        delivery.deliveryEnded()
        #expect(delivery.state == .idle && delivery.needsDeliveryTask)
    }

    @Test func oneDeliveryAtATime() {
        var delivery = Delivery()
        expectTrue(delivery.deliveryStarting())
        expectTrue(!delivery.deliveryStarting())
        #expect(delivery.state == .delivering)
        delivery.deliveryEnded()
        expectTrue(delivery.deliveryStarting())
    }

    @Test func aBatchHandledWhileAnotherTaskDeliversLeavesThatDeliveryRunning() {
        var delivery = Delivery()
        expectTrue(delivery.deliveryStarting())
        delivery.batchStarted()
        #expect(delivery.state == .receivingWhileDelivering)
        // The receiving task's own delivery joins the running one.
        expectTrue(!delivery.deliveryStarting())
        delivery.batchHandled()
        #expect(delivery.state == .delivering)
        delivery.deliveryEnded()
        #expect(delivery.state == .idle)
    }

    @Test func aDeliveryEndingWhileABatchIsHandledLeavesTheBatchToItsTask() {
        var delivery = Delivery()
        delivery.batchStarted()
        expectTrue(delivery.deliveryStarting())
        #expect(delivery.state == .receivingWhileDelivering)
        delivery.deliveryEnded()
        #expect(delivery.state == .receiving && !delivery.needsDeliveryTask)
        delivery.batchHandled()
        #expect(delivery.state == .idle)
    }

    @Test func endingWhatDidNotStartChangesNothing() {
        var delivery = Delivery()
        delivery.batchHandled()
        delivery.deliveryEnded()
        #expect(delivery.state == .idle)
        delivery.batchStarted()
        delivery.batchStarted()
        delivery.deliveryEnded()
        #expect(delivery.state == .receiving)
        delivery.batchHandled()
        expectTrue(delivery.deliveryStarting())
        delivery.batchHandled()
        #expect(delivery.state == .delivering)
    }
}
