import Foundation

// One benchmark executable, one subcommand per area, one line per figure.
let area = CommandLine.arguments.dropFirst().first ?? ""
switch area {
case "yaml":
    try await benchYAML()
    try await benchYAMLDecode()
case "yaml-decode":
    try await benchYAMLDecode()
case "yaml-profile":
    try benchYAMLProfile(Array(CommandLine.arguments.dropFirst(2)))
default:
    print("parley-bench: areas: yaml, yaml-decode")
}
