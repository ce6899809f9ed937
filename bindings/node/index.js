'use strict';
// runstart for Node.js: loads the native addon (a packaged `.node` file or a local cargo
// build) and shapes its answers as upstream's TypeScript functions return them.
//
// The addon receives requests as JSON text and answers decisions as numbers; this file maps
// those back to the caller's own objects, builds upstream's result unions and checks
// argument types, so that misuse throws an Error with `code: 'invalid-argument'` before
// anything crosses into Rust.

const fs = require('node:fs');
const path = require('node:path');

// ---------------------------------------------------------------------------------------
// Loading the addon

function libraryFileName() {
  switch (process.platform) {
    case 'win32':
      return 'runstart_node.dll';
    case 'darwin':
      return 'librunstart_node.dylib';
    default:
      return 'librunstart_node.so';
  }
}

/** Where the addon is: `RUNSTART_NODE_LIBRARY`, a packaged `.node`, or `target/{release,debug}`. */
function findLibrary() {
  const explicit = process.env.RUNSTART_NODE_LIBRARY;
  if (explicit) return explicit;
  const packaged = [
    path.join(__dirname, `runstart.${process.platform}-${process.arch}.node`),
    path.join(__dirname, 'runstart.node'),
  ];
  for (const file of packaged) if (fs.existsSync(file)) return file;
  // A local build: the most recently built of release and debug.
  const target = process.env.CARGO_TARGET_DIR || path.join(__dirname, '..', '..', 'target');
  const built = ['release', 'debug']
    .map((profile) => path.join(target, profile, libraryFileName()))
    .filter((file) => fs.existsSync(file))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  if (built.length > 0) return built[0];
  const error = new Error(
    `runstart: the native addon is not built (looked for ${packaged.join(', ')} and ` +
      `${path.join(target, '{release,debug}', libraryFileName())}); build it with ` +
      '`cargo build --release -p runstart-node` from the repository root, or set RUNSTART_NODE_LIBRARY',
  );
  error.code = 'addon-not-found';
  throw error;
}

function loadNative() {
  const file = findLibrary();
  const module = { exports: {} };
  // `process.dlopen` takes any file name, so a cargo build loads without copying it to `.node`.
  process.dlopen(module, path.resolve(file));
  return module.exports;
}

const native = loadNative();

// ---------------------------------------------------------------------------------------
// Argument checks

/** The errors this module made, which `coded` passes on as they are. */
const ownErrors = new WeakSet();

function misuse(message) {
  const error = new TypeError(`runstart: ${message}`);
  error.code = 'invalid-argument';
  ownErrors.add(error);
  return error;
}

function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'undefined';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'function') return 'a function';
  return `${typeof value} ${String(value).slice(0, 40)}`;
}

function expectObject(value, what) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw misuse(`${what} must be an object, got ${describe(value)}`);
  }
  return value;
}

function expectString(value, what) {
  if (typeof value !== 'string') throw misuse(`${what} must be a string, got ${describe(value)}`);
  return value;
}

function expectArray(value, what) {
  if (!Array.isArray(value)) throw misuse(`${what} must be an array, got ${describe(value)}`);
  return value;
}

/**
 * `JSON.stringify`, with its failures (cycles, BigInt, strings past V8's limit) as misuse.
 * A number JSON cannot hold (NaN, ±Infinity) is refused at its JSON Pointer: `JSON.stringify`
 * would write `null`, which reads as absent, so a cap of `NaN` (that upstream's comparisons
 * fail closed on) would silently lift the cap. A render context (`finite: false`) is data a
 * template prints, not a decision: there such a number crosses as `null`, as before.
 */
function json(value, what, { finite = true } = {}) {
  let text;
  try {
    text = JSON.stringify(value);
    // NaN and ±Infinity come out as `null`: only text with a `null` needs the walk that
    // tells them from a written `null`.
    if (finite && text !== undefined && text.includes('null')) refuseNonFinite(value, what);
  } catch (e) {
    if (ownErrors.has(e)) throw e;
    throw misuse(`${what} cannot be sent as JSON: ${e && e.message}`);
  }
  if (text === undefined) throw misuse(`${what} cannot be sent as JSON`);
  return text;
}

/** Walks `value` as `JSON.stringify` does and refuses the first NaN or ±Infinity at its JSON Pointer. */
function refuseNonFinite(value, what) {
  const paths = new WeakMap();
  // `this` is the object holding `key`; the first holder is JSON.stringify's own wrapper.
  JSON.stringify(value, function finiteOnly(key, v) {
    const base = paths.get(this);
    const at = base === undefined ? '' : `${base}/${escapePointer(String(key))}`;
    if (typeof v === 'number' && !Number.isFinite(v)) {
      const where = at === '' ? 'the value' : at;
      throw misuse(`${what}: ${where} is ${v}, which JSON cannot hold; give a finite number`);
    }
    if (v !== null && typeof v === 'object') paths.set(v, at);
    return v;
  });
}

/** A JSON Pointer reference token (RFC 6901): `~` as `~0`, `/` as `~1`. */
function escapePointer(token) {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Refuses a field of `value` outside `allowed`: a misspelt `tenantPolicy` would otherwise be
 * dropped and the route taken without the policy (fail open).
 */
function closedFields(value, allowed, what) {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      const own = key === 'providers' ? ' (a RouteTable routes its own providers)' : '';
      throw misuse(
        `${what} has an unknown field "${key}"${own}; expected one of ${allowed.map((k) => `"${k}"`).join(', ')}`,
      );
    }
  }
}

/** A pack index argument: bytes (Buffer, Uint8Array, ArrayBuffer) or its text. */
function indexBytes(value, what) {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) {
    return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  }
  throw misuse(`${what} must be a Buffer, a Uint8Array or a string, got ${describe(value)}`);
}

