import Testing
import YAMLCoding
import ParleyBots

@Suite struct HostConfigValidatorTests {
    static func errors(_ yaml: String) -> String {
        do {
            let config = try YAMLDecoder(environment: [:]).decode(HostConfig.self, from: yaml, file: "config.yaml")
            return HostConfigValidator.validate(config, source: SourceFile(name: "config.yaml", text: yaml))
                .map(\.description).joined(separator: "\n")
        } catch {
            return error.description
        }
    }

    @Test func exampleConfigIsValid() {
        #expect(HostConfigValidatorTests.errors("""
            transport: { kind: local }
            storage: { path: .parley/parley.db }
            bots: bots
            profiles: { directory: profiles.yaml, expire: 10m }
            log: { level: info, format: text }
            broadcasts: { rate: 100/s }
            """) == "")
    }

    @Test func storageURLProblems() {
        #expect(HostConfigValidatorTests.errors("""
            storage: { path: a.db, url: "postgres://u:secret@h/db", lease: 1s }
            """) == """
            config.yaml:1:18: error: storage has both 'path' and 'url': use 'path' for SQLite (one process) or 'url' for PostgreSQL (several)
            storage: { path: a.db, url: "postgres://u:secret@h/db", lease: 1s }
                             ^
            config.yaml:1:64: error: storage lease '1s' is shorter than 2s: expected a duration like 5s
            storage: { path: a.db, url: "postgres://u:secret@h/db", lease: 1s }
                                                                           ^
            """)
        #expect(HostConfigValidatorTests.errors("""
            storage: { url: "mysql://u:secret@h/db" }
            """) == """
            config.yaml:1:17: error: storage url 'mysql://u:***@h/db' is not a PostgreSQL URL: expected postgres://user@host:5432/database (password from ${ENV} or ~/.pgpass)
            storage: { url: "mysql://u:secret@h/db" }
                            ^
            """)
        #expect(HostConfigValidatorTests.errors("storage: { path: a.db, lease: 5s }").contains("'lease' needs 'url'"))
        #expect(HostConfigValidatorTests.errors("storage: { url: \"postgres://h/db\", lease: 10s }").isEmpty)
    }

    @Test func storageDurabilityIsNormalOrFull() throws {
        let decoder = YAMLDecoder(environment: [:])
        #expect(try decoder.decode(HostConfig.self, from: "storage: { durability: full }", file: "config.yaml").durability == .full)
        #expect(try decoder.decode(HostConfig.self, from: "storage: { path: a.db }", file: "config.yaml").durability == .normal)
        #expect(HostConfigValidatorTests.errors("storage: { path: a.db, durability: full }").isEmpty)
        #expect(HostConfigValidatorTests.errors("storage: { path: a.db, durability: normal }").isEmpty)
        #expect(HostConfigValidatorTests.errors("storage: { path: a.db, durability: fsync }") == """
            config.yaml:1:36: error: unknown storage durability 'fsync': expected normal or full
            storage: { path: a.db, durability: fsync }
                                               ^
            """)
    }

    @Test func everyConfigProblem() {
        // The transport section's problems are its provider's (TransportSectionTests).
        let yaml = """
            storage: { path: "" }
            profiles:
              directory: profiles.yaml
              url: https://crm.example/api/profiles
              expire: 10 min
            log: { level: verbose, format: xml }
            broadcasts: { rate: "100" }
            """
        #expect(HostConfigValidatorTests.errors(yaml) == """
            config.yaml:1:18: error: empty storage path: expected a file like .parley/parley.db or :memory:
            storage: { path: "" }
                             ^
            config.yaml:4:8: error: 'profiles' has both 'directory' and 'url': use one of them
              url: https://crm.example/api/profiles
                   ^
            config.yaml:4:8: error: profiles url 'https://crm.example/api/profiles' has no '{ids}': expected a URL with {ids} where the user ids go
              url: https://crm.example/api/profiles
                   ^
            config.yaml:5:13: error: invalid duration '10 min': unexpected ' '; expected a number and a unit (ms, s, m, h, d), like 500ms, 2s, 10m, 1h or 1d
              expire: 10 min
                        ^
            config.yaml:6:15: error: unknown log level 'verbose': expected debug, info, warn or error
            log: { level: verbose, format: xml }
                          ^
            config.yaml:6:32: error: unknown log format 'xml': expected text or json
            log: { level: verbose, format: xml }
                                           ^
            config.yaml:7:21: error: invalid rate '100': expected COUNT/UNIT with a unit of s, m or h, like 20/s or 600/m
            broadcasts: { rate: "100" }
                                ^
            """)
    }
}

@Suite struct MessageSizeLimitTests {
    @Test(arguments: [("4096", 4096), ("512B", 512), ("64KB", 65_536), ("2MB", 2_097_152), ("1GB", 1 << 30)])
    func sizesParse(text: String, bytes: Int) throws {
        #expect(try ByteSize.parse(text) == bytes)
    }

    @Test func theConfigSetsTheLimitAndDefaultsTo64KB() throws {
        let decoder = YAMLDecoder(environment: [:])
        #expect(try decoder.decode(HostConfig.self, from: "limits: { message_size: 2KB }", file: "config.yaml").maxMessageBytes == 2048)
        #expect(try decoder.decode(HostConfig.self, from: "bots: bots", file: "config.yaml").maxMessageBytes == 65_536)
    }

    @Test func badSizesAndKeysAreErrorsAtTheirColumn() {
        #expect(HostConfigValidatorTests.errors("""
            limits: { message_size: 64XB }
            """) == """
            config.yaml:1:27: error: invalid size '64XB': unknown unit 'XB'; expected a whole number of bytes with an optional unit (B, KB, MB), like 4096, 64KB or 1MB
            limits: { message_size: 64XB }
                                      ^
            """)
        #expect(HostConfigValidatorTests.errors("limits: { message_size: 0 }").contains("config.yaml:1:25: error: size '0' must be more than 0"))
        #expect(HostConfigValidatorTests.errors("limits: { message_size: 2GB }").contains("is too large: at most 1GB"))
        #expect(HostConfigValidatorTests.errors("limits: { mesage_size: 1KB }").contains("did you mean 'message_size'"))
    }
}

@Suite struct StorageRetentionConfigTests {
    @Test func retentionIs90DaysUnlessSetAndForeverKeepsEverything() throws {
        let decoder = YAMLDecoder(environment: [:])
        func retention(_ yaml: String) throws -> Duration? { try decoder.decode(HostConfig.self, from: yaml, file: "config.yaml").retention }
        #expect(try retention("bots: bots") == .seconds(90 * 86_400))
        #expect(try retention("storage: { path: a.db, retention: 30d }") == .seconds(30 * 86_400))
        #expect(try retention("storage: { path: a.db, retention: forever }") == nil)
        #expect(HostConfigValidatorTests.errors("storage: { path: a.db, retention: forever }").isEmpty)
    }

    @Test func badOrTooShortRetentionsAreErrorsAtTheirColumn() {
        #expect(HostConfigValidatorTests.errors("storage: { path: a.db, retention: 10m }")
            .contains("config.yaml:1:35: error: storage retention '10m' is shorter than 1h: expected a duration like 90d, or forever"))
        #expect(HostConfigValidatorTests.errors("storage: { path: a.db, retention: always }").contains("config.yaml:1:35: error:"))
        #expect(HostConfigValidatorTests.errors("storage: { path: a.db, retension: 9d }").contains("did you mean 'retention'"))
    }
}
