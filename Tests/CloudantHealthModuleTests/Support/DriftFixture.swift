import CloudantCore
import CloudantHealthModule
import CloudantTestSupport
import Foundation

/// The hand-written exports of `Tests/Fixtures/HealthExports/` (see its README).
enum DriftFixture {
    static let root = RepositoryFiles.fixtures("HealthExports")

    /// The `apple_health_export` folder of `name` (`ios16`).
    static func folder(_ name: String) -> URL { root.appendingPathComponent(name).appendingPathComponent("apple_health_export") }

    /// A copy of the fixture in a fresh temporary folder, for tests that change it or zip it.
    static func copy(_ name: String) throws -> URL {
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("drift-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: folder(name), to: destination.appendingPathComponent("apple_health_export"))
        return destination
    }

    /// Imports the fixture's folder into a fresh store; the caller removes the store.
    static func imported(_ name: String) async throws -> (report: HealthImportReport, store: HealthTestStore) {
        let harness = try HealthTestStore()
        let report = try await AppleHealthImporter(store: harness.store, batchSize: 4).importExport(at: folder(name))
        return (report, harness)
    }
}

/// Zip and gzip through Python's standard library, so the tests need no other tool.
enum FixtureTool {
    /// Zips `folder`'s contents (paths relative to `folder`) into `zip`.
    static func zip(_ folder: URL, into zip: URL) async throws {
        try await ChildProcess.python(["-c", """
            import os, sys, zipfile
            root, out = sys.argv[1], sys.argv[2]
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
                for base, _, files in os.walk(root):
                    for name in sorted(files):
                        path = os.path.join(base, name)
                        z.write(path, os.path.relpath(path, root))
            """, folder.path, zip.path])
    }

    /// Flips a bit of `member`'s CRC-32 in the zip's local and central headers: the member still inflates,
    /// and only its checksum tells it is not what was zipped.
    static func damageChecksum(of member: String, in zip: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: zip))
        let name = Array(member.utf8)
        func littleEndian16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        var flipped = 0
        // Local file header (PK\u{3}\u{4}): CRC at 14, name length at 26, name at 30; central directory
        // header (PK\u{1}\u{2}): CRC at 16, name length at 28, name at 46.
        for (signature, crcOffset, lengthOffset, nameOffset) in [([0x50, 0x4B, 3, 4] as [UInt8], 14, 26, 30), ([0x50, 0x4B, 1, 2], 16, 28, 46)] {
            var at = 0
            while at + nameOffset + name.count <= bytes.count {
                if Array(bytes[at..<(at + 4)]) == signature, littleEndian16(at + lengthOffset) == name.count,
                    Array(bytes[(at + nameOffset)..<(at + nameOffset + name.count)]) == name
                {
                    bytes[at + crcOffset] ^= 0x01
                    flipped += 1
                    break
                }
                at += 1
            }
        }
        precondition(flipped == 2, "\(member) not found in both headers of \(zip.path)")
        try Data(bytes).write(to: zip)
    }

    /// Gzips `file` into `gzip`.
    static func gzip(_ file: URL, into gzip: URL) async throws {
        try await ChildProcess.python([
            "-c", "import gzip, shutil, sys\nwith open(sys.argv[1], 'rb') as i, gzip.open(sys.argv[2], 'wb') as o: shutil.copyfileobj(i, o)",
            file.path, gzip.path,
        ])
    }
}
