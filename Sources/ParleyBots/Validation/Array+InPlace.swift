extension Array {
    /// Calls `body` with each element read in place. A `for in` loop, or passing `self[i]`,
    /// copies every element (a retain and a release per reference it holds); commands and
    /// actions hold many.
    func forEachInPlace(_ body: (Element) throws -> Void) rethrows {
        try withUnsafeBufferPointer { buffer in
            for index in buffer.indices { try body(buffer[index]) }
        }
    }
}
