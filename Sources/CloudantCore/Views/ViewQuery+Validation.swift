extension ViewQuery {
    /// Whether the query reads map rows or reductions.
    public enum Kind: Sendable, Hashable {
        /// The rows the map function emitted.
        case map
        /// The reduce function's results, grouped or not.
        case reduce
    }

    /// Checks the parameters against the kind of view they query, as CouchDB's `validate_args` does, and
    /// returns the grouping they ask for.
    ///
    /// - Parameters:
    ///   - kind: What the view name resolved to (``ViewIndexDefinition/lookUp(_:reduce:)``).
    ///   - partitioned: Whether the view's design document is partitioned: a partitioned view needs a
    ///     `partition`, any other refuses one.
    /// - Throws: `CloudantError` with ``QueryErrorKind/queryParseError`` and CouchDB's reason.
    public func validated(kind: Kind, partitioned: Bool = false) throws -> Grouping {
        // `apply_limit` runs first: with `query_server_config` setting no lower limit, CouchDB's ceiling.
        if let limit, limit > Self.maximumLimit {
            throw Self.parseError("Limit is too large, must not exceed \(Self.maximumLimit)")
        }
        let grouping = try checkedGrouping(kind: kind)
        switch (partitioned, partition) {
        case (true, nil): throw Self.parseError("`partition` parameter is mandatory for queries to this view.")
        case (false, .some): throw Self.parseError("`partition` parameter is not supported in this design doc")
        default: break
        }
        return grouping
    }

    /// Checks the parameters of an `_all_docs`, `_design_docs` or `_local_docs` query, as CouchDB's
    /// `validate_all_docs_args` does: a map view's rules, then `partition` only on a partitioned database.
    /// The `limit` ceiling comes after, from ``QueryLimits/limit(_:partitioned:)`` (its `apply_limit`).
    ///
    /// - Parameter partitionedDatabase: Whether the database is partitioned.
    /// - Throws: `CloudantError` with ``QueryErrorKind/queryParseError`` and CouchDB's reason ("Reduce is
    ///   invalid for map-only views.", "Invalid use of grouping on a map view.", "`partition` parameter is
    ///   not supported on this db"…).
    public func validatedForAllDocs(partitionedDatabase: Bool) throws {
        _ = try checkedGrouping(kind: .map)
        if partition != nil, !partitionedDatabase { throw Self.parseError("`partition` parameter is not supported on this db") }
    }

    /// `validate_args_int`'s checks that hold for every query of `kind`, and the grouping asked for.
    private func checkedGrouping(kind: Kind) throws -> Grouping {
        let grouping = try determineGrouping()
        if kind == .map, reduce == true { throw Self.parseError("Reduce is invalid for map-only views.") }
        if kind == .reduce, grouping != .exact, keys != nil {
            throw Self.parseError("Multi-key fetches for reduce views must use `group=true`")
        }
        if let keys, !keys.isEmpty {
            let single = keys.count == 1 && startKey == keys[0] && endKey == keys[0]
            if !single && (startKey != nil || endKey != nil) {
                throw Self.parseError("`keys` is incompatible with `key`, `start_key` and `end_key`")
            }
        }
        if kind == .map, grouping != .none, grouping != .level(0) {
            throw Self.parseError("Invalid use of grouping on a map view.")
        }
        if kind == .reduce, includeDocs { throw Self.parseError("`include_docs` is invalid for reduce") }
        if kind == .reduce, conflicts != nil { throw Self.parseError("`conflicts` is invalid for reduce views.") }
        if let partition, partition.isEmpty { throw Self.parseError("Invalid value for `partition`.") }
        return grouping
    }

    /// The largest `limit` CouchDB accepts when `query_server_config` sets none (`?MAX_VIEW_LIMIT`,
    /// `16#7FFFFFFFFFFFFFF`): a larger one is a `query_parse_error`.
    public static let maximumLimit = 0x7FF_FFFF_FFFF_FFFF

    /// `determine_group_level`.
    func determineGrouping() throws -> Grouping {
        switch (group, groupLevel) {
        case (nil, nil), (false?, nil): return .none
        case (false?, let level?) where level > 0:
            throw Self.parseError("Can't specify group=false and group_level>0 at the same time")
        case (true?, nil): return .exact
        case (_, let level?): return level == 0 ? .none : .level(level)
        }
    }

    /// Whether the start and end keys leave no row in the query's direction (CouchDB's `check_range`).
    ///
    /// - Parameter raw: Whether the view collates raw (Erlang term order).
    /// - Throws: `CloudantError` with ``QueryErrorKind/queryParseError``: "No rows can match your key
    ///   range, reverse your start_key and end_key or set descending=true" (or `=false`).
    public func checkRange(raw: Bool) throws {
        guard let startKey, let endKey, startKey != endKey else { return }
        let order = raw ? Collation.rawCompare(startKey, endKey) : Collation.compare(startKey, endKey)
        // `{StartKey, StartDocId} < {EndKey, EndDocId}` in the view's order: keys first, then ids by bytes, an id
        // left out being the lowest (`<<>>`) or the highest (`<<255>>`) as the direction has it.
        let low: [UInt8] = []
        let high: [UInt8] = [0xFF]
        let startID = startKeyDocID.map { Array($0.utf8) } ?? (descending ? high : low)
        let endID = endKeyDocID.map { Array($0.utf8) } ?? (descending ? low : high)
        let startFirst = order < 0 || (order == 0 && startID.lexicographicallyPrecedes(endID))
        if !descending, !startFirst {
            throw Self.parseError("No rows can match your key range, reverse your start_key and end_key or set descending=true")
        }
        if descending, startFirst {
            throw Self.parseError("No rows can match your key range, reverse your start_key and end_key or set descending=false")
        }
    }
}
