import CloudantCore
import Testing

@Suite("Design document rules (CouchDB's couch_mrview validation)")
struct DesignDocumentRulesTests {
    private func reason(_ body: JSONValue) -> String? {
        guard case .object(let object) = body else { return "not an object" }
        do {
            try DesignDocumentRules.validate(object, documentID: "_design/x")
            return nil
        } catch let error as CloudantError {
            #expect(error.code == .invalidDesignDocument)
            return error.message
        } catch {
            return "\(error)"
        }
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

    @Test func unknownBuiltInReducersAreRefusedAndKnownOnesPass() {
        #expect(reason(["views": ["v": ["map": "function(d){}", "reduce": "_bogus"]]]) == "`_bogus` is not a supported reduce function.")
        #expect(reason(["views": ["v": ["map": "function(d){}", "reduce": "_top_5"]]]) == nil)
        #expect(reason(["views": ["v": ["map": "function(d){}", "reduce": "_count"]]]) == nil)
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
