//! What every flow rule is given: the context a flow is checked against (the ids it may name,
//! the severities), and the sink its issues go to.

use crate::diagnostics::{CappedIssues, Severity};
use std::collections::BTreeSet;

/// Where issues are collected: at most [`super::MAX_ISSUES_PER_FLOW`] of each code listed,
/// the rest counted.
pub(crate) type Sink = CappedIssues;

/// Severities of the checks runstart adds beyond upstream.
///
/// # Examples
///
/// ```
/// use runstart::diagnostics::Severity;
/// use runstart::flow::FlowOptions;
///
/// let lenient = FlowOptions::new()
///     .with_unknown_reference_severity(Severity::Warning)
///     .with_subgraph_severity(Severity::Warning);
/// # let _ = lenient;
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct FlowOptions {
    pub(super) unknown_reference: Severity,
    pub(super) subgraph: Severity,
}

impl Default for FlowOptions {
    fn default() -> FlowOptions {
        FlowOptions {
            unknown_reference: Severity::Error,
            subgraph: Severity::Error,
        }
    }
}

impl FlowOptions {
    /// Default options: unknown references and subgraph nodes are errors.
    pub fn new() -> FlowOptions {
        FlowOptions::default()
    }

    /// Severity of `flow-unknown-tool` and `flow-unknown-agent`. Default
    /// [`Severity::Error`]: the run would be refused with `flow-unbound`.
    #[must_use]
    pub fn with_unknown_reference_severity(mut self, severity: Severity) -> FlowOptions {
        self.unknown_reference = severity;
        self
    }

    /// Severity of `flow-unbound` for subgraph nodes. Default [`Severity::Error`]: the
    /// runtime refuses every subgraph node at run start.
    #[must_use]
    pub fn with_subgraph_severity(mut self, severity: Severity) -> FlowOptions {
        self.subgraph = severity;
        self
    }
}

/// What a flow is validated against: the tools and agents it may name, and the options.
///
/// Without [`with_tools`](FlowContext::with_tools) (or
/// [`with_agents`](FlowContext::with_agents)) tool (agent) references are not checked, as
/// upstream's loader does not check them.
///
/// # Examples
///
/// ```
/// use runstart::flow::FlowContext;
///
/// let ctx = FlowContext::new()
///     .with_tools(["acme.echo"])
///     .with_agents(["acme.helper"]);
/// # let _ = ctx;
/// ```
#[derive(Debug, Clone, Default)]
pub struct FlowContext {
    tools: Option<BTreeSet<String>>,
    agents: Option<BTreeSet<String>>,
    pub(super) options: FlowOptions,
}

impl FlowContext {
    /// A context that checks no references, with default options.
    pub fn new() -> FlowContext {
        FlowContext::default()
    }

    /// The tool ids a tool node `ref` or fanout `handler` may name (the pack's tools, plus any
    /// catalog). May be called again to add more. Default: references are not checked.
    #[must_use]
    pub fn with_tools<I, S>(mut self, ids: I) -> FlowContext
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tools
            .get_or_insert_with(BTreeSet::new)
            .extend(ids.into_iter().map(Into::into));
        self
    }

    /// The agent ids an agent node `ref` may name. May be called again to add more. Default:
    /// references are not checked.
    #[must_use]
    pub fn with_agents<I, S>(mut self, ids: I) -> FlowContext
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.agents
            .get_or_insert_with(BTreeSet::new)
            .extend(ids.into_iter().map(Into::into));
        self
    }

    /// Sets the severity options. Default [`FlowOptions::default`].
    #[must_use]
    pub fn with_options(mut self, options: FlowOptions) -> FlowContext {
        self.options = options;
        self
    }

    pub(super) fn knows_tool(&self, id: &str) -> Option<bool> {
        self.tools.as_ref().map(|t| t.contains(id))
    }

    pub(super) fn knows_agent(&self, id: &str) -> Option<bool> {
        self.agents.as_ref().map(|a| a.contains(id))
    }
}
