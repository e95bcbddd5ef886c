internal import Foundation

extension JSONValue {
    /// Encodes an entity (any `Encodable`) into a JSON value with ``CloudantJSONCoding``'s settings.
    ///
    /// The value goes through Foundation's `JSONEncoder` and then this module's parser, so the result is
    /// exactly the JSON a peer would receive and there is no second `Encoder` implementation to keep correct.
    ///
    /// ```swift
    /// let body = try JSONValue(encoding: task)   // dates as "2024-05-01T09:30:00.250Z"
    /// ```
    ///
    /// - Throws: ``CloudantError/Code/invalidInput`` naming the failing member path in
    ///   ``CloudantError/Context/field`` when the value cannot be encoded (a non-finite `Double`, a date beyond
    ///   ±999999 years); errors thrown by the type's own `encode(to:)` pass through unchanged.
    public init(encoding value: some Encodable) throws {
        let data: Data
        do {
            data = try CloudantJSONCoding.sharedEncoder.encode(value)
        } catch let error as EncodingError {
            throw Self.cloudantError(for: error, type: type(of: value))
        }
        self = try JSONValue(parsing: data)
    }

    /// Decodes an entity (any `Decodable`) from this JSON value with ``CloudantJSONCoding``'s settings.
    ///
    /// ```swift
    /// let task = try document.decode(Task.self)
    /// ```
    ///
    /// - Throws: ``CloudantError/Code/invalidInput`` when the value does not have the type's shape. The
    ///   member path (`outcomes[2].date`) is in ``CloudantError/Context/field`` and the `DecodingError` in
    ///   ``CloudantError/underlying``; the message names what is wrong but never the document's content.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        // Straight from the parsed value, as `JSONDecoder` would decode its text. A failure is decoded again
        // by `JSONDecoder` itself, so errors are exactly the ones it reports.
        if let decoded = try? JSONValueDecoder.decode(T.self, from: self) { return decoded }
        do {
            return try CloudantJSONCoding.sharedDecoder.decode(T.self, from: jsonData())
        } catch let error as DecodingError {
            throw Self.cloudantError(for: error, type: T.self)
        }
    }

    // MARK: Errors

    private static func cloudantError(for error: DecodingError, type: Any.Type) -> CloudantError {
        let problem: String
        let path: [any CodingKey]
        switch error {
        case .typeMismatch(let expected, let context):
            problem = "a member holds the wrong kind of value (expected \(expected))"
            path = context.codingPath
        case .valueNotFound(let expected, let context):
            problem = "a member is null or missing where a value is required (expected \(expected))"
            path = context.codingPath
        case .keyNotFound(let key, let context):
            problem = "a required member is missing"
            path = context.codingPath + [key]
        case .dataCorrupted(let context):
            problem = "a member holds a malformed value"
            path = context.codingPath
        @unknown default:
            problem = "the value does not match the type"
            path = []
        }
        return CloudantError(
            .invalidInput,
            "Could not decode \(type): \(problem). Check that the document was written by a compatible version of the type.",
            context: .init(field: path.isEmpty ? nil : codingPathDescription(path)),
            underlying: error)
    }

    private static func cloudantError(for error: EncodingError, type: Any.Type) -> CloudantError {
        var path: [any CodingKey] = []
        if case .invalidValue(_, let context) = error { path = context.codingPath }
        // The `EncodingError` itself is not passed on: it holds the offending value, which may be personal data.
        return CloudantError(
            .invalidInput,
            "Could not encode \(type): a member holds a value JSON cannot represent (such as a non-finite number).",
            context: .init(field: path.isEmpty ? nil : codingPathDescription(path)))
    }

    /// `outcomes[2].date` for the keys `outcomes`, index 2, `date`.
    static func codingPathDescription(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += key.stringValue
            }
        }
        return text
    }
}
