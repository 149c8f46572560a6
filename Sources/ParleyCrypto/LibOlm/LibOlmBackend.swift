internal import COlm

/// ``CryptoBackend`` over libolm: the factory for its objects, and its utility functions.
struct LibOlmBackend: CryptoBackend {
    var libraryVersion: String {
        var major: UInt8 = 0, minor: UInt8 = 0, patch: UInt8 = 0
        olm_get_library_version(&major, &minor, &patch)
        return "libolm \(major).\(minor).\(patch)"
    }

    func createAccount() throws -> any AccountBackend {
        let account = LibOlmAccount()
        try account.create()
        return account
    }

    func unpickleAccount(_ pickle: String, key: PickleKey) throws -> any AccountBackend {
        let account = LibOlmAccount()
        try account.unpickle(pickle, key: key)
        return account
    }

    func unpickleSession(_ pickle: String, key: PickleKey) throws -> any SessionBackend {
        let session = LibOlmSession()
        try session.unpickle(pickle, key: key)
        return session
    }

    func createOutboundGroupSession() throws -> any OutboundGroupBackend {
        let session = LibOlmOutboundGroupSession()
        try session.create()
        return session
    }

    func unpickleOutboundGroupSession(_ pickle: String, key: PickleKey) throws -> any OutboundGroupBackend {
        let session = LibOlmOutboundGroupSession()
        try session.unpickle(pickle, key: key)
        return session
    }

    func inboundGroupSession(sessionKey: String) throws -> any InboundGroupBackend {
        let session = LibOlmInboundGroupSession()
        try session.create(sessionKey: sessionKey)
        return session
    }

    func importInboundGroupSession(exportedKey: String) throws -> any InboundGroupBackend {
        let session = LibOlmInboundGroupSession()
        try session.importSession(exportedKey: exportedKey)
        return session
    }

    func unpickleInboundGroupSession(_ pickle: String, key: PickleKey) throws -> any InboundGroupBackend {
        let session = LibOlmInboundGroupSession()
        try session.unpickle(pickle, key: key)
        return session
    }

    func createSigningKey() throws -> any SigningKeyBackend {
        try LibOlmSigningKey()
    }

    func unpickleSigningKey(_ pickle: String, key: PickleKey) throws -> any SigningKeyBackend {
        try LibOlmSigningKey.unpickle(pickle, key: key)
    }

    func sha256(_ input: [UInt8]) throws -> String {
        try LibOlmUtility().sha256(input)
    }

    func verifyEd25519(key: String, message: [UInt8], signature: String) throws -> Bool {
        try LibOlmUtility().verifyEd25519(key: key, message: message, signature: signature)
    }
}
