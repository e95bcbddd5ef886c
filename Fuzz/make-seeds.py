#!/usr/bin/env python3
"""Writes the seed corpus of each fuzz target into Fuzz/Corpus/<target>/ (committed; run again only to
change the seeds). Seeds come from CouchDB's recorded conformance kit (Conformance/couchdb:
its documents, Mango selectors and requests) and from hand-written edge cases.

    python3 Fuzz/make-seeds.py [path/to/Conformance/couchdb]
"""
import base64, gzip, hashlib, json, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
kit = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "Conformance", "couchdb")
golden = json.load(open(os.path.join(kit, "golden-public.json")))


def write(target, name, data):
    folder = os.path.join(here, "Corpus", target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:60]
    with open(os.path.join(folder, f"{name}-{hashlib.sha1(data).hexdigest()[:8]}"), "wb") as f:
        f.write(data)


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


fuzz = golden["mango_fuzz"]

# JSON: documents of the kit, request bodies it sends, and the grammar's corners.
for doc in fuzz["docs"][:24]:
    write("json", "doc", compact(doc))
for text in [
    '{"one":1.0,"e3":1e3,"E":2E-2,"big":12345678901234567890,"huge":1e300,"s":"\\u00e9\\/","b":[true,false,null],"z":0,"neg":-1.25}',
    '{"_id":"a","_rev":"1-967a00dff5e02add41819138abb3284d","k":[1,[2,[3,{"x":null}]]]}',
    '"\\ud83d\\ude00 \\u0000 \\t\\n\\r\\b\\f\\"\\\\"', "-0", "-0.0", "9223372036854775807", "-9223372036854775808",
    "9223372036854775808", '{"\u00e9":1,"e\u0301":2}', "1.7976931348623157e308", "5e-324", "0.1e-400", "[]", "{}", "  [ 1 , 2 ]  ", "[[[[[[[[[[[[]]]]]]]]]]]]",
    '{"a":1,"a":2}', '{"é":1,"é":2}', "[1,]", "{\"a\"}", "\ufeff{}", "01", "1.", ".5", "+1", "NaN", "[\"\\ud800\"]",
    "\"\xc3\"", "tru", '{"a":"b"} x', "\"a\u0001\"",
]:
    write("json", "edge", text)

# Selectors: the kit's random valid selectors, invalid ones, _find bodies and the operator set.
for case in fuzz["cases"][:60]:
    write("selector", "case", compact(case["selector"]))
for text in [
    '{"selector":{"age":{"$gt":20}},"sort":[{"age":"asc"}],"fields":["_id","age"],"limit":5,"skip":1,"use_index":"by-age"}',
    '{"selector":{"$text":"walk"},"execution_stats":true,"bookmark":"nil","r":1,"update":false,"stable":true}',
    '{"a\\\\.b.c":{"$exists":true},"\\\\$d":{"$type":"string"}}',
    '{"$nor":[{"a":{"$in":[1,"1",null]}},{"b":{"$nin":[[],{}]}}],"$not":{"c":{"$size":2}}}',
    '{"x":{"$elemMatch":{"$gt":1,"$lt":5}},"y":{"$allMatch":{"z":{"$mod":[3,1]}}},"m":{"$keyMapMatch":{"$regex":"^k"}}}',
    '{"s":{"$regex":"(a+)+$"},"t":{"$beginsWith":"ab"},"u":{"$all":[1,2]},"v":{"$ne":1.0},"w":{"$lte":"z","$gte":"a"}}',
    '{"$or":[]}', '{"$and":[]}', "{}", '{"a":{}}', '{"a":{"$eq":{"$gt":1}}}', '{"$where":"1"}', '{"a":{"$bogus":1}}',
    '{"a.":1}', '{"":1}', '{"$text":{"$search":"x"}}', '{"a":{"$type":"bogus"}}', '{"a":{"$size":-1}}', '{"a":{"$mod":[0,1]}}',
]:
    write("selector", "edge", text)