// ---------------------------------------------------------------------------------------
// Routing (router.md §1.6, §2)

const REQUEST_FIELDS = ['capability', 'tenantPolicy', 'preferredProvider', 'preferredModel'];
const INPUT_FIELDS = ['capability', 'providers', 'tenantPolicy', 'preferredProvider', 'preferredModel'];

/** The request part of a route input, as JSON (`undefined` fields are left out). */
function requestJson(input) {
  return json(
    {
      capability: input.capability,
      tenantPolicy: input.tenantPolicy,
      preferredProvider: input.preferredProvider,
      preferredModel: input.preferredModel,
    },
    'the route request',
  );
}

/**
 * One compiled slice: the native table plus, per tuple in expansion order, a frozen
 * `{provider, model}` pick holding the caller's own objects.
 */
class Compiled {
  constructor(nativeTable, owners, metadata) {
    this.native = nativeTable;
    this.refresh(owners, metadata);
  }

  refresh(owners, metadata) {
    const picks = [];
    for (let i = 0; i < owners.length; i++) {
      const models = metadata[i].models;
      for (let j = 0; j < models.length; j++) {
        picks.push(Object.freeze({ provider: owners[i], model: models[j] }));
      }
    }
    this.picks = picks;
    // Status, fallback flag, candidate count, then every candidate (see src/routing.rs).
    this.out = new Uint32Array(picks.length + 3);
  }

  route(request) {
    const out = this.out;
    const text = this.native.route(request, out);
    if (out[0] === 1) return { kind: 'err', error: JSON.parse(text) };
    const picks = this.picks;
    const n = out[2];
    const top = picks[out[3]];
    const alternates = new Array(n - 1);
    for (let k = 1; k < n; k++) alternates[k - 1] = picks[out[3 + k]];
    return {
      kind: 'ok',
      value: {
        provider: top.provider,
        model: top.model,
        reason: text,
        alternates,
        fallback: out[1] === 1,
      },
    };
  }
}

function checkProviders(providers, what) {
  expectArray(providers, what);
  for (let i = 0; i < providers.length; i++) expectObject(providers[i], `${what}[${i}]`);
  return providers;
}

/** A provider slice compiled once; `route` answers as upstream's `route` would on it. */
class RouteTable {
  #compiled;
  #metadata;

