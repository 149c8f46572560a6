import Foundation

/// `promtool check metrics`, Prometheus's own checker of the text exposition format (Debian's
/// `prometheus` package; `scripts/install-deps` installs it).
public enum Promtool {
    /// What promtool objects to in `text` (lint problems and parse errors); "" when it accepts it.
    /// Throws when promtool is not installed.
    public static func check(_ text: String) async throws -> String {
        guard let tool = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first(where: FileManager.default.isExecutableFile) else {
            throw Missing()
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).txt")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        // promtool reads the exposition from standard input.
        let result = try await ProcessRunner.run("/bin/sh", ["-c", "\"$0\" check metrics < \"$1\"", tool, file.path],
                                                 in: FileManager.default.temporaryDirectory, timeout: .seconds(30), mergingOutput: true)
        if result.status == 0 { return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
        return "promtool exited \(result.status): \(result.stdout)"
    }

    /// promtool is not installed.
    public struct Missing: Error, CustomStringConvertible {
        public var description: String { "promtool not found: run scripts/install-deps (it installs Debian's prometheus package)" }
    }
}
