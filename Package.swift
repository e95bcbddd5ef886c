// swift-tools-version: 6.0
//
// OTFCloudantStore for Swift on Linux.
//
// The four library products mirror OTFCloudantStore's CocoaPods subspecs. Each product is an umbrella
// module that re-exports exactly the modules its flavour names, so `import CloudantCare` is all a user
// writes, and a flavour never compiles what it does not name:
//
//   CloudantOnly        = CloudantCore + CloudantStore + CloudantSync
//   CloudantCare        = CloudantOnly + CloudantCareModule
//   CloudantHealth      = CloudantOnly + CloudantHealthModule (the only module that imports libxml2)
//   CloudantCareHealth  = everything + CloudantCareHealthBridge
//
// Object models (CDTDatastore's Core Data bridge, CDTIncrementalStore) are their own product, CloudantModel =
// CloudantOnly's modules + CloudantModelSchema + CloudantModel, rather than part of CloudantOnly: the
// original subspecs never compiled a Core Data bridge, most apps of any flavour do not describe their data
// with a model file, and as its own product it combines with any flavour (it needs nothing of Care or
// Health) while no flavour compiles it unasked. The model-file logic (parsing, hashes, the CDTIS codec, the
// Swift generator) is a separate pure module on CloudantBase (JSON and errors) alone, so the build plugin's
// tool, `CloudantModelGen`, builds without SQLite, NIO, the replicator or swift-crypto.
//
// `.ci/check-flavours.py` fails the build if that isolation is ever broken.

import PackageDescription

/// Settings every target of ours builds with: Swift 6 language mode is the tools-version default; these
/// add the upcoming features we rely on so that a later language mode changes nothing.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

extension Target {
    /// A module of ours, built with ``strictSettings``.
    static func module(_ name: String, _ dependencies: [Target.Dependency] = [], linking: [LinkerSetting] = []) -> Target {
        .target(name: name, dependencies: dependencies, swiftSettings: strictSettings, linkerSettings: linking)
    }

    /// A flavour umbrella: a module whose files must import what they use (member import visibility), so a
    /// flavour's source states exactly which engine modules it builds on.
    static func flavour(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
        .target(name: name, dependencies: dependencies, swiftSettings: strictSettings + memberImportVisibility)
    }

    /// A test target of ours, built with ``strictSettings``.
    static func tests(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
        .testTarget(name: name, dependencies: dependencies, swiftSettings: strictSettings)
    }

    /// A test target held to member import visibility, as the flavours are.
    static func seedTests(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
        .testTarget(name: name, dependencies: dependencies, swiftSettings: strictSettings + memberImportVisibility)
    }
}

/// What the flavour umbrellas add to ``strictSettings``.
let memberImportVisibility: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility")]

