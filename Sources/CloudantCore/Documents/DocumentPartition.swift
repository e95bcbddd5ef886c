/// The rules of CouchDB's partitioned databases (`PUT /db?partitioned=true`): every document id but a
/// design or local document's is `partition:rest`, and queries may be confined to one partition.
///
/// ```swift
/// DocumentPartition.of("sensor-1:reading-42")          // "sensor-1"
/// try DocumentPartition.validateDocumentID("reading")  // throws: no partition
/// try DocumentPartition.validate("_all")               // throws: starts with "_"
/// DocumentPartition.idRange("sensor-1")                // ("sensor-1:", "sensor-1;")
/// ```
public enum DocumentPartition {
    /// The partition of a document id: what comes before its first `:`, or `nil` without one.
    public static func of(_ documentID: String) -> String? {
        guard let colon = documentID.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        return String(documentID[..<colon])
    }

    /// Checks a partition name as CouchDB does.
    /// - Throws: `CloudantError` with ``QueryErrorKind/illegalPartition`` when the name is empty, starts
    ///   with `_` or holds a `:`.
    public static func validate(_ partition: String) throws {
        try validate(utf8: Array(partition.utf8))
    }

    /// Checks a partition name given as the bytes a request named it with, in `couch_partition`'s order:
    /// not empty, no leading `_`, valid UTF-8 (what a percent-encoded path segment may not be), no `:`.
    /// - Throws: `CloudantError` with ``QueryErrorKind/illegalPartition`` and CouchDB's reason.
    public static func validate(utf8 bytes: [UInt8]) throws {
        if bytes.isEmpty {
            throw QueryErrorKind.illegalPartition.error("Partition must not be empty", field: "partition")
        }
        if bytes.first == UInt8(ascii: "_") {
            throw QueryErrorKind.illegalPartition.error(
                "Partition must not start with an underscore", field: "partition")
        }
        if String(validating: bytes, as: UTF8.self) == nil {
            throw QueryErrorKind.illegalPartition.error("Partition must be valid UTF-8", field: "partition")
        }
        if bytes.contains(UInt8(ascii: ":")) {
            throw QueryErrorKind.illegalPartition.error("Partition must not contain a colon", field: "partition")
        }
    }

    /// Checks that a document may be stored in a partitioned database: design and local documents have no
    /// partition; every other id is `partition:rest`, with a valid partition and a valid `rest`.
    /// - Throws: `CloudantError` `.invalidInput` on field `_id` (CouchDB's `illegal_docid`, with its
    ///   reason "Doc id must be of form partition:id"), or ``QueryErrorKind/illegalPartition``.
    public static func validateDocumentID(_ id: String) throws {
        if DocumentID.isDesign(id) || DocumentID.isLocal(id) { return }
        guard let partition = of(id) else {
            throw CloudantError(
                .invalidInput, "Doc id must be of form partition:id",
                context: .init(documentID: id, field: "_id"))
        }
        try validate(partition)
        try DocumentID.validate(String(id.dropFirst(partition.count + 1)))
    }

    /// The ids of a partition's documents lie in `lower ..< upper` in byte order (`p:` to `p;`, `;` being
    /// the byte after `:`), as CouchDB bounds a partition's `_all_docs`.
    public static func idRange(_ partition: String) -> (lower: String, upper: String) {
        (partition + ":", partition + ";")
    }
}
