import CloudantModel
import Foundation

// The object-model consumer: Recipes.cloudantmodel.json is this target's only description of its data;
// the CloudantModelPlugin build plugin generates Recipe, Ingredient, Chef and RecipesModel from it.
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("model-recipes-\(getpid())")
defer { try? FileManager.default.removeItem(at: folder) }
let store = try DocumentStore.open(
    name: "recipes", in: StoreDirectory(path: folder.path),
    options: StoreOptions(registry: try EntityRegistry(plugins: [RecipesModel.Plugin()])))
let models = try await ModelStore.open(store, model: RecipesModel.objectModel)

let chef = Chef(name: "Ada")
let soup = Recipe(name: "Leek soup", rating: 4.5, chef: ToOne(chef))
let leek = Ingredient(name: "Leek", grams: 300, recipe: ToOne(soup))
let potato = Ingredient(name: "Potato", grams: 200, recipe: ToOne(soup))
try await models.save(ModelChanges().saving(chef).saving(soup).saving(leek).saving(potato))

let stored = try await models.fetch(Recipe.self, id: soup.id)
let ingredients = try await models.fetch(\Recipe.ingredients, of: [stored])[stored.id] ?? []
let byQuery = try await store.collection(Recipe.self).where(field: "name", value: "Leek soup").get(Recipe.self)
try await models.delete([stored])  // cascade: the ingredients go too
let left = try await models.fetchAll(Ingredient.self).count
print("CloudantModel: \(stored.name) by \(try await models.fetch(Chef.self, id: chef.id).name): "
    + "\(ingredients.map(\.name).sorted().joined(separator: ", ")); query \(byQuery.count); after cascade \(left)")
