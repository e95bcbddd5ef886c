#!/usr/bin/env bash
# Runs the pycouchdb client's own integration suite (from its source distribution on PyPI) against a fresh
# `cloudant serve`. Usage: .ci/pycouchdb.sh PATH/TO/cloudant [FOLDER], where FOLDER holds the client as
# `.ci/pycouchdb.sh prepare FOLDER` left it (CI prepares it while it builds); without one it is prepared in a
# temporary folder. Any failure fails the script.
#
# The suite talks to http://admin:password@localhost:5984/; the copy run here is pointed at a free port
# instead (the URLs it connects with rewritten, nothing else). Two of its tests read a `_changes` feed until the server ends
# it, so the server's changes timeout is 5 s rather than CouchDB's 60.
set -euo pipefail
version="1.17.1"

# The client, its test tools and its unpacked sources, in $1.
source "$(dirname "$0")/python-client.sh"
source "$(dirname "$0")/serve.sh"
prepare() {
  prepare_client "$1" pycouchdb "$version" "pytest==9.2.0" "pytest-html==4.2.0" "requests==2.34.2" \
    "typing_extensions==4.16.0"
}

client_folders "$@"
start_serve "$cloudant" "$work/data" "$work/serve.log" --admin admin:password --changes-timeout 5000
# A copy of the sources is pointed at this run's port; the prepared ones stay as they were unpacked.
cp -R "$prepared/pycouchdb-$version" "$work/"
suite="$work/pycouchdb-$version/test/integration"
# Only the URLs it connects with (one test checks how the client spells other URLs it is given).
sed -i -e "s/admin:password@localhost:5984/admin:password@127.0.0.1:$serve_port/g" \
  -e "s/invalid:credentials@localhost:5984/invalid:credentials@127.0.0.1:$serve_port/g" \
  -e "s|Server('http://localhost:5984/')|Server('http://127.0.0.1:$serve_port/')|g" "$suite"/*.py
# The installed package is tested, not the unpacked sources beside the tests.
cd "$work"
"$prepared/venv/bin/python" -m pytest -q -rs -p no:cacheprovider -o addopts="" -o log_cli=false "$suite"
