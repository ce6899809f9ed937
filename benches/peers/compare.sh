#!/usr/bin/env bash
# Side-by-side peer benchmark: times npm `semver` 7.8.6 and LiquidJS 10.30.1 (peers.mjs) and the
# matching criterion benches on the same shared inputs, in one run, and prints the ratio table.
#
#   benches/peers/compare.sh            # from anywhere; needs ../shared beside the checkout
#   ROUNDS=5 PEER_SECONDS=5 CRITERION_ARGS="--measurement-time 10" benches/peers/compare.sh
#
# A shared or virtual machine changes speed by 2x and more over minutes, which a peer phase
# followed by a criterion phase would read as a change of ratio. So the two sides are
# interleaved: each round times every workload on one side and then at once on the other
# (the peer first in odd rounds, runstart first in even ones), and the table gives each
# round's ratio and their median. Each round's results are kept in target/peers/round-<n>/.
#
# Without Node.js it says so and prints runstart's side alone.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="$root/target/peers"
rounds="${ROUNDS:-3}"
case "$rounds" in
  '' | *[!0-9]* | 0)
    echo "compare: ROUNDS must be a positive whole number, got '$rounds'" >&2
    exit 2
    ;;
esac

if [ ! -d ../shared/conformance ]; then
  echo "compare: ../shared (the shared conformance inputs) is missing beside the checkout" >&2
  exit 2
fi

with_node=0
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  with_node=1
  if [ ! -d benches/peers/node_modules ]; then
    (cd benches/peers && npm ci --no-audit --no-fund --loglevel=error)
  fi
  echo "compare: timing the JavaScript peers with node $(node --version), $rounds rounds" >&2
else
  echo "compare: node/npm not found: timing runstart's side alone" >&2
fi

# Build once, so that no round waits on the compiler.
cargo bench --locked --bench resolve --bench template --no-run >&2
cargo build --quiet --release --locked --example peer_table
table="$root/target/release/examples/peer_table"

# Each workload: the peers' name for it, the bench target, the criterion bench id.
mapfile -t workloads < <("$table" --workloads)
if [ "${#workloads[@]}" = 0 ]; then
  echo "compare: peer_table --workloads listed no workload" >&2
  exit 2
fi

peer() { # name round-dir
  node benches/peers/peers.mjs --shared "$root/../shared" --seconds "${PEER_SECONDS:-3}" \
    --only "$1" >"$2/peers-$1.json"
}

ours() { # target bench-id round-dir
  # shellcheck disable=SC2086 # CRITERION_ARGS is a list of flags
  cargo bench --quiet --locked --bench "$1" -- "^$2\$" ${CRITERION_ARGS:-} >&2
  mkdir -p "$3/criterion/$2/new"
  cp "target/criterion/$2/new/estimates.json" "target/criterion/$2/new/benchmark.json" \
    "$3/criterion/$2/new/"
}

rm -rf "$out"
for ((r = 1; r <= rounds; r++)); do
  dir="$out/round-$r"
  mkdir -p "$dir"
  echo "compare: round $r of $rounds" >&2
  for w in "${workloads[@]}"; do
    read -r name target bench <<<"$w"
    if [ "$with_node" = 1 ] && [ $((r % 2)) = 1 ]; then peer "$name" "$dir"; fi
    ours "$target" "$bench" "$dir"
    if [ "$with_node" = 1 ] && [ $((r % 2)) = 0 ]; then peer "$name" "$dir"; fi
  done
done

"$table" "$out" | tee "$out/table.md"
