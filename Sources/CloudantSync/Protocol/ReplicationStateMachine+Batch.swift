internal import CloudantCore

/// One batch's fetch and upload, tried twice, and what a revision that still fails does to the checkpoint.
///
/// The rule is that no revision is skipped silently. A revision the first round could not write — the target
/// refused it, the source no longer had it, or sent it in a form that cannot be written, or sent stubs for
/// attachments the target may not hold — is read again with all its attachments inline and written again
/// (CouchDB's replicator retries a `missing_stub` and a missing revision the same way, `couch_replicator_worker`
/// `fetch_doc`). What the second round cannot write is a ``WriteFailure`` in ``ReplicationStats/failures``,
/// and checkpoints from then on record the sequence just before the first change that failed, so the next run
/// reads that change, and everything after it, again.
extension ReplicationStateMachine {
    mutating func fetch(_ requests: [RevisionRequest]) -> Action {
        requested = requests
        state = .fetching
        return .fetch(requests)
    }

    mutating func fetched(_ revisions: [FetchedRevision]) -> Action {
        var documents: [JSONObject] = []
        var answered = Set<String>()  // "id rev" of every request some answer covers
        let asked = Dictionary(grouping: requested, by: \.id)
        for revision in revisions {
            switch revision {
            case .document(let document):
                guard let id = document["_id"]?.stringValue, let rev = document["_rev"]?.stringValue,
                    let requests = asked[id]
                else { continue }  // Not asked for: never written.
                let covered = requests.filter { Self.answers(document, rev: rev, request: $0) }
                guard !covered.isEmpty else { continue }
                for request in covered { answered.insert(request.id + " " + request.rev) }
                if round == .first, let request = covered.first,
                    AttachmentStubs.mayBeMissingOnTarget(document, attachmentsSince: request.attachmentsSince)
                {
                    // Stubs the target may not hold (a revpos of 0, none, or newer than what it has): read the
                    // revision again with every attachment's data rather than write a stub it would refuse.
                    failed(
                        RevisionRequest(id: id, rev: rev),
                        WriteFailure(id: id, rev: rev, error: "missing_stub", reason: "The source sent stubs for attachments the target may lack."))
                    continue
                }
                documents.append(document)
            case .missing(let id, let rev):
                answered.insert(id + " " + rev)
                failed(
                    RevisionRequest(id: id, rev: rev),
                    WriteFailure(id: id, rev: rev, error: "not_found", reason: "The source no longer has this revision."))
            case .invalid(let id, let rev, let error, let reason):
                answered.insert(id + " " + rev)
                failed(RevisionRequest(id: id, rev: rev), WriteFailure(id: id, rev: rev, error: error, reason: reason))
            }
        }
        for request in requested where !answered.contains(request.id + " " + request.rev) {
            failed(
                RevisionRequest(id: request.id, rev: request.rev),
                WriteFailure(id: request.id, rev: request.rev, error: "not_found", reason: "The source did not send this revision."))
        }
        stats.docsRead += documents.count
        guard !documents.isEmpty else { return finishRound() }
        uploaded = documents.map { ($0["_id"]?.stringValue ?? "", $0["_rev"]?.stringValue ?? "") }
        state = .writing
        return .write(documents)
    }

    mutating func written(_ failures: [WriteFailure]) -> Action {
        // Which uploaded revisions each failure names: its revision when given; else every revision of its
        // document in this upload; a failure that names no document leaves the whole upload in doubt.
        var refused: [Int: WriteFailure] = [:]
        for failure in failures {
            let matching = uploaded.indices.filter { index in
                guard let id = failure.id else { return true }
                return uploaded[index].id == id && (failure.rev == nil || failure.rev == uploaded[index].rev)
            }
            for index in matching where refused[index] == nil {
                var named = failure
                named.id = uploaded[index].id
                named.rev = uploaded[index].rev
                refused[index] = named
            }
        }
        stats.docsWritten += uploaded.count - refused.count
        if !stats.failures.isEmpty {
            // A revision an earlier attempt reported (a continuous replication starting again from its
            // checkpoint reads it again) is resolved once written.
            let written = Set(uploaded.indices.filter { refused[$0] == nil }.map { uploaded[$0].id + " " + uploaded[$0].rev })
            stats.failures.removeAll { written.contains(($0.id ?? "") + " " + ($0.rev ?? "")) }
            stats.docWriteFailures = stats.failures.count
        }
        for (index, failure) in refused.sorted(by: { $0.key < $1.key }) {
            failed(RevisionRequest(id: uploaded[index].id, rev: uploaded[index].rev), failure)
        }
        uploaded = []
        return finishRound()
    }

