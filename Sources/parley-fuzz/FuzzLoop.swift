import Foundation
import Synchronization

/// The seeded mutation loop (what CI runs): regressions first, then mutations of the corpus.
struct FuzzLoop {
    var target: FuzzTarget
    var corpusRoot: String
    var seconds: Double
    var iterations: Int
    var seed: UInt64

    /// Where the input being run is written before it runs, so a crash leaves it behind.
    var currentPath: String { ".build/fuzz-current-\(target.name)" }

    struct Summary {
        var inputs = 0
        var seconds = 0.0
    }

    /// Runs the loop; returns nil after printing a message when the corpus cannot be read.
    func run() -> Summary? {
        let directory = "\(corpusRoot)/\(target.name)"
        let seeds = Self.files(in: directory)
        guard !seeds.isEmpty else {
            FileHandle.standardError.write(Data("parley-fuzz: no seed corpus in \(directory)\n".utf8))
            return nil
        }
        let regressions = Self.files(in: "\(directory)/regressions")
        guard let current = CurrentInput(path: currentPath) else {
            FileHandle.standardError.write(Data("parley-fuzz: cannot write \(currentPath)\n".utf8))
            return nil
        }
        let watchdog = Watchdog(path: currentPath, limit: 10)
        var summary = Summary()
        let start = Date()
        for input in regressions + seeds {
            current.save(input)
            watchdog.started()
            _ = target.run(Data(input))
            summary.inputs += 1
        }
        var pool = seeds
        var mutator = Mutator(seed: seed)
        while summary.inputs < iterations, Date().timeIntervalSince(start) < seconds {
            let input = mutator.mutate(pool[mutator.below(pool.count)], other: pool[mutator.below(pool.count)])
            current.save(input)
            watchdog.started()
            // Accepted inputs are kept (up to a bound), so mutations build on valid structure.
            if target.run(Data(input)), input.count < 1 << 13 {
                if pool.count < 512 { pool.append(input) } else { pool[seeds.count + mutator.below(512 - seeds.count)] = input }
            }
            summary.inputs += 1
        }
        watchdog.stop()
        current.remove()
        summary.seconds = Date().timeIntervalSince(start)
        return summary
    }

    /// The regular files of `directory`, sorted by name, as bytes.
    static func files(in directory: String) -> [[UInt8]] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.sorted().compactMap { name in
            var isDirectory: ObjCBool = false
            let path = "\(directory)/\(name)"
            guard !name.hasPrefix("."), FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
                  !isDirectory.boolValue else { return nil }
            return FileManager.default.contents(atPath: path).map { Array($0) }
        }
    }
}

/// The file holding the input being run, rewritten in place (one open for the whole run).
final class CurrentInput {
    private let descriptor: Int32
    private let path: String

    init?(path: String) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if descriptor < 0 { return nil }
    }

    deinit { close(descriptor) }

    func save(_ bytes: [UInt8]) {
        _ = ftruncate(descriptor, 0)
        _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    func remove() { unlink(path) }
}

/// Ends the process when one input runs longer than `limit` seconds: a hang is a finding, and
/// the input stays in `path`.
final class Watchdog: Sendable {
    private let lastStart = Atomic<Int64>(0)
    private let stopped = Atomic<Bool>(false)

    init(path: String, limit: Int64) {
        lastStart.store(Self.now(), ordering: .relaxed)
        let thread = Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                Thread.sleep(forTimeInterval: 0.5)
                if Self.now() - lastStart.load(ordering: .relaxed) > limit * 1_000_000_000, !stopped.load(ordering: .relaxed) {
                    FileHandle.standardError.write(Data("parley-fuzz: an input ran longer than \(limit) s (a hang); it is in \(path)\n".utf8))
                    exit(3)
                }
            }
        }
        thread.start()
    }

    func started() { lastStart.store(Self.now(), ordering: .relaxed) }

    func stop() { stopped.store(true, ordering: .relaxed) }

    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
