/// The `parley` command line: subcommands `run`, `chat`, `check`, `test`.
/// `main` returns an exit code instead of calling `exit`, so tests can drive it.
public enum ParleyCommand {
    public static func main(_ arguments: [String]) async -> Int32 {
        print("usage: parley <check|run|chat|test> [options]")
        return arguments.isEmpty ? 0 : 64
    }
}
