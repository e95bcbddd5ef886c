#!/usr/bin/env python3
"""Replicate between a real Apache CouchDB and this project, both ways, and check nothing differs.

Run it against a CouchDB 3.x you control (it creates and deletes databases named rt_*):

    python3 Scripts/check-against-couchdb.py --couch http://admin:admin@127.0.0.1:5984 \
        --cloudant .build/release/cloudant --docs 10000

What it does, with N documents of mixed bodies, attachments (text and JSON, which CouchDB keeps gzip-encoded,
and binary), conflicts, deleted conflicts and tombstones, seeded into CouchDB:
  1. our replicator pulls CouchDB -> a local store, then pushes the store -> a new CouchDB database;
  2. CouchDB's own /_replicate pulls from `cloudant serve` (serving that store) and pushes into it;
  3. edits and deletions made after the first replication travel the same ways again;
  4. a store written here (attachments included) goes to CouchDB and back through both replicators.
After each step every copy is compared with its source through the CouchDB API: the ids, every leaf of every
revision tree (open_revs=all) with its body, the winner, _conflicts and _deleted_conflicts, and each
attachment's digest, length, encoding, revpos and bytes. It prints one line per check and exits 1 on a
difference. Python 3 standard library only.
"""
import argparse, base64, hashlib, json, os, random, shutil, signal, socket, subprocess, sys, tempfile, time
import urllib.error, urllib.parse, urllib.request


class Couch:
    """A minimal CouchDB client: JSON in, JSON out, credentials from the URL."""

    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        self.base = f"{parts.scheme}://{parts.hostname}:{parts.port}"
        self.auth = None
        if parts.username:
            token = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
            self.auth = "Basic " + base64.b64encode(token.encode()).decode()

    def url(self, db):
        parts = urllib.parse.urlsplit(self.base)
        if not self.auth:
            return f"{self.base}/{db}"
        user, password = base64.b64decode(self.auth[6:]).decode().split(":", 1)
        return f"{parts.scheme}://{urllib.parse.quote(user)}:{urllib.parse.quote(password)}@{parts.netloc}/{db}"

    def request(self, method, path, body=None, headers=None, raw=False, ok=(200, 201, 202)):
        data = None
        all_headers = {"Accept": "application/json"}
        if body is not None:
            data = json.dumps(body).encode()
            all_headers["Content-Type"] = "application/json"
        if self.auth:
            all_headers["Authorization"] = self.auth
        all_headers.update(headers or {})
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=all_headers)
        try:
            with urllib.request.urlopen(request, timeout=600) as response:
                payload = response.read()
                status = response.status
        except urllib.error.HTTPError as error:
            payload, status = error.read(), error.code
        if status not in ok:
            raise RuntimeError(f"{method} {path} -> {status}: {payload[:300]!r}")
        return payload if raw else json.loads(payload or b"null")

    def recreate(self, db):
        self.request("DELETE", f"/{db}", ok=(200, 202, 404))
        self.request("PUT", f"/{db}?q=1", ok=(201, 202))


def text_attachment(rng, size):
    words = ["heart", "rate", "steps", "walk", "sleep", "dose", "note", "care", "plan", "task"]
    return " ".join(rng.choice(words) for _ in range(size)).encode()


def seed(couch, db, count, rng):
    """N documents into CouchDB: plain, with attachments, conflicted, deleted; returns nothing."""
    couch.recreate(db)
    docs, replicated = [], []
    for index in range(count):
        doc_id = f"doc-{index:06d}"
        doc = {"_id": doc_id, "n": index, "kind": rng.choice(["task", "outcome", "sample"]),
               "values": [rng.random() for _ in range(rng.randint(0, 4))], "big": 12345678901234567890}
        if index % 10 == 0:
            doc["_attachments"] = {
                "note.txt": {"content_type": "text/plain",
                             "data": base64.b64encode(text_attachment(rng, rng.randint(0, 400))).decode()},
                "data.json": {"content_type": "application/json",
                              "data": base64.b64encode(json.dumps({"i": index}).encode()).decode()},
                "blob.bin": {"content_type": "application/octet-stream",
                             "data": base64.b64encode(bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 300)))).decode()},
            }
        docs.append(doc)
    for start in range(0, len(docs), 500):
        couch.request("POST", f"/{db}/_bulk_docs", {"docs": docs[start:start + 500]})
    # Conflicts: a second branch from outside (as a replicator writes it); some of them deleted.
    for index in range(0, count, 20):
        doc_id = f"doc-{index:06d}"
        current = couch.request("GET", f"/{db}/{doc_id}?revs=true")
        root = current["_revisions"]["ids"][-1]
        branch = hashlib.md5(f"branch-{index}".encode()).hexdigest()
        conflict = {"_id": doc_id, "_rev": f"2-{branch}", "_revisions": {"start": 2, "ids": [branch, root]},
                    "n": -index, "branch": True}
        if index % 40 == 0:
            conflict["_deleted"] = True
        if index % 60 == 0:
            conflict["_attachments"] = {"c.txt": {"content_type": "text/plain",
                                                  "data": base64.b64encode(b"conflict " * 50).decode()}}
        replicated.append(conflict)
    couch.request("POST", f"/{db}/_bulk_docs", {"docs": replicated, "new_edits": False})
    # Tombstones: deleted documents.
    deletions = []
    for index in range(7, count, 25):
        doc_id = f"doc-{index:06d}"
        current = couch.request("GET", f"/{db}/{doc_id}")
        deletions.append({"_id": doc_id, "_rev": current["_rev"], "_deleted": True})
    couch.request("POST", f"/{db}/_bulk_docs", {"docs": deletions})