# Revisions: ids as text, replicated documents with _revisions, and batches of them.
for text in [
    "1-967a00dff5e02add41819138abb3284d", "2-7051CBE5C8FAECD085A3FA619E6E6337", "0-1", "3-abc", "10-0123456789abcdef",
    "9007199254740991-a", "9007199254740992-a", "99999999999999999999-a", "-abc", "1-", "1", "01-a", "1-a-b", "1-zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
]:
    write("revision", "rev", text)
docs = [
    {"_id": "x", "_rev": "3-" + "c" * 32, "_revisions": {"start": 3, "ids": ["c" * 32, "b" * 32, "a" * 32]}, "v": 1},
    {"_id": "x", "_rev": "2-" + "d" * 32, "_revisions": {"start": 2, "ids": ["d" * 32, "a" * 32]}, "_deleted": True},
    {"_id": "x", "_revisions": {"start": 9007199254740991, "ids": ["e" * 32]}},
    {"_id": "_local/cp", "_revisions": {"start": 0, "ids": ["1"]}},
    {"_id": "y", "_rev": "1-" + "f" * 32},
]
for doc in docs:
    write("revision", "doc", compact(doc))
write("revision", "batch", compact(docs[:2]))
write("revision", "batch", compact([docs[1], docs[0], docs[4]]))

# Requests: every request of the kit's scenarios (on the fuzz endpoint's database "db"), then requests
# that reach the server's other readers: multipart documents, gzip bodies, ranges, sessions, cookies.
seen = set()
for name, scenario in golden["scenarios"].items():
    for step in scenario["steps"]:
        method, _, target = step["req"].partition(" ")
        target = target.replace("{db}", "db").replace("-*", "-967a00dff5e02add41819138abb3284d").replace(" ", "%20")
        headers = ["Host: 127.0.0.1:5984"]
        body = b""
        if "send" in step:
            body = compact(step["send"]).encode()
            headers.append("Content-Type: application/json")
        elif "send_raw" in step:
            body = step["send_raw"].encode()
            headers.append("Content-Type: application/json" if "/_" in target or target.count("/") < 3 else "Content-Type: text/plain")
        # One seed per route shape: method, the reserved segments of the path, the query's parameter names.
        path, _, query = target.partition("?")
        shape = tuple(part if part.startswith("_") or part == "db" else "*" for part in path.split("/")[1:4])
        key = (method, shape, tuple(sorted(p.split("=")[0] for p in query.split("&") if p)), bool(body))
        if key in seen:
            continue
        seen.add(key)
        headers.append(f"Content-Length: {len(body)}")
        write("request", f"{method}-{target}", f"{method} {target} HTTP/1.1\r\n" + "\r\n".join(headers) + "\r\n\r\n" + body.decode("utf-8", "replace"))


def request(method, target, headers, body=b""):
    if isinstance(body, str):
        body = body.encode()
    head = f"{method} {target} HTTP/1.1\r\nHost: localhost\r\n" + "".join(f"{h}\r\n" for h in headers)
    return head.encode() + f"Content-Length: {len(body)}\r\n\r\n".encode() + body


