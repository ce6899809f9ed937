'use strict';
// The addon against its JavaScript peers, in one Node process, on the shared inputs:
//
// - `route` per call on ../shared/bench/route-workloads.json (small, medium, large), through
//   the drop-in `route(input)` and through `RouteTable.route`, the JS→Rust crossing and the
//   building of the answer's objects included. Upstream's router is not vendored here; its
//   medians on this kind of machine are in ../shared/bench/README.md and quoted as the peer.
// - `pickVersion` against upstream's rule written with npm `semver` 7.8.6 (validRange, then
//   maxSatisfying) on the 20,000 conformance cases.
// - `renderInstructions` against LiquidJS 10.30.1's parse + render of the same templates
//   (strictVariables, strictFilters), on the conformance templates that render.
//
// Every answer is checked against the peer's (or the recorded one) before timing. Times are
// medians over repetitions; the machine is shared, so quote the ratios.
//
// Run: `cargo build --release -p runstart-node && (cd bindings/node/bench && npm ci && npm run bench)`.

const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');
const semver = require('semver');
const { Liquid } = require('liquidjs');

// The release build unless RUNSTART_NODE_LIBRARY says otherwise.
const repo = path.resolve(__dirname, '..', '..', '..');
if (!process.env.RUNSTART_NODE_LIBRARY) {
  const release = path.join(repo, 'target', 'release', 'librunstart_node.so');
  if (fs.existsSync(release)) process.env.RUNSTART_NODE_LIBRARY = release;
}
const runstart = require('..');

const shared = path.resolve(repo, '..', 'shared');
const read = (rel) => fs.readFileSync(path.join(shared, rel), 'utf8');
const jsonLines = (text) =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));

