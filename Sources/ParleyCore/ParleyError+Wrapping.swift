extension ParleyError {
    /// `error` itself if it is a `ParleyError`; cancellation as `cancelled`; anything else
    /// as `code` with the error's description.
    public static func wrapping(_ error: any Error, as code: Code) -> ParleyError {
        if let error = error as? ParleyError { return error }
        if error is CancellationError { return ParleyError(.cancelled, "cancelled") }
        return ParleyError(code, String(describing: error))
    }
}
