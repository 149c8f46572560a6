import Synchronization

/// A value shared between test tasks behind a lock.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    var value: Value { mutex.withLock { $0 } }

    func mutate<T: Sendable>(_ body: @Sendable (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
}
