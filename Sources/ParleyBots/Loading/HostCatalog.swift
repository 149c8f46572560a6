import Foundation
import ParleyCore
import Synchronization
import YAMLCoding

/// One bot file that decoded: its path as shown to users, its id and definition.
public struct LoadedBot: Sendable {
    /// Path as shown in messages (`bots/support.yaml`).
    public var file: String
    /// `id:` or the file name without `.yaml`.
    public var id: String
    /// The decoded definition.
    public var definition: BotDefinition
    /// The file's text, for positioned errors.
    public var source: SourceFile

    /// Wraps a decoded bot file.
    public init(file: String, id: String, definition: BotDefinition, source: SourceFile) {
        self.file = file
        self.id = id
        self.definition = definition
        self.source = source
    }
}

/// Everything a host loads from `config.yaml` and its bots folder, with every error found.
public struct HostCatalog: Sendable {
    /// Path of the config file as given.
    public var configFile: String
    /// The config, if it decoded (the file must exist; its sections have defaults).
    public var config: HostConfig?
    /// The config file's text, for positioned errors of sections checked later (`transport:`).
    public var configSource: SourceFile?
    /// Bots that decoded, in file-name order — including ones with validation errors: run a
    /// host only when `errors` is empty.
    public var bots: [LoadedBot] = []
    /// Flow-test files (`*.test.yaml`) in the bots folder: (shown path, file-system path).
    public var testFiles: [(file: String, path: String)] = []
    /// Profiles from `profiles.directory`, if configured and valid.
    public var profiles: OrderedMap<ProfileEntry>?
    /// Every problem found (use `sortedByPosition()` to print them).
    public var errors: [YAMLError] = []

    /// Loads and validates `configFile` (as the user wrote it) and everything it names.
    /// `resolve` maps a shown path to a file-system path; `environment` feeds `${VAR}`.
    public static func load(configFile: String, resolve: (String) -> String, environment: [String: String]) -> HostCatalog {
        var catalog = HostCatalog(configFile: configFile)
        let decoder = YAMLDecoder(environment: environment)
        var configSource: SourceFile?
        switch TextFile.read(resolve(configFile), displayPath: configFile) {
        case .failure(let error):
            catalog.errors.append(error)
        case .success(let text):
            configSource = SourceFile(name: configFile, text: text)
            do {
                catalog.config = try decoder.decode(HostConfig.self, from: text, file: configFile)
            } catch {
                catalog.errors += error.errors
            }
        }
        let base = TextFile.folder(of: configFile)
        let botsFolder = TextFile.join(base, catalog.config?.botsFolder ?? "bots")
        catalog.loadBots(folder: botsFolder, resolve: resolve, decoder: decoder)
        catalog.errors += HostValidator.crossCheck(catalog.bots)
        for bot in catalog.bots { catalog.errors += RecipientFile.check(bot, resolve: resolve) }
        if let config = catalog.config, let configSource {
            catalog.errors += HostConfigValidator.validate(config, source: configSource)
            if let directory = config.profiles?.directory {
                catalog.loadProfiles(TextFile.join(base, directory.value), resolve: resolve, decoder: decoder)
            }
        }
        catalog.configSource = configSource
        return catalog
    }

