'use strict';
// Every router conformance case (`../shared/conformance/router/cases.jsonl`, upstream's
// answers) through `RouteTable.route` and through the drop-in `route()`.

const test = require('node:test');
const assert = require('node:assert/strict');
const { RouteTable, route } = require('..');
const { sharedFile, jsonLines } = require('./helpers');

/** The conformance form of an answer: ids and names instead of objects. */
function conformanceForm(result) {
  if (result.kind === 'err') return { err: result.error };
  const v = result.value;
  const id = (p) => (p.metadata ?? p).id;
  return {
    ok: {
      provider: id(v.provider),
      model: v.model.name,
      alternates: v.alternates.map((a) => [id(a.provider), a.model.name]),
      fallback: v.fallback,
      reason: v.reason,
    },
  };
}

function replay(t, entry) {
  const text = sharedFile(t, 'conformance/router/cases.jsonl');
  if (text === null) return;
  const cases = jsonLines(text);
  let agree = 0;
  const failures = [];
  for (const c of cases) {
    const got = conformanceForm(entry(c.input));
    try {
      assert.deepStrictEqual(got, c.expected);
      agree++;
    } catch (e) {
      if (failures.length < 3) failures.push(`${c.name}: ${e.message.slice(0, 800)}`);
    }
  }
  t.diagnostic(`router conformance: ${agree}/${cases.length} agree`);
  assert.equal(cases.length, 3032);
  assert.equal(agree, cases.length, failures.join('\n'));
}

test('router conformance through RouteTable.route', (t) => {
  replay(t, (input) => {
    const { providers, ...request } = input;
    const table = new RouteTable(providers);
    const result = table.route(request);
    if (result.kind === 'ok') {
      // The pick and the alternates are the table's own provider and model objects.
      const p = result.value.provider;
      assert.ok(input.providers.includes(p));
      assert.ok(p.models.includes(result.value.model));
    }
    return result;
  });
});

test('router conformance through the drop-in route()', (t) => {
  replay(t, (input) => {
    // Upstream's providers are ModelProvider objects: metadata plus an invoke function.
    const providers = input.providers.map((metadata) => ({ metadata, invoke: async () => ({}) }));
    const result = route({ ...input, providers });
    if (result.kind === 'ok') {
      const v = result.value;
      assert.ok(providers.includes(v.provider), 'value.provider is the caller object');
      for (const a of v.alternates) assert.ok(providers.includes(a.provider));
      // A second call with the same objects in a new array answers the same.
      assert.deepStrictEqual(route({ ...input, providers: providers.slice() }), result);
    }
    return result;
  });
});

test('the drop-in route() sees a changed provider list', () => {
  const model = (name) => ({
    name,
    contextWindow: 8000,
    features: ['tool-use'],
    cost: { promptUsdPer1kTokens: 0.001, completionUsdPer1kTokens: 0.002 },
  });
  const a = { metadata: { id: 'a', region: 'eu', models: [model('m1')] } };
  const b = { metadata: { id: 'b', region: 'eu', models: [model('m2')] } };
  const providers = [b];
  const capability = { needs: [] };
  assert.equal(route({ capability, providers }).value.provider, b);
  providers.unshift(a); // same array, new member
  const r = route({ capability, providers });
  assert.equal(r.value.provider, a);
  assert.deepStrictEqual(r.value.alternates, [{ provider: b, model: b.metadata.models[0] }]);
  providers.length = 0;
  const err = route({ capability, providers });
  assert.equal(err.kind, 'err');
  assert.equal(err.error.code, 'capability-unsatisfiable');
  assert.equal(err.error.message, 'No registered provider satisfies the capability declaration');
});

test('RouteTable register, unregister and explain', () => {
  const model = (name, features) => ({
    name,
    contextWindow: 8000,
    features,
    cost: { promptUsdPer1kTokens: 0.001, completionUsdPer1kTokens: 0.002 },
  });
  const text = { id: 'text', region: 'eu', models: [model('t1', ['tool-use'])] };
  const seeing = { id: 'seeing', region: 'eu', models: [model('v1', ['vision'])] };
  const table = new RouteTable([text]);
  const vision = { capability: { needs: [{ feature: 'vision' }] } };
  assert.equal(table.route(vision).kind, 'err');
  table.register(seeing);
  const ok = table.route(vision);
  assert.equal(ok.value.provider, seeing);
  assert.equal(ok.value.model, seeing.models[0]);
  assert.equal(ok.value.reason, 'picked "seeing"/"v1", satisfies 1 constraint(s)');
  assert.throws(
    () => table.register(seeing),
    (e) =>
      e instanceof Error &&
      e.code === 'duplicate-provider' &&
      e.providerId === 'seeing' &&
      e.message === 'Provider "seeing" is already registered for tenant "default"',
  );
  assert.throws(
    () => table.register({ id: '', region: 'eu', models: [model('x', [])] }),
    (e) => e.code === 'invalid-provider' && typeof e.reason === 'string',
  );
  const explained = table.explain(vision);
  assert.equal(explained.tuples.length, 2);
  assert.equal(explained.outcome.ok.providerId, 'seeing');
  assert.equal(table.unregister('seeing'), true);
  assert.equal(table.unregister('seeing'), false);
  assert.equal(table.route(vision).kind, 'err');
  assert.deepStrictEqual(table.providers, [text]);
});

test('a missing argument is named once, with what was given', () => {
  assert.throws(() => route({}), {
    code: 'invalid-argument',
    message: 'runstart: input.providers must be an array, got undefined',
  });
  assert.throws(() => route({ providers: 7 }), {
    code: 'invalid-argument',
    message: 'runstart: input.providers must be an array, got number 7',
  });
});
