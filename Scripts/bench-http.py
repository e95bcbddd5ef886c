#!/usr/bin/env python3
"""HTTP throughput of `cloudant serve` under load from wrk (Debian's `wrk`), at 1, 16 and 64 connections.

    swift build -c release --product cloudant
    python3 Scripts/bench-http.py --cloudant .build/release/cloudant [--docs 100000] [--runs 3] [--seconds 10]

It serves a fresh folder on 127.0.0.1, loads `--docs` small documents with a JSON index on `type` and `value`,
then drives three requests with wrk (2 threads, keep-alive), each `--runs` times per connection count:
  - GET /bench/<id>                  a random existing document (wrk's Lua picks the id);
  - POST /bench/_find                an indexed selector ({"type": ..., "value": {"$gt": ...}}, limit 25);
  - POST /bench/_bulk_docs           100 new documents per request (ids unique per request).
It prints the median requests/s and the median p99 latency of the runs, per case, and the CPU the server used.
The baseline a reader compares with is the same table for CouchDB on the same machine: point `--url` at it
(with `--user/--password`) instead of `--cloudant` to measure it with the same requests.
"""
import argparse, base64, json, os, re, shutil, socket, statistics, subprocess, sys, tempfile, time
import urllib.request


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def request(url, method="GET", body=None, auth=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if auth:
        req.add_header("Authorization", "Basic " + base64.b64encode(auth.encode()).decode())
    with urllib.request.urlopen(req, timeout=120) as response:
        return json.loads(response.read() or b"null")


LUA_GET = """
math.randomseed(os.time())
request = function()
  return wrk.format("GET", string.format("/bench/doc-%08d", math.random(0, {docs} - 1)))
end
"""

# wrk.format replaces the command line's headers (-H, the credentials) with the table it is given, so
# the table carries them over.
LUA_JSON_HEADERS = """
json_headers = function()
  local headers = {{["Content-Type"] = "application/json"}}
  for name, value in pairs(wrk.headers) do headers[name] = value end
  return headers
end
"""

LUA_FIND = LUA_JSON_HEADERS + """
math.randomseed(os.time())
local types = {{"HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierBodyMass"}}
request = function()
  local body = string.format('{{"selector":{{"type":"%s","value":{{"$gt":%d}}}},"limit":25}}',
    types[math.random(1, 3)], math.random(0, 190))
  return wrk.format("POST", "/bench/_find", json_headers(), body)
end
"""

LUA_BULK = LUA_JSON_HEADERS + """
local counter = 0
local thread_id = 0
setup = function(thread)
  thread:set("thread_id", thread_id)
  thread_id = thread_id + 1
end
request = function()
  counter = counter + 1
  local docs = {{}}
  for i = 1, 100 do
    docs[i] = string.format('{{"_id":"bulk-%s-%d-%d-%d","type":"HKQuantityTypeIdentifierHeartRate","value":%d}}',
      "{run}", thread_id, counter, i, i)
  end
  return wrk.format("POST", "/bench/_bulk_docs", json_headers(),
    '{{"docs":[' .. table.concat(docs, ",") .. ']}}')
end
"""


def run_wrk(url, script, connections, seconds, auth):
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(script)
        path = f.name
    try:
        header = "Authorization: Basic " + base64.b64encode(auth.encode()).decode()
        out = subprocess.run(
            ["wrk", "-t", str(min(2, connections)), "-c", str(connections), "-d", f"{seconds}s", "--latency",
             "-H", header, "-s", path, url],
            capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(path)
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rate, float(p99.group(1)) * scale, int(errors.group(1)) if errors else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cloudant", help="the cloudant binary to serve with")
    parser.add_argument("--url", help="an already running CouchDB-compatible server instead")
    parser.add_argument("--user", default="admin")
    parser.add_argument("--password", default="admin")
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", default="1,16,64")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("wrk is not installed: apt-get install wrk")
    auth = f"{args.user}:{args.password}"
    server = None
    folder = tempfile.mkdtemp(prefix="bench-http-")
    try:
        if args.cloudant:
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            server = subprocess.Popen(
                [args.cloudant, "serve", "--data", folder, "--bind", "127.0.0.1", "--port", str(port), "--admin", auth],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(100):
                try:
                    request(url + "/_up")
                    break
                except Exception:
                    time.sleep(0.1)
        else:
            url = args.url.rstrip("/")
        try:
            request(url + "/bench", "DELETE", auth=auth)
        except Exception:
            pass
        request(url + "/bench", "PUT", auth=auth)
        types = ["HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierBodyMass"]
        for start in range(0, args.docs, 5_000):
            docs = [{"_id": f"doc-{i:08d}", "type": types[i % 3], "value": (i * 7919) % 200, "unit": "count/min",
                     "startDate": "2026-11-26T08:00:00.000Z"} for i in range(start, min(start + 5_000, args.docs))]
            request(url + "/bench/_bulk_docs", "POST", {"docs": docs}, auth=auth)
        request(url + "/bench/_index", "POST", {"index": {"fields": ["type", "value"]}, "name": "type-value"}, auth=auth)
        cpu_before = cpu_seconds(server)
        cases = [("GET a document", LUA_GET.format(docs=args.docs)), ("_find with an index", LUA_FIND.format()),
                 ("_bulk_docs of 100", None)]
        print(f"{'case':24} {'conns':>5} {'req/s (median)':>15} {'p99 ms (median)':>16} {'non-2xx':>8}")
        failed = 0
        for name, script in cases:
            for connections in [int(c) for c in args.connections.split(",")]:
                rates, p99s, errors = [], [], 0
                for run in range(args.runs):
                    body = script or LUA_BULK.format(run=f"{connections}-{run}")
                    rate, p99, bad = run_wrk(url, body, connections, args.seconds, auth)
                    rates.append(rate)
                    p99s.append(p99)
                    errors += bad
                print(f"{name:24} {connections:>5} {statistics.median(rates):>15.0f} {statistics.median(p99s):>16.2f} {errors:>8}")
                failed += errors
        if server:
            print(f"server CPU during the load: {cpu_seconds(server) - cpu_before:.1f} s")
        if failed:
            # A rate of refused requests is not throughput.
            sys.exit(f"{failed} requests were answered with an error: the figures above are not valid")
    finally:
        if server:
            server.terminate()
            server.wait()
        shutil.rmtree(folder, ignore_errors=True)


def cpu_seconds(process):
    if not process:
        return 0.0
    with open(f"/proc/{process.pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    main()
