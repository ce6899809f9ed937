#!/bin/sh
# Regenerates vectors.json: Node computes each case's JSON.stringify text and key, Python adds
# its own key for the same parts. Needs node (>= 12, well-formed JSON.stringify) and python3.
set -eu
cd "$(dirname "$0")"
node vectors.mjs | python3 vectors.py > vectors.json
python3 - <<'PY'
import json
d = json.load(open("vectors.json"))
c = d["cases"]
differ = [x["name"] for x in c if x["python"] != x["node"]]
print(f"{len(c)} cases (node {d['node']}, python {d['python']}); python differs from node in {len(differ)}")
PY
