// swift-tools-version: 6.0
//
// A consumer of OTFCloudantStore with one executable per flavour. Each depends on exactly one product
// and imports only it, so building them (one package, dependencies built once) proves each flavour
// compiles on its own; `.ci/check-flavours.py` then checks what each one linked.
//
// ModelRecipes is the object-model consumer: its only description of its data is
// Recipes.cloudantmodel.json, from which the CloudantModelPlugin build plugin generates the entity types.
// It lives here so CI builds the dependencies once for all five.
//
// Tour is the README's five-minute tour (store, query, serve, sync, care, health): the README's code blocks
// are regions of its main.swift (`.ci/check-readme.py` holds them equal), and CI builds and runs it.

import PackageDescription

let package = Package(
    name: "Flavours",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "OTFCloudantStore", path: "../..")
    ],
    targets: ["Only", "Care", "Health", "CareHealth"].map { flavour in
        .executableTarget(
            name: "\(flavour)Flavour", dependencies: [.product(name: "Cloudant\(flavour)", package: "OTFCloudantStore")])
    } + [
        .executableTarget(
            name: "ModelRecipes",
            dependencies: [.product(name: "CloudantModel", package: "OTFCloudantStore")],
            plugins: [.plugin(name: "CloudantModelPlugin", package: "OTFCloudantStore")]),
        .executableTarget(
            name: "Tour",
            dependencies: [
                .product(name: "CloudantCareHealth", package: "OTFCloudantStore"),
                .product(name: "CloudantServer", package: "OTFCloudantStore"),
            ]),
    ]
)
