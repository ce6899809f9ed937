//! Deploy-time validation of a pack index: every rule, every issue, one pass.
//!
//! [`validate_index`] loads the bytes (see [`crate::index::load`]) and then runs each check
//! module over the document and the typed model, collecting every issue into one
//! [`Report`], sorted in the documented order (by instance path, then code).

mod builtin_check;
mod confusable;
mod determinism;
mod entries;
mod env;
mod guardrail;
mod published;
mod refs;
mod templates;
mod tool_manifest;
pub use published::PublishedTools;

pub use templates::{MAX_ISSUES_PER_REPORT, MAX_ISSUES_PER_TEMPLATE};

use crate::diagnostics::{Issue, Report};
use crate::index::wire::{Agent, Block, BlockKind, Guardrail, Tool};
use crate::index::{self, Entry, Limits};
use crate::pack::{AgentIssues, AgentRules};
use crate::pack::{AgentRef, CompiledPack, Deployed, NothingDeployed, PackBlock};
use crate::schema::SchemaCache;
use published::CatalogTools;
use rayon::prelude::*;

/// Options for [`validate_index`].
///
/// The defaults match upstream behaviour where upstream has a rule, and report everything
/// else runstart checks beyond upstream.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ValidateOptions {
    published: Option<std::sync::Arc<dyn PublishedTools>>,
    skip_canonical_check: bool,
    limits: Limits,
    flow: crate::flow::FlowOptions,
}

impl ValidateOptions {
    /// Default options: every check on.
    pub fn new() -> ValidateOptions {
        ValidateOptions::default()
    }

    /// Whether to warn (`non-canonical-index`) when the file is not in canonical form.
    /// Default `true`.
    #[must_use]
    pub fn should_check_canonical_form(mut self, yes: bool) -> ValidateOptions {
        self.skip_canonical_check = !yes;
        self
    }

    /// Severities of the flow checks beyond upstream (unknown tool or agent references,
    /// subgraph nodes). Default [`crate::flow::FlowOptions::new`]: errors.
    #[must_use]
    pub fn with_flow_options(mut self, flow: crate::flow::FlowOptions) -> ValidateOptions {
        self.flow = flow;
        self
    }

    /// Tools already published where the pack will deploy: agent tool references resolve
    /// against the pack's own tools and these (as a deploy registers the pack's tools before
    /// it pins agents). Default: none, the pack alone.
    #[must_use]
    pub fn with_catalog<T: Send + Sync + std::fmt::Debug + 'static>(
        mut self,
        catalog: std::sync::Arc<crate::catalog::Catalog<T>>,
        tenant: &str,
    ) -> ValidateOptions {
        self.published = Some(std::sync::Arc::new(CatalogTools::new(catalog, tenant)));
        self
    }

    /// Size limits for hostile input. Default [`Limits::default`].
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> ValidateOptions {
        self.limits = limits;
        self
    }

    /// The size limits in force (see [`ValidateOptions::with_limits`]).
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
}

/// Validates the bytes of a pack index `index.json`.
///
/// Never panics on any input and never stops at the first problem: the report holds every
/// issue found, sorted by instance path then code.
///
/// # Examples
///
/// ```
/// use runstart::validate::{validate_index, ValidateOptions};
///
/// let report = validate_index(b"{\"v\": 2}", &ValidateOptions::new());
/// assert!(report.has_errors());
/// assert_eq!(report.issues()[0].code(), "envelope-version");
/// ```
pub fn validate_index(bytes: &[u8], options: &ValidateOptions) -> Report {
    let (mut loaded, indexable) = index::read(bytes, &options.limits);
    let mut report = std::mem::take(&mut loaded.report);
    if let (true, Some(text), Some(document)) = (indexable, loaded.text, loaded.document.as_ref()) {
        // The checks of the file's text are sequential: run them beside the typing, the
        // whole-pack checks and the per-entry checks.
        let (text_issues, (index, index_issues, pack_issues)) = rayon::join(
            || {
                let mut file = Report::new();
                if !options.skip_canonical_check {
                    determinism::check_canonical(text, document, &mut file);
                }
                env::check_env(document, &mut file);
                file
            },
            || {
                let mut shapes = Report::new();
                let index = index::index_document(document, &mut shapes);
                let heads = index.all_heads();
                let (whole, entries) = rayon::join(
                    || {
                        let mut pack = Report::new();
                        determinism::check_sorted(&heads, &mut pack);
                        confusable::check_confusable_ids(&heads, &mut pack);
                        entries::check_module_paths(&heads, &mut pack);
                        pack.into_issues()
                    },
                    || check_entries(document, &index, &heads, options),
                );
                let mut pack_issues = whole;
                pack_issues.extend(index.warnings.iter().cloned());
                pack_issues.extend(entries);
                (index, shapes, pack_issues)
            },
        );
        report.extend(index_issues.into_issues());
        report.extend(text_issues.into_issues());
        report.extend(pack_issues);
        loaded.index = Some(index);
    }
    index::release(loaded.document, loaded.index);
    report.finish()
}

