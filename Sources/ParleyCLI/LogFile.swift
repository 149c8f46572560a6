import Foundation
import Synchronization

/// Log lines appended to a file: while the console owns the terminal, info lines would
/// interleave with the chat, so they go here (warnings and errors are shown as well).
final class LogFile: Sendable {
    /// The file as shown to the user.
    let shownPath: String
    private let handle: Mutex<FileHandle?>

    /// Opens (creating) `path` for appending.
    init(path: String, shownPath: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
            }
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        self.handle = Mutex(handle)
        self.shownPath = shownPath
    }

    /// Appends one line.
    func append(_ line: String) {
        handle.withLock { handle in try? handle?.write(contentsOf: Data((line + "\n").utf8)) }
    }

    /// Closes the file; later lines are dropped.
    func close() {
        handle.withLock { handle in
            try? handle?.close()
            handle = nil
        }
    }
}
