import CloudantCareModule
import CloudantCore
import CloudantHealthModule
import CloudantServer
import CloudantStore
import Foundation
import Testing

/// The HTTP edge's one mapping: category → status and CouchDB error name, plus the few codes CouchDB names
/// more precisely within their category.
@Suite("CouchDB error bodies")
struct CouchErrorBodyTests {
    /// The README's table ("Errors"), category by category.
    static let documented: [ErrorCategory: (status: Int, error: String)] = [
        .invalidInput: (400, "bad_request"),
        .unauthorized: (401, "unauthorized"),
        .forbidden: (403, "forbidden"),
        .notFound: (404, "not_found"),
        .timedOut: (408, "timeout"),
        .conflict: (409, "conflict"),
        .preconditionFailed: (412, "precondition_failed"),
        .tooLarge: (413, "too_large"),
        .internal: (500, "internal_server_error"),
        .unsupported: (501, "not_implemented"),
        .unavailable: (503, "service_unavailable"),
    ]

    @Test(arguments: ErrorCategory.allCases)
    func everyCategoryMapsToItsDocumentedStatusAndName(category: ErrorCategory) throws {
        let expected = try #require(Self.documented[category], "\(category) is not in the documented table")
        #expect(category.httpStatus == expected.status)
        #expect(category.couchDBError == expected.error)
        // An error of a module's own code answers with its category's status and name.
        let code = CloudantError.Code("someModulesOwnCode", category: category)
        let body = CouchErrorBody(CloudantError(code, "why"))
        #expect(body.status == expected.status && body.error == expected.error && body.reason == "why")
    }

    @Test(arguments: [
        (CloudantError.Code.conflict, 409, "conflict"),
        (.notFound, 404, "not_found"),
        (.invalidInput, 400, "bad_request"),
        (.storeUnreadable, 500, "internal_server_error"),
        (.storeUnwritable, 500, "internal_server_error"),
        (.duplicatePlugin, 500, "internal_server_error"),
        (.timedOut, 408, "timeout"),
        (.unknownEntityType, 400, "bad_request"),
        (.missingStub, 412, "missing_stub"),
        (.documentValidation, 400, "doc_validation"),
        (.invalidDesignDocument, 400, "invalid_design_doc"),
        (.attachmentDigestMismatch, 400, "content_md5_mismatch"),
    ])
    func storeErrorsMapToCouchDBsStatusAndName(code: CloudantError.Code, status: Int, name: String) {
        let body = CouchErrorBody(CloudantError(code, "Document update conflict."))
        #expect(body.status == status)
        #expect(body.error == name)
        #expect(body.json == ["error": .string(name), "reason": "Document update conflict."])
    }

    @Test func anInvalidDocumentIDIsIllegalDocIDInTheInvalidInputStatus() {
        for code in [CloudantError.Code.invalidInput, .unknownEntityType] {
            let body = CouchErrorBody(CloudantError(code, "Only reserved document ids may start with underscore.", context: .init(field: "_id")))
            #expect(body.status == 400 && body.error == "illegal_docid", "\(code)")
        }
    }

    @Test func queryErrorsKeepCouchDBsNamesAndTheirCategorysStatus() {
        for kind in QueryErrorKind.allCases {
            let body = CouchErrorBody(kind.error("why", field: nil))
            #expect(body.error == kind.rawValue)
            #expect(body.status == (kind == .indexNotFound ? 404 : kind == .indexNotImplemented ? 501 : 400), "\(kind)")
        }
    }

    @Test func aConflictAlwaysCarriesCouchDBsExactReason() {
        let body = CouchErrorBody(CloudantError(.conflict, "Document update conflict. Read the document again."))
        #expect(body.reason == "Document update conflict.")
    }

    @Test func aCareErrorIsAnsweredWithItsCategoryNotA500() throws {
        // A schedule CareKit would loop on for ever, refused by the Care module itself.
        let utc = try #require(TimeZone(identifier: "UTC"))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        let element = ScheduleElement(
            start: Date(timeIntervalSince1970: 1_704_067_200), end: nil, interval: ScheduleInterval(days: 0), calendar: calendar)
        let error = #expect(throws: CloudantError.self) { try Schedule(composing: [element]).validate(in: utc) }
        let refused = try #require(error)
        #expect(refused.code == .invalidSchedule)
        let body = CouchErrorBody(refused)
        #expect(body.status == 400 && body.error == "bad_request")
        // The Care module's conflicts are conflicts over HTTP too.
        for code in [CloudantError.Code.duplicateVersion, .duplicateOutcome, .entityDeleted, .updateWouldHideOutcomes] {
            let conflict = CouchErrorBody(CloudantError(code, "Read the entity again."))
            #expect(conflict.status == 409 && conflict.error == "conflict", "\(code)")
            #expect(conflict.reason == "Read the entity again.", "\(code): only the core conflict has CouchDB's fixed reason")
        }
        #expect(CouchErrorBody(VersionChainError(id: "t", uuid: UUID(), problem: .cycle) as any Error).status == 400)
    }

    @Test func aHealthImportErrorIsAnsweredWithItsCategoryNotA500() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("errors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try DocumentStore.open(name: "health", fileURL: folder.appendingPathComponent("health.sqlite"))
        let bogus = folder.appendingPathComponent("export.zip")
        try Data("not a zip".utf8).write(to: bogus)
        let error = await #expect(throws: CloudantError.self) {
            try await AppleHealthImporter(store: store).importExport(at: bogus, workDirectory: folder)
        }
        let refused = try #require(error)
        #expect(refused.code == .invalidHealthExport)
        let body = CouchErrorBody(refused)
        #expect(body.status == 400 && body.error == "bad_request")
        #expect(body.error != "internal_server_error")
        let unit = #expect(throws: CloudantError.self) { try HealthUnit(parsing: "kg/") }
        #expect(unit.map { CouchErrorBody($0).status } == 400)
    }

    @Test func anErrorOfAnyOtherCategorisedTypeUsesItsCategoryAndAnUnknownOneIsA500() {
        struct Overloaded: CategorizedError, CustomStringConvertible {
            var category: ErrorCategory { .unavailable }
            var description: String { "The pool is full; retry in a second." }
        }
        struct Opaque: Error {}
        let overloaded = CouchErrorBody(Overloaded() as any Error)
        #expect(overloaded == CouchErrorBody(status: 503, error: "service_unavailable", reason: "The pool is full; retry in a second."))
        let opaque = CouchErrorBody(Opaque() as any Error)
        #expect(opaque.status == 500 && opaque.error == "unknown_error")
    }

    @Test func aBulkDocsRowNamesTheErrorAsTheServerDoes() {
        let refused = BulkDocsResult.failure(
            id: "a", error: CloudantError(.attachmentDigestMismatch, "The digest does not match.", context: .init(revision: "1-x")))
        #expect(refused.json == ["id": "a", "rev": "1-x", "error": "content_md5_mismatch", "reason": "The digest does not match."])
        let conflict = BulkDocsResult.failure(id: "b", error: CloudantError(.conflict, "stale", context: .init(revision: "1-y")))
        #expect(conflict.json == ["id": "b", "error": "conflict", "reason": "Document update conflict."])
    }
}
