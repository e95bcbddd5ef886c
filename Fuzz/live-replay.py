#!/usr/bin/env python3
"""Drives a live `cloudant serve` with raw, mostly malformed HTTP over sockets: the whole stack our
server answers with (SwiftNIO's parser, Hummingbird, our ConnectionGuard and endpoint), which the
in-process request target leaves out. Each request of the request corpus is sent as it is and in
several seeded mutations (bytes flipped, inserted, cut; request lines, headers and framing broken).

Invariants: every answer is a well-formed HTTP/1.1 status line; no status is 5xx; every 4xx answer
that has a body has a JSON object body with string "error" and "reason"; the server never dies and
still answers `GET /_up` at the end.

    python3 Fuzz/live-replay.py path/to/cloudant [--mutations N] [--seed S] [CORPUS_DIR...]

Ends with "N passed, M failed" (passed = requests whose answer met the invariants).
"""
import json, os, random, shutil, socket, subprocess, sys, tempfile, time

args = sys.argv[1:]
if not args:
    sys.exit(__doc__)
cloudant = args.pop(0)
mutations, seed, corpora = 2, 16, []
while args:
    arg = args.pop(0)
    if arg == "--mutations":
        mutations = int(args.pop(0))
    elif arg == "--seed":
        seed = int(args.pop(0))
    else:
        corpora.append(arg)
here = os.path.dirname(os.path.abspath(__file__))
corpora = corpora or [os.path.join(here, "Corpus", "request")]
rng = random.Random(seed)