let package = Package(
    name: "OTFCloudantStore",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "CloudantOnly", targets: ["CloudantOnly"]),
        .library(name: "CloudantCare", targets: ["CloudantCare"]),
        .library(name: "CloudantHealth", targets: ["CloudantHealth"]),
        .library(name: "CloudantCareHealth", targets: ["CloudantCareHealth"]),
        .library(name: "CloudantModel", targets: ["CloudantModel"]),
        .library(name: "CloudantServer", targets: ["CloudantServer"]),
        .library(name: "CloudantSyncNIO", targets: ["CloudantSyncNIO"]),
        .library(name: "CloudantDashboardPanels", targets: ["CloudantDashboardPanels"]),
        .library(name: "CloudantJavaScript", targets: ["CloudantJavaScript"]),
        .executable(name: "cloudant", targets: ["CloudantCLI"]),
        .executable(name: "cloudant-benchmarks", targets: ["CloudantBenchmarks"]),
        .plugin(name: "CloudantModelPlugin", targets: ["CloudantModelPlugin"]),
        .plugin(name: "CloudantModelCommand", targets: ["CloudantModelCommand"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        // `swift package generate-documentation`: the DocC catalogs, built in CI (.ci/build-docs.sh).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: C libraries (one system-library target each; JavaScriptCore is loaded at run time)

        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CSystemZlib",
            path: "Sources/CSystemZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CZstd",
            path: "Sources/CZstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"])]
        ),
        .systemLibrary(
            name: "CPCRE2",
            path: "Sources/CPCRE2",
            pkgConfig: "libpcre2-8",
            providers: [.apt(["libpcre2-dev"])]
        ),
        .systemLibrary(
            name: "CLibXML2",
            path: "Sources/CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // JavaScriptCore's C API (the engine design functions run in), opened with dlopen when the first engine
        // instance is made rather than linked: a process that runs no JavaScript never loads it. Needs Debian's
        // libjavascriptcoregtk-4.1-0 at run time only. Only CloudantJavaScript imports it.
        .target(name: "CJavaScriptCore"),

        // MARK: Pure logic (no I/O)

        // JSON and errors: what every module shares, with no dependency, so the build plugin's tool (which
        // needs nothing else) builds without swift-crypto. Re-exported by CloudantCore.
        .module("CloudantBase"),
        // Strings collate with ICU's root collator, as CouchDB's do: the ICU Foundation carries (`_FoundationICU`).
        // `$regex` runs on PCRE2, bytes as Erlang's `re` matches them.
        .module("CloudantCore", ["CloudantBase", "CPCRE2", .product(name: "Crypto", package: "swift-crypto")],
                linking: [.linkedLibrary("_FoundationICU")]),

        // MARK: Storage (the only layer that talks to SQLite)

        // Encryption at rest: a VFS every SQLite connection in the process goes through, encrypting the
        // pages of databases a key is registered for (AES-256-GCM from swift-crypto); C plumbing, Swift codec.
        .target(
            name: "CCipherVFS",
            dependencies: ["CSQLite"]
        ),
        .module("CipherVFS", [
            // Its failures are CloudantErrors, with the encryption codes CloudantBase declares.
            "CloudantBase",
            "CCipherVFS", "CSQLite",
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // Commits to an encrypted database until it is killed: the crash-recovery test's child.
        .executableTarget(
            name: "cipher-crash-writer",
            dependencies: ["CipherVFS", "CSQLite", .product(name: "Crypto", package: "swift-crypto")],
            path: "Tests/CipherCrashWriter",
            swiftSettings: strictSettings
        ),

        .module("CloudantStore", [
            "CloudantBase", "CloudantCore",
            // SQLite's column accessors, for reading projection rows in place.
            "CSQLite",
            // Encryption at rest (StoreOptions.encryptionKey): the key (PBKDF2 from CryptoExtras), the VFS the
            // store alone uses (its API is package-only), and the attachment files' cipher.
            "CipherVFS", .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CryptoExtras", package: "swift-crypto"),
            // zlib's CRC-32, to check streamed gzip attachments against their trailer.
            "CSystemZlib",
            // Document bodies are stored as zstd frames with per-kind dictionaries (StoredBody).
            "CZstd",
            .product(name: "GRDB", package: "GRDB.swift"),
            // gzip for attachments, as CouchDB stores compressible types (zlib underneath).
            .product(name: "CompressNIO", package: "compress-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),

        // MARK: Sync (the replicator: CouchDB's replication protocol over a store or HTTP)

        .module("CloudantSync", ["CloudantBase", "CloudantCore", "CloudantStore", .product(name: "Crypto", package: "swift-crypto")]),
        // The replicator's requests over SwiftNIO's HTTP client: its own product, so that no flavour compiles NIO
        // unasked (the flavours' HTTPPeer uses URLSession); the CLI and the benchmarks use it.
        .module("CloudantSyncNIO", [
            "CloudantBase",
            "CloudantSync",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),

        // MARK: Design functions (the JavaScript engine: its own product, in no flavour)

        // Views, validation, filters, shows, lists, updates and rewrites written in JavaScript, for a store or
        // a server that opts in (`StoreOptions.designFunctions`); nothing else links JavaScriptCore.
        .module("CloudantJavaScript", ["CloudantCore", "CJavaScriptCore"]),

        // MARK: Entity modules

        .module("CloudantCareModule", ["CloudantCore", "CloudantStore"]),
        .module("CloudantHealthModule", [
            "CloudantBase", "CloudantCore", "CloudantStore", "CLibXML2",
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            // zlib's CRC-32 for what ZIPFoundation inflates (its own on Linux is a byte-at-a-time loop).
            "CSystemZlib",
        ]),
        .module("CloudantCareHealthBridge", ["CloudantStore", "CloudantCore", "CloudantCareModule", "CloudantHealthModule"]),

        // MARK: Object models (CDTIncrementalStore's documents, on the store and the replicator)

        .module("CloudantModelSchema", ["CloudantBase"]),
        .module("CloudantModel", [
            "CloudantCore", "CloudantModelSchema", "CloudantStore", "CloudantSync",
            // Core Data-style version hashes (SHA-256) of the store metadata.
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .executableTarget(
            name: "CloudantModelGen",
            dependencies: ["CloudantBase", "CloudantModelSchema"],
            swiftSettings: strictSettings
        ),
        .plugin(
            name: "CloudantModelPlugin",
            capability: .buildTool(),
            dependencies: [.target(name: "CloudantModelGen")],
            path: "Plugins/CloudantModelPlugin"
        ),
        .plugin(
            name: "CloudantModelCommand",
            capability: .command(
                intent: .custom(verb: "cloudant-model", description: "Validate object model files (*.cloudantmodel.json).")),
            dependencies: [.target(name: "CloudantModelGen")],
            path: "Plugins/CloudantModelCommand"
        ),

        // MARK: Flavour umbrellas (what users import)

        //
        // Each umbrella also holds its flavour's share of OTFCloudantStore's drop-in API (`OTFCloudantStore`,
        // `OTFCloudantQuery`, `OTFCloudantError`, the CareKit-named methods, the watch peer, the HealthKit
        // synchronizer, the original's migrations) and the `callbackQueue` adapters, built only on the engine
        // modules' public async API: compatibility lives at the edge, and the engine has one API.
        .flavour("CloudantOnly", ["CloudantBase", "CloudantCore", "CloudantStore", "CloudantSync"]),
        .flavour("CloudantCare", ["CloudantOnly", "CloudantBase", "CloudantCore", "CloudantStore", "CloudantSync", "CloudantCareModule"]),
        .flavour("CloudantHealth", ["CloudantOnly", "CloudantBase", "CloudantCore", "CloudantStore", "CloudantSync", "CloudantHealthModule"]),
        .flavour("CloudantCareHealth", [
            "CloudantCare", "CloudantHealth", "CloudantCore", "CloudantCareModule", "CloudantHealthModule",
            "CloudantCareHealthBridge",
        ]),

        // MARK: HTTP endpoint

        .module("CloudantServer", [
            "CloudantBase", "CloudantCore",
            "CloudantStore",
            // `/_replicate` and `_replicator` jobs run the package's replicator, over SwiftNIO's HTTP client.
            "CloudantSync", "CloudantSyncNIO",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            // HTTPS for `serve --tls-certificate/--tls-key` (swift-nio-ssl).
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOCore", package: "swift-nio"),
            // The connection guard: HTTP parser errors and the HTTPTypes parts Hummingbird's codec passes.
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CryptoExtras", package: "swift-crypto"),
            .product(name: "CompressNIO", package: "compress-nio"),
            // The dashboard's pages (`/_utils`): logic-less templates that escape what they insert.
            .product(name: "Mustache", package: "swift-mustache"),
        ]),

        // The dashboard's health and care pages: they need the Health and Care modules, which the server
        // itself does not compile; `cloudant serve` adds them, and so can any app that embeds the server.
        .module("CloudantDashboardPanels", [
            "CloudantServer", "CloudantStore", "CloudantCore", "CloudantSync", "CloudantHealthModule", "CloudantCareModule",
        ]),

        // MARK: Executables

        .executableTarget(
            name: "CloudantCLI",
            dependencies: [
                "CloudantOnly",
                "CloudantCare",
                "CloudantHealth",
                // `care outcomes` computes HealthKit-linked tasks' outcomes from the samples in the same store.
                "CloudantCareHealthBridge",
                "CloudantServer",
                "CloudantDashboardPanels",
                // `replicate` over SwiftNIO's HTTP client (`--http-client nio`, the default).
                "CloudantSyncNIO",
                "CloudantModel",
                // `serve` runs design documents' JavaScript; `view` queries their views.
                "CloudantJavaScript",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "CloudantBenchmarks",
            dependencies: [
                "CSQLite",
                "CloudantOnly",
                "CloudantCare",
                "CloudantServer",
                "CloudantDashboardPanels",
                "CloudantSyncNIO",
                "CloudantHealth",
                "CloudantCareHealthBridge",
                "CloudantModel",
                // View builds with JavaScript map functions, and the engine alone for their floor.
                "CloudantJavaScript",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks",
            // EngineComparison: the C and C++ harness that chose the JavaScript engine (its own script builds it).
            exclude: ["Baselines/cda_lxml.py", "Health/import_write_floor.py", "README.md", "EngineComparison"],
            swiftSettings: strictSettings,
            // The model benchmark's types come from Model/Kitchen.cloudantmodel.json.
            plugins: ["CloudantModelPlugin"]
        ),

        // MARK: Tests (mirror Sources/)
        //
        // Test targets that see CloudantStore list NIOCore: debug test builds compile modules with testing
        // enabled, which makes the store's internal import of compress-nio (gzip for attachments) visible
        // to them, and SwiftPM only hands a target the module maps of its declared dependencies.

        // What every test target shares, as HummingbirdTesting does for Hummingbird's: temporary folders and
        // stores, live servers on 127.0.0.1 awaited until they listen, child processes started without
        // Foundation's `Process` (whose Linux `run()` can crash a test process that holds many descriptors; see
        // ChildProcess.swift), a seeded generator, generous deadlines, and the health export generator's runner.
        // Loaded into every test executable: a bare `swift test` runs as many tests at once as CI does.
        .target(
            name: "CTestRunDefaults",
            path: "Tests/CTestRunDefaults"
        ),
        .target(
            name: "CloudantTestSupport",
            dependencies: [
                "CTestRunDefaults", "CloudantCore", "CloudantStore", "CloudantServer", "CloudantSync",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/CloudantTestSupport",
            swiftSettings: strictSettings
        ),
        .tests("CipherVFSTests", [
            "CipherVFS", "CloudantBase", "CSQLite", "cipher-crash-writer", "CloudantTestSupport",
            .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .tests("CloudantCoreTests", [
            "CloudantBase", "CloudantCore", "CloudantTestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .tests("CloudantSyncTests", [
            // The `callbackQueue` adapters, which live in the flavour at the edge.
            "CloudantOnly",
            "CloudantCore",
            "CloudantSync", "CloudantStore", "CloudantServer", "CloudantSyncNIO", "CloudantTestSupport",
            // Views of replicated design documents.
            "CloudantJavaScript",
            // Replication over AsyncHTTPClient with a TLS configuration of the test's own (a private CA).
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            // The fault-injecting proxy the reliability tests put between the peers.
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
        .tests("CloudantJavaScriptTests", ["CloudantJavaScript", "CloudantCore"]),
        .tests("CloudantStoreTests", [
            // The `callbackQueue` adapters, which live in the flavour at the edge.
            "CloudantOnly",
            "CloudantBase", "CloudantCore",
            "CloudantStore", "CloudantTestSupport", .product(name: "NIOCore", package: "swift-nio"),
            // Views of design documents written in JavaScript.
            "CloudantJavaScript",
            // The upgrade tests mark a fixture as written by a newer schema.
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .tests("CloudantCareModuleTests", [
            // The `callbackQueue` adapters, which live in the flavour at the edge.
            "CloudantCare",
            "CloudantCore",
            "CloudantCareModule", "CloudantStore", "CloudantTestSupport", .product(name: "NIOCore", package: "swift-nio"),
        ]),
        .tests("CloudantHealthModuleTests", [
            // The `callbackQueue` adapters, which live in the flavour at the edge.
            "CloudantHealth",
            "CloudantCore",
            "CloudantHealthModule", "CloudantStore", "CloudantTestSupport", .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .tests("CloudantCareHealthTests", [
            "CloudantCareHealth", "CloudantStore", "CloudantTestSupport", .product(name: "NIOCore", package: "swift-nio"),
        ]),
        .tests("CloudantServerTests", [
            "CloudantCore",
            // Tokens signed as identity providers sign them (JWT tests), and raw HTTP fields.
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CryptoExtras", package: "swift-crypto"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            "CloudantServer", "CloudantStore", "CloudantTestSupport", .product(name: "NIOCore", package: "swift-nio"),
            // A Care and a Health error made by the modules themselves, answered by the server's mapping.
            "CloudantCareModule", "CloudantHealthModule",
            // The dashboard's health, care and replication pages.
            "CloudantDashboardPanels", "CloudantSync",
            // Design documents' JavaScript (views, validation, filters, shows, lists, updates, rewrites).
            "CloudantJavaScript",
        ]),
        .testTarget(
            name: "CloudantModelTests",
            dependencies: [
                "CloudantModel", "CloudantModelSchema", "CloudantServer", "CloudantTestSupport", .product(name: "NIOCore", package: "swift-nio"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings,
            // The tests' entity types come from Recipes.cloudantmodel.json and Samples.cloudantmodel.json
            // through the build plugin, as an app's would.
            plugins: ["CloudantModelPlugin"]
        ),
        // The Swift snippets of OTFCloudantStore's READMEs, as its users wrote them, run
        // against the drop-in API. Each snippet file imports the narrowest flavour it belongs to, and member
        // import visibility keeps a file from using what its own imports do not bring; Examples/Flavours
        // compiles and runs the same files (symbolic links) against each flavour's product alone.
        .seedTests("SeedAPITests", [
            "CloudantCore", "CloudantStore", "CloudantSync",
            "CloudantOnly", "CloudantCare", "CloudantHealth", "CloudantCareHealth", "CloudantServer", "CloudantTestSupport",
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
        .tests("CloudantCLITests", [
            "CloudantCLI", "CloudantTestSupport",
            // The replication kill test runs our replicator against a `cloudant serve` process it kills.
            "CloudantCore", "CloudantStore", "CloudantSync",
            .product(name: "NIOCore", package: "swift-nio"),
            // The upgrade kill test grows an old store file with SQL before upgrading it.
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
    ]
)
