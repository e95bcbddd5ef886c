@testable import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

@Suite("MIME multipart parser")
struct MultipartParserTests {
    private static let sample = Array(
        ("This preamble is ignored.\r\n--abc\r\ncontent-TYPE: application/json\r\n\r\n{\"a\":1}\r\n"
            + "--abc\r\nContent-Disposition: attachment; filename=\"x.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            + "line one\r\n--abcd is not a boundary here\r\n--abc--\r\nand this epilogue is ignored too\r\n").utf8)

    @Test func partsCarryHeadersAndBodiesWithPreambleAndEpilogueIgnored() throws {
        let parts = try MultipartParser.parts(of: Self.sample, boundary: "abc")
        #expect(parts.count == 2)
        #expect(parts[0].header("Content-Type") == "application/json")
        #expect(parts[0].body == Array("{\"a\":1}".utf8))
        #expect(parts[1].header("content-disposition") == "attachment; filename=\"x.bin\"")
        #expect(parts[1].body == Array("line one\r\n--abcd is not a boundary here".utf8))
    }

    @Test func feedingOneByteAtATimeGivesTheSameParts() throws {
        let whole = try MultipartParser.parts(of: Self.sample, boundary: "abc")
        for chunkSize in [1, 2, 3, 7, 16] {
            var parser = try MultipartParser(boundary: "abc")
            var collector = PartCollector()
            var index = 0
            while index < Self.sample.count {
                collector.add(try parser.feed(Self.sample[index..<min(index + chunkSize, Self.sample.count)]))
                index += chunkSize
            }
            try parser.finish()
            #expect(collector.parts == whole, "chunk size \(chunkSize)")
        }
    }

    @Test func aBodyMayOpenWithItsFirstBoundaryAndPartsMayHaveNoHeaders() throws {
        let body = Array("--B\r\n\r\nfirst\r\n--B  \r\n\r\n\r\n--B--".utf8)
        let parts = try MultipartParser.parts(of: body, boundary: "B")
        #expect(parts.map(\.body) == [Array("first".utf8), []])
        #expect(parts.allSatisfy { $0.headers.isEmpty })
    }

    @Test(arguments: [
        ("multipart/related; boundary=\"a b;c\"", "a b;c"),
        ("multipart/related;boundary=plain", "plain"),
        ("Multipart/Mixed; charset=utf-8; BOUNDARY = \"q\\\"x\" ; type=\"application/json\"", "q\"x"),
    ])
    func boundariesAreReadQuotedOrNot(contentType: String, boundary: String) throws {
        #expect(try MultipartParser.boundary(in: contentType) == boundary)
    }

    @Test func aContentTypeWithoutBoundaryIsAnError() {
        #expect(throws: MultipartError.self) { try MultipartParser.boundary(in: "multipart/related") }
        #expect(throws: MultipartError.self) { try MultipartParser.boundary(in: nil) }
    }

    @Test(arguments: [
        ("no boundary at all", "no boundary line found"),
        ("--B\r\nContent-Type: x\r\n\r\nbody without end", "ends before the closing boundary"),
        ("--B\r\nContent-Type: x", "ends inside a part's headers"),
        ("--B\r\nnot a header\r\n\r\nx\r\n--B--", "not 'Name: value'"),
        ("--B\r\n\r\nx\r\n--B", "ends before the closing boundary"),
    ])
    func malformedBodiesAreErrorsWithAReasonAndPosition(body: String, reason: String) {
        do {
            _ = try MultipartParser.parts(of: Array(body.utf8), boundary: "B")
            Issue.record("expected an error for \(body.debugDescription)")
        } catch {
            #expect(error.reason.contains(reason))
            #expect(error.offset >= 0 && error.offset <= body.utf8.count)
        }
    }

    @Test func overlongPartHeadersAreRefusedWithoutBufferingForever() throws {
        var parser = try MultipartParser(boundary: "B")
        _ = try parser.feed(Array("--B\r\nX-Long: ".utf8))
        #expect(throws: MultipartError.self) {
            _ = try parser.feed([UInt8](repeating: UInt8(ascii: "a"), count: MultipartParser.maxHeaderBytes + 1))
        }
    }

    @Test func arbitraryBytesNeverCrashTheParser() throws {
        var generator = SplitMix64(seed: 42)
        let alphabet = Array("-B\r\n: ab".utf8)
        for _ in 0..<2_000 {
            let length = Int(generator.next() % 40)
            let bytes = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            _ = try? MultipartParser.parts(of: Array("--B\r\n".utf8) + bytes, boundary: "B")
        }
    }

    @Test func writtenBodiesParseBackToTheSameParts() throws {
        var writer = MultipartWriter(boundary: "0123abcd")
        let binary = (0...255).map(UInt8.init) + Array("\r\n--0123abc".utf8)
        writer.addPart(headers: [("Content-Type", "application/json")], body: Array("{}".utf8))
        writer.addPart(headers: [("Content-Type", "application/octet-stream"), ("X-Evil", "a\r\nInjected: yes")], body: binary)
        writer.addPart(headers: [], body: [])
        #expect(writer.contentType("mixed") == "multipart/mixed; boundary=\"0123abcd\"")
        let parts = try MultipartParser.parts(of: writer.finish(), boundary: "0123abcd")
        #expect(parts.map(\.body) == [Array("{}".utf8), binary, []])
        #expect(parts[1].header("X-Evil") == "aInjected: yes")
        #expect(parts[1].header("Injected") == nil)
    }

    @Test func acceptHeadersAreReadAsMochiwebReadsThemForCouchDB() {
        // Listed by name, by family, or by `*/*`; a missing header is `*/*`.
        #expect(MediaType.accepts("multipart/mixed", in: "multipart/mixed"))
        #expect(MediaType.accepts("multipart/mixed", in: "application/json;q=0.5, multipart/*"))
        #expect(MediaType.accepts("multipart/mixed", in: "*/*"))
        #expect(MediaType.accepts("multipart/mixed", in: "multipart/related,*/*"))
        #expect(MediaType.accepts("multipart/mixed", in: nil))
        #expect(MediaType.accepts("multipart/mixed", in: "MULTIPART/MIXED"))
        #expect(MediaType.accepts("multipart/mixed", in: "text/html ; q = 0.25, multipart/mixed; q=1.000"))
        // Not listed, an empty header, or refused with `q=0` for the type or its family even beside `*/*`.
        #expect(!MediaType.accepts("multipart/related", in: "multipart/mixed"))
        #expect(!MediaType.accepts("multipart/mixed", in: ""))
        #expect(!MediaType.accepts("multipart/mixed", in: "multipart/mixed;q=0"))
        #expect(!MediaType.accepts("multipart/mixed", in: "*/*, multipart/mixed;q=0"))
        #expect(!MediaType.accepts("multipart/mixed", in: "*/*, multipart/*;q=0.0"))
        #expect(!MediaType.accepts("multipart/mixed", in: "*/*;q=0"))
        // Other parameters stay part of the entry: `type=…` is not the bare type.
        #expect(!MediaType.accepts("multipart/related", in: "multipart/related;type=application/json"))
        // An unreadable quality or parameter makes the whole header take nothing.
        #expect(!MediaType.accepts("multipart/mixed", in: "*/*;q=2"))
        #expect(!MediaType.accepts("multipart/mixed", in: "*/*;q=0.1234"))
        #expect(!MediaType.accepts("multipart/mixed", in: "*/*;q=1."))
        #expect(!MediaType.accepts("multipart/mixed", in: "multipart/mixed;level, */*"))
    }
}
