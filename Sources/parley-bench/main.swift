import Foundation

// One benchmark executable, one subcommand per area, one line per figure.
if CommandLine.arguments.dropFirst().first == "core" { try await benchCore() } else { print("parley-bench: no areas yet") }
