//! Liquid instruction templates at deploy (agents.md §3, issue "Liquid instruction
//! templates"): every agent's instructions and every prompt block's template must parse in
//! the LiquidJS dialect (strict filters) and read only what the run will provide.

use crate::diagnostics::{CappedIssues, Issue, IssueCode, Severity, more_issues};
use crate::flow::wire::{LoopNode, Node};
use crate::index::wire::{Agent, Instructions, Parameter};
use crate::index::{Entry, PackIndex};
use crate::pack::{BlockContent, CompiledBlock, CompiledInstructions, Resolver, parse_template};
use crate::template::{
    AllowedVariables, CheckIssue, CheckIssueKind, CompiledTemplate, InputPolicy,
};
use serde_json::Value;
use std::collections::HashSet;
use std::sync::Arc;

/// Most issues of one code listed for one template; the rest are counted in one final issue
/// of the same code ("N more issues of this kind"), as compilers do. A template of 256 KiB can
/// name 26,000 unknown variables, and nobody reads past the first screen of them.
pub const MAX_ISSUES_PER_TEMPLATE: usize = 100;
/// Most template-check issues of one code listed in one report (see
/// [`MAX_ISSUES_PER_TEMPLATE`]); the rest are counted in one final issue at `/`.
pub const MAX_ISSUES_PER_REPORT: usize = 1_000;

/// Codes of the template checks, which [`cap_template_issues`] caps per report.
const CHECK_CODES: [IssueCode; 5] = [
    IssueCode::TemplateUnknownVariable,
    IssueCode::TemplateUnknownField,
    IssueCode::TemplateUnknownSettings,
    IssueCode::TemplateInputOutsideFlow,
    IssueCode::TemplatePartial,
];

/// Pushes the issues of one template (`checked`, in source order, each made into an index
/// issue by `locate` only when listed) into `out`, keeping the first
/// [`MAX_ISSUES_PER_TEMPLATE`] of each code and one final issue per code that says how many
/// more there are.
fn push_capped<'c>(
    checked: impl Iterator<Item = &'c CheckIssue>,
    locate: impl Fn(&CheckIssue) -> Issue,
    at: &str,
    out: &mut Vec<Issue>,
) {
    let mut capped = CappedIssues::new(MAX_ISSUES_PER_TEMPLATE);
    for issue in checked {
        let severity = if issue.kind().is_warning() {
            Severity::Warning
        } else {
            Severity::Error
        };
        capped.push_with(issue.code(), severity, || locate(issue));
    }
    out.extend(capped.finish(at, "in this template"));
}

/// Keeps the first [`MAX_ISSUES_PER_REPORT`] template-check issues of each code in `issues`
/// (entry order), with the per-template "more issues" summaries of the templates whose
/// issues are listed, and appends, per code over the cap, one issue at `/` counting the issues
/// neither listed nor counted by a kept summary. Other issues pass through untouched.
pub(crate) fn cap_template_issues(issues: &mut Vec<Issue>) {
    const N: usize = CHECK_CODES.len();
    let (mut listed, mut total, mut covered) = ([0usize; N], [0usize; N], [0usize; N]);
    let mut last_listed = [false; N];
    let mut severities = [Severity::Error; N];
    issues.retain(|issue| {
        let Some(k) = CHECK_CODES.iter().position(|c| *c == issue.code()) else {
            return true;
        };
        severities[k] = issue.severity();
        // A per-template summary stands for the issues it counts.
        let summarized = issue
            .params()
            .get("omitted")
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok());
        match summarized {
            Some(n) => {
                total[k] = total[k].saturating_add(n);
                if last_listed[k] {
                    covered[k] = covered[k].saturating_add(n);
                }
                last_listed[k]
            }
            None => {
                total[k] += 1;
                last_listed[k] = listed[k] < MAX_ISSUES_PER_REPORT;
                if last_listed[k] {
                    listed[k] += 1;
                }
                last_listed[k]
            }
        }
    });
    for (k, code) in CHECK_CODES.iter().enumerate() {
        let omitted = total[k] - listed[k] - covered[k];
        if omitted > 0 {
            issues.push(more_issues(
                severities[k],
                *code,
                "",
                omitted,
                "in this index",
                MAX_ISSUES_PER_REPORT,
            ));
        }
    }
}

