#!/usr/bin/env bash
# Side-by-side peer benchmark: times npm `semver` 7.8.6 and LiquidJS 10.30.1 (peers.mjs) and the
# matching criterion benches on the same shared inputs, in one run, and prints the ratio table.
#
#   benches/peers/compare.sh            # from anywhere; needs ../shared beside the checkout
#   PEER_SECONDS=5 CRITERION_ARGS="--measurement-time 10" benches/peers/compare.sh
#
# Without Node.js it says so and prints runstart's side alone.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="$root/target/peers"
mkdir -p "$out"
peers_json=""

if [ ! -d ../shared/conformance ]; then
  echo "compare: ../shared (the shared conformance inputs) is missing beside the checkout" >&2
  exit 2
fi

if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  if [ ! -d benches/peers/node_modules ]; then
    (cd benches/peers && npm ci --no-audit --no-fund --loglevel=error)
  fi
  echo "compare: timing the JavaScript peers (node $(node --version))" >&2
  node benches/peers/peers.mjs --shared "$root/../shared" --seconds "${PEER_SECONDS:-3}" \
    >"$out/peers.json"
  peers_json="$out/peers.json"
else
  echo "compare: node/npm not found: printing runstart's side alone" >&2
fi

# shellcheck disable=SC2086 # CRITERION_ARGS is a list of flags
cargo bench --locked --bench resolve -- \
  '^(range_parse/conformance|max_satisfying/(preparsed|from_strings))$' ${CRITERION_ARGS:-} >&2
# shellcheck disable=SC2086
cargo bench --locked --bench template -- \
  '^(parse|parse_analyze|render)/conformance$' ${CRITERION_ARGS:-} >&2

cargo run --quiet --release --locked --example peer_table -- "$root/target/criterion" $peers_json \
  | tee "$out/table.md"