def edit(couch, db, count, rng):
    """After a first replication: updates, deletions, a conflict resolved, a new attachment."""
    rows = couch.request("GET", f"/{db}/_all_docs?limit=600")["rows"]
    changes = []
    for number, row in enumerate(rows):
        doc = couch.request("GET", f"/{db}/{urllib.parse.quote(row['id'], safe='')}?conflicts=true")
        if number % 3 == 0:
            changes.append({"_id": doc["_id"], "_rev": doc["_rev"], "_deleted": True})
        elif number % 3 == 1:
            doc["edited"] = True
            doc.pop("_conflicts", None)
            if number % 7 == 1:
                doc.setdefault("_attachments", {})["added.txt"] = {
                    "content_type": "text/plain", "data": base64.b64encode(text_attachment(rng, 50)).decode()}
            changes.append(doc)
        for loser in doc.get("_conflicts", []):
            changes.append({"_id": doc["_id"], "_rev": loser, "_deleted": True})
    couch.request("POST", f"/{db}/_bulk_docs", {"docs": changes})


def snapshot(couch, db):
    """Every document of `db` as comparable data: leaves with bodies and attachment facts, winner, conflicts."""
    ids, start = [], None
    while True:
        query = "/_changes?style=all_docs&limit=2000" + (f"&since={urllib.parse.quote(json.dumps(start) if not isinstance(start, str) else start)}" if start is not None else "")
        page = couch.request("GET", f"/{db}{query}")
        ids += [row["id"] for row in page["results"] if not row["id"].startswith("_design/")]
        if not page["results"]:
            break
        start = page["last_seq"]
    state = {}
    for doc_id in sorted(set(ids)):
        path = f"/{db}/{urllib.parse.quote(doc_id, safe='')}"
        leaves = couch.request("GET", path + "?open_revs=all&revs=true&attachments=true&att_encoding_info=true")
        entry = {}
        for leaf in leaves:
            doc = leaf["ok"]
            atts = {}
            for name, att in (doc.pop("_attachments", None) or {}).items():
                atts[name] = {key: att.get(key) for key in ("digest", "content_type", "revpos", "encoding", "encoded_length")}
                atts[name]["sha256"] = hashlib.sha256(base64.b64decode(att["data"])).hexdigest()
            doc["_attachments"] = atts
            entry[doc["_rev"]] = doc
        winner = couch.request("GET", path + "?conflicts=true&deleted_conflicts=true", ok=(200, 404))
        if winner.get("error") == "not_found":
            winner = {"deleted": True}
        state[doc_id] = {"leaves": entry, "winner": winner.get("_rev"),
                         "conflicts": winner.get("_conflicts", []), "deleted_conflicts": winner.get("_deleted_conflicts", [])}
    return state


