import Foundation

/// One backend object and the lock every use of it goes through.
///
/// libolm objects are plain C structs with no locking of their own; the public types hold one
/// of these so they can be `Sendable`. `@unchecked Sendable` because `object` is only ever
/// reached inside `use`, under `lock`. Callers that need two objects (an account and a
/// session) always lock the account first.
final class Guarded<Object>: @unchecked Sendable {
    private let lock = NSLock()
    private let object: Object

    init(_ object: Object) { self.object = object }

    func use<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(object)
    }
}
