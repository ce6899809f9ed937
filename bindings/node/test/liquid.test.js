'use strict';
// The Liquid conformance templates (`../shared/conformance/liquid/`, LiquidJS 10.30.1's
// answers) rendered through `renderInstructions`, with the verdicts the Rust suite checks:
// output, undefined variable (as `missing-parameter` with its path), or another error (as
// `render-failure`). As in the Rust suite, at least 99% of verdicts and 95% of outputs agree.

const test = require('node:test');
const assert = require('node:assert/strict');
const { renderInstructions } = require('..');
const { sharedFile, jsonLines } = require('./helpers');

const AUTO = new Set(['today', 'now', 'agent', 'conversation', 'input', 'settings']);

function expectedVerdict(render) {
  if (typeof render.output === 'string') return { output: render.output };
  const message = render.error ?? '';
  const prefix = 'undefined variable: ';
  if (message.startsWith(prefix)) {
    // The message ends with ", line:<l>, col:<c>".
    const rest = message.slice(prefix.length);
    return { undefined: rest.split(', ').slice(0, -2).join(', ') || rest };
  }
  return { other: true };
}

test('Liquid render verdicts through renderInstructions', (t) => {
  const lines = sharedFile(t, 'conformance/liquid/templates.jsonl');
  const ctxText = sharedFile(t, 'conformance/liquid/render-context.json');
  if (lines === null || ctxText === null) return;
  const ctx = JSON.parse(ctxText);
  const parameters = {};
  for (const [k, v] of Object.entries(ctx)) if (!AUTO.has(k)) parameters[k] = v;
  const context = {
    parameters,
    conversation: ctx.conversation,
    input: ctx.input,
    settings: ctx.settings,
    clock: () => new Date(ctx.now),
  };
  const agentOf = (instructions) => ({ ...ctx.agent, instructions, parameters: [] });
  let total = 0;
  let verdictOk = 0;
  let outputOk = 0;
  let parseFailures = 0;
  let parseFailuresOk = 0;
  for (const row of jsonLines(lines)) {
    const result = renderInstructions(agentOf(row.template), context);
    if (row.parseError !== null) {
      // A template that does not parse fails the render as LiquidJS's parse error.
      parseFailures++;
      if (!result.ok && result.error.code === 'render-failure') parseFailuresOk++;
      continue;
    }
    if (row.render === null || row.render === undefined) continue;
    total++;
    const want = expectedVerdict(row.render);
    let ours;
    if (result.ok) ours = { output: result.value.rendered };
    else if (result.error.code === 'missing-parameter') ours = { undefined: result.error.parameterName };
    else ours = { other: true };
    const sameClass =
      ('output' in ours && 'output' in want) ||
      ('other' in ours && 'other' in want) ||
      ('undefined' in ours && ours.undefined === want.undefined);
    if (sameClass) verdictOk++;
    try {
      assert.deepStrictEqual(ours, want);
      outputOk++;
    } catch {}
    if (result.ok) {
      // The returned context is what was rendered against, auto-variables included.
      assert.equal(result.value.context.now, ctx.now);
      assert.equal(result.value.context.today, ctx.today);
    }
  }
  t.diagnostic(`render verdict agrees: ${verdictOk}/${total}; output byte-equal: ${outputOk}/${total}`);
  t.diagnostic(`templates that do not parse answered render-failure: ${parseFailuresOk}/${parseFailures}`);
  assert.ok(total > 3000, `${total} render cases`);
  assert.ok(verdictOk * 100 >= total * 99, `render verdict below 99%: ${verdictOk}/${total}`);
  assert.ok(outputOk * 100 >= total * 95, `render output below 95%: ${outputOk}/${total}`);
  assert.equal(parseFailuresOk, parseFailures);
});

