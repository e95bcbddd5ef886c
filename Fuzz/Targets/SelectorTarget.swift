// Fuzz target: the Mango selector parser and normaliser (CloudantCore/Query), and `_find` bodies.
//
// An input is JSON text (inputs that are not JSON are left out of the corpus). Invariants:
// - parsing never traps, and a refused selector throws a `CloudantError` `invalidInput` of category
//   `invalidInput` (the server's 400) that carries CouchDB's error name (`queryErrorKind`);
// - an accepted selector's normalised JSON parses back to an equal selector (normalising is idempotent),
//   also after a trip through JSON text;
// - matching sample documents never traps (regex work is bounded), and the re-parsed selector matches
//   exactly the same documents;
// - a `_find` body (an object with "selector") parses or is refused with a `CloudantError`, and an
//   accepted one's selector is the selector parsed on its own.

import CloudantCore
import Foundation

/// Documents to match: nested objects and arrays, every JSON type, numbers of every kind, strings with
/// dots, dollars and non-ASCII, so that most conditions can both match and fail.
private let sampleDocuments: [JSONObject] = {
    let texts = [
        #"{"_id":"a","name":"Alice","age":30,"tags":["x","y"],"address":{"city":"Basel","zip":"4051"},"score":1.5}"#,
        #"{"_id":"b","name":"bob","age":"30","tags":[],"a":{"b":{"c":[1,2,{"d":null}]}},"flag":true}"#,
        #"{"_id":"c","age":-7,"n":9007199254740993,"big":123456789012345678901234567890,"e":{},"f.g":1,"$h":2}"#,
        #"{"_id":"d","name":"Ægir ü 😀","tags":[["nested"],{"k":"v"}],"age":null,"x":[0,1,2,3,4,5,6,7,8,9,10]}"#,
        #"{}"#,
    ]
    return texts.compactMap { (try? JSONValue(parsing: $0))?.objectValue }
}()

/// A small step budget: a catastrophic pattern is refused quickly instead of slowing the run down.
private let limits = MatchLimits(regexStepLimit: 200_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSelector(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let json = try? JSONValue(parsing: UnsafeBufferPointer(start: data, count: size)) else { return rejectInput }

    if case .object(let object) = json, object["selector"] != nil {
        do {
            let request = try FindRequest(json)
            if let selector = object["selector"] {
                let alone = try? MangoSelector(selector)
                require(alone == request.selector, "a _find body's selector is the selector parsed on its own")
            }
        } catch let error as CloudantError {
            require(error.category == .invalidInput, "a refused _find body is invalid input (a 400), not \(error.category)")
        } catch {
            require(false, "a refused _find body throws CloudantError, not \(type(of: error))")
        }
    }

    let selector: MangoSelector
    do {
        selector = try MangoSelector(json)
    } catch {
        require(error.code == .invalidInput, "a refused selector is invalidInput, not \(error.code)")
        require(error.category == .invalidInput, "a refused selector is invalid input (a 400), not \(error.category)")
        require(error.queryErrorKind != nil, "a refused selector carries CouchDB's error name")
        return keepInput
    }

    let normalised = selector.json
    let again: MangoSelector
    do {
        again = try MangoSelector(normalised)
    } catch {
        require(false, "the normalised form of an accepted selector parses back (\(error.queryErrorKind?.rawValue ?? "?"))")
        return keepInput
    }
    require(again == selector, "re-parsing the normalised selector gives the same selector")
    require(again.json.jsonBytes() == normalised.jsonBytes(), "normalising is idempotent")
    guard let text = try? JSONValue(parsing: normalised.jsonBytes()), let viaText = try? MangoSelector(text) else {
        require(false, "the normalised selector survives a trip through JSON text")
        return keepInput
    }
    require(viaText == selector, "the normalised selector read back from JSON text is the same selector")

    for document in sampleDocuments {
        let first: Bool?
        do {
            first = try selector.matches(document, limits: limits)
        } catch {
            first = nil  // The regex budget ran out: allowed, and the same must happen again below.
        }
        let second = try? again.matches(document, limits: limits)
        require(first == second, "the original and the re-parsed selector match the same documents")
    }
    return keepInput
}
