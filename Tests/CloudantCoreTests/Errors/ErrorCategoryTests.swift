import CloudantCore
import Testing

/// The core keeps error categories, and every error reports its category through one protocol; one table
/// maps categories to HTTP statuses and back, for the server, the replicator and repositories alike.
@Suite("Error categories")
struct ErrorCategoryTests {
    @Test(arguments: [
        (CloudantError.Code.storeUnreadable, ErrorCategory.internal),
        (.storeUnwritable, .internal),
        (.storeUnwritable, .internal),
        (.storeUnwritable, .internal),
        (.peerProtocolError, .unavailable),
        (.invalidInput, .invalidInput),
        (.timedOut, .timedOut),
        (.conflict, .conflict),
        (.notFound, .notFound),
        (.notImplemented, .unsupported),
        (.duplicateEntityType, .internal),
        (.duplicateKindName, .internal),
        (.duplicatePlugin, .internal),
        (.unknownEntityType, .invalidInput),
        (.missingStub, .preconditionFailed),
        (.documentValidation, .invalidInput),
        (.invalidDesignDocument, .invalidInput),
        (.attachmentDigestMismatch, .invalidInput),
    ])
    func everyCoreCodeDeclaresItsCategory(code: CloudantError.Code, category: ErrorCategory) {
        #expect(code.category == category)
        #expect(CloudantError(code, "x").category == category)
    }

    @Test(arguments: ErrorCategory.allCases)
    func everyCategorysStatusReadsBackAsTheCategory(category: ErrorCategory) {
        #expect(ErrorCategory(httpStatus: category.httpStatus) == category)
    }

    @Test func aPeersOtherStatusesReadAsTheCategoryAClientActsOn() {
        #expect(ErrorCategory(httpStatus: 410) == .notFound)
        #expect(ErrorCategory(httpStatus: 504) == .timedOut)
        #expect(ErrorCategory(httpStatus: 429) == .unavailable && ErrorCategory(httpStatus: 502) == .unavailable)
        #expect(ErrorCategory(httpStatus: 418) == .invalidInput && ErrorCategory(httpStatus: 415) == .invalidInput)
        #expect(ErrorCategory(httpStatus: 599) == .internal && ErrorCategory(httpStatus: 302) == .internal)
    }

    @Test func aBareCouchDBErrorNameGetsTheStatusCouchDBAnswersItWith() {
        let table: [(String, Int?)] = [
            ("bad_request", 400), ("query_parse_error", 400), ("compilation_error", 400), ("doc_validation", 400),
            ("unauthorized", 401), ("forbidden", 403), ("not_found", 404), ("method_not_allowed", 405),
            ("not_acceptable", 406), ("conflict", 409), ("gone", 410), ("missing_stub", 412), ("file_exists", 412),
            ("too_large", 413), ("document_too_large", 413), ("bad_content_type", 415),
            ("internal_server_error", 500), ("not_implemented", 501), ("insufficient_storage", 507),
            ("render_error", nil), ("TypeError", nil),
        ]
        for (name, status) in table {
            #expect(CouchDBErrorName.httpStatus(of: name) == status, "\(name)")
        }
        // Design functions and bulk rows read the category from that status.
        #expect(DesignFunctionError(name: "conflict", reason: "edited meanwhile").category == .conflict)
        #expect(DesignFunctionError(name: "not_acceptable", reason: "no such format").category == .invalidInput)
        #expect(DesignFunctionError(name: "render_error", reason: "undefined").category == .internal)
        #expect(DesignFunctionError.timedOut.category == .timedOut)
    }

    @Test func anErrorsCategoryIsReadThroughTheOneProtocolWhateverItsType() {
        let errors: [(any Error, ErrorCategory)] = [
            (CloudantError(.conflict, "stale"), .conflict),
            (QueryErrorKind.indexNotFound, .notFound),
            (Tagged(category: .tooLarge), .tooLarge),
            (Untagged(), .internal),
        ]
        for (error, category) in errors {
            #expect(ErrorCategory(of: error) == category, "\(error)")
        }
    }

    @Test func aModulesOwnCodeCarriesTheCategoryItWasDeclaredWith() {
        let code = CloudantError.Code("doseOutOfRange", category: .invalidInput)
        let error = CloudantError(code, "The dose is above the prescription's maximum.")
        #expect(error.category == .invalidInput)
        #expect(ErrorCategory(of: error) == .invalidInput)
    }

    @Test func codesAreEqualByNameSoACategoryCannotSplitOneCode() {
        let twin = CloudantError.Code("conflict", category: .conflict)
        #expect(twin == .conflict)
        #expect(Set([twin, CloudantError.Code.conflict]).count == 1)
        #expect(CloudantError.Code.conflict != .notFound)
    }

    @Test func queryErrorKindsAreInvalidInputButAMissingIndexAndAnUnimplementedFeature() {
        for kind in QueryErrorKind.allCases {
            let expected: ErrorCategory =
                switch kind {
                case .indexNotFound: .notFound
                case .indexNotImplemented: .unsupported
                default: .invalidInput
                }
            #expect(kind.category == expected, "\(kind)")
            // The CloudantError a kind makes is in the same category, and still names the kind.
            let error = kind.error("why", field: "f")
            #expect(error.category == expected, "\(kind)")
            #expect(error.queryErrorKind == kind)
        }
    }

    @Test func theCategorySetIsTheDocumentedOne() {
        #expect(
            ErrorCategory.allCases.map(\.rawValue) == [
                "invalidInput", "unauthorized", "forbidden", "notFound", "conflict", "preconditionFailed", "tooLarge",
                "unsupported", "timedOut", "unavailable", "internal",
            ])
    }

    private struct Tagged: CategorizedError {
        var category: ErrorCategory
    }

    private struct Untagged: Error {}
}
