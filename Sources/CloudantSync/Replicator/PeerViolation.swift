/// How a peer's answer broke the rules a replication holds every answer to: the `underlying` error of a
/// `CloudantError` with code `peerViolation` (read it as `CloudantError.peerViolation`).
///
/// A peer is not trusted to be well-behaved: a proxy may answer with an error page, a broken server with an
/// endless or truncated body, a hostile one with documents nobody asked for. Each answer is read with bounds
/// (``PeerLimits``), and one that breaks them ends the request with the violation rather than being taken for
/// an empty success. A document the source sends in a form that cannot be written is not a violation of the
/// whole answer: it is reported as that document's failure (``WriteFailure``) and the others move on.
public enum PeerViolation: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body grew past `limit` bytes (``PeerLimits/maximumBodySize``, or an attachment's stated length).
    case bodyTooLarge(limit: Int)
    /// Fewer than `bytes` bytes arrived in a `seconds`-long window (``PeerLimits/minimumTransferRate``).
    case tooSlow(bytes: Int, seconds: Int)
    /// The answer was not complete `seconds` after the request was sent (``PeerLimits/requestDeadline``).
    case deadlineExceeded(seconds: Int)
    /// The answer says it is not JSON (a proxy's HTML error page, for example).
    case unexpectedMediaType(String)
    /// The body is not JSON, or nests deeper than the parser allows; `reason` says where.
    case notJSON(reason: String)
    /// The JSON is not what the request answers (no `results` array, an array where an object belongs).
    case unexpectedShape(String)
    /// The answer carries a document nobody asked for.
    case unrequestedDocument(id: String, rev: String)
    /// The answer leaves out a revision that was asked for, saying neither the document nor that it is missing.
    case missingRevision(id: String, rev: String)
    /// An attachment's bytes are not as long as its stub says.
    case attachmentLength(documentID: String, name: String, expected: Int, received: Int)

    /// What went wrong, for a person; never a document's content.
    public var description: String {
        switch self {
        case .bodyTooLarge(let limit): "the answer is larger than \(limit) bytes"
        case .tooSlow(let bytes, let seconds): "fewer than \(bytes) bytes arrived in \(seconds) s"
        case .deadlineExceeded(let seconds): "the answer was not complete after \(seconds) s"
        case .unexpectedMediaType(let type): "the answer is \(type), not JSON"
        case .notJSON(let reason): "the answer is not valid JSON (\(reason))"
        case .unexpectedShape(let what): "the answer is not what was asked for: \(what)"
        case .unrequestedDocument(let id, let rev): "the answer carries \(id) \(rev), which was not asked for"
        case .missingRevision(let id, let rev): "the answer leaves out \(id) \(rev), which was asked for"
        case .attachmentLength(let id, let name, let expected, let received):
            "attachment \(name) of \(id) has \(received) bytes where its stub says \(expected)"
        }
    }

    /// Whether asking again may get a good answer: a slow or cut-short transfer, or an answer a proxy made up.
    var mayPass: Bool {
        switch self {
        case .tooSlow, .deadlineExceeded, .unexpectedMediaType, .notJSON: true
        case .bodyTooLarge, .unexpectedShape, .unrequestedDocument, .missingRevision, .attachmentLength: false
        }
    }

    /// Whether the body grew past its limit.
    var isBodyTooLarge: Bool {
        if case .bodyTooLarge = self { true } else { false }
    }
}
