import YAMLCoding
import ParleyBots

/// `parley-bench yaml-profile raw|tree|decode|validate [N]`: one pass of one stage over N generated bot
/// files (default 100), no timing, for `valgrind --tool=callgrind` instruction counts.
func benchYAMLProfile(_ arguments: [String]) throws {
    let stage = arguments.first ?? "decode"
    let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 100
    let texts = (0..<count).map(BenchBotCorpus.botFile)
    var total = 0
    switch stage {
    case "raw":
        for text in texts { total += (try? YAMLEventCounter.count(text)) ?? 0 }
    case "tree":
        for text in texts { total += (try? parseYAML(text, file: "bench.yaml")) == nil ? 1 : 0 }
    case "decode":
        let decoder = YAMLDecoder(environment: [:])
        for text in texts { total += (try? decoder.decode(BotDefinition.self, from: text, file: "bench.yaml")) == nil ? 1 : 0 }
    case "validate":
        total = BenchBotCorpus.decodeAndValidate(texts)
    default:
        throw BenchFailure("unknown stage '\(stage)' (raw, tree, decode or validate)")
    }
    print("yaml-profile \(stage) over \(count) files: \(total)")
}
