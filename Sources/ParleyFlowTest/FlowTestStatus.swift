/// How one test ended.
public enum FlowTestStatus: Sendable {
    case passed
    case failed(FlowTestFailure)
    /// Left out by `--filter`.
    case skipped
}