/// What the template checks read of one declared parameter.
struct DeclaredParameter<'a> {
    /// Position in its list.
    position: usize,
    name: &'a str,
    has_default: bool,
    /// `required: false`.
    optional: bool,
}

impl<'a> DeclaredParameter<'a> {
    fn of_typed(position: usize, p: &'a Parameter) -> DeclaredParameter<'a> {
        DeclaredParameter {
            position,
            name: &p.name,
            has_default: p.default.is_some(),
            optional: p.required == Some(false),
        }
    }

    /// Read from the entry: `None` without a string name (the agent rules report it).
    fn of_raw(position: usize, p: &'a Value) -> Option<DeclaredParameter<'a>> {
        Some(DeclaredParameter {
            position,
            name: p.get("name")?.as_str()?,
            has_default: p.get("default").is_some(),
            optional: p.get("required") == Some(&Value::Bool(false)),
        })
    }

    /// Neither optional nor defaulted: every run must supply it.
    fn is_required(&self) -> bool {
        !self.optional && !self.has_default
    }
}

/// The parameters of a `parameters` list read from the entry.
fn raw_parameters(list: Option<&Value>) -> Vec<DeclaredParameter<'_>> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, p)| DeclaredParameter::of_raw(i, p))
        .collect()
}

/// What the template checks read of an agent: from its typed form, or, for an agent rejected
/// at load, from its JSON.
pub(crate) struct AgentTemplateInputs<'a> {
    id: &'a str,
    /// Ids of the settings blocks it references.
    settings: Vec<&'a str>,
    /// Inline instructions.
    inline: Option<&'a str>,
    /// The prompt block reference `(id, range)`, when its instructions are one.
    prompt: Option<(&'a str, Option<&'a str>)>,
    parameters: Vec<DeclaredParameter<'a>>,
}

impl<'a> AgentTemplateInputs<'a> {
    pub(crate) fn of_typed(a: &'a Agent) -> AgentTemplateInputs<'a> {
        let (inline, prompt) = match &a.instructions {
            Instructions::Template(source) => (Some(source.as_str()), None),
            Instructions::Prompt(r) => (None, Some((r.prompt.as_str(), Some(r.version.as_str())))),
        };
        AgentTemplateInputs {
            id: &a.id,
            settings: a.settings.iter().flatten().map(|s| s.id.as_str()).collect(),
            inline,
            prompt,
            parameters: a
                .parameters
                .iter()
                .flatten()
                .enumerate()
                .map(|(i, p)| DeclaredParameter::of_typed(i, p))
                .collect(),
        }
    }

    /// Read from the agent's JSON; `None` when that is not an object.
    pub(crate) fn of_json(agent: &'a Value) -> Option<AgentTemplateInputs<'a>> {
        let obj = agent.as_object()?;
        let (inline, prompt) = match obj.get("instructions") {
            Some(Value::String(source)) => (Some(source.as_str()), None),
            Some(Value::Object(r)) => (
                None,
                r.get("prompt")
                    .and_then(Value::as_str)
                    .map(|id| (id, r.get("version").and_then(Value::as_str))),
            ),
            _ => (None, None),
        };
        Some(AgentTemplateInputs {
            id: obj.get("id").and_then(Value::as_str).unwrap_or(""),
            settings: obj
                .get("settings")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|s| s.get("id").and_then(Value::as_str))
                .collect(),
            inline,
            prompt,
            parameters: raw_parameters(obj.get("parameters")),
        })
    }
}

fn parse(source: &str, at: &str, out: &mut Vec<Issue>) -> Option<CompiledTemplate> {
    parse_template(source, at)
        .map_err(|issue| out.push(*issue))
        .ok()
}

/// Turns a check issue into an index issue whose message says where in the template it is.
fn located(issue: &crate::template::CheckIssue, at: &str, prefix: &str) -> Issue {
    let base = issue.to_issue(at);
    let message = format!(
        "{prefix}{} (template line {}, column {})",
        issue.message(),
        issue.line(),
        issue.col()
    );
    Issue::new(base.severity(), issue.code(), at, message)
        .with_param("templateLine", issue.line())
        .with_param("templateColumn", issue.col())
}

/// What the template checks need from the whole index, built once.
pub(crate) struct TemplateContext<'a> {
    /// Agents that run as flow agent steps get `input`; elsewhere reading it is a warning.
    flow_agents: HashSet<&'a str>,
}

