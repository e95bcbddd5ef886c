internal import CloudantCore
internal import Foundation

/// A reduce function whose partials ``ViewReductionBlocks`` keeps: a built-in (run in Swift, its partials
/// ``ReduceAccumulator/partial``), or a design function run by a runtime, whose blocks' results its rereduce combines as CouchDB
/// rereduces its b-tree's inner nodes.
enum ViewBlockReduction: Sendable {
    case builtIn(BuiltInReduce)
    case runtime(source: String, runtime: any DesignFunctionRuntime)

    /// The reduce a view's function gives blocks to: a built-in, or a runtime's function when there is a
    /// runtime; nil for a JavaScript function without one.
    init?(source: String, runtime: (any DesignFunctionRuntime)?) {
        if let builtIn = BuiltInReduce(source) {
            self = .builtIn(builtIn)
        } else if let runtime, !source.hasPrefix("_") {
            self = .runtime(source: source, runtime: runtime)
        } else {
            return nil
        }
    }

    /// The name the blocks are kept under: a built-in's (`_sum`), or `js:` and the MD5 of the function's
    /// source (the index's signature covers the sources, so one name stands for one function).
    var name: String {
        switch self {
        case .builtIn(let function): return function.name
        case .runtime(let source, _): return Self.runtimeName(source)
        }
    }

    static func runtimeName(_ source: String) -> String {
        "js:" + AttachmentDigest.md5(Array(source.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// A new reduction of one block's rows, fed a row at a time.
    func accumulation() -> Accumulation { Accumulation(reduction: self) }

    /// One block's rows being reduced: a built-in adds each row as it comes, a runtime's function is called
    /// once over them all.
    struct Accumulation {
        let reduction: ViewBlockReduction
        private var accumulator: ReduceAccumulator?
        private var rows: [JSONValue] = []
        private var refused = false

        init(reduction: ViewBlockReduction) {
            self.reduction = reduction
            if case .builtIn(let function) = reduction { accumulator = function.accumulator() }
        }

        /// Adds a row of ``ViewReductionBlocks``' reads (columns: key, document id, key JSON, value JSON).
        mutating func add(_ row: DirectRow) {
            let stored = InPlaceViewRow(row: row)
            do {
                if accumulator != nil {
                    try accumulator!.add(stored)
                } else if !refused {
                    rows.append([[try stored.parsedKey(), .string(stored.documentID)], try stored.parsedValue()])
                }
            } catch {
                refused = true
            }
        }

        /// The block's partial; nil when there is none to keep (a value the built-in refuses, a runtime's result
        /// that overflowed or failed), so queries read the rows and meet the error as without blocks.
        func partial() -> JSONValue? {
            guard !refused else { return nil }
            if let accumulator { return accumulator.partial }
            guard case .runtime(let source, let runtime) = reduction else { return nil }
            return try? runtime.reduce([source], rows: rows, context: "").first
        }
    }
}
