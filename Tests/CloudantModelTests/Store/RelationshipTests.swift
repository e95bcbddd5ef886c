import CloudantModel
import CloudantTestSupport
import Foundation
import Testing

/// Inverse maintenance, delete rules and batched fetches, on a real SQLite store.
@Suite("Relationships")
struct RelationshipTests {
    @Test func savingOneSideFillsTheInverse() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let models = try await folder.models("r")
        let soup = Recipe(id: "soup", name: "Soup")
        let leek = Ingredient(id: "leek", name: "Leek", recipe: ToOne(soup))
        try await models.save(ModelChanges().saving(soup).saving(leek))
        #expect(try await models.fetch(Recipe.self, id: "soup").ingredients.ids == ["leek"])

        // The other way round: adding to the to-many sets the ingredient's to-one.
        let potato = try await models.save([Ingredient(id: "potato", name: "Potato")])[0]
        var recipe = try await models.fetch(Recipe.self, id: "soup")
        recipe.ingredients.insert(potato)
        recipe = try await models.save([recipe])[0]
        #expect(recipe.ingredients.ids == ["leek", "potato"])
        #expect(try await models.fetch(Ingredient.self, id: "potato").recipe.id == "soup")
        #expect(recipe.objectVersion == 2)
        #expect(recipe.objectIdentifier == "x-coredata://\(models.metadata.storeUUID)/Recipe/psoup")
    }

    @Test func movingAnObjectTakesItFromItsPreviousOwner() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let models = try await folder.models("r")
        let soup = Recipe(id: "soup", name: "Soup")
        let stew = Recipe(id: "stew", name: "Stew")
        try await models.save(ModelChanges().saving(soup).saving(stew).saving(Ingredient(id: "leek", name: "Leek", recipe: ToOne(soup))))
        var leek = try await models.fetch(Ingredient.self, id: "leek")
        leek.recipe = ToOne(stew)
        let result = try await models.save(ModelChanges().saving(leek))
        #expect(result.updatedRelated == ["soup", "stew"])
        #expect(try await models.fetch(Recipe.self, id: "soup").ingredients.isEmpty)
        #expect(try await models.fetch(Recipe.self, id: "stew").ingredients.ids == ["leek"])
        let soupVersion = try await models.fetch(Recipe.self, id: "soup").objectVersion
        #expect(soupVersion == 2)  // changed by inverse maintenance: a new CDTISObjectVersion
    }

    @Test func cascadeDeletesTheRelatedObjectsInOneTransaction() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let models = try await folder.models("r")
        let soup = Recipe(id: "soup", name: "Soup")
        try await models.save(
            ModelChanges().saving(soup).saving(Ingredient(id: "a", name: "A", recipe: ToOne(soup)))
                .saving(Ingredient(id: "b", name: "B", recipe: ToOne(soup))))
        let stored = try await models.fetch(Recipe.self, id: "soup")
        let result = try await models.delete([stored])
        #expect(result.deleted == ["soup", "a", "b"])
        #expect(try await models.fetchAll(Ingredient.self).isEmpty)
        let info = try await models.store.info()
        #expect(info.documentCount == 1 + 2)  // CDTISMetaData and the two index design documents
    }

    @Test func nullifyRemovesTheDeletedObjectFromTheInverse() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let models = try await folder.models("r")
        let soup = Recipe(id: "soup", name: "Soup")
        try await models.save(ModelChanges().saving(soup).saving(Ingredient(id: "a", name: "A", recipe: ToOne(soup))))
        try await models.delete([try await models.fetch(Ingredient.self, id: "a")])
        #expect(try await models.fetch(Recipe.self, id: "soup").ingredients.isEmpty)
    }

    @Test func denyRefusesTheDeleteAndWritesNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let models = try await folder.models("r")
        let ada = Chef(id: "ada", name: "Ada")
        try await models.save(ModelChanges().saving(ada).saving(Recipe(id: "soup", name: "Soup", chef: ToOne(ada))))
        let before = try await models.store.info().updateSeq
        let error = try await #require(throws: CloudantError.self) {
            try await models.delete([try await models.fetch(Chef.self, id: "ada")])
        }
        #expect(error.code == .deleteDenied)
        #expect(error.context.documentID == "ada" && error.context.field == "recipes" && error.context.kind == "Chef")
        #expect(try await models.store.info().updateSeq == before)
        // Deleting the recipe with the chef is allowed: nothing survives to point at.
        let recipe = try await models.fetch(Recipe.self, id: "soup")
        try await models.save(ModelChanges().deleting(try await models.fetch(Chef.self, id: "ada")).deleting(recipe))
        #expect(try await models.fetchAll(Chef.self).isEmpty)
    }

    @Test func aStaleRevisionWritesNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let models = try await folder.models("r")
        let soup = try await models.save([Recipe(id: "soup", name: "Soup")])[0]
        _ = try await models.save([soup])
        let error = try await #require(throws: CloudantError.self) {
            try await models.save(ModelChanges().saving(soup).saving(Ingredient(id: "x", name: "X", recipe: ToOne(soup))))
        }
        #expect(error.code == .conflict && error.context.documentID == "soup")
        #expect(try await models.fetch(Ingredient.self, ids: ["x"]).isEmpty)
    }

    @Test func fetchingAlongARelationshipReadsOnceForAWholeBatch() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let models = try await folder.models("r")
        var changes = ModelChanges()
        for recipe in 0..<100 {
            let owner = Recipe(id: "r\(recipe)", name: "Recipe \(recipe)", chef: recipe % 2 == 0 ? ToOne(id: "chef") : nil)
            try changes.save(owner)
            for ingredient in 0..<3 { try changes.save(Ingredient(id: "r\(recipe)-i\(ingredient)", name: "I", recipe: ToOne(owner))) }
        }
        try changes.save(Chef(id: "chef", name: "Ada"))
        try await models.save(changes)
        let recipes = try await models.fetchAll(Recipe.self)
        #expect(recipes.count == 100)
        let before = models.storeReads
        let ingredients = try await models.fetch(\Recipe.ingredients, of: recipes)
        #expect(models.storeReads == before + 1)
        #expect(ingredients.values.map(\.count).reduce(0, +) == 300)
        #expect(ingredients["r7"]?.map(\.id) == ["r7-i0", "r7-i1", "r7-i2"])
        let chefs = try await models.fetch(\Recipe.chef, of: recipes)
        #expect(models.storeReads == before + 2)
        #expect(chefs.count == 50)
        #expect(try await models.fetch(Chef.self, id: "chef").recipes.ids.count == 50)
    }

    @Test func generatedTypesWorkWithTheStoresTypedAPIAndQueryBuilder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let models = try await folder.models("r")
        let store = models.store
        let added = try await store.add([Recipe(id: "soup", name: "Soup", servings: 3), Recipe(id: "stew", name: "Stew")])
        #expect(added[0].revId?.hasPrefix("1-") == true)
        let raw = try await store.document(id: "soup")
        #expect(raw["CDTISEntityName"] == "Recipe" && raw["entityType"] == nil && raw["entitySchemaVersion"] == nil)
        #expect(try await store.get(Recipe.self).map(\.id) == ["soup", "stew"])  // the kind index knows CDTIS documents
        let found = try await store.collection(Recipe.self).where(field: "name", value: "Stew").get(Recipe.self)
        #expect(found.map(\.id) == ["stew"])
        #expect(try await models.fetchAll(Recipe.self).count == 2)
    }
}
