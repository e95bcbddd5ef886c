internal import Foundation
internal import GRDB

/// What an interactive write's ``DocumentWriter`` takes from its store, read on the caller's task before the
/// transaction starts: the writer's identity for validation functions is a task-local value of that task, and
/// the transaction runs on the writer's thread.
struct InteractiveWriterSetup: Sendable {
    let makeDocumentID: @Sendable () -> String
    let now: @Sendable () -> Date
    let indexCache: IndexCatalogCache
    let compression: AttachmentCompression
    let validation: WriteValidation?
    /// The most a partition may hold (``DocumentStore/maxPartitionSize``), when the store bounds them.
    let partitionMaximum: Int?
    /// The store's ``StoreOptions/maxLeavesPerDocument``, which bounds the leaves a replicated revision may add.
    let maxLeaves: Int

    /// A writer for one transaction, with no partition yet known to be full.
    func writer(in db: Database, preparedAgainst: IndexSnapshot? = nil) throws -> DocumentWriter {
        var writer = try DocumentWriter(
            db: db, makeDocumentID: makeDocumentID, indexCache: indexCache, attachmentCompression: compression, now: now,
            preparedAgainst: preparedAgainst, validation: validation, maxLeaves: maxLeaves)
        writer.fullPartitions = partitionMaximum.map(FullPartitions.init(maximum:))
        return writer
    }
}

extension DocumentStore {
    /// The setup of the interactive writers of a write about to start, read now (see ``InteractiveWriterSetup``).
    func interactiveWriterSetup() -> InteractiveWriterSetup {
        InteractiveWriterSetup(
            makeDocumentID: options.makeDocumentID, now: options.now, indexCache: indexCache,
            compression: options.attachmentCompression, validation: writeValidation(),
            partitionMaximum: partitionLimit.maximum, maxLeaves: options.maxLeavesPerDocument)
    }
}
