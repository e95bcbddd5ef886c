import CloudantCore
@testable import CloudantHealthModule
import CloudantTestSupport
import Foundation
import Testing

/// `GPXRoute(parsing:)` reads without a tree; the tree reading it replaced is the reference it must equal.
@Suite("GPX read without a tree equals GPX read through libxml2's tree")
struct GPXStreamReaderTests {
    /// The outcome of one reading: the route, or the error's code, message and context.
    private static func outcome(_ read: () throws -> GPXRoute) -> String {
        do {
            // Described, so that a NaN reads the same on both sides.
            return String(describing: try read())
        } catch let error as CloudantError {
            return "\(error.code) \(error.message) \(String(describing: error.context))"
        } catch {
            return "other: \(error)"
        }
    }

    private static func expectSameReading(_ text: String, recover: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
        let data = Data(text.utf8)
        let limits = XMLParseLimits(recover: recover)
        let streamed = outcome { try GPXStreamReader.read(data, limits: limits) }
        let tree = outcome { try GPXRoute.readTree(data, limits: limits) }
        #expect(streamed == tree, "\(text)", sourceLocation: sourceLocation)
    }

    private static func point(_ inner: String, attributes: String = #"lat="37.5" lon="-122.25""#) -> String {
        "<trkpt \(attributes)>\(inner)</trkpt>"
    }

    private static func gpx(_ body: String, root: String = "gpx", prolog: String = "") -> String {
        #"<?xml version="1.0" encoding="UTF-8"?>"# + prolog + "<\(root) version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\">"
            + body + "</\(root)>"
    }

    private static let time = "<time>2024-06-01T20:00:00Z</time>"

    /// Point `step` of a route the store writes, some fields left out.
    private static func ownPoint(_ step: Int) -> RouteLocation {
        let seconds = Double(step) * 1.5
        let latitude: Double = 37.7 + Double(step) / 100_000
        let altitude: Double? = step % 3 == 0 ? nil : 12.25
        let speed: Double? = step % 2 == 0 ? 2.5 : nil
        return RouteLocation(
            timestamp: Date(timeIntervalSince1970: 1_717_272_000 + seconds), latitude: latitude, longitude: -122.4,
            altitude: altitude, horizontalAccuracy: 3.5, verticalAccuracy: nil, speed: speed, course: 181.25)
    }

