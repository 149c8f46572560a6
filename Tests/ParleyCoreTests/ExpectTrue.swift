import Testing

/// `#expect` for a condition that fires an event (a mutating call): the macro captures its
/// operands as constants, so such a condition is evaluated first and checked here.
func expectTrue(_ condition: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(condition, sourceLocation: sourceLocation)
}