test("upstream's prompt cases (agents.md §5.5)", () => {
  const clock = () => new Date('2026-09-17T15:30:00Z');
  const agent = {
    id: 'acme.test',
    name: 'Test',
    version: '1.0.0',
    instructions: 'You are {{ agent.name }} for {{ firm }}. Today is {{ today }}.',
    parameters: [{ name: 'firm' }, { name: 'tone', required: false }, { name: 'lang', default: 'en' }],
  };
  const ok = renderInstructions(agent, { parameters: { firm: 'Acme LLP' }, clock });
  assert.deepStrictEqual(ok, {
    ok: true,
    value: {
      rendered: 'You are Test for Acme LLP. Today is 2026-09-17.',
      context: {
        lang: 'en',
        firm: 'Acme LLP',
        today: '2026-09-17',
        now: '2026-09-17T15:30:00.000Z',
        agent: { id: 'acme.test', name: 'Test', version: '1.0.0' },
      },
    },
  });
  assert.deepStrictEqual(renderInstructions(agent, { parameters: {}, clock }), {
    ok: false,
    error: { code: 'missing-parameter', message: 'Required parameter missing: firm', parameterName: 'firm' },
  });
  const two = { ...agent, parameters: [{ name: 'a' }, { name: 'b' }] };
  assert.deepStrictEqual(renderInstructions(two, { parameters: { a: undefined }, clock }), {
    ok: false,
    error: { code: 'missing-parameter', message: 'Required parameters missing: a, b' },
  });
  const typo = { ...agent, instructions: '{{ settings["acme.reply-style"].maxSentences }}' };
  assert.deepStrictEqual(renderInstructions(typo, { parameters: { firm: 'x' }, settings: {}, clock }), {
    ok: false,
    error: {
      code: 'missing-parameter',
      message: 'Template references an unresolved variable: settings.acme.reply-style',
      parameterName: 'settings.acme.reply-style',
    },
  });
  const bad = renderInstructions({ ...agent, instructions: '{{ firm | nosuch }}' }, { parameters: { firm: 'x' }, clock });
  assert.equal(bad.ok, false);
  assert.equal(bad.error.code, 'render-failure');
  assert.match(bad.error.message, /^Template render failed: undefined filter: nosuch/);
  assert.ok(bad.error.cause instanceof Error);
  const ref = { ...agent, instructions: { prompt: 'acme.prompt', version: '^1.0.0' } };
  assert.deepStrictEqual(renderInstructions(ref, { parameters: {}, clock }), {
    ok: false,
    error: {
      code: 'render-failure',
      message: 'The instructions come from prompt block "acme.prompt" (^1.0.0), which wasn\'t loaded',
      cause: null,
    },
  });
  // A prompt block's template and parameters win over the agent's.
  const fromBlock = renderInstructions(ref, { parameters: { who: 'Ada' }, clock }, {
    template: 'Hello {{ who }} at {{ conversation.turn }}',
    parameters: [{ name: 'who' }],
  });
  assert.equal(fromBlock.ok, false); // no conversation passed: conversation.turn is undefined
  const withTurn = renderInstructions(
    ref,
    { parameters: { who: 'Ada' }, conversation: { id: 'c-1', turn: 3 }, clock },
    { template: 'Hello {{ who }} at {{ conversation.turn }}', parameters: [{ name: 'who' }] },
  );
  assert.equal(withTurn.value.rendered, 'Hello Ada at 3');
  // A null default counts as a default (upstream checks `default !== undefined`).
  const nullDefault = { ...agent, instructions: '[{{ x }}]', parameters: [{ name: 'x', default: null }] };
  assert.equal(renderInstructions(nullDefault, { parameters: {}, clock }).value.rendered, '[]');
});

test('the parsed-template cache never answers for other inputs', () => {
  const { __testing } = require('..');
  const clock = () => new Date('2026-09-17T15:30:00Z');
  const agent = { id: 'acme.c', name: 'C', version: '1.0.0', instructions: 'Hi {{ who }}', parameters: [] };
  const parameters = { who: 'Ada' };
  const render = (a, p = parameters) => renderInstructions(a, { parameters: p, clock });
  assert.equal(render(agent).value.rendered, 'Hi Ada');
  // The same agent object with other instructions renders them, and back again.
  agent.instructions = 'Bye {{ who }}';
  assert.equal(render(agent).value.rendered, 'Bye Ada');
  agent.instructions = 'Hi {{ who }}';
  assert.equal(render(agent).value.rendered, 'Hi Ada');
  // Declared parameters added to the same object are checked.
  agent.parameters = [{ name: 'who' }, { name: 'firm' }];
  assert.deepStrictEqual(render(agent).error, {
    code: 'missing-parameter',
    message: 'Required parameter missing: firm',
    parameterName: 'firm',
  });
  agent.parameters[1] = { name: 'firm', default: 'Acme' };
  assert.equal(render({ ...agent, instructions: '{{ who }} at {{ firm }}' }).value.rendered, 'Ada at Acme');
  agent.parameters = [];
  // A new object with the same instructions, and the same parameters object changed in place:
  // values, a name added, a name replaced by another (the same number of names).
  const other = { ...agent, instructions: '{{ who }}{{ extra }}' };
  const p = { who: 'Ada' };
  assert.equal(render(other, p).error.parameterName, 'extra');
  p.extra = '!';
  assert.equal(render(other, p).value.rendered, 'Ada!');
  p.who = 'Bob';
  assert.equal(render(other, p).value.rendered, 'Bob!');
  delete p.extra;
  p.unused = 1;
  assert.equal(render(other, p).error.parameterName, 'extra');
  delete p.unused;
  p.extra = '?';
  assert.equal(render(other, p).value.rendered, 'Bob?');
  // A template that does not parse stays a render failure on every call.
  for (let i = 0; i < 2; i++) assert.equal(render({ ...agent, instructions: '{{ who' }).error.code, 'render-failure');
  // The cache is bounded: past its cap it starts over, and every template still renders.
  const cap = __testing.templateCap;
  for (let i = 0; i <= cap; i++) {
    const r = render({ ...agent, instructions: `{{ who }} #${i}` });
    if (i % 1024 === 0 || i === cap) assert.equal(r.value.rendered, `Ada #${i}`);
    assert.ok(__testing.templatesKept() <= cap);
  }
  assert.equal(render({ ...agent, instructions: '{{ who }} #0' }).value.rendered, 'Ada #0');
  assert.ok(__testing.templatesKept() <= cap);
});

