/// One message of the peer sync protocol, CareKit's watch-peer messages over any transport (a socket, a
/// watch session, a test closure).
///
/// Encoded under CareKit's keys: `{"OCKPeerRevisionRequest": vector}`,
/// `{"OCKPeerRevisionReply": payload}`, `{"OCKPeerRevisionPush": payload}`.
public enum CarePeerMessage: Sendable, Hashable, Codable {
    /// "Send me what I have not seen": the requester's knowledge.
    case revisionRequest(KnowledgeVector)
    /// The answer to a request: the revisions the requester lacks and the responder's knowledge.
    case revisionReply(CarePeerPayload)
    /// The requester's own changes, sent after it merged the reply.
    case revisionPush(CarePeerPayload)

    private enum CodingKeys: String, CodingKey {
        case revisionRequest = "OCKPeerRevisionRequest"
        case revisionReply = "OCKPeerRevisionReply"
        case revisionPush = "OCKPeerRevisionPush"
    }

    /// Reads a message with exactly one of the three keys.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let vector = try container.decodeIfPresent(KnowledgeVector.self, forKey: .revisionRequest) {
            self = .revisionRequest(vector)
        } else if let payload = try container.decodeIfPresent(CarePeerPayload.self, forKey: .revisionReply) {
            self = .revisionReply(payload)
        } else if let payload = try container.decodeIfPresent(CarePeerPayload.self, forKey: .revisionPush) {
            self = .revisionPush(payload)
        } else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "Expected a peer revision request, reply or push."))
        }
    }

    /// Writes the message under its key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .revisionRequest(let vector): try container.encode(vector, forKey: .revisionRequest)
        case .revisionReply(let payload): try container.encode(payload, forKey: .revisionReply)
        case .revisionPush(let payload): try container.encode(payload, forKey: .revisionPush)
        }
    }
}

/// What a reply or push carries.
public struct CarePeerPayload: Sendable, Hashable, Codable {
    /// The sender's knowledge.
    public var knowledgeVector: KnowledgeVector
    /// The revisions the receiver lacks.
    public var revisions: [RevisionRecord]

    /// Creates a payload.
    public init(knowledgeVector: KnowledgeVector, revisions: [RevisionRecord]) {
        self.knowledgeVector = knowledgeVector
        self.revisions = revisions
    }
}
