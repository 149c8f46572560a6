#if !PARLEY_LIBFUZZER
import Foundation

/// `parley-fuzz [yaml|matrix|payload]… [--seconds N] [--iterations N] [--seed N] [--corpus DIR]`:
/// the seeded mutation loop over each named target (all three when none is named), `--seconds`
/// and `--iterations` bounding each. Exit 0 when nothing crashed (a crash ends the process and
/// leaves the input in `.build/fuzz-current-<target>`), 64 on a usage error.
@main
enum FuzzMain {
    static func main() {
        exit(run(Array(CommandLine.arguments.dropFirst())))
    }

    static func run(_ arguments: [String]) -> Int32 {
        var targets: [FuzzTarget] = []
        var seconds = 20.0
        var iterations = Int.max
        var seed: UInt64 = 1
        var corpus = "Tests/FuzzCorpus"
        var rest = arguments[...]
        func usage(_ message: String) -> Int32 {
            FileHandle.standardError.write(Data("""
            parley-fuzz: \(message)
            usage: parley-fuzz [yaml|matrix|payload]… [--seconds N] [--iterations N] [--seed N] [--corpus DIR]

            """.utf8))
            return 64
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--seconds", "--iterations", "--seed", "--corpus":
                guard let value = rest.popFirst() else { return usage("\(argument) needs a value") }
                switch argument {
                case "--seconds":
                    guard let number = Double(value), number >= 0 else { return usage("--seconds: not a number: \(value)") }
                    seconds = number
                case "--iterations":
                    guard let number = Int(value), number >= 0 else { return usage("--iterations: not a count: \(value)") }
                    iterations = number
                case "--seed":
                    guard let number = UInt64(value) else { return usage("--seed: not a number: \(value)") }
                    seed = number
                default:
                    corpus = value
                }
            case "-h", "--help":
                _ = usage("fuzzes Parley's decoders with a seeded mutation loop")
                return 0
            default:
                guard let target = FuzzTarget.named(argument) else { return usage("unknown target '\(argument)'") }
                targets.append(target)
            }
        }
        for target in targets.isEmpty ? FuzzTarget.all : targets {
            let loop = FuzzLoop(target: target, corpusRoot: corpus, seconds: seconds, iterations: iterations, seed: seed)
            guard let summary = loop.run() else { return 1 }
            print("fuzz \(target.name): \(summary.inputs) inputs in \(String(format: "%.1f", summary.seconds)) s, 0 crashes")
        }
        return 0
    }
}
#endif