test('a render never answers from the values a previous render of the template sent', () => {
  // The native side keeps the last render's plain values per template and the loader sends
  // only what changed; each step changes one thing, by value or inside an object.
  let at = new Date('2026-09-17T15:30:00.000Z');
  const clock = () => at;
  const template =
    '{{ agent.name }}/{{ agent.version }} {{ now }} {{ who }} {{ n }} {{ conversation.turn }} ' +
    '{{ customer.tier }} {{ input.x }} {{ settings["acme.w"].max }}';
  const agent = { id: 'acme.r', name: 'R', version: '1.0.0', instructions: template, parameters: [] };
  const customer = { tier: 'gold' };
  const context = {
    parameters: { who: 'Ada', n: 1, customer },
    conversation: { id: 'c-1', turn: 1 },
    input: { x: 'in' },
    settings: { 'acme.w': { max: 5 } },
    clock,
  };
  const rendered = () => {
    const r = renderInstructions(agent, context);
    return r.ok ? r.value.rendered : `${r.error.code}: ${r.error.message}`;
  };
  assert.equal(rendered(), 'R/1.0.0 2026-09-17T15:30:00.000Z Ada 1 1 gold in 5');
  assert.equal(rendered(), 'R/1.0.0 2026-09-17T15:30:00.000Z Ada 1 1 gold in 5');
  context.parameters.who = 'Bob';
  assert.equal(rendered(), 'R/1.0.0 2026-09-17T15:30:00.000Z Bob 1 1 gold in 5');
  context.parameters.n = '1'; // equal when printed, not the same value
  context.parameters.who = null;
  assert.equal(rendered(), 'R/1.0.0 2026-09-17T15:30:00.000Z  1 1 gold in 5');
  customer.tier = 'silver'; // inside an object the loader cannot compare
  assert.equal(rendered(), 'R/1.0.0 2026-09-17T15:30:00.000Z  1 1 silver in 5');
  agent.version = '1.0.1';
  at = new Date('2026-09-17T15:30:00.001Z');
  assert.equal(rendered(), 'R/1.0.1 2026-09-17T15:30:00.001Z  1 1 silver in 5');
  context.conversation = { id: 'c-1', turn: 2 };
  context.input.x = 'in2';
  context.settings['acme.w'].max = 6;
  assert.equal(rendered(), 'R/1.0.1 2026-09-17T15:30:00.001Z  1 2 silver in2 6');
  // Auto-variables and parameters that go away are gone on the next render.
  delete context.input;
  assert.equal(rendered(), 'missing-parameter: Template references an unresolved variable: input');
  context.input = { x: 'back' };
  delete context.conversation;
  assert.equal(rendered(), 'missing-parameter: Template references an unresolved variable: conversation');
  context.conversation = { id: 'c-2', turn: 2 };
  delete context.parameters.n;
  assert.equal(rendered(), 'missing-parameter: Template references an unresolved variable: n');
  context.parameters.n = 1;
  // A declared parameter appears, then gets a default, then is supplied.
  agent.parameters = [{ name: 'firm' }];
  assert.equal(rendered(), 'missing-parameter: Required parameter missing: firm');
  agent.parameters = [{ name: 'firm', default: 'Acme' }];
  assert.equal(rendered(), 'R/1.0.1 2026-09-17T15:30:00.001Z  1 2 silver back 6');
  // A call that throws part-way (a value JSON cannot carry) leaves no stale values behind.
  context.parameters.who = 10n;
  assert.throws(() => renderInstructions(agent, context), (e) => e.code === 'invalid-argument');
  context.parameters.who = 'Eve';
  assert.equal(rendered(), 'R/1.0.1 2026-09-17T15:30:00.001Z Eve 1 2 silver back 6');
  // Input and settings, compared by their JSON text: reused when equal, gone when absent,
  // and never reused from a text too long to keep.
  const onlyInput = { ...agent, instructions: '{{ input.x | size }}', parameters: [] };
  const turn = { parameters: {}, input: { x: 'a' }, clock };
  const size = () => {
    const r = renderInstructions(onlyInput, turn);
    return r.ok ? r.value.rendered : r.error.message;
  };
  assert.equal(size(), '1');
  assert.equal(size(), '1');
  turn.input.x = 'ab';
  assert.equal(size(), '2');
  delete turn.input;
  assert.equal(size(), 'Template references an unresolved variable: input');
  assert.equal(size(), 'Template references an unresolved variable: input');
  turn.input = { x: 'é'.repeat(30000) }; // 60 KB of UTF-8 in 30,000 UTF-16 units
  assert.equal(size(), '30000');
  assert.equal(size(), '30000');
  turn.input = { x: 'x'.repeat(70000) };
  assert.equal(size(), '70000');
  assert.equal(size(), '70000');
  delete turn.input;
  assert.equal(size(), 'Template references an unresolved variable: input');
  turn.input = { x: 'abc' };
  assert.equal(size(), '3');
  // Every step answered as a fresh render of the same values would (a new template text each).
  const fresh = renderInstructions({ ...agent, instructions: `${template} ` }, context);
  assert.equal(fresh.value.rendered, `${rendered()} `);
});