  constructor(providers = [], options = {}) {
    checkProviders(providers, 'providers');
    expectObject(options, 'options');
    const tenantId =
      options.tenantId === undefined ? 'default' : expectString(options.tenantId, 'options.tenantId');
    this.#metadata = providers.slice();
    this.#compiled = new Compiled(
      new native.NativeRouteTable(json(this.#metadata, 'providers'), tenantId),
      this.#metadata,
      this.#metadata,
    );
  }

  /** The providers, in slice order (a copy). */
  get providers() {
    return this.#metadata.slice();
  }

  /** Adds a provider after upstream's registry checks; throws `invalid-provider` or `duplicate-provider`. */
  register(provider) {
    expectObject(provider, 'provider');
    this.#compiled.native.register(json(provider, 'provider'));
    this.#metadata.push(provider);
    this.#compiled.refresh(this.#metadata, this.#metadata);
  }

  /** Removes the provider with this id; whether it was there. */
  unregister(providerId) {
    expectString(providerId, 'providerId');
    const index = this.#compiled.native.unregister(providerId);
    if (index < 0) return false;
    this.#metadata.splice(index, 1);
    this.#compiled.refresh(this.#metadata, this.#metadata);
    return true;
  }

  route(request) {
    expectObject(request, 'request');
    closedFields(request, REQUEST_FIELDS, 'request');
    return this.#compiled.route(requestJson(request));
  }

  /** Every tuple's requirement outcomes and score (`runstart route --explain --format json`). */
  explain(request) {
    expectObject(request, 'request');
    closedFields(request, REQUEST_FIELDS, 'request');
    return JSON.parse(this.#compiled.native.explain(requestJson(request)));
  }
}

// The drop-in `route(input)`: each provider object's metadata is serialized once (keyed by
// object identity); each distinct list of provider objects is compiled once.
const providerEntries = new WeakMap(); // ModelProvider -> { key, json }
let nextProviderKey = 1;
const compiledByArray = new WeakMap(); // providers array -> { members, compiled }
const compiledByKey = new Map(); // "k1,k2,…" -> Compiled, least recently used first
/** Distinct provider lists kept compiled (tenants × registry changes in flight). */
const COMPILED_CACHE_CAP = 64;

function providerEntry(provider, i) {
  let entry = providerEntries.get(provider);
  if (entry === undefined) {
    expectObject(provider, `input.providers[${i}]`);
    expectObject(provider.metadata, `input.providers[${i}].metadata`);
    entry = { key: nextProviderKey++, json: json(provider.metadata, `input.providers[${i}].metadata`) };
    providerEntries.set(provider, entry);
  }
  return entry;
}

function sameMembers(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function compiledFor(providers) {
  const seen = compiledByArray.get(providers);
  if (seen !== undefined && sameMembers(seen.members, providers)) return seen.compiled;
  const entries = new Array(providers.length);
  let key = '';
  for (let i = 0; i < providers.length; i++) {
    entries[i] = providerEntry(providers[i], i);
    key += `${entries[i].key},`;
  }
  let compiled = compiledByKey.get(key);
  if (compiled === undefined) {
    const members = providers.slice();
    const metadata = members.map((p) => p.metadata);
    const text = `[${entries.map((e) => e.json).join(',')}]`;
    compiled = new Compiled(new native.NativeRouteTable(text, 'default'), members, metadata);
    if (compiledByKey.size >= COMPILED_CACHE_CAP) {
      compiledByKey.delete(compiledByKey.keys().next().value);
    }
  } else {
    compiledByKey.delete(key);
  }
  compiledByKey.set(key, compiled);
  compiledByArray.set(providers, { members: providers.slice(), compiled });
  return compiled;
}

/** Upstream's `route(input)`: `value.provider` and the alternates are the caller's provider objects. */
function route(input) {
  expectObject(input, 'input');
  closedFields(input, INPUT_FIELDS, 'input');
  expectArray(input.providers, 'input.providers');
  return compiledFor(input.providers).route(requestJson(input));
}

// ---------------------------------------------------------------------------------------
// Versions (agents.md §1.2)

function pickVersion(available, range) {
  expectArray(available, 'available');
  if (range !== undefined) expectString(range, 'range');
  let versions = available;
  for (let i = 0; i < available.length; i++) {
    // npm's maxSatisfying skips what is not a version string; so does an empty string here.
    if (typeof available[i] !== 'string') {
      versions = available.map((v) => (typeof v === 'string' ? v : ''));
      break;
    }
  }
  const index = native.pickVersion(versions, range);
  if (index >= 0) return { kind: 'ok', version: available[index] };
  return index === -1 ? { kind: 'invalid-range' } : { kind: 'not-satisfiable' };
}

function validRange(range) {
  expectString(range, 'range');
  return native.validRange(range);
}

// ---------------------------------------------------------------------------------------
// Instructions (agents.md §3)

/**
 * What a render uses of `context`, each property read once and checked in this order: the
 * supplied parameters as a plain copy (own enumerable keys in order, as upstream's spread
 * copies them), the clock, the conversation as `{id, turn}`, `settings` and `input` (whose
 * insides the walk of `renderPayload` reads). `declared` is added by `readDeclared`.
 */
function readContext(context) {
  const source = expectObject(context.parameters, 'context.parameters');
  let parameters;
  if (hasOwn.call(source, '__proto__')) {
    // `Object.assign` would take this key as the copy's prototype.
    parameters = {};
    const keys = Object.keys(source);
    for (let i = 0; i < keys.length; i++) put(parameters, keys[i], source[keys[i]]);
  } else {
    // One builtin call, which copies what the spread copies; each store through `put` costs
    // a keyed store, and a spread's copies each get a hidden class of their own in Node 20.
    parameters = Object.assign({}, source);
  }
  const clock = context.clock;
  if (clock !== undefined && typeof clock !== 'function') {
    throw misuse(`context.clock must be a function, got ${describe(clock)}`);
  }
  const c = context.conversation;
  let conversation;
  if (c !== undefined) {
    expectObject(c, 'context.conversation');
    const id = c.id;
    expectString(id, 'context.conversation.id');
    const turn = c.turn;
    if (!Number.isSafeInteger(turn) || turn < 0) {
      throw misuse(`context.conversation.turn must be a turn number, got ${describe(turn)}`);
    }
    conversation = { id, turn };
  }
  const settings = context.settings;
  if (settings !== undefined) expectObject(settings, 'context.settings');
  return { parameters, clock, conversation, settings, input: context.input, declared: undefined };
}

/** The declared parameters as `{name, required, default}`, each field read once. */
function readDeclared(declared) {
  const normalized = new Array(declared.length);
  for (let i = 0; i < declared.length; i++) {
    const p = declared[i];
    if (typeof p !== 'object' || p === null) throw misuse(`declared parameter ${i} must be an object`);
    // Upstream reads `required !== false` and looks the name up as a key.
    normalized[i] = { name: String(p.name), required: p.required !== false, default: p.default };
  }
  return normalized;
}

/**
 * `e` as this module's errors are: one it made as it is; any other (a caller's getter or
 * `toJSON` that threw while the context was read, whatever its `code`) as misuse, as
 * `JSON.stringify` failing on the same value would be.
 */
function coded(e) {
  if (ownErrors.has(e)) return e;
  return misuse(`the render context cannot be sent as JSON: ${e && e.message}`);
}

/**
 * `parameters` without the values JSON leaves out (`absent`), as the pruned payload leaves
 * them out too; a function-valued `toJSON` key would otherwise be the object's serializer
 * instead of a name like any other.
 */
function sendable(parameters) {
  const keys = Object.keys(parameters);
  if (!keys.some((key) => absent(parameters[key]))) return parameters;
  const copy = {};
  for (const key of keys) if (!absent(parameters[key])) put(copy, key, parameters[key]);
  return copy;
}

function renderInstructions(agent, context, prompt) {
  expectObject(agent, 'agent');
  expectObject(context, 'context');
  let template;
  let declared;
  const instructions = prompt === undefined ? agent.instructions : undefined;
  if (prompt !== undefined) {
    expectObject(prompt, 'prompt');
    template = expectString(prompt.template, 'prompt.template');
    declared = prompt.parameters ?? [];
  } else if (typeof instructions === 'string') {
    template = instructions;
    declared = agent.parameters ?? [];
  } else {
    const ref = expectObject(instructions, 'agent.instructions');
    return {
      ok: false,
      error: {
        code: 'render-failure',
        message: `The instructions come from prompt block "${ref.prompt}" (${ref.version}), which wasn't loaded`,
        cause: null,
      },
    };
  }
  expectArray(declared, 'the declared parameters');
  // Every property of the caller's values is read once, here or in the walk of what the
  // template reads, so that a getter cannot make the render, the comparison with the last
  // render and the returned context disagree.
  let view;
  let clock;
  try {
    view = readContext(context);
    clock = view.clock;
  } catch (e) {
    throw coded(e);
  }
  const at = clock === undefined ? new Date() : clock.call(context);
  if (!(at instanceof Date)) throw misuse('context.clock() must return a valid Date');
  const now = isoString(at);
  const identity = { id: agent.id, name: agent.name, version: agent.version };
  expectString(identity.id, 'agent.id');
  expectString(identity.name, 'agent.name');
  expectString(identity.version, 'agent.version');
  try {
    view.declared = readDeclared(declared);
  } catch (e) {
    throw coded(e);
  }
  // A render reached from inside another (a getter or `toJSON` of a value being sent) gets a
  // template of its own, so that it never changes what the outer render is sending against.
  const entry = renderDepth === 0 ? templateEntry(template) : freshEntry(template, false);
  renderDepth++;
  let outcome;
  try {
    let text;
    try {
      const payload = renderPayload(entry, template, view, now, identity);
      text = payload === undefined ? '' : json(payload, 'the render context', { finite: false });
    } catch (e) {
      throw coded(e);
    }
    // The empty text reuses all of the last render's context, `input` and `settings`
    // included; a text equal to the last one would change nothing either.
    const sent = text === entry.sentText ? '' : text;
    outcome = native.renderPrepared(entry.prepared, sent);
    synced(entry, now, identity, view.conversation);
    if (sent !== '') {
      entry.sentText = sent.length <= SENT_TEXT_MAX_LENGTH ? sent : undefined;
      // The native side does not keep a long payload's `input` and `settings`, so the next
      // render sends them again even when it reads the same values.
      if (sent.length > SENT_TEXT_MAX_LENGTH) entry.sentParameters = undefined;
    }
  } catch (e) {
    // Whatever the native side took from this payload, the next render sends everything.
    entry.synced = false;
    entry.sentText = undefined;
    throw e;
  } finally {
    renderDepth--;
    if (!entry.kept) native.releaseTemplate(entry.prepared);
  }
  if (typeof outcome === 'string') {
    return { ok: true, value: { rendered: outcome, context: mergedContext(view, now, identity) } };
  }
  const message = native.renderFailureMessage();
  switch (outcome) {
    case FAILURE_ONE_MISSING:
      return {
        ok: false,
        error: { code: 'missing-parameter', message, parameterName: message.slice(ONE_MISSING_PREFIX.length) },
      };
    case FAILURE_MISSING:
      return { ok: false, error: { code: 'missing-parameter', message } };
    case FAILURE_UNRESOLVED:
      return {
        ok: false,
        error: { code: 'missing-parameter', message, parameterName: message.slice(UNRESOLVED_PREFIX.length) },
      };
    default:
      return { ok: false, error: { code: 'render-failure', message, cause: renderError(message) } };
  }
}

// What `renderPrepared` answers instead of the text when the render fails
// (`FailureKind` in src/render.rs); `renderFailureMessage` then gives upstream's message.
const FAILURE_ONE_MISSING = 1;
const FAILURE_MISSING = 2;
const FAILURE_UNRESOLVED = 3;
const ONE_MISSING_PREFIX = 'Required parameter missing: ';
const UNRESOLVED_PREFIX = 'Template references an unresolved variable: ';

/** The `cause` of a `render-failure`: stands for the template engine's error. */
function renderError(message) {
  // A stack trace of this function would say nothing about the template, and capturing one
  // costs more than the render.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  const cause = new Error(message.replace(/^Template render failed: /, ''));
  Error.stackTraceLimit = limit;
  cause.name = 'RenderError';
  return cause;
}

/**
 * Texts remembered for reuse: at most this many UTF-16 units, so at most
 * `RETAINED_PAYLOAD_MAX_LEN` (64 KiB) of UTF-8, past which the native side does not keep a
 * payload's input and settings (src/render.rs).
 */
const SENT_TEXT_MAX_LENGTH = Math.floor((64 * 1024) / 3);

/** The last clock reading and its ISO text: a clock that repeats its instant is read once. */
let lastInstant = NaN;
let lastIso = '';

/** `date.toISOString()`, remembered for the last instant; misuse for an invalid Date. */
function isoString(date) {
  const t = date.getTime();
  if (t === lastInstant) return lastIso;
  if (Number.isNaN(t)) throw misuse('context.clock() must return a valid Date');
  lastIso = date.toISOString();
  lastInstant = t;
  return lastIso;
}

/**
 * Template text → its entry: the native parsed template (`prepared`), whether the template
 * may read a global its text does not name (`{{ [key] }}`, a partial), whether it names each auto-variable,
 * and which other names occur in its text (filled as names are asked about).
 */
const templateEntries = new Map();
/** Templates kept; past this the map starts over (a bound on memory). */
const TEMPLATE_MAP_CAP = 8192;
/** Longer templates are not kept (past runstart's 256 KiB template cap they do not parse). */
const TEMPLATE_MAP_MAX_LENGTH = 256 * 1024;
/** Names remembered per template (callers with endless distinct parameter names). */
const NAMES_PER_TEMPLATE_CAP = 256;

/** How many renders are in progress on this thread (more than one: a nested render). */
let renderDepth = 0;

function templateEntry(template) {
  let entry = templateEntries.get(template);
  if (entry === undefined) {
    const kept = template.length <= TEMPLATE_MAP_MAX_LENGTH;
    if (kept && templateEntries.size >= TEMPLATE_MAP_CAP) {
      templateEntries.clear();
      native.releaseAllTemplates();
    }
    entry = freshEntry(template, kept);
    if (kept) templateEntries.set(template, entry);
  }
  return entry;
}

/** A new entry with its own native template; `kept` when the map holds it. */
function freshEntry(template, kept) {
  const prepared = native.prepareTemplate(template);
  const answer = JSON.parse(native.templateReadPaths(prepared));
  // A template that does not parse reads nothing (its render answers the parse error after
  // the required-parameter check, which needs only whether each declared parameter is given).
  const parses = answer !== false;
  const reads = parses ? readTrees(answer) : new Map();
  const mayRead = (name) => mayReadGlobal(template, parses, reads, name);
  return {
    /** The native template's number; released with the entry. */
    prepared,
    /** Whether the map keeps it (else it is released after its render). */
    kept,
    // The native analysis has no static read paths when a render may read a global whose
    // name need not appear in the text (a computed name `{{ [k] }}`, an expression filter's
    // string, whose escapes are decoded, a partial tag): then every value is sent whole.
    computed: reads === null,
    /** Root name → what a render reads of it (see `readTrees`); `null`: every root whole. */
    reads,
    inputTree: treeOf(reads, 'input'),
    settingsTree: treeOf(reads, 'settings'),
    /** The `names` list `trees` was made for, and each name's tree. */
    treesFor: undefined,
    trees: undefined,
    // `today` is the first 10 characters of `now`.
    now: mayRead('now') || mayRead('today'),
    agent: mayRead('agent'),
    conversation: mayRead('conversation'),
    input: mayRead('input'),
    settings: mayRead('settings'),
    parses,
    occurs: new Map(),
    /** The last list of supplied names asked about, and those of them that occur. */
    lastKeys: undefined,
    lastNames: undefined,
    // What the native side retains from the last render (`RenderPayload` in
    // src/render.rs); meaningful only while `synced`.
    synced: false,
    /** The declared and supplied parameters' values sent last, when all were plain. */
    sentParameters: undefined,
    /** Candidate of `sentParameters` for the render in flight. */
    pendingParameters: undefined,
    sentNow: '',
    sentAgentId: '',
    sentAgentName: '',
    sentAgentVersion: '',
    /** `undefined` for a turn without a conversation. */
    sentConversationId: undefined,
    sentConversationTurn: undefined,
    /** The last JSON text sent (unless longer than `SENT_TEXT_MAX_LENGTH`). */
    sentText: undefined,
  };
}

/**
 * Whether a render of `template` may read the global `name`: never when it does not parse;
 * else when the text holds it (the way every unquoted name is written) or the native analysis
 * reports it as a root (a quoted root, whose escapes it decodes: `{{ ["\u0061"] }}` reads
 * `a`). With `reads` null the caller sends every value anyway.
 */
function mayReadGlobal(template, parses, reads, name) {
  return parses && (template.includes(name) || (reads !== null && reads.has(name)));
}

/**
 * The native side's read paths (`templateReadPaths`, parsed: root → key paths whose values a
 * render reads whole) as a tree per root: `null` for a value read whole, else a list of
 * `[key, subtree]` pairs. `null` overall when a render may read more than static paths name.
 */
function readTrees(paths) {
  if (paths === null) return null;
  const trees = new Map();
  for (const root of Object.keys(paths)) {
    let tree = [];
    for (const keys of paths[root]) {
      if (keys.length === 0) {
        tree = null;
        break;
      }
      tree = addPath(tree, keys, 0);
    }
    trees.set(root, tree);
  }
  return trees;
}

/** What a render reads of root `name` (`null`: all of it), from `readTrees`' answer. */
function treeOf(reads, name) {
  if (reads === null) return null;
  const tree = reads.get(name);
  return tree === undefined ? null : tree;
}

/** `tree` with the path `keys[from..]` added; a path that ends at a node makes it whole. */
function addPath(tree, keys, from) {
  if (tree === null) return null;
  if (from === keys.length) return null;
  const key = keys[from];
  const pair = tree.find((p) => p[0] === key);
  if (pair === undefined) tree.push([key, addPath([], keys, from + 1)]);
  else pair[1] = addPath(pair[1], keys, from + 1);
  return tree;
}

/** Markers in a render's list of what it read (see `renderPayload`). */
const DESCENT = Symbol('descent');
const ABSENT = Symbol('absent');
const PRESENT = Symbol('present');
const ARRAY = Symbol('array');
const RECORD = Symbol('record');
const OPAQUE = Symbol('opaque');

const isEnumerable = Object.prototype.propertyIsEnumerable;
const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Whether JSON leaves `value` out of an object (`undefined`, a function, a symbol): values
 * cross to the addon as JSON, so such a value is absent there, whether sent whole or pruned.
 */
function absent(value) {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/**
 * Whether the caller supplies parameter `name`: an own enumerable key whose value JSON keeps.
 * Upstream merges parameters with an object spread, which copies only own enumerable keys, so
 * a non-enumerable one counts as missing whether or not the text names it.
 */
function isSupplied(parameters, name) {
  return isEnumerable.call(parameters, name) && !absent(parameters[name]);
}

/**
 * Pushes onto `made` what a render reads of `value` through `tree` (`null`: all of it): the
 * values at the tree's paths, with markers for the objects walked and the keys absent, so
 * that an equal list means an equal pruned value, which `prunedAt` builds from the list
 * alone (so that no property is read twice). A value read whole that the list cannot stand
 * for (an object that may have changed inside) goes to `made.opaque` (the list holds its
 * index there) and clears `made.plain`.
 */
function markOf(value, tree, made) {
  if (tree === null || !isRecord(value)) {
    wholeValue(value, made);
    return;
  }
  made.push(DESCENT);
  for (let i = 0; i < tree.length; i++) {
    const key = tree[i][0];
    if (isEnumerable.call(value, key)) markOf(value[key], tree[i][1], made);
    else made.push(ABSENT);
  }
}

/**
 * The pruned value `markOf` listed from `made[cursor.at]` on, through `tree`: an object on a
 * path holds only the keys the tree names. Advances `cursor.at` past it. `recorder` is the
 * `Recorder` that made the list (it holds the values an `OPAQUE` item stands for).
 */
function prunedAt(made, cursor, tree, recorder) {
  if (made[cursor.at] !== DESCENT) return wholeAt(made, cursor, recorder);
  cursor.at++;
  const out = {};
  for (let i = 0; i < tree.length; i++) {
    if (made[cursor.at] === ABSENT) cursor.at++;
    else put(out, tree[i][0], prunedAt(made, cursor, tree[i][1], recorder));
  }
  return out;
}

/** The value `wholeValue` listed at `made[cursor.at]`; advances `cursor.at` past it. */
function wholeAt(made, cursor, recorder) {
  const token = made[cursor.at++];
  if (token === OPAQUE) return recorder.opaque[made[cursor.at++]];
  if (token === ARRAY) {
    const items = new Array(made[cursor.at++]);
    for (let i = 0; i < items.length; i++) items[i] = wholeAt(made, cursor, recorder);
    return items;
  }
  if (token === RECORD) {
    const n = made[cursor.at++];
    const out = {};
    for (let i = 0; i < n; i++) {
      const key = made[cursor.at++];
      put(out, key, wholeAt(made, cursor, recorder));
    }
    return out;
  }
  return token;
}

/** An object JSON writes as its own enumerable keys, and whose prototype adds none of its own. */
function isRecord(v) {
  if (v === null || typeof v !== 'object' || typeof v.toJSON === 'function') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * A value read whole: pushed onto `made` as it is when plain, and when it is a small tree of
 * plain records and arrays with plain leaves (`orders: [{id: 7, total: 12.5}]`), item by
 * item with its keys in JSON's order; `made.plain` cleared for anything else.
 */
function wholeValue(value, made) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    made.push(value);
    return;
  }
  const start = made.length();
  made.budget = SNAPSHOT_MAX_VALUES;
  if (!snapshot(value, made)) {
    made.truncate(start);
    made.push(OPAQUE);
    made.push(made.opaque.length);
    made.opaque.push(value);
    made.plain = false;
  }
}

/**
 * The flat list a render's walk makes (see `renderPayload`), compared with the last render's
 * list as it is made: while every item equals the last list's item at its place, nothing is
 * stored, and a walk that ends equal to it answers that list itself. At the first difference
 * the equal prefix is copied and the list goes on as a list of its own. A render whose
 * values did not change (the common case) thus allocates no list and compares nothing twice.
 */
class Recorder {
  /** `last`: the last render's list, or `undefined` when there is none to compare with. */
  constructor(last) {
    this.last = last;
    /** While comparing: how many items equal the last list's first ones. */
    this.at = 0;
    /** The list of this walk's own, once it differs from `last` (`null` until then). */
    this.list = last === undefined ? [] : null;
    /** Whether every value listed can be compared (no `OPAQUE` item). */
    this.plain = true;
    /** The values read whole that the list cannot stand for, by their index in the list. */
    this.opaque = [];
    /** Values `snapshot` may still take (see `SNAPSHOT_MAX_VALUES`). */
    this.budget = 0;
  }

  push(item) {
    if (this.list === null) {
      const last = this.last;
      if (this.at < last.length && last[this.at] === item) {
        this.at++;
        return;
      }
      this.list = last.slice(0, this.at);
    }
    this.list.push(item);
  }

  length() {
    return this.list === null ? this.at : this.list.length;
  }

  /** Forgets the items from `n` on. */
  truncate(n) {
    if (this.list === null) this.at = n;
    else this.list.length = n;
  }

  /** Whether the walk listed exactly the last list. */
  same() {
    return this.list === null && this.at === this.last.length;
  }

  /** The list made: the last one when equal to it. */
  made() {
    if (this.list === null) {
      if (this.at === this.last.length) return this.last;
      this.list = this.last.slice(0, this.at);
    }
    return this.list;
  }
}

/** Values (containers and leaves) a value read whole may have and still be compared. */
const SNAPSHOT_MAX_VALUES = 64;

/** Pushes the plain tree `value` onto `made`; false when it is no such tree or too large. */
function snapshot(value, made) {
  if (--made.budget < 0) return false;
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    made.push(value);
    return true;
  }
  if (Array.isArray(value)) {
    if (typeof value.toJSON === 'function' || Object.getPrototypeOf(value) !== Array.prototype) return false;
    made.push(ARRAY);
    made.push(value.length);
    for (let i = 0; i < value.length; i++) if (!snapshot(value[i], made)) return false;
    return true;
  }
  if (!isRecord(value)) return false;
  const keys = Object.keys(value);
  made.push(RECORD);
  made.push(keys.length);
  for (let i = 0; i < keys.length; i++) {
    made.push(keys[i]);
    if (!snapshot(value[keys[i]], made)) return false;
  }
  return true;
}

function occurs(entry, template, name) {
  let yes = entry.occurs.get(name);
  if (yes === undefined) {
    yes = mayReadGlobal(template, entry.parses, entry.reads, name);
    if (entry.occurs.size < NAMES_PER_TEMPLATE_CAP) entry.occurs.set(name, yes);
  }
  return yes;
}

/**
 * Of `keys` (the supplied parameters' names), those that occur in the template. The entry
 * remembers its answer for the last list of names, which callers mostly repeat (the same
 * parameters every turn), so that a repeated list costs one comparison per name.
 */
function namesToSend(entry, template, keys) {
  const last = entry.lastKeys;
  if (last !== undefined && last.length === keys.length) {
    let same = true;
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] !== last[i]) {
        same = false;
        break;
      }
    }
    if (same) return entry.lastNames;
  }
  const names = keys.filter((name) => occurs(entry, template, name));
  entry.lastKeys = keys;
  entry.lastNames = names;
  return names;
}

