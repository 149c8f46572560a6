import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps a database file, its `-wal`, `-shm` and `-journal` files and the folders created for
/// them readable by their owner only.
///
/// The state databases hold sessions, messages and tickets; SQLite creates files 0644 and
/// folders follow the umask, so any local user could read them. Modes are set explicitly
/// (chmod after create), so no umask can loosen them.
enum OwnerOnlyFiles {
    static let fileMode: mode_t = 0o600
    static let folderMode: mode_t = 0o700

    /// Creates the missing folders of `path` (0700) and the empty database file (0600), and
    /// tightens existing looser files, and the folder when it is Parley's to change, telling
    /// `warn` what it changed. SQLite then gives its `-wal` and `-shm` files the database's mode.
    static func prepare(databaseAt path: String, warn: (String) -> Void) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty { try prepareFolder(folder, warn: warn) }
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, fileMode)
        if fd >= 0 {
            defer { close(fd) }
            guard fchmod(fd, fileMode) == 0 else { throw failure("chmod", path) }
        } else if errno != EEXIST {
            throw failure("create", path)
        }
        for file in [path, path + "-wal", path + "-shm", path + "-journal"] {
            try tighten(file, to: fileMode, warn: warn)
        }
    }

    private static func prepareFolder(_ folder: String, warn: (String) -> Void) throws {
        var info = stat()
        if stat(folder, &info) != 0 {
            let parent = (folder as NSString).deletingLastPathComponent
            if !parent.isEmpty, parent != folder { try prepareFolder(parent, warn: { _ in }) }
            guard mkdir(folder, folderMode) == 0 || errno == EEXIST else { throw failure("create folder", folder) }
            guard chmod(folder, folderMode) == 0 else { throw failure("chmod", folder) }
            return
        }
        // A folder shared with others (/tmp: sticky), not ours, or the one the user works in
        // is not Parley's to lock down; the files in it are owner-only all the same.
        let shared = info.st_mode & S_ISVTX != 0 || info.st_uid != geteuid()
            || [FileManager.default.currentDirectoryPath, NSHomeDirectory(), "/"].map(canonical).contains(canonical(folder))
        if !shared { try tighten(folder, to: folderMode, warn: warn) }
    }

    /// chmods `path` to `mode` when it grants group or others anything; absent files are fine.
    private static func tighten(_ path: String, to mode: mode_t, warn: (String) -> Void) throws {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o077 != 0 else { return }
        let old = String(info.st_mode & 0o777, radix: 8)
        guard chmod(path, mode) == 0 else { throw failure("chmod", path) }
        warn("\(path) was readable by other users (mode \(old)): now \(String(mode, radix: 8)), owner only")
    }

    private static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    private static func failure(_ what: String, _ path: String) -> StoreError {
        StoreError(code: 14, message: "cannot \(what) \(path): \(String(cString: strerror(errno)))")
    }
}
