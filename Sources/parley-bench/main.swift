import Foundation

// One benchmark executable, one subcommand per area, one line per figure.
// (The integrator owns this file; each task's line is kept until it wires them all.)
switch CommandLine.arguments.dropFirst().first {
case "broadcast": try await benchBroadcast()
case "core": try await benchCore()
case "flowtest": try await benchFlowTest()
default: print("usage: parley-bench broadcast|core|flowtest")
}
