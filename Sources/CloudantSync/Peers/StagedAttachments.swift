internal import CloudantCore
internal import Foundation
internal import Synchronization

/// The attachments a ``LocalPeer`` received ahead of the writes that carry them, by token: a received
/// attachment's `_attachments` member is its stub metadata plus `"staged": "<token>"`, which the write
/// turns back into the staged file.
final class StagedAttachments: Sendable {
    private let entries = Mutex<[String: StagedAttachment]>([:])

    /// The member that stands for `staged` in a document until it is written.
    func member(for staged: StagedAttachment) -> JSONValue {
        let token = UUID().uuidString
        entries.withLock { $0[token] = staged }
        var object: JSONObject = [
            "content_type": .string(staged.info.contentType), "revpos": .number(JSONNumber(staged.info.revpos)),
            "digest": .string(staged.info.digest), "length": .number(JSONNumber(staged.info.length)),
            "staged": .string(token),
        ]
        if staged.info.encoding != .identity { object["encoding"] = .string(staged.info.encoding.rawValue) }
        return .object(object)
    }

    /// Whether `document` has a member standing for a staged attachment.
    static func refersToStaged(_ document: JSONObject) -> Bool {
        document["_attachments"]?.objectValue?.members.contains { $0.1["staged"]?.stringValue != nil } == true
    }

    /// The documents parsed, their staged members replaced by the staged files (taken out of this
    /// registry); and those files, for the caller to discard whatever the write did not take.
    /// - Throws: `CloudantError` `.invalidInput` for a token this registry does not hold, or a
    ///   document `IncomingDocument` refuses.
    func resolve(_ documents: [JSONObject]) throws -> ([IncomingDocument], [StagedAttachment]) {
        var all: [StagedAttachment] = []
        let incoming = try documents.map { document -> IncomingDocument in
            var plain = document
            var staged: [String: StagedAttachment] = [:]
            let writtenOrder = document["_attachments"]?.objectValue?.keys ?? []
            if case .object(var attachments)? = document["_attachments"] {
                for (name, member) in attachments.members {
                    guard let token = member["staged"]?.stringValue else { continue }
                    guard let attachment = entries.withLock({ $0.removeValue(forKey: token) }) else {
                        throw CloudantError(.invalidInput, "No staged attachment \(token).", context: .init(field: "_attachments.\(name)"))
                    }
                    staged[name] = attachment
                    attachments[name] = nil
                }
                plain["_attachments"] = .object(attachments)
            }
            all += staged.values
            var parsed = try IncomingDocument(plain)
            var attachments = parsed.attachments ?? [:]
            for (name, attachment) in staged { attachments[name] = .staged(attachment) }
            parsed.attachments = attachments
            parsed.attachmentOrder = writtenOrder
            return parsed
        }
        return (incoming, all)
    }
}