/**
 * What the render needs, as upstream's merged context would give it, less what the native
 * side retains from this template's last render (`RenderPayload` in src/render.rs): `undefined`
 * when nothing changed. A render reads a global only through a name written in the template
 * (unless the native analysis finds no static read paths, see `freshEntry`), so supplied values and auto-variables whose names do not
 * occur in the text are left out; a declared parameter that does not occur is sent only as
 * present or absent, which is all the missing-parameter check reads. Of a value the template
 * reads only through static paths (`entry.reads`), only those paths are sent (`markOf`, `prunedAt`).
 * What is sent is compared with what was sent last through a flat list of the plain values
 * read; an object read whole is sent every time, since it may have changed inside (the
 * caller then compares the text). The tests replay every conformance template this way.
 */
function renderPayload(entry, template, view, now, identity) {
  const { parameters, declared } = view;
  if (entry.computed) {
    entry.pendingParameters = undefined;
    return {
      declared,
      parameters: sendable(parameters),
      now,
      agent: identity,
      conversation: view.conversation ?? null,
      input: absent(view.input) ? undefined : { value: view.input },
      settings: view.settings,
    };
  }
  const synced = entry.synced;
  let payload;
  const reads = entry.reads;
  const names = namesToSend(entry, template, Object.keys(parameters));
  // What this render reads, as a flat list (the parameters' names, then each value read,
  // with markers for the shape of what was walked), compared with the last render's.
  const made = new Recorder(synced ? entry.sentParameters : undefined);
  made.push(names);
  const starts = new Array(names.length);
  if (entry.treesFor !== names) {
    entry.treesFor = names;
    entry.trees = names.map((name) => treeOf(reads, name));
  }
  const trees = entry.trees;
  for (let i = 0; i < names.length; i++) {
    starts[i] = made.length();
    markOf(parameters[names[i]], trees[i], made);
  }
  const declaredNamed = new Array(declared.length);
  for (let i = 0; i < declared.length; i++) {
    const p = declared[i];
    const named = occurs(entry, template, p.name);
    declaredNamed[i] = named;
    const d = p.default;
    if (named && d !== null && (typeof d === 'object' || typeof d === 'function')) made.plain = false;
    made.push(p.name);
    made.push(p.required);
    made.push(named ? d : absent(d));
    made.push(named || isSupplied(parameters, p.name));
  }
  const input = entry.input ? view.input : undefined;
  let inputAt = -1;
  if (entry.input) {
    if (absent(input)) made.push(ABSENT);
    else {
      made.push(PRESENT);
      inputAt = made.length();
      markOf(input, entry.inputTree, made);
    }
  }
  const settings = entry.settings ? view.settings : undefined;
  let settingsAt = -1;
  if (entry.settings) {
    if (settings === undefined) made.push(ABSENT);
    else {
      made.push(PRESENT);
      settingsAt = made.length();
      markOf(settings, entry.settingsTree, made);
    }
  }
  const cursor = { at: 0 };
  const same = made.same();
  const list = made.made();
  entry.pendingParameters = made.plain ? list : undefined;
  if (!same) {
    const sent = {};
    for (let i = 0; i < names.length; i++) {
      cursor.at = starts[i];
      const value = prunedAt(list, cursor, trees[i], made);
      // As `sendable` leaves them out of the whole payload.
      if (!absent(value)) put(sent, names[i], value);
    }
    const slim = new Array(declared.length);
    for (let i = 0; i < declared.length; i++) {
      const p = declared[i];
      if (declaredNamed[i]) {
        slim[i] = p;
      } else {
        slim[i] = { name: p.name, required: p.required, default: absent(p.default) ? undefined : null };
        if (isSupplied(parameters, p.name)) put(sent, p.name, null);
      }
    }
    payload = { declared: slim, parameters: sent };
  }
  if (entry.now && !(synced && now === entry.sentNow)) (payload ??= {}).now = now;
  if (
    entry.agent &&
    !(
      synced &&
      identity.id === entry.sentAgentId &&
      identity.name === entry.sentAgentName &&
      identity.version === entry.sentAgentVersion
    )
  ) {
    (payload ??= {}).agent = identity;
  }
  if (entry.conversation) {
    const c = view.conversation;
    const same =
      synced &&
      (c === undefined
        ? entry.sentConversationId === undefined
        : c.id === entry.sentConversationId && c.turn === entry.sentConversationTurn);
    if (!same) (payload ??= {}).conversation = c ?? null;
  }
  // A payload holds this render's `input` and `settings` (the native side drops them when
  // it has none); only no payload at all keeps the last ones.
  if (payload !== undefined) {
    if (inputAt >= 0) {
      cursor.at = inputAt;
      payload.input = { value: prunedAt(list, cursor, entry.inputTree, made) };
    }
    if (settingsAt >= 0) {
      cursor.at = settingsAt;
      payload.settings = prunedAt(list, cursor, entry.settingsTree, made);
    }
  }
  return payload;
}

