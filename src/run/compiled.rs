//! A tenant's registered packs and providers, compiled for run start: ranges parsed,
//! templates parsed, capabilities typed, tool and block references pinned.

use super::wire::PlannedTool;
use crate::catalog::{Catalog, ToolRange};
use crate::diagnostics::Issue;
use crate::index::PackIndex;
use crate::index::wire::{Agent, BlockKind, Guardrail, Instructions, Tool};
use crate::range::{Range, compare_versions, parse_version};
use crate::route::{Capability, ProviderMetadata, RouteSnapshot, TenantPolicy};
use crate::template::{CompiledTemplate, PromptParameter};
use semver::Version;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The catalog key for a tenant's own catalog (each tenant state holds one).
pub(crate) const TENANT_KEY: &str = "";

/// One registered tool version.
#[derive(Debug, Clone)]
pub(crate) struct ToolRecord {
    pub id: String,
    pub version: Version,
    pub retired: bool,
    pub tool: Arc<Tool>,
}

/// What the catalog holds per tool version: the entry, and its version text made once so a
/// run plan can share it instead of formatting it per run.
#[derive(Debug, Clone)]
pub(crate) struct CatalogTool {
    #[allow(dead_code)] // kept for the runtime's model tool definitions
    pub tool: Arc<Tool>,
    pub version: Arc<str>,
}

/// A reference to a data block, its range parsed, pinned at registration.
#[derive(Debug, Clone)]
pub(crate) struct BlockRef {
    pub id: String,
    pub range_text: String,
    pub range: Range,
    pub pin: Option<Version>,
}

/// Where an agent's instructions come from.
#[derive(Debug, Clone)]
pub(crate) enum InstructionsSource {
    Inline {
        template: Arc<CompiledTemplate>,
        params: Vec<PromptParameter>,
    },
    Block(BlockRef),
}

/// One tool reference, its range parsed once, pinned at registration.
#[derive(Debug, Clone)]
pub(crate) struct ToolRefC {
    pub id: Arc<str>,
    pub range_text: Arc<str>,
    pub range: ToolRange,
    pub pin: Option<Version>,
}

/// An agent version ready to run.
#[derive(Debug)]
pub(crate) struct CompiledAgent {
    pub id: Arc<str>,
    pub version: Version,
    pub version_text: Arc<str>,
    /// The `agent` auto-variable, `{id, name, version}`, made once.
    pub agent_value: Value,
    pub tools: Vec<ToolRefC>,
    pub guardrails: Arc<[String]>,
    pub instructions: InstructionsSource,
    pub settings: Vec<BlockRef>,
    pub model_settings: Option<BlockRef>,
    pub capabilities: Vec<CompiledCapability>,
    pub preferred_provider: Option<String>,
    pub preferred_model: Option<String>,
}

impl CompiledAgent {
    /// Whether the agent references any data block (then the `settings` variable exists).
    pub fn references_blocks(&self) -> bool {
        matches!(self.instructions, InstructionsSource::Block(_))
            || !self.settings.is_empty()
            || self.model_settings.is_some()
    }
}

/// A capability declaration with its kind (defaulted) kept as shared text for the plans.
#[derive(Debug)]
pub(crate) struct CompiledCapability {
    pub capability: Capability,
    pub kind: Arc<str>,
}

/// What every run of an agent version shares while the tenant's tools and blocks stay as they
/// are: its tools and blocks resolved through its pins. Made at registration (and remade on
/// every change to tools or blocks), so a run that brings no turn pins copies nothing.
#[derive(Debug)]
pub(crate) struct PinnedPlan {
    pub tools: Arc<[PlannedTool]>,
    pub tool_versions: Arc<BTreeMap<String, String>>,
    pub block_versions: Arc<BTreeMap<String, String>>,
    /// The prompt block the instructions come from, if any.
    pub prompt: Option<Arc<CompiledBlock>>,
    /// The `settings` auto-variable: block id → values (a JSON object).
    pub settings: Value,
    pub model_settings: Option<Arc<Value>>,
}

