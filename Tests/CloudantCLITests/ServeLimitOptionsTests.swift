import Foundation
import Testing

/// `cloudant serve` refuses a request limit it could not keep, before it listens.
@Suite("serve: limit options")
struct ServeLimitOptionsTests {
    @Test func aRegexStepLimitPastWhatTheEngineKeepsIsRefusedWithTheInvalidInputStatus() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for limit in ["20000001", "0", "-5"] {
            let refused = try await CLIRunner.run(["serve", "--port", "0", "--regex-step-limit=\(limit)"], in: folder)
            #expect(refused.status == 2, "\(limit): \(refused.stderr)")
            #expect(refused.stderr.contains("--regex-step-limit must be between 1 and 20000000"), "\(limit): \(refused.stderr)")
        }
    }
}
