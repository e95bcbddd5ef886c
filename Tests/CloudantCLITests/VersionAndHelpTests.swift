import Foundation
import Testing

@Suite("cloudant version and help")
struct VersionAndHelpTests {
    @Test func versionPrintsThePackageAndCouchDBVersionsAsJSON() throws {
        let output = try CLIRunner.run(["version", "--json"])
        #expect(output.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: String]
        #expect(object?["cloudant"]?.split(separator: ".").count == 3)
        #expect(object?["couchdb"]?.hasPrefix("3.") == true)
    }

    @Test func helpListsTheSubcommandsAndTheGlobalDataOption() throws {
        let root = try CLIRunner.run(["--help"])
        #expect(root.status == 0)
        #expect(root.stdout.contains("version"))
        let version = try CLIRunner.run(["version", "--help"])
        #expect(version.stdout.contains("--data <DIR>"))
        #expect(version.stdout.contains("cloudant-data"))
    }

    @Test func anUnknownCommandFailsWithAMessageOnStandardError() throws {
        let output = try CLIRunner.run(["no-such-command"])
        #expect(output.status != 0)
        #expect(!output.stderr.isEmpty)
        #expect(output.stdout.isEmpty)
    }
}
