internal import CloudantCore
internal import Foundation

/// What an ``HTTPPeer`` checks in the answers it reads before the replicator sees them: the shape of each answer
/// (a violation of the whole answer), and each revision a source sends (a failure of that revision alone).
enum AnswerCheck {
    /// The problem with one change row's revisions, if it has one: too many leaves, or a revision id too long
    /// or not a revision (a generation above 2^53 − 1 included).
    static func problem(inChange revs: [String], limits: PeerLimits) -> String? {
        if revs.count > limits.maximumLeaves {
            return "The source lists \(revs.count) leaves for this document; at most \(limits.maximumLeaves) are read (PeerLimits.maximumLeaves)."
        }
        for rev in revs {
            if let problem = problem(inRevision: rev, limits: limits) { return problem }
        }
        return nil
    }

    /// The problem with one revision id, if it has one.
    static func problem(inRevision rev: String, limits: PeerLimits) -> String? {
        if rev.utf8.count > limits.maximumRevisionIDLength {
            return "A revision id is \(rev.utf8.count) bytes long; at most \(limits.maximumRevisionIDLength) are read (PeerLimits.maximumRevisionIDLength)."
        }
        do {
            let parsed = try RevisionID(parsing: rev)
            if parsed.generation < 1 { return "The revision \(rev) has generation 0, which only _local documents use." }
        } catch let error as CloudantError {
            return error.message
        } catch {
            return "\(error)"
        }
        return nil
    }

    /// The attachment members only the replicator itself sets on a document between its peers (a spooled
    /// file's path, a staged file's token, the mark of one moved on its own): a source that sends one is lying
    /// about where the bytes are, and could name a file of this machine.
    static let internalMembers = [MultipartUpload.fileMember, "staged", SeparateAttachments.marker]

    /// Why the revision `document` a source sent cannot be written, if it cannot: malformed (as the target would
    /// find it: ids, `_revisions`, attachments, base64), beyond the limits (history, nesting), inconsistent
    /// (`_revisions` not ending at `_rev`, inline data not as long as its `length` says), or carrying a member
    /// only the replicator sets. `error` is CouchDB's name for it.
    static func problem(inDocument document: JSONObject, limits: PeerLimits) -> (error: String, reason: String)? {
        guard let rev = document["_rev"]?.stringValue else { return ("bad_request", "The document has no _rev.") }
        if let problem = problem(inRevision: rev, limits: limits) { return ("bad_request", problem) }
        if let history = document["_revisions"]?["ids"]?.arrayValue {
            if history.count > limits.maximumHistory {
                return (
                    "bad_request",
                    "Its _revisions list \(history.count) revisions; at most \(limits.maximumHistory) are read (PeerLimits.maximumHistory)."
                )
            }
            if let long = history.first(where: { ($0.stringValue?.utf8.count ?? 0) > limits.maximumRevisionIDLength }) {
                return ("bad_request", "Its _revisions hold an id of \(long.stringValue?.utf8.count ?? 0) bytes.")
            }
            let start = document["_revisions"]?["start"]?.numberValue?.int64Value
            let head = "\(start.map(String.init) ?? "?")-\(history.first?.stringValue ?? "")"
            if head != rev, (try? RevisionID(parsing: head)) != (try? RevisionID(parsing: rev)) {
                return ("bad_request", "Its _revisions end at \(head), not at its _rev \(rev).")
            }
        }
        let depth = JSONValue.object(document).nestingDepth
        if depth > JSONValue.maximumNestingDepth {
            return ("bad_request", "It nests \(depth) levels deep; at most \(JSONValue.maximumNestingDepth) are read.")
        }
        if case .object(let attachments)? = document["_attachments"] {
            for (name, member) in attachments.members {
                if let marker = internalMembers.first(where: { member[$0] != nil }) {
                    return ("bad_request", "Its attachment \(name) carries \"\(marker)\", which only the replicator sets.")
                }
                if let data = member["data"]?.stringValue, let length = member["length"]?.numberValue?.int64Value,
                    let decoded = decodedLength(ofBase64: data), Int64(decoded) != length
                {
                    return ("too_large", "Its attachment \(name) has \(decoded) bytes of data where its length says \(length).")
                }
            }
        }
        do {
            _ = try IncomingDocument(document)
        } catch let error as CloudantError {
            return ("bad_request", error.message)
        } catch {
            return ("bad_request", "\(error)")
        }
        return nil
    }

    /// How many bytes `text` decodes to, from its length and padding alone (the document's parse decodes it and
    /// refuses it when it is not base64); nil when its length cannot be base64's.
    static func decodedLength(ofBase64 text: String) -> Int? {
        let utf8 = text.utf8
        guard utf8.count % 4 == 0 else { return nil }
        let padding = utf8.reversed().prefix(2).prefix { $0 == UInt8(ascii: "=") }.count
        return utf8.count / 4 * 3 - padding
    }
}
