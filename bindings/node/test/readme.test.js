'use strict';
// The README's "A first script", run as written: from a folder whose `node_modules/runstart`
// is this package (as `npm install <checkout>/bindings/node` makes it), with the checkout as
// the working directory. Each printed line must be what the README's comment says.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { repo } = require('./helpers');

const packageDir = path.resolve(__dirname, '..');

/** The fenced `js` block under the README heading `## A first script`. */
function firstScript() {
  const readme = fs.readFileSync(path.join(packageDir, 'README.md'), 'utf8');
  const section = readme.split('\n## A first script\n')[1];
  assert.ok(section, 'README.md has no "## A first script" section');
  const block = /```js\n([\s\S]*?)```/.exec(section);
  assert.ok(block, 'the "A first script" section has no js block');
  return block[1];
}

test('the README first script prints what its comments say', () => {
  const script = firstScript();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runstart-readme-'));
  try {
    fs.mkdirSync(path.join(dir, 'node_modules'));
    // A junction on Windows (no privilege needed); a plain symbolic link elsewhere.
    fs.symlinkSync(packageDir, path.join(dir, 'node_modules', 'runstart'), 'junction');
    const file = path.join(dir, 'first.js');
    fs.writeFileSync(file, script);
    const out = execFileSync(process.execPath, [file], { cwd: repo, encoding: 'utf8' });
    assert.deepEqual(out.trimEnd().split('\n'), [
      '>=1.2.0 <2.0.0-0||>=2.0.0 <3.0.0-0',
      "{ kind: 'ok', version: '1.4.2' }",
      'anthropic-eu sonnet-eu',
      'Ticket T-17 for Triage.',
      'missing-parameter',
    ]);
    // The comments in the README say the same, in the same order.
    const said = [...script.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
    assert.deepEqual(said, [
      "'>=1.2.0 <2.0.0-0||>=2.0.0 <3.0.0-0'",
      "{ kind: 'ok', version: '1.4.2' }",
      'anthropic-eu sonnet-eu',
      'Ticket T-17 for Triage.',
      'missing-parameter',
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
