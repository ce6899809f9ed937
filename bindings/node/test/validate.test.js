'use strict';
// `validateIndex`, `validateIndexSync` and `indexHash` on the fixture packs: the report
// equals what `runstart validate --format json` prints for the file (without `file`).

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { validateIndex, validateIndexSync, indexHash } = require('..');
const { repo, cli } = require('./helpers');

const packs = ['support-desk', 'order-review', 'broken'].map((p) => `fixtures/packs/${p}/index.json`);

for (const file of packs) {
  test(`validateIndex on ${file} equals runstart validate --format json`, async (t) => {
    const bytes = fs.readFileSync(path.join(repo, file));
    const expected = cli(t, ['validate', '--format', 'json', '-q', file]);
    if (expected === null) return;
    const { file: _, ...want } = expected[0];
    const got = await validateIndex(bytes);
    assert.deepStrictEqual(got, want);
    assert.deepStrictEqual(validateIndexSync(bytes), want);
    assert.deepStrictEqual(validateIndexSync(bytes.toString('utf8')), want);
    // Without the canonical-form check, as `--no-canonical-check`.
    const { file: __, ...plain } = cli(t, ['validate', '--format', 'json', '-q', '--no-canonical-check', file])[0];
    assert.deepStrictEqual(await validateIndex(bytes, { checkCanonicalForm: false }), plain);
    t.diagnostic(`${file}: ${got.errors} error(s), ${got.warnings} warning(s)`);
  });
}

test('the broken pack reports every issue in the wire form', async () => {
  const got = await validateIndex(fs.readFileSync(path.join(repo, 'fixtures/packs/broken/index.json')));
  assert.equal(got.errors, 32);
  assert.equal(got.warnings, 2);
  for (const issue of got.issues) {
    assert.ok(['error', 'warning'].includes(issue.severity));
    assert.equal(typeof issue.code, 'string');
    assert.equal(typeof issue.instancePath, 'string');
    assert.equal(typeof issue.message, 'string');
  }
  const broken = got.issues.find((i) => i.code === 'unresolved-guardrail');
  assert.equal(broken.instancePath, '/agents/0/guardrails/0');
});

test('not JSON, and many validations at once', async () => {
  const notJson = await validateIndex('{"v": 1,');
  assert.equal(notJson.errors, 1);
  assert.equal(notJson.issues[0].code, 'json-syntax');
  const bytes = fs.readFileSync(path.join(repo, 'fixtures/packs/order-review/index.json'));
  const reports = await Promise.all(Array.from({ length: 16 }, () => validateIndex(bytes)));
  for (const r of reports) assert.deepStrictEqual(r, reports[0]);
});

test('indexHash is the sha256 of the bytes', () => {
  const bytes = fs.readFileSync(path.join(repo, 'fixtures/packs/support-desk/index.json'));
  const hash = indexHash(bytes);
  assert.match(hash, /^sha256:[0-9a-f]{64}$/);
  assert.equal(hash, `sha256:${require('node:crypto').createHash('sha256').update(bytes).digest('hex')}`);
  assert.equal(indexHash(bytes.toString('utf8')), hash);
  assert.equal(indexHash(new Uint8Array(bytes)), hash);
});
