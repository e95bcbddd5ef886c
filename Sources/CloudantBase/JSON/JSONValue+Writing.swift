public import Foundation

extension JSONValue {
    /// The value as compact UTF-8 JSON.
    ///
    /// No whitespace; object members in their stored order unless `sortedKeys` is set; `"`, `\` and control
    /// characters escaped, `/` and non-ASCII characters written as they are. Integers are written as digits
    /// and doubles as the shortest text that reads back to the same `Double`, so a parsed `1.0` is written
    /// `1.0` again. A non-finite double (which no parsed value holds) is written as `null`, as JavaScript's
    /// `JSON.stringify` does.
    ///
    /// ```swift
    /// let value: JSONValue = ["b": 1, "a": [true, nil]]
    /// String(decoding: value.jsonBytes(), as: UTF8.self)                   // {"b":1,"a":[true,null]}
    /// String(decoding: value.jsonBytes(sortedKeys: true), as: UTF8.self)   // {"a":[true,null],"b":1}
    /// ```
    ///
    /// - Parameter sortedKeys: Write every object's members sorted by the UTF-8 bytes of their names.
    public func jsonBytes(sortedKeys: Bool = false) -> [UInt8] {
        JSONWriter.bytes(of: self, options: .init(sortedKeys: sortedKeys))
    }

    /// The value as compact JSON text; see ``jsonBytes(sortedKeys:)`` for the format.
    ///
    /// ```swift
    /// let text = JSONValue.array([1, "two"]).jsonString()   // [1,"two"]
    /// ```
    ///
    /// - Parameter sortedKeys: Write every object's members sorted by the UTF-8 bytes of their names.
    public func jsonString(sortedKeys: Bool = false) -> String {
        String(decoding: jsonBytes(sortedKeys: sortedKeys), as: UTF8.self)
    }

    /// The value as compact UTF-8 JSON in `Data`; see ``jsonBytes(sortedKeys:)`` for the format.
    ///
    /// ```swift
    /// request.httpBody = document.jsonData()
    /// ```
    ///
    /// - Parameter sortedKeys: Write every object's members sorted by the UTF-8 bytes of their names.
    public func jsonData(sortedKeys: Bool = false) -> Data {
        Data(jsonBytes(sortedKeys: sortedKeys))
    }

    /// The canonical JSON form of the value: the bytes content digests are computed from (replication ids,
    /// model version hashes, the ids of derived documents).
    ///
    /// Canonical form is ``jsonBytes(sortedKeys:)`` with sorted keys, plus numbers written by value alone:
    /// a double equal to an `Int64` is written as that integer (`1.0` → `1`, `-0.0` → `0`), so values that
    /// compare equal as ``JSONNumber``s serialise the same. Other doubles use Swift's shortest round-trip text.
    ///
    /// - Important: This format must never change once data exists: ids and hashes stored with the data
    ///   were computed from it. The golden tests in `CanonicalJSONTests` pin it.
    ///
    /// ```swift
    /// let value: JSONValue = ["b": 1.0, "a": "x"]
    /// String(decoding: value.canonicalJSONBytes(), as: UTF8.self)   // {"a":"x","b":1}
    /// ```
    public func canonicalJSONBytes() -> [UInt8] {
        JSONWriter.bytes(of: self, options: .init(sortedKeys: true, canonicalNumbers: true))
    }

    /// The value with sorted keys (``jsonBytes(sortedKeys:)``), and its canonical form
    /// (``canonicalJSONBytes()``) computed from one serialisation whenever the two are the same bytes, which
    /// they are unless a double equal to an integer (`74.0`) is written.
    ///
    /// For writers that store the first and hash the second, such as bulk imports.
    ///
    /// ```swift
    /// let (stored, canonical) = JSONValue.object(["b": 2, "a": 1.5]).sortedAndCanonicalJSONBytes()
    /// // both {"a":1.5,"b":2}
    /// ```
    public func sortedAndCanonicalJSONBytes() -> (sorted: [UInt8], canonical: [UInt8]) {
        var writer = JSONWriter(options: .init(sortedKeys: true))
        writer.write(self)
        return (writer.output, writer.wroteIntegralDouble ? canonicalJSONBytes() : writer.output)
    }
}
