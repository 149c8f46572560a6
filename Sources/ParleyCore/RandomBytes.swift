/// `count` bytes from the system's random source (`SystemRandomNumberGenerator`: the kernel's
/// CSPRNG), for secrets and names that must not be guessed.
public func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
}
