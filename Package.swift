// swift-tools-version: 6.0
import PackageDescription

// One place for the settings every Swift target shares (the swift-log habit):
// Swift 6 language mode (complete concurrency checking) and explicit `any`.
let sharedSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Parley",
    products: [
        .executable(name: "parley", targets: ["parley"]),
        .executable(name: "parley-bench", targets: ["parley-bench"]),
        .executable(name: "parley-fuzz", targets: ["parley-fuzz"]),
        .library(name: "ParleyCore", targets: ["ParleyCore"]),
        .library(name: "ParleyBots", targets: ["ParleyBots"]),
    ],
    targets: [
        // MARK: - C libraries from Debian's -dev packages
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPCRE2", pkgConfig: "libpcre2-8", providers: [.apt(["libpcre2-dev"])]),

        // MARK: - Foundations (know nothing of IM or bots)
        .target(name: "YAMLCoding", dependencies: ["CYAML"]),
        .target(name: "SQLiteStore", dependencies: ["CSQLite"]),
        .target(name: "ParleyRegex", dependencies: ["CPCRE2"]),

        // MARK: - The core SDK and its transports
        .target(name: "ParleyCore", dependencies: ["SQLiteStore"]),
        .target(name: "ParleyHub", dependencies: ["ParleyCore", "SQLiteStore"]),
        .target(name: "ParleyMatrix", dependencies: ["ParleyCore", "SQLiteStore"]),

        // MARK: - Bots, flow tests, the CLI
        .target(name: "ParleyBots", dependencies: ["ParleyCore", "YAMLCoding", "SQLiteStore", "ParleyRegex"]),
        .target(name: "ParleyFlowTest", dependencies: ["ParleyBots", "ParleyHub", "ParleyCore", "YAMLCoding", "ParleyRegex"]),
        // Composes a running host (stores, profiles, one provider per transport kind); the CLI
        // above it only parses arguments and prints.
        .target(name: "ParleyHosting", dependencies: ["ParleyBots", "ParleyFlowTest", "ParleyHub", "ParleyMatrix", "ParleyCore", "YAMLCoding"]),
        .target(name: "ParleyCLI", dependencies: ["ParleyHosting", "ParleyBots", "ParleyFlowTest", "ParleyHub", "ParleyCore", "YAMLCoding"]),
        .executableTarget(name: "parley", dependencies: ["ParleyCLI"]),
        .executableTarget(name: "parley-bench", dependencies: ["YAMLCoding", "ParleyCore", "ParleyHub", "ParleyBots", "ParleyFlowTest", "ParleyHosting", "ParleyMatrix", "ParleyCLI"]),
        // The decoders' fuzz targets: a seeded mutation loop (CI), or libFuzzer with -DPARLEY_LIBFUZZER.
        .executableTarget(name: "parley-fuzz", dependencies: ["YAMLCoding", "ParleyCore", "ParleyBots", "ParleyMatrix"]),

        // MARK: - Tests
        // Helpers every test target may share (timeouts); never part of a product.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "SQLiteStoreTests", dependencies: ["SQLiteStore"]),
        .testTarget(name: "YAMLCodingTests", dependencies: ["YAMLCoding"], exclude: ["Fixtures"]),
        .testTarget(name: "ParleyRegexTests", dependencies: ["ParleyRegex"]),
        .testTarget(name: "ParleyCoreTests", dependencies: ["ParleyCore", "ParleyHub", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "ParleyHubTests", dependencies: ["ParleyHub", "ParleyCore", "SQLiteStore", "TestSupport"]),
        .testTarget(name: "ParleyMatrixTests", dependencies: ["ParleyCore", "ParleyMatrix", "TestSupport"]),
        .testTarget(name: "ParleyBotsTests", dependencies: ["ParleyBots", "ParleyFlowTest", "YAMLCoding", "ParleyRegex"]),
        .testTarget(name: "ParleyFlowTestTests", dependencies: ["ParleyFlowTest", "ParleyCLI", "ParleyBots", "ParleyHub", "ParleyCore", "YAMLCoding"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "ParleyBotTests", dependencies: ["ParleyBots", "ParleyHub", "ParleyCore", "ParleyCLI", "YAMLCoding", "SQLiteStore", "TestSupport"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "ParleyBroadcastTests", dependencies: ["ParleyBots", "ParleyHub", "ParleyCore", "ParleyCLI", "SQLiteStore", "TestSupport"]),
        .testTarget(name: "ParleyCLITests", dependencies: ["ParleyCLI"], exclude: ["Fixtures"]),
        .testTarget(name: "ParleyHostingTests", dependencies: ["ParleyHosting", "ParleyBots", "ParleyHub", "ParleyMatrix", "ParleyCore", "YAMLCoding", "TestSupport"]),
        .testTarget(name: "ParleyMatrixBotTests", dependencies: ["ParleyHosting", "ParleyCLI", "ParleyBots", "ParleyFlowTest", "ParleyMatrix", "ParleyCore", "YAMLCoding", "TestSupport"]),
    ]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + sharedSettings
}
