import Foundation

/// Files several test targets share: `Tests/Fixtures` in the repository.
public enum TestFixtures {
    /// The repository root (this file is Sources/ParleyTesting/TestFixtures.swift).
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `Tests/Fixtures`.
    public static let folder = repository.appendingPathComponent("Tests/Fixtures")

    /// The flow-test fixture host: `config.yaml` with the bot `helper`, its profiles and test files.
    public static let flowHost = folder.appendingPathComponent("flow-host").path

    /// The bot the hot-reload tests rewrite (on the hub and on Matrix): a few commands, one
    /// `ask`, a fallback.
    public static let reloadedDesk = """
        name: Desk
        commands:
          ping: { reply: pong }
          echo: { args: [n], reply: "{{args.n}}" }
          order: { goto: order.number }
        flows:
          order:
            number:
              reply: Which order?
              ask: { save: number }
              next: done
            done:
              reply: "Order {{vars.number}} noted."
        fallback:
          - reply: "Sorry?"
        """
}

/// A new, empty folder under the temporary directory (`<prefix>-<uuid>`) for one test's files.
public struct TemporaryFolder: Sendable {
    public let url: URL
    public var path: String { url.path }

    public init(_ prefix: String = "parley-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` in the folder.
    public func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` as `name` in the folder and returns the file's path.
    @discardableResult
    public func write(_ text: String, as name: String) throws -> String {
        let file = url.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file.path
    }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Test files written against the flow-test fixture host (`TestFixtures.flowHost`).
public enum FlowHostFile {
    /// The file's first lines: bot `helper`, user `alice`, a fixed start time, one test `case`.
    public static let header = """
        bot: helper
        user: alice
        now: "2026-12-01T10:00:00Z"
        profiles:
          bob: { name: Bob Stone }
        tests:
          - name: case
            steps:

        """

    /// Line of the first step written by `text(steps:)`.
    public static let firstStepLine = 9

    /// One test named `case` with `steps` (one step a line, without indentation).
    public static func text(steps: [String]) -> String {
        header + steps.map { "      " + $0 }.joined(separator: "\n") + "\n"
    }
}
