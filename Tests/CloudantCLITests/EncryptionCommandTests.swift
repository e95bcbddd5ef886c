import Foundation
import Testing

/// `--key-file` and `cloudant db rekey` as a user types them.
@Suite("cloudant --key-file and db rekey")
struct EncryptionCommandTests {
    static func filesContaining(_ marker: String, under folder: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var found: [String] = []
        while let name = enumerator?.nextObject() as? String {
            if let data = FileManager.default.contents(atPath: folder.path + "/" + name), data.range(of: Data(marker.utf8)) != nil {
                found.append(name)
            }
        }
        return found
    }

    @Test func aStoreWrittenWithAKeyFileReadsOnlyWithItAndRekeyRotatesOrDecryptsIt() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("cloudant-data")
        let first = folder.appendingPathComponent("first.key"), second = folder.appendingPathComponent("second.key")
        try Data((0..<32).map { _ in UInt8.random(in: 0...255) }).write(to: first)
        try Data(String(repeating: "ab", count: 32).utf8 + [10]).write(to: second)  // 64 hex digits and a newline
        let marker = "PATIENT-SECRET-\(UUID().uuidString)"

        let put = try await CLIRunner.run(["--key-file", first.path, "put", "--db", "notes", #"{"_id":"a","note":"\#(marker)"}"#], in: folder)
        #expect(put.status == 0, "\(put.stderr)")
        #expect(Self.filesContaining(marker, under: data) == [])
        #expect(try await CLIRunner.run(["get", "--db", "notes", "a", "--key-file", first.path], in: folder).stdout.contains(marker))
        let missing = try await CLIRunner.run(["get", "--db", "notes", "a"], in: folder)
        #expect(missing.status != 0 && missing.stderr.contains("encryptionKeyRequired"))
        let wrong = try await CLIRunner.run(["--key-file", second.path, "get", "--db", "notes", "a"], in: folder)
        #expect(wrong.status != 0 && wrong.stderr.contains("wrongEncryptionKey"))

        let rotate = try await CLIRunner.run(
            ["db", "rekey", "--db", "notes", "--key-file", first.path, "--new-key-file", second.path], in: folder)
        #expect(rotate.status == 0, "\(rotate.stderr)")
        #expect(try await CLIRunner.run(["--key-file", second.path, "get", "--db", "notes", "a"], in: folder).stdout.contains(marker))
        #expect(try await CLIRunner.run(["--key-file", first.path, "get", "--db", "notes", "a"], in: folder).status != 0)

        let decrypt = try await CLIRunner.run(["db", "rekey", "--db", "notes", "--key-file", second.path], in: folder)
        #expect(decrypt.status == 0 && decrypt.stdout.contains(#""encrypted":false"#), "\(decrypt.stderr)")
        #expect(try await CLIRunner.run(["get", "--db", "notes", "a"], in: folder).stdout.contains(marker))
        let bad = folder.appendingPathComponent("bad.key")
        try Data("too short".utf8).write(to: bad)
        let refused = try await CLIRunner.run(["--key-file", bad.path, "get", "--db", "notes", "a"], in: folder)
        #expect(refused.status != 0 && refused.stderr.contains("32 raw bytes or 64 hex digits"))
    }
}
