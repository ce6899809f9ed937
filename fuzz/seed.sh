#!/usr/bin/env bash
# Builds the seed corpora under fuzz/corpus/<target>/ from the crate's fixtures and, when
# present, ../shared/conformance (read in place, never committed: corpus dirs are ignored).
set -euo pipefail
cd "$(dirname "$0")"
shared=../../shared/conformance
python3 - "$shared" <<'PY'
import hashlib, json, os, pathlib, sys

shared = pathlib.Path(sys.argv[1])
root = pathlib.Path("corpus")

def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = root / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)

def lines(path):
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                yield json.loads(line)

packs = sorted(pathlib.Path("../fixtures/packs").glob("*/index.json"))
providers = pathlib.Path("../fixtures/providers.json").read_text()
for p in packs:
    data = p.read_bytes()
    put("validate_index", data)
    doc = json.loads(data)
    reqs = []
    for a in doc.get("agents", []):
        if isinstance(a, dict) and "id" in a:
            reqs.append(json.dumps({"tenantId": "t", "agent": {"id": a["id"]},
                                    "parameters": {}, "now": "2026-11-30T09:00:00.000Z"}))
    put("run_start", b"\0".join([data, providers.encode()] + [r.encode() for r in reqs]))
    # Templates of the fixtures.
    for a in doc.get("agents", []):
        if isinstance(a, dict) and isinstance(a.get("instructions"), str):
            put("template", a["instructions"])

for case in lines(shared / "liquid" / "templates.jsonl"):
    put("template", case["template"])
# Real-world templates: every LiquidJS filter, partial tags, else/elsif quirks.
for case in lines(shared / "liquid" / "realworld.jsonl"):
    put("template", case["template"])
for case in lines(shared / "semver" / "max-satisfying.jsonl"):
    put("range", "\n".join([case["range"]] + case.get("versions", [])))
for case in lines(shared / "router" / "cases.jsonl"):
    put("route", json.dumps(case["input"]))
# Generator-mode seeds for the route target (bytes not starting with `{`).
for i in range(32):
    put("route", bytes((i * 37 + k * 11) % 256 for k in range(64)).replace(b"{", b"|"))
# Pack protocol v2 messages: upstream's examples (when ../shared is there), and a few more.
for ex in sorted((shared.parent / "upstream").glob("pack-protocol.example.*.json")):
    put("protocol_message", ex.read_bytes())
for m in ['{"v":2,"kind":"pause","timeoutMs":60000,"name":"pickup"}',
          '{"v":2,"kind":"check-result","result":{"passed":false,"reason":"r","x":1}}',
          '{"v":2,"kind":"result","output":[1,"a",null]}', '{"v":3}', '[]']:
    put("protocol_message", m)
# A few hand-written ranges.
for r in ["^1.2.3", "~1.2 || >=3.0.0-rc.1 <4", "1.x", "*", ">=v0.0.0", "1.2.3 - 2.3.4"]:
    put("range", r + "\n1.2.3\n2.0.0\n3.0.0-rc.2\n0.0.0")
PY
for t in validate_index range template route run_start protocol_message; do
  printf '%s: %s seeds\n' "$t" "$(find "corpus/$t" -type f 2>/dev/null | wc -l)"
done
