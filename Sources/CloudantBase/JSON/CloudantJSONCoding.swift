public import Foundation

/// The JSON encoder and decoder settings of the store, for entities and their fields.
///
/// - Dates are ISO 8601 text in UTC with milliseconds (`2024-05-01T09:30:00.250Z`), rounded to the nearest
///   millisecond, exactly as JavaScript's `Date.toISOString()` writes them. The original store wrote whole
///   seconds and lost the rest; a date written here reads back as the same `Date` whenever it was
///   millisecond-exact. The decoder also accepts dates without a fraction, with more fractional digits, and
///   with a `±HH:MM` offset.
/// - `Data` is standard, padded base64.
/// - Keys are written sorted, so the same entity always encodes to the same bytes, and `/` is not escaped.
///
/// ```swift
/// let data = try CloudantJSONCoding.makeEncoder().encode(task)
/// let again = try CloudantJSONCoding.makeDecoder().decode(Task.self, from: data)
/// ```
///
/// ``JSONValue/init(encoding:)`` and ``JSONValue/decode(_:)`` use these settings to move entities in and out
/// of documents.
public enum CloudantJSONCoding {
    /// A new `JSONEncoder` with the store's settings (see ``CloudantJSONCoding``).
    ///
    /// ```swift
    /// let encoder = CloudantJSONCoding.makeEncoder()
    /// let data = try encoder.encode(task)
    /// ```
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dataEncodingStrategy = .base64
        encoder.dateEncodingStrategy = .custom { date, encoder in
            guard let text = ISO8601Timestamp.string(from: date) else {
                throw EncodingError.invalidValue(
                    date,
                    .init(
                        codingPath: encoder.codingPath,
                        debugDescription: "The date is beyond the years ±999999 that ISO 8601 text can hold."))
            }
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
        return encoder
    }

    // Shared by the entity bridge so each call does not rebuild a coder. Foundation's coders are `Sendable`
    // and keep their options behind a lock, so concurrent use is safe; nothing mutates these after creation.
    static let sharedEncoder = makeEncoder()
    static let sharedDecoder = makeDecoder()

    /// A new `JSONDecoder` with the store's settings (see ``CloudantJSONCoding``).
    ///
    /// ```swift
    /// let task = try CloudantJSONCoding.makeDecoder().decode(Task.self, from: data)
    /// ```
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .base64
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = ISO8601Timestamp.date(from: text) else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "Expected an ISO 8601 date-time such as 2024-05-01T09:30:00.250Z.")
            }
            return date
        }
        return decoder
    }
}
