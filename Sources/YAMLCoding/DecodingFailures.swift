/// Thrown by a container call: the child at `site`, asked for by the frame `frame`, failed with
/// `errors`. If the frame's `init(from:)` lets it escape, the errors count and `init(from:)` is
/// run again with that site answered by a stand-in; if the call was wrapped in `try?`, the
/// errors vanish with it, so probing one type after another keeps working.
struct CallFailure: Error {
    let frame: ObjectIdentifier
    let site: Site
    let errors: [YAMLError]
}

/// Thrown out of a whole value's decoding: every error found in it.
struct ValueFailure: Error {
    let errors: [YAMLError]
}

/// A problem with the node a decoder stands on (e.g. a sequence where a mapping is wanted).
struct NodeProblem: Error {
    let error: YAMLError
}
