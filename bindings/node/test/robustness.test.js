'use strict';
// A Rust panic is a thrown Error (`code: 'internal'`) on every export and the process goes
// on; bad input (non-objects, huge strings, a wrong type in every argument) is a clear
// Error with a code, never a crash.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const runstart = require('..');
const { repo } = require('./helpers');

const { RouteTable, route, pickVersion, validRange, renderInstructions, RunStart } = runstart;
const { validateIndex, validateIndexSync, indexHash, __testing } = runstart;

const providers = JSON.parse(fs.readFileSync(path.join(repo, 'fixtures/providers.json'), 'utf8'));
const pack = fs.readFileSync(path.join(repo, 'fixtures/packs/support-desk/index.json'));
const agent = { id: 'a', name: 'A', version: '1.0.0', instructions: 'Hi {{ who }}', parameters: [] };

const isInternal = (e) => e instanceof Error && e.code === 'internal' && /Rust panic was caught/.test(e.message);

function registry() {
  const rs = new RunStart();
  rs.registerPack('acme', pack);
  for (const p of providers) rs.registerProvider('acme', p);
  return rs;
}

test('a forced panic is a thrown Error with code internal, and the process survives', () => {
  assert.throws(() => __testing.panic(), isInternal);
  const table = new RouteTable(providers);
  const rs = registry();
  const request = {
    tenantId: 'acme',
    agent: { id: 'support.reply-drafter' },
    parameters: { customerName: 'Ada', ticketId: 'T-1' },
    now: '2026-11-30T09:00:00.000Z',
  };
  // Each export's guard, one after another: armed, the call panics inside Rust.
  const calls = {
    'new RouteTable': () => new RouteTable(providers),
    'RouteTable#route': () => table.route({ capability: { needs: [] } }),
    'RouteTable#explain': () => table.explain({ capability: { needs: [] } }),
    'RouteTable#register': () => table.register({ ...providers[0], id: 'other' }),
    'RouteTable#unregister': () => table.unregister('nobody'),
    route: () => route({ capability: { needs: [] }, providers: [{ metadata: { ...providers[0], id: 'fresh' } }] }),
    pickVersion: () => pickVersion(['1.0.0'], '^1'),
    validRange: () => validRange('^1'),
    renderInstructions: () => renderInstructions(agent, { parameters: { who: 'x' } }),
    validateIndexSync: () => validateIndexSync(pack),
    indexHash: () => indexHash(pack),
    'new RunStart': () => new RunStart(),
    'RunStart#registerPack': () => rs.registerPack('acme', pack),
    'RunStart#registerProvider': () => rs.registerProvider('acme', { ...providers[0], id: 'other' }),
    'RunStart#unregisterProvider': () => rs.unregisterProvider('acme', 'nobody'),
    'RunStart#setTenantPolicy': () => rs.setTenantPolicy('acme', undefined),
    'RunStart#retireTool': () => rs.retireTool('acme', 'x', '1.0.0'),
    'RunStart#removeTool': () => rs.removeTool('acme', 'x', '1.0.0'),
    'RunStart#prepare': () => rs.prepare(request),
  };
  for (const [name, call] of Object.entries(calls)) {
    __testing.armPanic();
    assert.throws(call, isInternal, name);
  }
  // Everything still answers afterwards.
  assert.equal(table.route({ capability: { needs: [] } }).kind, 'ok');
  assert.equal(rs.prepare(request).kind, 'ok');
  assert.deepStrictEqual(pickVersion(['1.0.0'], '^1'), { kind: 'ok', version: '1.0.0' });
});

test('a panic in the asynchronous validation rejects with code internal', async () => {
  __testing.armPanic(); // in the task's creation
  await assert.rejects(validateIndex(pack), isInternal);
  __testing.armPanic(1); // in its computation, on libuv's thread pool
  await assert.rejects(validateIndex(pack), isInternal);
  assert.equal((await validateIndex(pack)).errors, 0);
});

const invalid = (e) => e instanceof Error && e.code === 'invalid-argument' && e.message.length > 10;