test('a render sends only the parts of objects it reads, and sees every change to them', () => {
  // The loader sends `customer.name`, not `customer`, when the template reads nothing else of
  // it (`CompiledTemplate::read_paths`), and compares what it reads with what it sent last.
  const clock = () => new Date('2026-09-17T15:30:00.000Z');
  const big = {};
  for (let i = 0; i < 500; i++) big[`k${i}`] = { i, text: 'x'.repeat(50) };
  const customer = { name: 'Ada', tags: ['a', 'b'], profile: { tier: 'gold', since: 2020 }, big };
  const input = { ticket: { subject: 'Refund', priority: 2 }, big };
  const context = { parameters: { customer }, input, settings: { 'acme.w': { max: 5, big } }, clock };
  const agentOf = (instructions) => ({ id: 'acme.p', name: 'P', version: '1.0.0', instructions, parameters: [] });
  const rendered = (agent) => {
    const r = renderInstructions(agent, context);
    return r.ok ? r.value.rendered : `${r.error.code}: ${r.error.message}`;
  };
  const leaves = agentOf(
    '{{ customer.name }} {{ customer.tags | join: "," }} {{ customer.profile.tier }} ' +
      '{{ input.ticket.subject }} {{ settings["acme.w"].max }} {{ customer.profile.size }}',
  );
  assert.equal(rendered(leaves), 'Ada a,b gold Refund 5 2');
  assert.equal(rendered(leaves), 'Ada a,b gold Refund 5 2');
  customer.tags.push('c'); // inside an array, in place
  assert.equal(rendered(leaves), 'Ada a,b,c gold Refund 5 2');
  customer.profile.tier = 'silver'; // deep inside an object
  assert.equal(rendered(leaves), 'Ada a,b,c silver Refund 5 2');
  customer.profile.extra = true; // a key the template counts (`size`)
  assert.equal(rendered(leaves), 'Ada a,b,c silver Refund 5 3');
  input.ticket.subject = 'Late';
  context.settings['acme.w'].max = 6;
  assert.equal(rendered(leaves), 'Ada a,b,c silver Late 6 3');
  // A key that goes away, a value that is no object any more, an object with toJSON.
  delete customer.name;
  assert.equal(rendered(leaves), 'missing-parameter: Template references an unresolved variable: customer.name');
  customer.name = 'Bo';
  customer.profile = { toJSON: () => ({ tier: 'json', a: 1 }) };
  assert.equal(rendered(leaves), 'Bo a,b,c json Late 6 2');
  customer.profile = 'flat';
  assert.equal(
    rendered(leaves),
    'missing-parameter: Template references an unresolved variable: customer.profile.tier',
  );
  customer.profile = { tier: 'gold', since: 2020 };
  // An inherited or non-enumerable property is no more sent than JSON sends it.
  Object.defineProperty(customer, 'hidden', { value: 'h', enumerable: false });
  const proto = Object.create({ name: 'inherited' });
  const seen = agentOf('{{ customer.hidden }}{{ p.name }}');
  const r = renderInstructions(seen, { ...context, parameters: { customer, p: proto } });
  assert.equal(r.error.message, 'Template references an unresolved variable: customer.hidden');
  // A name the template binds anywhere is sent whole: here the assign never runs, so the
  // second read is of the global.
  const bound = agentOf('{{ customer.name }}{% if false %}{% assign customer = 1 %}{% endif %}/{{ customer.profile.tier }}');
  assert.equal(rendered(bound), 'Bo/gold');
  // Values read whole that cannot be compared (other prototypes, too large) cross whole
  // whenever anything crosses, in their places, even when only the clock changed.
  class Box {
    constructor(v) {
      this.v = v;
    }
  }
  let at = new Date('2026-09-17T15:30:00.000Z');
  const many = Array.from({ length: 100 }, (_, i) => i);
  const opaque = agentOf('{{ now }} {{ box | json }} {{ input.box | json }} {{ many | size }} {{ settings.s.box.v }}');
  const turn = {
    parameters: { box: new Box(1), many },
    input: { box: new Box(2) },
    settings: { s: { box: new Box(3) } },
    clock: () => at,
  };
  const once = () => renderInstructions(opaque, turn).value.rendered;
  assert.equal(once(), '2026-09-17T15:30:00.000Z {"v":1} {"v":2} 100 3');
  at = new Date('2026-09-17T15:30:01.000Z');
  assert.equal(once(), '2026-09-17T15:30:01.000Z {"v":1} {"v":2} 100 3');
  turn.input.box.v = 20;
  many.push(100);
  assert.equal(once(), '2026-09-17T15:30:01.000Z {"v":1} {"v":20} 101 3');
  // Every one of these answers as a fresh render of the same values would.
  for (const agent of [leaves, bound]) {
    const fresh = agentOf(`${agent.instructions} `);
    assert.equal(rendered(fresh), `${rendered(agent)} `);
  }
});

