//! [`CompiledPack::compile`]: tools, blocks and agents of one pack index, compiled once.

use super::agent_rules::{
    AgentHeadView, InstructionsView, PROMPT_PARAMETERS_MESSAGE, ParameterView,
    guardrail_ref_issues, head_issues, parameter_value_issues, settings_ref_value_issues,
    tool_ref_issues,
};
use super::block_rules::typed_block_issues;
use super::define_agent::{AgentIssues, OpenFields, open_field_issues};
use super::model::{
    BlockContent, BlockRef, CompiledAgent, CompiledBlock, CompiledCapability, InstructionsSource,
    ToolRefC,
};
use super::resolve::{Deployed, Resolver};
use super::rules::{BlockRole, parameters_of, parse_template, tool_version};
use crate::catalog::ToolRange;
use crate::diagnostics::{Issue, IssueCode, Severity};
use crate::index::wire::{Agent, Block, BlockKind, Instructions, Parameter, SettingsRef, ToolRef};
use crate::index::{Indexed, PackIndex, RANGE_MESSAGE};
use crate::range::{Range, is_exact_version, is_plain_version, parse_version};
use crate::route::Capability;
use crate::schema::SchemaCache;
use crate::template::CompiledTemplate;
use rayon::prelude::*;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// Packs with fewer agents (or blocks) than this compile them on the calling thread: a
/// registration of a small pack would spend more on handing work to the pool than on the work.
const PARALLEL_MIN_ENTRIES: usize = 64;

/// One data block of the pack, as compiled.
#[derive(Debug)]
pub(crate) struct PackBlock {
    /// Position in `blocks`.
    pub index: usize,
    /// The block's id.
    pub id: String,
    /// A prompt block's template, when it parses (also when the version does not).
    pub template: Option<Arc<CompiledTemplate>>,
    /// The block ready to register: `None` when its version or template has an issue.
    pub block: Option<Arc<CompiledBlock>>,
}

/// What an agent's instructions compiled to, for deploy validation's template checks.
#[derive(Debug)]
pub(crate) enum CompiledInstructions {
    /// An inline template that parses.
    Inline(Arc<CompiledTemplate>),
    /// The prompt block the reference pins (the pack's or a deployed one).
    Block(Arc<CompiledBlock>),
}

/// One agent of the pack, as compiled.
#[derive(Debug)]
pub(crate) struct PackAgent {
    /// The agent ready to register ([`AgentDraft::finish`]): `None` when any part has an
    /// issue.
    pub agent: Option<AgentDraft>,
    /// Its instructions, when they compile (also when another part does not).
    pub instructions: Option<CompiledInstructions>,
}

/// An agent whose every part compiled and pinned: what registration finishes into a
/// [`CompiledAgent`] (deploy validation, which never runs it, stops here).
#[derive(Debug)]
pub(crate) struct AgentDraft {
    version: semver::Version,
    tools: Vec<(ToolRange, Option<semver::Version>)>,
    instructions: InstructionsSource,
    settings: Vec<BlockRef>,
    model_settings: Option<BlockRef>,
    capabilities: Vec<Capability>,
}

impl AgentDraft {
    /// The agent ready to run: `agent` is the entry this draft was compiled from, whose
    /// identity, tool ids, guardrails and routing hints it carries; its capability
    /// declarations are compiled for routing (with the preferred provider and model, which
    /// apply to `llm-inference` capabilities).
    pub(crate) fn finish(self, agent: &Agent) -> CompiledAgent {
        let tools = agent
            .tools
            .iter()
            .zip(self.tools)
            .map(|(t, (range, pin))| ToolRefC {
                id: Arc::from(t.id.as_str()),
                range_text: Arc::from(t.version.as_str()),
                range,
                pin,
            })
            .collect();
        let capabilities = self
            .capabilities
            .into_iter()
            .map(|c| CompiledCapability {
                kind: Arc::from(c.kind_or_default()),
                capability: crate::route::CompiledCapability::new(
                    c,
                    agent.preferred_provider.clone(),
                    agent.preferred_model.clone(),
                ),
            })
            .collect();
        // The inline template's parameters are read from the entry here, not at compile.
        let instructions = match self.instructions {
            InstructionsSource::Inline { template, .. } => InstructionsSource::Inline {
                template,
                params: parameters_of(agent.parameters.as_deref().unwrap_or_default()),
            },
            block => block,
        };
        CompiledAgent {
            id: Arc::from(agent.id.as_str()),
            version: self.version,
            version_text: Arc::from(agent.version.as_str()),
            agent_value: serde_json::json!({"id": agent.id, "name": agent.name, "version": agent.version}),
            tools,
            guardrails: agent.guardrails.clone().unwrap_or_default().into(),
            instructions,
            settings: self.settings,
            model_settings: self.model_settings,
            capabilities,
            preferred_provider: agent.preferred_provider.clone(),
            preferred_model: agent.preferred_model.clone(),
        }
    }
}

