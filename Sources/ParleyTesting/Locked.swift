import Synchronization

/// A value shared between test tasks behind a lock.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) { mutex = Mutex(value) }

    public var value: Value { mutex.withLock { $0 } }

    public func mutate<T: Sendable>(_ body: @Sendable (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
}