/// One registered agent version, with its pinned plan when every pin still resolves (when
/// one does not, runs take the slow path, which reports the failure).
#[derive(Debug, Clone)]
pub(crate) struct AgentSlot {
    pub agent: Arc<CompiledAgent>,
    pub pinned: Option<Arc<PinnedPlan>>,
}

/// A data block version ready to use.
#[derive(Debug)]
pub(crate) enum BlockContent {
    Prompt {
        template: Arc<CompiledTemplate>,
        params: Vec<PromptParameter>,
    },
    Settings {
        values: Value,
    },
}

/// One data block version.
#[derive(Debug)]
pub(crate) struct CompiledBlock {
    pub version: Version,
    pub version_text: String,
    pub content: BlockContent,
}

impl CompiledBlock {
    pub fn kind(&self) -> &'static str {
        match self.content {
            BlockContent::Prompt { .. } => "prompt",
            BlockContent::Settings { .. } => "settings",
        }
    }
}

/// Everything one tenant has registered. Immutable once published in a snapshot; a write
/// clones it, changes the clone and publishes a new snapshot.
#[derive(Debug, Clone)]
pub(crate) struct TenantState {
    pub tool_records: Vec<ToolRecord>,
    pub tools: Catalog<CatalogTool>,
    /// Agent id → versions, highest first.
    pub agents: HashMap<String, Vec<AgentSlot>>,
    pub guardrails: HashMap<String, Arc<Guardrail>>,
    /// Block id → versions, highest first.
    pub blocks: HashMap<String, Vec<Arc<CompiledBlock>>>,
    pub providers: Vec<ProviderMetadata>,
    pub route: Arc<RouteSnapshot>,
    pub policy: Option<TenantPolicy>,
}

impl Default for TenantState {
    fn default() -> TenantState {
        TenantState {
            tool_records: Vec::new(),
            tools: Catalog::new(),
            agents: HashMap::new(),
            guardrails: HashMap::new(),
            blocks: HashMap::new(),
            providers: Vec::new(),
            route: Arc::new(RouteSnapshot::compile(Vec::new())),
            policy: None,
        }
    }
}

pub(crate) fn parameters_of(list: Option<&Vec<Value>>) -> Vec<PromptParameter> {
    list.into_iter()
        .flatten()
        .filter_map(|p| {
            let name = p.get("name")?.as_str()?;
            let mut param = PromptParameter::new(name);
            if p.get("required") == Some(&Value::Bool(false)) {
                param = param.with_required(false);
            }
            if let Some(d) = p.get("default") {
                param = param.with_default(d.clone());
            }
            if let Some(t) = p.get("type").and_then(Value::as_str) {
                param = param.with_type(t);
            }
            Some(param)
        })
        .collect()
}

fn sorted_insert<T>(list: &mut Vec<T>, item: T, version: impl Fn(&T) -> &Version) {
    let v = version(&item).clone();
    match list
        .iter()
        .position(|x| compare_versions(version(x), &v) != std::cmp::Ordering::Greater)
    {
        Some(i) if compare_versions(version(&list[i]), &v) == std::cmp::Ordering::Equal => {
            list[i] = item
        }
        Some(i) => list.insert(i, item),
        None => list.push(item),
    }
}

impl TenantState {
    /// Remakes every agent version's pinned plan against the current tools and blocks; called
    /// after every change to either (registration is rare, runs are many).
    pub fn refresh_pinned_plans(&mut self) {
        let mut agents = std::mem::take(&mut self.agents);
        for slot in agents.values_mut().flatten() {
            slot.pinned = super::prepare::pinned_plan(self, &slot.agent, None)
                .ok()
                .map(Arc::new);
        }
        self.agents = agents;
    }

    /// Rebuilds the tool catalog from the records (registration is rare; resolving is hot).
    pub fn rebuild_tools(&mut self) {
        let mut catalog = Catalog::new();
        for r in &self.tool_records {
            // Records are kept unique by (id, version), so inserts cannot clash.
            let value = CatalogTool {
                tool: Arc::clone(&r.tool),
                version: Arc::from(r.version.to_string()),
            };
            let _ = catalog.insert(TENANT_KEY, &r.id, r.version.clone(), value);
            if r.retired {
                catalog.retire(TENANT_KEY, &r.id, &r.version);
            }
        }
        self.tools = catalog;
    }

