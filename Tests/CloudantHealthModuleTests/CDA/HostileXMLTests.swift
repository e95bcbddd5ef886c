@testable import CloudantHealthModule
import CloudantCore
import Foundation
import Testing

/// Hostile inputs: each must fail or parse without expanding entities, reading files or touching the network.
@Suite("Hostile XML", .serialized)
struct HostileXMLTests {
    private static let header = #"<ClinicalDocument xmlns="urn:hl7-org:v3">"#

    @Test func billionLaughsIsRefusedWithoutExpanding() {
        var dtd = "<!DOCTYPE ClinicalDocument [\n<!ENTITY lol0 \"lol\">\n"
        for level in 1...12 {
            let previous = "&lol\(level - 1);"
            dtd += "<!ENTITY lol\(level) \"\(String(repeating: previous, count: 10))\">\n"
        }
        dtd += "]>\n"
        let xml = dtd + Self.header + "<title>&lol12;</title></ClinicalDocument>"
        // 10^12 "lol"s would take terabytes: finishing at all, with a short title or a refusal, proves nothing was
        // expanded (no time limit: a loaded machine is slow, never wrong).
        let outcome = Result { try CDADocument(parsing: Data(xml.utf8)) }
        switch outcome {
        case .success(let document): #expect((document.title ?? "").count < 1000)
        case .failure(let error): #expect((error as? CloudantError)?.code == .invalidXML)
        }
    }

    @Test func anExternalEntityOnDiskIsNeverRead() throws {
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE ClinicalDocument [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
            \(Self.header)<title>&secret;</title></ClinicalDocument>
            """
        let outcome = Result { try CDADocument(parsing: Data(xml.utf8)) }
        if case .success(let document) = outcome {
            #expect(document.title?.contains("root:") != true)
            #expect(document.title == nil)
        }
    }

    @Test func anExternalEntityOverHTTPIsNeverFetched() throws {
        let listener = try LoopbackListener()
        defer { listener.close() }
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE ClinicalDocument [<!ENTITY remote SYSTEM "http://127.0.0.1:\(listener.port)/evil.xml">]>
            \(Self.header)<title>&remote;</title></ClinicalDocument>
            """
        let outcome = Result { try CDADocument(parsing: Data(xml.utf8)) }
        if case .success(let document) = outcome { #expect(document.title == nil) }
        #expect(listener.acceptedConnections() == 0)
    }

    @Test func anExternalDTDIsNeverLoaded() throws {
        let listener = try LoopbackListener()
        defer { listener.close() }
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE ClinicalDocument SYSTEM "http://127.0.0.1:\(listener.port)/cda.dtd">
            \(Self.header)<title>ok</title></ClinicalDocument>
            """
        #expect(try CDADocument(parsing: Data(xml.utf8)).title == "ok")
        #expect(listener.acceptedConnections() == 0)
    }

    @Test func externalParameterEntitiesAreNeverEvenRequested() throws {
        let before = ExternalEntityGuard.refusals.value
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE ClinicalDocument [<!ENTITY % remote SYSTEM "file:///etc/passwd"> %remote;]>
            \(Self.header)<title>ok</title></ClinicalDocument>
            """
        let outcome = Result { try CDADocument(parsing: Data(xml.utf8)) }
        if case .success(let document) = outcome { #expect(document.title == "ok") }
        // libxml2 does not ask for it at all (no DTDLOAD); the refusing loader is the second line of defence.
        #expect(ExternalEntityGuard.refusals.value == before)
    }

    @Test func inputOverTheSizeLimitIsRefusedBeforeParsing() {
        let error = #expect(throws: CloudantError.self) {
            try CDADocument(parsing: Data(repeating: 0x20, count: 2048), limits: XMLParseLimits(maximumBytes: 1024))
        }
        #expect(error?.code == .invalidXML)
        #expect(error?.message.contains("limit") == true)
    }

    @Test func malformedXMLIsATypedErrorWithLibxml2sReason() {
        let error = #expect(throws: CloudantError.self) { try CDADocument(parsing: Data("<ClinicalDocument".utf8)) }
        #expect(error?.code == .invalidXML)
        #expect(error?.message.contains("line") == true)
    }
}
