import Testing
import ParleyCLI

@Suite struct UsageTests {
    static let checkUsage = "usage: parley check [--config <file>]"

    @Test(arguments: [
        (["check", "--bogus"], "error: unknown option '--bogus'"),
        (["check", "-x"], "error: unknown option '-x'"),
        (["check", "extra"], "error: unexpected argument 'extra'"),
        (["check", "--config"], "error: option '--config' needs a value"),
        (["check", "--help=yes"], "error: option '--help' takes no value"),
        (["check", "--config="], "error: option '--config' needs a file name"),
    ])
    func usageErrorsExit64WithTheUsageLine(arguments: [String], message: String) async {
        let run = await Run(arguments)
        #expect(run.status == 64)
        #expect(run.stdout == "")
        #expect(run.stderr == message + "\n" + UsageTests.checkUsage + "\n")
    }

    @Test func unknownSubcommand() async {
        let run = await Run(["frobnicate"])
        #expect(run.status == 64)
        #expect(run.stderr == "error: unknown subcommand 'frobnicate'\nusage: parley <subcommand> [options]\n")
    }

    @Test func noArgumentsPrintsHelpToStderr() async {
        let run = await Run([])
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("parley — a bot host for instant messaging.\n\nusage: parley <subcommand> [options]\n"))
    }

    @Test func topLevelHelp() async {
        let run = await Run(["--help"])
        #expect(run.status == 0)
        #expect(run.stdout == """
            parley — a bot host for instant messaging.

            usage: parley <subcommand> [options]

            subcommands:
              check     Check config.yaml, every bot and every flow-test file; print every error.
              run       Run the bots of a config until interrupted.
              chat      Chat with your bots in the terminal (embedded hub, nothing is stored).
              test      Run the conversation-flow tests (*.test.yaml) of the bots folder or the paths given.
              broadcast Send a text to many targets now (stored, rate-limited, resumable with --id).
              broadcasts List broadcast jobs and their progress (--resume finishes unfinished ones).
              audiences List audiences (members, opt-outs, growth); 'export NAME' prints one's members.
              cluster   Show the processes sharing storage.url, the bots each runs (lease ages) and their broadcasts.

            See 'parley <subcommand> --help' for a subcommand's options.

            """)
    }

    @Test(arguments: [["check", "--help"], ["check", "-h"], ["check", "--config", "x.yaml", "-h"]])
    func subcommandHelp(arguments: [String]) async {
        let run = await Run(arguments)
        #expect(run.status == 0)
        #expect(run.stdout == """
            Check config.yaml, every bot and every flow-test file; print every error.

            usage: parley check [--config <file>]

            options:
              -c, --config <file>     The host config (default: config.yaml).
              -h, --help              Show this help.

            """)
    }

    @Test func doubleDashEndsOptions() async {
        let run = await Run(["check", "--", "--config"])
        #expect(run.status == 64)
        #expect(run.stderr == "error: unexpected argument '--config'\n" + UsageTests.checkUsage + "\n")
    }
}
