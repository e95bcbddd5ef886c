/// Which of CouchDB's Mango errors a selector problem is, so an HTTP edge can answer with the
/// same `error` name CouchDB would.
///
/// MangoSelector errors are `CloudantError`s with code `CloudantError.Code.invalidInput`, the offending path or
/// operator in `CloudantError.Context.field`, and this kind as the `CloudantError.underlying` error; read
/// it back with `CloudantError.queryErrorKind`. Almost every kind is `ErrorCategory.invalidInput` (see ``category``);
/// its raw value is CouchDB's error name, which the HTTP server answers with.
///
/// ```swift
/// do {
///     _ = try MangoSelector(["age": ["$mod": [0, 1]]])
/// } catch {
///     error.queryErrorKind?.rawValue   // "bad_arg"
/// }
/// ```
public enum QueryErrorKind: String, Error, Sendable, Hashable, CaseIterable {
    /// An operator's argument has the wrong type or value (`$in` not an array, `$mod` by zero, a `$regex`
    /// that does not compile).
    case badArg = "bad_arg"
    /// A key starting with `$` is not a Mango operator (or, as CouchDB answers, `$regex`/`$beginsWith` was
    /// given a non-string).
    case invalidOperator = "invalid_operator"
    /// A known operator CouchDB does not support (`$where`, `$geoWithin`, `$geoIntersects`, `$near`,
    /// `$nearSphere`).
    case notSupported = "not_supported"
    /// A condition has no field name (an empty key, or an operator at the top level that needs a field).
    case invalidSelector = "invalid_selector"
    /// A field path has an empty segment.
    case invalidFieldName = "invalid_field_name"
    /// The selector is not a JSON object.
    case invalidSelectorJSON = "invalid_selector_json"
    /// The selector uses `$text` more than once.
    case multipleTextSelector = "multiple_text_selector"
    /// A `_find` request has a key CouchDB does not know.
    case invalidKey = "invalid_key"
    /// `sort` is not an array of field names or one-key `{"field": "asc"|"desc"}` objects.
    case invalidSortJSON = "invalid_sort_json"
    /// A sort direction is neither `asc` nor `desc`.
    case invalidSortDirection = "invalid_sort_dir"
    /// A sort mixes ascending and descending fields.
    case unsupportedMixedSort = "unsupported_mixed_sort"
    /// `fields` is not an array of field names.
    case invalidFields = "invalid_fields"
    /// An option has a value CouchDB has no more specific name for (such as `stale` other than `"ok"` or
    /// `false`).
    case invalidValue = "invalid_value"
    /// `limit` or `skip` is not an integer ≥ 0.
    case invalidNonNegInteger = "invalid_non_neg_integer"
    /// `r` (or an index's `w`) is not an integer ≥ 1.
    case invalidPosInteger = "invalid_pos_integer"
    /// A flag (`conflicts`, `update`, `stable`, `execution_stats`, `allow_fallback`) is not `true` or `false`.
    case invalidBoolean = "invalid_boolean"
    /// A `sort` entry is neither a field name nor a one-key `{"field": "asc"|"desc"}` object.
    case invalidSortField = "invalid_sort_field"
    /// A `fields` entry is not a string.
    case invalidField = "invalid_field"
    /// A partition name is empty, starts with `_`, holds a `:` or is not a string.
    case illegalPartition = "illegal_partition"
    /// A request asks for a partition of a database that is not partitioned.
    case queryParseError = "query_parse_error"
    /// An index's name or design document is the empty string.
    case invalidEmptyString = "invalid_empty_string"
    /// An index's name or design document is not a string.
    case invalidString = "invalid_string"
    /// A new index's `partitioned` differs from the option its existing design document carries.
    case invalidPartitionedOption = "invalid_partitioned_option"
    /// A new index names a design document that exists and is not a Cloudant Query one (its `language` is not
    /// `query`): CouchDB leaves it alone (`mango_util:check_lang/1`).
    case invalidDesignDocumentLanguage = "invalid_ddoc_lang"
    /// The bookmark was not made by this store for this query.
    case invalidBookmark = "invalid_bookmark"
    /// A `_find` request has no selector.
    case missingRequiredKey = "missing_required_key"
    /// An index definition is malformed, or `use_index` names an index that cannot answer the query and
    /// `allow_fallback` is false.
    case invalidIndex = "invalid_index"
    /// An index's `fields` is not a list of field names or one-key `{"field": "asc"|"desc"}` objects.
    case invalidIndexFieldsDefinition = "invalid_index_fields_definition"
    /// An index or design document name is not a non-empty string.
    case invalidIndexName = "invalid_index_name"
    /// `POST /{db}/_index/_bulk_delete`'s `docids` is not an array.
    case invalidBulkDocs = "invalid_bulk_docs"
    /// No index has that design document and name (HTTP 404).
    case indexNotFound = "index_not_found"
    /// No index can answer the query: `$text` without a text index.
    case noUsableIndex = "no_usable_index"
    /// `$text` needs a text index, and several could answer it.
    case multipleTextIndexes = "multiple_text_indexes"
    /// A text index is asked to do something it cannot, such as an analyzer this store does not have
    /// (HTTP 501, CouchDB's answer when no text search service is configured).
    case indexNotImplemented = "index_not_implemented"

    /// Makes the `CloudantError` for this kind: code `CloudantError.Code.notFound` for a missing index,
    /// `CloudantError.Code.notImplemented` for a text search feature this store lacks,
    /// `CloudantError.Code.invalidInput` for the rest.
    public func error(_ message: String, field: String?) -> CloudantError {
        let code: CloudantError.Code =
            switch category {
            case .notFound: .notFound
            case .unsupported: .notImplemented
            default: .invalidInput
            }
        return CloudantError(code, message, context: .init(field: field), underlying: self)
    }
}

extension QueryErrorKind: CategorizedError {
    /// `ErrorCategory.invalidInput` for all but a missing index (`ErrorCategory.notFound`) and a text
    /// search feature this store does not have (`ErrorCategory.unsupported`).
    public var category: ErrorCategory {
        switch self {
        case .indexNotFound: .notFound
        case .indexNotImplemented: .unsupported
        default: .invalidInput
        }
    }
}

/// Cloudant Query errors, with CouchDB's error names.
extension CloudantError {
    /// The CouchDB Mango error this is, when it came from parsing a selector; `nil` otherwise.
    ///
    /// ```swift
    /// let name = error.queryErrorKind?.rawValue   // "bad_arg", "index_not_found", …
    /// ```
    public var queryErrorKind: QueryErrorKind? {
        underlying as? QueryErrorKind
    }
}
