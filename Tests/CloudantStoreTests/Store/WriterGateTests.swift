import CloudantBase
@testable import CloudantStore
import Foundation
import Testing

/// Where write transactions run: an uncontended short one on the caller's thread, a long one (a large
/// `_bulk_docs` batch) on the gate's own thread, so that it never holds a cooperative thread.
@Suite("The writer gate")
struct WriterGateTests {
    @Test func anUncontendedShortWriteRunsOnTheCallersThreadAndALongOneOnTheGatesThread() async throws {
        let gate = WriterGate()
        let short = try await gate.run { NamedThread.currentName }
        let long = try await gate.run(long: true) { NamedThread.currentName }
        #expect(short != "cloudant-writes")
        #expect(long == "cloudant-writes")
    }
}
