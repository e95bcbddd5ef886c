import CloudantModel
import CloudantTestSupport
import Foundation
import Testing

/// Two model stores and our server on 127.0.0.1: a conflict made on both stores, pulled into one, resolved
/// there under each policy, converges on both after the next sync.
@Suite("Merge conflicts after a pull", .serialized)
struct ModelConflictTests {
    /// Both devices start from the same recipe; A changes servings and rating, B changes servings and name.
    struct Scenario {
        let server: LiveServer
        let folder: TemporaryFolder
        let a: ModelStore
        let b: ModelStore
        let remote: HTTPPeer

        static func make(_ name: String) async throws -> Scenario {
            let server = try await LiveServer.start()
            let folder = try TemporaryFolder()
            let a = try await folder.models("device-a")
            let b = try await folder.models("device-b")
            let remote = try await server.database(name)
            try await a.save([Recipe(id: "soup", name: "Soup", servings: 2, rating: 3)])
            try await a.replicatorThatPushes(to: remote).run()
            try await b.replicatorThatPulls(from: remote).run()

            var mine = try await a.fetch(Recipe.self, id: "soup")
            mine.servings = 4
            mine.rating = 5
            try await a.save([mine])
            var theirs = try await b.fetch(Recipe.self, id: "soup")
            theirs.servings = 6
            theirs.name = "Leek soup"
            theirs = try await b.save([theirs])[0]
            theirs.servings = 8  // B saves twice: its CDTISObjectVersion is higher
            try await b.save([theirs])

            try await a.replicatorThatPushes(to: remote).run()
            try await b.replicatorThatPushes(to: remote).run()
            return Scenario(server: server, folder: folder, a: a, b: b, remote: remote)
        }

        /// A pulls and resolves with `policy`, pushes; B pulls. Returns both stores' recipe.
        func resolveOnA(_ policy: ModelConflictPolicy) async throws -> (Recipe, Recipe) {
            let pull = a.replicatorThatPulls(from: remote)
            try await pull.run()
            let conflicts = try await pull.processConflicts()
            #expect(conflicts.count == 1)
            let conflict = try #require(conflicts.first)
            #expect(conflict.objectID == "soup" && conflict.entity.name == "Recipe")
            #expect(try conflict.local.decode(as: Recipe.self).rating == 5)  // A's side is local
            #expect(try conflict.remote.decode(as: Recipe.self).name == "Leek soup")  // B's arrived
            #expect(try conflict.ancestor?.decode(as: Recipe.self).servings == 2)
            #expect(conflict.changedProperties(on: .local) == ["servings", "rating"])
            #expect(conflict.changedProperties(on: .remote) == ["name", "servings"])
            try await a.resolve(conflicts, policy: policy)
            try await a.replicatorThatPushes(to: remote).run()
            let pullB = b.replicatorThatPulls(from: remote)
            try await pullB.run()
            #expect(try await pullB.processConflicts().isEmpty)
            #expect(try await a.store.conflictedDocumentIDs().isEmpty)
            #expect(try await b.store.conflictedDocumentIDs().isEmpty)
            let onA = try await a.fetch(Recipe.self, id: "soup")
            let onB = try await b.fetch(Recipe.self, id: "soup")
            #expect(onA == onB)
            return (onA, onB)
        }

        func stop() async {
            await server.stop()
            folder.remove()
        }
    }

    /// A policy, the remote database its scenario runs in, and the recipe both stores hold afterwards (its
    /// name, servings and rating; its object version where the case asserts it).
    struct PolicyCase: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var database: String
        var policy: ModelConflictPolicy
        var expected: Recipe
        var objectVersion: Int?

        static let all: [PolicyCase] = [
            .init(
                testDescription: "merging properties preferring remote keeps the pulled value where both changed",
                database: "store-trump", policy: .mergeProperties(preferring: .remote),
                expected: Recipe(id: "soup", name: "Leek soup", servings: 8, rating: 5), objectVersion: 4),  // one past B's 3
            .init(
                testDescription: "merging properties preferring local keeps this store's value where both changed",
                database: "object-trump", policy: .mergeProperties(preferring: .local),
                expected: Recipe(id: "soup", name: "Leek soup", servings: 4, rating: 5)),
            .init(
                testDescription: "newest takes the side with more saves, property by property",
                database: "newest", policy: .newest, expected: Recipe(id: "soup", name: "Leek soup", servings: 8, rating: 5)),
            .init(
                testDescription: "keep local keeps this store's object whole",
                database: "overwrite", policy: .keepLocal, expected: Recipe(id: "soup", name: "Soup", servings: 4, rating: 5)),
            .init(
                testDescription: "keep remote takes the pulled object whole",
                database: "rollback", policy: .keepRemote, expected: Recipe(id: "soup", name: "Leek soup", servings: 8, rating: 3)),
            .init(
                testDescription: "a closure decides property by property",
                database: "closure",
                policy: .custom { conflict in conflict.merged { $0.name == "servings" ? .local : .remote } },
                expected: Recipe(id: "soup", name: "Leek soup", servings: 4, rating: 3)),
        ]
    }

    @Test("Each policy resolves the conflict to its recipe on both stores", arguments: PolicyCase.all)
    func policyResolvesTheConflict(_ policyCase: PolicyCase) async throws {
        let scenario = try await Scenario.make(policyCase.database)
        let (recipe, _) = try await scenario.resolveOnA(policyCase.policy)
        await scenario.stop()
        let want = policyCase.expected
        #expect(recipe.name == want.name && recipe.servings == want.servings && recipe.rating == want.rating)
        if let version = policyCase.objectVersion { #expect(recipe.objectVersion == version) }
    }

    @Test func twoStoresResolvingOnTheirOwnWithNewestWriteTheSameRevision() async throws {
        let scenario = try await Scenario.make("both")
        defer { Task { await scenario.stop() } }
        let pullA = scenario.a.replicatorThatPulls(from: scenario.remote)
        let pullB = scenario.b.replicatorThatPulls(from: scenario.remote)
        try await pullA.run()
        try await pullB.run()
        let onA = try await scenario.a.resolve(try await pullA.processConflicts(), policy: .newest)
        let onB = try await scenario.b.resolve(try await pullB.processConflicts(), policy: .newest)
        #expect(onA.map(\.rev) == onB.map(\.rev))
        #expect(onA.first?.deletedLeaves == onB.first?.deletedLeaves)
        try await scenario.a.replicatorThatPushes(to: scenario.remote).run()
        try await scenario.b.replicatorThatPushes(to: scenario.remote).run()
        try await scenario.a.replicatorThatPulls(from: scenario.remote).run()
        #expect(try await scenario.a.store.conflictedDocumentIDs().isEmpty)
        #expect(try await scenario.b.store.conflictedDocumentIDs().isEmpty)
        #expect(try await scenario.a.fetch(Recipe.self, id: "soup") == (try await scenario.b.fetch(Recipe.self, id: "soup")))
    }
}
