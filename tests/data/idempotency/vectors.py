"""Adds Python's idempotency keys to the Node vectors on stdin: uuid.uuid5 over
json.dumps(parts, separators=(',', ':'), ensure_ascii=False), as the protocol says.

A part with a lone surrogate has no UTF-8 form in Python: json.dumps keeps it raw (Node
escapes it as \\udxxx) and encoding it fails, so such cases record python: null and why.
"""
import json
import sys
import uuid

NAMESPACE = uuid.UUID("a70d5bff-e713-4322-b2ea-9d5c4926a861")


def text(units):
    return b"".join(u.to_bytes(2, "little") for u in units).decode("utf-16-le", "surrogatepass")


doc = json.load(sys.stdin)
for case in doc["cases"]:
    parts = [text(p) for p in case["parts"]]
    dumped = json.dumps(parts, separators=(",", ":"), ensure_ascii=False)
    try:
        case["python"] = str(uuid.uuid5(NAMESPACE, dumped))
        case["pythonJsonEqualsNode"] = dumped == case["json"]
    except UnicodeEncodeError as e:
        case["python"] = None
        case["pythonError"] = f"UnicodeEncodeError: {e.reason}"
        case["pythonJsonEqualsNode"] = False
doc["python"] = sys.version.split()[0]
json.dump(doc, sys.stdout, ensure_ascii=True, indent=1)
sys.stdout.write("\n")
