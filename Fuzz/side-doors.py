#!/usr/bin/env python3
"""Replays an attacker's probe of a shared health-data server against a live `cloudant serve`.

Usage: side-doors.py PATH/TO/cloudant

As bob, a staff member of a ward whose documents carry access lists, against alice's documents; and as an
anonymous or ordinary user against the server:

  1. panels      the care and health dashboard panels show bob nothing of alice's patient or heart rate;
  2. find        `_find` answers a hidden document as a missing one: a `$regex` over its step limit, the
                 statistics, the time it takes;
  3. stall       bob cannot give his own password hash 60 million iterations, and `/_up` answers while
                 logins hash;
  4. leaves      10 000 conflicting leaves of one document are written or refused within seconds, and SIGTERM
                 during a request that would run for hours ends the server within its grace period.

Only the Python standard library is used, and only public interfaces (the CLI, HTTP). Prints one line per
check and "N passed, M failed" last; exits 1 when a check fails.
"""

import base64
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

CLOUDANT = sys.argv[1] if len(sys.argv) > 1 else "cloudant"
ADMIN = ("admin", "admin")
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + detail))


class Server:
    """`cloudant serve` on a free port over `data`, ended with SIGTERM."""

    def __init__(self, data, *options):
        self.process = subprocess.Popen(
            [CLOUDANT, "--data", data, "serve", "--port", "0", "--admin", "%s:%s" % ADMIN] + list(options),
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        line = self.process.stdout.readline()
        self.url = json.loads(line)["url"]

    def request(self, method, path, body=None, user=ADMIN, content_type="application/json", timeout=600):
        data = None
        # A JSON client, as CouchDB's clients are: without it CouchDB (and this server) answer `open_revs` and
        # `attachments=true` as MIME parts.
        headers = {"Accept": "application/json"}
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            headers["Content-Type"] = content_type
        if user is not None:
            token = base64.b64encode(("%s:%s" % user).encode()).decode()
            headers["Authorization"] = "Basic " + token
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def json(self, method, path, body=None, user=ADMIN):
        status, raw = self.request(method, path, body, user)
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode(errors="replace")

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def cli(data, *arguments, stdin=None):
    done = subprocess.run([CLOUDANT, "--data", data] + list(arguments), input=stdin, capture_output=True)
    if done.returncode != 0:
        raise RuntimeError("cloudant %s: %s" % (" ".join(arguments), done.stderr.decode(errors="replace")))
    return done.stdout


EXPORT = """<?xml version="1.0" encoding="UTF-8"?>
<HealthData locale="en_US">
 <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" unit="count/min" creationDate="2024-06-01 01:00:00 +0000" startDate="2024-06-01 01:00:00 +0000" endDate="2024-06-01 01:00:00 +0000" value="%d"/>
</HealthData>
"""


def entity_documents(server, database):
    """The documents the care and health modules wrote in `database`, ready to be written elsewhere."""
    status, listing = server.json("GET", "/%s/_all_docs?include_docs=true" % database)
    assert status == 200, listing
    documents = []
    for row in listing["rows"]:
        if row["id"].startswith("_design/"):
            continue
        document = row["doc"]
        document.pop("_rev", None)
        documents.append(document)
    return documents


def main():
    folder = tempfile.mkdtemp(prefix="cloudant-side-doors-")
    data = os.path.join(folder, "data")
    os.makedirs(data)
    try:
        # Each one's care and health documents, made by the modules themselves.
        for owner, name, rate in [("alice", "Hiddenpatient", 187), ("bob", "Visiblepatient", 72)]:
            patient = {"id": owner + "-patient", "name": {"givenName": owner.title(), "familyName": name},
                       "effectiveDate": "2023-11-14T00:00:00Z"}
            cli(data, "care", "add", "--db", owner + "-scratch", "patient", stdin=json.dumps(patient).encode())
            export = os.path.join(folder, owner + "-export.xml")
            with open(export, "w") as handle:
                handle.write(EXPORT % rate)
            cli(data, "health", "import", "--db", owner + "-scratch", export)
        server = Server(data, "--password-iterations", "1000000", "--regex-step-limit", "10000000")
        try:
            probe(server)
        finally:
            server.stop()
        shutdown(os.path.join(folder, "shutdown"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    passed = sum(1 for ok in results if ok)
    print("%d passed, %d failed" % (passed, len(results) - passed))
    return 0 if passed == len(results) else 1


def probe(server):
    for name in ["alice", "bob"]:
        user = {"name": name, "password": "pw-" + name, "roles": ["staff"], "type": "user"}
        server.json("PUT", "/_users/org.couchdb.user:" + name, user)
    alice, bob = ("alice", "pw-alice"), ("bob", "pw-bob")
    server.json("PUT", "/ward")
    server.json("PUT", "/ward/_security", {"members": {"roles": ["staff"]}, "document_access": True})
    for owner, user in [("alice", alice), ("bob", bob)]:
        status, _ = server.json("POST", "/ward/_bulk_docs", {"docs": entity_documents(server, owner + "-scratch")}, user)
        assert status == 201

    # 1. Panels.
    chart = "/_utils/db/ward/panel/health?type=HKQuantityTypeIdentifierHeartRate&from=2024-06-01&to=2024-06-01&by=day"
    status, page = server.request("GET", chart, user=bob)
    check("panels: the health chart shows bob his heart rate only", status == 200 and b"72" in page and b"187" not in page,
          "status %d, 187 shown: %s" % (status, b"187" in page))
    status, page = server.request("GET", "/_utils/db/ward/panel/care", user=bob)
    check("panels: the care page shows bob no hidden patient",
          status == 200 and b"Visiblepatient" in page and b"Hiddenpatient" not in page,
          "status %d, hidden patient shown: %s" % (status, b"Hiddenpatient" in page))

    # 2. _find.
    evil = "a" * 40 + "!"
    server.json("PUT", "/ward/h-secret", {"note": evil}, alice)
    server.json("PUT", "/ward/v-bobdoc", {"note": evil}, bob)
    def find(selector, stats=False):
        started = time.monotonic()
        status, answer = server.json("POST", "/ward/_find", {"selector": selector, "execution_stats": stats}, bob)
        return status, answer, time.monotonic() - started
    regex = {"$regex": "^(a+)+$"}
    hidden = find({"_id": "h-secret", "note": regex})
    missing = find({"_id": "m-absent", "note": regex})
    check("find: a $regex over its limit answers a hidden document as a missing one",
          hidden[0] == missing[0] == 200 and hidden[1]["docs"] == missing[1]["docs"] == [],
          "hidden %s %s, missing %s %s" % (hidden[0], hidden[1], missing[0], missing[1]))
    stats_hidden = find({"_id": "h-secret"}, stats=True)[1].get("execution_stats", {})
    stats_missing = find({"_id": "m-absent"}, stats=True)[1].get("execution_stats", {})
    keys = ["total_keys_examined", "total_docs_examined", "results_returned"]
    check("find: execution_stats count a hidden document as a missing one",
          all(stats_hidden.get(key) == stats_missing.get(key) for key in keys),
          "hidden %s, missing %s" % (stats_hidden, stats_missing))
    visible_times = sorted(find({"_id": "v-bobdoc", "note": regex})[2] for _ in range(3))
    hidden_times = sorted(find({"_id": "h-secret", "note": regex})[2] for _ in range(3))
    check("find: the $regex never runs on a hidden document (time)", hidden_times[1] * 4 < visible_times[1],
          "hidden %.3f s, visible %.3f s" % (hidden_times[1], visible_times[1]))

    # 3. Stall.
    status, own = server.json("GET", "/_users/org.couchdb.user:bob", user=bob)
    own["iterations"] = 60000000
    status, answer = server.json("PUT", "/_users/org.couchdb.user:bob", own, bob)
    check("stall: bob cannot set his hash's iterations", status == 403, "status %d %s" % (status, answer))
    logins = []
    for _ in range(2):
        thread = threading.Thread(target=server.request, args=("POST", "/_session", {"name": "bob", "password": "guess"}),
                                  kwargs={"user": None})
        thread.start()
        logins.append(thread)
    started = time.monotonic()
    status, _ = server.request("GET", "/_up", user=None)
    waited = time.monotonic() - started
    check("stall: /_up answers while logins hash", status == 200 and waited < 5, "status %d after %.1f s" % (status, waited))
    for thread in logins:
        thread.join()

    # 4. Leaves, in bob's own database.
    server.json("PUT", "/bobdb")
    server.json("PUT", "/bobdb/_security", {"members": {"names": ["bob"]}, "admins": {"names": ["bob"]}})
    docs = [{"_id": "crowded", "_rev": "1-%032x" % index, "n": index} for index in range(10000)]
    started = time.monotonic()
    status, answer = server.json("POST", "/bobdb/_bulk_docs", {"docs": docs, "new_edits": False}, bob)
    took = time.monotonic() - started
    refused = [row for row in answer if isinstance(row, dict) and row.get("error") == "too_large"] if isinstance(answer, list) else []
    status_leaves, leaves = server.json("GET", "/bobdb/crowded?open_revs=all", user=bob)
    kept = len(leaves) if isinstance(leaves, list) else -1
    check("leaves: 10 000 conflicting leaves are written or refused with a clear error in seconds",
          status == 201 and took < 10 and kept + len(refused) == 10000 and kept == 1000,
          "status %d in %.1f s, %d kept, %d refused" % (status, took, kept, len(refused)))
    status, _ = server.request("GET", "/_up", user=None)
    check("leaves: the server still answers", status == 200, "status %d" % status)


def shutdown(data):
    """SIGTERM while a `_find` runs a `$regex` over documents that would take many minutes: the server ends
    within its grace period. Each of the 10 000 values takes `^(a+)+$` some four million steps to reject."""
    os.makedirs(data)
    server = Server(data, "--shutdown-grace-period", "2", "--regex-step-limit", "20000000")
    try:
        server.json("PUT", "/db")
        docs = [{"_id": "d%d" % index, "note": "a" * 21 + "!"} for index in range(10000)]
        server.json("POST", "/db/_bulk_docs", {"docs": docs})
        def query():
            try:
                server.request("POST", "/db/_find", {"selector": {"note": {"$regex": "^(a+)+$"}}}, timeout=600)
            except (OSError, http.client.HTTPException):
                pass  # the server ends under it: that is the point
        thread = threading.Thread(target=query, daemon=True)
        thread.start()
        # The query is well under way once the server has used two seconds of CPU after the request went out.
        def cpu():
            with open("/proc/%d/stat" % server.process.pid) as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        start_cpu = cpu()
        deadline = time.monotonic() + 120
        while cpu() - start_cpu < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        started = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        try:
            server.process.wait(timeout=60)
            ended = time.monotonic() - started
            check("shutdown: SIGTERM during a long request ends the server within its grace period", True)
            print("      (ended %.1f s after SIGTERM, grace period 2 s)" % ended)
        except subprocess.TimeoutExpired:
            check("shutdown: SIGTERM during a long request ends the server within its grace period", False,
                  "still running 60 s after SIGTERM")
    finally:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()


if __name__ == "__main__":
    sys.exit(main())
