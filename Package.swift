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
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "COlm", pkgConfig: "olm", providers: [.apt(["libolm-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        // MARK: - Foundations (know nothing of IM or bots)
        .target(name: "YAMLCoding", dependencies: ["CYAML"]),
        // The storage engine: SQLite (one process) or PostgreSQL through libpq (several processes).
        .target(name: "ParleyStore", dependencies: ["CSQLite", "CPQ"]),
        .target(name: "ParleyRegex", dependencies: ["CPCRE2"]),
        // HTTP/1.1 over libcurl's multi interface: one thread per client, kept-alive connections.
        .target(name: "ParleyHTTP", dependencies: ["CCurl"]),
        // Counters, gauges and histograms, exposed in the Prometheus text format.
        .target(name: "ParleyMetrics"),
        // HTTP/1.1 server over libmicrohttpd: one epoll thread, async handlers via suspend/resume.
        .target(name: "ParleyHTTPServer", dependencies: ["CMicroHTTPD"]),
        // The web door's pages, styles and scripts (chat widget, agents' console) as Swift strings.
        .target(name: "ParleyWebAssets", dependencies: ["ParleyCore"]),
        // Olm and Megolm (Matrix end-to-end encryption) over libolm, behind one internal
        // protocol so the library can be replaced (vodozemac). Depends on no other Parley module.
        .target(name: "ParleyCrypto", dependencies: ["COlm", "COpenSSL"]),

        // MARK: - The core SDK and its transports
        .target(name: "ParleyCore", dependencies: ["ParleyStore"]),
        .target(name: "ParleyHub", dependencies: ["ParleyCore", "ParleyStore"]),
        .target(name: "ParleyMatrix", dependencies: ["ParleyCore", "ParleyStore", "ParleyHTTP"]),
        // Matrix end-to-end encryption's key management (signing JSON, /keys/upload, query,
        // claim) over ParleyCrypto and the client: its own target so ParleyMatrix (and every
        // host without encryption) stays free of libolm, and ParleyCrypto free of Matrix.
        .target(name: "ParleyMatrixCrypto", dependencies: ["ParleyMatrix", "ParleyCrypto", "ParleyCore", "ParleyStore"]),

        // MARK: - Bots, flow tests, the CLI
        .target(name: "ParleyBots", dependencies: ["ParleyCore", "YAMLCoding", "ParleyStore", "ParleyRegex"]),
        .target(name: "ParleyFlowTest", dependencies: ["ParleyBots", "ParleyHub", "ParleyCore", "YAMLCoding", "ParleyRegex"]),
        // Composes a running host (stores, profiles, one provider per transport kind); the CLI
        // above it only parses arguments and prints.
        .target(name: "ParleyHosting", dependencies: ["ParleyBots", "ParleyFlowTest", "ParleyHub", "ParleyMatrix", "ParleyMatrixCrypto", "ParleyCrypto", "ParleyCore", "YAMLCoding", "ParleyMetrics", "ParleyHTTPServer", "ParleyWebAssets", "ParleyStore"]),
        .target(name: "ParleyCLI", dependencies: ["ParleyHosting", "ParleyBots", "ParleyFlowTest", "ParleyCore", "YAMLCoding"]),
        .executableTarget(name: "parley", dependencies: ["ParleyCLI"]),
        .executableTarget(name: "parley-bench", dependencies: ["YAMLCoding", "ParleyCore", "ParleyHub", "ParleyBots", "ParleyFlowTest", "ParleyHosting", "ParleyMatrix", "ParleyCrypto", "ParleyMatrixCrypto", "ParleyCLI", "ParleyTesting", "ParleyStore"]),
        // The decoders' fuzz targets: a seeded mutation loop (CI), or libFuzzer with -DPARLEY_LIBFUZZER.
        .executableTarget(name: "parley-fuzz", dependencies: ["YAMLCoding", "ParleyCore", "ParleyBots", "ParleyMatrix"]),

        // MARK: - Test helpers (like NIOEmbedded / HummingbirdTesting): virtual clocks, the
        // Synapse under test, timeouts, processes, fixtures. No product module depends on it.
        .target(name: "ParleyTesting", dependencies: ["ParleyStore", "ParleyCore", "ParleyMatrix"]),

        // MARK: - Tests: one target per module, plus the end-to-end tests that run several
        // modules together through the CLI, the hosting layer or a live homeserver.
        .testTarget(name: "ParleyStoreTests", dependencies: ["ParleyStore", "ParleyTesting"]),
        .testTarget(name: "YAMLCodingTests", dependencies: ["YAMLCoding"], exclude: ["Fixtures"]),
        .testTarget(name: "ParleyRegexTests", dependencies: ["ParleyRegex"]),
        .testTarget(name: "ParleyCryptoTests", dependencies: ["ParleyCrypto"]),
        .testTarget(name: "ParleyHTTPTests", dependencies: ["ParleyHTTP", "ParleyTesting"]),
        .testTarget(name: "ParleyMetricsTests", dependencies: ["ParleyMetrics", "ParleyTesting"]),
        .testTarget(name: "ParleyWebAssetsTests", dependencies: ["ParleyWebAssets"]),
        .testTarget(name: "ParleyHTTPServerTests", dependencies: ["ParleyHTTPServer", "ParleyHTTP", "ParleyTesting"]),
        .testTarget(name: "ParleyTestingTests", dependencies: ["ParleyTesting", "ParleyCore"]),
        .testTarget(name: "ParleyCoreTests", dependencies: ["ParleyCore", "ParleyHub", "ParleyTesting"], exclude: ["Fixtures"]),
        .testTarget(name: "ParleyHubTests", dependencies: ["ParleyHub", "ParleyCore", "ParleyStore", "ParleyTesting"]),
        .testTarget(name: "ParleyMatrixCryptoTests", dependencies: ["ParleyMatrixCrypto", "ParleyMatrix", "ParleyCrypto", "ParleyCore", "ParleyTesting", "ParleyStore"]),
        .testTarget(name: "ParleyMatrixTests", dependencies: ["ParleyCore", "ParleyBots", "ParleyMatrix", "ParleyMatrixCrypto", "ParleyCrypto", "ParleyHub", "ParleyTesting"]),
        .testTarget(name: "ParleyBotsTests", dependencies: ["ParleyBots", "ParleyHub", "ParleyCore", "YAMLCoding", "ParleyRegex", "ParleyStore", "ParleyTesting"]),
        .testTarget(name: "ParleyFlowTestTests", dependencies: ["ParleyFlowTest", "ParleyBots", "ParleyHub", "ParleyCore", "YAMLCoding", "ParleyTesting"]),
        .testTarget(name: "ParleyHostingTests", dependencies: ["ParleyHosting", "ParleyBots", "ParleyHub", "ParleyMatrix", "ParleyMatrixCrypto", "ParleyCrypto", "ParleyCore", "YAMLCoding", "ParleyTesting", "ParleyMetrics", "ParleyHTTP", "ParleyStore"]),
        .testTarget(name: "ParleyCLITests", dependencies: ["ParleyCLI", "ParleyTesting"], exclude: ["Fixtures"]),
        .testTarget(name: "EndToEndTests", dependencies: ["ParleyCLI", "ParleyHosting", "ParleyFlowTest", "ParleyBots", "ParleyHub", "ParleyMatrix", "ParleyCore", "YAMLCoding", "ParleyTesting", "ParleyHTTP"]),
    ]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + sharedSettings
}
