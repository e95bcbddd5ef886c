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

    @Test func mergingPropertiesPreferringRemoteKeepsThePulledValueWhereBothChanged() async throws {
        let scenario = try await Scenario.make("store-trump")
        let (recipe, _) = try await scenario.resolveOnA(.mergeProperties(preferring: .remote))
        await scenario.stop()
        #expect(recipe.name == "Leek soup" && recipe.servings == 8 && recipe.rating == 5)
        #expect(recipe.objectVersion == 4)  // one past B's 3
    }

    @Test func mergingPropertiesPreferringLocalKeepsThisStoresValueWhereBothChanged() async throws {
        let scenario = try await Scenario.make("object-trump")
        let (recipe, _) = try await scenario.resolveOnA(.mergeProperties(preferring: .local))
        await scenario.stop()
        #expect(recipe.name == "Leek soup" && recipe.servings == 4 && recipe.rating == 5)
    }

    @Test func newestTakesTheSideWithMoreSavesPropertyByProperty() async throws {
        let scenario = try await Scenario.make("newest")
        let (recipe, _) = try await scenario.resolveOnA(.newest)
        await scenario.stop()
        #expect(recipe.name == "Leek soup" && recipe.servings == 8 && recipe.rating == 5)
    }

    @Test func keepLocalKeepsThisStoresObjectWhole() async throws {
        let scenario = try await Scenario.make("overwrite")
        let (recipe, _) = try await scenario.resolveOnA(.keepLocal)
        await scenario.stop()
        #expect(recipe.name == "Soup" && recipe.servings == 4 && recipe.rating == 5)
    }

    @Test func keepRemoteTakesThePulledObjectWhole() async throws {
        let scenario = try await Scenario.make("rollback")
        let (recipe, _) = try await scenario.resolveOnA(.keepRemote)
        await scenario.stop()
        #expect(recipe.name == "Leek soup" && recipe.servings == 8 && recipe.rating == 3)
    }

    @Test func aClosureDecidesPropertyByProperty() async throws {
        let scenario = try await Scenario.make("closure")
        let (recipe, _) = try await scenario.resolveOnA(
            .custom { conflict in conflict.merged { $0.name == "servings" ? .local : .remote } })
        await scenario.stop()
        #expect(recipe.name == "Leek soup" && recipe.servings == 4 && recipe.rating == 3)
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
