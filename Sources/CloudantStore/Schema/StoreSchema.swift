internal import Foundation
internal import GRDB

/// The SQLite schema of a store: every table and column name in one place, and the named, append-only
/// migrations that create them. Never edit a shipped migration; append a new one.
///
/// Attachment metadata is JSON text. A body is JSON text or a zstd frame (``BodyCodec``); SQL reads
/// bodies through `cloudant_body(body)` (``BodySQLFunction``), which gives the JSON text of either, so
/// SQLite's JSON functions (and the query engine's indexes) can read them.
///
/// - `documents`: one row per document: its revision tree (which names the winner), deletion flag, update
///   sequence, entity kind, and the winner's body and attachment metadata inline (so the common case, a
///   document with one live leaf, is one row).
/// - `document_kinds`: the entity kind names documents have, each once; a document's row holds its kind's number.
/// - `revision_bodies`: bodies of every other revision still kept (losing leaves, and ancestors until
///   compaction).
/// - `attachment_blobs`: attachment bytes, stored once per digest; `attachment_files` names the digests
///   whose bytes are large enough to be kept as files beside the store instead (``AttachmentFiles``).
/// - `local_documents`: `_local/` documents (no history, never replicated).
/// - `body_dictionaries`: the zstd dictionaries compressed bodies name (``BodyDictionaryTable``).
/// - `store_info`: counters and settings (`update_seq`, `purge_seq`, `revs_limit`, `uuid`).
/// - `column_projections`: the typed column copies entity kinds declare, one row each, naming its table
///   (`projection_<n>`: one row per live document of the kind, holding its row id and the declared columns).
/// - `mango_indexes`: the Cloudant Query indexes the store keeps, one row each, naming the table that holds
///   its entries (`mango_json_<n>` or the FTS5 table `mango_text_<n>`; `<n>` is a counter, never user text).
/// - `view_indexes`: the map/reduce view indexes (design documents' views and Swift views), one row per
///   signature, naming the table of its rows (`view_<n>`) and the sequence it is up to date with.
enum StoreSchema {
    enum Documents {
        static let table = "documents"
        static let rowID = "rowid"
        static let id = "id"
        /// The revision tree (``RevisionTree/encoded()``), which also gives the winner's revision.
        static let tree = "tree"
        static let deleted = "deleted"
        static let seq = "seq"
        /// The entity kind's number in ``DocumentKinds`` (NULL for a plain document): read the name through
        /// ``DocumentKinds/name(of:)``, compare with ``DocumentKinds/numberOfBoundName``.
        static let kind = "kind"
        static let body = "body"
        /// The body as JSON text whichever way it is stored, for SQL that reads into it (``BodySQLFunction``).
        static let bodyJSON = "cloudant_body(body)"
        static let attachments = "attachments"
    }

    /// The entity kinds the store's documents name, each stored once; a document's row holds the number
    /// (one byte where the name took a dozen or more, in the row and again in `documents_by_kind`). Kinds
    /// are never removed, so a number never comes back with another name.
    enum DocumentKinds {
        static let table = "document_kinds"
        static let number = "number"
        static let name = "name"
        static let createSQL = "CREATE TABLE \(table) (\(number) INTEGER PRIMARY KEY, \(name) TEXT NOT NULL UNIQUE)"
        /// Adds the kind bound as the statement's argument unless the store has it (before a row names it).
        static let insertBoundName = "INSERT OR IGNORE INTO \(table) (\(name)) VALUES (?)"
        /// The number of the kind name bound in its place (NULL for NULL or a name no row has).
        static let numberOfBoundName = "(SELECT \(number) FROM \(table) WHERE \(name) = ?)"

        /// The kind's name of the number in `column` (a documents row's `kind`, qualified as the query needs).
        static func name(of column: String) -> String {
            "(SELECT \(name) FROM \(table) WHERE \(number) = \(column))"
        }
    }

    enum RevisionBodies {
        static let table = "revision_bodies"
        static let documentRowID = "doc_rowid"
        static let rev = "rev"
        static let body = "body"
        static let attachments = "attachments"
    }

    enum AttachmentBlobs {
        static let table = "attachment_blobs"
        static let digest = "digest"
        static let data = "data"
    }

    /// Large attachments kept as files beside the store (``AttachmentFiles``): one row per digest whose bytes
    /// are in a file rather than in `attachment_blobs`.
    enum AttachmentFiles {
        static let table = "attachment_files"
        static let digest = "digest"
        static let length = "length"
    }

