import Foundation
import ParleyBots
import ParleyHosting

/// `parley audiences`: each bot's audiences with their members, opt-outs and growth over the
/// last 7 days; `parley audiences export NAME` prints an audience's members, one target a line.
enum AudiencesCommand: Subcommand {
    static let name = "audiences"
    static let abstract = "List audiences (members, opt-outs, growth); 'export NAME' prints one's members."
    static let positionalUsage = "[export <name>]"
    static let options: [OptionSpec] = [
        .config,
        OptionSpec(long: "bot", short: "b", valueName: "id", help: "Only this bot's audiences."),
    ]
    /// The window of the growth figures.
    static let growthWindow: TimeInterval = 7 * 86_400

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws(UsageError) -> Int32 {
        let positionals = arguments.positionals
        var export: String?
        switch positionals.count {
        case 0: break
        case 2 where positionals[0] == "export": export = positionals[1]
        default:
            if positionals.first == "export" { throw UsageError("'export' needs the audience's name: parley audiences export NAME") }
            throw UsageError("unexpected argument '\(positionals[0])'")
        }
        return await BroadcastsCommand.withDesk(arguments, context: context) { [export] desk throws(BroadcastError) in
            let store = desk.service.store
            let summaries = try store.audienceSummaries(bot: arguments.values["bot"],
                                                        since: desk.service.clock.now().addingTimeInterval(-growthWindow))
            if let export { return try exportMembers(of: export, among: summaries, store: store, output: context.output) }
            if summaries.isEmpty { context.output.line("no audiences") }
            for summary in summaries { context.output.line(describe(summary)) }
            return 0
        }
    }

    /// `announcer  news  120 members, 4 opted out  last 7 days: +12 joined, -3 left`
    static func describe(_ summary: AudienceSummary) -> String {
        "\(summary.bot)  \(summary.audience)  \(summary.members) member\(summary.members == 1 ? "" : "s"), \(summary.optedOut) opted out  "
            + "last 7 days: +\(summary.joined) joined, -\(summary.left) left"
    }

    /// The members of audience `name` (of the one bot that has it), one target a line.
    private static func exportMembers(of name: String, among summaries: [AudienceSummary], store: BroadcastStore,
                                      output: any OutputSink) throws(BroadcastError) -> Int32 {
        let bots = summaries.filter { $0.audience == name }.map(\.bot)
        guard let bot = bots.first else { throw BroadcastError(.invalidState, "no audience '\(name)' has members or opt-outs") }
        guard bots.count == 1 else {
            throw BroadcastError(.invalidState, "audience '\(name)' is kept by bots \(bots.joined(separator: ", ")): give --bot")
        }
        for member in try store.members(bot: bot, audience: name) { output.line(member.target) }
        return 0
    }
}
