'use strict';
// Shared by the tests: `../shared` beside the checkout (as the Rust tests read it), the
// repository's fixtures, and the `runstart` CLI the answers are compared with.

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const repo = path.resolve(__dirname, '..', '..', '..');
const sharedDir = path.resolve(repo, '..', 'shared');

/**
 * A file under `../shared`, or `null` (with a visible note) when `../shared` is missing on a
 * developer machine; under `CI=true` a missing `../shared` fails the test.
 */
function sharedFile(t, relative) {
  if (!fs.existsSync(sharedDir)) {
    if (process.env.CI === 'true') throw new Error(`../shared is missing at ${sharedDir}: CI must have it`);
    t.diagnostic(`skipping: ../shared is missing at ${sharedDir}`);
    t.skip(`../shared is missing at ${sharedDir}`);
    return null;
  }
  return fs.readFileSync(path.join(sharedDir, relative), 'utf8');
}

function jsonLines(text) {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

/** The `runstart` CLI: `RUNSTART_BIN`, else the newest of target/{release,debug}/runstart. */
function cliPath() {
  if (process.env.RUNSTART_BIN) return process.env.RUNSTART_BIN;
  const exe = process.platform === 'win32' ? 'runstart.exe' : 'runstart';
  const built = ['release', 'debug']
    .map((p) => path.join(repo, 'target', p, exe))
    .filter((f) => fs.existsSync(f))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return built[0] ?? null;
}

/** The CLI's JSON on stdout (exit 0 or 1), or `null` with a note when the CLI is not built. */
function cli(t, args) {
  const bin = cliPath();
  if (bin === null) {
    if (process.env.CI === 'true') throw new Error('the runstart CLI is not built (target/*/runstart)');
    t.skip('the runstart CLI is not built: run `cargo build` first');
    return null;
  }
  try {
    return JSON.parse(execFileSync(bin, args, { cwd: repo, encoding: 'utf8', maxBuffer: 64 << 20 }));
  } catch (e) {
    if (e.status === 1 && e.stdout) return JSON.parse(e.stdout);
    throw e;
  }
}

module.exports = { repo, sharedDir, sharedFile, jsonLines, cli, cliPath };
