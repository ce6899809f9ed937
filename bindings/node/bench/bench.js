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
//   (strictVariables, strictFilters), on the conformance templates that parse.
//
// The peers measured here run in alternation with the addon (A, B, A, B, …), so that both
// see the same load.
//
// Every answer is checked against the peer's (or the recorded one) before timing. Times are
// medians over repetitions of the process's CPU time (`process.cpuUsage`), which the shared
// machine's load inflates far less than wall-clock time; still, quote the ratios.
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

/**
 * Seconds of CPU this process spends in `body(n)`: user plus system time, which a shared
 * machine's other load does not inflate as it inflates wall-clock time (helper threads such
 * as the garbage collector's count too).
 */
function cpuSeconds(body, n) {
  const start = process.cpuUsage();
  body(n);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

/** Median CPU seconds per call of `body(n)` (which makes n calls), over `reps` repetitions. */
function perCall(body, { reps = 15, targetMs = 40 } = {}) {
  let n = 1;
  for (;;) {
    const ms = cpuSeconds(body, n) * 1e3;
    if (ms >= targetMs / 4 || n >= 1 << 24) break;
    n *= 2;
  }
  n = Math.max(1, Math.round(n * 4));
  body(n); // warm-up at the final size
  const times = [];
  for (let r = 0; r < reps; r++) times.push(cpuSeconds(body, n) / n);
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/**
 * Median seconds per call of two bodies measured in alternation (A, B, A, B, …), so that
 * both see the same load on a shared machine.
 */
function paired(bodyA, bodyB, { reps = 11, targetMs = 150 } = {}) {
  const size = (body) => {
    let n = 1;
    while (cpuSeconds(body, n) * 1e3 < targetMs / 4 && n < 1 << 20) n *= 2;
    return n * 4;
  };
  const [na, nb] = [size(bodyA), size(bodyB)];
  // Warm both (the JIT) at their final sizes before anything counts.
  bodyA(na);
  bodyB(nb);
  const a = [];
  const b = [];
  for (let r = 0; r < reps; r++) {
    a.push(cpuSeconds(bodyA, na) / na);
    b.push(cpuSeconds(bodyB, nb) / nb);
  }
  const median = (xs) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  return [median(a), median(b)];
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
const [pickOurs, pickPeer] = paired(
  (n) => {
    for (let k = 0; k < n; k++) for (const c of semverCases) sink += runstart.pickVersion(c.versions, c.range).kind.length;
  },
  (n) => {
    for (let k = 0; k < n; k++) for (const c of semverCases) sink += semverPick(c.versions, c.range).kind.length;
  },
  { reps: 7, targetMs: 300 },
).map((t) => t / semverCases.length);
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
  // A clock reads an instant; parsing `ctx.now` on every call would time Date's parser.
  clock: ((instant) => () => new Date(instant))(Date.parse(ctx.now)),
};
const liquid = new Liquid({ strictVariables: true, strictFilters: true });
// Every conformance template that parses (as ../shared/bench/README.md measures LiquidJS),
// rendered with the conformance context; a render error is an answer too (LiquidJS throws,
// renderInstructions returns it).
const templates = jsonLines(read('conformance/liquid/templates.jsonl'))
  .filter((row) => row.parseError === null)
  .map((row) => row.template);
const liquidRender = (t) => {
  try {
    return liquid.parseAndRenderSync(t, ctx);
  } catch {
    return null;
  }
};
// The agents as a runtime holds them, parsed from a pack index. Built with a spread
// instead, Node 20 gives each of the 3,247 objects a hidden class of its own (past the
// ninth), and every property read of an agent then misses V8's caches: about 2.5 µs a call
// that a runtime with a few agents never pays.
const agents = JSON.parse(
  JSON.stringify(templates.map((t) => ({ ...ctx.agent, instructions: t, parameters: [] }))),
);
let sameVerdict = 0;
agents.forEach((a, i) => {
  const ours = runstart.renderInstructions(a, context);
  if (ours.ok === (liquidRender(templates[i]) !== null)) sameVerdict++;
});
assert.ok(sameVerdict * 100 >= templates.length * 99, `render verdicts agree on ${sameVerdict}/${templates.length}`);
const [renderOurs, renderPeer] = paired(
  (n) => {
    for (let k = 0; k < n; k++) for (const a of agents) sink += runstart.renderInstructions(a, context).ok ? 1 : 0;
  },
  (n) => {
    for (let k = 0; k < n; k++) for (const t of templates) sink += liquidRender(t) === null ? 0 : 1;
  },
  { reps: 7, targetMs: 300 },
).map((t) => t / templates.length);
rows.push({
  op: `renderInstructions (${templates.length} templates)`,
  ours: renderOurs,
  peer: renderPeer,
  peerName: 'LiquidJS 10.30.1 parse + render',
  target: '≥ 20×',
  pass: renderPeer / renderOurs >= 20,
});

// The same against upstream's own way (agents.md §3.1): an engine built per render, then
// `parseAndRenderSync` on the merged context. Not a target; what the swap saves a caller.
const upstreamRender = (t) => {
  const merged = { ...parameters, today: ctx.today, now: ctx.now, agent: ctx.agent };
  merged.conversation = ctx.conversation;
  merged.input = ctx.input;
  merged.settings = ctx.settings;
  try {
    return new Liquid({ strictVariables: true, strictFilters: true }).parseAndRenderSync(t, merged);
  } catch {
    return null;
  }
};
const [renderOurs2, renderUpstream] = paired(
  (n) => {
    for (let k = 0; k < n; k++) for (const a of agents) sink += runstart.renderInstructions(a, context).ok ? 1 : 0;
  },
  (n) => {
    for (let k = 0; k < n; k++) for (const t of templates) sink += upstreamRender(t) === null ? 0 : 1;
  },
  { reps: 7, targetMs: 300 },
).map((t) => t / templates.length);
rows.push({
  op: `renderInstructions (${templates.length} templates)`,
  ours: renderOurs2,
  peer: renderUpstream,
  peerName: "upstream's way: new Liquid per render + parseAndRenderSync",
  target: '',
  pass: true,
});

// ---------------------------------------------------------------------------------------

console.log(`runstart Node binding vs peers, Node ${process.version}, median CPU time per call\n`);
console.log('| operation | addon | peer | peer median | peer / addon | target | met |');
console.log('| --- | ---: | --- | ---: | ---: | --- | --- |');
for (const r of rows) {
  console.log(
    `| ${r.op} | ${fmt(r.ours)} | ${r.peerName} | ${fmt(r.peer)} | ${(r.peer / r.ours).toFixed(1)}× | ${r.target} | ${r.target === '' ? '' : r.pass ? 'yes' : 'NO'} |`,
  );
}
if (sink === 0) console.log('(nothing computed)');
