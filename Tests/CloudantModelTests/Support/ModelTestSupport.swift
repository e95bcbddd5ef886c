import CloudantModel
import CloudantTestSupport
import Foundation

extension TemporaryFolder {
    var directory: StoreDirectory { StoreDirectory(path: url.path) }

    /// A store registered with the test models' plugins.
    func store(_ name: String) throws -> DocumentStore {
        try DocumentStore.open(
            name: name, in: directory,
            options: StoreOptions(registry: try EntityRegistry(plugins: [RecipesModel.Plugin(), SamplesModel.Plugin()])))
    }

    func models(_ name: String, model: ObjectModel = RecipesModel.objectModel) async throws -> ModelStore {
        try await ModelStore.open(try store(name), model: model)
    }
}

enum Fixtures {
    static func url(_ path: String) throws -> URL {
        guard let base = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw CloudantError(.notFound, "The Fixtures folder is not in the test bundle.")
        }
        return base.appendingPathComponent(path)
    }

    static func document(_ path: String) throws -> JSONObject {
        guard case .object(let object) = try JSONValue(parsing: try Data(contentsOf: try url(path))) else {
            throw CloudantError(.invalidInput, "\(path) is not a JSON object")
        }
        return object
    }

    static func names(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: try url(folder).path).filter { $0.hasSuffix(".json") }.sorted()
    }
}