test('a wrong type in every argument is an invalid-argument Error', async () => {
  const table = new RouteTable(providers);
  const rs = registry();
  const cases = [
    () => new RouteTable('nope'),
    () => new RouteTable([1]),
    () => new RouteTable(providers, 'x'),
    () => new RouteTable(providers, { tenantId: 3 }),
    () => new RouteTable([{ id: 'x' }]), // not ProviderMetadata
    () => table.route(null),
    () => table.route('capability'),
    () => table.route({}),
    () => table.route({ capability: { needs: 'all' } }),
    () => table.route({ capability: { needs: [{ contextWindow: { op: '!=', value: 1 } }] } }),
    () => table.route({ capability: { needs: [] }, tenantPolicy: 5 }),
    () => table.route({ capability: { needs: [] }, preferredProvider: 7 }),
    () => table.register(42),
    () => table.unregister(42),
    () => table.explain(undefined),
    () => route(undefined),
    () => route({ capability: { needs: [] }, providers: 'p' }),
    () => route({ capability: { needs: [] }, providers: [1] }),
    () => route({ capability: { needs: [] }, providers: [{ metadata: 'm' }] }),
    () => route({ capability: { needs: [] }, providers: [{ metadata: { id: 'x' } }] }),
    () => pickVersion('1.0.0', '^1'),
    () => pickVersion(['1.0.0'], 1),
    () => pickVersion(['1.0.0'], null),
    () => validRange(undefined),
    () => validRange({}),
    () => renderInstructions(null, { parameters: {} }),
    () => renderInstructions(agent, null),
    () => renderInstructions(agent, { parameters: 'x' }),
    () => renderInstructions(agent, { parameters: {} }, 'prompt'),
    () => renderInstructions(agent, { parameters: {} }, { template: 5 }),
    () => renderInstructions({ ...agent, parameters: 'p' }, { parameters: {} }),
    () => renderInstructions({ ...agent, instructions: 7 }, { parameters: {} }),
    () => renderInstructions({ ...agent, id: 5 }, { parameters: {} }),
    () => renderInstructions(agent, { parameters: {}, clock: 'now' }),
    () => renderInstructions(agent, { parameters: {}, clock: () => 'today' }),
    () => renderInstructions({ ...agent, instructions: '{{ n }}' }, { parameters: { n: 10n } }),
    () => renderInstructions(agent, { parameters: {}, conversation: { id: 'c', turn: -1 } }),
    () => validateIndexSync(42),
    () => validateIndexSync(pack, 'canonical'),
    () => validateIndexSync(pack, { checkCanonicalForm: 'yes' }),
    () => indexHash(null),
    () => indexHash([1, 2, 3]),
    () => rs.registerPack(1, pack),
    () => rs.registerPack('acme', 42),
    () => rs.registerProvider('acme', 'p'),
    () => rs.registerProvider('acme', { id: 'x' }),
    () => rs.registerProvider(null, providers[0]),
    () => rs.unregisterProvider('acme', 1),
    () => rs.setTenantPolicy('acme', 'deny'),
    () => rs.setTenantPolicy('acme', { providers: { allow: 'all' } }),
    () => rs.retireTool('acme', 'x', 1),
    () => rs.removeTool('acme', 1, '1.0.0'),
    () => rs.prepare(null),
    () => rs.prepare({ tenantId: 'acme' }),
    () => rs.prepare({ tenantId: 'acme', agent: { id: 'x' }, now: 'x', surprise: true }),
    () => RunStart.attach('1'),
  ];
  cases.forEach((call, i) => assert.throws(call, invalid, `case ${i}: ${call}`));
  await assert.rejects(validateIndex(42), invalid);
  await assert.rejects(validateIndex(pack, { checkCanonicalForm: 1 }), invalid);
  const cyclic = { needs: [] };
  cyclic.self = cyclic;
  assert.throws(() => table.route({ capability: cyclic }), invalid);
});

test('huge strings get an answer, not a crash', async () => {
  const huge = 'x'.repeat(65 << 20); // past the 64 MiB index cap
  assert.deepStrictEqual(pickVersion(['1.0.0'], huge), { kind: 'invalid-range' });
  assert.equal(validRange(`^${'1'.repeat(1 << 20)}`), null);
  const render = renderInstructions({ ...agent, instructions: `{{ who }}${huge}` }, { parameters: { who: 'x' } });
  assert.equal(render.ok, false);
  assert.equal(render.error.code, 'render-failure');
  const report = await validateIndex(huge);
  assert.equal(report.errors, 1);
  assert.equal(report.issues[0].code, 'index-too-large');
  assert.equal(validateIndexSync(`"${huge}"`).errors > 0, true);
  assert.match(indexHash(huge), /^sha256:/);
  const table = new RouteTable(providers);
  // Every rejection names the feature: a 1 MiB one keeps the error JSON within V8's string limit.
  const r = table.route({ capability: { needs: [{ feature: 'f'.repeat(1 << 20) }] } });
  assert.equal(r.kind, 'err');
  assert.equal(r.error.code, 'capability-unsatisfiable');
});

test('errors are plain values where upstream returns values', () => {
  const table = new RouteTable([]);
  const r = table.route({ capability: { needs: [] } });
  assert.equal(r.kind, 'err');
  assert.deepStrictEqual(r.error, {
    code: 'capability-unsatisfiable',
    message: 'No registered provider satisfies the capability declaration',
    reasons: [],
  });
  const withPolicy = table.route({ capability: { needs: [] }, tenantPolicy: { tenantId: 't-1' } });
  assert.equal(withPolicy.error.tenantId, 't-1');
});

