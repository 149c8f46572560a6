import Glibc

/// A mutex with a condition variable that waits on the monotonic clock. `NSCondition` waits
/// until a wall-clock `Date`, which a clock step (NTP, an administrator) stretches or cuts
/// short; a handler's deadline (or a lease's renewal) must not move with the wall clock.
///
/// `@unchecked Sendable`: a pthread mutex and condition are made to be shared between
/// threads; they are allocated once, at fixed addresses as pthreads requires, and freed in
/// `deinit`, when no thread can hold them any more.
package final class MonotonicCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Under the lock: sleeps until `signal()` or until `deadline` (see `now()`) has passed.
    /// May return early (a spurious wake-up): callers re-check what they wait for.
    package func wait(until deadline: UInt64) {
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        pthread_cond_timedwait(condition, mutex, &time)
    }

    /// Under the lock: wakes the waiting thread.
    package func signal() {
        pthread_cond_signal(condition)
    }

    /// Nanoseconds of `CLOCK_MONOTONIC`, the clock `wait(until:)` measures.
    package static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
