#if PARLEY_LIBFUZZER
import Foundation

// libFuzzer mode: built with `-sanitize=fuzzer -DPARLEY_LIBFUZZER`. The target is named by
// `PARLEY_FUZZ_TARGET` (yaml, matrix or payload; yaml when unset); the arguments are libFuzzer's.

private let target: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["PARLEY_FUZZ_TARGET"] ?? "yaml"
    guard let target = FuzzTarget.named(name) else { fatalError("PARLEY_FUZZ_TARGET: unknown target '\(name)'") }
    return target
}()

/// libFuzzer's callback: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    _ = target.run(data)
    return 0
}

/// libFuzzer's driver, for a program that has its own `main`.
@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// SwiftPM links an executable's `main` to `<module>_main` (so tests can link the module), so
/// libFuzzer's own `main` is never used: this one hands the arguments to its driver.
@_cdecl("parley_fuzz_main")
public func parleyFuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    var argc = argc
    var argv = argv
    return runDriver(&argc, &argv) { bytes, count in fuzzOneInput(bytes, count) }
}
#endif
