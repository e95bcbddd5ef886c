import Foundation
import Testing

@Suite("cloudant version and help")
struct VersionAndHelpTests {
    @Test func versionPrintsThePackageAndCouchDBVersionsAsJSON() async throws {
        let output = try await CLIRunner.run(["version", "--json"])
        #expect(output.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: String]
        #expect(object?["cloudant"]?.split(separator: ".").count == 3)
        #expect(object?["couchdb"]?.hasPrefix("3.") == true)
    }

    @Test func helpListsTheSubcommandsAndTheGlobalDataOption() async throws {
        let root = try await CLIRunner.run(["--help"])
        #expect(root.status == 0)
        #expect(root.stdout.contains("version"))
        let version = try await CLIRunner.run(["version", "--help"])
        #expect(version.stdout.contains("--data <DIR>"))
        #expect(version.stdout.contains("cloudant-data"))
    }

    @Test func everyCommandsHelpShowsAnExample() async throws {
        let commands: [[String]] = [
            [], ["db"], ["db", "create"], ["db", "list"], ["db", "info"], ["db", "check"], ["db", "delete"], ["put"],
            ["get"], ["delete"], ["bulk"], ["changes"], ["find"], ["explain"], ["index"], ["index", "create"],
            ["index", "list"], ["index", "delete"], ["replicate"], ["compact"], ["version"], ["serve"], ["care"],
            ["care", "add"], ["care", "update"], ["care", "events"], ["care", "list"], ["health"], ["health", "import"],
            ["health", "samples"], ["health", "stats"], ["cda"], ["route"], ["route", "export"],
        ]
        for command in commands {
            let help = try await CLIRunner.run(command + ["--help"])
            #expect(help.status == 0, "\(command)")
            let discussion = help.stdout.components(separatedBy: "USAGE:").first ?? ""
            #expect(discussion.contains("Example"), "cloudant \(command.joined(separator: " ")) --help has no example")
            #expect(discussion.contains("cloudant "), "\(command)")
        }
    }

    @Test func theRootHelpDocumentsTheExitStatusOfEachErrorCategory() async throws {
        let help = try await CLIRunner.run(["--help"]).stdout.replacingOccurrences(of: "\n", with: " ")
        for status in ["0 success", "1 internal error", "2 invalid input", "3 not found", "4 conflict", "5 unauthorized",
            "6 unavailable"]
        {
            #expect(help.contains(status), "\(status)")
        }
    }

    @Test func anUnknownCommandFailsWithAMessageOnStandardError() async throws {
        let output = try await CLIRunner.run(["no-such-command"])
        #expect(output.status == 2)
        #expect(!output.stderr.isEmpty)
        #expect(output.stdout.isEmpty)
    }
}
