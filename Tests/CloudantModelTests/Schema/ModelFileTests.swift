import CloudantModel
import Foundation
import Testing

@Suite("Model files")
struct ModelFileTests {
    static func minimal(_ properties: String, extraEntity: String = "") -> String {
        """
        {"format":"cloudant-model","formatVersion":1,"name":"T","versions":[{"version":1,"entities":{
          "Note":{"properties":{\(properties)}}\(extraEntity)}}]}
        """
    }

    @Test func theGeneratedModelKeepsEveryVersionWithTheCurrentLast() {
        let model = RecipesModel.objectModel
        #expect(model.versions.map(\.version) == [1, 2])
        #expect(model.current.version == 2)
        #expect(model.current.entities.map(\.name) == ["Recipe", "Ingredient", "Chef"])
        #expect(Recipe.entity.property(named: "name")?.renamedFrom == "title")
        #expect(Recipe.entity.property(named: "ingredients")?.deleteRule == .cascade)
        #expect(Chef.entity.property(named: "recipes")?.deleteRule == .deny)
    }

    @Test func aModelFileParsesToTheSameModelTheGeneratorEmbedded() throws {
        let text = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Recipes.cloudantmodel.json"), encoding: .utf8)
        let parsed = try ObjectModel(parsing: text)
        #expect(parsed == RecipesModel.objectModel)
    }

    @Test func everyProblemIsListedWithItsPathInsteadOfStoppingAtTheFirst() throws {
        let text = Self.minimal(
            #""text":{"type":"string"},"CDTISx":{"type":"utf8"},"id":{"type":"utf8"},"n":{"type":"int16","default":70000},"#
                + #""owner":{"type":"relation-to-one","destination":"Person","inverse":"notes"},"x":{"type":"utf8","colour":"red"}"#)
        let error = try #require(throws: CloudantError.self) { try ObjectModel(parsing: text) }
        #expect(error.code == .invalidModel)
        let paths = error.modelFileIssues?.issues.map(\.path) ?? []
        #expect(paths.contains("versions[0].entities.Note.properties.text.type"))
        #expect(paths.contains("versions[0].entities.Note.properties.CDTISx"))
        #expect(paths.contains("versions[0].entities.Note.properties.id"))
        #expect(paths.contains("versions[0].entities.Note.properties.n.default"))
        #expect(paths.contains("versions[0].entities.Note.properties.owner.destination"))
        #expect(paths.contains("versions[0].entities.Note.properties.x.colour"))
    }

    @Test func anInverseMustPointBack() throws {
        let text = Self.minimal(
            #""owner":{"type":"relation-to-one","destination":"Person","inverse":"pets"}"#,
            extraEntity: #","Person":{"properties":{"notes":{"type":"relation-to-many","destination":"Note","inverse":"owner"},"pets":{"type":"relation-to-many","destination":"Note"}}}"#)
        let error = try #require(throws: CloudantError.self) { try ObjectModel(parsing: text) }
        // Both ends are named: owner's inverse (pets) does not point back, and notes names owner as its inverse
        // while owner names another.
        #expect(error.modelFileIssues?.issues.map(\.path).sorted() == [
            "versions[0].entities.Note.properties.owner.inverse",
            "versions[0].entities.Person.properties.notes.inverse",
        ])
    }

    @Test func anAttributeAddedInALaterVersionNeedsADefaultOrToBeOptional() throws {
        let text = """
            {"format":"cloudant-model","formatVersion":1,"name":"T","versions":[
              {"version":1,"entities":{"Note":{"properties":{"text":{"type":"utf8"}}}}},
              {"version":2,"entities":{"Note":{"properties":{"body":{"type":"utf8","renamedFrom":"text"},"stars":{"type":"int16"}}}}}]}
            """
        let error = try #require(throws: CloudantError.self) { try ObjectModel(parsing: text) }
        #expect(error.modelFileIssues?.issues.map(\.path) == ["versions[1].entities.Note.properties.stars"])
    }

