#!/usr/bin/env python3
"""The floor under a health import's writes: the rows an import stored, written again by SQLite alone.

Reads a store the import made (`cloudant health import`, or the benchmark's child) and replays its rows into
a fresh file with the same schema, as the import writes them: a transaction per batch of documents (their
`documents` rows, then their entries in every Mango index and column projection, taken from a copy ordered
by document), WAL with `synchronous = NORMAL`, a 4 MB page cache, the log checkpointed every 32 MB, and the
index by kind built after the load as a bulk load into an empty store builds it. Bodies are copied as stored
(compressed or not), so the figure is the cost of writing what the import writes, without parsing, encoding,
hashing or compressing anything.

    python3 Benchmarks/Health/import_write_floor.py STORE.sqlite [--batch 2000] [--repetitions 3]

Prints each run's seconds and the median, and the seconds per 1,000 documents. Python only issues a few
statements per batch; SQLite does the work.
"""
import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time

# Tables filled per document, whose rows are replayed batch by batch beside the documents they belong to.
PER_DOCUMENT_PREFIXES = ("mango_json_", "projection_")
# Built after the load, as `DocumentStore.bulkLoading` defers it for an empty store.
DEFERRED_INDEX = "documents_by_kind"


def schema(source):
    rows = source.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'"
        " ORDER BY CASE type WHEN 'table' THEN 0 ELSE 1 END, rowid").fetchall()
    return rows


def stage(source_path, folder):
    """A copy of the per-document tables ordered by document, with an index to take a batch's rows."""
    staged = os.path.join(folder, "staged.sqlite")
    connection = sqlite3.connect(staged, isolation_level=None)
    connection.execute("ATTACH DATABASE ? AS src", (source_path,))
    tables = []
    for (name,) in connection.execute("SELECT name FROM src.sqlite_master WHERE type = 'table'").fetchall():
        columns = [row[1] for row in connection.execute(f"PRAGMA src.table_info({name})")]
        if name.startswith(PER_DOCUMENT_PREFIXES) and "doc_rowid" in columns:
            connection.execute(
                f"CREATE TABLE {name} AS SELECT * FROM src.{name} ORDER BY doc_rowid")
            connection.execute(f"CREATE INDEX {name}_by_doc ON {name}(doc_rowid)")
            tables.append((name, columns))
    connection.execute("DETACH DATABASE src")
    connection.close()
    return staged, tables


def replay(source_path, staged, tables, batch, folder, run):
    target = os.path.join(folder, f"replay-{run}.sqlite")
    source = sqlite3.connect(source_path)
    ddl = schema(source)
    documents = [row[0] for row in source.execute("SELECT rowid FROM documents ORDER BY rowid")]
    source.close()
    connection = sqlite3.connect(target, isolation_level=None)
    connection.execute("PRAGMA page_size = 4096")
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute("PRAGMA cache_size = -4096")
    connection.execute("PRAGMA mmap_size = 0")
    connection.execute("PRAGMA wal_autocheckpoint = 8192")
    deferred = None
    for kind, name, _, sql in ddl:
        if name == DEFERRED_INDEX:
            deferred = sql
            continue
        connection.execute(sql)
    connection.execute("ATTACH DATABASE ? AS src", (source_path,))
    connection.execute("ATTACH DATABASE ? AS staged", (staged,))
    # What the store holds before the first batch: everything not written per document.
    per_document = {name for name, _ in tables} | {"documents"}
    for kind, name, _, _ in ddl:
        if kind == "table" and name not in per_document:
            connection.execute(f"INSERT INTO main.{name} SELECT * FROM src.{name}")
    copy_documents = "INSERT INTO main.documents SELECT * FROM src.documents WHERE rowid BETWEEN ? AND ?"
    copies = [
        f"INSERT INTO main.{name} ({', '.join(columns)}) SELECT {', '.join(columns)} FROM staged.{name}"
        " WHERE doc_rowid BETWEEN ? AND ?"
        for name, columns in tables]
    # The source pages are read once before the clock starts, so the run times writing, not a cold cache.
    connection.execute("SELECT SUM(LENGTH(body)) FROM src.documents").fetchone()
    start = time.perf_counter()
    for first in range(0, len(documents), batch):
        low, high = documents[first], documents[min(first + batch, len(documents)) - 1]
        connection.execute("BEGIN IMMEDIATE")
        connection.execute(copy_documents, (low, high))
        for statement in copies:
            connection.execute(statement, (low, high))
        connection.execute("COMMIT")
    if deferred:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute(deferred)
        connection.execute("COMMIT")
    connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
    seconds = time.perf_counter() - start
    connection.close()
    size = os.path.getsize(target)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(target + suffix):
            os.remove(target + suffix)
    return seconds, len(documents), size


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("store")
    parser.add_argument("--batch", type=int, default=2000)
    parser.add_argument("--repetitions", type=int, default=3)
    arguments = parser.parse_args()
    if not os.path.exists(arguments.store):
        sys.exit(f"no store at {arguments.store}")
    with tempfile.TemporaryDirectory(prefix="import-write-floor-") as folder:
        staged, tables = stage(arguments.store, folder)
        runs = []
        for run in range(arguments.repetitions):
            seconds, count, size = replay(arguments.store, staged, tables, arguments.batch, folder, run)
            runs.append(seconds)
            print(f"run {run + 1}: {seconds:.3f} s for {count} documents ({size / 1048576:.1f} MB)", flush=True)
        median = statistics.median(runs)
        print(f"median: {median:.3f} s, {median / count * 1e6:.1f} µs a document "
              f"(SQLite {sqlite3.sqlite_version}, batches of {arguments.batch})")


if __name__ == "__main__":
    main()
