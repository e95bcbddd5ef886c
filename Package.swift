// swift-tools-version: 6.0
//
// OTFCloudantStore for Swift on Linux.
//
// The four library products mirror OTFCloudantStore's CocoaPods subspecs. Each product is an umbrella
// module that re-exports exactly the modules its flavour names, so `import CloudantCare` is all a user
// writes, and a flavour never compiles what it does not name:
//
//   CloudantOnly        = CloudantCore + CloudantStore
//   CloudantCare        = CloudantOnly + CloudantCareModule
//   CloudantHealth      = CloudantOnly + CloudantHealthModule (the only module that imports libxml2)
//   CloudantCareHealth  = everything + CloudantCareHealthBridge
//
// `.ci/check-flavours.py` fails the build if that isolation is ever broken.

import PackageDescription

/// Settings every target of ours builds with: Swift 6 language mode is the tools-version default; these
/// add the upcoming features we rely on so that a later language mode changes nothing.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "OTFCloudantStore",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "CloudantOnly", targets: ["CloudantOnly"]),
        .library(name: "CloudantCare", targets: ["CloudantCare"]),
        .library(name: "CloudantHealth", targets: ["CloudantHealth"]),
        .library(name: "CloudantCareHealth", targets: ["CloudantCareHealth"]),
        .library(name: "CloudantServer", targets: ["CloudantServer"]),
        .executable(name: "cloudant", targets: ["CloudantCLI"]),
        .executable(name: "cloudant-benchmarks", targets: ["CloudantBenchmarks"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // MARK: C libraries (one system-library target each)

        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CLibXML2",
            path: "Sources/CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),

        // MARK: Pure logic (no I/O)

        .target(
            name: "CloudantCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),

        // MARK: Storage (the only layer that talks to SQLite)

        .target(
            name: "CloudantStore",
            dependencies: [
                "CloudantCore",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Sync (the replicator: CouchDB's replication protocol over a store or HTTP)

        .target(
            name: "CloudantSync",
            dependencies: ["CloudantCore", "CloudantStore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),

        // MARK: Entity modules

        .target(
            name: "CloudantCareModule",
            dependencies: ["CloudantCore"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CloudantHealthModule",
            dependencies: ["CloudantCore", "CLibXML2"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CloudantCareHealthBridge",
            dependencies: ["CloudantCore", "CloudantCareModule", "CloudantHealthModule"],
            swiftSettings: strictSettings
        ),

        // MARK: Flavour umbrellas (what users import)

        .target(
            name: "CloudantOnly",
            dependencies: ["CloudantCore", "CloudantStore", "CloudantSync"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CloudantCare",
            dependencies: ["CloudantOnly", "CloudantCareModule"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CloudantHealth",
            dependencies: ["CloudantOnly", "CloudantHealthModule"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CloudantCareHealth",
            dependencies: ["CloudantOnly", "CloudantCareModule", "CloudantHealthModule", "CloudantCareHealthBridge"],
            swiftSettings: strictSettings
        ),

        // MARK: HTTP endpoint

        .target(
            name: "CloudantServer",
            dependencies: ["CloudantCore"],
            swiftSettings: strictSettings
        ),

        // MARK: Executables

        .executableTarget(
            name: "CloudantCLI",
            dependencies: [
                "CloudantOnly",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "CloudantBenchmarks",
            dependencies: [
                "CSQLite",
                "CloudantOnly",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks",
            swiftSettings: strictSettings
        ),

        // MARK: Tests (mirror Sources/)

        .testTarget(
            name: "CloudantCoreTests",
            dependencies: ["CloudantCore", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudantSyncTests",
            dependencies: ["CloudantSync", "CloudantStore"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudantStoreTests",
            dependencies: ["CloudantStore"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudantCareModuleTests",
            dependencies: ["CloudantCareModule"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudantHealthModuleTests",
            dependencies: ["CloudantHealthModule"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudantCareHealthTests",
            dependencies: ["CloudantCareHealth"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudantServerTests",
            dependencies: ["CloudantServer"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudantCLITests",
            dependencies: ["CloudantCLI"],
            swiftSettings: strictSettings
        ),
    ]
)
