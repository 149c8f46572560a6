import YAMLCoding
import ParleyBots

/// A flow-test file that decoded: its path as shown, the tests and its text.
public struct LoadedFlowTest: Sendable {
    /// Path as shown in messages (`bots/support.test.yaml`).
    public var file: String
    /// The decoded file.
    public var definition: FlowTestFile
    /// The file's text, for positioned messages.
    public var source: SourceFile

    /// Reads, decodes and validates one test file against the host's bots (what `parley check`
    /// and `parley test` both do). The test is returned when it decoded, even with validation
    /// errors: run it only when `errors` is empty.
    public static func load(file: String, path: String, bots: [LoadedBot],
                            environment: [String: String]) -> (test: LoadedFlowTest?, errors: [YAMLError]) {
        let text: String
        switch TextFile.read(path, displayPath: file) {
        case .failure(let error): return (nil, [error])
        case .success(let value): text = value
        }
        let source = SourceFile(name: file, text: text)
        do {
            let definition = try YAMLDecoder(environment: environment).decode(FlowTestFile.self, from: text, file: file)
            return (LoadedFlowTest(file: file, definition: definition, source: source),
                    FlowTestValidator.validate(definition, source: source, bots: bots))
        } catch {
            return (nil, error.errors)
        }
    }
}