folder = tempfile.mkdtemp(prefix="cloudant-live-replay-")
server = subprocess.Popen([cloudant, "serve", "--port", "0", "--data", folder, "--changes-timeout", "200"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
ready = json.loads(server.stdout.readline())
port = int(ready["url"].rsplit(":", 1)[1])


def exchange(raw, wait=0.4):
    head_request = raw.startswith(b"HEAD ")
    """Sends raw bytes and reads until the server closes, a complete answer is in, or it goes quiet for
    `wait` seconds (a request whose body is still to come gets no answer, as with any HTTP server).
    The client does not half-close: the server takes a client's FIN for a client that went away."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as connection:
        try:
            connection.sendall(raw)
        except OSError:
            pass  # the server may answer and close before reading everything
        received = b""
        try:
            while True:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                received += chunk
                answers, problem = responses(received, head_request)
                if answers and problem is None:
                    break
        except (socket.timeout, ConnectionResetError):
            pass
        return received


def responses(data, head_request=False):
    """Splits what came back into (status, headers, body) answers, by Content-Length or chunks."""
    answers = []
    while data:
        head, sep, rest = data.partition(b"\r\n\r\n")
        if not sep:
            return answers, f"an incomplete answer head: {head[:80]!r}"
        lines = head.split(b"\r\n")
        parts = lines[0].split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
            return answers, f"not an HTTP status line: {lines[0][:80]!r}"
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
        if head_request and (not rest or rest.startswith(b"HTTP/")):
            # An answer to HEAD has no body, whatever its Content-Length says; but a HEAD too malformed to
            # parse is answered like any other bad request, with its body.
            body, data = b"", rest
        elif "content-length" in headers:
            length = int(headers["content-length"])
            body, data = rest[:length], rest[length:]
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body, data = b"", rest
            while True:
                size_line, _, data = data.partition(b"\r\n")
                try:
                    size = int(size_line.split(b";")[0], 16)
                except ValueError:
                    return answers, "a broken chunk"
                body += data[:size]
                data = data[size + 2:]
                if size == 0:
                    break
        else:
            body, data = rest, b""
        answers.append((int(parts[1]), headers, body))
    return answers, None


def mutate(raw):
    data = bytearray(raw)
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(8)
        position = rng.randrange(len(data) + 1)
        if choice == 0 and data:  # flip a byte
            data[min(position, len(data) - 1)] = rng.randrange(256)
        elif choice == 1:  # insert odd bytes
            data[position:position] = bytes(rng.choice([0, 9, 10, 13, 32, 37, 34, 92, 127, 128, 255]) for _ in range(rng.randint(1, 3)))
        elif choice == 2:  # cut the rest
            del data[position:]
        elif choice == 3:  # break or repeat a header
            data[position:position] = rng.choice([b"\r\nContent-Length: -1", b"\r\nTransfer-Encoding: chunked", b"\r\nContent-Length: 99999999999999999999",
                                                  b"\r\nX: \x00", b"\r\n: novalue", b"\r\nContent-Type: multipart/related; boundary=",
                                                  b"\r\nContent-Encoding: gzip", b"\r\nAuthorization: Basic !!!", b"\r\nRange: bytes=5-1,-0"])
        elif choice == 4:  # percent escapes and odd characters in the target
            index = data.find(b" /")
            if index >= 0:
                data[index + 2:index + 2] = rng.choice([b"%", b"%0", b"%zz", b"%00", b"%ff%fe", b"..%2f", b"?a=%", b"?&&=&", b"_", b"%C0%AF", b"?keys=[", b"?startkey=%22"])
        elif choice == 5:  # a different method
            index = data.find(b" ")
            if index > 0:
                data[:index] = rng.choice([b"GET", b"PUT", b"POST", b"DELETE", b"COPY", b"HEAD", b"OPTIONS", b"PATCH", b"CONNECT", b"TRACE", b"get", b"G\x00T"])
        elif choice == 6:  # a different HTTP version
            data = data.replace(b"HTTP/1.1", rng.choice([b"HTTP/1.0", b"HTTP/2.0", b"HTTP/1.1x", b"HTTP/9", b""]), 1)
        else:  # line endings
            data = data.replace(b"\r\n", rng.choice([b"\n", b"\r", b"\r\r\n"]), rng.randint(1, 3))
    return bytes(data)


inputs = []
for corpus in corpora:
    for name in sorted(os.listdir(corpus)):
        with open(os.path.join(corpus, name), "rb") as f:
            raw = f.read()
        inputs.append((name, raw))
        inputs += [(f"{name} mutation {n}", mutate(raw)) for n in range(mutations)]

passed, failures, unanswered = 0, [], 0
started = time.time()
for name, raw in inputs:
    try:
        received = exchange(raw)
        answers, problem = responses(received, raw.startswith(b"HEAD "))
        if not received:
            unanswered += 1
    except OSError as error:
        answers, problem = [], f"the connection failed: {error}"
    for status, headers, body in answers:
        if problem:
            break
        if status >= 500:
            problem = f"answered {status}"
        elif status >= 400 and body:
            try:
                value = json.loads(body)
                if not (isinstance(value, dict) and isinstance(value.get("error"), str) and isinstance(value.get("reason"), str)):
                    problem = f"{status} without error and reason: {body[:80]!r}"
            except ValueError:
                problem = f"{status} with a body that is not JSON: {body[:80]!r}"
    if server.poll() is not None:
        problem = f"the server died (exit {server.returncode})"
    if problem:
        failures.append(f"{name}: {problem} (input {raw[:120]!r})")
        if server.poll() is not None:
            break
    else:
        passed += 1

alive = b"200" in exchange(b"GET /_up HTTP/1.1\r\nHost: x\r\n\r\n")[:20]
if not alive:
    failures.append("the server no longer answers GET /_up")
server.terminate()
try:
    server.wait(timeout=15)
except subprocess.TimeoutExpired:
    server.kill()
    failures.append("the server did not stop on SIGTERM within 15 s")
shutil.rmtree(folder, ignore_errors=True)
for failure in failures[:20]:
    print("FAIL", failure)
print(f"live replay: {len(inputs)} raw requests in {time.time() - started:.0f}s against cloudant serve "
      f"({unanswered} incomplete ones waited for more bytes and got no answer)")
print(f"{passed} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
