'use strict';
// The 20,000 npm semver cases (`../shared/conformance/semver/max-satisfying.jsonl`) through
// `validRange` and `pickVersion`, plus upstream's own pickVersion table (agents.md §5.1).

const test = require('node:test');
const assert = require('node:assert/strict');
const { pickVersion, validRange } = require('..');
const { sharedFile, jsonLines } = require('./helpers');

test('semver conformance through validRange and pickVersion', (t) => {
  const text = sharedFile(t, 'conformance/semver/max-satisfying.jsonl');
  if (text === null) return;
  const cases = jsonLines(text);
  let rangesOk = 0;
  let picksOk = 0;
  const failures = [];
  for (const c of cases) {
    const ours = validRange(c.range);
    if (ours === c.validRange) rangesOk++;
    else if (failures.length < 5) failures.push(`validRange(${JSON.stringify(c.range)}): npm ${c.validRange}, ours ${ours}`);
    // Upstream's pickVersion: invalid-range when validRange is null, else maxSatisfying.
    const want =
      c.validRange === null
        ? { kind: 'invalid-range' }
        : c.maxSatisfying === null
          ? { kind: 'not-satisfiable' }
          : { kind: 'ok', version: c.maxSatisfying };
    const got = pickVersion(c.versions, c.range);
    try {
      assert.deepStrictEqual(got, want);
      picksOk++;
    } catch {
      if (failures.length < 5) failures.push(`pickVersion(${JSON.stringify(c.versions)}, ${JSON.stringify(c.range)}): want ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
    }
  }
  t.diagnostic(`semver conformance: validRange ${rangesOk}/${cases.length}, pickVersion ${picksOk}/${cases.length}`);
  assert.equal(cases.length, 20000);
  assert.equal(rangesOk, cases.length, failures.join('\n'));
  assert.equal(picksOk, cases.length, failures.join('\n'));
});

test("upstream's pickVersion cases (agents.md §5.1)", () => {
  const available = ['1.0.0', '1.2.0', '1.3.0-beta.1', '2.0.0', 'not-a-version'];
  assert.deepStrictEqual(pickVersion(available, '^1.0.0'), { kind: 'ok', version: '1.2.0' });
  assert.deepStrictEqual(pickVersion(available, '^1.3.0-beta.0'), { kind: 'ok', version: '1.3.0-beta.1' });
  assert.deepStrictEqual(pickVersion(available), { kind: 'ok', version: '2.0.0' });
  assert.deepStrictEqual(pickVersion(['1.0.0', '1.3.0-beta.1']), { kind: 'ok', version: '1.3.0-beta.1' });
  assert.deepStrictEqual(pickVersion(available, 'latest'), { kind: 'invalid-range' });
  assert.deepStrictEqual(pickVersion(available, '^3.0.0'), { kind: 'not-satisfiable' });
  assert.deepStrictEqual(pickVersion([]), { kind: 'not-satisfiable' });
  assert.deepStrictEqual(pickVersion(available, ''), { kind: 'ok', version: '2.0.0' });
  // Non-strings among the versions are skipped, as npm's maxSatisfying skips them.
  assert.deepStrictEqual(pickVersion([1, null, '1.0.1'], '1.x'), { kind: 'ok', version: '1.0.1' });
  assert.equal(validRange('^1.0.0 || not'), null);
  assert.equal(validRange(' '), '*');
  assert.equal(validRange('1.0.0 - 2.0.0'), '>=1.0.0 <=2.0.0');
});