def compare(label, expected, actual):
    differences = []
    for doc_id in sorted(set(expected) | set(actual)):
        if expected.get(doc_id) != actual.get(doc_id):
            differences.append(doc_id)
    status = "ok" if not differences else f"DIFFERS in {len(differences)} documents, first {differences[0]}"
    print(f"{label}: {len(expected)} documents, {status}", flush=True)
    if differences:
        doc_id = differences[0]
        print("  expected:", json.dumps(expected.get(doc_id), sort_keys=True)[:1500])
        print("  actual:  ", json.dumps(actual.get(doc_id), sort_keys=True)[:1500])
    return not differences


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--couch", default="http://admin:admin@127.0.0.1:5984")
    parser.add_argument("--cloudant", default=".build/release/cloudant")
    parser.add_argument("--docs", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=14)
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)
    couch = Couch(arguments.couch)
    data = tempfile.mkdtemp(prefix="cloudant-roundtrip-")
    cloudant = os.path.abspath(arguments.cloudant)
    port = free_port()
    ours = Couch(f"http://admin:admin@127.0.0.1:{port}")
    server = None
    ok = True

    def replicate(source, target, *extra):
        started = time.time()
        result = subprocess.run([cloudant, "replicate", "--data", data, source, target, *extra],
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"cloudant replicate {source} {target}: {result.stderr[-600:]}")
        return time.time() - started

    def couch_replicate(source, target, create_target=False):
        started = time.time()
        answer = couch.request("POST", "/_replicate", {"source": source, "target": target, "create_target": create_target})
        if not answer.get("ok"):
            raise RuntimeError(f"CouchDB /_replicate {source} -> {target}: {answer}")
        return time.time() - started

    def serve():
        nonlocal server
        server = subprocess.Popen([cloudant, "serve", "--data", data, "--bind", "127.0.0.1", "--port", str(port),
                                   "--admin", "admin:admin"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                ours.request("GET", "/_up")
                return
            except Exception:
                time.sleep(0.1)
        raise RuntimeError("cloudant serve did not start")

    def stop():
        nonlocal server
        if server:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
            server = None

    try:
        print(f"seeding {arguments.docs} documents into CouchDB rt_src", flush=True)
        seed(couch, "rt_src", arguments.docs, rng)
        for db in ["rt_dst", "rt_from_serve"]:
            couch.request("DELETE", f"/{db}", ok=(200, 202, 404))
        source = snapshot(couch, "rt_src")

        seconds = replicate(couch.url("rt_src"), "ours")
        print(f"pull CouchDB -> store: {seconds:.1f} s", flush=True)
        seconds = replicate("ours", couch.url("rt_dst"), "--create-target")
        print(f"push store -> CouchDB: {seconds:.1f} s", flush=True)
        ok &= compare("CouchDB rt_src -> store -> CouchDB rt_dst", source, snapshot(couch, "rt_dst"))
        serve()
        ok &= compare("CouchDB rt_src -> store (read through cloudant serve)", source, snapshot(ours, "ours"))

        served = f"http://admin:admin@127.0.0.1:{port}/ours"
        seconds = couch_replicate(served, couch.url("rt_from_serve"), create_target=True)
        print(f"CouchDB /_replicate from cloudant serve: {seconds:.1f} s", flush=True)
        ok &= compare("store -> CouchDB rt_from_serve (CouchDB's replicator)", source, snapshot(couch, "rt_from_serve"))
        ours.request("DELETE", "/ours_pushed", ok=(200, 404))
        seconds = couch_replicate(couch.url("rt_src"), f"http://admin:admin@127.0.0.1:{port}/ours_pushed", create_target=True)
        print(f"CouchDB /_replicate into cloudant serve: {seconds:.1f} s", flush=True)
        ok &= compare("CouchDB rt_src -> cloudant serve ours_pushed (CouchDB's replicator)", source, snapshot(ours, "ours_pushed"))
        stop()

        print("editing and deleting in rt_src after the first replication", flush=True)
        edit(couch, "rt_src", arguments.docs, rng)
        source = snapshot(couch, "rt_src")
        replicate(couch.url("rt_src"), "ours")
        replicate("ours", couch.url("rt_dst"))
        ok &= compare("second pull and push", source, snapshot(couch, "rt_dst"))
        serve()
        couch_replicate(served, couch.url("rt_from_serve"))
        ok &= compare("second CouchDB /_replicate from cloudant serve", source, snapshot(couch, "rt_from_serve"))
        couch_replicate(couch.url("rt_src"), f"http://admin:admin@127.0.0.1:{port}/ours_pushed")
        ok &= compare("second CouchDB /_replicate into cloudant serve", source, snapshot(ours, "ours_pushed"))

        print("a store written here, to CouchDB and back", flush=True)
        ours.request("DELETE", "/native", ok=(200, 404))
        ours.request("PUT", "/native")
        for index in range(200):
            doc = {"_id": f"n{index:04d}", "v": index}
            if index % 4 == 0:
                doc["_attachments"] = {"r.txt": {"content_type": "text/plain",
                                                 "data": base64.b64encode(text_attachment(rng, 100)).decode()},
                                       "p.png": {"content_type": "image/png",
                                                 "data": base64.b64encode(bytes(range(256))).decode()}}
            ours.request("PUT", f"/native/{doc['_id']}", doc)
        native = snapshot(ours, "native")
        couch.request("DELETE", "/rt_native", ok=(200, 202, 404))
        couch_replicate(f"http://admin:admin@127.0.0.1:{port}/native", couch.url("rt_native"), create_target=True)
        ok &= compare("store -> CouchDB (CouchDB's replicator)", native, snapshot(couch, "rt_native"))
        stop()
        replicate(couch.url("rt_native"), "native_back")
        serve()
        ok &= compare("... -> store again (our replicator)", native, snapshot(ours, "native_back"))
        couch.request("DELETE", "/rt_native2", ok=(200, 202, 404))
        stop()
        replicate("native", couch.url("rt_native2"), "--create-target")
        ok &= compare("store -> CouchDB (our replicator)", native, snapshot(couch, "rt_native2"))
    finally:
        stop()
        shutil.rmtree(data, ignore_errors=True)
    print("all copies identical" if ok else "DIFFERENCES FOUND")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
