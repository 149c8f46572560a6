import Foundation

// One benchmark executable, one subcommand per area, one line per figure.
switch CommandLine.arguments.dropFirst().first {
case "core": try await benchCore()
case "broadcast": try await benchBroadcast()
case "flowtest": try await benchFlowTest()
default: print("usage: parley-bench core | broadcast [recipients] | flowtest")
}
