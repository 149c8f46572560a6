import YAMLCoding
import ParleyCore

/// A broadcast's `to_file`: one target (`user:ID` / `group:ID`) a line; blank lines and lines
/// starting with `#` are skipped. Paths are relative to the bot file's folder.
public enum RecipientFile {
    /// The targets in `text`, or every bad line as an error of `file`.
    public static func parse(_ text: String, file: String) -> Result<[Channel], YAMLErrors> {
        let source = SourceFile(name: file, text: text)
        var channels: [Channel] = []
        var errors: [YAMLError] = []
        // "\r\n" is one Character in Swift, so split on both line endings explicitly.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, rawLine) in lines.enumerated() {
            let line = rawLine.trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") { continue }
            if let channel = Channel(target: String(line)), channel.kind != .local {
                channels.append(channel)
            } else {
                errors.append(source.error(at: Mark(line: index + 1, column: 1), "invalid target '\(line)': expected user:ID or group:ID"))
            }
        }
        return errors.isEmpty ? .success(channels) : .failure(YAMLErrors(errors))
    }

    /// Checks every `to_file` of `bot` exists and parses; errors point at the `to_file` value or
    /// into the recipients file.
    static func check(_ bot: LoadedBot, resolve: (String) -> String) -> [YAMLError] {
        var errors: [YAMLError] = []
        for file in bot.definition.recipientFiles where !file.value.isEmpty {
            let path = TextFile.join(TextFile.folder(of: bot.file), file.value)
            switch TextFile.read(resolve(path), displayPath: path) {
            case .failure(let error):
                errors.append(bot.source.error(at: file.mark, "cannot read recipients file '\(path)': \(error.message)"))
            case .success(let text):
                if case .failure(let problems) = parse(text, file: path) { errors += problems.errors }
            }
        }
        return errors
    }
}
