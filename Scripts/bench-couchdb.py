#!/usr/bin/env python3
"""Our HTTP endpoint beside a real CouchDB, same requests, same machine, same run (the benchmarks' two HTTP rows).

    swift build -c release --product cloudant
    python3 Scripts/bench-couchdb.py --cloudant .build/release/cloudant \
        --couch http://admin:admin@127.0.0.1:5984 [--docs 100000] [--batch 1000] [--finds 300] [--runs 3]

Each run, for each server in turn, on a fresh database:
  1. load:  `--docs` small documents (five members, about 130 bytes) with `POST /db/_bulk_docs`, `--batch` per
     request, one client on one keep-alive connection, the bodies encoded before the clock starts;
  2. index: `POST /db/_index` on `type`,`value`, then one `_find` (CouchDB builds a Mango index on first use;
     not timed: the build is measured by `cloudant-benchmarks index-build`);
  3. find:  `--finds` indexed `POST /db/_find` one after the other on one connection, twice: a `type` and a
     `value` range (limit 25), then a `type` and a `value` (`$eq` on both fields, limit 25); the same
     pseudo-random selectors for both servers.
The answers are compared: every `_find` must return the same ids in the same order from both servers, and the
load must write every document; the script exits 1 otherwise. It prints the median time of the runs per row
and the ratio CouchDB / ours. Python 3 standard library only; requests are prepared as bytes before the clock
starts and answers are decoded after it stops, so the client's share of each column is small (its socket
calls and reading the answer).
"""
import argparse, base64, json, random, shutil, socket, statistics, subprocess, sys, tempfile, time
import urllib.parse

TYPES = ["HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierBodyMass"]


