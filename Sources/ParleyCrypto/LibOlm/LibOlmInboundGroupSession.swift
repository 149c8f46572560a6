internal import COlm

/// ``InboundGroupBackend`` over libolm's `OlmInboundGroupSession`, in memory this object owns.
final class LibOlmInboundGroupSession: InboundGroupBackend {
    private let memory: UnsafeMutableRawPointer
    private let pointer: OpaquePointer

    init() {
        memory = LibOlmMemory.allocateObject(size: olm_inbound_group_session_size())
        pointer = olm_inbound_group_session(memory)
    }

    deinit {
        _ = olm_clear_inbound_group_session(pointer)
        LibOlmMemory.releaseObject(memory, size: olm_inbound_group_session_size())
    }

    @discardableResult
    private func check(_ result: Int, _ operation: String) throws -> Int {
        guard result == LibOlmMemory.failure else { return result }
        throw LibOlmMemory.error(operation, code: olm_inbound_group_session_last_error_code(pointer),
                                 message: olm_inbound_group_session_last_error(pointer))
    }

    private func text(_ operation: String, capacity: Int, _ fill: (UnsafeMutablePointer<UInt8>, Int) -> Int) throws -> String {
        var out = LibOlmMemory.output(capacity: capacity) { fill($0.assumingMemoryBound(to: UInt8.self), $1) }
        try check(out.result, operation)
        return LibOlmMemory.text(consuming: &out.bytes)
    }

    func create(sessionKey: String) throws {
        let result = LibOlmMemory.withCopy(of: sessionKey.utf8) {
            olm_init_inbound_group_session(pointer, $0.assumingMemoryBound(to: UInt8.self), $1)
        }
        try check(result, "create inbound Megolm session")
    }

    func importSession(exportedKey: String) throws {
        let result = LibOlmMemory.withCopy(of: exportedKey.utf8) {
            olm_import_inbound_group_session(pointer, $0.assumingMemoryBound(to: UInt8.self), $1)
        }
        try check(result, "import inbound Megolm session")
    }

    func unpickle(_ pickle: String, key: PickleKey) throws {
        let result = LibOlmMemory.withCopy(of: key.bytes) { keyBytes, keyLength in
            LibOlmMemory.withCopy(of: pickle.utf8) { olm_unpickle_inbound_group_session(pointer, keyBytes, keyLength, $0, $1) }
        }
        try check(result, "unpickle inbound Megolm session")
    }

    func pickle(key: PickleKey) throws -> String {
        try LibOlmMemory.withCopy(of: key.bytes) { keyBytes, keyLength in
            try text("pickle inbound Megolm session", capacity: olm_pickle_inbound_group_session_length(pointer)) {
                olm_pickle_inbound_group_session(pointer, keyBytes, keyLength, $0, $1)
            }
        }
    }

    func sessionID() throws -> String {
        try text("read inbound Megolm session id", capacity: olm_inbound_group_session_id_length(pointer)) {
            olm_inbound_group_session_id(pointer, $0, $1)
        }
    }

    var firstKnownIndex: UInt32 { olm_inbound_group_session_first_known_index(pointer) }

    func decrypt(_ body: String) throws -> (plaintext: [UInt8], messageIndex: UInt32) {
        // Both calls decode the base64 body in place, so each gets its own copy.
        let capacity = try check(LibOlmMemory.withCopy(of: body.utf8) {
            olm_group_decrypt_max_plaintext_length(pointer, $0.assumingMemoryBound(to: UInt8.self), $1)
        }, "decrypt Megolm message")
        var index: UInt32 = 0
        let out = LibOlmMemory.withCopy(of: body.utf8) { bodyBytes, bodyLength in
            LibOlmMemory.output(capacity: capacity) {
                olm_group_decrypt(pointer, bodyBytes.assumingMemoryBound(to: UInt8.self), bodyLength,
                                  $0.assumingMemoryBound(to: UInt8.self), $1, &index)
            }
        }
        try check(out.result, "decrypt Megolm message")
        return (out.bytes, index)
    }

    func export(at messageIndex: UInt32) throws -> String {
        try text("export inbound Megolm session at index \(messageIndex)", capacity: olm_export_inbound_group_session_length(pointer)) {
            olm_export_inbound_group_session(pointer, $0, $1, messageIndex)
        }
    }
}
