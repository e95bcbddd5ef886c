import CloudantCore
import Testing

@Suite("Design document rules (CouchDB's couch_mrview validation)")
struct DesignDocumentRulesTests {
    /// The reason a check refuses with (it must be `invalid_design_doc`), or nil when it passes.
    private func refusal(_ check: () throws -> Void) -> String? {
        do {
            try check()
            return nil
        } catch let error as CloudantError {
            #expect(error.code == .invalidDesignDocument)
            return error.message
        } catch {
            return "\(error)"
        }
    }

    private func reason(_ body: JSONValue) -> String? {
        guard case .object(let object) = body else { return "not an object" }
        return refusal { try DesignDocumentRules.validate(object, documentID: "_design/x") }
    }

    private func builtInReason(_ name: String) -> String? {
        refusal { try DesignDocumentRules.checkBuiltInReduce(name, documentID: "_design/x") }
    }

    @Test func viewsOfTheWrongTypeAreRefusedWithCouchDBsReason() {
        #expect(reason(["views": "notanobject"]) == "`views` field must have object type")
        #expect(reason(["language": 7]) == "`language` field must have string type")
        #expect(reason(["views": ["v": "x"]]) == "`views.v` field must have object type")
        #expect(reason(["views": ["v": ["map": 3]]]) == "`views.v.map` field must have string type")
        #expect(reason(["rewrites": 1]) == "`rewrites` field must have string or array type")
        #expect(reason(["filters": ["f": 1]]) == "`filters.f` field must have object or string type")
        #expect(reason(["options": ["partitioned": "yes"]]) == "`options.partitioned` field must have boolean type")
    }

    @Test func aViewWithoutMapIsRefused() {
        #expect(reason(["views": ["v": ["reduce": "_sum"]]]) == "View `v` must contain map function")
    }

    @Test func unknownBuiltInReducersAreRefusedAndKnownOnesPassByPrefix() {
        #expect(builtInReason("_bogus") == "`_bogus` is not a supported reduce function.")
        for known in ["_count", "_sum", "_stats", "_approx_count_distinct", "_first", "_last", "_sum_anything", "_top_5", "_bottom_100", "_top_+7"] {
            #expect(builtInReason(known) == nil, "\(known)")
        }
    }

    /// `couch_mrview:check_rank`: `binary_to_integer` of what follows `_top_`/`_bottom_`, then the range.
    @Test func aRankIsAnIntegerFromOneToOneHundredWithCouchDBsTwoReasons() {
        for outOfRange in ["_top_0", "_bottom_101", "_top_-3", "_top_99999999999999999999999"] {
            #expect(builtInReason(outOfRange) == "rank value must be between 1 and 100", "\(outOfRange)")
        }
        for notANumber in ["_top_", "_top_x", "_bottom_5x", "_top_1.5", "_top_ 5"] {
            #expect(builtInReason(notANumber) == "invalid rank reducer", "\(notANumber)")
        }
    }

    @Test func mangoDesignDocumentsKeepObjectMaps() {
        let mango: JSONValue = [
            "language": "query",
            "views": ["v": ["map": ["fields": ["a": "asc"]], "reduce": "_count", "options": ["def": ["fields": ["a"]]]]],
        ]
        #expect(reason(mango) == nil)
        #expect(reason(["views": ["lib": ["x": "y"]]]) == nil)
    }
}
