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
source "$(dirname "$0")/serve.sh"
prepare() {
  prepare_client "$1" aiocouch "$version" "pytest==9.2.0" "pytest-asyncio==1.5.0" "pytest-cov==7.1.0" packaging
}

client_folders "$@"
start_serve "$cloudant" "$work/data" "$work/serve.log" --admin admin:admin
cd "$prepared/aiocouch-$version"
COUCHDB_HOST="http://127.0.0.1:$serve_port" COUCHDB_USER=admin COUCHDB_PASS=admin \
  "$prepared/venv/bin/python" -m pytest -q -p no:cacheprovider -o addopts="" tests
