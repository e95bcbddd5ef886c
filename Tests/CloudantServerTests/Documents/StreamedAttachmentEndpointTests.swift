import CloudantCore
@testable import CloudantServer
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// Attachment `PUT`s stream into the store and `GET`s stream out of it, so their size is bounded by
/// `maxAttachmentSize`, not by the request body limit or memory.
@Suite("Streamed attachments over HTTP")
struct StreamedAttachmentEndpointTests {
    /// `count` random bytes from the kernel (a per-byte generator is slow in debug builds, and several
    /// megabytes of it starved the rest of the suite on two cores).
    static func randomBytes(_ count: Int) -> [UInt8] {
        Array(FileHandle(forReadingAtPath: "/dev/urandom")?.readData(ofLength: count) ?? Data(count: count))
    }

    /// A server whose JSON body limit is 1 MB and whose attachment limit is 4 MB.
    static func configure(_ configuration: inout ServerConfiguration) {
        configuration.maxRequestBodySize = 1 << 20
        configuration.maxAttachmentSize = 4 << 20
    }

    @Test func anAttachmentLargerThanTheBodyLimitUploadsAndDownloadsWholeAndInRanges() async throws {
        try await withLiveServer(Self.configure) { server in
            let admin = server.admin
            #expect(try await admin.send("PUT", "/scans").status == 201)
            let bytes = Self.randomBytes(3 << 20)
            let put = try await admin.send(
                "PUT", "/scans/visit/mri.bin", body: Data(bytes), contentType: "application/octet-stream")
            #expect(put.status == 201, "\(put.text)")
            #expect(put.json["rev"]?.stringValue?.hasPrefix("1-") == true)
            let files = try FileManager.default.contentsOfDirectory(atPath: server.folder + "/scans.sqlite-attachments")
            #expect(files.filter { $0 != "staging" }.count == 1, "kept as a file beside the store")

            let whole = try await admin.get("/scans/visit/mri.bin")
            #expect(whole.status == 200 && Array(whole.body) == bytes)
            #expect(whole.header("Content-Length") == String(bytes.count))
            #expect(whole.header("Accept-Ranges") == "bytes")
            let head = try await admin.send("HEAD", "/scans/visit/mri.bin")
            #expect(head.status == 200 && head.header("Content-Length") == String(bytes.count))

            let range = try await admin.get("/scans/visit/mri.bin", headers: ["Range": "bytes=1000000-1000099"])
            #expect(range.status == 206 && Array(range.body) == Array(bytes[1_000_000...1_000_099]))
            #expect(range.header("Content-Range") == "bytes 1000000-1000099/\(bytes.count)")
            let suffix = try await admin.get("/scans/visit/mri.bin", headers: ["Range": "bytes=-10"])
            #expect(Array(suffix.body) == Array(bytes.suffix(10)))

            let ranges = try await admin.get("/scans/visit/mri.bin", headers: ["Range": "bytes=0-9,2000000-2000009"])
            #expect(ranges.status == 206)
            #expect(ranges.header("Content-Type")?.hasPrefix("multipart/byteranges") == true)
            #expect(ranges.header("Content-Length") == String(ranges.body.count))
            #expect(Array(ranges.body).firstRange(of: bytes[0...9]) != nil)
            #expect(Array(ranges.body).firstRange(of: bytes[2_000_000...2_000_009]) != nil)
            #expect(ranges.text.contains("Content-Range: bytes 2000000-2000009/\(bytes.count)"))

            // A JSON body is still held to the 1 MB limit.
            let big = try await admin.put("/scans/json", ["text": .string(String(repeating: "x", count: 2 << 20))])
            #expect(big.status == 413)
        }
    }

