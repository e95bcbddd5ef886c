@preconcurrency internal import CLibXML2
internal import CloudantCore
internal import Foundation

/// Reads a GPX track with libxml2's SAX interface, without building the document's tree.
///
/// Reading Apple Health's route files was the last part of a 1M-record import to run on one core (1,591
/// files, 311 MB): profiled, building each file's tree and freeing it was four fifths of reading it, and
/// walking the tree the rest. Here the parser's callbacks keep only what a ``RouteLocation`` needs (the
/// point's `lat`/`lon` and the text of its `time`, `ele` and extension children), so nothing is allocated
/// per element.
///
/// It reads exactly what the tree reading (``GPXRoute/readTree(_:limits:)``) reads, point for point and
/// error for error: local names, the first child of each name, an element's text as the trimmed text of
/// all it contains, entity references left out, and the first bad point reported only once the whole
/// document has proved well formed. A document whose DTD declares entities is read through the tree: the
/// parser reports the text of an entity it checks to the same callbacks, where the tree puts it aside.
enum GPXStreamReader {
    /// Reads the track in `data`.
    /// - Throws: as ``GPXRoute/init(parsing:limits:)``.
    static func read(_ data: Data, limits: XMLParseLimits) throws -> GPXRoute {
        ExternalEntityGuard.install()
        try XMLDocumentReader.checkSize(data.count, limits: limits)
        // Everything the callbacks change is one value behind a pointer the parser context carries: a class's
        // stored properties each cost a runtime exclusivity check per access, a fifth of the reading.
        let state = UnsafeMutablePointer<State>.allocate(capacity: 1)
        state.initialize(to: State())
        defer {
            state.deinitialize(count: 1)
            state.deallocate()
        }
        var handler = xmlSAXHandler()
        xmlSAXVersion(&handler, 2)
        // Every callback is handed the parser context (libxml2's own SAX2 callbacks kept here need it); the
        // reading's state rides in its `_private`.
        handler.startElementNs = { context, localName, _, _, _, _, attributeCount, _, attributes in
            GPXStreamReader.carried(by: context)?.pointee.start(localName, attributes: attributes, count: Int(attributeCount))
        }
        handler.endElementNs = { context, _, _, _ in GPXStreamReader.carried(by: context)?.pointee.end() }
        handler.characters = { context, bytes, length in
            guard let bytes else { return }
            GPXStreamReader.carried(by: context)?.pointee.characters(bytes, Int(length))
        }
        handler.ignorableWhitespace = handler.characters
        handler.reference = nil  // entity references are left out, as the tree's text leaves them out
        handler.entityDecl = { context, name, type, publicID, systemID, content in
            GPXStreamReader.carried(by: context)?.pointee.declaresEntities = true
            xmlSAX2EntityDecl(context, name, type, publicID, systemID, content)
        }
        guard data.count < Int(Int32.max) else { throw CloudantError(.invalidXML, "libxml2 could not allocate a parser.") }
        let outcome = data.withUnsafeBytes { buffer -> (wellFormed: Bool, error: (message: String, line: Int)?)? in
            let input = XMLChunkedInput(buffer)
            return withExtendedLifetime(input) { () -> (wellFormed: Bool, error: (message: String, line: Int)?)? in
                guard
                    let context = xmlCreateIOParserCtxt(
                        &handler, nil, XMLChunkedInput.read, nil, Unmanaged.passUnretained(input).toOpaque(),
                        XML_CHAR_ENCODING_NONE)
                else { return nil }
                context.pointee._private = UnsafeMutableRawPointer(state)
                // `NOCDATA` clears the copied handler's CDATA callback, so CDATA sections reach `characters`, as
                // the tree reading keeps them as text.
                xmlCtxtUseOptions(context, XMLDocumentReader.options(recover: limits.recover))
                xmlParseDocument(context)
                let facts = (context.pointee.wellFormed != 0, XMLDocumentReader.describeLastError(of: context))
                if let document = context.pointee.myDoc { xmlFreeDoc(document) }
                context.pointee.myDoc = nil
                xmlFreeParserCtxt(context)
                return facts
            }
        }
        guard let outcome else { throw CloudantError(.invalidXML, "libxml2 could not allocate a parser.") }
        let read = state.pointee
        if read.declaresEntities { return try GPXRoute.readTree(data, limits: limits) }
        guard let root = read.rootName, outcome.wellFormed || limits.recover else {
            throw XMLDocumentReader.notWellFormed(outcome.error)
        }
        guard root == "gpx" else { throw GPXRoute.notGPX(root: root) }
        if let error = read.firstError { throw error }
        return GPXRoute(name: read.trackName, locations: read.locations)
    }