/// A pack index compiled: every typed entry with its parts parsed and its references pinned.
///
/// Made by [`CompiledPack::compile`]; registration publishes it into a tenant, deploy
/// validation reports its issues and checks its templates.
pub(crate) struct CompiledPack<'a> {
    /// Each typed tool's version (its own or the pack's), in list order; `None` when it does
    /// not parse (its issue was reported). Registration makes its tool records from these.
    pub tool_versions: Vec<Option<semver::Version>>,
    /// Every typed block, in list order.
    pub blocks: Vec<PackBlock>,
    /// Every typed agent, in list order.
    pub agents: Vec<PackAgent>,
    /// What the pack's references resolved against (the pack's versions and the deployed
    /// ones), kept so deploy validation resolves the references of rejected entries the same
    /// way.
    pub resolver: Resolver<'a>,
}

impl<'a> CompiledPack<'a> {
    /// Compiles `index`, resolving its references against its own tools and blocks and
    /// against `deployed`. Returns the compiled pack and every issue found, in entry order
    /// (tools, blocks, agents). Never stops at the first problem.
    pub(crate) fn compile(
        index: &'a PackIndex,
        deployed: &'a dyn Deployed,
    ) -> (CompiledPack<'a>, Vec<Issue>) {
        let (mut pack, mut issues) = CompiledPack::compile_parts(index, deployed);
        let compile = |a: &Indexed<Agent>| pack.compile_agent(&AgentRef::of_typed(a));
        let agents: Vec<(PackAgent, Vec<Issue>)> = if index.agents.len() < PARALLEL_MIN_ENTRIES {
            index.agents.iter().map(compile).collect()
        } else {
            index.agents.par_iter().map(compile).collect()
        };
        let mut compiled = Vec::with_capacity(agents.len());
        for (agent, mut found) in agents {
            issues.append(&mut found);
            compiled.push(agent);
        }
        pack.agents = compiled;
        (pack, issues)
    }

    /// [`CompiledPack::compile`] but the agents: tools, guardrails, blocks, and the resolver
    /// the agents pin against; [`CompiledPack::compile_agent`] compiles each agent. Deploy
    /// validation compiles its agents one by one this way, checking each as it goes.
    pub(crate) fn compile_parts(
        index: &'a PackIndex,
        deployed: &'a dyn Deployed,
    ) -> (CompiledPack<'a>, Vec<Issue>) {
        let mut issues = super::duplicates::duplicate_entries(&index.all_heads());
        let versions: Vec<Option<semver::Version>> = index
            .tools
            .iter()
            .map(|t| match tool_version(t, &index.pack_version) {
                Ok(v) => Some(v),
                Err(issue) => {
                    issues.push(*issue);
                    None
                }
            })
            .collect();
        let compiled_blocks: Vec<(PackBlock, Option<semver::Version>, Vec<Issue>)> =
            if index.blocks.len() < PARALLEL_MIN_ENTRIES {
                index.blocks.iter().map(compile_block).collect()
            } else {
                index.blocks.par_iter().map(compile_block).collect()
            };
        let mut blocks = Vec::with_capacity(compiled_blocks.len());
        for (block, version, mut found) in compiled_blocks {
            issues.append(&mut found);
            blocks.push((block, version));
        }
        let resolver = Resolver::new(
            index,
            &versions,
            blocks.iter().map(|(b, v)| (v.clone(), b.block.clone())),
            deployed,
        );
        let pack = CompiledPack {
            tool_versions: versions,
            blocks: blocks.into_iter().map(|(b, _)| b).collect(),
            agents: Vec::new(),
            resolver,
        };
        (pack, issues)
    }

