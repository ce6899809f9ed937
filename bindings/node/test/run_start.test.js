'use strict';
// `RunStart.prepare` on the fixture packs equals `runstart plan`; prepares from several
// worker threads at once while another thread registers packs.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { RunStart } = require('..');
const { repo, cli } = require('./helpers');

const NOW = '2026-11-30T09:00:00.000Z';
const providers = JSON.parse(fs.readFileSync(path.join(repo, 'fixtures/providers.json'), 'utf8'));
const packFile = (name) => `fixtures/packs/${name}/index.json`;
const packBytes = (name) => fs.readFileSync(path.join(repo, packFile(name)));

/** Each agent of the fixture packs with the parameters a run gives it (some deliberately missing). */
const runs = [
  ['support-desk', 'support.escalation-writer', { ticketId: 'T-17', maxWords: 80 }],
  ['support-desk', 'support.escalation-writer', {}],
  ['support-desk', 'support.reply-drafter', {}],
  ['support-desk', 'support.triage', { company: 'Acme' }],
  ['support-desk', 'support.triage@9.9.9', {}],
  ['order-review', 'shop.fraud-analyst', { orderId: 'A-1001' }],
  ['order-review', 'shop.fraud-analyst', {}],
  ['order-review', 'shop.order-reviewer', {}],
  ['order-review', 'shop.shipping-helper', { orderId: 'A-7', country: 'DE', express: true }],
];

function registry(packs) {
  const rs = new RunStart();
  for (const p of packs) rs.registerPack('acme', packBytes(p));
  for (const p of providers) rs.registerProvider('acme', p);
  return rs;
}

for (const [pack, agent, parameters] of runs) {
  test(`prepare ${agent} ${JSON.stringify(parameters)} equals runstart plan`, (t) => {
    const args = ['plan', packFile(pack), '--providers', 'fixtures/providers.json', '--tenant', 'acme'];
    args.push('--agent', agent, '--now', NOW, '--conversation', 'c-1', '--turn', '2');
    for (const [k, v] of Object.entries(parameters)) args.push('--param', `${k}=${JSON.stringify(v)}`);
    const expected = cli(t, args);
    if (expected === null) return;
    const [id, version] = agent.split('@');
    const got = registry([pack]).prepare({
      tenantId: 'acme',
      agent: version === undefined ? { id } : { id, version },
      parameters,
      conversation: { id: 'c-1', turn: 2 },
      now: NOW,
    });
    if (expected.error) assert.deepStrictEqual(got, { kind: 'err', error: expected.error });
    else assert.deepStrictEqual(got, { kind: 'ok', value: expected });
  });
}

test('the broken pack is refused with every load issue, as runstart plan refuses it', (t) => {
  const file = packFile('broken');
  const args = ['plan', file, '--providers', 'fixtures/providers.json', '--agent', 'support.triage', '--now', NOW];
  const expected = cli(t, args);
  if (expected === null) return;
  assert.equal(expected.error.code, 'invalid-index');
  const rs = new RunStart();
  assert.throws(
    () => rs.registerPack('acme', packBytes('broken')),
    (e) => {
      assert.ok(e instanceof Error);
      assert.equal(e.code, 'invalid-index');
      assert.deepStrictEqual(e.issues, expected.error.issues);
      return true;
    },
  );
  assert.throws(() => rs.registerPack('acme', '{"v": 2}'), (e) => e.code === 'invalid-index' && Array.isArray(e.issues));
});

test('a pack with a cyclic flow is refused with the cycle, as validateIndex reports it', () => {
  const { validateIndexSync } = require('..');
  const index = JSON.parse(packBytes('support-desk'));
  const flow = index.flows[0];
  flow.edges.push({ id: 'e-back', from: flow.nodes[0].id, to: flow.nodes[0].id });
  const bytes = JSON.stringify(index);
  const rs = new RunStart();
  assert.throws(
    () => rs.registerPack('acme', bytes),
    (e) => {
      assert.equal(e.code, 'pack-not-registered');
      const cycles = e.issues.filter((i) => i.code === 'cycle-detected');
      assert.equal(cycles.length, 1);
      assert.equal(cycles[0].instancePath, '/flows/0/nodes/0');
      const reported = validateIndexSync(bytes).issues;
      assert.ok(
        reported.some((i) => i.code === 'cycle-detected' && i.instancePath === '/flows/0/nodes/0' && i.message === cycles[0].message),
      );
      return true;
    },
  );
  // A flow warning alone does not refuse the pack.
  const warned = JSON.parse(packBytes('support-desk'));
  warned.flows[0].nodes.push({ id: 'lonely', kind: 'tool', ref: warned.flows[0].nodes[0].ref });
  rs.registerPack('acme', JSON.stringify(warned));
});

