//! Registration: compiling a pack into a tenant's [`PackState`] (tools, guardrails, blocks,
//! agents pinned against them) and re-pinning the agents a change touches. Kept apart from the
//! compiled types so that those types and the run-start algorithm that reads them
//! (`prepare`) depend on nothing here, while registration uses both.

use super::compiled::{
    AgentSlot, BlockContent, BlockRef, CatalogTool, CompiledAgent, CompiledBlock,
    CompiledCapability, InstructionsSource, PackState, TENANT_KEY, ToolRecord, ToolRefC,
    ToolVersions, Users,
};
use super::prepare::pinned_plan;
use crate::catalog::{Catalog, ToolRange};
use crate::diagnostics::Issue;
use crate::diagnostics::IssueCode;
use crate::index::wire::{Agent, Block, BlockKind, Instructions};
use crate::index::{Indexed, PackIndex};
use crate::range::{Range, compare_versions, parse_version};
use crate::route::Capability;
use crate::template::{CompiledTemplate, PromptParameter};
use crate::validate::{
    BlockRole, RANGE_MESSAGE, block_pin_message, template_issue, tool_ref_issue, tool_version,
};
use semver::Version;
use serde_json::Value;
use std::sync::Arc;

impl ToolVersions {
    fn from_records(records: Vec<ToolRecord>) -> ToolVersions {
        let mut catalog = Catalog::new();
        for r in &records {
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
        ToolVersions { records, catalog }
    }
}

/// A fresh id for a `PackState` a write produced.
fn next_pack_state_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
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

fn add_user(users: &mut Users, referenced: &str, agent: &Arc<str>) {
    let known = users.get(referenced).is_some_and(|set| set.contains(agent));
    if !known {
        users
            .entry(Arc::from(referenced))
            .or_default()
            .insert(Arc::clone(agent));
    }
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

/// One data block of a pack, compiled; `None` (with its issue pushed) when its version or
/// its prompt template does not parse.
fn compile_block(b: &Indexed<Block>, issues: &mut Vec<Issue>) -> Option<CompiledBlock> {
    let at = format!("/blocks/{}", b.index);
    let Some(version) = parse_version(&b.entry.version) else {
        issues.push(Issue::error(
            IssueCode::InvalidBlock,
            format!("{at}/version"),
            "version must be major.minor.patch, e.g. \"1.0.0\"",
        ));
        return None;
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
                    issues.push(template_issue(
                        &e,
                        source,
                        &format!("{at}/content/template"),
                    ));
                    return None;
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
    Some(CompiledBlock {
        version,
        version_text: b.entry.version.clone(),
        content,
    })
}

impl PackState {
    /// Remakes the pinned plans of the agents with the given ids (every version of each)
    /// against the current tools and blocks.
    fn repin<'a>(&mut self, agent_ids: impl IntoIterator<Item = &'a Arc<str>>) {
        for id in agent_ids {
            let Some(versions) = self.agents.get(id) else {
                continue;
            };
            let slots: Vec<AgentSlot> = versions
                .iter()
                .map(|slot| AgentSlot {
                    agent: Arc::clone(&slot.agent),
                    pinned: pinned_plan(self, &slot.agent, None).ok().map(Arc::new),
                })
                .collect();
            self.agents.insert(Arc::clone(id), Arc::new(slots));
        }
    }

    /// Agents that reference tool `id` (any version of them).
    fn users_of_tool(&self, id: &str) -> Vec<Arc<str>> {
        self.tool_users
            .get(id)
            .map(|u| u.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Changes the records of tool `id` with `change` and re-pins the agents that reference
    /// it. Returns what `change` returned.
    pub fn change_tool<T>(
        &mut self,
        id: &str,
        change: impl FnOnce(&mut Vec<ToolRecord>) -> T,
    ) -> T {
        let mut records = self
            .tools
            .get(id)
            .map(|t| t.records.clone())
            .unwrap_or_default();
        let out = change(&mut records);
        if records.is_empty() {
            self.tools.remove(id);
        } else {
            self.tools
                .insert(Arc::from(id), Arc::new(ToolVersions::from_records(records)));
        }
        let users = self.users_of_tool(id);
        self.repin(&users);
        self.id = next_pack_state_id();
        out
    }

    /// Adds a pack: tools, then guardrails, then blocks, then agents pinned against them, as a
    /// deploy registers them. On any problem nothing is changed and every problem is returned.
    ///
    /// Only what the pack touches is copied: the versions of the tool and block ids it brings,
    /// and the agents it brings or that reference those ids, which are re-pinned.
    pub fn add_pack(&mut self, pack: &PackIndex) -> Result<(), Vec<Issue>> {
        let mut next = self.clone();
        let mut issues = Vec::new();
        let touched_tools = next.add_tools(pack, &mut issues);
        for g in &pack.guardrails {
            next.guardrails
                .insert(g.entry.id.clone(), Arc::new(g.entry.clone()));
        }
        let touched_blocks = next.add_blocks(pack, &mut issues);
        let new_agents = next.add_agents(pack, &mut issues);
        if !issues.is_empty() {
            return Err(issues);
        }
        // Re-pin the new agents and every agent that references a tool or block the pack
        // brought (its pins may now reach a version that did not exist before).
        let mut affected: std::collections::BTreeSet<Arc<str>> = new_agents.into_iter().collect();
        for id in &touched_tools {
            affected.extend(next.users_of_tool(id));
        }
        for id in touched_blocks {
            if let Some(users) = next.block_users.get(id) {
                affected.extend(users.iter().cloned());
            }
        }
        next.repin(&affected);
        next.id = next_pack_state_id();
        *self = next;
        Ok(())
    }

    /// `add_pack`'s tools: the pack's tool versions merged into each id's records (a version
    /// already registered is replaced). Returns the ids it touched, in pack order.
    fn add_tools(&mut self, pack: &PackIndex, issues: &mut Vec<Issue>) -> Vec<Arc<str>> {
        // Tool records per id, in pack order.
        let mut new_tools: Vec<(&str, Vec<ToolRecord>)> = Vec::new();
        for t in &pack.tools {
            let version = match tool_version(t, &pack.pack_version) {
                Ok(v) => v,
                Err(issue) => {
                    issues.push(*issue);
                    continue;
                }
            };
            let record = ToolRecord {
                id: t.entry.id.clone(),
                version,
                retired: false,
                tool: Arc::new(t.entry.clone()),
            };
            match new_tools.iter_mut().find(|(id, _)| *id == t.entry.id) {
                Some((_, list)) => list.push(record),
                None => new_tools.push((&t.entry.id, vec![record])),
            }
        }
        let mut touched_tools = Vec::with_capacity(new_tools.len());
        for (id, added) in new_tools {
            let mut records = self
                .tools
                .get(id)
                .map(|t| t.records.clone())
                .unwrap_or_default();
            for record in added {
                match records
                    .iter_mut()
                    .find(|r| r.id == record.id && r.version == record.version)
                {
                    Some(existing) => *existing = record,
                    None => records.push(record),
                }
            }
            let id: Arc<str> = Arc::from(id);
            self.tools.insert(
                Arc::clone(&id),
                Arc::new(ToolVersions::from_records(records)),
            );
            touched_tools.push(id);
        }
        touched_tools
    }

    /// `add_pack`'s blocks: each compiled and inserted among its id's versions (highest
    /// first). Returns the ids it touched, in pack order.
    fn add_blocks<'p>(&mut self, pack: &'p PackIndex, issues: &mut Vec<Issue>) -> Vec<&'p str> {
        let mut touched_blocks: Vec<&str> = Vec::new();
        for b in &pack.blocks {
            let Some(block) = compile_block(b, issues) else {
                continue;
            };
            let mut versions: Vec<Arc<CompiledBlock>> = self
                .blocks
                .get(&b.entry.id)
                .map(|v| v.as_ref().clone())
                .unwrap_or_default();
            sorted_insert(&mut versions, Arc::new(block), |b| &b.version);
            self.blocks.insert(b.entry.id.clone(), Arc::new(versions));
            touched_blocks.push(&b.entry.id);
        }
        touched_blocks
    }

    /// `add_pack`'s agents: each compiled and pinned against the tools and blocks registered
    /// so far, recorded as a user of what it references, and inserted among its id's versions
    /// (highest first, not yet re-pinned). Returns the ids, in pack order.
    fn add_agents(&mut self, pack: &PackIndex, issues: &mut Vec<Issue>) -> Vec<Arc<str>> {
        let mut new_agents: Vec<Arc<str>> = Vec::new();
        for a in &pack.agents {
            match self.compile_agent(&a.entry, a.index) {
                Ok(agent) => {
                    let id = Arc::clone(&agent.id);
                    for t in &agent.tools {
                        add_user(&mut self.tool_users, &t.id, &id);
                    }
                    for r in agent.block_refs() {
                        add_user(&mut self.block_users, &r.id, &id);
                    }
                    let mut versions: Vec<AgentSlot> = self
                        .agents
                        .get(&id)
                        .map(|v| v.as_ref().clone())
                        .unwrap_or_default();
                    sorted_insert(
                        &mut versions,
                        AgentSlot {
                            agent: Arc::new(agent),
                            pinned: None,
                        },
                        |slot| &slot.agent.version,
                    );
                    self.agents.insert(Arc::clone(&id), Arc::new(versions));
                    new_agents.push(id);
                }
                Err(mut e) => issues.append(&mut e),
            }
        }
        new_agents
    }

    fn pick_block(&self, id: &str, range: &Range) -> Option<&Arc<CompiledBlock>> {
        self.blocks
            .get(id)?
            .iter()
            .find(|b| range.satisfies(&b.version))
    }

    fn block_ref(
        &self,
        (agent_id, role): (&str, BlockRole),
        id: &str,
        range_text: &str,
        at: &str,
        issues: &mut Vec<Issue>,
    ) -> Option<BlockRef> {
        match Range::parse(range_text) {
            Ok(range) => {
                let pin = self.pick_block(id, &range).map(|b| b.version.clone());
                if pin.is_none() {
                    let published: Vec<&Version> = self
                        .blocks
                        .get(id)
                        .map(|v| v.iter().map(|b| &b.version).collect())
                        .unwrap_or_default();
                    let desc = format!("{} block \"{id}\"", role.desc());
                    issues.push(
                        Issue::error(
                            IssueCode::BlockUnresolvable,
                            at,
                            format!(
                                "agent \"{agent_id}\": {}",
                                block_pin_message(&desc, range_text, &published)
                            ),
                        )
                        .with_param("blockId", id)
                        .with_param("requestedRange", range_text),
                    );
                }
                Some(BlockRef {
                    id: id.to_owned(),
                    range_text: range_text.to_owned(),
                    range,
                    pin,
                })
            }
            // Deploy validation's agent rules report a block range that does not parse.
            Err(_) => {
                issues.push(Issue::error(IssueCode::InvalidAgent, at, RANGE_MESSAGE));
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
                IssueCode::InvalidAgent,
                format!("{base}/version"),
                "version must be a valid semver string",
            )]);
        };
        let tools = self.tool_refs(agent, &base, &mut issues);
        let Some(instructions) = self.instructions(agent, &base, &mut issues) else {
            return Err(issues);
        };
        let settings = self.settings_refs(agent, &base, &mut issues);
        let model_settings = agent.model_settings.as_ref().and_then(|m| {
            let (id, range) = (m.get("id")?.as_str()?, m.get("version")?.as_str()?);
            self.block_ref(
                (&agent.id, BlockRole::ModelSettings),
                id,
                range,
                &format!("{base}/modelSettings/version"),
                &mut issues,
            )
        });
        let capabilities = compile_capabilities(agent, &base, &mut issues);
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

    /// `compile_agent`'s tool references: each range parsed and pinned to the highest
    /// version the tenant's catalog resolves it to (no pin, and an issue, when none does).
    fn tool_refs(&self, agent: &Agent, base: &str, issues: &mut Vec<Issue>) -> Vec<ToolRefC> {
        let mut tools = Vec::with_capacity(agent.tools.len());
        for (j, t) in agent.tools.iter().enumerate() {
            let range = ToolRange::new(&t.version);
            let catalog = self.tool_catalog(&t.id);
            let pin = match catalog.resolve(TENANT_KEY, &t.id, &range) {
                Ok(hit) => Some(hit.version.clone()),
                Err(e) => {
                    let at = format!("{base}/tools/{j}/version");
                    // Worded as deploy validation words it; the catalog's own text is kept
                    // only if the two range readings ever disagree on whether it resolves.
                    let versions: Vec<Version> =
                        catalog.versions(TENANT_KEY, &t.id).cloned().collect();
                    issues.push(
                        tool_ref_issue(&agent.id, &t.id, &t.version, &versions).map_or_else(
                            || {
                                Issue::error(
                                    e.code(),
                                    at.as_str(),
                                    format!("agent \"{}\": {e}", agent.id),
                                )
                            },
                            |issue| issue.under(&at),
                        ),
                    );
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
        tools
    }

    /// `compile_agent`'s instructions: the inline template parsed, or the prompt block
    /// reference pinned. `None` when that fails (its issue is pushed).
    fn instructions(
        &self,
        agent: &Agent,
        base: &str,
        issues: &mut Vec<Issue>,
    ) -> Option<InstructionsSource> {
        match &agent.instructions {
            Instructions::Template(source) => match CompiledTemplate::parse(source) {
                Ok(t) => Some(InstructionsSource::Inline {
                    template: Arc::new(t),
                    params: parameters_of(agent.parameters.as_ref()),
                }),
                Err(e) => {
                    issues.push(template_issue(&e, source, &format!("{base}/instructions")));
                    None
                }
            },
            Instructions::Prompt(p) => self
                .block_ref(
                    (&agent.id, BlockRole::Prompt),
                    &p.prompt,
                    &p.version,
                    &format!("{base}/instructions/version"),
                    issues,
                )
                .map(|r| InstructionsSource::Block(Box::new(r))),
        }
    }

    /// `compile_agent`'s settings block references, pinned; entries without a string `id`
    /// and `version` are skipped (deploy validation reports them).
    fn settings_refs(&self, agent: &Agent, base: &str, issues: &mut Vec<Issue>) -> Vec<BlockRef> {
        let mut settings = Vec::new();
        for (j, s) in agent.settings.iter().flatten().enumerate() {
            let (Some(id), Some(range)) = (
                s.get("id").and_then(Value::as_str),
                s.get("version").and_then(Value::as_str),
            ) else {
                continue;
            };
            if let Some(r) = self.block_ref(
                (&agent.id, BlockRole::Settings),
                id,
                range,
                &format!("{base}/settings/{j}/version"),
                issues,
            ) {
                settings.push(r);
            }
        }
        settings
    }
}

/// An agent's capability declarations, checked as deploy validation checks them and compiled
/// for routing with the agent's preferred provider and model.
fn compile_capabilities(
    agent: &Agent,
    base: &str,
    issues: &mut Vec<Issue>,
) -> Vec<CompiledCapability> {
    let mut capabilities = Vec::new();
    for (k, c) in agent.capabilities.iter().enumerate() {
        // Deploy validation's check first, so both refuse a declaration with its issues.
        let at = format!("{base}/capabilities/{k}");
        let problems = crate::route::validate_capability(c);
        if !problems.is_empty() {
            issues.extend(problems.into_iter().map(|issue| issue.under(&at)));
            continue;
        }
        // Closed like every routing input: a misspelt field is named at its pointer.
        match crate::input::from_value::<Capability>(c.clone()) {
            Ok(capability) => capabilities.push(CompiledCapability {
                kind: Arc::from(capability.kind_or_default()),
                capability: crate::route::CompiledCapability::new(
                    capability,
                    agent.preferred_provider.clone(),
                    agent.preferred_model.clone(),
                ),
            }),
            Err(e) => issues.push(Issue::error(
                IssueCode::InvalidCapability,
                format!("{base}/capabilities/{k}{}", e.pointer()),
                format!("not a capability declaration: {}", e.message()),
            )),
        }
    }
    capabilities
}
