//! runstart: validate Kindgi pack indexes, resolve npm-style tool ranges, route capability
//! declarations to providers and prepare agent runs — the parts of the Kindgi agent runtime
//! that sit on the hot path of a deploy and of every run start.
//!
//! The upstream runtime is TypeScript; runstart gives the same answers (npm `semver` 7.8,
//! LiquidJS 10.30 with `strictVariables`/`strictFilters`, Ajv 8 strict mode, the upstream
//! router), checked by conformance suites against the real peers' recorded answers.
//!
//! # The data flow
//!
//! Data moves one way, and no module reaches back up the chain:
//!
//! ```text
//! bytes ──► index (typed model, canonical form)
//!             │
//!             ▼
//!       compiled parts: range · template · schema · flow · catalog · route snapshots
//!             │
//!             ▼
//!       one compiled pack: tools, blocks and agents pinned (validation and registration alike)
//!             │
//!             ▼
//!       answers: validate reports · route decisions · run plans · protocol checks
//! ```
//!
//! Deploy validation ([`validate::validate_index`]) and run registration
//! ([`run::RunStart::register_pack`]) compile a pack through one internal step, so every
//! problem registration refuses a pack for is reported by validation with the same code,
//! instance path and message.
//!
//! Everything is compiled once and answered many times: a [`range::Range`], a
//! [`template::CompiledTemplate`], a [`schema::CompiledSchema`] and a
//! [`route::RouteSnapshot`] never look at their source text again, and a [`run::RunStart`]
//! holds them all for every tenant.
//!
//! # Which type to hold for what
//!
//! | you want to… | hold | start at |
//! | --- | --- | --- |
//! | check a pack index at deploy time | a [`diagnostics::Report`] | [`validate::validate_index`] |
//! | read an index into types | [`index::PackIndex`] | [`index::load`] |
//! | resolve a tool reference's npm range | [`range::Range`], [`catalog::Catalog`] | [`range::Range::parse`] |
//! | pick the highest of many versions again and again | [`range::VersionList`] | [`range::Range::max_satisfying_in`] |
//! | check or render a Liquid template | [`template::CompiledTemplate`] | [`template::CompiledTemplate::parse`] |
//! | validate JSON against a schema the Ajv way | [`schema::CompiledSchema`] | [`schema::CompiledSchema::compile`] |
//! | check a flow's graph | the issues of [`flow::validate_flow`] | [`flow`] |
//! | route a capability to a provider | [`route::RouteSnapshot`] | [`route::route`] (per call) |
//! | prepare runs from many threads | [`run::RunStart`] | [`run::RunStart::prepare`] |
//! | speak pack protocol v2 to a pack service | [`protocol::Deployment`] | [`protocol::parse_message`] |
//! | read a policy or request with errors that name the field | the wire types | [`input`] |
//!
//! # The modules, one by one
//!
//! **[`diagnostics`]** — [`Issue`](diagnostics::Issue) and [`Report`](diagnostics::Report): what
//! every check finds, as plain data. An issue has a severity, a stable
//! [`IssueCode`](diagnostics::IssueCode), an RFC 6901 `instancePath` and a message; issues from
//! schemas also carry Ajv's `schemaPath`, `keyword` and `params`. Checks never stop at the first
//! problem.
//!
//! ```
//! use runstart::diagnostics::{Issue, IssueCode, Report};
//!
//! let mut report = Report::new();
//! report.push(Issue::error(IssueCode::EnvelopeVersion, "/v", "Index envelope v2 is not v1"));
//! assert_eq!(report.error_count(), 1);
//! assert_eq!(report.issues()[0].code().as_str(), "envelope-version");
//! ```
//!
//! **[`index`]** — the pack index (envelope `v: 1`): [`index::load`] turns bytes into a typed
//! [`index::PackIndex`] and reports every problem on the way (UTF-8, JSON syntax with line and
//! column, size caps, entry shapes). An entry it cannot type (a wrong shape, or a flow the
//! flow checks refuse) is kept in [`index::PackIndex::rejected`] with its issues, never
//! dropped; [`index::index_hash`] is the hash a deployment signs.
//!
//! **[`validate`]** — deploy-time validation: load, then every rule over every entry (agents,
//! tool references, guardrails, templates, output schemas, flows, blocks, env, determinism), in
//! parallel, into one sorted [`Report`](diagnostics::Report).
//!
//! ```
//! use runstart::validate::{ValidateOptions, validate_index};
//!
//! let report = validate_index(br#"{"v": 2}"#, &ValidateOptions::new());
//! assert_eq!(report.issues()[0].code().as_str(), "envelope-version");
//! ```
//!
//! **[`range`]** — npm semver ranges (not Cargo's): tilde, caret, x-ranges, hyphen ranges,
//! `||`, and npm's prerelease rule; [`catalog`] keeps each tool id's versions sorted once and
//! resolves a reference to the highest active version that satisfies it.
//!
//! ```
//! use runstart::range::{Range, parse_version};
//!
//! let range = Range::parse("^1.2").unwrap();
//! let versions: Vec<_> = ["1.1.0", "1.4.0", "2.0.0"].into_iter().filter_map(parse_version).collect();
//! assert_eq!(range.max_satisfying(&versions).unwrap().to_string(), "1.4.0");
//! ```
//!
//! **[`template`]** — Liquid in the LiquidJS dialect: parse once, list the global variables a
//! template reads (static analysis, so a deploy refuses an unknown variable), render strictly.
//!
//! ```
//! use runstart::template::CompiledTemplate;
//!
//! let t = CompiledTemplate::parse("Hello {{ user.name | upcase }}").unwrap();
//! let rendered = t.render(&serde_json::json!({"user": {"name": "ada"}})).unwrap();
//! assert_eq!(rendered, "Hello ADA");
//! ```
//!
//! **[`schema`]** — JSON Schema compiled and evaluated the way Ajv 8 strict mode does, with
//! Ajv's messages and error lists.
//!
//! ```
//! use runstart::schema::CompiledSchema;
//!
//! let schema = CompiledSchema::compile(&serde_json::json!({"type": "integer", "minimum": 1})).unwrap();
//! assert!(schema.is_valid(&serde_json::json!(3)));
//! assert_eq!(schema.errors(&serde_json::json!(0))[0].message, "must be >= 1");
//! ```
//!
//! **[`flow`]** — the flow model and all 17 graph rules of upstream's loader (with petgraph),
//! plus reachability warnings, every violation in one pass.
//!
//! **[`route`]** — capability routing under tenant policy: [`route::route`] per call, or a
//! [`route::RouteSnapshot`] compiled once per tenant's providers; every rejected tuple is
//! explained ([`route::explain`]).
//!
//! **[`run`]** — run start: [`run::RunStart`] registers packs and providers per tenant (a full
//! compile, published atomically) and [`run::RunStart::prepare`] answers a
//! [`run::RunRequest`] with a plan (tool and block versions, guardrails, route, rendered
//! instructions) from any number of threads without locks.
//!
//! **[`protocol`]** — pack protocol v2: typed messages and their parsing, the `/v1/info` check
//! of a pack service against its deployment, idempotency keys, call contexts.
//!
//! **[`input`]** — reading the JSON that steers a route or a plan; unknown fields are refused
//! with the JSON Pointer of the offending value and a "did you mean".
//!
//! The command-line tool (`runstart validate`, `resolve`, `route`, `plan`, `template`, `fmt`,
//! `protocol`) and the Node.js binding (`bindings/node`) are thin layers over these modules:
//! they parse arguments or convert JS values, and print.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(
    missing_debug_implementations,
    clippy::print_stdout,
    clippy::print_stderr
)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod catalog;
pub mod diagnostics;
pub mod flow;
pub mod index;
pub mod input;
mod js;
mod json_integer;
mod pack;

pub mod protocol;
pub mod range;
pub mod route;
pub mod run;
pub mod schema;
pub mod template;
pub mod validate;
mod version_index;

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