    @Test func versionHashesAre64HexCharactersAndChangeOnlyWithWhatIsStored() throws {
        let hashes = VersionHashes.hashes(of: RecipesModel.objectModel.current)
        for hash in hashes.values {
            #expect(hash.count == 64 && hash.allSatisfy { "0123456789abcdef".contains($0) })
        }
        let base = PropertyDescription(name: "n", type: .int16)
        #expect(VersionHashes.hash(of: base) == VersionHashes.hash(of: PropertyDescription(name: "n", type: .int16, defaultValue: 3)))
        #expect(VersionHashes.hash(of: base) != VersionHashes.hash(of: PropertyDescription(name: "n", type: .int32)))
        #expect(VersionHashes.hash(of: base) != VersionHashes.hash(of: PropertyDescription(name: "n", type: .int16, optional: true)))
        // Version 1 and version 2 of Recipe are different stored shapes.
        #expect(VersionHashes.hashes(of: RecipesModel.objectModel.versions[0])["Recipe"] != hashes["Recipe"])
    }

    @Test func theMetadataDocumentHasExactlyTheSchemasMembers() throws {
        let metadata = IncrementalStoreMetadata(storeUUID: "u-1", version: RecipesModel.objectModel.current)
        let body = metadata.body
        #expect(body.keys == ["metaData", "objectModel"])
        let meta = try #require(body["metaData"]?.objectValue)
        #expect(meta.keys.sorted() == ["NSStoreModelVersionHashes", "NSStoreType", "NSStoreUUID"])
        #expect(meta["NSStoreType"] == "CDTIncrementalStore")
        let recipe = try #require(body["objectModel"]?["Recipe"]?.objectValue)
        #expect(recipe.keys.sorted() == ["properties", "versionHash"])
        #expect(recipe["properties"]?["ingredients"] == [
            "typeName": "relation-to-many", "versionHash": .string(VersionHashes.hash(of: try #require(Recipe.entity.property(named: "ingredients")))),
            "destination": "Ingredient",
        ])
        #expect(recipe["properties"]?["photo"]?["typeName"] == "binary")
        #expect(SamplesModel.objectModel.current.entities[0].property(named: "image").map {
            IncrementalStoreMetadata(storeUUID: "u", version: SamplesModel.objectModel.current).body["objectModel"]?["Sample"]?["properties"]?[$0.name]?["xform"]
        } == "ImageToPNG")
        // Read back, it names the version it was written with.
        #expect(try IncrementalStoreMetadata(document: body).matchingVersion(in: RecipesModel.objectModel)?.version == 2)
    }

    @Test func aHandWrittenMetadataDocumentReadsWithItsUUIDAndLowercasedHashes() throws {
        let metadata = try IncrementalStoreMetadata(document: try Fixtures.document("valid/CDTISMetaData.json"))
        #expect(metadata.storeUUID == "8F0C1D3A-0000-4000-8000-000000000001")
        #expect(metadata.versionHashes == ["Sample": String(repeating: "a", count: 64)])
        #expect(metadata.matchingVersion(in: SamplesModel.objectModel) == nil)
    }

    @Test func theMigrationRenamesDropsAndFillsDefaults() {
        let migration = ModelMigration(from: RecipesModel.objectModel.versions[0], to: RecipesModel.objectModel.current)
        #expect(migration.changes["Recipe"]?.renamed == ["title": "name"])
        #expect(migration.changes["Ingredient"]?.added == ["grams"])
        var body: JSONObject = ["CDTISEntityName": "Recipe", "title": "Soup", "servings": 3, "ingredients": []]
        #expect(migration.migrate(&body))
        #expect(body["name"] == "Soup" && body["title"] == nil && body["servings"] == 3)
        var ingredient: JSONObject = ["CDTISEntityName": "Ingredient", "name": "Leek"]
        migration.migrate(&ingredient)
        #expect(ingredient["grams"] == 0 && ingredient["CDTISMeta_grams"]?["ieee754_single"] == 0)
    }

    @Test func theGeneratorMarksItsOutputAndNamesTheFile() throws {
        let source = SwiftGenerator(model: RecipesModel.objectModel, sourceFile: "Recipes.cloudantmodel.json").source
        #expect(source.hasPrefix("// Generated by cloudant-model-gen from Recipes.cloudantmodel.json"))
        #expect(source.contains("public struct Recipe: ModelEntity"))
        #expect(source.contains("public var ingredients: ToMany<Ingredient>"))
        #expect(SwiftGenerator.outputFileName(forModelFile: "Recipes.cloudantmodel.json") == "Recipes+Model.swift")
    }
}
