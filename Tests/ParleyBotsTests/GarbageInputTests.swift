import Foundation
import Testing
import YAMLCoding
import ParleyBots

/// Mangled bot files must produce positioned errors, never a crash or a hang.
@Suite struct GarbageInputTests {
    /// A small deterministic generator, so a failure reproduces.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
    }

    @Test func mutatedExampleBotsNeverCrash() throws {
        let text = try String(contentsOf: BotSchemaTests.root.appendingPathComponent("bots/support.yaml"), encoding: .utf8)
        let scalars = Array(text.unicodeScalars)
        let alphabet = Array("{}[]:-'\"#&*!|>%@`\\ \n\t\u{0}é😀{{}}".unicodeScalars)
        var generator = SeededGenerator(state: 2026)
        var rejected = 0
        for _ in 0..<300 {
            var mutated = scalars
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                let index = Int.random(in: 0..<mutated.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: mutated.remove(at: index)
                case 1: mutated.insert(alphabet.randomElement(using: &generator) ?? " ", at: index)
                default: mutated[index] = alphabet.randomElement(using: &generator) ?? " "
                }
            }
            let yaml = String(String.UnicodeScalarView(mutated))
            do {
                let bot = try YAMLDecoder(environment: [:]).decode(BotDefinition.self, from: yaml, file: "bots/support.yaml")
                let errors = BotValidator.validate(bot, source: SourceFile(name: "bots/support.yaml", text: yaml))
                if !errors.isEmpty { rejected += 1 }
                #expect(errors.allSatisfy { $0.mark.line >= 1 && $0.mark.column >= 1 })
            } catch {
                rejected += 1
                #expect(error.errors.allSatisfy { $0.mark.line >= 1 && $0.mark.column >= 1 && !$0.message.isEmpty })
            }
        }
        // Most mutations break something; if none were rejected the checks would be asleep.
        #expect(rejected > 100)
    }
}
