import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// `/_uuids` and the ids of documents written without one follow `uuids/algorithm`, as `couch_uuids` makes them.
@Suite("UUID algorithms")
struct UUIDAlgorithmTests {
    private static func uuids(_ client: TestClient, count: Int = 200) async throws -> [String] {
        try await client.get("/_uuids?count=\(count)").json["uuids"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    private static func setAlgorithm(_ client: TestClient, _ name: String) async throws {
        let answer = try await client.send("PUT", "/_node/_local/_config/uuids/algorithm", json: .string(name))
        #expect(answer.status == 200, "\(answer.text)")
    }

    @Test func sequentialIsTheDefaultAndItsIdsSortInTheOrderTheyWereMade() async throws {
        try await withLiveServer { server in
            let client = server.admin
            let made = try await Self.uuids(client, count: 1000)
            #expect(made.count == 1000 && Set(made).count == 1000)
            #expect(made.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
            // A fresh counter starts below 4,094 and each step adds at most 4,093: a thousand ids stay under one
            // prefix (its counter turns over past fff000), in ascending order.
            #expect(Set(made.map { $0.prefix(26) }).count == 1)
            #expect(made == made.sorted())
            // A document written without an id takes the next one.
            _ = try await client.send("PUT", "/db")
            let id = try #require(try await client.post("/db", ["a": 1]).json["id"]?.stringValue)
            let after = try await Self.uuids(client, count: 1)
            #expect(id.count == 32 && (id.prefix(26) != after[0].prefix(26) || id < after[0]))
        }
    }

    @Test func utcRandomAndUtcIDStartWithTheTimeAndNeverGoBack() async throws {
        try await withLiveServer { server in
            let client = server.admin
            let before = UInt64(Date().timeIntervalSince1970 * 1_000_000)
            try await Self.setAlgorithm(client, "utc_random")
            let random = try await Self.uuids(client)
            #expect(random.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
            let times = random.compactMap { UInt64($0.prefix(14), radix: 16) }
            #expect(times.count == random.count && times == times.sorted() && Set(times).count == times.count)
            #expect(times[0] >= before)

            _ = try await client.send("PUT", "/_node/_local/_config/uuids/utc_id_suffix", json: "-node1")
            try await Self.setAlgorithm(client, "utc_id")
            let ids = try await Self.uuids(client)
            #expect(ids.allSatisfy { $0.count == 14 + 6 && $0.hasSuffix("-node1") })
            let idTimes = ids.compactMap { UInt64($0.prefix(14), radix: 16) }
            #expect(idTimes == idTimes.sorted() && Set(idTimes).count == idTimes.count && idTimes[0] > times.last!)

            try await Self.setAlgorithm(client, "random")
            let plain = try await Self.uuids(client)
            #expect(plain.allSatisfy { $0.count == 32 } && Set(plain.map { $0.prefix(14) }).count > 1)
        }
    }

    @Test func anUnknownAlgorithmIsRefusedAndTheOldOneKept() async throws {
        try await withLiveServer { server in
            let client = server.admin
            let refused = try await client.send("PUT", "/_node/_local/_config/uuids/algorithm", json: "dice")
            #expect(refused.status == 400 && refused.json["error"] == "bad_request")
            #expect(try await Self.uuids(client, count: 1).first?.count == 32)
        }
    }
}