/** Records what the native side now retains for `entry`, after a render that answered. */
function synced(entry, now, identity, conversation) {
  if (entry.computed) return;
  entry.synced = true;
  entry.sentParameters = entry.pendingParameters;
  entry.sentNow = now;
  entry.sentAgentId = identity.id;
  entry.sentAgentName = identity.name;
  entry.sentAgentVersion = identity.version;
  entry.sentConversationId = conversation === undefined ? undefined : conversation.id;
  entry.sentConversationTurn = conversation === undefined ? undefined : conversation.turn;
}

function put(object, key, value) {
  if (key === '__proto__') {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

/**
 * The context upstream renders against and returns: defaults, parameters, auto-variables.
 * Without a default it is `view.parameters` itself, completed: that is this render's own
 * copy, which nothing reads after the render, and copying it again would cost an eighth of
 * the call.
 */
function mergedContext(view, now, identity) {
  const declared = view.declared;
  let values = view.parameters;
  if (declared.some((p) => p.default !== undefined)) {
    // As upstream's spread merges: own enumerable keys in order, each a key of the copy (a
    // `__proto__` key too, which an assignment would take as the prototype).
    values = {};
    for (const p of declared) if (p.default !== undefined) put(values, p.name, p.default);
    const parameters = view.parameters;
    const keys = Object.keys(parameters);
    for (let i = 0; i < keys.length; i++) put(values, keys[i], parameters[keys[i]]);
  }
  values.today = now.slice(0, 10);
  values.now = now;
  values.agent = identity;
  // `view.conversation` is this render's own `{id, turn}` (see `readContext`).
  if (view.conversation !== undefined) values.conversation = view.conversation;
  if (view.input !== undefined) values.input = view.input;
  if (view.settings !== undefined) values.settings = view.settings;
  return values;
}

// ---------------------------------------------------------------------------------------
// Pack indexes (flows.md §3)

function canonicalOption(options, what) {
  if (options === undefined) return undefined;
  expectObject(options, what);
  const check = options.checkCanonicalForm;
  if (check !== undefined && typeof check !== 'boolean') {
    throw misuse(`${what}.checkCanonicalForm must be a boolean, got ${describe(check)}`);
  }
  return check;
}

/** Validates off the JavaScript thread; misuse rejects the promise. */
function validateIndex(index, options) {
  try {
    const input = indexBytes(index, 'index');
    const check = canonicalOption(options, 'options');
    return native.validateIndex(input, check).then(JSON.parse);
  } catch (e) {
    return Promise.reject(e);
  }
}

function validateIndexSync(index, options) {
  const input = indexBytes(index, 'index');
  return JSON.parse(native.validateIndexSync(input, canonicalOption(options, 'options')));
}

function indexHash(index) {
  return native.indexHash(indexBytes(index, 'index'));
}

// ---------------------------------------------------------------------------------------
// Run start (agents.md §1.4, §3, §4.4)

const ATTACH = Symbol('attach');

class RunStart {
  #native;

  constructor(token, shareId) {
    this.#native = new native.NativeRunStart(token === ATTACH ? shareId : undefined);
  }

  /** The same registry as the `RunStart` whose `shareId` this is, from any thread of the process. */
  static attach(shareId) {
    if (!Number.isInteger(shareId) || shareId < 0 || shareId > 0xffffffff) {
      throw misuse(`shareId must be an integer from RunStart#shareId, got ${describe(shareId)}`);
    }
    return new RunStart(ATTACH, shareId);
  }

  /** Names this registry for `RunStart.attach` (e.g. in a worker thread). */
  get shareId() {
    return this.#native.shareId;
  }

  registerPack(tenantId, index) {
    expectString(tenantId, 'tenantId');
    const input =
      typeof index === 'object' && index !== null && !ArrayBuffer.isView(index) && !(index instanceof ArrayBuffer)
        ? json(index, 'index')
        : indexBytes(index, 'index');
    this.#native.registerPack(tenantId, input);
  }

  /** Takes `ProviderMetadata`, or a `ModelProvider` (its `metadata` is registered). */
  registerProvider(tenantId, provider) {
    expectString(tenantId, 'tenantId');
    expectObject(provider, 'provider');
    const metadata =
      typeof provider.metadata === 'object' && provider.metadata !== null ? provider.metadata : provider;
    this.#native.registerProvider(tenantId, json(metadata, 'provider'));
  }

  unregisterProvider(tenantId, providerId) {
    return this.#native.unregisterProvider(expectString(tenantId, 'tenantId'), expectString(providerId, 'providerId'));
  }

  setTenantPolicy(tenantId, policy) {
    expectString(tenantId, 'tenantId');
    if (policy !== undefined && policy !== null) expectObject(policy, 'policy');
    this.#native.setTenantPolicy(tenantId, policy == null ? undefined : json(policy, 'policy'));
  }

  retireTool(tenantId, toolId, version) {
    return this.#native.retireTool(
      expectString(tenantId, 'tenantId'),
      expectString(toolId, 'toolId'),
      expectString(version, 'version'),
    );
  }

  removeTool(tenantId, toolId, version) {
    return this.#native.removeTool(
      expectString(tenantId, 'tenantId'),
      expectString(toolId, 'toolId'),
      expectString(version, 'version'),
    );
  }

  /** `{kind: 'ok', value: plan}` or `{kind: 'err', error}`; `now` defaults to the clock. */
  prepare(request) {
    expectObject(request, 'request');
    const full = request.now === undefined ? { ...request, now: new Date().toISOString() } : request;
    return JSON.parse(this.#native.prepare(json(full, 'request')));
  }
}

module.exports = {
  RouteTable,
  route,
  pickVersion,
  validRange,
  renderInstructions,
  validateIndex,
  validateIndexSync,
  indexHash,
  RunStart,
  /** Test hooks, not part of the API: force a panic inside the addon. */
  __testing: {
    armPanic: (skip) => native.armPanicForTest(skip),
    panic: () => native.panicForTest(),
    libraryPath: findLibrary,
    /** How many templates the loader keeps parsed (bounded by `TEMPLATE_MAP_CAP`). */
    templatesKept: () => templateEntries.size,
    templateCap: TEMPLATE_MAP_CAP,
  },
};
