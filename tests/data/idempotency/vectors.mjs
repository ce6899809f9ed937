// Idempotency-key test vectors, as Node computes them (pack protocol 2.6.0): a version 5 UUID
// under a70d5bff-e713-4322-b2ea-9d5c4926a861 over the UTF-8 of JSON.stringify(parts).
// Prints {cases: [...]} on stdout; vectors.py adds Python's answers. Run generate.sh.
import { createHash } from 'node:crypto';

const NAMESPACE = Buffer.from('a70d5bff-e713-4322-b2ea-9d5c4926a861'.replaceAll('-', ''), 'hex');

function key(parts) {
  const bytes = createHash('sha1').update(NAMESPACE).update(JSON.stringify(parts), 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const units = (s) => Array.from({ length: s.length }, (_, i) => s.charCodeAt(i));
const RUN = '4b5f8c1e-2f0a-4c8e-9a51-0c7e2d9a6b13';
const named = [
  ['upstream: flow step', [RUN, 'charge-card', 'acme.payments.charge']],
  ['upstream: model call', [RUN, 'agent-loop#2/dispatch-tools', 'acme.refunds.issue', 'call_0']],
  ['upstream: not ASCII', [RUN, 'notify/branch-\u00e9', 'acme.mail.send']],
  ['empty parts', ['', '', '']],
  ['empty call id', [RUN, 's', 't', '']],
  ['latin and CJK', [RUN, 'caf\u00e9/\u65e5\u672c\u8a9e', 'acme.\u00fc']],
  ['arabic and hebrew', [RUN, '\u0645\u0631\u062d\u0628\u0627', '\u05e9\u05dc\u05d5\u05dd']],
  ['emoji (surrogate pairs)', [RUN, 'step-\ud83d\ude00', 'tool-\ud83c\udf89', 'call-\ud83d\udc4d\ud83c\udffd']],
  ['U+2028 and U+2029', [RUN, 'line\u2028sep', 'para\u2029sep']],
  ['quotes', [RUN, 'a"b', '"', '""']],
  ['backslashes', [RUN, 'a\\b', '\\', '\\\\u0041']],
  ['separator inside a part', [RUN, 'a","t', 'c']],
  ['short escapes', [RUN, '\b\t\n\f\r', 'x']],
  ['vertical tab and escape', [RUN, '\u000b\u001b', '\u007f']],
  ['NUL', [RUN, '\u0000', 'a\u0000b']],
  ['unit separator U+001F and space', [RUN, '\u001f \u0020', 't']],
  ['solidus is not escaped', [RUN, 'a/b</script>', 't']],
  ['BOM and noncharacters', [RUN, '\ufeff\ufffe\uffff', 't']],
  ['highest code point', [RUN, '\udbff\udfff', 't']],
  ['lone high surrogate', [RUN, 'a\ud800b', 't']],
  ['lone low surrogate', [RUN, '\udc00', 't']],
  ['reversed pair', [RUN, '\ude00\ud83d', 't']],
  ['high surrogate at the end', [RUN, 's', 't', 'call\ud83d']],
  ['two high surrogates then a low', [RUN, '\ud83d\ud83d\ude00', 't']],
  ['C1 controls stay raw', [RUN, '\u0080\u009f\u00a0', 't']],
  ['long part', [RUN, 'x'.repeat(1000), 'y\u00e9'.repeat(300)]],
];
for (let c = 0; c < 0x20; c++) named.push([`control U+${c.toString(16).padStart(4, '0').toUpperCase()}`, [RUN, `a${String.fromCharCode(c)}b`, 't']]);

// Random parts from a pool that mixes every class above, seeded so the file is reproducible.
let seed = 0x2545f491;
const next = () => { seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0; return seed; };
const pool = [0x41, 0x7a, 0x30, 0x2d, 0x2e, 0x2f, 0x23, 0x22, 0x5c, 0x00, 0x08, 0x09, 0x0a, 0x0c, 0x0d, 0x1f, 0x7f, 0xe9, 0x4e2d, 0x2028, 0x2029, 0xfeff, 0xffff];
const lone = [0xd800, 0xdbff, 0xdc00, 0xdfff];
const randomPart = () => {
  const n = next() % 12;
  let s = '';
  for (let i = 0; i < n; i++) {
    const r = next() % 10;
    if (r < 2) s += '\ud83d\ude80';
    // A lone surrogate in about one part in twenty: most random cases stay valid Unicode.
    else if (r === 9 && next() % 6 === 0) s += String.fromCharCode(lone[next() % lone.length]);
    else s += String.fromCharCode(pool[next() % pool.length]);
  }
  return s;
};
for (let i = 0; i < 300; i++) {
  const parts = [randomPart(), randomPart(), randomPart()];
  if (next() % 2 === 0) parts.push(randomPart());
  named.push([`random ${i}`, parts]);
}

const cases = named.map(([name, parts]) => ({
  name,
  parts: parts.map(units),
  json: JSON.stringify(parts),
  node: key(parts),
}));
process.stdout.write(JSON.stringify({ node: process.version, cases }, null, 1) + '\n');
