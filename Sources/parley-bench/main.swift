import Foundation

// One benchmark executable, one subcommand per area, one line per figure.
// `swift run -c release parley-bench <area>`; no area runs them all in turn.
let areas: KeyValuePairs<String, () async throws -> Void> = [
    "yaml": benchYAML,
]

let requested = CommandLine.arguments.dropFirst().first
if let requested, requested == "--help" || requested == "-h" || !areas.contains(where: { $0.key == requested }) {
    print("usage: parley-bench [\(areas.map(\.key).joined(separator: "|"))]")
    exit(requested == "--help" || requested == "-h" ? 0 : 64)
}
for (name, run) in areas where requested == nil || requested == name {
    try await run()
}
