internal import COlm

/// Memory and byte handling shared by the libolm objects: where secrets pass through buffers
/// this module owns, so they can be wiped.
enum LibOlmMemory {
    /// What every libolm call returns on failure.
    static var failure: Int { olm_error() }

    /// Uninitialised memory for one olm object of `size` bytes (`olm_*_size()`).
    static func allocateObject(size: Int) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 16)
    }

    /// Wipes and frees an object's memory (after `olm_clear_*`, which zeroes only the struct).
    static func releaseObject(_ memory: UnsafeMutableRawPointer, size: Int) {
        parley_olm_wipe(memory, size)
        memory.deallocate()
    }

    /// Calls `body` with a private, writable copy of `bytes`, wiped and freed afterwards.
    /// Used for every input: libolm decodes base64 in place (messages, pickles, signatures
    /// are destroyed by the call), and plaintexts and keys should not linger.
    static func withCopy<Result>(of bytes: some Collection<UInt8>,
                                 _ body: (UnsafeMutableRawPointer, Int) throws -> Result) rethrows -> Result {
        let count = bytes.count
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        defer {
            parley_olm_wipe(buffer.baseAddress, buffer.count)
            buffer.deallocate()
        }
        buffer.copyBytes(from: bytes)
        return try body(buffer.baseAddress!, count)
    }

    /// Calls `body` with `count` bytes from `SystemRandomNumberGenerator` (the kernel's
    /// getrandom), wiped and freed afterwards.
    static func withRandom<Result>(count: Int, _ body: (UnsafeMutableRawPointer, Int) throws -> Result) rethrows -> Result {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        defer {
            parley_olm_wipe(buffer.baseAddress, buffer.count)
            buffer.deallocate()
        }
        var generator = SystemRandomNumberGenerator()
        for index in 0..<count {
            buffer[index] = generator.next()
        }
        return try body(buffer.baseAddress!, count)
    }

    /// Calls `fill` with a buffer of `capacity` bytes; returns olm's result and, unless it is
    /// the failure value, the first `result` bytes written. The buffer is wiped and freed.
    /// With `whole`, all `capacity` bytes are returned: for the calls that fill a fixed-size
    /// buffer and return 0 (libolm's pk functions).
    static func output(capacity: Int, whole: Bool = false, _ fill: (UnsafeMutableRawPointer, Int) -> Int) -> (result: Int, bytes: [UInt8]) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(capacity, 1), alignment: 16)
        defer {
            parley_olm_wipe(buffer.baseAddress, buffer.count)
            buffer.deallocate()
        }
        let result = fill(buffer.baseAddress!, capacity)
        // A result over `capacity` breaks olm's contract; copying nothing keeps it from
        // reading past the buffer.
        guard result != failure, result <= capacity else { return (result, []) }
        return (result, Array(buffer[0..<(whole ? capacity : result)]))
    }

    /// The bytes as text (olm's outputs are ASCII base64 or JSON), then wiped.
    static func text(consuming bytes: inout [UInt8]) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        Secrets.wipe(&bytes)
        return text
    }

    /// The error for a failed call, from the object's last error code and string.
    static func error(_ operation: String, code: OlmErrorCode, message: UnsafePointer<CChar>?) -> OlmError {
        OlmError(operation: operation, code: OlmError.Code(olmCode: code.rawValue),
                 libraryMessage: message.map { String(cString: $0) } ?? "")
    }
}