impl<'a> TemplateContext<'a> {
    /// The context of `index`, loaded from `document`: the agents of its flows' agent steps,
    /// read from the typed flows and from the JSON of flows rejected at load.
    pub(crate) fn new(document: &'a Value, index: &'a PackIndex) -> TemplateContext<'a> {
        let mut flow_agents: HashSet<&str> = HashSet::new();
        for flow in index.in_file_order(&index.flows, "flows") {
            match flow {
                Entry::Typed(f) => collect_typed_agent_refs(&f.entry.nodes, &mut flow_agents),
                Entry::Rejected(r) => {
                    let nodes =
                        crate::index::rejected_json(document, r).and_then(|f| f.get("nodes"));
                    collect_agent_refs(nodes, &mut flow_agents);
                }
            }
        }
        TemplateContext { flow_agents }
    }
}

/// The template of the block `/blocks/<k>`, when it is a prompt (`is_prompt`) with `content`:
/// it parses, and reads only its own parameters and the auto-variables (settings depend on
/// the agent and are checked there). `compiled`: the template as the pack compile parsed it,
/// for a block the compile saw (it reported a parse failure itself); `None` for a block
/// rejected at load, parsed here.
pub(crate) fn check_block_template(
    k: usize,
    is_prompt: bool,
    content: &Value,
    compiled: Option<Option<&Arc<CompiledTemplate>>>,
    out: &mut Vec<Issue>,
) {
    if !is_prompt {
        return;
    }
    let Some(source) = content.get("template").and_then(Value::as_str) else {
        return;
    };
    if source.trim().is_empty() {
        return; // the block rules report it
    }
    let at = format!("/blocks/{k}/content/template");
    let parsed;
    let t = match compiled {
        Some(Some(t)) => &**t,
        Some(None) => return,
        None => match parse(source, &at, out) {
            Some(t) => {
                parsed = t;
                &parsed
            }
            None => return,
        },
    };
    let params = raw_parameters(content.get("parameters"));
    let allowed = AllowedVariables::new()
        .with_params(params.iter().map(|p| p.name))
        .with_input(InputPolicy::Allowed);
    let checked = t.check(&allowed);
    let kept = checked.iter().filter(|issue| {
        !matches!(
            issue.kind(),
            CheckIssueKind::UnknownSettings | CheckIssueKind::InputOutsideFlow
        )
    });
    push_capped(kept, |issue| located(issue, &at, ""), &at, out);
}

/// The instructions of the agent `/agents/<i>` (`inputs`: what the checks read of it):
/// inline, they parse and read only declared parameters, the auto-variables and the settings
/// blocks the agent references; from a prompt block, the block's settings and `input` reads
/// are checked against this agent.
///
/// `compiled`: what the pack compile made of the instructions, for an agent the compile saw
/// (it reported their problems itself); `None` for an agent rejected at load, whose
/// instructions are parsed and resolved here.
pub(crate) fn check_agent_template(
    i: usize,
    inputs: AgentTemplateInputs<'_>,
    compiled: Option<Option<&CompiledInstructions>>,
    resolver: &Resolver<'_>,
    ctx: &TemplateContext<'_>,
    out: &mut Vec<Issue>,
) {
    let input = if ctx.flow_agents.contains(inputs.id) {
        InputPolicy::Allowed
    } else {
        InputPolicy::Warn
    };
    let at = format!("/agents/{i}/instructions");
    if let Some(source) = inputs.inline.filter(|s| !s.trim().is_empty()) {
        let parsed;
        let t = match compiled {
            Some(Some(CompiledInstructions::Inline(t))) => &**t,
            Some(_) => return,
            None => match parse(source, &at, out) {
                Some(t) => {
                    parsed = t;
                    &parsed
                }
                None => return,
            },
        };
        let allowed = AllowedVariables::new()
            .with_params(inputs.parameters.iter().map(|p| p.name))
            .with_settings(inputs.settings.iter().copied())
            .with_input(input);
        push_capped(
            t.check(&allowed).iter(),
            |issue| located(issue, &at, ""),
            &at,
            out,
        );
        let read: HashSet<&str> = t.global_reads().iter().filter_map(|r| r.root()).collect();
        parameter_use(i, &inputs.parameters, &read, out);
    } else if let Some((block_id, range)) = inputs.prompt {
        let Some(block) = prompt_block(block_id, range, compiled, resolver) else {
            return; // the compile (or the reference check) reported it
        };
        let BlockContent::Prompt {
            template: t,
            params,
        } = &block.content
        else {
            return;
        };
        let allowed = AllowedVariables::new()
            .with_params(params.iter().map(|p| p.name()))
            .with_settings(inputs.settings.iter().copied())
            .with_input(input);
        let version = block.version_text.as_str();
        let prefix = format!("prompt block \"{block_id}\" {version}: ");
        push_capped(
            t.check(&allowed).iter().filter(|i| {
                matches!(
                    i.kind(),
                    CheckIssueKind::UnknownSettings | CheckIssueKind::InputOutsideFlow
                )
            }),
            |issue| located(issue, &at, &prefix),
            &at,
            out,
        );
    }
}

