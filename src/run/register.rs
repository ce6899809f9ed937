//! Registration: compiling a pack into a tenant's [`PackState`] (tools, guardrails, blocks,
//! agents pinned against them) and re-pinning the agents a change touches. Kept apart from the
//! compiled types so that those types and the run-start algorithm that reads them
//! (`prepare`) depend on nothing here, while registration uses both.

use super::compiled::{
    AgentSlot, CatalogTool, CompiledBlock, PackState, TENANT_KEY, ToolRecord, ToolVersions, Users,
};
use super::prepare::pinned_plan;
use crate::catalog::Catalog;
use crate::diagnostics::Issue;
use crate::index::PackIndex;
use crate::pack::{CompiledPack, Deployed, VersionIndex};
use semver::Version;
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

fn add_user(users: &mut Users, referenced: &str, agent: &Arc<str>) {
    let known = users.get(referenced).is_some_and(|set| set.contains(agent));
    if !known {
        users
            .entry(Arc::from(referenced))
            .or_default()
            .insert(Arc::clone(agent));
    }
}

impl PackState {
    /// Remakes the pinned plans of the agents with the given ids (every version of each)
    /// against the current tools and blocks.
    fn repin<'a>(&mut self, agent_ids: impl IntoIterator<Item = &'a Arc<str>>) {
        for id in agent_ids {
            let Some(versions) = self.agents.get(id) else {
                continue;
            };
            let slots = versions.map(|_, slot| AgentSlot {
                agent: Arc::clone(&slot.agent),
                pinned: pinned_plan(self, &slot.agent, None).ok().map(Arc::new),
            });
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

    /// Adds a pack: compiled against this state ([`CompiledPack::compile`], the same compile
    /// deploy validation reports through), then its tools, guardrails, blocks and agents
    /// merged in. On any problem nothing is changed and every problem is returned: a pack
    /// with entries rejected at load is refused with their shape issues.
    ///
    /// Only what the pack touches is copied: the versions of the tool and block ids it brings,
    /// and the agents it brings or that reference those ids, which are re-pinned.
    pub fn add_pack(&mut self, pack: &PackIndex) -> Result<(), Vec<Issue>> {
        if !pack.rejected.is_empty() {
            return Err(pack
                .rejected
                .iter()
                .flat_map(|r| r.issues.iter().cloned())
                .collect());
        }
        let (compiled, issues) = CompiledPack::compile(pack, self);
        if !issues.is_empty() {
            return Err(issues);
        }
        // Every agent that fails to compile says why; should one ever not, refuse the pack
        // rather than register it without that agent.
        if let Some((a, _)) = pack
            .agents
            .iter()
            .zip(&compiled.agents)
            .find(|(_, c)| c.agent.is_none())
        {
            return Err(vec![Issue::error(
                crate::diagnostics::IssueCode::InvalidAgent,
                format!("/agents/{}", a.index),
                format!("agent \"{}\" could not be compiled", a.entry.id),
            )]);
        }
        let mut next = self.clone();
        // Compiling found no issue, so every tool version parsed.
        let records = pack
            .tools
            .iter()
            .zip(compiled.tool_versions)
            .filter_map(|(t, version)| {
                Some(ToolRecord {
                    id: t.entry.id.clone(),
                    version: version?,
                    retired: false,
                    tool: Arc::new(t.entry.clone()),
                })
            })
            .collect();
        let touched_tools = next.add_tools(records);
        for g in &pack.guardrails {
            next.guardrails
                .insert(g.entry.id.clone(), Arc::new(g.entry.clone()));
        }
        let mut touched_blocks: Vec<String> = Vec::new();
        for b in compiled.blocks {
            // Compiling found no issue, so every block compiled.
            let Some(block) = b.block else { continue };
            let mut versions = next
                .blocks
                .get(&b.id)
                .map(|v| v.as_ref().clone())
                .unwrap_or_default();
            versions.insert(block.version.clone(), block);
            next.blocks.insert(b.id.clone(), Arc::new(versions));
            touched_blocks.push(b.id);
        }
        let mut affected: std::collections::BTreeSet<Arc<str>> = std::collections::BTreeSet::new();
        for (a, entry) in compiled.agents.into_iter().zip(&pack.agents) {
            let Some(draft) = a.agent else { continue };
            let agent = draft.finish(&entry.entry);
            let id = Arc::clone(&agent.id);
            for t in &agent.tools {
                add_user(&mut next.tool_users, &t.id, &id);
            }
            for r in agent.block_refs() {
                add_user(&mut next.block_users, &r.id, &id);
            }
            let mut versions = next
                .agents
                .get(&id)
                .map(|v| v.as_ref().clone())
                .unwrap_or_default();
            versions.insert(
                agent.version.clone(),
                AgentSlot {
                    agent: Arc::new(agent),
                    pinned: None,
                },
            );
            next.agents.insert(Arc::clone(&id), Arc::new(versions));
            affected.insert(id);
        }
        // Re-pin the new agents and every agent that references a tool or block the pack
        // brought (its pins may now reach a version that did not exist before).
        for id in &touched_tools {
            affected.extend(next.users_of_tool(id));
        }
        for id in &touched_blocks {
            if let Some(users) = next.block_users.get(id.as_str()) {
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
    fn add_tools(&mut self, tools: Vec<ToolRecord>) -> Vec<Arc<str>> {
        // Tool records per id, in pack order.
        let mut new_tools: Vec<(String, Vec<ToolRecord>)> = Vec::new();
        for record in tools {
            match new_tools.iter_mut().find(|(id, _)| *id == record.id) {
                Some((_, list)) => list.push(record),
                None => new_tools.push((record.id.clone(), vec![record])),
            }
        }
        let mut touched_tools = Vec::with_capacity(new_tools.len());
        for (id, added) in new_tools {
            let mut records = self
                .tools
                .get(id.as_str())
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
}

/// What a tenant already has, as a pack registered into it resolves against: its active tool
/// versions and its blocks.
impl Deployed for PackState {
    fn tool_versions(&self, id: &str) -> Vec<Version> {
        self.tool_catalog(id)
            .versions(TENANT_KEY, id)
            .cloned()
            .collect()
    }

    fn blocks(&self, id: &str) -> Option<Arc<VersionIndex<Arc<CompiledBlock>>>> {
        self.blocks.get(id).cloned()
    }
}
