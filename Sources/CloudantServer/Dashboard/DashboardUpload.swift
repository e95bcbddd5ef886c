internal import CloudantCore
internal import Foundation

/// A `multipart/form-data` post of the dashboard (an attachment upload): its text fields and its file.
struct DashboardUpload {
    /// The uploaded file: its name as the browser sent it, its type and bytes.
    struct File {
        var name: String
        var contentType: String
        var bytes: [UInt8]
    }

    var form: DashboardForm
    var file: File?

    /// - Throws: ``HTTPFailure`` `400` when the body is not `multipart/form-data` or is malformed.
    init(_ request: CouchRequest) throws {
        let contentType = request.header(.contentType)
        guard contentType?.lowercased().hasPrefix("multipart/form-data") == true else {
            throw HTTPFailure.badRequest("An upload is posted as multipart/form-data.")
        }
        let parts: [MultipartPart]
        do {
            parts = try MultipartParser.parts(of: request.body, boundary: try MultipartParser.boundary(in: contentType))
        } catch {
            throw HTTPFailure.badRequest("The upload is not well-formed multipart/form-data.")
        }
        var fields: [(String, String)] = []
        for part in parts {
            let disposition = Self.parameters(part.header("Content-Disposition") ?? "")
            guard let name = disposition["name"] else { continue }
            if let filename = disposition["filename"] {
                file = File(
                    name: filename, contentType: part.header("Content-Type") ?? "application/octet-stream", bytes: part.body)
            } else {
                fields.append((name, String(decoding: part.body, as: UTF8.self)))
            }
        }
        form = DashboardForm(fields: fields)
    }

    /// `name="x"; filename="y"` of a `Content-Disposition` (quoted values; browsers send `"` as `%22`).
    static func parameters(_ header: String) -> [String: String] {
        var result: [String: String] = [:]
        for piece in header.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            result[pair[0].trimmingCharacters(in: .whitespaces).lowercased()] = value.replacingOccurrences(of: "%22", with: "\"")
        }
        return result
    }
}
