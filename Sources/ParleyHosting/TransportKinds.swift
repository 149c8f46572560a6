import ParleyBots
import YAMLCoding

/// One transport kind: its name and how its provider loads.
public struct TransportKind: Sendable {
    /// The `transport.kind` value.
    public let name: String
    /// `TransportProvider.load` of the kind's provider.
    public let load: @Sendable (TransportConfig, [LoadedBot], SourceFile, [String: String]) -> Result<any TransportProvider, YAMLErrors>

    /// The kind `Provider` serves.
    public init<Provider: TransportProvider>(_ provider: Provider.Type) {
        name = Provider.kind
        load = { Provider.load($0, bots: $1, source: $2, environment: $3) }
    }
}

/// The transport kinds a host can run on: `transport.kind` picks one.
public enum TransportKinds {
    /// Every kind; a new transport is one more line here.
    public static let all: [TransportKind] = [
        TransportKind(LocalTransportProvider.self),
        TransportKind(MatrixTransportProvider.self),
    ]

    /// The provider of `config`'s `transport:` section (the embedded hub without one), loaded
    /// and checked against `bots`; an unknown kind is an error at its line.
    public static func load(_ config: HostConfig, bots: [LoadedBot], source: SourceFile,
                            environment: [String: String]) -> Result<any TransportProvider, YAMLErrors> {
        let name = config.transportKind
        guard let kind = all.first(where: { $0.name == name }) else {
            let mark = config.transport?.kind?.mark ?? config.transport?.mark ?? Mark(line: 1, column: 1)
            let names = all.map(\.name)
            let listed = names.dropLast().joined(separator: ", ") + (names.count > 1 ? " or " : "") + (names.last ?? "")
            return .failure(YAMLErrors([source.error(at: mark, "unknown transport kind '\(name)': expected \(listed)")]))
        }
        // No section at all is the kind's defaults: an empty mapping.
        return kind.load(config.transport ?? TransportConfig.empty, bots, source, environment)
    }
}