    /// Compiles agent `a` of the pack against its tools and blocks and what is deployed (see
    /// [`CompiledPack::compile_parts`]): the agent and its issues.
    pub(crate) fn compile_agent(&self, a: &AgentRef<'_>) -> (PackAgent, Vec<Issue>) {
        compile_agent(a, &self.resolver)
    }
}

/// The issue for a version that matches upstream's pattern but has a leading zero, which npm
/// (and so run start) cannot read.
fn leading_zero(at: String, code: IssueCode, text: &str) -> Issue {
    Issue::error(
        code,
        at,
        format!(
            "version \"{text}\" has a number with a leading zero, which npm semver does not read; write it without"
        ),
    )
}

/// One data block: its version and, for a prompt, its template. Returns the block, its
/// version (`None` when that has an issue) and its issues.
fn compile_block(b: &Indexed<Block>) -> (PackBlock, Option<semver::Version>, Vec<Issue>) {
    let mut issues = Vec::new();
    let at = format!("/blocks/{}", b.index);
    let text = &b.entry.version;
    let version = if !is_plain_version(text) {
        issues.push(Issue::error(
            IssueCode::InvalidBlock,
            format!("{at}/version"),
            "version must be major.minor.patch, e.g. \"1.0.0\"",
        ));
        None
    } else {
        let parsed = parse_version(text);
        if parsed.is_none() {
            issues.push(leading_zero(
                format!("{at}/version"),
                IssueCode::InvalidBlock,
                text,
            ));
        }
        parsed
    };
    let (template, content) = match b.entry.kind {
        BlockKind::Prompt => {
            let source = b
                .entry
                .content
                .get("template")
                .and_then(Value::as_str)
                .unwrap_or("");
            match parse_template(source, &format!("{at}/content/template")) {
                Ok(t) => {
                    let t = Arc::new(t);
                    let params = block_parameters(b);
                    (
                        Some(Arc::clone(&t)),
                        params.map(|params| BlockContent::Prompt {
                            template: t,
                            params,
                        }),
                    )
                }
                Err(issue) => {
                    issues.push(*issue);
                    (None, None)
                }
            }
        }
        BlockKind::Settings => (
            None,
            Some(BlockContent::Settings {
                values: b
                    .entry
                    .content
                    .get("values")
                    .cloned()
                    .unwrap_or(Value::Null),
            }),
        ),
    };
    // The block rules last, so the issues keep the order of the checks above.
    let found = typed_block_issues(&b.entry, &at, SchemaCache::global());
    let rules_failed = found.iter().any(|i| i.severity() == Severity::Error);
    issues.extend(found);
    let block = match (&version, content) {
        (Some(v), Some(content)) if !rules_failed => Some(Arc::new(CompiledBlock {
            version: v.clone(),
            version_text: text.clone(),
            content,
        })),
        _ => None,
    };
    (
        PackBlock {
            index: b.index,
            id: b.entry.id.clone(),
            template,
            block,
        },
        version,
        issues,
    )
}

/// A prompt block's declared parameters, typed; `None` when they do not type (the block
/// rules name each wrong field), so the block is never registered with a parameter dropped.
fn block_parameters(b: &Indexed<Block>) -> Option<Vec<crate::template::PromptParameter>> {
    match b.entry.content.get("parameters") {
        None => Some(Vec::new()),
        Some(list) => Vec::<Parameter>::deserialize(list)
            .ok()
            .map(|params| parameters_of(&params)),
    }
}

/// What one agent's parts compiled to, before they make a [`CompiledAgent`].
struct AgentParts {
    issues: Vec<Issue>,
    /// Whether a part could not be compiled or pinned (its issue is in `issues`, or, for a
    /// reference to an entry rejected at load, in the load report).
    failed: bool,
}

