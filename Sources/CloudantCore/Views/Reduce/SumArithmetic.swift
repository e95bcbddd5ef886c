/// `_sum` as CouchDB adds values (`couch_query_servers:sum_values`): numbers add (integers exactly, as
/// Erlang's do, anything with a fraction as a double), arrays add element by element (the longer one's tail
/// kept), a number adds to an array's first element, and objects add member by member, recursively, with
/// their members sorted by name once two are merged.
enum SumArithmetic {
    /// A value `_sum` cannot add; ``reduction`` is what CouchDB answers with in its place.
    struct Failure: Error {
        var reduction: JSONValue
    }

    static let message =
        "The _sum function requires that map values be numbers, arrays of numbers, or objects. Objects cannot be mixed with other data structures. Objects can be arbitrarily nested, provided that the values for all fields are themselves numbers, arrays of numbers, or objects."

    /// `sum_values(Value, Acc)`.
    static func add(_ value: JSONValue, to accumulated: JSONValue) throws(Failure) -> JSONValue {
        switch (value, accumulated) {
        case (.number(let x), .number(let y)):
            return .number(ErlangNumber.add(y, x))
        case (.array(let values), .array(let sums)):
            return .array(try addArrays(sums, values))
        case (.number, .array(let sums)):
            return .array(try addArrays(sums, [value]))
        case (.array(let values), .number):
            return .array(try addArrays([accumulated], values))
        case (.object(let members), _):
            if members["error"] == .string("builtin_reduce_error") { throw Failure(reduction: value) }
            if case .number(.integer(0)) = accumulated { return value }
            guard case .object(let sums) = accumulated else { throw failure(causedBy: value) }
            return .object(JSONObject(try addObjects(sorted(members), sorted(sums)).map { ($0.key, $0.value) }))
        default:
            throw failure(causedBy: value)
        }
    }

    /// `sum_arrays(Xs, Ys)`.
    private static func addArrays(_ xs: [JSONValue], _ ys: [JSONValue]) throws(Failure) -> [JSONValue] {
        var result: [JSONValue] = []
        result.reserveCapacity(max(xs.count, ys.count))
        for index in 0..<max(xs.count, ys.count) {
            if index >= ys.count { return result + xs[index...] }
            if index >= xs.count { return result + ys[index...] }
            guard case .number(let x) = xs[index], case .number(let y) = ys[index] else {
                throw failure(causedBy: .array(Array(xs[index...])))
            }
            result.append(.number(ErlangNumber.add(x, y)))
        }
        return result
    }

    /// `sum_objects`: two member lists sorted by name, merged, equal names added.
    private static func addObjects(
        _ a: [(key: String, value: JSONValue)], _ b: [(key: String, value: JSONValue)]
    ) throws(Failure) -> [(key: String, value: JSONValue)] {
        var result: [(key: String, value: JSONValue)] = []
        var i = 0
        var j = 0
        while i < a.count && j < b.count {
            let order = Collation.compareBytes(a[i].key, b[j].key)
            if order == 0 {
                result.append((a[i].key, try add(a[i].value, to: b[j].value)))
                i += 1
                j += 1
            } else if order < 0 {
                result.append(a[i])
                i += 1
            } else {
                result.append(b[j])
                j += 1
            }
        }
        return result + a[i...] + b[j...]
    }

    private static func sorted(_ object: JSONObject) -> [(key: String, value: JSONValue)] {
        object.members.sorted { Collation.compareBytes($0.key, $1.key) < 0 }
    }

    private static func failure(causedBy cause: JSONValue) -> Failure {
        Failure(reduction: ["error": "builtin_reduce_error", "reason": .string(message), "caused_by": cause])
    }
}

/// Erlang's arithmetic on JSON numbers: integers exact at any size, a double as soon as one side is one.
enum ErlangNumber {
    static func add(_ a: JSONNumber, _ b: JSONNumber) -> JSONNumber {
        switch (a, b) {
        case (.integer(let x), .integer(let y)):
            let (sum, overflow) = x.addingReportingOverflow(y)
            return overflow ? big(DecimalInteger(x) + DecimalInteger(y)) : .integer(sum)
        case (.double, _), (_, .double):
            return .double(a.doubleValue + b.doubleValue)
        default:
            return big(DecimalInteger(a) + DecimalInteger(b))
        }
    }

    static func multiply(_ a: JSONNumber, _ b: JSONNumber) -> JSONNumber {
        switch (a, b) {
        case (.integer(let x), .integer(let y)):
            let (product, overflow) = x.multipliedReportingOverflow(by: y)
            return overflow ? big(DecimalInteger(x) * DecimalInteger(y)) : .integer(product)
        case (.double, _), (_, .double):
            return .double(a.doubleValue * b.doubleValue)
        default:
            return big(DecimalInteger(a) * DecimalInteger(b))
        }
    }