    /// Notes a revision that did not make it this round: read again in the second, else reported. A revision
    /// the target's validation refused (`forbidden`, `unauthorized`) is reported at once: reading it again
    /// cannot change the answer, and CouchDB's replicator counts it once.
    private mutating func failed(_ request: RevisionRequest, _ failure: WriteFailure) {
        if failure.category == .forbidden || failure.category == .unauthorized {
            batchFailures.append(failure)
            return
        }
        switch round {
        case .first: retrying[request] = failure
        case .second: batchFailures.append(failure)
        }
    }

    /// Ends a round: the second round for what failed in the first, or the batch's end.
    mutating func finishRound() -> Action {
        if round == .first, !retrying.isEmpty {
            round = .second
            let requests = retrying.keys.sorted { ($0.id, $0.rev) < ($1.id, $1.rev) }
            retrying = [:]
            return fetch(requests)
        }
        round = .first
        requested = []
        if !batchFailures.isEmpty {
            // A revision reported again (read again after a restart) is listed once, with its latest reason.
            let again = Set(batchFailures.map { ($0.id ?? "") + " " + ($0.rev ?? "") })
            stats.failures.removeAll { again.contains(($0.id ?? "") + " " + ($0.rev ?? "")) }
            stats.failures += batchFailures
            stats.docWriteFailures = stats.failures.count
            hold(before: Set(batchFailures.compactMap(\.id)))
            batchFailures = []
        }
        return checkpointOrContinue()
    }

    /// Keeps checkpoints before the first change of this batch that names one of `ids`, unless an earlier
    /// failure already holds them further back.
    private mutating func hold(before ids: Set<String>) {
        guard heldSeq == nil, let first = batch.firstIndex(where: { ids.contains($0.id) }) else { return }
        heldSeq = first == 0 ? pageSince : batch[first - 1].seq
    }

    /// Whether `document` (at `rev`) answers `request`: the revision asked for, or with `latest` a leaf that
    /// descends from it (its `_revisions` list the revision asked for).
    static func answers(_ document: JSONObject, rev: String, request: RevisionRequest) -> Bool {
        if rev == request.rev { return true }
        guard let start = document["_revisions"]?["start"]?.numberValue?.int64Value,
            let ids = document["_revisions"]?["ids"]?.arrayValue,
            let dash = request.rev.firstIndex(of: "-"), let generation = Int64(request.rev[..<dash])
        else { return false }
        let offset = start - generation
        guard offset >= 0, offset < Int64(ids.count) else { return false }
        return ids[Int(offset)].stringValue == String(request.rev[request.rev.index(after: dash)...])
    }
}

/// Which attachment stubs a target can be trusted to hold.
enum AttachmentStubs {
    /// Whether `document` carries a stub the target may not hold: the target holds an attachment of a
    /// revision it has only when the attachment was last set at or before that revision's generation, so a
    /// stub is safe only when its `revpos` is between 1 and the generation of the newest revision among
    /// `attachmentsSince` that is an ancestor of `document` (by its `_revisions`). A revpos of 0 (CouchDB's for
    /// attachments written with `new_edits=false` and no revpos) or none at all is never safe. Members the
    /// replicator moves separately (`follows_separately`) carry their data another way and are not stubs here.
    static func mayBeMissingOnTarget(_ document: JSONObject, attachmentsSince: [String]) -> Bool {
        guard case .object(let attachments)? = document["_attachments"] else { return false }
        var known: Int64?
        for (_, member) in attachments.members where member["stub"] == true && member["follows_separately"] != true {
            let newest = known ?? newestKnownGeneration(of: document, among: attachmentsSince)
            known = newest
            guard let revpos = member["revpos"]?.numberValue?.int64Value, revpos >= 1, revpos <= newest else { return true }
        }
        return false
    }

    /// The newest generation among `revisions` that is an ancestor of (or is) `document`'s revision, by its
    /// `_revisions`; 0 when none is (CouchDB's `find_ancestor_rev_pos`).
    static func newestKnownGeneration(of document: JSONObject, among revisions: [String]) -> Int64 {
        guard !revisions.isEmpty, let start = document["_revisions"]?["start"]?.numberValue?.int64Value,
            let ids = document["_revisions"]?["ids"]?.arrayValue?.compactMap(\.stringValue)
        else { return 0 }
        let ancestry = Set(ids.enumerated().map { "\(start - Int64($0.offset))-\($0.element)" })
        return revisions.filter(ancestry.contains).compactMap { Int64($0.prefix { $0 != "-" }) }.max() ?? 0
    }
}
