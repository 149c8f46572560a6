internal import COlm

/// ``SessionBackend`` over libolm's `OlmSession`, in memory this object owns.
final class LibOlmSession: SessionBackend {
    private let memory: UnsafeMutableRawPointer
    let pointer: OpaquePointer

    init() {
        memory = LibOlmMemory.allocateObject(size: olm_session_size())
        pointer = olm_session(memory)
    }

    deinit {
        _ = olm_clear_session(pointer)
        LibOlmMemory.releaseObject(memory, size: olm_session_size())
    }

    /// Throws the session's last error when `result` is olm's failure value.
    @discardableResult
    func check(_ result: Int, _ operation: String) throws -> Int {
        guard result == LibOlmMemory.failure else { return result }
        throw LibOlmMemory.error(operation, code: olm_session_last_error_code(pointer), message: olm_session_last_error(pointer))
    }

    func unpickle(_ pickle: String, key: PickleKey) throws {
        let result = LibOlmMemory.withCopy(of: key.bytes) { keyBytes, keyLength in
            LibOlmMemory.withCopy(of: pickle.utf8) { olm_unpickle_session(pointer, keyBytes, keyLength, $0, $1) }
        }
        try check(result, "unpickle Olm session")
    }

    func pickle(key: PickleKey) throws -> String {
        var out = LibOlmMemory.withCopy(of: key.bytes) { keyBytes, keyLength in
            LibOlmMemory.output(capacity: olm_pickle_session_length(pointer)) {
                olm_pickle_session(pointer, keyBytes, keyLength, $0, $1)
            }
        }
        try check(out.result, "pickle Olm session")
        return LibOlmMemory.text(consuming: &out.bytes)
    }

    func sessionID() throws -> String {
        var out = LibOlmMemory.output(capacity: olm_session_id_length(pointer)) { olm_session_id(pointer, $0, $1) }
        try check(out.result, "read Olm session id")
        return LibOlmMemory.text(consuming: &out.bytes)
    }

    var hasReceivedMessage: Bool { olm_session_has_received_message(pointer) != 0 }

    func matchesInbound(preKeyMessage: String, theirIdentityKey: String?) throws -> Bool {
        let result: Int
        if let theirIdentityKey {
            result = LibOlmMemory.withCopy(of: theirIdentityKey.utf8) { identityBytes, identityLength in
                LibOlmMemory.withCopy(of: preKeyMessage.utf8) {
                    olm_matches_inbound_session_from(pointer, identityBytes, identityLength, $0, $1)
                }
            }
        } else {
            result = LibOlmMemory.withCopy(of: preKeyMessage.utf8) { olm_matches_inbound_session(pointer, $0, $1) }
        }
        return try check(result, "match inbound Olm session") == 1
    }

    func encrypt(_ plaintext: [UInt8]) throws -> (type: Int, body: String) {
        let type = try check(olm_encrypt_message_type(pointer), "read Olm message type")
        var out = LibOlmMemory.withCopy(of: plaintext) { plainBytes, plainLength in
            LibOlmMemory.withRandom(count: olm_encrypt_random_length(pointer)) { randomBytes, randomLength in
                LibOlmMemory.output(capacity: olm_encrypt_message_length(pointer, plainLength)) {
                    olm_encrypt(pointer, plainBytes, plainLength, randomBytes, randomLength, $0, $1)
                }
            }
        }
        try check(out.result, "encrypt Olm message")
        return (type, LibOlmMemory.text(consuming: &out.bytes))
    }

    func decrypt(type: Int, body: String) throws -> [UInt8] {
        guard type == 0 || type == 1 else {
            throw OlmError(operation: "decrypt Olm message of type \(type)", code: .badMessageFormat)
        }
        // Both calls decode the base64 body in place, so each gets its own copy.
        let capacity = try check(LibOlmMemory.withCopy(of: body.utf8) { olm_decrypt_max_plaintext_length(pointer, type, $0, $1) },
                                 "decrypt Olm message")
        let out = LibOlmMemory.withCopy(of: body.utf8) { bodyBytes, bodyLength in
            LibOlmMemory.output(capacity: capacity) { olm_decrypt(pointer, type, bodyBytes, bodyLength, $0, $1) }
        }
        try check(out.result, "decrypt Olm message")
        return out.bytes
    }
}
