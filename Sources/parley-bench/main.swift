import Foundation

// One benchmark executable, one subcommand per area, one line per figure.
do {
    if CommandLine.arguments.dropFirst().first == "flowtest" {
        try await benchFlowTest()
    } else {
        print("parley-bench: no areas yet")
    }
} catch {
    FileHandle.standardError.write(Data("parley-bench: \(error)\n".utf8))
    exit(1)
}
