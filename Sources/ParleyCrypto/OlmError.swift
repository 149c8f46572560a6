/// A failed crypto operation: which one, why (olm's error, or Parley's own check), in words.
///
/// Every libolm call that can fail is checked, so a wrong pickle key, a tampered message or a
/// message older than a session's first known index is this error, never a crash and never
/// garbage plaintext.
public struct OlmError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong. The first cases are libolm's `OlmErrorCode`s; the last are checks made
    /// in Swift on what olm returned.
    public enum Code: Sendable, Equatable {
        case notEnoughRandom, outputBufferTooSmall, badMessageVersion, badMessageFormat
        case badMessageMAC, badMessageKeyID, invalidBase64
        /// olm's `BAD_ACCOUNT_KEY`: the pickle key is not the one the pickle was made with
        /// (olm uses the same code for every kind of pickle, not only accounts).
        case wrongPickleKey
        case unknownPickleVersion, corruptedPickle, badSessionKey, unknownMessageIndex
        case badLegacyAccountPickle, badSignature, inputBufferTooSmall, pickleExtraData
        /// An olm error code this module does not know (a newer libolm).
        case unknown(UInt32)
        /// A decrypted plaintext that is not UTF-8 where text was asked for.
        case invalidUTF8
        /// olm's output (a JSON key list) was not in the documented shape.
        case unexpectedOutput
        /// A session made by another backend handed to this one.
        case foreignObject
        /// An argument out of range (a negative count).
        case invalidArgument

        init(olmCode: UInt32) {
            switch olmCode {
            case 1: self = .notEnoughRandom
            case 2: self = .outputBufferTooSmall
            case 3: self = .badMessageVersion
            case 4: self = .badMessageFormat
            case 5: self = .badMessageMAC
            case 6: self = .badMessageKeyID
            case 7: self = .invalidBase64
            case 8: self = .wrongPickleKey
            case 9: self = .unknownPickleVersion
            case 10: self = .corruptedPickle
            case 11: self = .badSessionKey
            case 12: self = .unknownMessageIndex
            case 13: self = .badLegacyAccountPickle
            case 14: self = .badSignature
            case 15: self = .inputBufferTooSmall
            case 17: self = .pickleExtraData
            default: self = .unknown(olmCode)
            }
        }

        /// The sentence an operator reads in the log.
        public var explanation: String {
            switch self {
            case .notEnoughRandom: "not enough random bytes were supplied"
            case .outputBufferTooSmall: "the output buffer was too small"
            case .badMessageVersion: "the message's version is not supported"
            case .badMessageFormat: "the message could not be decoded"
            case .badMessageMAC: "the message failed its authentication check (tampered, or not for this session)"
            case .badMessageKeyID: "the message names a one-time key this account does not have (already used or never made)"
            case .invalidBase64: "the input is not valid base64"
            case .wrongPickleKey: "the pickle key is wrong (not the key this was stored with), or the stored data was altered"
            case .unknownPickleVersion: "the stored data was written by a newer version"
            case .corruptedPickle: "the stored data is corrupted"
            case .badSessionKey: "the session key is invalid"
            case .unknownMessageIndex: "the message is older than the first index this session knows"
            case .badLegacyAccountPickle: "the stored account uses an old, unsafe format and cannot be loaded"
            case .badSignature: "the signature does not match"
            case .inputBufferTooSmall: "the input is too short"
            case .pickleExtraData: "the stored data has trailing junk"
            case .unknown(let code): "olm error \(code)"
            case .invalidUTF8: "the plaintext is not UTF-8 text"
            case .unexpectedOutput: "the crypto library's output was not in the expected shape"
            case .foreignObject: "the object was made by a different crypto backend"
            case .invalidArgument: "an argument is out of range"
            }
        }
    }

    /// What was being done, e.g. `unpickle account`.
    public let operation: String
    public let code: Code
    /// The library's own error string (`BAD_ACCOUNT_KEY`), or empty for Parley's own checks.
    public let libraryMessage: String

    public init(operation: String, code: Code, libraryMessage: String = "") {
        self.operation = operation
        self.code = code
        self.libraryMessage = libraryMessage
    }

    public var description: String {
        libraryMessage.isEmpty
            ? "\(operation): \(code.explanation)"
            : "\(operation): \(code.explanation) (\(libraryMessage))"
    }
}
