internal import COlm

/// Wiping secrets held in Swift arrays (decrypted plaintexts, olm's outputs) once they are
/// turned into the values handed back. Uses the shim's volatile loop (part of `COlm`'s
/// header, not of libolm), so the stores are not dropped as dead.
///
/// Strings handed to callers cannot be wiped; that is the limit of "where practical".
enum Secrets {
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { parley_olm_wipe($0.baseAddress, $0.count) }
    }
}
