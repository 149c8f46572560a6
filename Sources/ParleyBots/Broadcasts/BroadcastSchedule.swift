import Foundation
import ParleyCore
import YAMLCoding

/// A bot file's schedule with a `broadcast:`, compiled for the host: when it fires, who
/// gets it and what (templates compiled; `recipient.*` filled per recipient at send time).
struct BroadcastSchedule: Sendable {
    var entry: SchedulerEntry
    /// `to` targets as written.
    var targets: [String]
    /// `to_file` relative to the bot file's folder, as users see it.
    var toFile: String?
    /// The audience whose members get it (instead of `to` / `to_file`).
    var audience: String?
    var send: CompiledSend
    var rate: Rate?

    /// The broadcast schedules of `definition` (schedules with `do:` instead are the
    /// engine's). Bad values throw an `BotError` at the schedule.
    static func compile(_ definition: BotDefinition, bot: String, file: String,
                        compiler: inout ActionCompiler) throws(BotError) -> [BroadcastSchedule] {
        var compiled: [BroadcastSchedule] = []
        for schedule in definition.schedules {
            guard let broadcast = schedule.broadcast?.value else { continue }
            let entry: SchedulerEntry
            do { entry = try SchedulerEntry(bot: bot, schedule: schedule) } catch { throw compiler.error(schedule.mark, error.message) }
            var rate: Rate?
            if let text = broadcast.rate {
                do { rate = try Rate(parsing: text.value) } catch { throw compiler.error(text.mark, error.message) }
            }
            compiled.append(BroadcastSchedule(
                entry: entry, targets: broadcast.to?.map(\.value) ?? [],
                toFile: broadcast.toFile.map { TextFile.join(TextFile.folder(of: file), $0.value) }, audience: broadcast.audience?.value,
                send: try compiler.send(broadcast.send), rate: rate))
        }
        return compiled
    }
}
