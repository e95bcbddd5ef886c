#!/usr/bin/env bash
# Runs the aiocouch client's own test suite (from its source distribution on PyPI) against a fresh
# `cloudant serve`. Usage: .ci/aiocouch.sh PATH/TO/cloudant. Any failure fails the script.
# Every test must pass, the view tests included.
set -euo pipefail
cloudant="$1"
version="4.0.1"
work=$(mktemp -d)
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q "aiocouch==$version" "pytest==9.2.0" "pytest-asyncio==1.5.0" "pytest-cov==7.1.0" packaging
"$work/venv/bin/pip" download -q --no-deps --no-binary :all: -d "$work" "aiocouch==$version"
tar -xzf "$work/aiocouch-$version.tar.gz" -C "$work"
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1]);s.close()')
mkdir "$work/data"
"$cloudant" serve --data "$work/data" --bind 127.0.0.1 --port "$port" --admin admin:admin >"$work/serve.log" 2>&1 &
serve_pid=$!
trap 'kill "$serve_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/_up" >/dev/null 2>&1 && break; sleep 0.2; done
cd "$work/aiocouch-$version"
COUCHDB_HOST="http://127.0.0.1:$port" COUCHDB_USER=admin COUCHDB_PASS=admin \
  "$work/venv/bin/python" -m pytest -q -p no:cacheprovider -o addopts="" tests
