#if PARLEY_LIBFUZZER
import Foundation

/// libFuzzer's entry (built with `-sanitize=fuzzer -DPARLEY_LIBFUZZER`, which supplies `main`):
/// the target is named by `PARLEY_FUZZ_TARGET` (yaml, matrix or payload; yaml when unset).
private let target: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["PARLEY_FUZZ_TARGET"] ?? "yaml"
    guard let target = FuzzTarget.named(name) else { fatalError("PARLEY_FUZZ_TARGET: unknown target '\(name)'") }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    _ = target.run(data)
    return 0
}
#endif