class Server:
    """One keep-alive HTTP/1.1 connection to a CouchDB-compatible server.

    Requests are written as prepared bytes and answers read with a minimal parser (status line, headers,
    `Content-Length` or chunked body): `http.client` spent about 0.2 ms of Python per request, a third of
    what a `_find` of ours takes end to end, and that cost landed in both columns."""

    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        self.host, self.port = parts.hostname, parts.port
        token = f"{urllib.parse.unquote(parts.username or '')}:{urllib.parse.unquote(parts.password or '')}"
        self.authorization = "Basic " + base64.b64encode(token.encode()).decode()
        self.socket = socket.create_connection((self.host, self.port), timeout=600)
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def request_bytes(self, method, path, body=None):
        """A request as bytes, prepared before any timing starts."""
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nAuthorization: {self.authorization}\r\n"
                f"Content-Type: application/json\r\nAccept: application/json\r\nContent-Length: {len(body or b'')}\r\n\r\n")
        return head.encode() + (body or b"")

    def exchange(self, request):
        """Writes a prepared request; returns the status and the raw answer body."""
        self.socket.sendall(request)
        head = self.read_until(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        if headers.get(b"transfer-encoding", b"").lower() == b"chunked":
            body = b""
            while True:
                size = int(self.read_until(b"\r\n").split(b";")[0], 16)
                chunk = self.read_exactly(size + 2)[:size]
                if size == 0:  # the last chunk, then the blank line ending the (absent) trailers
                    break
                body += chunk
        else:
            body = self.read_exactly(int(headers.get(b"content-length", b"0")))
        return status, body

    def read_until(self, marker):
        while marker not in self.buffer:
            self.fill()
        head, _, self.buffer = self.buffer.partition(marker)
        return head

    def read_exactly(self, count):
        while len(self.buffer) < count:
            self.fill()
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def fill(self):
        data = self.socket.recv(1 << 20)
        if not data:
            raise ConnectionError("the server closed the connection")
        self.buffer += data

    def send(self, method, path, body=None):
        """The status and decoded answer; `body` is bytes already encoded, or a value to encode."""
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        status, payload = self.exchange(self.request_bytes(method, path, data))
        return status, json.loads(payload or b"null")

    def close(self):
        self.socket.close()


def documents(count):
    rng = random.Random(18)
    return [{"_id": f"doc-{i:08d}", "type": TYPES[i % 3], "value": rng.randrange(200), "unit": "count/min",
             "startDate": "2026-11-26T08:00:00.000Z"} for i in range(count)]


def selectors(count):
    """The two sets of `_find` bodies, by name: a range on the second field, and equality on both."""
    rng = random.Random(300)
    ranges = [json.dumps({"selector": {"type": rng.choice(TYPES), "value": {"$gt": rng.randrange(190)}}, "limit": 25}).encode()
              for _ in range(count)]
    equalities = [json.dumps({"selector": {"type": rng.choice(TYPES), "value": rng.randrange(200)}, "limit": 25}).encode()
                  for _ in range(count)]
    return {"range": ranges, "equality": equalities}


def measure(server, database, bodies, finds, expected_docs):
    """(load seconds, {set: find seconds}, {set: the ids each find returned})."""
    server.send("DELETE", f"/{database}")
    status, answer = server.send("PUT", f"/{database}")
    if status not in (201, 202):
        sys.exit(f"creating {database}: {status} {answer}")
    requests = [server.request_bytes("POST", f"/{database}/_bulk_docs", body) for body in bodies]
    answers = []
    start = time.perf_counter()
    for request in requests:
        answers.append(server.exchange(request))
    load = time.perf_counter() - start
    for status, payload in answers:
        answer = json.loads(payload)
        if status != 201 or any("error" in row for row in answer):
            sys.exit(f"_bulk_docs refused: {status} {str(answer)[:300]}")
    status, info = server.send("GET", f"/{database}")
    if info.get("doc_count") != expected_docs:
        sys.exit(f"{database} holds {info.get('doc_count')} documents, not {expected_docs}")
    server.send("POST", f"/{database}/_index", {"index": {"fields": ["type", "value"]}, "name": "type-value"})
    times, ids = {}, {}
    for name, bodies_of_set in finds.items():
        server.send("POST", f"/{database}/_find", bodies_of_set[0])
        requests = [server.request_bytes("POST", f"/{database}/_find", body) for body in bodies_of_set]
        raw = []
        start = time.perf_counter()
        for request in requests:
            raw.append(server.exchange(request))
        times[name] = time.perf_counter() - start
        answers = []
        for status, payload in raw:
            answer = json.loads(payload)
            if status != 200:
                sys.exit(f"_find refused: {status} {answer}")
            answers.append(answer)
        if any("no_usable_index" in answer.get("warning", "") for answer in answers):
            sys.exit("a _find did not use the index")
        ids[name] = [[doc["_id"] for doc in answer["docs"]] for answer in answers]
    server.send("DELETE", f"/{database}")
    return load, times, ids


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_cloudant(binary, folder, port):
    process = subprocess.Popen(
        [binary, "serve", "--data", folder, "--bind", "127.0.0.1", "--port", str(port), "--admin", "admin:admin"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    sys.exit("cloudant serve did not start")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cloudant", required=True, help="the cloudant binary to serve with")
    parser.add_argument("--couch", required=True, help="a CouchDB URL with admin credentials")
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--finds", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    docs = documents(args.docs)
    bodies = [json.dumps({"docs": docs[i:i + args.batch]}).encode() for i in range(0, len(docs), args.batch)]
    finds = selectors(args.finds)
    times = {"ours": {"load": []}, "CouchDB": {"load": []}}
    folder = tempfile.mkdtemp(prefix="bench-couchdb-")
    port = free_port()
    process = start_cloudant(args.cloudant, folder, port)
    try:
        ours = Server(f"http://admin:admin@127.0.0.1:{port}")
        couch = Server(args.couch)
        for run in range(args.runs):
            results = {}
            for name, server in (("ours", ours), ("CouchDB", couch)):
                load, found, ids = measure(server, f"bench_couchdb_{run}", bodies, finds, args.docs)
                times[name]["load"].append(load)
                for set_name, seconds in found.items():
                    times[name].setdefault(set_name, []).append(seconds)
                results[name] = ids
                finds_text = "  ".join(f"{args.finds} {set_name} finds {seconds:7.3f} s" for set_name, seconds in found.items())
                print(f"run {run + 1} {name:8} load {load:7.3f} s   {finds_text}", flush=True)
            for set_name, bodies_of_set in finds.items():
                pairs = zip(results["ours"][set_name], results["CouchDB"][set_name])
                differing = [i for i, (a, b) in enumerate(pairs) if a != b]
                if differing:
                    sys.exit(f"{len(differing)} finds answered differently, first: {bodies_of_set[differing[0]].decode()}")
        ours.close()
        couch.close()
    finally:
        process.terminate()
        process.wait()
        shutil.rmtree(folder, ignore_errors=True)

    print(f"\nmedians of {args.runs} runs                        ours      CouchDB   CouchDB / ours")
    rows = [(f"_bulk_docs load, {args.docs} docs, {args.batch}/request", "load")]
    rows += [(f"{args.finds} indexed _find, {name}", name) for name in finds]
    for row, key in rows:
        a, b = statistics.median(times["ours"][key]), statistics.median(times["CouchDB"][key])
        print(f"{row:48} {a:7.3f} s  {b:7.3f} s  {b / a:6.1f}×")


if __name__ == "__main__":
    main()
