import CCurl
import Foundation

/// A libcurl multi handle driven by one thread of its own: every transfer of a client runs on
/// it, over connections kept alive between requests (at most `maxConnectionsPerHost` to a host).
///
/// The thread sleeps on a condition while no transfer is active, and in `curl_multi_poll`
/// (woken by its sockets, libcurl's own deadline or `curl_multi_wakeup`) while some are:
/// nothing wakes it without work. Callers hand it transfers and cancellations under `lock`.
final class CurlLoop: @unchecked Sendable {
    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    private let multi: UnsafeMutableRawPointer
    private let lock = NSCondition()
    // Guarded by `lock`:
    private var incoming: [CurlTransfer] = []
    private var cancelled: [CurlTransfer] = []
    /// Handles of finished transfers, reset, for the next ones (loop thread only).
    private var spareHandles: [UnsafeMutableRawPointer] = []
    /// As many as the connections kept per host: enough for every transfer at once.
    static let maxSpareHandles = 16
    private var stopped = false
    private var busy = false
    // The loop thread's own:
    private var active: [Int: CurlTransfer] = [:]

    init(maxConnectionsPerHost: Int) {
        _ = Self.globalInit
        multi = curl_multi_init()
        _ = parley_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxConnectionsPerHost)
        let thread = Thread { [self] in run() }
        thread.name = "parley-http"
        thread.start()
    }

    /// Queues `transfer` (its continuation set); a transfer cancelled before this is failed at once.
    func submit(_ transfer: CurlTransfer) {
        lock.lock()
        let refused = transfer.cancelRequested || stopped
        if !refused {
            transfer.submitted = true
            incoming.append(transfer)
            wake()
        }
        lock.unlock()
        if refused { transfer.continuation?.resume(throwing: HTTPFailure.cancelled) }
    }

    /// Stops `transfer` (from the cancellation handler of its task, on any thread).
    func cancel(_ transfer: CurlTransfer) {
        lock.lock()
        transfer.cancelRequested = true
        if transfer.submitted {
            cancelled.append(transfer)
            wake()
        }
        lock.unlock()
    }

    /// Ends the thread: transfers in flight fail with `cancelled`.
    func stop() {
        lock.lock()
        stopped = true
        wake()
        lock.unlock()
    }

    /// Under `lock`: rouses the thread from the condition or from `curl_multi_poll`.
    private func wake() {
        if busy { curl_multi_wakeup(multi) } else { lock.signal() }
    }

    private func run() {
        while true {
            lock.lock()
            while incoming.isEmpty && cancelled.isEmpty && !stopped && active.isEmpty { lock.wait() }
            let (starting, stopping, ending) = (incoming, cancelled, stopped)
            incoming = []
            cancelled = []
            busy = !ending
            lock.unlock()
            if ending { return shutDown(also: starting) }

            for transfer in starting { start(transfer) }
            for transfer in stopping { abort(transfer, with: .cancelled) }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            collectFinished()
            guard !active.isEmpty else {
                lock.lock()
                busy = false
                lock.unlock()
                continue
            }
            var timeout = -1
            curl_multi_timeout(multi, &timeout)
            // -1: libcurl has no deadline of its own; every transfer has a timeout, so this is rare.
            curl_multi_poll(multi, nil, 0, Int32(timeout < 0 ? 1_000 : min(timeout, 60_000)), nil)
        }
    }

    private func start(_ transfer: CurlTransfer) {
        if let failure = transfer.makeHandle(reusing: spareHandles.popLast()) {
            recycle(transfer.takeHandle())
            return transfer.continuation?.resume(throwing: failure) ?? ()
        }
        guard let easy = transfer.easy else { return }
        active[Int(bitPattern: easy)] = transfer
        curl_multi_add_handle(multi, easy)
    }

    /// Removes an active transfer before libcurl finished it.
    private func abort(_ transfer: CurlTransfer, with failure: HTTPFailure) {
        guard let easy = transfer.easy, active.removeValue(forKey: Int(bitPattern: easy)) != nil else { return }
        curl_multi_remove_handle(multi, easy)
        recycle(transfer.takeHandle())
        transfer.continuation?.resume(throwing: failure)
    }

    /// Keeps a reset handle for the next transfer (up to `maxSpareHandles`): a new handle per
    /// request costs its allocations and buffers each time. Loop thread only.
    private func recycle(_ handle: UnsafeMutableRawPointer?) {
        guard let handle else { return }
        if spareHandles.count < Self.maxSpareHandles { spareHandles.append(handle) } else { curl_easy_cleanup(handle) }
    }

    private func collectFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                  let transfer = active.removeValue(forKey: Int(bitPattern: easy)) else { continue }
            let code = message.pointee.data.result
            curl_multi_remove_handle(multi, easy)
            let result = transfer.finish(code)
            recycle(transfer.takeHandle())
            transfer.continuation?.resume(with: result.mapError { $0 as any Error })
        }
    }

    private func shutDown(also waiting: [CurlTransfer]) {
        for transfer in Array(active.values) { abort(transfer, with: .cancelled) }
        for transfer in waiting { transfer.continuation?.resume(throwing: HTTPFailure.cancelled) }
        for handle in spareHandles { curl_easy_cleanup(handle) }
        spareHandles = []
        curl_multi_cleanup(multi)
    }
}
