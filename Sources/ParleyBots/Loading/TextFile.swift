import Foundation
import YAMLCoding

/// Reads a YAML file as UTF-8 text; anything else (missing, a directory, unreadable, binary)
/// becomes a positioned error at 1:1 that names the file as the user wrote it.
public enum TextFile {
    /// Larger files are refused before reading: no bot needs them, and they only cost memory.
    public static let maximumSize = 16_000_000

    /// The text at `path` (file-system path); errors name `displayPath`.
    public static func read(_ path: String, displayPath: String) -> Result<String, YAMLError> {
        func failure(_ message: String) -> Result<String, YAMLError> {
            .failure(YAMLError(file: displayPath, mark: Mark(line: 1, column: 1), message: message))
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return failure("no such file")
        }
        if isDirectory.boolValue { return failure("is a directory, expected a YAML file") }
        // A FIFO or device (or a link to /dev/zero) would block or never end: only regular files.
        // attributesOfItem describes a symbolic link itself, so look at what it points to.
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let attributes = try? FileManager.default.attributesOfItem(atPath: target)
        guard let type = attributes?[.type] as? FileAttributeType, type == .typeRegular else {
            return failure("not a regular file, expected a YAML file")
        }
        if let size = attributes?[.size] as? Int, size > maximumSize {
            return failure("file is too large (\(size / 1_000_000) MB): YAML files are limited to \(maximumSize / 1_000_000) MB")
        }
        guard FileManager.default.isReadableFile(atPath: path), let data = FileManager.default.contents(atPath: path) else {
            return failure("cannot read the file (permission denied?)")
        }
        // memchr instead of Data's byte iterator: this runs over every byte of every file.
        let hasNUL = data.withUnsafeBytes { buffer in
            buffer.baseAddress.map { memchr($0, 0, buffer.count) != nil } ?? false
        }
        if hasNUL { return failure("not a text file (it contains NUL bytes): expected UTF-8 YAML") }
        guard let text = String(data: data, encoding: .utf8) else {
            return failure("not valid UTF-8: expected UTF-8 YAML")
        }
        return .success(text)
    }

    /// `folder/name` as a user would write it (`name` alone when the folder is empty).
    public static func join(_ folder: String, _ name: String) -> String {
        if folder.isEmpty || name.hasPrefix("/") { return name }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The folder part of a path as written (`""` for a bare file name).
    public static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
