import CloudantTestSupport
import Foundation
import Testing

/// `cloudant serve --node-name` names the server's node as CouchDB's `-name` does.
@Suite("serve: node name")
struct ServeNodeNameTests {
    @Test func theNodeNameGivenIsTheOneMembershipLists() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(
            ["serve", "--data", folder.path, "--port", "0", "--admin", "adm:pass", "--node-name", "node1@127.0.0.1"], in: folder)
        let answer = try await ChildProcess.run("/usr/bin/curl", ["-s", "-u", "adm:pass", server.url + "/_membership"])
        #expect(String(decoding: answer.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == #"{"all_nodes":["node1@127.0.0.1"],"cluster_nodes":["node1@127.0.0.1"]}"#)
    }
}