/// Every per-entry check, entries in parallel. Each group keeps its entries' order, and the
/// report is sorted at the end, so the output does not depend on the thread count.
///
/// The pack is compiled as registration compiles it ([`CompiledPack::compile_parts`], then
/// [`CompiledPack::compile_agent`] for each agent as it is checked, so compiled agents do not
/// pile up), and its issues are reported as they are; the checks here add the guardrail
/// references and the template checks, on the compiled templates. An entry rejected at load
/// has no typed form, so the compile never saw it: its rules, references and templates are
/// checked from its JSON in the document (the shape fallback), through the compile's
/// resolver. A flow typed at load passed every flow check but those of what it names (its
/// warnings are the index's), which run on the typed flow here; a flow rejected at load is
/// checked from its JSON, every check ([`crate::flow::check_index_flow`]).
fn check_entries(
    document: &serde_json::Value,
    index: &index::PackIndex,
    heads: &[index::ListHeads<'_>],
    options: &ValidateOptions,
) -> Vec<Issue> {
    let published = options.published.as_deref().map(PublishedDeployed);
    let deployed: &dyn Deployed = match &published {
        Some(p) => p,
        None => &NothingDeployed,
    };
    let (compiled, compile_issues) = CompiledPack::compile_parts(index, deployed);
    // Schemas compile once per process, whatever the number of packs validated.
    let fallback_rules = AgentRules {
        valid_range: &crate::pack::is_range,
        schemas: SchemaCache::global(),
    };
    let cx = EntryContext {
        document,
        compiled: &compiled,
        blocks_by_entry: by_entry(compiled.blocks.iter().map(|b| (b.index, b))),
        fallback_rules,
        templates: templates::TemplateContext::new(document, index),
    };
    let ids = |list: &'static str| {
        heads
            .iter()
            .filter(move |(l, _)| *l == list)
            .flat_map(|(_, heads)| heads.iter().filter_map(|h| h.id))
    };
    let flow_ctx = crate::flow::FlowContext::new()
        .with_tools(ids("tools"))
        .with_agents(ids("agents"))
        .with_options(options.flow.clone());
    let groups: [Vec<Vec<Issue>>; 5] = [
        index
            .in_file_order(&index.agents, "agents")
            .par_iter()
            .map(|agent| cx.agent_issues(agent))
            .collect(),
        index
            .in_file_order(&index.blocks, "blocks")
            .par_iter()
            .map(|block| cx.block_issues(block))
            .collect(),
        index
            .tools
            .par_iter()
            .map(tool_issues)
            .chain(
                rejected_typed::<Tool>(document, index, "tools")
                    .into_par_iter()
                    .map(|t| {
                        // The compile never saw it, so its version is checked here too.
                        let mut out = tool_issues(&t);
                        if let Err(issue) = crate::pack::tool_version(&t, &index.pack_version) {
                            out.push(*issue);
                        }
                        out
                    }),
            )
            .collect(),
        index
            .guardrails
            .par_iter()
            .chain(rejected_typed::<Guardrail>(document, index, "guardrails").par_iter())
            .map(|g| {
                let mut out = entries::check_guardrail_schema(g);
                guardrail::check_guardrail(g, &crate::route::validate_capability, &mut out);
                out
            })
            .collect(),
        index
            .in_file_order(&index.flows, "flows")
            .par_iter()
            .map(|flow| match flow {
                // Loading ran every other flow check on it (its warnings are the index's).
                Entry::Typed(f) => {
                    crate::flow::check_typed_flow_references(&f.entry, f.index, &flow_ctx)
                }
                Entry::Rejected(r) => index::rejected_json(document, r)
                    .map_or_else(Vec::new, |raw| {
                        crate::flow::check_index_flow(raw, r.index, &flow_ctx)
                    }),
            })
            .collect(),
    ];
    let mut issues: Vec<Issue> = compile_issues;
    issues.extend(groups.into_iter().flatten().flatten());
    templates::cap_template_issues(&mut issues);
    issues
}

/// A tool entry's own issues: the tool-manifest rules, then its schemas and env needs.
fn tool_issues(tool: &index::Indexed<Tool>) -> Vec<Issue> {
    let mut out = tool_manifest::check(tool);
    out.extend(entries::check_tool_schemas(tool));
    out
}

/// The entries of `list` rejected at load only for fields the index does not define, typed
/// without them (see [`index::typed_without_unknown_fields`]).
fn rejected_typed<T: index::FromDocument>(
    document: &serde_json::Value,
    index: &index::PackIndex,
    list: &str,
) -> Vec<index::Indexed<T>> {
    index
        .rejected
        .iter()
        .filter(|r| r.list == list)
        .filter_map(|r| index::typed_without_unknown_fields(document, r))
        .collect()
}

