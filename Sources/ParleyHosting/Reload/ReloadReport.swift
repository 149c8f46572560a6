import Foundation
import ParleyCore

/// What a reload did: the `POST /api/v1/reload` answer and the log lines of SIGHUP.
public struct ReloadReport: Sendable {
    /// How it ended; the label of `parley_config_reloads_total`.
    public enum Result: String, Sendable {
        /// Loaded and checked; the changes (if any) are applied.
        case ok
        /// Something is wrong in the files: nothing changed.
        case invalid
        /// The files are right but a new bot could not connect (the rest is applied).
        case failed
    }

    public var result: Result
    /// The problems, one line each (`file:line:col: error: …`), when `invalid` or `failed`.
    public var errors: [String] = []
    /// Bot ids: new, swapped in, gone.
    public var added: [String] = []
    public var changed: [String] = []
    public var removed: [String] = []
    /// Changes that are not applied until the next restart (a config section, a bot's name).
    public var restartNeeded: [String] = []
    /// How long the reload took.
    public var duration: Duration = .zero

    /// The API's JSON body.
    public var json: JSONValue {
        var fields: [String: JSONValue] = [
            "result": .string(result.rawValue),
            "added": .array(added.map(JSONValue.string)), "changed": .array(changed.map(JSONValue.string)),
            "removed": .array(removed.map(JSONValue.string)),
            "restart_needed": .array(restartNeeded.map(JSONValue.string)),
            "seconds": .double(duration.timeInterval),
        ]
        if !errors.isEmpty { fields["errors"] = .array(errors.map(JSONValue.string)) }
        return .object(fields)
    }
}
