import Foundation
import ParleyStore
import Synchronization
import Testing

/// The state databases hold sessions and conversations: owner-only, whatever the umask.
@Suite struct FileModeTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("parley-modes-\(UUID())").path

    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int) & 0o777
    }

    @Test func aStoreInAFreshFolderIsOwnerOnly() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let folder = base + "/state"
        let path = folder + "/parley.db"
        let db = try Migrations(name: "test", steps: ["CREATE TABLE a (x)"]).open(path, warn: { Issue.record("warned: \($0)") })
        try db.run("INSERT INTO a VALUES (1)")  // the WAL and its index exist while open
        #expect(try Self.mode(path) == 0o600)
        #expect(try Self.mode(path + "-wal") == 0o600)
        #expect(try Self.mode(path + "-shm") == 0o600)
        #expect(try Self.mode(folder) == 0o700)
        #expect(try Self.mode(base) == 0o700)
    }

    @Test func looserFilesAndFolderAreTightenedWithAWarning() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let path = base + "/parley.db"
        // As an older Parley left them: the database 0644 in a 0755 folder.
        do { _ = try Connection(path: path) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: base)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)

        let warnings = Mutex<[String]>([])
        _ = try Connection(path: path, warn: { line in warnings.withLock { $0.append(line) } })
        #expect(try Self.mode(path) == 0o600)
        #expect(try Self.mode(base) == 0o700)
        #expect(warnings.withLock { $0 } == [
            "\(base) was readable by other users (mode 755): now 700, owner only",
            "\(path) was readable by other users (mode 644): now 600, owner only",
        ])
    }

    @Test func aSharedFolderIsLeftAloneButTheFileIsNot() throws {
        // /tmp is sticky and shared: locking it down would break the machine.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-modes-\(UUID()).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let before = try Self.mode(FileManager.default.temporaryDirectory.path)
        _ = try Connection(path: path, warn: { Issue.record("warned: \($0)") })
        #expect(try Self.mode(path) == 0o600)
        #expect(try Self.mode(FileManager.default.temporaryDirectory.path) == before)
    }
}