boundary = "abc123"
multipart = (
    f"--{boundary}\r\nContent-Type: application/json\r\n\r\n"
    '{"_id":"m","_attachments":{"a.txt":{"follows":true,"content_type":"text/plain","length":5}}}'
    f"\r\n--{boundary}\r\nContent-Disposition: attachment; filename=\"a.txt\"\r\n\r\nhello\r\n--{boundary}--"
)
handwritten = [
    request("PUT", "/db/m", [f"Content-Type: multipart/related;boundary=\"{boundary}\""], multipart),
    request("PUT", "/db/m2?new_edits=false", [f"Content-Type: multipart/related; boundary={boundary}"],
            multipart.replace('"_id":"m"', '"_id":"m2","_rev":"1-' + "a" * 32 + '"').replace('"length":5', '"length":5,"digest":"md5-XUFAKrxLKna5cZ2REBfFkg=="')),
    request("POST", "/db/_bulk_docs", ["Content-Type: application/json"],
            compact({"docs": docs[:2] + [{"_id": "z", "_attachments": {"t": {"content_type": "text/plain", "data": base64.b64encode(b"hi").decode(), "digest": "md5-" + base64.b64encode(hashlib.md5(b"hi").digest()).decode()}}}], "new_edits": False})),
    request("POST", "/db/_bulk_get?revs=true", ["Content-Type: application/json", "Accept: multipart/related"],
            compact({"docs": [{"id": "doc1"}, {"id": "withatt", "rev": "1-" + "a" * 32}, {"id": "nope"}]})),
    request("POST", "/db/_revs_diff", ["Content-Type: application/json"], compact({"doc1": ["1-" + "a" * 32, "2-b"]})),
    request("POST", "/db/_find", ["Content-Type: application/json"], compact({"selector": {"age": {"$gt": 1}}, "sort": [{"age": "desc"}], "limit": 2})),
    request("POST", "/db/_explain", ["Content-Type: application/json"], compact({"selector": {"name": {"$regex": "^A"}}, "use_index": "by-age"})),
    request("POST", "/db/_find", ["Content-Type: application/json", "Content-Encoding: gzip"], gzip.compress(compact({"selector": {"age": 30}}).encode(), mtime=0)),
    request("GET", "/db/_changes?feed=longpoll&since=now&timeout=1&heartbeat=1&include_docs=true&style=all_docs", []),
    request("GET", "/db/_changes?feed=continuous&since=0&limit=3&filter=_selector", []),
    request("POST", "/db/_changes?filter=_doc_ids", ["Content-Type: application/json"], compact({"doc_ids": ["doc1"]})),
    request("GET", "/db/withatt/a.txt", ["Range: bytes=1-3,-2", "If-None-Match: \"x\""]),
    request("GET", "/db/withatt?attachments=true&att_encoding_info=true&revs_info=true&conflicts=true", ["Accept: multipart/related"]),
    request("GET", "/db/doc1?open_revs=all&latest=true", ["Accept: multipart/mixed"]),
    request("COPY", "/db/doc1", ["Destination: doc1-copy"]),
    request("POST", "/_session", ["Content-Type: application/x-www-form-urlencoded"], "name=admin&password=admin"),
    request("GET", "/_session", ["Cookie: AuthSession=YWRtaW46NjU0MzIxMDA6AAAA; other=1"]),
    request("GET", "/_all_dbs", ["Authorization: Basic YWRtaW46d3Jvbmc="]),
    request("GET", "/_uuids?count=5", []),
    request("GET", "/db/_all_docs?keys=[\"doc1\",\"doc2\"]&include_docs=true&startkey=%22a%22&limit=1&skip=0", []),
    request("GET", "/part/_partition/p1/_all_docs", []),
    request("POST", "/part/_partition/p1/_find", ["Content-Type: application/json"], compact({"selector": {"v": 1}})),
    request("PUT", "/db/_security", ["Content-Type: application/json"], compact({"admins": {"names": [], "roles": []}, "members": {"names": ["u"], "roles": []}})),
    request("PUT", "/_users/org.couchdb.user:u", ["Content-Type: application/json"], compact({"name": "u", "password": "p", "roles": [], "type": "user"})),
    request("GET", "/db/a%2Fb%00c/%ff", []),
    request("PUT", "/new%24db%2Bx", []),
    request("DELETE", "/db/doc1?rev=1-" + "0" * 32, []),
    request("GET", "/db/_design/d/_info", []),
    request("GET", "/db/_index", []),
    request("DELETE", "/db/_index/by-age/json/by-age", []),
    request("PUT", "/db/_revs_limit", ["Content-Type: application/json"], "10"),
    request("GET", "/", []),
]
for number, raw in enumerate(handwritten):
    write("request", f"handwritten-{number}", raw)