    enum LocalDocuments {
        static let table = "local_documents"
        static let id = "id"
        static let rev = "rev"
        static let body = "body"
    }

    enum StoreInfo {
        static let table = "store_info"
        static let key = "key"
        static let value = "value"
        static let updateSeq = "update_seq"
        static let purgeSeq = "purge_seq"
        static let revsLimit = "revs_limit"
        /// How many purge requests `purge_infos` keeps (CouchDB's `_purged_infos_limit`); 1000 when absent.
        static let purgedInfosLimit = "purged_infos_limit"
        /// The `q` the database was created with; absent for CouchDB's default.
        static let shardCount = "shard_count"
        static let uuid = "uuid"
        /// 1 for a partitioned database (CouchDB's `?partitioned=true`); absent otherwise.
        static let partitioned = "partitioned"
        /// The top-level member holding each document's expiry time; absent when documents do not expire.
        static let expiryField = "expiry_field"
        /// When the store was created, in whole seconds since 1970 (CouchDB's shard suffix, which it reports
        /// as `instance_start_time`); for a store created before this was recorded, when it was upgraded.
        static let createdAt = "created_at"
    }

    /// One row per document named in a purge request (CouchDB's purge tree: `_purged_infos`).
    enum PurgeInfos {
        static let table = "purge_infos"
        static let purgeSeq = "purge_seq"
        static let id = "doc_id"
        /// The revisions the request named, as a JSON array.
        static let revs = "revs"
    }

    enum MangoIndexes {
        static let table = "mango_indexes"
        static let tableName = "table_name"
        static let designDocument = "ddoc"
        static let name = "name"
        static let type = "type"
        static let definition = "definition"
        static let jsonTablePrefix = "mango_json_"
        static let textTablePrefix = "mango_text_"
    }

    enum ColumnProjections {
        static let table = "column_projections"
        static let name = "name"
        static let kind = "kind"
        static let tableName = "table_name"
        static let definition = "definition"
        static let tablePrefix = "projection_"
        /// The column every projection table has before its declared ones.
        static let documentRowID = "doc_rowid"
    }

    /// The texts of `.label` projection columns, each stored once; projection rows hold the number
    /// (``ProjectionLabels``). Labels are never removed: there are few, and a number must not come back
    /// with another text while a row might hold it.
    enum ProjectionLabels {
        static let table = "projection_labels"
        static let number = "number"
        static let text = "text"
        static let createSQL = "CREATE TABLE \(table) (\(number) INTEGER PRIMARY KEY, \(text) TEXT NOT NULL UNIQUE)"
    }

    /// The durable queue of revisions written here that a remote database has not acknowledged yet
    /// (repositories' offline writes), in the order they were made.
    enum PendingWrites {
        static let table = "pending_writes"
        /// The queue position: increasing, never reused (`AUTOINCREMENT`), so the order survives removals.
        static let position = "position"
        /// The remote's identity (its URL without credentials).
        static let remote = "remote"
        static let documentID = "doc_id"
        static let rev = "rev"
        static let action = "action"
        static let kind = "kind"
        static let enqueuedAt = "enqueued_at"
        static let attempts = "attempts"
        static let lastError = "last_error"
        static let lastAttemptAt = "last_attempt_at"
    }

    /// When documents expire (see ``DocumentStore/setExpiryField(_:)``): one row per live document whose
    /// expiry field holds a time, kept in step with the winner like an index.
    enum DocumentExpiry {
        static let table = "document_expiry"
        static let documentRowID = "doc_rowid"
        /// Seconds since 1970 (UTC).
        static let expiresAt = "expires_at"
    }

    /// When each tombstone was written (the deletion that made the winner deleted), for purging old
    /// tombstones after a retention window (see ``DocumentStore/purgeTombstones(olderThan:respectingCheckpoints:)``).
    enum Tombstones {
        static let table = "tombstones"
        static let documentRowID = "doc_rowid"
        /// Seconds since 1970 (UTC), by the store's clock.
        static let deletedAt = "deleted_at"
    }

