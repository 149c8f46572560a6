import Foundation
import Testing

/// `parley check` refuses a profile directory whose ids or names hold control characters:
/// they would reach terminals and the lines agents act on.
@Suite struct ProfileCheckTests {
    @Test func aControlCharacterInAProfileIsAnErrorAtItsLine() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-profiles-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("bots"), withIntermediateDirectories: true)
        try "profiles:\n  directory: profiles.yaml\n".write(to: folder.appendingPathComponent("config.yaml"), atomically: true, encoding: .utf8)
        try "fallback:\n  - reply: hi\n".write(to: folder.appendingPathComponent("bots/echo.yaml"), atomically: true, encoding: .utf8)
        try #"""
            bob: { name: Bob Stone }
            eve:
              title: Boss
              name: "Eve\e]0;pwned\a"
            "mal\nlory": { name: "Mal\nSupport: hi" }
            """#.write(to: folder.appendingPathComponent("profiles.yaml"), atomically: true, encoding: .utf8)
        let run = await Run(["check"], in: folder.path)
        #expect(run.status == 1)
        #expect(run.stderr == #"""
            profiles.yaml:4:9: error: invalid name 'Eve\u{1B}]0;pwned\u{7}' of user 'eve': names may not hold control characters or line breaks
              name: "Eve\e]0;pwned\a"
                    ^
            profiles.yaml:5:1: error: invalid user id 'mal\u{A}lory': expected an id without control characters
            "mal\nlory": { name: "Mal\nSupport: hi" }
            ^
            profiles.yaml:5:22: error: invalid name 'Mal\u{A}Support: hi' of user 'mal\u{A}lory': names may not hold control characters or line breaks
            "mal\nlory": { name: "Mal\nSupport: hi" }
                                 ^
            check failed: 3 errors in 1 file

            """#)
    }
}
