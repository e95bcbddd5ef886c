internal import CloudantCore
internal import CloudantStore

extension DocumentStore {
    /// Writes document `id` as `update` makes it from the stored one (nil when there is none; `update` returning
    /// nil writes nothing), reading it again when someone else wrote it meanwhile (a conflict), up to `attempts`
    /// times: the server's own bookkeeping writes (`_replicator` states, database events) never fail a request.
    func rewrite(id: String, attempts: Int = 5, _ update: (JSONObject?) -> JSONObject?) async {
        for _ in 0..<attempts {
            guard let document = update(try? await document(id: id)) else { return }
            do {
                _ = try await put(document)
                return
            } catch let error as CloudantError where error.code == .conflict {
                continue
            } catch {
                return
            }
        }
    }
}
