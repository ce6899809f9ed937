//! Deploy-time validation of a pack index: every rule, every issue, one pass.
//!
//! [`validate_index`] loads the bytes (see [`crate::index::load`]) and then runs each check
//! module over the document and the typed model, collecting every issue into one
//! [`Report`], sorted in the documented order (by instance path, then code).

mod confusable;
mod determinism;
mod entries;
mod env;
mod guardrail;
mod published;
mod refs;
mod templates;
pub use published::PublishedTools;

pub use templates::{MAX_ISSUES_PER_REPORT, MAX_ISSUES_PER_TEMPLATE};

use crate::diagnostics::{Issue, Report};
use crate::index::{self, Limits};
use crate::pack::{AgentIssues, AgentRules};
use crate::pack::{AgentRef, CompiledPack, Deployed, NothingDeployed, PackAgent, PackBlock};
use crate::schema::SchemaCache;
use published::CatalogTools;
use rayon::prelude::*;
use serde::Deserialize;

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
    let (loaded, agent_shape_failed) = index::load_for_validation(bytes, &options.limits);
    let mut report = loaded.report;
    if let (Some(text), Some(document), Some(index)) =
        (loaded.text, loaded.document.as_ref(), loaded.index.as_ref())
    {
        // The whole-file checks are sequential; run them beside the per-entry checks.
        let (file_issues, entry_issues) = rayon::join(
            || {
                let mut file = Report::new();
                if !options.skip_canonical_check {
                    determinism::check_canonical(text, document, &mut file);
                }
                determinism::check_sorted(document, &mut file);
                determinism::check_duplicates(document, &mut file);
                confusable::check_confusable_ids(document, &mut file);
                env::check_env(document, &mut file);
                entries::check_module_paths(document, &mut file);
                file
            },
            || check_entries(document, index, &agent_shape_failed, options),
        );
        report.extend(file_issues.into_issues());
        report.extend(entry_issues);
    }
    index::release(loaded.document, loaded.index);
    report.finish()
}

/// Every per-entry check, entries in parallel. Each group keeps its entries' order, and the
/// report is sorted at the end, so the output does not depend on the thread count.
///
/// The pack is compiled as registration compiles it ([`CompiledPack::compile_parts`], then
/// [`CompiledPack::compile_agent`] for each agent as it is checked, so compiled agents do not
/// pile up), and its issues are reported as they are; the checks here add upstream's entry
/// rules and the template checks, on the compiled templates. An entry whose shape failed has
/// no typed form, so the compile never saw it: its references and templates are checked from
/// the document, through the compile's resolver. Flows are read from the document.
fn check_entries(
    document: &serde_json::Value,
    index: &index::PackIndex,
    agent_shape_failed: &[bool],
    options: &ValidateOptions,
) -> Vec<Issue> {
    let published = options.published.as_deref().map(PublishedDeployed);
    let deployed: &dyn Deployed = match &published {
        Some(p) => p,
        None => &NothingDeployed,
    };
    let (compiled, compile_issues) = CompiledPack::compile_parts(index, deployed);
    let blocks_by_entry = by_entry(
        index::raw_list(document, "blocks").len(),
        compiled.blocks.iter().map(|b| (b.index, b)),
    );
    // Schemas compile once per process, whatever the number of packs validated.
    let fallback_rules = AgentRules {
        valid_range: &crate::pack::is_range,
        schemas: SchemaCache::global(),
    };
    let cx = EntryContext {
        compiled: &compiled,
        fallback_rules,
        templates: templates::TemplateContext::new(document),
        agent_shape_failed,
    };
    let flow_ctx = crate::flow::FlowContext::of_index(document).with_options(options.flow.clone());
    let groups: [Vec<Vec<Issue>>; 5] = [
        index::raw_list(document, "agents")
            .par_iter()
            .enumerate()
            .map(|(i, agent)| cx.agent_issues(i, agent))
            .collect(),
        index::raw_list(document, "blocks")
            .par_iter()
            .enumerate()
            .map(|(i, block)| cx.block_issues(i, block, blocks_by_entry.get(i).copied().flatten()))
            .collect(),
        index
            .tools
            .par_iter()
            .map(entries::check_tool_schemas)
            .collect(),
        index
            .guardrails
            .par_iter()
            .map(|g| {
                let mut out = entries::check_guardrail_schema(g);
                guardrail::check_guardrail(g, &crate::route::validate_capability, &mut out);
                out
            })
            .collect(),
        index::raw_list(document, "flows")
            .par_iter()
            .enumerate()
            .map(|(i, flow)| crate::flow::check_index_flow(flow, i, &flow_ctx))
            .collect(),
    ];
    let mut issues: Vec<Issue> = compile_issues;
    issues.extend(groups.into_iter().flatten().flatten());
    templates::cap_template_issues(&mut issues);
    issues
}

