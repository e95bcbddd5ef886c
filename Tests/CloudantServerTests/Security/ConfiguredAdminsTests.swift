import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// Server admins kept in the node configuration's `admins` section, as CouchDB keeps them: a password set in
/// clear text is stored and shown only as its PBKDF2 hash, logs in at once, and ends the admin party.
@Suite("Admins in the configuration")
struct ConfiguredAdminsTests {
    private let config = "/_node/_local/_config"

    @Test func aClearPasswordIsKeptAsCouchDBsPBKDF2HashAndLogsIn() async throws {
        try await withLiveServer { server in
            let set = try await server.admin.put("\(config)/admins/jan", "apple")
            #expect(set.status == 200 && set.json == "")
            let stored = try #require(try await server.admin.get("\(config)/admins/jan").json.stringValue)
            // `-pbkdf2:PRF-KEY,SALT,ITERATIONS`, with the configured iterations and PRF.
            #expect(stored.hasPrefix("-pbkdf2:sha256-"))
            let fields = stored.dropFirst("-pbkdf2:sha256-".count).split(separator: ",")
            #expect(fields.count == 3 && fields[0].count == 64 && fields[1].count == 32)
            #expect(fields[2] == Substring(String(server.configuration.passwordIterations)))
            #expect(!stored.contains("apple"))

            let session = try await server.client("jan", "apple").get("/_session")
            #expect(session.json["userCtx"] == ["name": "jan", "roles": ["_admin"]])
            #expect(try await server.client("jan", "pear").get("/_all_dbs").status == 401)
            // A value already hashed is kept as it is.
            #expect(try await server.admin.put("\(config)/admins/kim", .string(stored)).status == 200)
            #expect(try await server.admin.get("\(config)/admins/kim").json == .string(stored))
            #expect(try await server.client("kim", "apple").get("/_all_dbs").status == 200)

            #expect(try await server.admin.delete("\(config)/admins/jan").json == .string(stored))
            #expect(try await server.client("jan", "apple").get("/_all_dbs").status == 401)
        }
    }

    @Test func anAdminWinsOverAUserDocumentOfTheSameName() async throws {
        try await withLiveServer { server in
            let user: JSONValue = ["name": "jan", "password": "user-pw", "roles": [], "type": "user"]
            #expect(try await server.admin.put("/_users/org.couchdb.user:jan", user).status == 201)
            _ = try await server.admin.put("\(config)/admins/jan", "admin-pw")
            #expect(try await server.client("jan", "user-pw").get("/_all_dbs").status == 401)
            #expect(try await server.client("jan", "admin-pw").get("/_all_dbs").status == 200)
        }
    }

    @Test func theStartupAdminIsShownHashedAndCannotBeChangedOverHTTP() async throws {
        try await withLiveServer { server in
            let name = LiveServer.admin.name
            let shown = try await server.admin.get("\(config)/admins").json
            #expect(shown[name]?.stringValue?.hasPrefix("-pbkdf2:sha256-") == true)
            #expect(try await server.admin.put("\(config)/admins/\(name)", "other").status == 403)
            #expect(try await server.admin.delete("\(config)/admins/\(name)").status == 403)
        }
    }

    @Test func anAdminSetInTheConfigurationEndsTheAdminParty() async throws {
        try await withLiveServer({ $0.admin = nil }) { (server: LiveServer) async throws in
            #expect(try await server.anonymous.get("/_all_dbs").status == 200)
            #expect(try await server.anonymous.put("\(config)/admins/root", "pw").status == 200)
            #expect(try await server.anonymous.get("/_all_dbs").status == 401)
            #expect(try await server.client("root", "pw").get("/_all_dbs").status == 200)
        }
    }

    @Test func anAdminKeptInTheFileSurvivesARestartAndAClearOneIsHashedAtStart() async throws {
        let server = try await LiveServer.start()
        _ = try await server.admin.put("\(config)/admins/jan", "apple")
        await server.stop(keepingFolder: true)
        // Written into the file by hand, in clear text: hashed when the server starts, as CouchDB does.
        let file = URL(fileURLWithPath: server.folder).appendingPathComponent(NodeConfiguration.fileName)
        var saved = try JSONValue(parsing: Data(contentsOf: file)).objectValue ?? [:]
        var admins = saved["admins"]?.objectValue ?? [:]
        admins["kim"] = "plain"
        saved["admins"] = .object(admins)
        try JSONValue.object(saved).jsonData().write(to: file)

        var configuration = server.configuration
        configuration.port = 0
        let restarted = try await LiveServer.start(configuration: configuration)
        #expect(try await restarted.client("jan", "apple").get("/_all_dbs").status == 200)
        #expect(try await restarted.client("kim", "plain").get("/_all_dbs").status == 200)
        let kim = try await restarted.admin.get("\(config)/admins/kim").json.stringValue ?? ""
        #expect(kim.hasPrefix("-pbkdf2:"))
        #expect(try String(contentsOf: file, encoding: .utf8).contains("plain") == false)
        await restarted.stop()
    }

    @Test func newHashesFollowTheConfiguredIterationsAndPRF() async throws {
        try await withLiveServer { server in
            _ = try await server.admin.put("\(config)/chttpd_auth/iterations", "7")
            _ = try await server.admin.put("\(config)/chttpd_auth/pbkdf2_prf", "sha512")
            _ = try await server.admin.put("\(config)/admins/jan", "apple")
            let stored = try await server.admin.get("\(config)/admins/jan").json.stringValue ?? ""
            #expect(stored.hasPrefix("-pbkdf2:sha512-") && stored.hasSuffix(",7"))
            let user: JSONValue = ["name": "bob", "password": "pw", "roles": [], "type": "user"]
            _ = try await server.admin.put("/_users/org.couchdb.user:bob", user)
            let document = try await server.admin.get("/_users/org.couchdb.user:bob").json
            #expect(document["iterations"] == 7 && document["pbkdf2_prf"] == "sha512")
            #expect(try await server.client("bob", "pw").get("/_session").json["userCtx"]?["name"] == "bob")
            #expect(try await server.admin.put("\(config)/chttpd_auth/pbkdf2_prf", "md5").status == 400)
            #expect(try await server.admin.put("\(config)/chttpd_auth/iterations", "0").status == 400)
        }
    }

    @Test func adminValuesAreReadAsCouchDBWritesThem() {
        let modern = AdminPasswords.hash(in: "-pbkdf2:sha512-abcd,salty,10")
        #expect(modern == PasswordHash(salt: "salty", derivedKey: "abcd", iterations: 10, prf: "sha512"))
        // CouchDB 2's form is HMAC-SHA1.
        #expect(AdminPasswords.hash(in: "-pbkdf2-abcd,salty,10")?.prf == "sha")
        #expect(AdminPasswords.hash(in: "-hashed-abcd,salty") == nil)
        #expect(AdminPasswords.hash(in: "-pbkdf2:sha256-abcd,salty") == nil)
        #expect(AdminPasswords.isHashed("-hashed-abcd,salty") && !AdminPasswords.isHashed("plain"))
    }
}
