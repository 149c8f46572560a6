import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One process at a time per store: an exclusive advisory lock on a file beside the database
/// (`parley.db.lock`), held for the life of the process that opened the store and released by
/// the kernel when it dies, however it dies. Two processes numbering the embedded hub's
/// channels in memory, or resuming one broadcast job, on one store lose and misfile messages;
/// the second is refused instead, told which process holds the store.
public final class StoreLock: Sendable {
    /// The lock file.
    public let path: String
    /// The open lock file; nil once released.
    private let descriptor: Mutex<Int32?>

    /// Takes the lock of the store at `storagePath` (a file-system path, not `:memory:`),
    /// writing this process's id and `holder` (what it is doing) into the lock file.
    /// - Throws: `HostError` naming the process that holds it, or why the file cannot be made.
    public init(storagePath: String, shownPath: String, holder: String) throws(HostError) {
        path = storagePath + ".lock"
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw HostError("cannot create the lock file \(shownPath).lock: \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let owner = Self.owner(descriptor)
            close(descriptor)
            throw HostError("the storage \(shownPath) is in use by \(owner ?? "another process"); "
                            + "stop it first (one process at a time keeps a store)")
        }
        // Who holds it, for the message of the next process that tries.
        let note = "pid \(getpid()) (\(holder))\n"
        _ = ftruncate(descriptor, 0)
        _ = note.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        self.descriptor = Mutex(descriptor)
    }

    /// Lets the store go (closing the file releases the lock); later calls do nothing. The
    /// file stays: removing it would race a process that has it open and is about to lock it.
    public func release() {
        descriptor.withLock { held in
            if let open = held { close(open) }
            held = nil
        }
    }

    /// What the lock file says of its holder (`pid 1234 (parley run)`), if anything.
    private static func owner(_ descriptor: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = pread(descriptor, &buffer, buffer.count - 1, 0)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : "process " + text
    }

    deinit { release() }
}