/// The warnings on how the inline instructions of `/agents/<i>` use its parameters (`read`:
/// the variable roots they read): an optional parameter without a default that they read, a
/// required one they never read.
fn parameter_use(
    i: usize,
    parameters: &[DeclaredParameter<'_>],
    read: &HashSet<&str>,
    out: &mut Vec<Issue>,
) {
    for p in parameters.iter().filter(|p| p.optional && !p.has_default) {
        if read.contains(p.name) {
            out.push(Issue::warning(
                IssueCode::OptionalParameterRead,
                format!("/agents/{i}/parameters/{}", p.position),
                format!("optional parameter \"{}\" has no default, but the instructions read it: a run that omits it fails with missing-parameter (a `default` filter does not help); give it a default", p.name),
            ));
        }
    }
    for p in parameters.iter().filter(|p| p.is_required()) {
        if !read.contains(p.name) {
            out.push(Issue::warning(
                IssueCode::UnusedParameter,
                format!("/agents/{i}/parameters/{}", p.position),
                format!("required parameter \"{}\" is never read by the instructions; every run must supply it for nothing — read it, make it optional, or remove it", p.name),
            ));
        }
    }
}

/// The prompt block an agent's instructions `{prompt, version}` pin: the compile's pick, or,
/// for an agent whose shape failed, the compile's resolver's.
fn prompt_block(
    id: &str,
    range: Option<&str>,
    compiled: Option<Option<&CompiledInstructions>>,
    resolver: &Resolver<'_>,
) -> Option<Arc<CompiledBlock>> {
    match compiled {
        Some(Some(CompiledInstructions::Block(b))) => Some(Arc::clone(b)),
        Some(_) => None,
        None => resolver.pick_block_text(id, range?),
    }
}

/// Agent ids of the agent nodes of a typed flow, loop bodies included (iteratively).
fn collect_typed_agent_refs<'a>(nodes: &'a [Node], out: &mut HashSet<&'a str>) {
    let mut stack: Vec<&Node> = nodes.iter().collect();
    while let Some(node) = stack.pop() {
        match node {
            Node::Agent(leaf) => {
                out.insert(&leaf.r#ref);
            }
            Node::Loop(LoopNode::While(l)) => stack.extend(&l.body.nodes),
            Node::Loop(LoopNode::Foreach(l)) => stack.extend(&l.body.nodes),
            Node::Tool(_) | Node::Fanout(_) | Node::Subgraph(_) => {}
        }
    }
}

/// Agent ids of `kind: agent` nodes of a flow's JSON, loop bodies included (iteratively).
fn collect_agent_refs<'a>(nodes: Option<&'a Value>, out: &mut HashSet<&'a str>) {
    let mut stack: Vec<&Value> = nodes
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    while let Some(node) = stack.pop() {
        if node.get("kind").and_then(Value::as_str) == Some("agent")
            && let Some(r) = node.get("ref").and_then(Value::as_str)
        {
            out.insert(r);
        }
        if let Some(body) = node.pointer("/body/nodes").and_then(Value::as_array) {
            stack.extend(body);
        }
    }
}
