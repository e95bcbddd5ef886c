#!/usr/bin/env bash
# Fails when the history of the work shows up in the project: work-log session numbers, issue numbers, the
# team's seed and spec references, or target ids such as P6. History belongs in commit messages and
# CHANGELOG.md; code, docs and output say what and why in terms of the code and its references (CouchDB,
# CareKit, OTFCloudantStore, Apple's formats). References to other projects' issues are written `#1234`.
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Sources Tests Benchmarks Examples Plugins Fuzz Scripts BrowserTests Conformance Package.swift README.md ARCHITECTURE.md)
# (The first letters are bracketed so the pattern does not match its own line in a grep of the repository.)
words='[s]ession [0-9]+|[i]ssue [0-9]+|seeds? 0[0-4][0-9]|spec (§)|spec [A-Z]+-[0-9]+|-anchors §'
targets='\bP[0-9]{1,2}[ab]?\b'   # P6-style ids; case matters (`p1` is a document id in examples)
test_ids='func [A-Za-z]+[a-z]_?([A-Z][0-9]{1,2})+\('   # a reference list's ids (a capital and one or two digits) ending test names
if git grep -nIiE "$words" -- "${paths[@]}" || git grep -nIE "$targets" -- "${paths[@]}" \
  || git grep -nIE "$test_ids" -- "${paths[@]}"; then
  echo "error: development history in the project (above); say what and why instead, history goes in CHANGELOG.md"
  exit 1
fi
echo "no development history in ${paths[*]}"