    /// The reading's state a parser context carries.
    private static func carried(by context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<State>? {
        guard let context, let state = context.assumingMemoryBound(to: xmlParserCtxt.self).pointee._private else { return nil }
        return state.assumingMemoryBound(to: State.self)
    }

    /// What the reading has found so far, and where the parser is.
    private struct State {
        /// Where the parser is, by the names the reading cares about.
        private enum Place { case outside, track, segment, point, extensions }
        /// The fields whose text is read (the track's name; a point's time and numbers).
        private enum Field: Int { case name, time, elevation, horizontalAccuracy, verticalAccuracy, speed, course }

        private var depth = 0
        private var place = Place.outside
        /// The depth of the element whose text is being gathered, and which field it is for.
        private var gathering: (depth: Int, field: Field)?
        private var text: [UInt8] = []

        /// Whether the DTD declares entities (then the tree reads the document).
        var declaresEntities = false
        private(set) var rootName: String?
        private(set) var trackName: String?
        private var tracksSeen = 0
        private var nameRead = false
        private(set) var locations: [RouteLocation] = []
        /// The first point that could not be read; thrown only if the document is well formed.
        private(set) var firstError: CloudantError?

        // The point being read: its attributes' numbers, its time's text, its numbers, the fields seen.
        private var latitude: Double?
        private var longitude: Double?
        private var time: String?
        private var numbers: (elevation: Double?, horizontal: Double?, vertical: Double?, speed: Double?, course: Double?)
        private var seen: UInt8 = 0
        private var extensionsSeen = false

        mutating func start(
            _ localName: UnsafePointer<xmlChar>?, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, count: Int
        ) {
            defer { depth += 1 }
            guard let localName else { return }
            if depth == 0 {
                rootName = String(cString: localName)
                return
            }
            guard gathering == nil, rootName == "gpx" else { return }
            switch (place, depth) {
            case (.outside, 1) where equal(localName, "trk"):
                place = .track
                tracksSeen += 1
            case (.track, 2) where equal(localName, "trkseg"):
                place = .segment
            case (.track, 2) where tracksSeen == 1 && !nameRead && equal(localName, "name"):
                nameRead = true
                begin(.name)
            case (.segment, 3) where equal(localName, "trkpt"):
                place = .point
                (latitude, longitude, time) = (nil, nil, nil)
                numbers = (nil, nil, nil, nil, nil)
                seen = 0
                extensionsSeen = false
                var latitudeRead = false
                var longitudeRead = false
                for index in 0..<count {
                    guard let attributes, let name = attributes[5 * index], let value = attributes[5 * index + 3] else {
                        continue
                    }
                    if !latitudeRead, equal(name, "lat") {
                        latitudeRead = true
                        latitude = GPXStreamReader.attributeNumber(value, attributes[5 * index + 4])
                    } else if !longitudeRead, equal(name, "lon") {
                        longitudeRead = true
                        longitude = GPXStreamReader.attributeNumber(value, attributes[5 * index + 4])
                    }
                }
            case (.point, 4):
                if equal(localName, "time") {
                    beginOnce(.time)
                } else if equal(localName, "ele") {
                    beginOnce(.elevation)
                } else if !extensionsSeen, equal(localName, "extensions") {
                    extensionsSeen = true
                    place = .extensions
                }
            case (.extensions, 5):
                if equal(localName, "hAcc") {
                    beginOnce(.horizontalAccuracy)
                } else if equal(localName, "vAcc") {
                    beginOnce(.verticalAccuracy)
                } else if equal(localName, "speed") {
                    beginOnce(.speed)
                } else if equal(localName, "course") {
                    beginOnce(.course)
                }
            default:
                break
            }
        }

        /// Starts gathering the text of the first child of its name (later ones are not read, as `child(_:)`).
        private mutating func beginOnce(_ field: Field) {
            let bit: UInt8 = 1 << field.rawValue
            guard seen & bit == 0 else { return }
            seen |= bit
            begin(field)
        }

        private mutating func begin(_ field: Field) {
            gathering = (depth, field)
            text.removeAll(keepingCapacity: true)
        }

        mutating func end() {
            depth -= 1
            if let (gatheringDepth, field) = gathering {
                guard depth == gatheringDepth else { return }
                gathering = nil
                switch field {
                case .name: trackName = GPXStreamReader.trimmedText(text)
                case .time: time = GPXStreamReader.trimmedText(text)
                case .elevation: numbers.elevation = GPXStreamReader.textNumber(text)
                case .horizontalAccuracy: numbers.horizontal = GPXStreamReader.textNumber(text)
                case .verticalAccuracy: numbers.vertical = GPXStreamReader.textNumber(text)
                case .speed: numbers.speed = GPXStreamReader.textNumber(text)
                case .course: numbers.course = GPXStreamReader.textNumber(text)
                }
                return
            }
            switch (place, depth) {
            case (.track, 1): place = .outside
            case (.segment, 2): place = .track
            case (.point, 3):
                place = .segment
                finishPoint()
            case (.extensions, 4): place = .point
            default: break
            }
        }

        mutating func characters(_ bytes: UnsafePointer<xmlChar>, _ length: Int) {
            guard gathering != nil else { return }
            text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: length))
        }

