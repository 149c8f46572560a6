import Synchronization

/// The index of the step a test is at, readable when the wall-clock cap strikes.
final class StepProgress: Sendable {
    let index = Atomic<Int>(-1)
}
