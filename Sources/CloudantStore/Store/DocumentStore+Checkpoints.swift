internal import GRDB

extension DocumentStore {
    /// Runs a checkpoint a commit queued (see ``LogCheckpointer``): on the writer connection, in turn with the
    /// store's writes and on the writer gate's own thread (copying and syncing the log blocks), unless view
    /// maintenance is writing. A failed checkpoint (the disk full, the store closed) is left to the next one,
    /// or to the writer's own past ``LogCheckpointer/writerPages``, which report through the commit.
    func checkpointQueued() async {
        _ = try? await writerGate.run(long: true) {
            try self.lifecycle.whileOpen(database: self.name) {
                try self.pool.writeWithoutTransaction { db in
                    try self.checkpointer.ifNoOtherWriter { try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
                }
            }
        }
    }
}
