import CloudantCareModule
import Foundation
import Testing

/// The peer messages use CareKit's watch-peer keys and survive a JSON round trip.
@Suite("Care peer messages")
struct CarePeerMessageTests {
    @Test func messagesUseCareKitsKeysAndRoundTrip() throws {
        let vector = KnowledgeVector([testUUID(1): 3])
        let plan = CarePlan(id: "p", title: "P", patientUUID: nil, uuid: testUUID(2), effectiveDate: Date(timeIntervalSinceReferenceDate: 0))
        let payload = CarePeerPayload(
            knowledgeVector: vector, revisions: [RevisionRecord(entities: [.carePlan(plan)], knowledgeVector: vector)])
        let messages: [(CarePeerMessage, String)] = [
            (.revisionRequest(vector), "OCKPeerRevisionRequest"), (.revisionReply(payload), "OCKPeerRevisionReply"),
            (.revisionPush(payload), "OCKPeerRevisionPush"),
        ]
        for (message, key) in messages {
            let data = try JSONEncoder().encode(message)
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(Array(object.keys) == [key])
            #expect(try JSONDecoder().decode(CarePeerMessage.self, from: data) == message)
        }
        let entity = try JSONSerialization.jsonObject(with: JSONEncoder().encode(CareEntity.carePlan(plan))) as? [String: Any]
        #expect(entity?["type"] as? String == "carePlan")
    }

    @Test func mergeVersionUUIDsDependOnlyOnWhatIsMerged() {
        let a = MergeVersionUUID.make(chosen: testUUID(1), parents: [testUUID(1), testUUID(2)])
        let b = MergeVersionUUID.make(chosen: testUUID(1), parents: [testUUID(2), testUUID(1)])
        let c = MergeVersionUUID.make(chosen: testUUID(2), parents: [testUUID(1), testUUID(2)])
        #expect(a == b)
        #expect(a != c)
    }
}