    @Test("Apple's route files and the store's own GPX read point for point the same")
    func appleAndOwnFilesReadTheSame() async throws {
        let export = try await GeneratedHealthExport.make(records: 2000, seed: 5, extra: ["--route-points", "30"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let folder = export.exportFolder.appendingPathComponent("workout-routes")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".gpx") }
        #expect(!files.isEmpty)
        for file in files {
            Self.expectSameReading(try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
        }
        let own = GPXRoute(name: "Run <5k> & back", locations: (0..<50).map(Self.ownPoint))
        Self.expectSameReading(String(decoding: own.gpxData(), as: UTF8.self))
    }

    @Test("Odd but well-formed documents: nesting, repeats, CDATA, references, comments, prefixes, spaces")
    func oddDocumentsReadTheSame() {
        let t = Self.time
        let cases: [String] = [
            Self.gpx("<trk><name>  Two\nlines </name><name>second</name><trkseg>\(Self.point(t))</trkseg></trk>"),
            Self.gpx("<trk><name><b>bold</b> and <i>it</i></name><trkseg>\(Self.point(t))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point(t))</trkseg></trk><trk><name>not first</name><trkseg>\(Self.point(t))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point(t))\(Self.point(t))</trkseg><trkseg>\(Self.point(t))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point("<time><![CDATA[2024-06-01T20:00:00Z]]></time><ele><![CDATA[ 12.5 ]]></ele>"))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point("<time>2024-06-01T20:00:00Z</time><time>garbage</time><ele>1</ele><ele>2</ele>"))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point("<time>2024-06-01T<!-- c -->20:00:00Z</time><ele>1<?pi x?>2</ele>"))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point("<time>2024-06-01T20:00:00Z</time><ele>1&#50;.5</ele><extensions><speed>&#x33;</speed></extensions>"))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point("<time>2024-06-01T20:00:00Z</time><ele>1&amp;2</ele>"))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point("<time> <x>2024-06-01T20:00:00Z</x> </time>"))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point("\(t)<extensions><hAcc>1</hAcc><hAcc>9</hAcc><vAcc> 2 </vAcc></extensions><extensions><speed>3</speed></extensions>"))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point("\(t)<extensions><w><speed>3</speed></w><course>nan</course></extensions>"))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point("\(t)<ele>1e3</ele><extensions><speed>-0</speed><course>inf</course></extensions>"))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point(t, attributes: #"lat=" 37.5" lon="-122.25""#))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point(t, attributes: #"lat="3&#55;.5" lon="-122.25""#))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point(t, attributes: #"lat="37&amp;5" lon="-122.25""#))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point(t, attributes: #"x:lat="37.5" lat="1" lon="2" xmlns:x="urn:x""#))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point(t, attributes: #"lat="91" lon="2""#))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point(t, attributes: #"lon="2""#))</trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point(t))\(Self.point("<time></time>"))\(Self.point("<time>x</time>"))</trkseg></trk>"),
            Self.gpx("<g:trk xmlns:g=\"urn:g\"><g:trkseg><g:trkpt lat=\"1\" lon=\"2\"><g:time>2024-06-01T20:00:00Z</g:time></g:trkpt></g:trkseg></g:trk>"),
            Self.gpx("<wpt lat=\"1\" lon=\"2\"/><rte><trkseg>\(Self.point(t))</trkseg></rte><trk><x><trkseg>\(Self.point(t))</trkseg></x></trk>"),
            Self.gpx("<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><trkpt lat=\"3\" lon=\"4\">\(t)</trkpt>\(t)</trkpt></trkseg></trk>"),
            Self.gpx("<trk><trkseg>\(Self.point(t))</trkseg></trk>", root: "kml"),
            Self.gpx("<trk><trkseg>\(Self.point(t))</trkseg></trk>", root: "x:gpx xmlns:x=\"urn:x\""),
            Self.gpx("", prolog: "<!DOCTYPE gpx [<!ELEMENT gpx ANY><!ATTLIST trkpt lat CDATA #REQUIRED>]>"),
            Self.gpx("<trk><trkseg>\(Self.point("<time>2024-06-01T&part;</time>"))</trkseg></trk>",
                     prolog: "<!DOCTYPE gpx [<!ENTITY part \"20:00:00Z\">]>"),
            Self.gpx("<trk><name>&n;</name><trkseg>\(Self.point(t, attributes: #"lat="&l;" lon="2""#))</trkseg></trk>",
                     prolog: "<!DOCTYPE gpx [<!ENTITY n \"named\"><!ENTITY l \"5\">]>"),
            Self.gpx("<trk><trkseg>\(Self.point(t, attributes: #"lat="1" lon="2" lat="3""#))</trkseg></trk>"),
        ]
        for text in cases { Self.expectSameReading(text) }
    }

    @Test("Malformed, empty and cut-short documents fail the same, and recover the same")
    func malformedDocumentsFailTheSame() {
        let t = Self.time
        let cases: [String] = [
            "", "not xml", "<gpx>", "<gpx><trk></gpx>",
            Self.gpx("<trk><trkseg>\(Self.point(t, attributes: #"lat="91" lon="2""#))</trkseg></trk><oops>"),
            Self.gpx("<trk><trkseg>\(Self.point(t))</trkseg></trk>") + "<trailing/>",
            String(Self.gpx("<trk><trkseg>\(Self.point(t))\(Self.point(t))</trkseg></trk>").dropLast(20)),
            Self.gpx("<trk><trkseg>\(Self.point("<time>&undeclared;</time>"))</trkseg></trk>"),
            "<kml><unclosed></kml>",
        ]
        for text in cases {
            Self.expectSameReading(text)
            Self.expectSameReading(text, recover: true)
        }
    }

    @Test("Size limit, entity bombs and external entities are refused the same")
    func hostileDocumentsAreRefusedTheSame() {
        var bomb = "<!DOCTYPE gpx [<!ENTITY a0 \"lol\">"
        for level in 1...9 { bomb += "<!ENTITY a\(level) \"" + String(repeating: "&a\(level - 1);", count: 10) + "\">" }
        bomb += "]>"
        Self.expectSameReading(Self.gpx("<trk><name>&a9;</name></trk>", prolog: bomb))
        Self.expectSameReading(Self.gpx("<trk><name>&x;</name></trk>", prolog: "<!DOCTYPE gpx [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"))
        let data = Data(Self.gpx("<trk/>").utf8)
        let limits = XMLParseLimits(maximumBytes: 10)
        #expect(Self.outcome { try GPXStreamReader.read(data, limits: limits) } == Self.outcome { try GPXRoute.readTree(data, limits: limits) })
    }
}