    /// Adds a pack: tools, then guardrails, then blocks, then agents pinned against them, as a
    /// deploy registers them. On any problem nothing is changed and every problem is returned.
    pub fn add_pack(&mut self, pack: &PackIndex) -> Result<(), Vec<Issue>> {
        let mut next = self.clone();
        let mut issues = Vec::new();
        for t in &pack.tools {
            let text = t.entry.version.as_deref().unwrap_or(&pack.pack_version);
            let Some(version) = parse_version(text) else {
                issues.push(Issue::error(
                    "invalid-version",
                    format!("/tools/{}/version", t.index),
                    format!(
                        "tool \"{}\" version \"{text}\" is not a semver version",
                        t.entry.id
                    ),
                ));
                continue;
            };
            let record = ToolRecord {
                id: t.entry.id.clone(),
                version,
                retired: false,
                tool: Arc::new(t.entry.clone()),
            };
            match next
                .tool_records
                .iter_mut()
                .find(|r| r.id == record.id && r.version == record.version)
            {
                Some(existing) => *existing = record,
                None => next.tool_records.push(record),
            }
        }
        next.rebuild_tools();
        for g in &pack.guardrails {
            next.guardrails
                .insert(g.entry.id.clone(), Arc::new(g.entry.clone()));
        }
        for b in &pack.blocks {
            let at = format!("/blocks/{}", b.index);
            let Some(version) = parse_version(&b.entry.version) else {
                issues.push(Issue::error(
                    "invalid-block",
                    format!("{at}/version"),
                    "version must be major.minor.patch, e.g. \"1.0.0\"",
                ));
                continue;
            };
            let content = match b.entry.kind {
                BlockKind::Prompt => {
                    let source = b
                        .entry
                        .content
                        .get("template")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    match CompiledTemplate::parse(source) {
                        Ok(t) => BlockContent::Prompt {
                            template: Arc::new(t),
                            params: parameters_of(
                                b.entry.content.get("parameters").and_then(Value::as_array),
                            ),
                        },
                        Err(e) => {
                            issues.push(Issue::error(
                                "template-parse",
                                format!("{at}/content/template"),
                                format!(
                                    "template isn't valid Liquid: {}",
                                    e.message_with_position(source)
                                ),
                            ));
                            continue;
                        }
                    }
                }
                BlockKind::Settings => BlockContent::Settings {
                    values: b
                        .entry
                        .content
                        .get("values")
                        .cloned()
                        .unwrap_or(Value::Null),
                },
            };
            let block = Arc::new(CompiledBlock {
                version,
                version_text: b.entry.version.clone(),
                content,
            });
            sorted_insert(
                next.blocks.entry(b.entry.id.clone()).or_default(),
                block,
                |b| &b.version,
            );
        }
        for a in &pack.agents {
            match next.compile_agent(&a.entry, a.index) {
                Ok(agent) => sorted_insert(
                    next.agents.entry(agent.id.to_string()).or_default(),
                    AgentSlot {
                        agent: Arc::new(agent),
                        pinned: None,
                    },
                    |slot| &slot.agent.version,
                ),
                Err(mut e) => issues.append(&mut e),
            }
        }
        if issues.is_empty() {
            next.refresh_pinned_plans();
            *self = next;
            Ok(())
        } else {
            Err(issues)
        }
    }

    fn pick_block(&self, id: &str, range: &Range) -> Option<&Arc<CompiledBlock>> {
        self.blocks
            .get(id)?
            .iter()
            .find(|b| range.satisfies(&b.version))
    }

    fn block_ref(
        &self,
        id: &str,
        range_text: &str,
        at: &str,
        issues: &mut Vec<Issue>,
    ) -> Option<BlockRef> {
        match Range::parse(range_text) {
            Ok(range) => {
                let pin = self.pick_block(id, &range).map(|b| b.version.clone());
                if pin.is_none() {
                    issues.push(Issue::error(
                        "block-unresolvable",
                        at,
                        format!("block \"{id}\" has no published version in \"{range_text}\""),
                    ));
                }
                Some(BlockRef {
                    id: id.to_owned(),
                    range_text: range_text.to_owned(),
                    range,
                    pin,
                })
            }
            Err(e) => {
                issues.push(Issue::error(
                    "invalid-version-range",
                    at,
                    format!("block \"{id}\" range \"{range_text}\": {e}"),
                ));
                None
            }
        }
    }