test('a value read whole that changes in its middle, grows past what is compared and shrinks back', () => {
  // The walk compares what it reads with the last render's list as it goes (no list of its
  // own until the first difference): a difference deep inside a value, a value that becomes
  // too large to compare halfway through (the walk goes back to its start) and one that
  // fits again must each cross.
  const clock = () => new Date('2026-09-17T15:30:00.000Z');
  const list = Array.from({ length: 10 }, (_, i) => ({ i }));
  const context = { parameters: { list, tail: 'end' }, clock };
  const agent = { id: 'acme.w', name: 'W', version: '1.0.0', instructions: '{{ list | json }}|{{ tail }}', parameters: [] };
  const expected = () => `${JSON.stringify(list)}|${context.parameters.tail}`;
  const once = () => renderInstructions(agent, context).value.rendered;
  assert.equal(once(), expected());
  assert.equal(once(), expected());
  list[5].i = 'changed'; // in the middle of the value
  assert.equal(once(), expected());
  for (let i = 10; i < 70; i++) list.push({ i }); // past what is compared: crosses whole
  assert.equal(once(), expected());
  list[65].i = 'late';
  assert.equal(once(), expected());
  list.length = 10; // compared again
  assert.equal(once(), expected());
  list[9].i = 'last';
  context.parameters.tail = 'after';
  assert.equal(once(), expected());
  assert.equal(once(), expected());
  list.pop(); // a shorter list: the walk ends before the last one did
  assert.equal(once(), expected());
  list.push({ i: 9 }, { i: 10 }); // a longer one
  assert.equal(once(), expected());
  // Equal up to an item that cannot be compared (another prototype): the walk goes back to
  // the value's start and lists it as one opaque value.
  class Item {
    constructor(i) {
      this.i = i;
    }
  }
  list[list.length - 1] = new Item('boxed');
  assert.equal(once(), expected());
  list[0].i = 'first';
  assert.equal(once(), expected());
  list[list.length - 1] = { i: 'plain again' };
  assert.equal(once(), expected());
});

test('an input whose JSON is nothing is no input; a sort of mixed values answers as LiquidJS', () => {
  // Found by a differential fuzzer: the payload's `{"value": …}` lost its value and the
  // native side refused it; and Rust's sort panicked on JavaScript's inconsistent `<`.
  const agent = (instructions) => ({ id: 'acme.i', name: 'I', version: '1.0.0', instructions, parameters: [] });
  const noJson = { toJSON: () => undefined };
  for (const t of ['hi{% if input %}yes{% endif %}', 'hi{% if input %}yes{% endif %}{% if false %}{{ [k] }}{% endif %}']) {
    // Values cross as JSON, so it answers as a turn without input (strict: unresolved).
    const r = renderInstructions(agent(t), { parameters: {}, input: noJson });
    const without = renderInstructions(agent(t), { parameters: {} });
    assert.deepEqual(r.error, without.error);
    assert.equal(r.error.message, 'Template references an unresolved variable: input');
  }
  const list = [2, 2, 'a', 'a', 1, 'a', 'a', 1, 2, 1, 'a', 1, 'a', 'a', 'a', 'a', 'a', 1, 2, 'a', 'a'];
  const sorted = renderInstructions(agent('{{ list | sort | json }}'), { parameters: { list } });
  assert.equal(sorted.value.rendered, '[2,2,"a","a",1,"a","a",1,1,2,"a",1,"a","a","a","a","a",1,2,"a","a"]');
});

