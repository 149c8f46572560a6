import ParleyBots
import ParleyFlowTest
import YAMLCoding

/// A config with everything it names, loaded and checked once: what every command that runs
/// bots (or checks them) starts from.
public struct LoadedHost: Sendable {
    /// The config file, its bots, test files and profiles.
    public var catalog: HostCatalog
    /// The transport of the config's `transport.kind`; nil when its section has errors.
    public var transport: (any TransportProvider)?
    /// Flow tests found in the bots folder and how many tests they hold.
    public var testCount: Int
    /// Every problem, sorted by file and position: run nothing unless it is empty.
    public var errors: [YAMLError]

    /// The config (absent only when the file did not decode, which `errors` reports).
    public var config: HostConfig? { catalog.config }
}

/// Loads a host: the config, the bots folder, the profiles directory, the transport section
/// (by its kind's provider, against the bots) and, for `parley check`, the flow-test files.
public enum HostLoader {
    /// Loads `configFile` (as the user wrote it) and everything it names. `resolve` maps a
    /// path as written to the file system; `environment` feeds `${VAR}`.
    public static func load(configFile: String, resolve: (String) -> String, environment: [String: String],
                            checkTests: Bool = true) -> LoadedHost {
        let catalog = HostCatalog.load(configFile: configFile, resolve: resolve, environment: environment)
        var errors = catalog.errors
        var transport: (any TransportProvider)?
        if let config = catalog.config, let source = catalog.configSource {
            switch TransportKinds.load(config, bots: catalog.bots, source: source, environment: environment) {
            case .success(let provider): transport = provider
            case .failure(let problems): errors += problems.errors
            }
            errors += sharedStorageProblems(config, source: source)
            if let http = config.http {
                let facts = catalog.bots.map { bot in
                    WebDoorValidator.BotFacts(id: bot.id, queues: (try? CompiledBot(id: bot.id, definition: bot.definition, file: bot.file)).map { Set($0.queues) })
                }
                errors += WebDoorValidator.validate(http, source: source, bots: facts,
                                                    transportKind: config.transport?.kind?.value ?? TransportConfig.defaultKind)
            }
        }
        var testCount = 0
        if checkTests {
            for file in catalog.testFiles {
                let loaded = LoadedTestFile.load(file: file.file, path: file.path, bots: catalog.bots, environment: environment)
                errors += loaded.errors
                testCount += loaded.test?.definition.tests.count ?? 0
            }
        }
        return LoadedHost(catalog: catalog, transport: transport, testCount: testCount,
                          errors: errors.sortedByPosition())
    }

    /// `storage.url` on the embedded hub: the hub lives inside one process, so a database that
    /// several processes share has nothing to share there.
    static func sharedStorageProblems(_ config: HostConfig, source: SourceFile) -> [YAMLError] {
        let kind = config.transport?.kind?.value ?? TransportConfig.defaultKind
        guard let url = config.storage?.url, kind == TransportConfig.defaultKind else { return [] }
        return [source.error(at: url.mark, "storage 'url' (PostgreSQL, shared by several processes) needs a transport that "
                             + "several processes can reach, like kind: matrix; the embedded hub (transport kind \(kind)) "
                             + "lives in one process: use storage 'path' with it")]
    }

    /// Only the config file and its transport, for commands that need no bot files
    /// (`parley broadcast`, `parley broadcasts`): a broken bot elsewhere does not stop them.
    public static func loadConfig(configFile: String, resolve: (String) -> String,
                                  environment: [String: String]) -> Result<(config: HostConfig, transport: any TransportProvider), YAMLErrors> {
        let text: String
        switch TextFile.read(resolve(configFile), displayPath: configFile) {
        case .failure(let error): return .failure(YAMLErrors([error]))
        case .success(let value): text = value
        }
        let source = SourceFile(name: configFile, text: text)
        let config: HostConfig
        do {
            config = try YAMLDecoder(environment: environment).decode(HostConfig.self, from: text, file: configFile)
        } catch {
            return .failure(error)
        }
        var errors = HostConfigValidator.validate(config, source: source)
        var transport: (any TransportProvider)?
        switch TransportKinds.load(config, bots: [], source: source, environment: environment) {
        case .success(let provider): transport = provider
        case .failure(let problems): errors += problems.errors
        }
        guard errors.isEmpty, let transport else { return .failure(YAMLErrors(errors.sortedByPosition())) }
        return .success((config, transport))
    }
}