    @Test func aChunkedUploadWithNoLengthStreamsIn() async throws {
        try await withLiveServer(Self.configure) { server in
            #expect(try await server.admin.send("PUT", "/scans").status == 201)
            let bytes = Self.randomBytes(2 << 20)
            var request = Array(
                ("PUT /scans/visit/chunked.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + "Authorization: Basic " + Data("admin:s3cret".utf8).base64EncodedString() + "\r\n"
                    + "Content-Type: image/png\r\nTransfer-Encoding: chunked\r\n\r\n").utf8)
            for start in stride(from: 0, to: bytes.count, by: 100_000) {
                let piece = bytes[start..<min(bytes.count, start + 100_000)]
                request += Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + [13, 10]
            }
            request += Array("0\r\n\r\n".utf8)
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            connection.send(request)
            let answer = try TestClient.parse(try await connection.readToEndOffPool(), isHead: false)
            #expect(answer.status == 201, "\(answer.text)")
            #expect(Array(try await server.admin.get("/scans/visit/chunked.bin").body) == bytes)
        }
    }

    /// CouchDB 3.5's `db_attachment_req/4` builds the attachment from its type, length and encoding only: a
    /// `Content-MD5` header, right, wrong or hex, changes nothing, and the digest is the content's own.
    @Test func aContentMD5HeaderIsIgnoredAndAnAttachmentOverTheLimitStoresNothing() async throws {
        try await withLiveServer(Self.configure) { server in
            let admin = server.admin
            #expect(try await admin.send("PUT", "/scans").status == 201)
            let bytes = Self.randomBytes(300_000)
            for header in [Base64.encode(Array(repeating: 0, count: 16)), String(repeating: "0", count: 32)] {
                let answer = try await admin.send(
                    "PUT", "/scans/a\(header.count)/x.bin", body: Data(bytes), contentType: "image/png", headers: ["Content-MD5": header])
                #expect(answer.status == 201, "\(answer.text)")
                let stub = try await admin.get("/scans/a\(header.count)").json["_attachments"]?["x.bin"]
                #expect(stub?["digest"] == .string(AttachmentDigest.of(bytes)))
            }

            let tooLarge = try await admin.send("PUT", "/scans/b/x.bin", body: Data(Self.randomBytes(5 << 20)), contentType: "image/png")
            #expect(tooLarge.status == 413 && tooLarge.json["error"] == "attachment_too_large", "\(tooLarge.text)")
            #expect(try await admin.get("/scans/b").status == 404)
        }
    }

    @Test func aGzipUploadIsKeptEncodedAndSentEitherWay() async throws {
        try await withLiveServer(Self.configure) { server in
            let admin = server.admin
            #expect(try await admin.send("PUT", "/notes").status == 201)
            let text = Array(String(repeating: "blood pressure 120/80 at 08:00\n", count: 40_000).utf8)
            let gzip = try #require(Gzip.encode(text, level: 6))
            let put = try await admin.send(
                "PUT", "/notes/day/log.txt", body: Data(gzip), contentType: "text/plain", headers: ["Content-Encoding": "gzip"])
            #expect(put.status == 201, "\(put.text)")
            let encoded = try await admin.get("/notes/day/log.txt", headers: ["Accept-Encoding": "gzip"])
            #expect(encoded.header("Content-Encoding") == "gzip" && Array(encoded.body) == gzip)
            let decoded = try await admin.get("/notes/day/log.txt")
            #expect(decoded.header("Content-Encoding") == nil && Array(decoded.body) == text)
            #expect(decoded.header("Content-Length") == String(text.count))
            let stub = try await admin.get("/notes/day").json["_attachments"]?["log.txt"]
            #expect(stub?["digest"]?.stringValue == AttachmentDigest.of(gzip) && stub?["length"] == .number(JSONNumber(text.count)))

            let damaged = try await admin.send(
                "PUT", "/notes/other/log.txt", body: Data(gzip.dropLast(8)), contentType: "text/plain",
                headers: ["Content-Encoding": "gzip"])
            #expect(damaged.status == 400, "\(damaged.text)")
        }
    }