test('generated templates and in-place changes: a reused template answers as one that sends every value whole', () => {
  // A seeded generator of templates over nested paths (`size`, `first`, indexes, loops,
  // conditional assigns, `json`) and of contexts changed in place between renders. The
  // oracle is the same template behind a computed name that never runs
  // (`{% if false %}{{ [k] }}{% endif %}`), which makes the loader send every value whole
  // and fresh each time.
  let seed = 7;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const roots = ['a', 'b', 'input', 'settings'];
  const keys = ['x', 'y', 'size', 'first', '0', 'toJSON'];
  const path = () => {
    let p = pick(roots);
    for (let n = Math.floor(rnd() * 3); n > 0; n--) {
      const k = pick(keys);
      p += rnd() < 0.3 ? `["${k}"]` : /^\d/.test(k) ? `[${k}]` : `.${k}`;
    }
    return p;
  };
  const template = () =>
    Array.from({ length: 1 + Math.floor(rnd() * 3) }, () =>
      pick([
        () => `{{ ${path()} }}`,
        () => `{{ ${path()} | json }}`,
        () => `{% for i in ${path()} %}{{ i }}{% endfor %}`,
        () => `{% if false %}{% assign ${pick(roots)} = 1 %}{% endif %}{{ ${path()} }}`,
        () => `{{ ${path()} | size }}`,
      ])(),
    ).join('|');
  const value = (depth = 0) => {
    const r = rnd();
    if (depth > 2 || r < 0.35) return pick([1, 'ab', null, true, '', undefined]);
    if (r < 0.5) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(depth + 1));
    if (r < 0.55) return { toJSON: () => ({ x: 'tj' }) };
    if (r < 0.6) return Object.assign(Object.create(null), { x: value(depth + 1) });
    const o = {};
    for (let n = Math.floor(rnd() * 4); n > 0; n--) o[pick(['x', 'y', 'size', 'first', '0'])] = value(depth + 1);
    return o;
  };
  const mutate = (ctx) => {
    let o = pick([ctx.parameters, ctx.input, ctx.settings]);
    for (let i = 0; i < 3 && o && typeof o === 'object' && typeof o.toJSON !== 'function'; i++) {
      const ks = Object.keys(o);
      if (ks.length === 0 || rnd() < 0.4) break;
      const next = o[pick(ks)];
      if (!next || typeof next !== 'object') break;
      o = next;
    }
    if (!o || typeof o !== 'object' || typeof o.toJSON === 'function') return;
    if (Array.isArray(o)) {
      if (rnd() < 0.5) o.push(value(2));
      else o.pop();
    } else if (rnd() < 0.6) o[pick(['x', 'y', 'size', 'first', '0'])] = value(1);
    else delete o[pick(Object.keys(o).concat('x'))];
    if (rnd() < 0.05) ctx.input = rnd() < 0.5 ? undefined : value();
  };
  const answer = (agent, ctx) => {
    const r = renderInstructions(agent, ctx);
    return r.ok ? `ok ${r.value.rendered}` : `${r.error.code} ${r.error.message}`;
  };
  let renders = 0;
  for (let t = 0; t < 400; t++) {
    const instructions = template();
    const agent = { id: 'acme.g', name: 'G', version: '1.0.0', instructions, parameters: [] };
    const ctx = {
      parameters: { a: value(), b: value() },
      input: rnd() < 0.7 ? value() : undefined,
      settings: { x: value(1), y: value(1) },
      clock: () => new Date(1e12),
    };
    for (let step = 0; step < 10; step++) {
      const whole = { ...agent, instructions: `{% if false %}{{ [k${t}s${step}] }}{% endif %}${instructions}` };
      assert.equal(answer(agent, ctx), answer(whole, ctx), `template ${JSON.stringify(instructions)}, step ${step}`);
      renders++;
      mutate(ctx);
    }
  }
  assert.equal(renders, 4000);
});

test('a render reached from inside another answers for itself and leaves the outer one intact', () => {
  const clock = () => new Date('2026-09-17T15:30:00.000Z');
  const inner = { id: 'acme.i', name: 'I', version: '1.0.0', instructions: 'inner {{ x }}', parameters: [] };
  const outer = { id: 'acme.o', name: 'O', version: '1.0.0', instructions: '{{ a }} / {{ b.v }}', parameters: [] };
  let n = 0;
  const parameters = {
    a: 1,
    b: {
      // Read while the outer render's values are sent: renders the inner template, and the
      // outer template itself, with other values.
      get v() {
        n++;
        const same = renderInstructions(outer, { parameters: { a: 'nested', b: { v: 'n' } }, clock });
        assert.equal(same.value.rendered, 'nested / n');
        return renderInstructions(inner, { parameters: { x: n }, clock }).value.rendered;
      },
    },
  };
  assert.equal(renderInstructions(outer, { parameters, clock }).value.rendered, '1 / inner 1');
  parameters.a = 2;
  assert.equal(renderInstructions(outer, { parameters, clock }).value.rendered, '2 / inner 2');
  assert.equal(renderInstructions(outer, { parameters: { a: 3, b: { v: 'plain' } }, clock }).value.rendered, '3 / plain');
});

