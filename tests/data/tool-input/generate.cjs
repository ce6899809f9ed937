// Ajv's answers for tool inputs generated against the fixture packs' tool input schemas, under
// the options of upstream's pack service (handler runtime `compileSchema`, input side):
// Ajv2020 {strict: true, allErrors: true, allowUnionTypes: true, useDefaults: true} plus
// ajv-formats, validating a structuredClone of the input. One JSON object per line, in the
// shape of conformance/ajv/strict-suite.jsonl: {id, pack, tool, version, schema, compile,
// instances: [{data, valid, errors}]}. Run generate.sh (Ajv 8.20.0, ajv-formats 3.0.1).
const fs = require('node:fs');
const path = require('node:path');
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats').default;

const root = path.resolve(__dirname, '../../..');
const packs = ['support-desk', 'order-review'];

// Candidate values: each property of each tool is tried with every one of them.
const POOL = [
  null, true, false, 0, -1, 1, 3, 5.5, 10, 11, 200, 201, 1e6, '', 'ab', 'abc', 'T-12', 'T-x',
  'refund policy', 'ana@acme.example', 'not-an-email', 'open', 'fraud', 'orders',
  'x'.repeat(4001), 'y'.repeat(8001), [], ['a'], ['a', 'a'], ['a', 'b'], [1], {}, { k: 1 },
];

function validator(schema, opts) {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true, ...opts });
  addFormats(ajv);
  return ajv.compile(schema);
}

const lines = [];
for (const pack of packs) {
  const index = JSON.parse(fs.readFileSync(path.join(root, 'fixtures/packs', pack, 'index.json'), 'utf8'));
  for (const tool of index.tools) {
    const schema = tool.input;
    const id = `${pack}:${tool.id}@${tool.version}`;
    let validate;
    try {
      validate = validator(schema, { useDefaults: true });
    } catch (e) {
      lines.push({ id, pack, tool: tool.id, version: tool.version, schema, compile: e.message, instances: [] });
      continue;
    }
    const props = schema.properties ?? {};
    // A base input: for each property, the first pool value its own schema accepts.
    const base = {};
    for (const [name, sub] of Object.entries(props)) {
      const check = validator(sub, { strict: false });
      const pick = POOL.find((v) => check(structuredClone(v)));
      if (pick !== undefined) base[name] = pick;
    }
    const inputs = [base, {}, 'text', null, [], 42];
    for (const name of Object.keys(props)) {
      for (const v of POOL) inputs.push({ ...base, [name]: v });
      const without = { ...base };
      delete without[name];
      inputs.push(without);
    }
    inputs.push({ ...base, extra: 1 }, { ...base, extra: 1, other: 'x' });
    const instances = inputs.map((data) => {
      const candidate = structuredClone(data);
      const valid = validate(candidate);
      const errors = (validate.errors ?? []).map((e) => ({
        instancePath: e.instancePath, schemaPath: e.schemaPath, keyword: e.keyword, params: e.params, message: e.message,
      }));
      return { data, valid, errors };
    });
    lines.push({ id, pack, tool: tool.id, version: tool.version, schema, compile: 'ok', instances });
  }
}
process.stdout.write(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
