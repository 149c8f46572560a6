internal import COlm

/// ``OutboundGroupBackend`` over libolm's `OlmOutboundGroupSession`, in memory this object owns.
final class LibOlmOutboundGroupSession: OutboundGroupBackend {
    private let memory: UnsafeMutableRawPointer
    private let pointer: OpaquePointer

    init() {
        memory = LibOlmMemory.allocateObject(size: olm_outbound_group_session_size())
        pointer = olm_outbound_group_session(memory)
    }

    deinit {
        _ = olm_clear_outbound_group_session(pointer)
        LibOlmMemory.releaseObject(memory, size: olm_outbound_group_session_size())
    }

    @discardableResult
    private func check(_ result: Int, _ operation: String) throws -> Int {
        guard result == LibOlmMemory.failure else { return result }
        throw LibOlmMemory.error(operation, code: olm_outbound_group_session_last_error_code(pointer),
                                 message: olm_outbound_group_session_last_error(pointer))
    }

    private func text(_ operation: String, capacity: Int, _ fill: (UnsafeMutablePointer<UInt8>, Int) -> Int) throws -> String {
        var out = LibOlmMemory.output(capacity: capacity) { fill($0.assumingMemoryBound(to: UInt8.self), $1) }
        try check(out.result, operation)
        return LibOlmMemory.text(consuming: &out.bytes)
    }

    func create() throws {
        let result = LibOlmMemory.withRandom(count: olm_init_outbound_group_session_random_length(pointer)) {
            olm_init_outbound_group_session(pointer, $0.assumingMemoryBound(to: UInt8.self), $1)
        }
        try check(result, "create outbound Megolm session")
    }

    func unpickle(_ pickle: String, key: PickleKey) throws {
        let result = LibOlmMemory.withCopy(of: key.bytes) { keyBytes, keyLength in
            LibOlmMemory.withCopy(of: pickle.utf8) { olm_unpickle_outbound_group_session(pointer, keyBytes, keyLength, $0, $1) }
        }
        try check(result, "unpickle outbound Megolm session")
    }

    func pickle(key: PickleKey) throws -> String {
        try LibOlmMemory.withCopy(of: key.bytes) { keyBytes, keyLength in
            try text("pickle outbound Megolm session", capacity: olm_pickle_outbound_group_session_length(pointer)) {
                olm_pickle_outbound_group_session(pointer, keyBytes, keyLength, $0, $1)
            }
        }
    }

    func sessionID() throws -> String {
        try text("read outbound Megolm session id", capacity: olm_outbound_group_session_id_length(pointer)) {
            olm_outbound_group_session_id(pointer, $0, $1)
        }
    }

    func sessionKey() throws -> String {
        try text("read outbound Megolm session key", capacity: olm_outbound_group_session_key_length(pointer)) {
            olm_outbound_group_session_key(pointer, $0, $1)
        }
    }

    var messageIndex: UInt32 { olm_outbound_group_session_message_index(pointer) }

    func encrypt(_ plaintext: [UInt8]) throws -> String {
        try LibOlmMemory.withCopy(of: plaintext) { plainBytes, plainLength in
            try text("encrypt Megolm message", capacity: olm_group_encrypt_message_length(pointer, plainLength)) {
                olm_group_encrypt(pointer, plainBytes.assumingMemoryBound(to: UInt8.self), plainLength, $0, $1)
            }
        }
    }
}