/** Median seconds per call of `body(n)` (which makes n calls), over `reps` repetitions. */
function perCall(body, { reps = 15, targetMs = 40 } = {}) {
  let n = 1;
  for (;;) {
    const t0 = process.hrtime.bigint();
    body(n);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (ms >= targetMs / 4 || n >= 1 << 24) break;
    n *= 2;
  }
  n = Math.max(1, Math.round(n * 4));
  body(n); // warm-up at the final size
  const times = [];
  for (let r = 0; r < reps; r++) {
    const t0 = process.hrtime.bigint();
    body(n);
    times.push(Number(process.hrtime.bigint() - t0) / 1e9 / n);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const fmt = (s) => (s >= 1e-3 ? `${(s * 1e3).toFixed(2)} ms` : `${(s * 1e6).toFixed(2)} µs`);
const rows = [];
let sink = 0;

// ---------------------------------------------------------------------------------------
// route

const upstreamRouteMedian = { small: 24e-6, medium: 1.1e-3, large: 19e-3 }; // README: 16–22 ms
const routeTargets = { medium: 10e-6, large: 40e-6 };
const conformanceForm = (r) =>
  r.kind === 'err'
    ? { err: r.error }
    : {
        ok: {
          provider: (r.value.provider.metadata ?? r.value.provider).id,
          model: r.value.model.name,
          alternates: r.value.alternates.map((a) => [(a.provider.metadata ?? a.provider).id, a.model.name]),
          fallback: r.value.fallback,
          reason: r.value.reason,
        },
      };

for (const w of JSON.parse(read('bench/route-workloads.json')).workloads) {
  const providers = w.input.providers.map((metadata) => ({ metadata, invoke: async () => ({}) }));
  const input = { ...w.input, providers };
  assert.deepStrictEqual(conformanceForm(runstart.route(input)), w.expected, `${w.name}: drop-in answer`);
  const table = new runstart.RouteTable(w.input.providers);
  assert.deepStrictEqual(conformanceForm(table.route(w.input)), w.expected, `${w.name}: table answer`);
  const dropIn = perCall((n) => {
    for (let i = 0; i < n; i++) sink += runstart.route(input).value.alternates.length;
  });
  const viaTable = perCall((n) => {
    for (let i = 0; i < n; i++) sink += table.route(w.input).value.alternates.length;
  });
  const target = routeTargets[w.name];
  rows.push({
    op: `route ${w.name} (drop-in route)`,
    ours: dropIn,
    peer: upstreamRouteMedian[w.name],
    peerName: 'upstream router (recorded)',
    target: target ? `≤ ${fmt(target)}` : '',
    pass: target ? dropIn <= target : true,
  });
  rows.push({
    op: `route ${w.name} (RouteTable.route)`,
    ours: viaTable,
    peer: upstreamRouteMedian[w.name],
    peerName: 'upstream router (recorded)',
    target: target ? `≤ ${fmt(target)}` : '',
    pass: target ? viaTable <= target : true,
  });
}

// ---------------------------------------------------------------------------------------
// pickVersion

/** Upstream's pickVersion rule (agents.md §1.2) with npm semver. */
function semverPick(available, range) {
  if (range === undefined) {
    const latest = semver.maxSatisfying([...available], '*', { includePrerelease: true });
    return latest === null ? { kind: 'not-satisfiable' } : { kind: 'ok', version: latest };
  }
  if (semver.validRange(range) === null) return { kind: 'invalid-range' };
  const picked = semver.maxSatisfying([...available], range);
  return picked === null ? { kind: 'not-satisfiable' } : { kind: 'ok', version: picked };
}

const semverCases = jsonLines(read('conformance/semver/max-satisfying.jsonl'));
for (const c of semverCases) {
  assert.deepStrictEqual(runstart.pickVersion(c.versions, c.range), semverPick(c.versions, c.range), c.range);
}
const pickOurs = perCall(
  (n) => {
    for (let k = 0; k < n; k++) for (const c of semverCases) sink += runstart.pickVersion(c.versions, c.range).kind.length;
  },
  { reps: 9, targetMs: 200 },
) / semverCases.length;
const pickPeer = perCall(
  (n) => {
    for (let k = 0; k < n; k++) for (const c of semverCases) sink += semverPick(c.versions, c.range).kind.length;
  },
  { reps: 9, targetMs: 200 },
) / semverCases.length;
rows.push({
  op: `pickVersion (${semverCases.length} conformance cases)`,
  ours: pickOurs,
  peer: pickPeer,
  peerName: 'npm semver 7.8.6',
  target: '≥ 1×',
  pass: pickPeer / pickOurs >= 1,
});

// ---------------------------------------------------------------------------------------
// renderInstructions

const ctx = JSON.parse(read('conformance/liquid/render-context.json'));
const auto = new Set(['today', 'now', 'agent', 'conversation', 'input', 'settings']);
const parameters = Object.fromEntries(Object.entries(ctx).filter(([k]) => !auto.has(k)));
const context = {
  parameters,
  conversation: ctx.conversation,
  input: ctx.input,
  settings: ctx.settings,
  clock: () => new Date(ctx.now),
};
const liquid = new Liquid({ strictVariables: true, strictFilters: true });
const templates = jsonLines(read('conformance/liquid/templates.jsonl'))
  .filter((row) => row.parseError === null && row.render && typeof row.render.output === 'string')
  .map((row) => row.template)
  // The templates whose output both engines agree on (all but a handful).
  .filter((t) => {
    const ours = runstart.renderInstructions({ ...ctx.agent, instructions: t, parameters: [] }, context);
    try {
      return ours.ok && ours.value.rendered === liquid.parseAndRenderSync(t, ctx);
    } catch {
      return false;
    }
  });
const agents = templates.map((t) => ({ ...ctx.agent, instructions: t, parameters: [] }));
const renderOurs = perCall(
  (n) => {
    for (let k = 0; k < n; k++) for (const a of agents) sink += runstart.renderInstructions(a, context).value.rendered.length;
  },
  { reps: 9, targetMs: 200 },
) / agents.length;
const renderPeer = perCall(
  (n) => {
    for (let k = 0; k < n; k++) for (const t of templates) sink += liquid.parseAndRenderSync(t, ctx).length;
  },
  { reps: 9, targetMs: 400 },
) / templates.length;
rows.push({
  op: `renderInstructions (${templates.length} templates)`,
  ours: renderOurs,
  peer: renderPeer,
  peerName: 'LiquidJS 10.30.1 parse + render',
  target: '≥ 20×',
  pass: renderPeer / renderOurs >= 20,
});

// ---------------------------------------------------------------------------------------

console.log(`runstart Node binding vs peers, Node ${process.version}, medians per call\n`);
console.log('| operation | addon | peer | peer median | peer / addon | target | met |');
console.log('| --- | ---: | --- | ---: | ---: | --- | --- |');
for (const r of rows) {
  console.log(
    `| ${r.op} | ${fmt(r.ours)} | ${r.peerName} | ${fmt(r.peer)} | ${(r.peer / r.ours).toFixed(1)}× | ${r.target} | ${r.pass ? 'yes' : 'NO'} |`,
  );
}
if (sink === 0) console.log('(nothing computed)');
