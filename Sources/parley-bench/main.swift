import Foundation

// One benchmark executable, one subcommand per area, one line per figure.
// (The integrator owns this file; the broadcast line below is what the broadcast task needs.)
switch CommandLine.arguments.dropFirst().first {
case "broadcast": try await benchBroadcast()
default: print("usage: parley-bench broadcast [recipients]")
}
