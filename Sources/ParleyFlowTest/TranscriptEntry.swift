import Foundation
import ParleyCore

/// One line of a test's transcript.
public enum TranscriptEntry: Sendable {
    /// The test user, or another user who speaks in the test (`sender`), sent a message.
    case userMessage(text: String, channel: Channel, time: Date, sender: String)
    /// The bot's output number `index` (into `OutputRecorder.outputs`).
    case output(index: Int)
    /// A send of the bot failed.
    case sendFailed(message: String, channel: Channel, time: Date)
    /// A line of the engine's log.
    case log(line: String, time: Date)
    /// An `advance` step moved the clock.
    case advanced(duration: String, from: Date, to: Date)
}