impl AgentParts {
    fn fail(&mut self, issue: Issue) {
        self.issues.push(issue);
        self.failed = true;
    }

    /// An issue that fails the agent when it is an error (a warning does not).
    fn report(&mut self, issue: Issue) {
        if issue.severity() == Severity::Error {
            self.failed = true;
        }
        self.issues.push(issue);
    }
}

/// What compiling an agent reads of a typed [`Agent`], borrowed, with absent lists read as
/// empty (as upstream's `defineAgent` reads them).
pub(crate) struct AgentRef<'a> {
    index: usize,
    id: &'a str,
    name: &'a str,
    version: &'a str,
    guardrails: &'a [String],
    instructions: &'a Instructions,
    tools: &'a [ToolRef],
    settings: &'a [SettingsRef],
    model_settings: Option<&'a SettingsRef>,
    parameters: Option<&'a [Parameter]>,
    capabilities: &'a [Value],
    open: OpenFields<'a>,
}

impl<'a> AgentRef<'a> {
    /// A typed agent entry.
    pub(crate) fn of_typed(a: &'a Indexed<Agent>) -> AgentRef<'a> {
        let agent = &a.entry;
        AgentRef {
            index: a.index,
            id: &agent.id,
            name: &agent.name,
            version: &agent.version,
            guardrails: agent.guardrails.as_deref().unwrap_or_default(),
            instructions: &agent.instructions,
            tools: &agent.tools,
            settings: agent.settings.as_deref().unwrap_or_default(),
            model_settings: agent.model_settings.as_ref(),
            parameters: agent.parameters.as_deref(),
            capabilities: &agent.capabilities,
            open: OpenFields {
                retrieval: agent.retrieval.as_deref().unwrap_or_default(),
                budget: agent.budget.as_ref(),
                conversation_policy: agent.conversation_policy.as_ref(),
                tool_errors: agent.tool_errors.as_ref(),
                output: agent.output.as_ref(),
            },
        }
    }
}

/// One agent: version, tool references, instructions, block references, capabilities, each
/// checked whatever the others find.
fn compile_agent(agent: &AgentRef<'_>, resolver: &Resolver<'_>) -> (PackAgent, Vec<Issue>) {
    let base = format!("/agents/{}", agent.index);
    let mut parts = AgentParts {
        issues: Vec::new(),
        failed: false,
    };
    let version = agent_version(agent, &base, &mut parts);
    let tools = tool_refs(agent, &base, resolver, &mut parts);
    let (instructions, compiled_instructions) = instructions(agent, &base, resolver, &mut parts);
    let settings = settings_refs(agent, &base, resolver, &mut parts);
    let model_settings = agent.model_settings.and_then(|m| {
        block_ref(
            (agent.id, BlockRole::ModelSettings),
            m,
            &format!("{base}/modelSettings"),
            resolver,
            &mut parts,
        )
    });
    value_rules(agent, &base, &mut parts);
    open_field_rules(agent, &base, &mut parts);
    let capabilities = capabilities(agent, &base, &mut parts);
    let compiled = match (version, instructions) {
        (Some(version), Some(instructions)) if !parts.failed => Some(AgentDraft {
            version,
            tools,
            instructions,
            settings,
            model_settings,
            capabilities,
        }),
        _ => None,
    };
    (
        PackAgent {
            agent: compiled,
            instructions: compiled_instructions,
        },
        parts.issues,
    )
}

/// The `defineAgent` rules on the agent's values (see [`super::agent_rules`]): identity,
/// instructions, capabilities, tool and guardrail references, parameters (none beside a prompt
/// block), settings references. Warnings (a reference listed twice, a parameter named
/// `input`) do not fail the agent.
fn value_rules(agent: &AgentRef<'_>, base: &str, parts: &mut AgentParts) {
    let head = AgentHeadView {
        id: Some(agent.id),
        name: Some(agent.name),
        instructions: match agent.instructions {
            Instructions::Template(source) => InstructionsView::Inline(source),
            Instructions::Prompt(r) => InstructionsView::Prompt(Some(&r.prompt)),
        },
        capabilities: Some(agent.capabilities.len()),
    };
    let tools = agent
        .tools
        .iter()
        .enumerate()
        .map(|(j, t)| (j, Some(t.id.as_str()), Some(t.version.as_str())));
    let guardrails = agent
        .guardrails
        .iter()
        .enumerate()
        .map(|(j, g)| (j, Some(g.as_str())));
    let found = head_issues(base, &head)
        .into_iter()
        .chain(tool_ref_issues(base, tools))
        .chain(guardrail_ref_issues(base, guardrails));
    for issue in found {
        parts.report(issue);
    }
    if let Some(params) = agent.parameters {
        let list = format!("{base}/parameters");
        if matches!(agent.instructions, Instructions::Prompt(_)) {
            parts.fail(Issue::error(
                IssueCode::InvalidAgent,
                &list,
                PROMPT_PARAMETERS_MESSAGE,
            ));
        }
        let views = params.iter().map(ParameterView::of_typed);
        for issue in parameter_value_issues(views, &list, IssueCode::InvalidAgent) {
            parts.report(issue);
        }
    }
    let settings = agent
        .settings
        .iter()
        .enumerate()
        .map(|(j, r)| (format!("{base}/settings/{j}"), r.id.as_str()));
    let model = agent
        .model_settings
        .map(|r| (format!("{base}/modelSettings"), r.id.as_str()));
    for issue in settings_ref_value_issues(settings.chain(model)) {
        parts.fail(issue);
    }
}

/// The `defineAgent` rules on the fields the typed agent keeps as JSON values (retrieval,
/// budget, conversationPolicy, toolErrors, output, its schema compiled under Ajv strict mode).
fn open_field_rules(agent: &AgentRef<'_>, base: &str, parts: &mut AgentParts) {
    let mut found = AgentIssues::new(base);
    open_field_issues(&agent.open, SchemaCache::global(), &mut found);
    for issue in found.into_issues() {
        parts.report(issue);
    }
}

/// The agent's version: upstream's pattern, then npm's reading.
fn agent_version(
    agent: &AgentRef<'_>,
    base: &str,
    parts: &mut AgentParts,
) -> Option<semver::Version> {
    let at = format!("{base}/version");
    if !is_exact_version(agent.version) {
        parts.fail(Issue::error(
            IssueCode::InvalidAgent,
            at,
            "version must be a valid semver string",
        ));
        return None;
    }
    let parsed = parse_version(agent.version);
    if parsed.is_none() {
        parts.fail(leading_zero(at, IssueCode::InvalidAgent, agent.version));
    }
    parsed
}

/// Each tool reference's range parsed once and pinned to the highest version in range.
fn tool_refs(
    agent: &AgentRef<'_>,
    base: &str,
    resolver: &Resolver<'_>,
    parts: &mut AgentParts,
) -> Vec<(ToolRange, Option<semver::Version>)> {
    let mut tools = Vec::with_capacity(agent.tools.len());
    for (j, t) in agent.tools.iter().enumerate() {
        let range = ToolRange::new(&t.version);
        let pin = match resolver.pin_tool(agent.id, &t.id, &t.version, range.range()) {
            Ok(Some(v)) => Some(v),
            // The tool's entry has a version that does not parse: its issue refuses the pack.
            Ok(None) => {
                parts.failed = true;
                None
            }
            Err(issue) => {
                parts.fail(issue.under(&format!("{base}/tools/{j}/version")));
                None
            }
        };
        tools.push((range, pin));
    }
    tools
}

/// The inline template parsed, or the prompt block reference pinned: what runs use, and what
/// deploy validation checks the template of.
fn instructions(
    agent: &AgentRef<'_>,
    base: &str,
    resolver: &Resolver<'_>,
    parts: &mut AgentParts,
) -> (Option<InstructionsSource>, Option<CompiledInstructions>) {
    match agent.instructions {
        Instructions::Template(source) => {
            match parse_template(source, &format!("{base}/instructions")) {
                Ok(t) => {
                    let t = Arc::new(t);
                    (
                        Some(InstructionsSource::Inline {
                            template: Arc::clone(&t),
                            params: Vec::new(),
                        }),
                        Some(CompiledInstructions::Inline(t)),
                    )
                }
                Err(issue) => {
                    parts.fail(*issue);
                    (None, None)
                }
            }
        }
        Instructions::Prompt(p) => {
            let at = format!("{base}/instructions/version");
            let Some((range, pin)) = pinned_block(
                (agent.id, BlockRole::Prompt),
                &p.prompt,
                &p.version,
                &at,
                resolver,
                parts,
            ) else {
                return (None, None);
            };
            let block = pin.as_ref().and_then(|(_, b)| b.clone());
            let source = InstructionsSource::Block(Box::new(BlockRef {
                id: p.prompt.clone(),
                range_text: p.version.clone(),
                range,
                pin: pin.map(|(v, _)| v),
            }));
            (Some(source), block.map(CompiledInstructions::Block))
        }
    }
}

/// A block reference's range parsed and pinned. `None` when the range does not parse (its
/// issue pushed); otherwise the range and the pin, `None` when nothing usable is in range.
#[allow(clippy::type_complexity)]
fn pinned_block(
    (agent_id, role): (&str, BlockRole),
    id: &str,
    range_text: &str,
    at: &str,
    resolver: &Resolver<'_>,
    parts: &mut AgentParts,
) -> Option<(Range, Option<(semver::Version, Option<Arc<CompiledBlock>>)>)> {
    let Ok(range) = Range::parse(range_text) else {
        parts.fail(Issue::error(IssueCode::InvalidAgent, at, RANGE_MESSAGE));
        return None;
    };
    let pin = match resolver.pin_block((agent_id, role), id, (range_text, &range), at) {
        Ok((version, block)) => {
            if block.is_none() {
                // Present but unusable: the block's own issue says why.
                parts.failed = true;
            }
            Some((version, block))
        }
        Err(issue) => {
            parts.fail(*issue);
            None
        }
    };
    Some((range, pin))
}

/// A settings or model-settings reference at `at` (its pointer): its range parsed and the
/// reference pinned. (A reference that is not `{id, version}` keeps the agent from typing, so
/// registration never gets here with one.)
fn block_ref(
    (agent_id, role): (&str, BlockRole),
    r: &SettingsRef,
    at: &str,
    resolver: &Resolver<'_>,
    parts: &mut AgentParts,
) -> Option<BlockRef> {
    let (range, pin) = pinned_block(
        (agent_id, role),
        &r.id,
        &r.version,
        &format!("{at}/version"),
        resolver,
        parts,
    )?;
    Some(BlockRef {
        id: r.id.clone(),
        range_text: r.version.clone(),
        range,
        pin: pin.map(|(v, _)| v),
    })
}

/// The settings block references, pinned.
fn settings_refs(
    agent: &AgentRef<'_>,
    base: &str,
    resolver: &Resolver<'_>,
    parts: &mut AgentParts,
) -> Vec<BlockRef> {
    let mut settings = Vec::new();
    for (j, s) in agent.settings.iter().enumerate() {
        if let Some(r) = block_ref(
            (agent.id, BlockRole::Settings),
            s,
            &format!("{base}/settings/{j}"),
            resolver,
            parts,
        ) {
            settings.push(r);
        }
    }
    settings
}

/// The capability declarations, checked against the capability schema and typed.
fn capabilities(agent: &AgentRef<'_>, base: &str, parts: &mut AgentParts) -> Vec<Capability> {
    let mut capabilities = Vec::new();
    for (k, c) in agent.capabilities.iter().enumerate() {
        let at = format!("{base}/capabilities/{k}");
        let problems = crate::route::validate_capability(c);
        if !problems.is_empty() {
            for issue in problems {
                parts.fail(issue.under(&at));
            }
            continue;
        }
        // Closed like every routing input: a misspelt field is named at its pointer.
        match crate::input::from_value_ref::<Capability>(c) {
            Ok(capability) => capabilities.push(capability),
            Err(e) => parts.fail(Issue::error(
                IssueCode::InvalidCapability,
                format!("{at}{}", e.pointer()),
                format!("not a capability declaration: {}", e.message()),
            )),
        }
    }
    capabilities
}
