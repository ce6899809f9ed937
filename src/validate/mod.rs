//! Deploy-time validation of a pack index: every rule, every issue, one pass.
//!
//! [`validate_index`] loads the bytes (see [`crate::index::load`]) and then runs each check
//! module over the document and the typed model, collecting every issue into one
//! [`Report`], sorted in the documented order (by instance path, then code).

mod agent;
mod block;
mod determinism;
mod entries;
mod env;
mod guardrail;
mod refs;
mod templates;

use crate::diagnostics::{Issue, Report};
use crate::index::{self, Limits};
use crate::schema::SchemaCache;
use agent::{AgentIssues, AgentRules};

/// Options for [`validate_index`].
///
/// The defaults match upstream behaviour where upstream has a rule, and report everything
/// else runstart checks beyond upstream.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ValidateOptions {
    skip_canonical_check: bool,
    limits: Limits,
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

    /// Size limits for hostile input. Default [`Limits::default`].
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> ValidateOptions {
        self.limits = limits;
        self
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
    let loaded = index::load_with(bytes, &options.limits);
    let mut report = loaded.report;
    if let (Some(text), Some(document), Some(index)) =
        (loaded.text, loaded.document.as_ref(), loaded.index.as_ref())
    {
        if !options.skip_canonical_check {
            determinism::check_canonical(text, document, &mut report);
        }
        determinism::check_sorted(document, &mut report);
        determinism::check_duplicates(document, &mut report);
        env::check_env(document, &mut report);
        entries::check_module_paths(document, &mut report);
        entries::check_schemas(index, &mut report);
        let schemas = SchemaCache::new();
        let rules = AgentRules {
            valid_range: &|r: &str| crate::range::Range::parse(r).is_ok(),
            schemas: &schemas,
        };
        check_agents(document, &rules, &mut report);
        let pack_refs = refs::PackRefs::new(index, document);
        for (i, agent) in index::raw_list(document, "agents").iter().enumerate() {
            let mut issues = Vec::new();
            pack_refs.check_agent(i, agent, &mut issues);
            report.extend(issues);
        }
        let mut issues = Vec::new();
        templates::check_templates(document, &pack_refs, &mut issues);
        report.extend(issues);
        for (i, block) in index::raw_list(document, "blocks").iter().enumerate() {
            let mut issues = Vec::new();
            block::check_block(block, &format!("/blocks/{i}"), &rules, &mut issues);
            report.extend(issues);
        }
        for g in &index.guardrails {
            let mut issues = Vec::new();
            guardrail::check_guardrail(g, &crate::route::validate_capability, &mut issues);
            report.extend(issues);
        }
        crate::flow::check_index_flows(document, &crate::flow::FlowOptions::new(), &mut report);
    }
    report.finish()
}

/// The agent rules and each capability declaration, for every agent object in the file
/// (also those whose shape failed, so one run reports everything).
fn check_agents(document: &serde_json::Value, rules: &AgentRules<'_>, report: &mut Report) {
    for (i, agent) in index::raw_list(document, "agents").iter().enumerate() {
        let Some(obj) = agent.as_object() else {
            continue;
        };
        let base = format!("/agents/{i}");
        let mut out = AgentIssues::new(&base);
        rules.check(obj, &mut out);
        report.extend(out.into_issues());
        if let Some(caps) = obj
            .get("capabilities")
            .and_then(serde_json::Value::as_array)
        {
            for (k, cap) in caps.iter().enumerate() {
                let at = format!("{base}/capabilities/{k}");
                report.extend(
                    crate::route::validate_capability(cap)
                        .into_iter()
                        .map(|issue: Issue| issue.under(&at)),
                );
            }
        }
    }
}
