@testable import CloudantCLI
import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The CLI turns each error's own category into an exit status in one switch, so a Care or
/// Health error exits with its category, never as an internal error.
@Suite("cloudant exit status by error category")
struct ErrorCategoryExitStatusTests {
    /// The README's table ("Errors"): 1 internal, 2 invalid input, 3 not found, 4 conflict, 5 unauthorized,
    /// 6 unavailable; the finer categories share their group's status.
    static let documented: [ErrorCategory: Int32] = [
        .internal: 1,
        .invalidInput: 2, .tooLarge: 2, .unsupported: 2,
        .notFound: 3,
        .conflict: 4, .preconditionFailed: 4,
        .unauthorized: 5, .forbidden: 5,
        .unavailable: 6, .timedOut: 6,
    ]

    @Test(arguments: ErrorCategory.allCases)
    func everyCategoryExitsWithItsDocumentedStatus(category: ErrorCategory) throws {
        let status = try #require(Self.documented[category], "\(category) is not in the documented table")
        #expect(category.exitStatus == status)
        #expect(category.exitCode.rawValue == status)
    }

    @Test func anErrorWithoutACategoryIsInternal() {
        struct Opaque: Error {}
        #expect(ErrorCategory(of: Opaque()).exitStatus == 1)
    }

    @Test func careErrorsExitWithTheirCategory() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let badSchedule = try await CLIRunner.run(
            ["care", "add", "task"],
            stdin: #"{"id":"t","schedule":{"elements":[{"start":"2024-01-01T00:00:00Z","interval":{"day":0}}]}}"#,
            in: folder)
        try badSchedule.expectError(status: 2, ["error": "bad_request", "code": "invalidSchedule"])

        let plan = #"{"id":"p","title":"P","effectiveDate":"2024-01-01T00:00:00Z"}"#
        #expect(try await CLIRunner.run(["care", "add", "careplan"], stdin: plan, in: folder).status == 0)
        let again = try await CLIRunner.run(["care", "add", "careplan"], stdin: plan, in: folder)
        try again.expectError(status: 4, ["code": "duplicateVersion"])
    }

    @Test func healthImportAndCDAErrorsExitAsInvalidInputNotInternal() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bogus = folder.appendingPathComponent("export.zip")
        try Data("not a zip".utf8).write(to: bogus)
        let imported = try await CLIRunner.run(["health", "import", bogus.path], in: folder)
        try imported.expectError(status: 2, ["error": "bad_request", "code": "invalidHealthExport"])

        let note = folder.appendingPathComponent("note.xml")
        try #"<?xml version="1.0"?><note><to>Tove</to></note>"#.write(to: note, atomically: true, encoding: .utf8)
        let cda = try await CLIRunner.run(["cda", note.path], in: folder)
        // The module's own code, passed through as it is.
        try cda.expectError(status: 2, ["error": "bad_request", "code": "notCDADocument"])
    }

    @Test func anUnreachablePeerExitsUnavailableWithTheURLAndNoCredentials() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = try Self.unusedPort()
        let result = try await CLIRunner.run(["replicate", "http://admin:hunter2@127.0.0.1:\(port)/faraway", "copy"], in: folder)
        let error = try result.expectError(status: 6, ["error": "service_unavailable"])
        #expect((error["url"] as? String)?.hasPrefix("http://127.0.0.1:\(port)/faraway") == true)
        #expect(error["status"] == nil)
        #expect(!result.stderr.contains("hunter2"))
    }

    /// A 127.0.0.1 port nothing listens on.
    static func unusedPort() throws -> Int { try LoopbackSocket.unusedPort() }
}
