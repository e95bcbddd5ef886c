internal import CloudantCore
internal import Foundation

// CareKit's own JSON (a plain `JSONEncoder`) writes dates as seconds since 2001-01-01, the store writes ISO 8601
// text. Care entities accept both whatever the decoder's date strategy is, so one `JSONDecoder` reads JSON from
// either source. The decoder's own strategy is tried first so that a caller's explicit choice still wins.
extension KeyedDecodingContainer {
    func decodeCareDate(forKey key: Key) throws -> Date {
        if let date = try? decode(Date.self, forKey: key) { return date }
        if let seconds = try? decode(Double.self, forKey: key) {
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        if let text = try? decode(String.self, forKey: key), let date = ISO8601Timestamp.date(from: text) {
            return date
        }
        throw DecodingError.dataCorruptedError(
            forKey: key, in: self,
            debugDescription: "Expected an ISO 8601 date-time or CareKit's seconds since 2001-01-01.")
    }

    func decodeCareDateIfPresent(forKey key: Key) throws -> Date? {
        guard contains(key), try decodeNil(forKey: key) == false else { return nil }
        return try decodeCareDate(forKey: key)
    }
}