    private mutating func loadBots(folder: String, resolve: (String) -> String, decoder: YAMLDecoder) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: resolve(folder)).sorted()
        } catch {
            errors.append(YAMLError(file: folder, mark: Mark(line: 1, column: 1),
                                    message: "cannot list the bots folder: expected a folder of bot files (set 'bots:' in \(configFile))"))
            return
        }
        var botFiles: [(name: String, file: String, path: String)] = []
        for name in names where name.hasSuffix(".yml") && !name.hasPrefix(".") {
            // Silently skipping these would leave a bot that never runs and nobody knowing why.
            errors.append(YAMLError(file: TextFile.join(folder, name), mark: Mark(line: 1, column: 1),
                                    message: "bot and test files end in .yaml: rename it to '\(name.dropLast(4)).yaml'"))
        }
        for name in names where name.hasSuffix(".yaml") && !name.hasPrefix(".") {
            let file = TextFile.join(folder, name)
            if name.hasSuffix(".test.yaml") {
                testFiles.append((file, resolve(file)))
            } else {
                botFiles.append((name, file, resolve(file)))
            }
        }
        // Files are independent: decode and validate them on all cores, keep the file order.
        let results = Mutex([(bot: LoadedBot?, errors: [YAMLError])?](repeating: nil, count: botFiles.count))
        let environment = decoder.environment
        let work = botFiles
        DispatchQueue.concurrentPerform(iterations: work.count) { index in
            let entry = work[index]
            let result = HostCatalog.loadBot(name: entry.name, file: entry.file, path: entry.path, environment: environment)
            results.withLock { $0[index] = result }
        }
        for result in results.withLock({ $0 }) {
            guard let result else { continue }
            errors += result.errors
            if let bot = result.bot { bots.append(bot) }
        }
    }

    /// Reads, decodes and validates one bot file.
    private static func loadBot(name: String, file: String, path: String, environment: [String: String]) -> (bot: LoadedBot?, errors: [YAMLError]) {
        let text: String
        switch TextFile.read(path, displayPath: file) {
        case .failure(let error): return (nil, [error])
        case .success(let value): text = value
        }
        let source = SourceFile(name: file, text: text)
        let decoder = YAMLDecoder(environment: environment)
        do {
            let definition = try decoder.decode(BotDefinition.self, from: text, file: file)
            let id = definition.id?.value ?? String(name.dropLast(".yaml".count))
            var errors = BotValidator.validate(definition, source: source)
            // An `id:` is checked with the file; an id from the file name is checked here: it
            // heads the bot's lines on a terminal, where a control character must not go.
            if definition.id == nil, VisibleText.hasControl(id) {
                errors.insert(source.error(at: Mark(line: 1, column: 1),
                                           "invalid bot id '\(VisibleText.line(id))' (from the file name): expected no control characters; rename the file or set 'id:'"), at: 0)
            }
            return (LoadedBot(file: file, id: id, definition: definition, source: source), errors)
        } catch {
            // A mistyped key must not hide the file's other problems (a bad regex, an unknown
            // card): when only unknown or duplicate keys stopped decoding, validate the rest too.
            guard let definition = decoder.decodeIgnoringUnknownKeys(BotDefinition.self, from: text, file: file) else {
                return (nil, error.errors)
            }
            return (nil, (error.errors + BotValidator.validate(definition, source: source)).sortedByPosition())
        }
    }

    private mutating func loadProfiles(_ file: String, resolve: (String) -> String, decoder: YAMLDecoder) {
        switch TextFile.read(resolve(file), displayPath: file) {
        case .failure(let error):
            errors.append(error)
        case .success(let text):
            // A directory is flat and can hold many thousands of people: the size limit that
            // bounds a deeply nested bot file would refuse a real one. Depth stays limited.
            var directoryDecoder = decoder
            directoryDecoder.maximumFileSize = Self.maximumProfilesFileSize
            do {
                let directory = try directoryDecoder.decode(OrderedMap<ProfileEntry>.self, from: text, file: file)
                let problems = ProfileValidator.validate(directory, source: SourceFile(name: file, text: text))
                errors += problems
                if problems.isEmpty { profiles = directory }
            } catch {
                errors += error.errors
            }
        }
    }

    /// The largest profiles directory read (64 MB: some 500,000 people).
    public static let maximumProfilesFileSize = 64 * 1024 * 1024

    /// Counts for the `check` summary.
    public var commandCount: Int { bots.reduce(0) { $0 + $1.definition.commands.entries.count } }
    /// Triggers over all bots.
    public var triggerCount: Int { bots.reduce(0) { $0 + $1.definition.triggers.count } }
    /// Flows over all bots.
    public var flowCount: Int { bots.reduce(0) { $0 + $1.definition.flows.entries.count } }
    /// Schedules over all bots.
    public var scheduleCount: Int { bots.reduce(0) { $0 + $1.definition.schedules.count } }
}
