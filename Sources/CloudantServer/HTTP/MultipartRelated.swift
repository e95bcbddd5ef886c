internal import Foundation
internal import CloudantCore

/// Reads a `multipart/related` document upload (spec D-41): a JSON part whose attachments say
/// `"follows": true`, then one part of raw bytes per such attachment, in the same order.
enum MultipartRelated {
    /// The document with each `follows` attachment turned into inline base64 `data`.
    /// - Throws: ``HTTPFailure`` `400 bad_request` for a malformed body.
    static func document(from body: [UInt8], contentType: String) throws -> JSONObject {
        guard let boundary = boundary(in: contentType) else {
            throw HTTPFailure.badRequest("multipart/related needs a boundary parameter")
        }
        let parts = split(body, boundary: Array("--\(boundary)".utf8))
        guard let first = parts.first, case .object(var document) = try? JSONValue(parsing: first) else {
            throw HTTPFailure.badRequest("The first part of a multipart/related body must be a JSON document")
        }
        var remaining = parts.dropFirst()
        guard case .object(var attachments) = document["_attachments"] ?? .object(JSONObject()) else {
            throw HTTPFailure.badRequest("_attachments must be a JSON object")
        }
        for name in attachments.keys {
            guard case .object(var attachment) = attachments[name], attachment["follows"] == true else { continue }
            guard let bytes = remaining.popFirst() else {
                throw HTTPFailure.badRequest("Attachment \(name) is marked follows but has no part")
            }
            for key in ["follows", "length", "digest", "encoding", "encoded_length"] {
                _ = attachment.removeValue(forKey: key)
            }
            attachment["data"] = .string(Base64.encode(bytes))
            attachments[name] = .object(attachment)
        }
        if !attachments.isEmpty { document["_attachments"] = .object(attachments) }
        return document
    }

    private static func boundary(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            return pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }

    /// The bodies of the parts (headers stripped), in order.
    private static func split(_ body: [UInt8], boundary: [UInt8]) -> [[UInt8]] {
        var parts: [[UInt8]] = []
        var positions: [Int] = []
        var index = 0
        while let found = find(boundary, in: body, from: index) {
            positions.append(found)
            index = found + boundary.count
        }
        for (start, end) in zip(positions, positions.dropFirst()) {
            var part = Array(body[(start + boundary.count)..<end])
            // Drop the line break after the boundary and the one before the next boundary.
            if part.starts(with: [13, 10]) { part.removeFirst(2) }
            if part.suffix(2) == [13, 10] { part.removeLast(2) }
            // Headers end at the first empty line; a part with no headers starts with one.
            if part.starts(with: [13, 10]) {
                part.removeFirst(2)
            } else if let headerEnd = find([13, 10, 13, 10], in: part, from: 0) {
                part.removeFirst(headerEnd + 4)
            }
            parts.append(part)
        }
        return parts
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0], haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
