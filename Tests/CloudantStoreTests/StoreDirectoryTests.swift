import CloudantCore
import CloudantStore
import Foundation
import Testing

@Suite("Store directory")
struct StoreDirectoryTests {
    @Test func storesLiveInTheDataFolderOneSQLiteFileEach() throws {
        let stores = StoreDirectory(path: "/tmp/data")
        #expect(try stores.fileURL(forStore: "patients").path == "/tmp/data/patients.sqlite")
        #expect(StoreDirectory().path == "cloudant-data")
    }

    @Test func aSlashInAStoreNameCannotLeaveTheFolder() throws {
        let url = try StoreDirectory(path: "/tmp/data").fileURL(forStore: "clinic/patients")
        #expect(url.path == "/tmp/data/clinic%2Fpatients.sqlite")
    }

    @Test(arguments: [
        "", "Patients", "1db", "_users", "../etc", "a b", "a.b", "ünicode", "a.123456789", "a.1234567890x", ".1234567890",
        "A.1234567890", "a.12345678901.1234567890",
    ])
    func namesBreakingCouchDBsRuleAreInvalidValues(name: String) {
        let error = #expect(throws: CloudantError.self) { try StoreDirectory.validate(storeName: name) }
        #expect(error?.code == .invalidInput)
        #expect(error?.context.database == name)
    }

    @Test("Names following CouchDB's rule are accepted, a shard timestamp's suffix (ten digits or more) included", arguments: [
        "a", "patients", "db_1", "a$()+-/b", "a.1234567890", "clinic/notes.17333286680",
    ])
    func namesFollowingCouchDBsRuleAreAccepted(name: String) throws {
        try StoreDirectory.validate(storeName: name)
    }

    @Test func listingAMissingFolderIsEmptyAndListingFindsStoreFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stores-\(UUID().uuidString)")
        #expect(try StoreDirectory(path: folder.path).storeNames().isEmpty)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for file in ["b.sqlite", "a%2Fx.sqlite", "notes.txt", "Bad.sqlite"] {
            _ = FileManager.default.createFile(atPath: folder.appendingPathComponent(file).path, contents: Data())
        }
        #expect(try StoreDirectory(path: folder.path).storeNames() == ["a/x", "b"])
    }
}
