internal import COlm

/// libolm's `OlmUtility`: SHA-256 and ed25519 verification. Made per call (it holds no
/// state but its last error), so nothing is shared between threads.
final class LibOlmUtility {
    private let memory: UnsafeMutableRawPointer
    private let pointer: OpaquePointer

    init() {
        memory = LibOlmMemory.allocateObject(size: olm_utility_size())
        pointer = olm_utility(memory)
    }

    deinit {
        _ = olm_clear_utility(pointer)
        LibOlmMemory.releaseObject(memory, size: olm_utility_size())
    }

    private func failure(_ operation: String) -> OlmError {
        LibOlmMemory.error(operation, code: olm_utility_last_error_code(pointer), message: olm_utility_last_error(pointer))
    }

    func sha256(_ input: [UInt8]) throws -> String {
        var out = LibOlmMemory.withCopy(of: input) { inputBytes, inputLength in
            LibOlmMemory.output(capacity: olm_sha256_length(pointer)) { olm_sha256(pointer, inputBytes, inputLength, $0, $1) }
        }
        guard out.result != LibOlmMemory.failure else { throw failure("sha256") }
        return LibOlmMemory.text(consuming: &out.bytes)
    }

    func verifyEd25519(key: String, message: [UInt8], signature: String) throws -> Bool {
        let result = LibOlmMemory.withCopy(of: key.utf8) { keyBytes, keyLength in
            LibOlmMemory.withCopy(of: message) { messageBytes, messageLength in
                LibOlmMemory.withCopy(of: signature.utf8) { signatureBytes, signatureLength in
                    olm_ed25519_verify(pointer, keyBytes, keyLength, messageBytes, messageLength, signatureBytes, signatureLength)
                }
            }
        }
        guard result == LibOlmMemory.failure else { return true }
        let error = failure("verify ed25519 signature")
        // olm reports a signature that does not match as BAD_MESSAGE_MAC; anything else
        // (bad base64, wrong key length) is malformed input, not a "no".
        if error.code == .badMessageMAC { return false }
        throw error
    }
}