/// What the checks of agent and block entries share.
struct EntryContext<'a> {
    /// The pack's tools and blocks compiled, and the resolver its references pin through.
    compiled: &'a CompiledPack<'a>,
    /// The agent rules for an agent the compile did not see (it checks the others).
    fallback_rules: AgentRules<'a>,
    templates: templates::TemplateContext<'a>,
    /// Per agent entry, whether the index shape check found an issue.
    agent_shape_failed: &'a [bool],
}

impl EntryContext<'_> {
    /// Agent entry `/agents/<i>`: compiled as registration compiles it when it types (its
    /// issues reported as they are), then upstream's rules, the references the compile does
    /// not resolve, and the template checks.
    fn agent_issues(&self, i: usize, agent: &serde_json::Value) -> Vec<Issue> {
        let mut out = Vec::new();
        let shape = index::AgentShape::deserialize(agent);
        let typed: Option<PackAgent> = match &shape {
            Ok(shape) => {
                let (compiled_agent, issues) = self
                    .compiled
                    .compile_agent(&AgentRef::of_shape(i, shape, agent));
                out = issues;
                Some(compiled_agent)
            }
            Err(why) => {
                // The shape check's own issues are in the load report, and the agent rules
                // name each wrong parameter or settings reference (what registration refuses
                // the entry with); anything else is serde's.
                if !self.agent_shape_failed.get(i).copied().unwrap_or(false)
                    && index::agent_refusal(agent, i).is_empty()
                {
                    out = index::rejected_entry(agent, "agents", i, Vec::new(), why).issues;
                }
                None
            }
        };
        let shape = shape.as_ref().ok();
        let resolver = &self.compiled.resolver;
        if typed.is_none() {
            out.extend(check_agent(i, agent, &self.fallback_rules));
        }
        refs::check_agent(resolver, i, agent, shape, &mut out);
        let instructions = typed.as_ref().map(|a| a.instructions.as_ref());
        templates::check_agent_template(
            i,
            agent,
            shape,
            instructions,
            resolver,
            &self.templates,
            &mut out,
        );
        out
    }

    /// Block entry `/blocks/<i>` (`typed`: as the compile made it, when it typed): the block
    /// rules and its template's checks.
    fn block_issues(
        &self,
        i: usize,
        block: &serde_json::Value,
        typed: Option<&PackBlock>,
    ) -> Vec<Issue> {
        let mut out = Vec::new();
        // The compile ran the block rules on a typed block.
        if typed.is_none() {
            crate::pack::check_block(
                block,
                &format!("/blocks/{i}"),
                SchemaCache::global(),
                &mut out,
            );
        }
        let template = typed.map(|b| b.template.as_ref());
        templates::check_block_template(i, block, template, &mut out);
        out
    }
}

/// `items` (entry index, item) placed at their entry index in a list of `len`.
fn by_entry<'a, T>(len: usize, items: impl Iterator<Item = (usize, &'a T)>) -> Vec<Option<&'a T>> {
    let mut out = vec![None; len];
    for (i, item) in items {
        if let Some(slot) = out.get_mut(i) {
            *slot = Some(item);
        }
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
