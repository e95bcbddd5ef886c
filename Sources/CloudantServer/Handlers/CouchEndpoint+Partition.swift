internal import CloudantCore
internal import CloudantStore
internal import Hummingbird

extension CouchEndpoint {
    /// `/{db}/_partition/{partition}…` of a partitioned database, as CouchDB's `handle_partition_req`:
    /// `GET` the partition's counts, or `_all_docs`, `_find`, `_explain`, `_index` and design documents' views
    /// confined to it. Any
    /// other path below a partition (`_changes` included) is 404, as in CouchDB.
    func partition(_ request: CouchRequest, database: String, path: [String]) async throws -> Response {
        guard let partition = path.first else {
            throw HTTPFailure.badRequest("invalid_partition_req")
        }
        let store = try await authorizedStore(database, for: request.user, access: .member)
        // The path's bytes when they are not UTF-8 (the segment's text then holds U+FFFD).
        let partitionBytes = request.partitionNotUTF8 ?? Array(partition.utf8)
        if path.count == 1 {
            switch request.method {
            case .get, .head:
                try DocumentPartition.validate(utf8: partitionBytes)
                guard try await store.isPartitioned() else { throw HTTPFailure.badRequest("database is not partitioned") }
                let info = try await store.partitionInfo(partition).json
                return request.method == .head ? CouchResponse.headOnly() : CouchResponse.json(info)
            case .post where partition.hasPrefix("_"):
                try DocumentPartition.validate(utf8: partitionBytes)
                throw unsupported("GET")
            default:
                throw unsupported("GET")
            }
        }
        guard try await store.isPartitioned() else { throw HTTPFailure.badRequest("database is not partitioned") }
        try DocumentPartition.validate(utf8: partitionBytes)
        if let named = request.query.ordered.first(where: { $0.name == "partition" })?.value, named != partition {
            throw HTTPFailure.badRequest("Conflicting value for `partition` in query string")
        }
        var request = request
        request.query = request.query.rewritten(forPartition: partition)
        let rest = Array(path.dropFirst(2))
        switch path[1] {
        case "_all_docs": return try await allDocs(request, database: database, partition: partition)
        case "_find": return try await find(request, database: database, partition: partition)
        case "_explain": return try await explain(request, database: database, partition: partition)
        case "_index": return try await index(request, database: database, path: rest)
        case "_design" where rest.count >= 2 && rest[1].hasPrefix("_"):
            let id = "_design/" + rest[0]
            if let response = try await designFunction(request, database: database, id: id, path: Array(rest.dropFirst()), partition: partition) {
                return response
            }
            // An action no design handler takes is an attachment path of the design document, as CouchDB's
            // `bad_action_req` has it (`_design/d/_foo` names the attachment `_foo`).
            return try await attachment(request, database: database, id: id, name: rest.dropFirst().joined(separator: "/"))
        default: throw HTTPFailure.notFound()
        }
    }
}
