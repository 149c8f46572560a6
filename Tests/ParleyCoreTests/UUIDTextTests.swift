import Foundation
@testable import ParleyCore
import Testing

@Suite struct UUIDTextTests {
    /// The fast writer must spell every id exactly as Foundation does: stored rows written
    /// by either are matched by text (outbox deletes, history look-ups).
    @Test func matchesFoundationSpelling() {
        var sequence = UUIDSequence()
        var ids = (0..<500).map { _ in UUID() } + (0..<500).map { _ in sequence.next() }
        ids.append(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        ids.append(UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)))
        for id in ids {
            #expect(id.text == id.uuidString)
            #expect(UUID(uuidString: id.text) == id)
        }
    }
}
