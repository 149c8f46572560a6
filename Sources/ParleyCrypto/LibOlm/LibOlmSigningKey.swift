internal import COlm

/// ``SigningKeyBackend`` over libolm's `OlmPkSigning` (an ed25519 key from a 32-byte seed).
///
/// The seed is kept in memory this object owns (wiped on release) so the key can be pickled:
/// libolm has no pickle for a signing key, so the seed is loaded as the private key of an
/// `OlmPkDecryption` object and that is pickled — encrypted under the pickle key by libolm,
/// with no cryptography written here.
final class LibOlmSigningKey: SigningKeyBackend {
    private let memory: UnsafeMutableRawPointer
    private let pointer: OpaquePointer
    private let seed: UnsafeMutableRawBufferPointer
    let publicKey: String

    /// The key of `seedBytes` (olm_pk_signing_seed_length bytes), or of fresh random ones.
    init(seedBytes: [UInt8]? = nil) throws {
        memory = LibOlmMemory.allocateObject(size: olm_pk_signing_size())
        pointer = olm_pk_signing(memory)
        seed = UnsafeMutableRawBufferPointer.allocate(byteCount: olm_pk_signing_seed_length(), alignment: 16)
        if let seedBytes {
            guard seedBytes.count == seed.count else {
                throw OlmError(operation: "load signing key", code: .inputBufferTooSmall)
            }
            seed.copyBytes(from: seedBytes)
        } else {
            var generator = SystemRandomNumberGenerator()
            for index in 0..<seed.count { seed[index] = generator.next() }
        }
        let (memory, pointer, seed) = (memory, pointer, seed)
        var out = LibOlmMemory.output(capacity: olm_pk_signing_public_key_length(), whole: true) {
            olm_pk_signing_key_from_seed(pointer, $0, $1, seed.baseAddress, seed.count)
        }
        guard out.result != LibOlmMemory.failure else {
            let error = LibOlmMemory.error("create signing key", code: olm_pk_signing_last_error_code(pointer),
                                           message: olm_pk_signing_last_error(pointer))
            Self.release(memory: memory, pointer: pointer, seed: seed)
            throw error
        }
        publicKey = LibOlmMemory.text(consuming: &out.bytes)
    }

    deinit { Self.release(memory: memory, pointer: pointer, seed: seed) }

    private static func release(memory: UnsafeMutableRawPointer, pointer: OpaquePointer, seed: UnsafeMutableRawBufferPointer) {
        _ = olm_clear_pk_signing(pointer)
        LibOlmMemory.releaseObject(memory, size: olm_pk_signing_size())
        parley_olm_wipe(seed.baseAddress, seed.count)
        seed.deallocate()
    }

    func sign(_ message: [UInt8]) throws -> String {
        var out = LibOlmMemory.withCopy(of: message) { bytes, length in
            LibOlmMemory.output(capacity: olm_pk_signature_length(), whole: true) {
                olm_pk_sign(pointer, bytes.assumingMemoryBound(to: UInt8.self), length, $0.assumingMemoryBound(to: UInt8.self), $1)
            }
        }
        guard out.result != LibOlmMemory.failure else {
            throw LibOlmMemory.error("sign with signing key", code: olm_pk_signing_last_error_code(pointer),
                                     message: olm_pk_signing_last_error(pointer))
        }
        return LibOlmMemory.text(consuming: &out.bytes)
    }

    func pickle(key: PickleKey) throws -> String {
        let sealed = try SealedSeed()
        return try sealed.pickle(seed: seed, key: key)
    }

    /// The key a ``pickle(key:)`` stored.
    static func unpickle(_ pickle: String, key: PickleKey) throws -> LibOlmSigningKey {
        var seedBytes = try SealedSeed().unpickle(pickle, key: key)
        defer { Secrets.wipe(&seedBytes) }
        return try LibOlmSigningKey(seedBytes: seedBytes)
    }
}

/// An `OlmPkDecryption` used only as a sealed box for a 32-byte seed (see ``LibOlmSigningKey``).
private final class SealedSeed {
    private let memory: UnsafeMutableRawPointer
    private let pointer: OpaquePointer

    init() throws {
        memory = LibOlmMemory.allocateObject(size: olm_pk_decryption_size())
        pointer = olm_pk_decryption(memory)
    }

    deinit {
        _ = olm_clear_pk_decryption(pointer)
        LibOlmMemory.releaseObject(memory, size: olm_pk_decryption_size())
    }

    private func error(_ operation: String) -> OlmError {
        LibOlmMemory.error(operation, code: olm_pk_decryption_last_error_code(pointer), message: olm_pk_decryption_last_error(pointer))
    }

    func pickle(seed: UnsafeMutableRawBufferPointer, key: PickleKey) throws -> String {
        let loaded = LibOlmMemory.output(capacity: olm_pk_key_length()) {
            olm_pk_key_from_private(pointer, $0, $1, seed.baseAddress, seed.count)
        }
        guard loaded.result != LibOlmMemory.failure else { throw error("seal signing key") }
        var out = LibOlmMemory.withCopy(of: key.bytes) { keyBytes, keyLength in
            LibOlmMemory.output(capacity: olm_pickle_pk_decryption_length(pointer)) {
                olm_pickle_pk_decryption(pointer, keyBytes, keyLength, $0, $1)
            }
        }
        guard out.result != LibOlmMemory.failure else { throw error("pickle signing key") }
        return LibOlmMemory.text(consuming: &out.bytes)
    }

    func unpickle(_ pickle: String, key: PickleKey) throws -> [UInt8] {
        let opened = LibOlmMemory.withCopy(of: key.bytes) { keyBytes, keyLength in
            LibOlmMemory.withCopy(of: pickle.utf8) { pickleBytes, pickleLength in
                LibOlmMemory.output(capacity: olm_pk_key_length()) {
                    olm_unpickle_pk_decryption(pointer, keyBytes, keyLength, pickleBytes, pickleLength, $0, $1)
                }
            }
        }
        guard opened.result != LibOlmMemory.failure else { throw error("unpickle signing key") }
        let seed = LibOlmMemory.output(capacity: olm_pk_private_key_length(), whole: true) { olm_pk_get_private_key(pointer, $0, $1) }
        guard seed.result != LibOlmMemory.failure else { throw error("read sealed signing key") }
        return seed.bytes
    }
}
