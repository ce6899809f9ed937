// Times the JavaScript peers runstart replaces (npm `semver` 7.8.6, LiquidJS 10.30.1) on the
// shared inputs the criterion benches use, and prints one JSON object: for each workload, the
// median over repetitions of one pass over every input, divided by the number of inputs (ns per
// item). `compare.sh` runs it one workload at a time, each beside the matching criterion bench,
// and prints the ratio table.
//
// Usage: node peers.mjs [--shared DIR] [--seconds N] [--only NAME[,NAME…]]
//   (default: ../../../shared, 3 s a workload, every workload)

import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import semver from 'semver'
import { Liquid } from 'liquidjs'

const here = dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const arg = (name, fallback) => {
  const i = args.indexOf(name)
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback
}
const shared = arg('--shared', join(here, '..', '..', '..', 'shared'))
const seconds = Number(arg('--seconds', '3'))
if (!(seconds > 0)) {
  console.error(`peers: --seconds must be a positive number, got ${arg('--seconds')}`)
  process.exit(2)
}

const jsonl = (rel) =>
  readFileSync(join(shared, rel), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l))

/** Median of `pass()` timings (ns) over repeated passes for about `seconds`, per item. */
function time(items, pass) {
  pass() // warm-up, also checks that the pass runs
  const runs = []
  const deadline = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9))
  while (runs.length < 5 || (process.hrtime.bigint() < deadline && runs.length < 1000)) {
    const start = process.hrtime.bigint()
    pass()
    runs.push(Number(process.hrtime.bigint() - start))
  }
  runs.sort((a, b) => a - b)
  return { nsPerItem: runs[runs.length >> 1] / items, items, passes: runs.length }
}

let sink = 0

// The same selections as benches/resolve.rs and benches/template.rs, read on first use so
// that timing one workload loads only its inputs.
const once = (make) => {
  let value
  return () => (value ??= make())
}
const semverCases = once(() =>
  jsonl('conformance/semver/max-satisfying.jsonl').filter((c) => c.validRange !== null),
)
const preparsed = once(() => ({
  ranges: semverCases().map((c) => new semver.Range(c.range)),
  versions: semverCases().map((c) =>
    c.versions.map((v) => semver.parse(v)).filter((v) => v !== null),
  ),
}))
const templates = once(() => jsonl('conformance/liquid/templates.jsonl').map((r) => r.template))
const engine = new Liquid({ strictVariables: true, strictFilters: true })
const parsedTemplates = once(() => {
  const parsed = []
  for (const t of templates()) {
    try {
      parsed.push(engine.parse(t))
    } catch {
      // a template that does not parse has nothing to render (runstart skips the same ones)
    }
  }
  return parsed
})
const renderContext = once(() =>
  JSON.parse(readFileSync(join(shared, 'conformance/liquid/render-context.json'), 'utf8')),
)

/** Each workload: its name (as `compare.sh` and `peer_table` call it) and how to time it. */
const workloads = {
  range_parse: () =>
    time(semverCases().length, () => {
      for (const c of semverCases()) sink += new semver.Range(c.range).set.length
    }),
  max_satisfying_preparsed: () => {
    const { ranges, versions } = preparsed()
    return time(ranges.length, () => {
      for (let i = 0; i < ranges.length; i++) {
        if (semver.maxSatisfying(versions[i], ranges[i]) !== null) sink++
      }
    })
  },
  max_satisfying_strings: () =>
    time(semverCases().length, () => {
      for (const c of semverCases()) {
        if (semver.maxSatisfying(c.versions, c.range) !== null) sink++
      }
    }),
  liquid_parse: () =>
    time(templates().length, () => {
      for (const t of templates()) {
        try {
          sink += engine.parse(t).length
        } catch {
          sink++
        }
      }
    }),
  liquid_parse_analyze: () =>
    time(templates().length, () => {
      for (const t of templates()) {
        try {
          sink += engine.globalVariableSegmentsSync(engine.parse(t)).length
        } catch {
          sink++
        }
      }
    }),
  liquid_render: () => {
    const parsed = parsedTemplates()
    const context = renderContext()
    return time(parsed.length, () => {
      for (const p of parsed) {
        try {
          sink += engine.renderSync(p, context).length
        } catch {
          sink++
        }
      }
    })
  },
}

const only = arg('--only', Object.keys(workloads).join(',')).split(',')
const unknown = only.filter((name) => !Object.hasOwn(workloads, name))
if (unknown.length > 0) {
  console.error(
    `peers: no workload named ${unknown.join(', ')}; the workloads are ${Object.keys(workloads).join(', ')}`,
  )
  process.exit(2)
}

const out = { node: process.version, semver: '7.8.6', liquidjs: '10.30.1', workloads: {} }
for (const name of only) out.workloads[name] = workloads[name]()
if (sink === 42) console.error('') // keeps `sink` observable
console.log(JSON.stringify(out, null, 2))
