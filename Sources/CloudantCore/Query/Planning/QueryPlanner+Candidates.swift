extension QueryPlanner.Context {
    /// CouchDB's `index_candidates` (`mango_cursor:extract_candidate_indexes`): every index but the chosen
    /// one, tagged by the stage of planning that set it aside, ranked stage by stage, in CouchDB's order
    /// (the reverse of Erlang's term order of its index records).
    ///
    /// The stages, from the ranking of the chosen type outwards: not chosen (ranked by position, with
    /// `less_overlap`, `too_many_fields` or `alphabetically_comes_after`), `unfavored_type` (a usable index of
    /// the type not chosen), `excluded_by_user` (usable but not named by `use_index`), not usable (with the
    /// usability check's first reason), `scope_mismatch` (the other partition scope) and `is_partial`.
    func candidates(_ analysis: Analysis) -> [IndexCandidate] {
        let winner = analysis.ranked.first?.index
        let partial = all.filter { !global.contains($0) }
        let outOfScope = global.filter { !scoped.contains($0) }
        let notUsable = scoped.filter { !analysis.usable.contains($0) }
        let excluded = analysis.usable.filter { !analysis.filtered.contains($0) }
        let unfavored = analysis.filtered.filter { !analysis.ofType.contains($0) }

        let unfavoredRank = max(1, analysis.ranked.count)
        let excludedRank = unfavoredRank + (unfavored.isEmpty ? 0 : 1)
        let notUsableRank = excludedRank + (excluded.isEmpty ? 0 : 1)
        let outOfScopeRank = notUsableRank + (notUsable.isEmpty ? 0 : 1)
        let partialRank = outOfScopeRank + (outOfScope.isEmpty ? 0 : 1)

        var tags: [PlannedIndex: Tags] = [:]
        for index in all { tags[index] = Tags() }
        func tag(_ indexes: [PlannedIndex], usable: Bool? = nil, reasons: [String] = [], ranking: Int? = nil) {
            for index in indexes { tags[index]?.merge(usable: usable, reasons: reasons, ranking: ranking) }
        }
        tag(partial, usable: false, reasons: ["is_partial"], ranking: partialRank)
        tag(outOfScope, usable: false, reasons: ["scope_mismatch"], ranking: outOfScopeRank)
        tag(notUsable, usable: false, ranking: notUsableRank)
        tag(excluded, usable: true, reasons: ["excluded_by_user"], ranking: excludedRank)
        tag(unfavored, usable: true, reasons: ["unfavored_type"], ranking: unfavoredRank)
        tag(analysis.ofType, usable: true)
        for entry in analysis.usability where !entry.usable { tag([entry.index], reasons: entry.reasons) }
        let winnerWidth = winner?.columns.count ?? 0
        for (position, entry) in analysis.ranked.enumerated() {
            let reason =
                if entry.difference > 0 { "less_overlap" }
                else if entry.index.columns.count > winnerWidth { "too_many_fields" }
                else { "alphabetically_comes_after" }
            tag([entry.index], reasons: [reason], ranking: position)
        }

        let fields = request.fields.map { $0.map(\.description) }
        return all.filter { $0 != winner }.sorted { PlannedIndex.precedes($1, $0) }.compactMap { index in
            guard let tagged = tags[index], let reason = tagged.reasons.first else { return nil }
            return IndexCandidate(
                index: index.definition, usable: tagged.usable ?? false, reason: reason, ranking: tagged.ranking ?? 0,
                covering: index == .special ? nil : index.covers(fields))
        }
    }

    /// The analysis accumulated for one index: usability is and-ed, reasons appended, rankings added.
    struct Tags {
        var usable: Bool?
        var reasons: [String] = []
        var ranking: Int?

        mutating func merge(usable: Bool?, reasons: [String], ranking: Int?) {
            if let usable { self.usable = (self.usable ?? true) && usable }
            self.reasons += reasons
            if let ranking { self.ranking = (self.ranking ?? 0) + ranking }
        }
    }
}