test('computed names after whitespace control or a tag name, loose declared fields, a __proto__ parameter', () => {
  const clock = () => new Date(1e12);
  const A = (instructions, parameters = []) => ({ id: 'a', name: 'A', version: '1', instructions, parameters });
  const out = (r) => (r.ok ? r.value.rendered : `${r.error.code}: ${r.error.message}`);
  for (const [t, p, want] of [
    ['{%- assign k = "fo" | append: "o" -%}{{-[k]-}}', { foo: 'X' }, 'X'],
    ['{%assign k="fo"|append:"o"%}{%if[k]%}Y{%else%}N{%endif%}', { foo: 'X' }, 'Y'],
    ['{%assign k="fo"|append:"o"%}{%echo[k]%}', { foo: 'X' }, 'X'],
    ['{%assign k="fo"|append:"o"%}{%for x in[k]%}{{x}}{%endfor%}', { foo: [1, 2] }, '12'],
    ['{%- assign k = "age" | append: "nt" -%}{{-[k].name-}}', {}, 'A'],
    ['{%- assign k = "to" | append: "day" -%}{{-[k]-}}', {}, '2001-09-09'],
    // A tag keyword right after whitespace control, then a computed name.
    ['{%assign k="fo"|append:"o"-%}{%-echo[k]-%}', { foo: 'X' }, 'X'],
    ['{%assign k="fo"|append:"o"-%}{%-if[k]-%}Y{%-else-%}N{%-endif-%}', { foo: 'X' }, 'Y'],
    ['{%assign k="fo"|append:"o"-%}{%-unless[k]-%}N{%-else-%}Y{%-endunless-%}', { foo: 'X' }, 'Y'],
    ['{%assign k="fo"|append:"o"-%}{%-case[k]-%}{%-when "X"-%}Y{%-endcase-%}', { foo: 'X' }, 'Y'],
    ['{%assign k="fo"|append:"o"-%}{%-cycle[k]-%}', { foo: 'X' }, 'X'],
  ]) {
    assert.equal(out(renderInstructions(A(t), { parameters: p, clock })), want, t);
  }
  // Upstream reads `required !== false` and the name as a key.
  assert.equal(out(renderInstructions(A('x', [{ name: 'p', required: 0 }]), { parameters: {}, clock })), 'missing-parameter: Required parameter missing: p');
  assert.equal(out(renderInstructions(A('x', [{ name: 5, required: false }]), { parameters: {}, clock })), 'x');
  assert.equal(out(renderInstructions(A('{{ [k] }}', [{ name: 'p', required: 'no' }]), { parameters: { k: 'p', p: 1 }, clock })), '1');
  // A non-enumerable own property is not supplied (upstream's spread does not copy it), in
  // the same way whether or not the text names the parameter.
  const hidden = Object.defineProperty({}, 'p', { value: 1, enumerable: false });
  assert.equal(out(renderInstructions(A('x', [{ name: 'p' }]), { parameters: hidden, clock })), 'missing-parameter: Required parameter missing: p');
  assert.equal(out(renderInstructions(A('{{ p }}', [{ name: 'p' }]), { parameters: hidden, clock })), 'missing-parameter: Required parameter missing: p');
  const optional = [{ name: 'p', required: false }];
  assert.equal(out(renderInstructions(A('x', optional), { parameters: hidden, clock })), 'x');
  // A `__proto__` key is a key.
  const P = JSON.parse('{"__proto__":"P"}');
  assert.equal(out(renderInstructions(A('x', [{ name: '__proto__' }]), { parameters: P, clock })), 'x');
});

test('what a render may read by a name its text does not hold is sent whole', () => {
  const clock = () => new Date('2026-01-02T03:04:05Z');
  const A = (instructions, parameters = []) => ({ id: 'a.b', name: 'Ann', version: '1.0.0', instructions, parameters });
  const out = (r) => (r.ok ? r.value.rendered : `${r.error.code}: ${r.error.message}`);
  for (const [t, ctx, want] of [
    ['{% if not[k] %}no{% else %}yes{% endif %}', { parameters: { k: 'secret', secret: 1 } }, 'yes'],
    // An expression filter's string decodes escapes: the name read is not in the text.
    ['{{ l | where_exp: "i", "i == \\u0073ecret" | join }}', { parameters: { l: [1, 2, 3], secret: 2 } }, '2'],
    ['{{ l | where_exp: "i", "i == \\u0061gent.name" | join }}', { parameters: { l: ['Ann', 'x'] } }, 'Ann'],
    ['{{ l | where_exp: "i", "i == \\u0074oday" | join }}', { parameters: { l: ['2026-01-02'] } }, '2026-01-02'],
    ['{{ l | where_exp: "i", "i == \\u0069nput" | join }}', { parameters: { l: ['q'] }, input: 'q' }, 'q'],
    ['{%include[k]%}', { parameters: { k: 'zz', zz: 'five' } }, 'render-failure: Template render failed: ENOENT: Failed to lookup "five" in ".", line:1, col:1'],
    // A name that is not a string fails LiquidJS's lookup (LiquidJS 10.30.1's answer).
    ['{%include[k]%}', { parameters: { k: 'zz', zz: 5 } }, 'render-failure: Template render failed: referencedFile.startsWith is not a function, line:1, col:1'],
    // A parameter named toJSON is a name, not the parameters' serializer.
    ['{{ [k] }}', { parameters: { k: 'a', a: 1, toJSON: () => ({ a: 2 }) } }, '1'],
    ['{{ a }}{% comment %}toJSON{% endcomment %}', { parameters: { a: 1, toJSON: () => ({ a: 2 }) } }, '1'],
    // A quoted root's escapes are decoded: the name read is not in the text.
    ['{{ ["\\u0061"] }}', { parameters: { a: 1 } }, '1'],
    ['{{ ["c\\ustomer"].name }}', { parameters: { customer: { name: 'Dana' } } }, 'Dana'],
    ['{{ ["\\u0069nput"].q }}', { parameters: {}, input: { q: 'yes' } }, 'yes'],
  ]) {
    assert.equal(out(renderInstructions(A(t), { ...ctx, clock })), want, t);
  }
});

