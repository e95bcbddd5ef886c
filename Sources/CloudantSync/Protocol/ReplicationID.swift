internal import CloudantCore
internal import Crypto

/// The id naming a replication's checkpoint documents (`_local/<id>` on both peers): the lowercase hex MD5 of
/// the canonical JSON of what makes a replication distinct — both peers' identities (never credentials), the
/// filter and, for a design document's filter, its function's source, and the `since_seq` a replication starts
/// from when it has one (as CouchDB 3.5.2's `couch_replicator_ids` appends it). Stable across restarts, so a
/// replication resumes where it stopped; different for a different filter (or the same filter edited, as
/// CouchDB's `couch_replicator_ids` fetches the code), so a filtered replication never trusts a checkpoint
/// another filter wrote.
enum ReplicationID {
    static func make(
        source: String, target: String, filter: ReplicationFilter, filterSource: String? = nil, sinceSequence: JSONValue? = nil
    ) -> String {
        var description: JSONObject = ["v": 1, "src": .string(source), "tgt": .string(target), "filter": filter.identity]
        if let filterSource { description["filter_source"] = .string(filterSource) }
        if let sinceSequence { description["since_seq"] = sinceSequence }
        let digest = Insecure.MD5.hash(data: JSONValue.object(description).canonicalJSONBytes())
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0xF)]] }, as: UTF8.self)
    }
}
