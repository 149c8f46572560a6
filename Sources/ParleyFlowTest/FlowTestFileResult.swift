/// One test file's outcome: its tests, or the errors that kept it from running.
public struct FlowTestFileResult: Sendable {
    /// The file as shown to users.
    public var file: String
    /// Test results in file order.
    public var tests: [FlowTestResult]
    /// Errors loading or validating the file (`file:line:col: message`); the file's tests did not run.
    public var errors: [String]

    /// Creates a result.
    public init(file: String, tests: [FlowTestResult] = [], errors: [String] = []) {
        self.file = file
        self.tests = tests
        self.errors = errors
    }
}