test('a getter is read once per render, so the next render of the template is not stale', () => {
  const A = (instructions, parameters = []) => ({ id: 'a.b', name: 'Ann', version: '1.0.0', instructions, parameters });
  const out = (r) => (r.ok ? r.value.rendered : `${r.error.code}: ${r.error.message}`);
  let n = 0;
  const odd = { get id() { n++; return n === 2 ? 'x' : 'y'; }, turn: 0 };
  assert.equal(out(renderInstructions(A('c={{ conversation.id }}'), { parameters: {}, conversation: odd })), 'c=y');
  assert.equal(out(renderInstructions(A('c={{ conversation.id }}'), { parameters: {}, conversation: { id: 'y', turn: 0 } })), 'c=y');
  let d = 0;
  const declared = [{ name: 'x', get default() { d++; return d === 1 ? 'A' : 'B'; } }];
  const first = renderInstructions(A('d={{ x }}', declared), { parameters: {} });
  assert.equal(out(first), 'd=A');
  assert.equal(first.value.context.x, 'A');
  assert.equal(out(renderInstructions(A('d={{ x }}', [{ name: 'x', default: 'A' }]), { parameters: {} })), 'd=A');
  let p = 0;
  const supplied = { get x() { p++; return p === 1 ? 'v' : undefined; } };
  assert.equal(out(renderInstructions(A('hello', [{ name: 'x' }]), { parameters: supplied })), 'hello');
  assert.equal(out(renderInstructions(A('hello', [{ name: 'x' }]), { parameters: { x: 'v' } })), 'hello');
  // A template that does not parse reads nothing: what it cannot read is never serialized,
  // and its required parameters are checked first, as before Liquid runs.
  for (const parameters of [{ big: 1n }, { a: 1n }, { a: 1, b: 1n }]) {
    const bad = renderInstructions(A('{{ a '), { parameters });
    assert.equal(bad.ok, false);
    assert.equal(bad.error.code, 'render-failure');
  }
  assert.equal(out(renderInstructions(A('{{ a ', [{ name: 'x' }]), { parameters: {} })), 'missing-parameter: Required parameter missing: x');
  // Values cross as JSON: a function or symbol is absent, named in the text or not.
  for (const t of ['hello', '{{ x }}']) {
    for (const x of [() => 1, Symbol('s')]) {
      assert.equal(out(renderInstructions(A(t, [{ name: 'x' }]), { parameters: { x } })), 'missing-parameter: Required parameter missing: x', t);
      assert.equal(out(renderInstructions(A(t, [{ name: 'x', default: x }]), { parameters: {} })), 'missing-parameter: Required parameter missing: x', t);
    }
  }
  assert.equal(out(renderInstructions(A('hello'), { parameters: {}, input: () => 1 })), 'hello');
  // A caller's error is relabelled whatever its code.
  const coded = { get a() { throw Object.assign(new Error('disk'), { code: 'ENOENT' }); } };
  assert.throws(() => renderInstructions(A('{{ x.a }}'), { parameters: { x: coded } }), { code: 'invalid-argument', message: /disk/ });
  // Argument errors keep their order: agent identity before the declared parameters.
  assert.throws(() => renderInstructions({ instructions: 'x', parameters: [null] }, { parameters: {} }), { code: 'invalid-argument', message: /agent\.id/ });
  assert.throws(() => renderInstructions(A('x'), { parameters: {}, clock: 1, settings: 2 }), { code: 'invalid-argument', message: /context\.clock/ });
  const sneaky = { turn: 0, get id() { throw new Error('boom'); } };
  assert.throws(() => renderInstructions(A('x'), { parameters: {}, conversation: sneaky }), { code: 'invalid-argument', message: /boom/ });
  // A getter that throws is a misuse error with a code, as JSON failing on it would be.
  const boom = { get a() { throw new Error('boom'); } };
  assert.throws(() => renderInstructions(A('{{ x.a }}'), { parameters: { x: boom } }), { code: 'invalid-argument', message: /boom/ });
  assert.throws(() => renderInstructions(A('{{ x }}'), { parameters: { get x() { throw new Error('boom'); } } }), { code: 'invalid-argument', message: /boom/ });
});

test('objects render in JavaScript key order, as JSON.stringify lists them', () => {
  const o = { b: 1, a: { y: 1, x: 2 }, 10: 3, 2: 4, '01': 5 };
  const agent = {
    id: 'acme.order',
    name: 'Order',
    version: '1.0.0',
    instructions: '{{ o | json }}|{% for kv in o %}{{ kv[0] }},{% endfor %}',
    parameters: [{ name: 'o' }],
  };
  const result = renderInstructions(agent, { parameters: { o }, clock: () => new Date(0) });
  assert.equal(result.ok, true, JSON.stringify(result));
  assert.equal(result.value.rendered, `${JSON.stringify(o)}|2,10,b,a,01,`);
  assert.deepStrictEqual(Object.keys(result.value.context.o), ['2', '10', 'b', 'a', '01']);
});
