import Foundation

/// Unique client message numbers without a system call per id: a random base drawn once,
/// then a counter. Version-4 layout; unique within one sequence for 2^56 ids, and across
/// clients and restarts as random UUIDs are.
public struct UUIDSequence: Sendable {
    private let high: UInt64
    private let low: UInt64
    private var counter: UInt64 = 0

    public init() {
        var generator = SystemRandomNumberGenerator()
        high = generator.next()
        low = generator.next()
    }

    public mutating func next() -> UUID {
        counter &+= 1
        // Bytes 0–7: random, with the version nibble; byte 8: variant + random; bytes 9–15:
        // the random base plus the counter (mod 2^56), so ids of one sequence never repeat.
        let head = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let tail = (low &+ counter) & 0x00FF_FFFF_FFFF_FFFF
        let variant = UInt8(0x80 | ((low >> 56) & 0x3F))
        func byte(_ value: UInt64, _ shift: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: value >> shift) }
        return UUID(uuid: (byte(head, 56), byte(head, 48), byte(head, 40), byte(head, 32), byte(head, 24), byte(head, 16),
                           byte(head, 8), byte(head, 0), variant, byte(tail, 48), byte(tail, 40), byte(tail, 32),
                           byte(tail, 24), byte(tail, 16), byte(tail, 8), byte(tail, 0)))
    }
}
