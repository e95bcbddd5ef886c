internal import CloudantCore
internal import Crypto

/// The id naming a replication's checkpoint documents (`_local/<id>` on both peers): the
/// lowercase hex MD5 of the canonical JSON of what makes a replication distinct — both peers' identities
/// (never credentials) and the filter. Stable across restarts, so a replication resumes where it stopped;
/// different for a different filter, so a filtered replication never trusts an unfiltered checkpoint.
enum ReplicationID {
    static func make(source: String, target: String, filter: ReplicationFilter) -> String {
        let description: JSONValue = [
            "v": 1, "src": .string(source), "tgt": .string(target), "filter": filter.identity,
        ]
        let digest = Insecure.MD5.hash(data: description.canonicalJSONBytes())
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0xF)]] }, as: UTF8.self)
    }
}