        private mutating func finishPoint() {
            guard firstError == nil else { return }
            do {
                locations.append(
                    try GPXRoute.location(
                        latitude: latitude, longitude: longitude, time: time, elevation: numbers.elevation,
                        horizontalAccuracy: numbers.horizontal, verticalAccuracy: numbers.vertical, speed: numbers.speed,
                        course: numbers.course, index: locations.count))
            } catch let error as CloudantError {
                firstError = error
            } catch {
                firstError = CloudantError(.invalidGPX, "\(error)")
            }
        }

        private func equal(_ name: UnsafePointer<xmlChar>, _ wanted: StaticString) -> Bool {
            strcmp(
                UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self),
                UnsafeRawPointer(wanted.utf8Start).assumingMemoryBound(to: CChar.self)) == 0
        }
    }

    /// An element's text as the tree's `text` gives it: trimmed, nil when empty.
    private static func trimmedText(_ bytes: [UInt8]) -> String? {
        let value = XMLElementView.trimmed(String(decoding: bytes, as: UTF8.self))
        return value.isEmpty ? nil : value
    }

    /// An element's text as a number, as the tree's `doubleText` reads it: in place when nothing needs
    /// trimming, else through the trimmed text.
    private static func textNumber(_ bytes: [UInt8]) -> Double? {
        if let first = bytes.first, let last = bytes.last, XMLElementView.isPlain(first), XMLElementView.isPlain(last) {
            return bytes.withUnsafeBufferPointer { DecimalText.double(utf8: $0) }
        }
        return trimmedText(bytes).flatMap(DecimalText.double)
    }

    /// An attribute's value as a number, as the tree's `doubleAttribute` reads it (see ``attributeText(_:_:)``).
    private static func attributeNumber(_ value: UnsafePointer<xmlChar>, _ end: UnsafePointer<xmlChar>?) -> Double? {
        if let end, end.pointee != 0 {
            return DecimalText.double(utf8: UnsafeBufferPointer(start: value, count: end - value))
        }
        return DecimalText.double(attributeText(value, end))
    }

    /// An attribute's value as the tree holds it: in place when libxml2 left it in its input (nothing to
    /// decode), else through the node list libxml2 builds for a value with references, text nodes joined.
    private static func attributeText(_ value: UnsafePointer<xmlChar>, _ end: UnsafePointer<xmlChar>?) -> String {
        let length = end.map { $0 - value } ?? Int(xmlStrlen(value))
        guard let end, end.pointee == 0, memchr(value, Int32(UInt8(ascii: "&")), length) != nil else {
            return String(decoding: UnsafeBufferPointer(start: value, count: length), as: UTF8.self)
        }
        guard let list = xmlStringLenGetNodeList(nil, value, Int32(length)) else { return "" }
        defer { xmlFreeNodeList(list) }
        var bytes: [UInt8] = []
        var cursor: xmlNodePtr? = list
        while let node = cursor {
            if node.pointee.type == XML_TEXT_NODE, let content = node.pointee.content {
                bytes.append(contentsOf: UnsafeBufferPointer(start: content, count: Int(xmlStrlen(content))))
            }
            cursor = node.pointee.next
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
