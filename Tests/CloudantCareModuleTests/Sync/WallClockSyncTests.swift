import CloudantCareModule
import CloudantCore
import CloudantStore
import Foundation
import Testing

/// ParseCareKit's wall-clock mode beside knowledge vectors: the server stamps versions by
/// its clock as they arrive and the one it stamped last wins, with the trade-off shown, not just documented.
@Suite("Wall-clock care sync")
struct WallClockSyncTests {
    /// A server and two devices with clocks of their own, each device holding plan "p" (uuid 1), synced.
    private func setUp() async throws -> (server: CareFixture, phone: CareFixture, tablet: CareFixture) {
        let server = try CareFixture(name: "server", uuidBase: 9000)
        let phone = try CareFixture(name: "phone", uuidBase: 1000)
        let tablet = try CareFixture(name: "tablet", uuidBase: 5000)
        try await phone.care.add([phone.plan(id: "p", uuid: 1)])
        try await phone.care.synchronize(with: transport(to: server.care, .wallClock), mode: .wallClock)
        try await tablet.care.synchronize(with: transport(to: server.care, .wallClock), mode: .wallClock)
        return (server, phone, tablet)
    }

    private func transport(to peer: CareStore, _ mode: CareSyncMode) -> CarePeerTransport {
        { message in
            // Through JSON, as a real transport would carry it.
            let data = try JSONEncoder().encode(message)
            return try await peer.respond(to: try JSONDecoder().decode(CarePeerMessage.self, from: data), mode: mode)
        }
    }

    /// Edits plan "p" on `device` at `time` by its clock.
    @discardableResult
    private func edit(_ device: CareFixture, at time: Date, _ change: (inout CarePlan) -> Void) async throws -> CarePlan {
        device.clock.set(time)
        var plan = try await device.care.fetch(CarePlan.self, query: CareQuery(id: "p"))[0]
        change(&plan)
        return try await device.care.update([plan])[0]
    }

    private func tips(_ fixture: CareFixture) async throws -> [CarePlan] {
        try await fixture.care.history(CarePlan.self, ids: ["p"]).tips(id: "p")
    }

    @Test("the version the server stamped last wins, whatever the devices' clocks say, and every store converges on it")
    func theLaterServerTimeWins() async throws {
        let (server, phone, tablet) = try await setUp()
        let utc = server.utc
        // Offline edits: by the devices' clocks, the phone edited last.
        let fromPhone = try await edit(phone, at: try utc.date(2024, 1, 1, 10, 5)) { $0.title = "phone" }
        let fromTablet = try await edit(tablet, at: try utc.date(2024, 1, 1, 10, 0)) { $0.title = "tablet" }
        // The phone reaches the server first, the tablet a minute later by the server's clock.
        server.clock.set(try utc.date(2024, 1, 1, 11, 0))
        #expect(try await phone.care.synchronize(with: transport(to: server.care, .wallClock), mode: .wallClock).isEmpty)
        server.clock.set(try utc.date(2024, 1, 1, 11, 1))
        let merges = try await tablet.care.synchronize(with: transport(to: server.care, .wallClock), mode: .wallClock)
        try await phone.care.synchronize(with: transport(to: server.care, .wallClock), mode: .wallClock)

        #expect(try await server.care.serverTime(ofVersion: fromPhone.uuid) == utc.date(2024, 1, 1, 11, 0))
        #expect(try await server.care.serverTime(ofVersion: fromTablet.uuid) == utc.date(2024, 1, 1, 11, 1))
        #expect(merges.count == 1 && merges.first?.versioned.previousVersionUUIDs.count == 2)
        for side in [server, phone, tablet] {
            #expect(try await tips(side).map(\.title) == ["tablet"])
            #expect(try await side.care.conflicts(CarePlan.self).isEmpty)
            #expect(try await tips(side).map(\.uuid) == [merges[0].uuid])
        }
    }

    @Test("the trade-off: a concurrent edit to another field is lost whole, where knowledge vectors let the app merge it")
    func aConcurrentEditIsLost() async throws {
        // Wall clock: the phone changes the title, the tablet the group; the tablet syncs last and wins whole.
        let (server, phone, tablet) = try await setUp()
        let utc = server.utc
        let lostEdit = try await edit(phone, at: try utc.date(2024, 1, 1, 10)) { $0.title = "renamed on the phone" }
        try await edit(tablet, at: try utc.date(2024, 1, 1, 10)) { $0.versioned.groupIdentifier = "cardiology" }
        server.clock.set(try utc.date(2024, 1, 1, 11))
        try await phone.care.synchronize(with: transport(to: server.care, .wallClock), mode: .wallClock)
        server.clock.set(try utc.date(2024, 1, 1, 12))
        try await tablet.care.synchronize(with: transport(to: server.care, .wallClock), mode: .wallClock)
        try await phone.care.synchronize(with: transport(to: server.care, .wallClock), mode: .wallClock)
        let settled = try await tips(phone)
        #expect(settled.map(\.title) == ["P"] && settled.map(\.versioned.groupIdentifier) == ["cardiology"])
        // The phone's rename survives only as a superseded version in the history.
        #expect(try await phone.care.history(CarePlan.self, ids: ["p"]).version(uuid: lostEdit.uuid)?.title == "renamed on the phone")

        // Knowledge vectors, the same two edits: the concurrent versions reach the app's policy, which keeps both.
        let (phoneKV, tabletKV) = (try CareFixture(name: "phone-kv", uuidBase: 1000), try CareFixture(name: "tablet-kv", uuidBase: 5000))
        let merging = CareSyncMode.knowledgeVector(
            .custom { conflict in
                let plans = (conflict.local + conflict.remote).compactMap { $0.value(as: CarePlan.self) }
                guard var merged = plans.first(where: { $0.title != "P" }) else { return conflict.local[0] }
                merged.versioned.groupIdentifier = plans.compactMap(\.versioned.groupIdentifier).first
                return .carePlan(merged)
            })
        try await phoneKV.care.add([phoneKV.plan(id: "p", uuid: 1)])
        try await phoneKV.care.synchronize(with: transport(to: tabletKV.care, merging), mode: merging)
        try await edit(phoneKV, at: try utc.date(2024, 1, 1, 10)) { $0.title = "renamed on the phone" }
        try await edit(tabletKV, at: try utc.date(2024, 1, 1, 10)) { $0.versioned.groupIdentifier = "cardiology" }
        try await phoneKV.care.synchronize(with: transport(to: tabletKV.care, merging), mode: merging)
        let kept = try await tips(tabletKV)
        #expect(kept.map(\.title) == ["renamed on the phone"] && kept.map(\.versioned.groupIdentifier) == ["cardiology"])
    }

    @Test("the trade-off: a server clock stepped back lets the earlier arrival win")
    func aServerClockSteppedBackReordersArrivals() async throws {
        let (server, phone, tablet) = try await setUp()
        let utc = server.utc
        try await edit(phone, at: try utc.date(2024, 1, 1, 10)) { $0.title = "phone" }
        try await edit(tablet, at: try utc.date(2024, 1, 1, 10)) { $0.title = "tablet" }
        server.clock.set(try utc.date(2024, 1, 1, 11))
        try await phone.care.synchronize(with: transport(to: server.care, .wallClock), mode: .wallClock)
        // The tablet syncs later, but the server's clock was set back half an hour meanwhile.
        server.clock.set(try utc.date(2024, 1, 1, 10, 30))
        try await tablet.care.synchronize(with: transport(to: server.care, .wallClock), mode: .wallClock)
        #expect(try await tips(tablet).map(\.title) == ["phone"])
    }
}