    @Test func multipartAnswersForReplicatorsStreamLargeAttachmentsFromTheStore() async throws {
        try await withLiveServer(Self.configure) { server in
            let admin = server.admin
            #expect(try await admin.send("PUT", "/scans").status == 201)
            let bytes = Self.randomBytes(3 << 20)
            let put = try await admin.send("PUT", "/scans/visit/mri.bin", body: Data(bytes), contentType: "image/png")
            let rev = try #require(put.json["rev"]?.stringValue)

            // CouchDB's replicator: open_revs as multipart/mixed, each leaf a nested multipart/related part.
            let mixed = try await admin.get(
                "/scans/visit?open_revs=%5B%22\(rev)%22%5D&revs=true&attachments=true", headers: ["Accept": "multipart/mixed"])
            #expect(mixed.status == 200 && mixed.header("Content-Length") == String(mixed.body.count))
            let leaf = try #require(try mixed.parts().first)
            let related = try leaf.parts()
            #expect(related.count == 2)
            #expect(related.first?.json["_attachments"]?["mri.bin"]?["follows"] == true)
            #expect(related.first?.json["_attachments"]?["mri.bin"]?["follows_separately"] == nil)
            #expect(related.last?.body == bytes)

            // A document GET with attachments, as multipart/related.
            let document = try await admin.get("/scans/visit?attachments=true", headers: ["Accept": "multipart/related"])
            #expect(document.header("Content-Length") == String(document.body.count))
            #expect(try document.parts().last?.body == bytes)
        }
    }

    @Test func anUploadThatExpectsContinueIsToldToGoOnBeforeItSendsItsBody() async throws {
        try await withLiveServer(Self.configure) { server in
            #expect(try await server.admin.send("PUT", "/scans").status == 201)
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            connection.send(
                "PUT /scans/visit/a.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + "Authorization: Basic " + Data("admin:s3cret".utf8).base64EncodedString() + "\r\n"
                    + "Content-Type: image/png\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            // curl would wait a second for this before sending the body anyway; we answer at once.
            let interim = try await connection.readUntil("\r\n\r\n")
            #expect(interim.hasPrefix("HTTP/1.1 100 Continue"), "\(interim)")
            connection.send("hello")
            let final = try await connection.readUntil("\r\n\r\n", count: 2)
            #expect(final.contains("HTTP/1.1 201"), "\(final)")
        }
    }

    @Test func aServerWithAKeyKeepsDocumentsAndAttachmentsEncryptedOnDisk() async throws {
        let key = DatabaseKey.random()
        let marker = "SERVED-SECRET-\(UUID().uuidString)"
        let encrypted: (inout ServerConfiguration) -> Void = { $0.encryptionKey = key }
        try await withLiveServer(encrypted) { server in try await Self.storeSecrets(marker, on: server) }
    }

    /// Writes a document and a large attachment holding `marker`, reads them back, and checks that no file
    /// under the server's folder holds the marker in plaintext.
    static func storeSecrets(_ marker: String, on server: LiveServer) async throws {
        let admin = server.admin
        #expect(try await admin.send("PUT", "/vault").status == 201)
        #expect(try await admin.put("/vault/a", ["note": .string(marker)]).status == 201)
        let scan = Array(marker.utf8) + randomBytes(400_000) + Array(marker.utf8)
        #expect(try await admin.send("PUT", "/vault/b/scan.bin", body: Data(scan), contentType: "image/png").status == 201)
        #expect(Array(try await admin.get("/vault/b/scan.bin").body) == scan)
        #expect(try await admin.get("/vault/a").json["note"]?.stringValue == marker)
        let names = FileManager.default.subpaths(atPath: server.folder) ?? []
        #expect(names.contains { $0.hasSuffix("vault.sqlite") })
        for name in names {
            let data = FileManager.default.contents(atPath: server.folder + "/" + name) ?? Data()
            #expect(data.range(of: Data(marker.utf8)) == nil, "\(name) holds plaintext")
        }
    }
}
