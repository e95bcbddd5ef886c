// Fuzz target: the JSON parser and writer (CloudantCore/JSON).
//
// Invariants, for every input:
// - accepted text is well-formed UTF-8 (RFC 8259 allows nothing else);
// - parse → write → parse gives an equal value, and writing that again gives the same bytes (the writer's
//   output is a fixed point), for the compact, sorted and canonical forms;
// - a rejected input throws a `CloudantError` `invalidInput` with a byte position inside the input, and
//   its message never quotes the input.

import CloudantCore
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let value: JSONValue
    do {
        value = try JSONValue(parsing: bytes)
    } catch let error as CloudantError {
        require(error.code == .invalidInput, "a rejected input is invalidInput, not \(error.code)")
        guard let position = error.context.position else {
            require(false, "a rejected input names a position")
            return keepInput
        }
        require(position >= 0 && position <= size, "the position \(position) lies inside the \(size)-byte input")
        // Bytes, not `String.contains`: Foundation's substring search stops at a NUL.
        if size >= 12 {
            require(Array(error.description.utf8).firstRange(of: Array(bytes)) == nil, "the error message does not quote the input")
        }
        return keepInput
    } catch {
        require(false, "a rejected input throws CloudantError, not \(type(of: error))")
        return keepInput
    }
    require(String(validating: bytes, as: UTF8.self) != nil, "only well-formed UTF-8 is accepted")

    let written = value.jsonBytes()
    let sorted = value.jsonBytes(sortedKeys: true)
    let canonical = value.canonicalJSONBytes()
    for (form, text) in [("compact", written), ("sorted", sorted), ("canonical", canonical)] {
        let again: JSONValue
        do {
            again = try JSONValue(parsing: text)
        } catch {
            require(false, "the \(form) form of an accepted value parses back (\(error))")
            return keepInput
        }
        require(again == value, "the \(form) form parses back to an equal value")
        require(again.canonicalJSONBytes() == canonical, "the \(form) form keeps the canonical bytes")
    }
    let reparsed = (try? JSONValue(parsing: written)) ?? .null
    require(reparsed.jsonBytes() == written, "the compact form is a fixed point of parse → write")
    require(reparsed.jsonBytes(sortedKeys: true) == sorted, "the sorted form is a fixed point of parse → write")
    let pair = value.sortedAndCanonicalJSONBytes()
    require(pair.sorted == sorted && pair.canonical == canonical, "sortedAndCanonicalJSONBytes agrees with both forms")
    return keepInput
}