    /// Compiles and pins one agent against this state.
    fn compile_agent(&self, agent: &Agent, index: usize) -> Result<CompiledAgent, Vec<Issue>> {
        let base = format!("/agents/{index}");
        let mut issues = Vec::new();
        let Some(version) = parse_version(&agent.version) else {
            return Err(vec![Issue::error(
                "invalid-agent",
                format!("{base}/version"),
                "version must be a valid semver string",
            )]);
        };
        let mut tools = Vec::with_capacity(agent.tools.len());
        for (j, t) in agent.tools.iter().enumerate() {
            let range = ToolRange::new(&t.version);
            let pin = match self.tools.resolve(TENANT_KEY, &t.id, &range) {
                Ok(hit) => Some(hit.version.clone()),
                Err(e) => {
                    issues.push(Issue::error(
                        e.code(),
                        format!("{base}/tools/{j}/version"),
                        format!("agent \"{}\": {e}", agent.id),
                    ));
                    None
                }
            };
            tools.push(ToolRefC {
                id: Arc::from(t.id.as_str()),
                range_text: Arc::from(t.version.as_str()),
                range,
                pin,
            });
        }
        let instructions = match &agent.instructions {
            Instructions::Template(source) => match CompiledTemplate::parse(source) {
                Ok(t) => InstructionsSource::Inline {
                    template: Arc::new(t),
                    params: parameters_of(agent.parameters.as_ref()),
                },
                Err(e) => {
                    issues.push(Issue::error(
                        "template-parse",
                        format!("{base}/instructions"),
                        format!(
                            "template isn't valid Liquid: {}",
                            e.message_with_position(source)
                        ),
                    ));
                    return Err(issues);
                }
            },
            Instructions::Prompt(p) => match self.block_ref(
                &p.prompt,
                &p.version,
                &format!("{base}/instructions/version"),
                &mut issues,
            ) {
                Some(r) => InstructionsSource::Block(r),
                None => return Err(issues),
            },
        };
        let mut settings = Vec::new();
        for (j, s) in agent.settings.iter().flatten().enumerate() {
            let (Some(id), Some(range)) = (
                s.get("id").and_then(Value::as_str),
                s.get("version").and_then(Value::as_str),
            ) else {
                continue;
            };
            if let Some(r) = self.block_ref(
                id,
                range,
                &format!("{base}/settings/{j}/version"),
                &mut issues,
            ) {
                settings.push(r);
            }
        }
        let model_settings = agent.model_settings.as_ref().and_then(|m| {
            let (id, range) = (m.get("id")?.as_str()?, m.get("version")?.as_str()?);
            self.block_ref(
                id,
                range,
                &format!("{base}/modelSettings/version"),
                &mut issues,
            )
        });
        let mut capabilities = Vec::new();
        for (k, c) in agent.capabilities.iter().enumerate() {
            // Closed like every routing input: a misspelt field is named at its pointer.
            match crate::input::from_value::<Capability>(c.clone()) {
                Ok(capability) => capabilities.push(CompiledCapability {
                    kind: Arc::from(capability.kind_or_default()),
                    capability,
                }),
                Err(e) => issues.push(Issue::error(
                    "invalid-capability",
                    format!("{base}/capabilities/{k}{}", e.pointer()),
                    format!("not a capability declaration: {}", e.message()),
                )),
            }
        }
        if !issues.is_empty() {
            return Err(issues);
        }
        Ok(CompiledAgent {
            id: Arc::from(agent.id.as_str()),
            version,
            version_text: Arc::from(agent.version.as_str()),
            agent_value: serde_json::json!({"id": agent.id, "name": agent.name, "version": agent.version}),
            tools,
            guardrails: agent.guardrails.clone().unwrap_or_default().into(),
            instructions,
            settings,
            model_settings,
            capabilities,
            preferred_provider: agent.preferred_provider.clone(),
            preferred_model: agent.preferred_model.clone(),
        })
    }
}