    /// Map/reduce view indexes (``ViewIndexCatalog``): one row per index signature.
    enum ViewIndexes {
        static let table = "view_indexes"
        static let signature = "signature"
        static let tableName = "table_name"
        /// What the index maps with: `javascript` (a design document's views) or `swift` (a Swift view).
        static let language = "language"
        /// The definition the rows were built from (JSON), so an index no design document names any more can
        /// still be described and cleaned up.
        static let definition = "definition"
        /// The highest document sequence whose changes the rows hold.
        static let updateSeq = "update_seq"
        /// The database's purge sequence when the rows were last brought up to date.
        static let purgeSeq = "purge_seq"
        static let tablePrefix = "view_"

        /// The columns of each index's rows table: one row per emitted key and value, ordered by view, key
        /// (its collation key), document id and the row's place among a document's rows with the same key.
        enum Rows {
            static let view = "view"
            static let key = "key"
            static let documentID = "doc_id"
            static let duplicate = "dup"
            static let keyJSON = "key_json"
            static let valueJSON = "value_json"
        }

        /// Per view of each index: its rows (CouchDB's `total_rows`, read in constant time) and the last
        /// document sequence that changed them (the view's `update_seq`), kept with the rows.
        enum Counts {
            static let table = "view_states"
            static let tableName = "table_name"
            static let view = "view"
            static let rows = "rows"
            static let updateSeq = "update_seq"
        }
    }

    /// A table name no recorded table has: `prefix` and the next counter after those recorded in `column`
    /// of `catalog` (the counter is never user text, so names are safe to put in SQL).
    static func nextTableName(prefix: String, recordedIn catalog: String, column: String, in db: Database) throws -> String {
        let next = try Int.fetchOne(
            db, sql: "SELECT COALESCE(MAX(CAST(substr(\(column), ?) AS INTEGER)), 0) + 1 FROM \(catalog) WHERE \(column) LIKE ?",
            arguments: [prefix.count + 1, prefix + "%"]) ?? 1
        return prefix + String(next)
    }

