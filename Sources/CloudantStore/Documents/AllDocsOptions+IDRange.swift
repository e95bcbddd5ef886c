internal import GRDB

extension AllDocsOptions {
    /// The SQL conditions and arguments that keep an id column inside the requested key range.
    ///
    /// `_all_docs` and `_local_docs` read the same range the same way: in descending order `startKey` is the upper
    /// bound and `endKey` the lower, and `inclusiveEnd` applies to whichever bound `endKey` is.
    /// - Parameter column: the id column to bound.
    /// - Returns: one condition per bound present (none when the range is open) and their arguments, in order.
    func idRangeConditions(column: String) -> (conditions: [String], arguments: StatementArguments) {
        var conditions: [String] = []
        var arguments = StatementArguments()
        let (lower, upper) = descending ? (endKey, startKey) : (startKey, endKey)
        let lowerInclusive = descending ? inclusiveEnd : true
        let upperInclusive = descending ? true : inclusiveEnd
        if let lower {
            conditions.append("\(column) \(lowerInclusive ? ">=" : ">") ?")
            arguments += [lower]
        }
        if let upper {
            conditions.append("\(column) \(upperInclusive ? "<=" : "<") ?")
            arguments += [upper]
        }
        return (conditions, arguments)
    }
}
