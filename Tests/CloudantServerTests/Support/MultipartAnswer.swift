import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Foundation

extension HTTPAnswer {
    /// The parts of a multipart answer, read with the server's own parser (which has its own tests).
    func parts() throws -> [MultipartPart] {
        try MultipartParser.parts(of: Array(body), boundary: MultipartParser.boundary(in: header("Content-Type")))
    }
}

extension MultipartPart {
    /// The parts of a nested `multipart/related` part.
    func parts() throws -> [MultipartPart] {
        try MultipartParser.parts(of: body, boundary: MultipartParser.boundary(in: header("Content-Type")))
    }

    /// The body as JSON (`.null` when it is not JSON).
    var json: JSONValue { (try? JSONValue(parsing: body)) ?? .null }

    /// The essence of the part's content type (`multipart/related`), lowercased.
    var essence: String? { contentType?.essence }
}
