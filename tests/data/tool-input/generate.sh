#!/bin/sh
# Regenerates cases.jsonl with Ajv 8.20.0 and ajv-formats 3.0.1, installed into a temporary
# directory (npm), from the fixture packs' tool input schemas.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm install --silent --no-audit --no-fund ajv@8.20.0 ajv-formats@3.0.1 >/dev/null)
NODE_PATH="$tmp/node_modules" node "$here/generate.cjs" > "$here/cases.jsonl"
echo "$(wc -l < "$here/cases.jsonl") tools written to $here/cases.jsonl"