    /// `erlang:min`: the first when they compare equal.
    static func min(_ a: JSONNumber, _ b: JSONNumber) -> JSONNumber { JSONNumber.compare(b, a) < 0 ? b : a }
    /// `erlang:max`: the first when they compare equal.
    static func max(_ a: JSONNumber, _ b: JSONNumber) -> JSONNumber { JSONNumber.compare(b, a) > 0 ? b : a }

    private static func big(_ value: DecimalInteger) -> JSONNumber {
        if let small = Int64(value.description) { return .integer(small) }
        return .bigInteger(value.description)
    }
}

/// An integer of any size as base-10⁹ limbs: enough arithmetic for sums and squares beyond 64 bits.
struct DecimalInteger: CustomStringConvertible {
    private static let base: UInt64 = 1_000_000_000
    /// Least significant first.
    private var limbs: [UInt64]
    private var negative: Bool

    init(_ value: Int64) {
        negative = value < 0
        var magnitude = value.magnitude
        limbs = []
        repeat {
            limbs.append(magnitude % Self.base)
            magnitude /= Self.base
        } while magnitude > 0
    }

    init(_ number: JSONNumber) {
        switch number {
        case .integer(let value): self.init(value)
        case .bigInteger(let digits): self.init(digits: digits)
        case .double(let value): self.init(Int64(clamping: Int64(exactly: value.rounded(.towardZero)) ?? 0))
        }
    }

    private init(digits: String) {
        negative = digits.hasPrefix("-")
        let text = Array(digits.utf8.drop { $0 == UInt8(ascii: "-") })
        limbs = []
        var end = text.count
        while end > 0 {
            let start = Swift.max(0, end - 9)
            limbs.append(UInt64(String(decoding: text[start..<end], as: UTF8.self)) ?? 0)
            end = start
        }
        if limbs.isEmpty { limbs = [0] }
    }

    var description: String {
        var text = String(limbs.last ?? 0)
        for limb in limbs.dropLast().reversed() {
            let part = String(limb)
            text += String(repeating: "0", count: 9 - part.count) + part
        }
        return (negative && text != "0" ? "-" : "") + text
    }

    static func + (a: DecimalInteger, b: DecimalInteger) -> DecimalInteger {
        if a.negative == b.negative {
            var result = a
            result.limbs = addMagnitudes(a.limbs, b.limbs)
            return result
        }
        // Different signs: the larger magnitude minus the smaller, with its sign.
        let order = compareMagnitudes(a.limbs, b.limbs)
        if order == 0 { return DecimalInteger(0) }
        var result = order > 0 ? a : b
        result.limbs = order > 0 ? subtractMagnitudes(a.limbs, b.limbs) : subtractMagnitudes(b.limbs, a.limbs)
        return result
    }

    static func * (a: DecimalInteger, b: DecimalInteger) -> DecimalInteger {
        var product = [UInt64](repeating: 0, count: a.limbs.count + b.limbs.count + 1)
        for (i, x) in a.limbs.enumerated() {
            var carry: UInt64 = 0
            for (j, y) in b.limbs.enumerated() {
                let value = product[i + j] + x * y + carry
                product[i + j] = value % base
                carry = value / base
            }
            var k = i + b.limbs.count
            while carry > 0 {
                let value = product[k] + carry
                product[k] = value % base
                carry = value / base
                k += 1
            }
        }
        while product.count > 1 && product.last == 0 { product.removeLast() }
        var result = DecimalInteger(0)
        result.limbs = product
        result.negative = a.negative != b.negative
        return result
    }

    private static func addMagnitudes(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var result: [UInt64] = []
        var carry: UInt64 = 0
        for index in 0..<Swift.max(a.count, b.count) {
            let value = (index < a.count ? a[index] : 0) + (index < b.count ? b[index] : 0) + carry
            result.append(value % base)
            carry = value / base
        }
        if carry > 0 { result.append(carry) }
        return result
    }

    private static func subtractMagnitudes(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var result: [UInt64] = []
        var borrow: UInt64 = 0
        for index in 0..<a.count {
            let subtrahend = (index < b.count ? b[index] : 0) + borrow
            if a[index] >= subtrahend {
                result.append(a[index] - subtrahend)
                borrow = 0
            } else {
                result.append(a[index] + base - subtrahend)
                borrow = 1
            }
        }
        while result.count > 1 && result.last == 0 { result.removeLast() }
        return result
    }

    private static func compareMagnitudes(_ a: [UInt64], _ b: [UInt64]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for index in stride(from: a.count - 1, through: 0, by: -1) where a[index] != b[index] {
            return a[index] < b[index] ? -1 : 1
        }
        return 0
    }
}
