import CloudantCore
import Foundation

extension LiveServer {
    /// A set-up step whose request was not answered as it should have been.
    public struct SetUpRefused: Error, CustomStringConvertible {
        /// The request and the status it got.
        public let description: String
    }

    /// Users `names` (each with the password `pw-NAME` and the role `staff`) and the database `database`, whose
    /// members are the `staff` role and whose documents are each seen only by those on its access list
    /// (`document_access`): the ward the per-document access tests start from.
    /// - Throws: ``SetUpRefused`` when the server does not create a user, the database or its security object.
    public func makeWardWithDocumentAccess(_ database: String, users names: [String] = ["alice", "bob"]) async throws {
        func require(_ answer: HTTPAnswer, _ status: Int, _ request: String) throws {
            guard answer.status == status else { throw SetUpRefused(description: "\(request) answered \(answer.status)") }
        }
        for name in names {
            let user: JSONValue = ["name": .string(name), "password": .string("pw-\(name)"), "roles": ["staff"], "type": "user"]
            try require(try await admin.put("/_users/org.couchdb.user:\(name)", user), 201, "PUT user \(name)")
        }
        try require(try await admin.send("PUT", "/\(database)"), 201, "PUT /\(database)")
        let security: JSONValue = ["members": ["roles": ["staff"]], "document_access": true]
        try require(try await admin.put("/\(database)/_security", security), 200, "PUT /\(database)/_security")
    }
}
