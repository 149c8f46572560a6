import Foundation

/// Finds flow-test files: every `*.test.yaml` under the given paths (folders searched
/// recursively, in sorted order; files taken as they are).
public enum FlowTestDiscovery {
    /// One test file: as shown to users, and its file-system path.
    public struct Found: Sendable, Hashable {
        public var file: String
        public var path: String
        /// Creates an entry.
        public init(file: String, path: String) {
            self.file = file
            self.path = path
        }
    }

    /// The test files under `paths` (as the user wrote them; `resolve` gives file-system paths),
    /// or one error line per path that does not exist. Duplicates are listed once.
    public static func find(_ paths: [String], resolve: (String) -> String) -> (found: [Found], errors: [String]) {
        var found: [Found] = []
        var seen: Set<String> = []
        var errors: [String] = []
        for shown in paths {
            let path = resolve(shown)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                errors.append("\(shown): no such file or folder")
                continue
            }
            let files = isDirectory.boolValue ? testFiles(inFolder: path).map { relative in
                (join(shown, relative), join(path, relative))
            } : [(shown, path)]
            for (file, path) in files where seen.insert(path).inserted {
                found.append(Found(file: file, path: path))
            }
        }
        return (found, errors)
    }

    /// Paths relative to `folder` of every `*.test.yaml` below it, sorted; hidden entries skipped.
    private static func testFiles(inFolder folder: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var files: [String] = []
        // Bounded: a file tree is finite, but a symlink loop is not; stop at a generous count.
        while files.count < 100_000, let next = enumerator.nextObject() as? String {
            let name = (next as NSString).lastPathComponent
            if name.hasPrefix(".") {
                enumerator.skipDescendants()
                continue
            }
            if name.hasSuffix(".test.yaml") { files.append(next) }
        }
        return files.sorted()
    }

    private static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}
