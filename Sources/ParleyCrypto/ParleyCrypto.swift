/// ParleyCrypto: the cryptographic layer for Matrix end-to-end encryption (issue #20) — Olm
/// sessions between two devices (for to-device messages such as `m.room_key`) and Megolm
/// sessions for room messages, with the account that holds a device's identity and one-time
/// keys, and pickling so all of it can be stored encrypted and survive a restart.
///
/// No cryptography is written here. Every primitive comes from libolm (Debian `libolm-dev`
/// 3.2.x, wrapped by the `COlm` system-library target). libolm is **deprecated upstream** in
/// favour of vodozemac (Rust, not available to this build) and has published timing
/// side-channel advisories (CVE-2024-45191, CVE-2024-45192, CVE-2024-45193: parts of its code
/// are not constant-time, and upstream will not fix them). That is why every libolm call
/// goes through one small internal boundary, the protocols in `CryptoBackend.swift` (``OlmAccount``,
/// ``OlmSession``, ``MegolmOutboundSession``, ``MegolmInboundSession`` and ``OlmUtility`` never
/// call libolm themselves): replacing the backend is writing one new conformance, not
/// touching the callers. Parley's stored format stays its own (pickles are opaque strings
/// the store keeps beside its own columns).
///
/// Safety rules kept by the `LibOlm` backend:
/// - every call's result is compared with `olm_error()` and a failure becomes an
///   ``OlmError`` naming the operation and olm's own error, never a crash and never garbage;
/// - olm objects live in buffers of `olm_*_size()` bytes this module owns, cleared with
///   `olm_clear_*` and wiped before they are freed;
/// - random bytes (from `SystemRandomNumberGenerator`), copies of inputs handed to olm
///   (plaintexts, keys, pickles) and output buffers are wiped after each call.
///
/// The public types are `Sendable`: each owns one lock every use of its olm object goes
/// through (libolm objects are not thread-safe).
public enum ParleyCrypto {
    /// The backend every public type of this module uses.
    static let backend: any CryptoBackend = LibOlmBackend()

    /// The crypto library underneath, e.g. `libolm 3.2.13`, for logs and `parley version`.
    public static var libraryVersion: String { backend.libraryVersion }
}