test('registry changes: providers, policies and tools', () => {
  const rs = registry(['support-desk']);
  const request = {
    tenantId: 'acme',
    agent: { id: 'support.escalation-writer' },
    parameters: { ticketId: 'T-17', maxWords: 80 },
    now: NOW,
  };
  const first = rs.prepare(request);
  assert.equal(first.kind, 'ok');
  assert.equal(first.value.route.providerId, 'anthropic-eu');
  assert.throws(() => rs.registerProvider('acme', providers[0]), (e) => e.code === 'duplicate-provider');
  assert.throws(
    () => rs.registerProvider('acme', { ...providers[0], id: '' }),
    (e) => e.code === 'invalid-provider' && typeof e.reason === 'string',
  );
  assert.equal(rs.unregisterProvider('acme', 'anthropic-eu'), true);
  assert.equal(rs.unregisterProvider('acme', 'anthropic-eu'), false);
  assert.notEqual(rs.prepare(request).value?.route.providerId, 'anthropic-eu');
  rs.registerProvider('acme', { metadata: providers[0], invoke() {} }); // a ModelProvider
  rs.setTenantPolicy('acme', { tenantId: 'acme', providers: { allow: [] } });
  const denied = rs.prepare(request);
  assert.equal(denied.kind, 'err');
  assert.equal(denied.error.code, 'capability-routing-failed');
  rs.setTenantPolicy('acme', undefined);
  assert.equal(rs.prepare(request).kind, 'ok');
  const tool = Object.keys(first.value.toolVersions)[0];
  const version = first.value.toolVersions[tool];
  assert.equal(rs.retireTool('acme', tool, version), true);
  assert.equal(rs.removeTool('acme', tool, version), true);
  assert.equal(rs.removeTool('acme', tool, version), false);
  const gone = rs.prepare(request);
  assert.equal(gone.kind, 'err');
  assert.equal(gone.error.code, 'tool-version-unresolvable');
  assert.throws(() => rs.retireTool('acme', tool, 'not-a-version'), (e) => e.code === 'invalid-argument');
});

test('prepare from several worker threads while the main thread registers packs', async () => {
  const rs = registry(['support-desk']);
  const request = {
    tenantId: 'acme',
    agent: { id: 'support.escalation-writer' },
    parameters: { ticketId: 'T-17', maxWords: 80 },
    conversation: { id: 'c-1', turn: 1 },
    now: NOW,
  };
  const expected = rs.prepare(request);
  assert.equal(expected.kind, 'ok');
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { RunStart } = require(workerData.binding);
    const rs = RunStart.attach(workerData.shareId);
    const want = JSON.stringify(workerData.expected);
    let same = 0;
    for (let i = 0; i < workerData.rounds; i++) {
      if (JSON.stringify(rs.prepare(workerData.request)) === want) same++;
    }
    parentPort.postMessage(same);
  `;
  const rounds = 2000;
  const workers = Array.from({ length: 3 }, () =>
    new Promise((resolve, reject) => {
      const w = new Worker(source, {
        eval: true,
        workerData: { binding: path.resolve(__dirname, '..'), shareId: rs.shareId, expected, request, rounds },
      });
      w.once('message', resolve);
      w.once('error', reject);
    }),
  );
  // Meanwhile, until every worker is done: register the other pack, and the same pack again.
  let done = false;
  const all = Promise.all(workers).finally(() => {
    done = true;
  });
  let registrations = 0;
  while (!done || registrations < 20) {
    rs.registerPack('acme', packBytes(registrations % 2 === 0 ? 'order-review' : 'support-desk'));
    registrations++;
    await new Promise((r) => setImmediate(r));
  }
  const counts = await all;
  assert.deepStrictEqual(counts, [rounds, rounds, rounds]);
  assert.throws(() => RunStart.attach(4000000000), (e) => e.code === 'unknown-share-id');
});
