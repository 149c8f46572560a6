internal import COlm

/// ``AccountBackend`` over libolm's `OlmAccount`, in memory this object owns.
final class LibOlmAccount: AccountBackend {
    private let memory: UnsafeMutableRawPointer
    let pointer: OpaquePointer

    init() {
        memory = LibOlmMemory.allocateObject(size: olm_account_size())
        pointer = olm_account(memory)
    }

    deinit {
        _ = olm_clear_account(pointer)
        LibOlmMemory.releaseObject(memory, size: olm_account_size())
    }

    /// Throws the account's last error when `result` is olm's failure value.
    @discardableResult
    private func check(_ result: Int, _ operation: String) throws -> Int {
        guard result == LibOlmMemory.failure else { return result }
        throw LibOlmMemory.error(operation, code: olm_account_last_error_code(pointer), message: olm_account_last_error(pointer))
    }

    /// Runs an olm call that writes text into a buffer of `capacity` bytes.
    private func text(_ operation: String, capacity: Int, _ fill: (UnsafeMutableRawPointer, Int) -> Int) throws -> String {
        var out = LibOlmMemory.output(capacity: capacity, fill)
        try check(out.result, operation)
        return LibOlmMemory.text(consuming: &out.bytes)
    }

    func create() throws {
        let result = LibOlmMemory.withRandom(count: olm_create_account_random_length(pointer)) {
            olm_create_account(pointer, $0, $1)
        }
        try check(result, "create account")
    }

    func unpickle(_ pickle: String, key: PickleKey) throws {
        let result = LibOlmMemory.withCopy(of: key.bytes) { keyBytes, keyLength in
            LibOlmMemory.withCopy(of: pickle.utf8) { olm_unpickle_account(pointer, keyBytes, keyLength, $0, $1) }
        }
        try check(result, "unpickle account")
    }

    func pickle(key: PickleKey) throws -> String {
        try LibOlmMemory.withCopy(of: key.bytes) { keyBytes, keyLength in
            try text("pickle account", capacity: olm_pickle_account_length(pointer)) {
                olm_pickle_account(pointer, keyBytes, keyLength, $0, $1)
            }
        }
    }

    func identityKeysJSON() throws -> String {
        try text("read identity keys", capacity: olm_account_identity_keys_length(pointer)) {
            olm_account_identity_keys(pointer, $0, $1)
        }
    }

    func sign(_ message: [UInt8]) throws -> String {
        try LibOlmMemory.withCopy(of: message) { messageBytes, messageLength in
            try text("sign", capacity: olm_account_signature_length(pointer)) {
                olm_account_sign(pointer, messageBytes, messageLength, $0, $1)
            }
        }
    }

    var maxOneTimeKeys: Int { olm_account_max_number_of_one_time_keys(pointer) }

    func generateOneTimeKeys(count: Int) throws {
        let result = LibOlmMemory.withRandom(count: olm_account_generate_one_time_keys_random_length(pointer, count)) {
            olm_account_generate_one_time_keys(pointer, count, $0, $1)
        }
        try check(result, "generate \(count) one-time keys")
    }

    func oneTimeKeysJSON() throws -> String {
        try text("read one-time keys", capacity: olm_account_one_time_keys_length(pointer)) {
            olm_account_one_time_keys(pointer, $0, $1)
        }
    }

    func markKeysAsPublished() throws {
        try check(olm_account_mark_keys_as_published(pointer), "mark keys as published")
    }

    func generateFallbackKey() throws {
        let result = LibOlmMemory.withRandom(count: olm_account_generate_fallback_key_random_length(pointer)) {
            olm_account_generate_fallback_key(pointer, $0, $1)
        }
        try check(result, "generate fallback key")
    }

    func unpublishedFallbackKeyJSON() throws -> String {
        try text("read fallback key", capacity: olm_account_unpublished_fallback_key_length(pointer)) {
            olm_account_unpublished_fallback_key(pointer, $0, $1)
        }
    }

    func forgetOldFallbackKey() {
        olm_account_forget_old_fallback_key(pointer)
    }

    func outboundSession(theirIdentityKey: String, theirOneTimeKey: String) throws -> any SessionBackend {
        let session = LibOlmSession()
        try session.check(LibOlmMemory.withCopy(of: theirIdentityKey.utf8) { identityBytes, identityLength in
            LibOlmMemory.withCopy(of: theirOneTimeKey.utf8) { oneTimeBytes, oneTimeLength in
                LibOlmMemory.withRandom(count: olm_create_outbound_session_random_length(session.pointer)) {
                    olm_create_outbound_session(session.pointer, pointer, identityBytes, identityLength,
                                                oneTimeBytes, oneTimeLength, $0, $1)
                }
            }
        }, "create outbound Olm session")
        return session
    }

    func inboundSession(preKeyMessage: String, theirIdentityKey: String?) throws -> any SessionBackend {
        let session = LibOlmSession()
        let result: Int
        if let theirIdentityKey {
            result = LibOlmMemory.withCopy(of: theirIdentityKey.utf8) { identityBytes, identityLength in
                LibOlmMemory.withCopy(of: preKeyMessage.utf8) {
                    olm_create_inbound_session_from(session.pointer, pointer, identityBytes, identityLength, $0, $1)
                }
            }
        } else {
            result = LibOlmMemory.withCopy(of: preKeyMessage.utf8) { olm_create_inbound_session(session.pointer, pointer, $0, $1) }
        }
        try session.check(result, "create inbound Olm session")
        return session
    }

    func removeOneTimeKeys(usedBy session: any SessionBackend) throws {
        guard let session = session as? LibOlmSession else {
            throw OlmError(operation: "remove one-time keys", code: .foreignObject)
        }
        try check(olm_remove_one_time_keys(pointer, session.pointer), "remove one-time keys")
    }
}