/// What the checks of agent and block entries share.
struct EntryContext<'a> {
    /// The document, read for entries rejected at load.
    document: &'a serde_json::Value,
    /// The pack's tools and blocks compiled, and the resolver its references pin through.
    compiled: &'a CompiledPack<'a>,
    /// The compiled blocks, each at its entry's position in `blocks`.
    blocks_by_entry: Vec<Option<&'a PackBlock>>,
    /// The agent rules for an agent the compile did not see (it checks the others).
    fallback_rules: AgentRules<'a>,
    templates: templates::TemplateContext<'a>,
}

impl EntryContext<'_> {
    /// Agent entry `/agents/<i>`: compiled as registration compiles it when it typed (its
    /// issues reported as they are), else checked from its JSON; then its guardrail
    /// references and its templates.
    fn agent_issues(&self, agent: &Entry<'_, Agent>) -> Vec<Issue> {
        let resolver = &self.compiled.resolver;
        match agent {
            Entry::Typed(a) => {
                let (compiled_agent, mut out) = self.compiled.compile_agent(&AgentRef::of_typed(a));
                refs::check_guardrails(resolver, a.index, &a.entry, &mut out);
                templates::check_agent_template(
                    a.index,
                    templates::AgentTemplateInputs::of_typed(&a.entry),
                    Some(compiled_agent.instructions.as_ref()),
                    resolver,
                    &self.templates,
                    &mut out,
                );
                out
            }
            Entry::Rejected(r) => {
                let Some(raw) = index::rejected_json(self.document, r) else {
                    return Vec::new();
                };
                let mut out = check_agent(r.index, raw, &self.fallback_rules);
                refs::check_rejected_agent(resolver, r.index, raw, &mut out);
                if let Some(inputs) = templates::AgentTemplateInputs::of_json(raw) {
                    templates::check_agent_template(
                        r.index,
                        inputs,
                        None,
                        resolver,
                        &self.templates,
                        &mut out,
                    );
                }
                out
            }
        }
    }

    /// Block entry `/blocks/<i>`: the block rules when the compile did not run them (it
    /// rejected the block at load), and its template's checks.
    fn block_issues(&self, block: &Entry<'_, Block>) -> Vec<Issue> {
        let mut out = Vec::new();
        match block {
            Entry::Typed(b) => {
                let is_prompt = b.entry.kind == BlockKind::Prompt;
                let compiled = self.blocks_by_entry.get(b.index).copied().flatten();
                let template = compiled.map(|b| b.template.as_ref());
                templates::check_block_template(
                    b.index,
                    is_prompt,
                    &b.entry.content,
                    template,
                    &mut out,
                );
            }
            Entry::Rejected(r) => {
                let Some(raw) = index::rejected_json(self.document, r) else {
                    return out;
                };
                let at = format!("/blocks/{}", r.index);
                crate::pack::check_block(raw, &at, SchemaCache::global(), &mut out);
                let is_prompt =
                    raw.get("kind").and_then(serde_json::Value::as_str) == Some("prompt");
                if let Some(content) = raw.get("content") {
                    templates::check_block_template(r.index, is_prompt, content, None, &mut out);
                }
            }
        }
        out
    }
}

/// `items` (entry index, item), each placed at its entry index.
fn by_entry<'a, T>(items: impl Iterator<Item = (usize, &'a T)>) -> Vec<Option<&'a T>> {
    let mut out = Vec::new();
    for (i, item) in items {
        if out.len() <= i {
            out.resize(i + 1, None);
        }
        out[i] = Some(item);
    }
    out
}

/// The caller's published tools, as what a pack deploys beside.
struct PublishedDeployed<'a>(&'a dyn PublishedTools);

impl Deployed for PublishedDeployed<'_> {
    fn tool_versions(&self, id: &str) -> Vec<semver::Version> {
        self.0.versions(id)
    }

    fn blocks(
        &self,
        _: &str,
    ) -> Option<std::sync::Arc<crate::pack::VersionIndex<std::sync::Arc<crate::pack::CompiledBlock>>>>
    {
        None
    }
}

/// The agent rules of `/agents/<i>`, whose shape failed (the compile checks the others), and
/// each of its capability declarations, so one run reports everything.
fn check_agent(i: usize, agent: &serde_json::Value, rules: &AgentRules<'_>) -> Vec<Issue> {
    let Some(obj) = agent.as_object() else {
        return Vec::new();
    };
    let base = format!("/agents/{i}");
    let mut out = AgentIssues::new(&base);
    rules.check(obj, &mut out);
    let mut issues = out.into_issues();
    let caps = obj
        .get("capabilities")
        .and_then(serde_json::Value::as_array);
    for (k, cap) in caps.into_iter().flatten().enumerate() {
        let at = format!("{base}/capabilities/{k}");
        issues.extend(
            crate::route::validate_capability(cap)
                .into_iter()
                .map(|issue| issue.under(&at)),
        );
    }
    issues
}
