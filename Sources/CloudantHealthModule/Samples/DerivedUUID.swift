internal import CloudantCore

/// A uuid derived from content rather than drawn at random, so every import (and every device) that sees
/// the same thing names it the same way: the revision hash of `body`, uppercase, in 8-4-4-4-12 groups (the
/// shape of the content ids the export importer gives records).
enum DerivedUUID {
    static func of(_ body: JSONObject) -> String {
        let digest = RevisionHash.mint(body: body, parentRevision: nil, deleted: false, attachments: [])
        let hex = Array(digest.uppercased())
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }.joined(separator: "-")
    }
}
