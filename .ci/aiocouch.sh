#!/usr/bin/env bash
# Runs the aiocouch client's own test suite (from its source distribution on PyPI) against a fresh
# `cloudant serve`. Usage: .ci/aiocouch.sh PATH/TO/cloudant [FOLDER], where FOLDER holds the client as
# `.ci/aiocouch.sh prepare FOLDER` left it (CI prepares it while it builds); without one it is prepared in a
# temporary folder. Any failure fails the script.
# Every test must pass, the view tests included.
set -euo pipefail
version="4.0.1"

# The client, its test tools and its unpacked sources, in $1.
source "$(dirname "$0")/python-client.sh"
prepare() {
  prepare_client "$1" aiocouch "$version" "pytest==9.2.0" "pytest-asyncio==1.5.0" "pytest-cov==7.1.0" packaging
}

if [ "$1" = "prepare" ]; then prepare "$2"; exit 0; fi
cloudant="$1"
work=$(mktemp -d)
prepared="${2:-$work/client}"
prepare "$prepared"
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1]);s.close()')
mkdir "$work/data"
"$cloudant" serve --data "$work/data" --bind 127.0.0.1 --port "$port" --admin admin:admin >"$work/serve.log" 2>&1 &
serve_pid=$!
trap 'kill "$serve_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/_up" >/dev/null 2>&1 && break; sleep 0.2; done
cd "$prepared/aiocouch-$version"
COUCHDB_HOST="http://127.0.0.1:$port" COUCHDB_USER=admin COUCHDB_PASS=admin \
  "$prepared/venv/bin/python" -m pytest -q -p no:cacheprovider -o addopts="" tests