    /// The migrations in the order they apply; the identifiers are data and never change.
    static func migrator(uuid: String) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("2026-11-21-documents-v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE documents (
                        rowid INTEGER PRIMARY KEY,
                        id TEXT NOT NULL UNIQUE,
                        tree BLOB NOT NULL,
                        winner_rev TEXT NOT NULL,
                        deleted INTEGER NOT NULL,
                        seq INTEGER NOT NULL,
                        kind TEXT,
                        body TEXT,
                        attachments TEXT
                    );
                    CREATE UNIQUE INDEX documents_by_seq ON documents(seq);
                    CREATE INDEX documents_by_kind ON documents(kind, id) WHERE kind IS NOT NULL AND deleted = 0;
                    CREATE TABLE revision_bodies (
                        doc_rowid INTEGER NOT NULL REFERENCES documents(rowid) ON DELETE CASCADE,
                        rev TEXT NOT NULL,
                        body TEXT NOT NULL,
                        attachments TEXT,
                        PRIMARY KEY (doc_rowid, rev)
                    );
                    CREATE TABLE attachment_blobs (
                        digest TEXT PRIMARY KEY,
                        data BLOB NOT NULL
                    );
                    CREATE TABLE local_documents (
                        id TEXT PRIMARY KEY,
                        rev INTEGER NOT NULL,
                        body TEXT NOT NULL
                    );
                    CREATE TABLE store_info (
                        key TEXT PRIMARY KEY,
                        value NOT NULL
                    );
                    """)
            try db.execute(
                sql: "INSERT INTO store_info (key, value) VALUES (?, 0), (?, 0), (?, 1000), (?, ?)",
                arguments: [StoreInfo.updateSeq, StoreInfo.purgeSeq, StoreInfo.revsLimit, StoreInfo.uuid, uuid])
        }
        migrator.registerMigration("2026-11-21-mango-indexes-v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE mango_indexes (
                        table_name TEXT PRIMARY KEY,
                        ddoc TEXT NOT NULL,
                        name TEXT NOT NULL,
                        type TEXT NOT NULL,
                        definition TEXT NOT NULL,
                        UNIQUE (ddoc, name, type)
                    );
                    """)
        }
        // Documents in CDTDatastore's Core Data bridge layout name their kind in `CDTISEntityName`
        // (`EntityDocumentFormat.incrementalStore`); rows written before the store read that member get it.
        migrator.registerMigration("2026-11-25-incremental-store-kinds") { db in
            try db.execute(
                sql: """
                    UPDATE documents SET kind = json_extract(body, '$.CDTISEntityName')
                    WHERE kind IS NULL AND body IS NOT NULL AND json_valid(body)
                      AND json_type(body, '$.CDTISEntityName') = 'text'
                    """)
        }
        // Typed column copies entity kinds declare (`ColumnProjection`), one table each.
        migrator.registerMigration("2026-11-25-column-projections") { db in
            try db.execute(
                sql: """
                    CREATE TABLE column_projections (
                        name TEXT PRIMARY KEY,
                        kind TEXT NOT NULL,
                        table_name TEXT NOT NULL UNIQUE,
                        definition TEXT NOT NULL
                    );
                    """)
        }
        // Offline writes waiting for a remote (`PendingWrite`), one row each.
        migrator.registerMigration("2026-11-26-pending-writes") { db in
            try db.execute(
                sql: """
                    CREATE TABLE pending_writes (
                        position INTEGER PRIMARY KEY AUTOINCREMENT,
                        remote TEXT NOT NULL,
                        doc_id TEXT NOT NULL,
                        rev TEXT NOT NULL,
                        action TEXT NOT NULL,
                        kind TEXT,
                        enqueued_at REAL NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        last_error TEXT,
                        last_attempt_at REAL
                    );
                    CREATE INDEX pending_writes_by_remote ON pending_writes(remote, position);
                    """)
        }
        migrator.registerMigration("2026-11-26-document-expiry") { db in
            try db.execute(
                sql: """
                    CREATE TABLE document_expiry (
                        doc_rowid INTEGER PRIMARY KEY REFERENCES documents(rowid) ON DELETE CASCADE,
                        expires_at REAL NOT NULL
                    );
                    CREATE INDEX document_expiry_by_time ON document_expiry(expires_at);
                    """)
        }
        migrator.registerMigration("2026-11-26-tombstone-times") { db in
            // Tombstones written before this migration get its time: their retention starts now.
            try db.execute(
                sql: """
                    CREATE TABLE tombstones (
                        doc_rowid INTEGER PRIMARY KEY REFERENCES documents(rowid) ON DELETE CASCADE,
                        deleted_at REAL NOT NULL
                    );
                    CREATE INDEX tombstones_by_time ON tombstones(deleted_at);
                    INSERT INTO tombstones (doc_rowid, deleted_at)
                        SELECT rowid, (julianday('now') - 2440587.5) * 86400.0 FROM documents WHERE deleted = 1;
                    """)
        }
        migrator.registerMigration("2026-11-26-attachment-files") { db in
            try db.execute(
                sql: """
                    CREATE TABLE attachment_files (
                        digest TEXT PRIMARY KEY,
                        length INTEGER NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("2026-11-28-collation-keys-v2") { db in
            // Index keys then began writing runs of common secondary and tertiary weights as one byte and
            // numbers below 2^53 without their tie-break. The entries are remade after the migrations, in the
            // same open, by ``CollatorVersion``; rebuilding here as well would compute every entry twice, and
            // nothing reads an index between the two.
        }
        migrator.registerMigration("2026-11-28-purge-infos") { db in
            try db.execute(
                sql: """
                    CREATE TABLE purge_infos (
                        purge_seq INTEGER PRIMARY KEY,
                        doc_id TEXT NOT NULL,
                        revs TEXT NOT NULL
                    );
                    """)
        }
        // Map/reduce views; each index's rows table is created when the index is first built.
        migrator.registerMigration("2026-11-29-view-indexes") { db in
            try db.execute(
                sql: """
                    CREATE TABLE view_indexes (
                        signature TEXT PRIMARY KEY,
                        table_name TEXT NOT NULL UNIQUE,
                        language TEXT NOT NULL,
                        definition TEXT NOT NULL,
                        update_seq INTEGER NOT NULL DEFAULT 0,
                        purge_seq INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE TABLE view_states (
                        table_name TEXT NOT NULL,
                        view INTEGER NOT NULL,
                        rows INTEGER NOT NULL,
                        update_seq INTEGER NOT NULL,
                        PRIMARY KEY (table_name, view)
                    ) WITHOUT ROWID;
                    """)
        }
        // Compressed bodies: the zstd dictionaries they name (``BodyCodec``). Bodies already stored stay as
        // they are (JSON text reads as before); compaction rewrites them.
        migrator.registerMigration("2026-11-30-body-dictionaries") { db in
            try db.execute(sql: BodyDictionaryTable.createSQL)
        }
        // Projection rows keep the document's row id only (the `_id` is read from `documents`), and clustered
        // projection tables lose their second index by document: every table is rebuilt with its rows.
        migrator.registerMigration("2026-11-30-projection-rows-by-row-id") { db in
            try ProjectionCatalog.rebuildTables(in: db)
        }
        // Projection columns of small sets of texts (`.label`) hold numbers; a store's projections that
        // change a column to `.label` are rebuilt from the documents when their kinds are declared.
        migrator.registerMigration("2026-12-01-projection-labels") { db in
            try db.execute(sql: ProjectionLabels.createSQL)
        }
        migrator.registerMigration("2026-12-01-collation-keys-v3") { _ in
            // String keys lost their fourth level. Keys are now ICU's sort keys, remade after the migrations
            // whenever the collator version they were made with is not the running one (``CollatorVersion``),
            // which every store from before holds no record of.
        }
        // The winner's revision is read from the tree (`RevisionTree.winner(encoded:)`), which holds it
        // already: a copy as text cost 34 bytes per document. SQLite rewrites every row in this transaction.
        migrator.registerMigration("2026-12-01-winner-from-tree") { db in
            try db.execute(sql: "ALTER TABLE documents DROP COLUMN winner_rev")
        }
        // A document's entity kind is a number (`document_kinds`) rather than its name: the documents table is
        // rebuilt with the numbers (row ids kept, which other tables name) and its indexes made again. Foreign
        // keys are off during migrations, so dropping the old table deletes nothing that refers to it.
        migrator.registerMigration("2026-12-01-kind-numbers") { db in
            try db.execute(
                sql: """
                    \(DocumentKinds.createSQL);
                    INSERT INTO document_kinds (name) SELECT DISTINCT kind FROM documents WHERE kind IS NOT NULL ORDER BY kind;
                    CREATE TABLE documents_kind_numbers (
                        rowid INTEGER PRIMARY KEY,
                        id TEXT NOT NULL UNIQUE,
                        tree BLOB NOT NULL,
                        deleted INTEGER NOT NULL,
                        seq INTEGER NOT NULL,
                        kind INTEGER,
                        body TEXT,
                        attachments TEXT
                    );
                    INSERT INTO documents_kind_numbers (rowid, id, tree, deleted, seq, kind, body, attachments)
                    SELECT d.rowid, d.id, d.tree, d.deleted, d.seq, k.number, d.body, d.attachments
                    FROM documents d LEFT JOIN document_kinds k ON k.name = d.kind ORDER BY d.rowid;
                    DROP TABLE documents;
                    ALTER TABLE documents_kind_numbers RENAME TO documents;
                    CREATE UNIQUE INDEX documents_by_seq ON documents(seq);
                    \(DeferredKindIndex.definition);
                    """)
        }
        migrator.registerMigration("2026-12-04-creation-time") { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO store_info (key, value) VALUES (?, ?)",
                arguments: [StoreInfo.createdAt, Int64(Date().timeIntervalSince1970)])
        }
        // JSON indexes see the document as CouchDB's indexer hands it over (``IndexedDocument``): an index
        // naming `_rev`, `_conflicts`, `_deleted_conflicts` or `_attachments` had no entries for them. Such
        // indexes are made again, with their index by document row, and filled.
        migrator.registerMigration("2026-12-04-index-metadata") { db in
            for index in try IndexCatalog.all(in: db) where index.readsMetadata {
                try IndexTable.drop(index.tableName, in: db)
                try IndexTable.create(index, in: db)
                try JSONIndexBuild.fill(index, in: db)
            }
        }
        return migrator
    }

    /// The identifiers of every migration, in order (tests assert the applied list equals this).
    static let migrationIdentifiers = [
        "2026-11-21-documents-v1", "2026-11-21-mango-indexes-v1", "2026-11-25-incremental-store-kinds",
        "2026-11-25-column-projections", "2026-11-26-pending-writes", "2026-11-26-document-expiry",
        "2026-11-26-tombstone-times", "2026-11-26-attachment-files", "2026-11-28-collation-keys-v2",
        "2026-11-28-purge-infos",
        "2026-11-29-view-indexes", "2026-11-30-body-dictionaries", "2026-11-30-projection-rows-by-row-id",
        "2026-12-01-projection-labels", "2026-12-01-collation-keys-v3", "2026-12-01-winner-from-tree",
        "2026-12-01-kind-numbers", "2026-12-04-creation-time", "2026-12-04-index-metadata",
    ]
}