test('a misspelt tenant policy is refused, never ignored (issue: fail closed)', () => {
  // `deniedProviders` is not a policy field: upstream would ignore it and route to the
  // provider the tenant meant to exclude; runstart refuses it, naming the field.
  const policy = { deniedProviders: ['anthropic-eu'] };
  const capability = { kind: 'llm-inference', needs: [{ feature: 'tool-use' }] };
  const names = (e) =>
    e instanceof Error && e.code === 'invalid-argument' && /deniedProviders/.test(e.message) && /unknown field/.test(e.message);
  const table = new RouteTable(providers);
  assert.throws(() => table.route({ capability, tenantPolicy: policy }), names);
  assert.throws(() => route({ capability, tenantPolicy: policy, providers: providers.map((metadata) => ({ metadata })) }), names);
  const rs = registry();
  assert.throws(() => rs.setTenantPolicy('acme', policy), names);
  // A misspelt need key is an input error too, not an unsatisfiable route.
  assert.throws(() => table.route({ capability: { needs: [{ feture: 'tool-use' }] } }), (e) => invalid(e) && /feture/.test(e.message));
});

test('a misspelt route input field, or a number JSON cannot hold, is refused (fail closed)', () => {
  const table = new RouteTable(providers);
  const capability = { kind: 'llm-inference', needs: [{ feature: 'tool-use' }] };
  const metadata = providers.map((m) => ({ metadata: m }));
  // `tenantpolicy` would be left out of the request and the route taken without the policy.
  const unknown = (field) => (e) => invalid(e) && e.message.includes(`unknown field "${field}"`) && /"tenantPolicy"/.test(e.message);
  assert.throws(() => route({ capability, providers: metadata, tenantpolicy: { regionAllow: [] } }), unknown('tenantpolicy'));
  assert.throws(() => table.route({ capability, tenantpolicy: { regionAllow: [] } }), unknown('tenantpolicy'));
  assert.throws(() => table.explain({ capability, preferedProvider: 'x' }), unknown('preferedProvider'));
  // JSON.stringify writes NaN and ±Infinity as null, which reads as absent: a NaN cost cap
  // (upstream rejects every model against it) would lift the cap.
  const notFinite = (at, v) => (e) => invalid(e) && e.message.includes(`${at} is ${v}, which JSON cannot hold`);
  assert.throws(
    () => table.route({ capability, tenantPolicy: { tenantId: 't', maxCostPerCallUsd: NaN } }),
    notFinite('/tenantPolicy/maxCostPerCallUsd', 'NaN'),
  );
  assert.throws(
    () => route({ capability: { needs: [{ contextWindow: { op: '>=', value: Infinity } }] }, providers: metadata }),
    notFinite('/capability/needs/0/contextWindow/value', 'Infinity'),
  );
  assert.throws(
    () => table.route({ capability, tenantPolicy: { tenantId: 't', 'a/b~c': -Infinity } }),
    notFinite('/tenantPolicy/a~1b~0c', '-Infinity'),
  );
  // A written null is still null (absent), and a finite cap still applies.
  assert.equal(table.route({ capability, tenantPolicy: { tenantId: 't', maxCostPerCallUsd: null } }).kind, 'ok');
  assert.equal(table.route({ capability, tenantPolicy: { tenantId: 't', maxCostPerCallUsd: -1 } }).kind, 'err');
  // A table routes its own providers: a request naming others is refused, not half-read.
  assert.throws(() => table.route({ capability, providers: [] }), (e) => unknown('providers')(e) && /its own providers/.test(e.message));
});

test('a policy or capability given by position is refused, never read field by field', () => {
  // serde alone would read ['acme', {allow: []}] as {tenantId: 'acme', providers: {allow: []}}.
  const byPosition = (e) => invalid(e) && /invalid type: sequence/.test(e.message);
  const table = new RouteTable(providers);
  const capability = { kind: 'llm-inference', needs: [{ feature: 'tool-use' }] };
  assert.throws(() => table.route({ capability, tenantPolicy: ['acme', { allow: [] }] }), byPosition);
  assert.throws(() => table.route({ capability: ['llm-inference', []] }), byPosition);
  // The loader refuses an array policy itself, before it reaches Rust.
  assert.throws(() => registry().setTenantPolicy('acme', ['acme', { allow: [] }]), (e) => invalid(e) && /array/.test(e.message));
  assert.throws(() => registry().setTenantPolicy('acme', { providers: [['x'], []] }), byPosition);
});
