import YAMLCoding

/// The errors a `BotValidator` has found so far. A box, so that the checks need not be
/// `mutating`: a mutating check cannot read the bot in place while it changes the validator,
/// so every command, action and entry it looked at was copied (a retain per field).
final class FoundErrors {
    var errors: [YAMLError] = []
}
