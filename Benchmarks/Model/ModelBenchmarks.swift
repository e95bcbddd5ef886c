import CloudantModel
import Foundation

/// Inserting and fetching model objects with one to-many relationship (Dish → Parts,
/// saved with inverse maintenance, fetched along the relationship) is within 1.5× of the same work through
/// plain entity documents (`store.add`, `store.get`), measured in the same run.
enum ModelBenchmarks {
    /// The plain-entity baseline: the same members, the relationship as id lists.
    struct PlainDish: CloudantEntity, Hashable {
        var id: String
        var name: String
        var servings: Int16
        var rating: Double
        var partIDs: [String]
        var revId: String?
    }

    struct PlainPart: CloudantEntity, Hashable {
        var id: String
        var name: String
        var grams: Int32
        var dishID: String
        var revId: String?
    }

    struct PlainPlugin: EntityPlugin {
        let name = "benchmark.plain"
        func register(in registry: inout EntityRegistry) throws {
            try registry.register(EntityKind(PlainDish.self))
            try registry.register(EntityKind(PlainPart.self))
        }
    }

    /// `objects` objects: one dish per 10, each with 9 parts; saved 1000 objects per transaction.
    static func run(objects: Int, repetitions: Int) async throws {
        let dishes = max(1, objects / 10)
        let perDish = 9
        let batchDishes = 100
        let scratch = ScratchFolder("model")
        defer { scratch.remove() }
        func fresh() -> StoreDirectory { StoreDirectory(path: scratch.fresh().path) }
        var store: DocumentStore?
        var models: ModelStore?
        var fetched = 0
        let registry = try EntityRegistry(plugins: [PlainPlugin(), KitchenModel.Plugin()])
        try await BenchmarkGroup(
            name: "Models: insert + fetch \(dishes * (perDish + 1)) objects (\(dishes) dishes × \(perDish) parts, to-many + inverse)",
            unit: "objects", operations: dishes * (perDish + 1),
            baseline: .init(
                name: "plain entities: store.add + store.get",
                setUp: { store = try DocumentStore.open(name: "plain", in: fresh(), options: StoreOptions(registry: registry)) },
                body: {
                    guard let store else { return }
                    for start in stride(from: 0, to: dishes, by: batchDishes) {
                        var dishBatch: [PlainDish] = []
                        var partBatch: [PlainPart] = []
                        for dish in start..<min(start + batchDishes, dishes) {
                            let parts = (0..<perDish).map { "d\(dish)-p\($0)" }
                            dishBatch.append(PlainDish(id: "d\(dish)", name: "Dish \(dish)", servings: 4, rating: Double(dish) / 7, partIDs: parts))
                            partBatch += parts.enumerated().map { PlainPart(id: $1, name: "Part \($0)", grams: Int32($0 * 10), dishID: "d\(dish)") }
                        }
                        try await store.add(dishBatch)
                        try await store.add(partBatch)
                    }
                    let all = try await store.get(PlainDish.self)
                    let parts = try await store.get(PlainPart.self, ids: all.flatMap(\.partIDs))
                    fetched = all.count + parts.count
                },
                tearDown: { store = nil }),
            candidates: [
                .init(
                    name: "ModelStore.save + fetchAll + fetch(\\.parts)",
                    setUp: {
                        let opened = try DocumentStore.open(name: "model", in: fresh(), options: StoreOptions(registry: registry))
                        models = try await ModelStore.open(opened, model: KitchenModel.objectModel)
                    },
                    body: {
                        guard let models else { return }
                        for start in stride(from: 0, to: dishes, by: batchDishes) {
                            var changes = ModelChanges()
                            for dish in start..<min(start + batchDishes, dishes) {
                                let owner = Dish(id: "d\(dish)", name: "Dish \(dish)", servings: 4, rating: Double(dish) / 7)
                                try changes.save(owner)
                                for part in 0..<perDish {
                                    try changes.save(Part(id: "d\(dish)-p\(part)", name: "Part \(part)", grams: Int32(part * 10), dish: ToOne(owner)))
                                }
                            }
                            try await models.save(changes)
                        }
                        let all = try await models.fetchAll(Dish.self)
                        let parts = try await models.fetch(\Dish.parts, of: all)
                        fetched = all.count + parts.values.map(\.count).reduce(0, +)
                    },
                    tearDown: { models = nil }),
            ],
            target: 1.5
        ).run(repetitions: repetitions)
        if fetched != dishes * (perDish + 1) { print("  warning: fetched \(fetched) objects") }
    }
}
