import CloudantCareModule
import Foundation
import Testing

/// CareKit's knowledge vectors, with the partial order explicit; merge is a join (law tests).
@Suite("Knowledge vectors")
struct KnowledgeVectorTests {
    private let a = testUUID(1), b = testUUID(2), c = testUUID(3)

    /// Deterministic vectors over three processes, zeros included.
    private var samples: [KnowledgeVector] {
        var result: [KnowledgeVector] = []
        for x in 0...2 {
            for y in 0...2 {
                for z in [0, 3] { result.append(KnowledgeVector([a: x, b: y, c: z])) }
            }
        }
        return result
    }

    @Test func mergeIsIdempotentCommutativeAndAssociative() {
        for x in samples {
            #expect(x.merged(with: x) == x)
            for y in samples {
                #expect(x.merged(with: y) == y.merged(with: x))
                for z in samples.prefix(6) {
                    #expect(x.merged(with: y).merged(with: z) == x.merged(with: y.merged(with: z)))
                }
            }
        }
    }

    @Test func happenedBeforeConcurrentAndDominatesFollowTheSpec() {
        let one = KnowledgeVector([a: 1])
        let two = KnowledgeVector([a: 2, b: 1])
        let other = KnowledgeVector([b: 3])
        #expect(one.happened(before: two))
        #expect(!two.happened(before: one))
        #expect(two.dominates(one) && !one.dominates(two))
        #expect(one.isConcurrent(with: other))
        #expect(!one.isConcurrent(with: one))
        #expect(!one.happened(before: one))
    }

    @Test func aZeroEntryEqualsAMissingOne() {
        #expect(KnowledgeVector([a: 0]) == KnowledgeVector())
        #expect(!KnowledgeVector([a: 0]).isConcurrent(with: KnowledgeVector()))
    }

    @Test func aStampIsNewsWhenAnyProcessIsAheadEvenOneTheReceiverLacks() {
        // CareKit's own test missed {a:3, b:1} against {a:5}.
        #expect(KnowledgeVector([a: 3, b: 1]).hasChanges(since: KnowledgeVector([a: 5])))
        #expect(!KnowledgeVector([a: 3]).hasChanges(since: KnowledgeVector([a: 5])))
    }

    @Test func incrementAdvancesOneProcess() {
        var vector = KnowledgeVector([a: 1])
        vector.increment(b)
        vector.increment(a)
        #expect(vector == KnowledgeVector([a: 2, b: 1]))
    }

    @Test func itEncodesAsCareKitsProcessArray() throws {
        let data = try JSONEncoder().encode(KnowledgeVector([a: 2]))
        let text = String(decoding: data, as: UTF8.self)
        #expect(text == #"{"processes":[{"clock":2,"id":"00000000-0000-4000-8000-000000000001"}]}"#
            || text == #"{"processes":[{"id":"00000000-0000-4000-8000-000000000001","clock":2}]}"#)
        #expect(try JSONDecoder().decode(KnowledgeVector.self, from: data) == KnowledgeVector([a: 2]))
    }
}
