//! A tenant's registered packs and providers: the compiled packs' agents, blocks and tools
//! (see [`crate::pack`]) merged per tenant, with each agent's pinned plan. The types only;
//! `register` builds them and `prepare` reads them.

use super::wire::PlannedTool;
use crate::catalog::Catalog;
use crate::index::wire::{Guardrail, Tool};
use crate::pack::VersionIndex;
pub(crate) use crate::pack::{
    BlockContent, BlockRef, CompiledAgent, CompiledBlock, CompiledCapability, InstructionsSource,
    ToolRecord, ToolRefC,
};
use crate::route::{CompiledPolicy, RouteSnapshot};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The catalog key for a tenant's own catalog (each tenant state holds one).
pub(crate) const TENANT_KEY: &str = "";

/// What the catalog holds per tool version: the entry, and its version text made once so a
/// run plan can share it instead of formatting it per run.
#[derive(Debug, Clone)]
pub(crate) struct CatalogTool {
    #[allow(dead_code)] // kept for the runtime's model tool definitions
    pub tool: Arc<Tool>,
    pub version: Arc<str>,
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

/// One tool id's registered versions: the records, and a catalog of that id alone built from
/// them (remade when a version of this id is added, retired or removed; other ids are not
/// touched).
#[derive(Debug, Default)]
pub(crate) struct ToolVersions {
    pub records: Vec<ToolRecord>,
    pub catalog: Catalog<CatalogTool>,
}

/// Agent ids by the id of a tool or block they reference: who to re-pin when it changes.
pub(super) type Users = imbl::HashMap<Arc<str>, imbl::HashSet<Arc<str>>>;

/// A tenant's packs, compiled: tools, guardrails, blocks and agents with their pins.
///
/// Every map is persistent (`imbl`): a write copies the path to what it changes and shares the
/// rest, so registering into a tenant of a thousand packs copies a few nodes, not the
/// tenant. Immutable once published; `id` names this exact content, so that tenants that
/// registered the same packs in the same order share one `PackState` (see `PackCache`).
#[derive(Debug, Clone, Default)]
pub(crate) struct PackState {
    /// Unique per content produced by a write (0: empty).
    pub id: u64,
    pub tools: imbl::HashMap<Arc<str>, Arc<ToolVersions>>,
    /// Agent id → versions.
    pub agents: imbl::HashMap<Arc<str>, Arc<VersionIndex<AgentSlot>>>,
    pub guardrails: imbl::HashMap<String, Arc<Guardrail>>,
    /// Block id → versions.
    pub blocks: imbl::HashMap<String, Arc<VersionIndex<Arc<CompiledBlock>>>>,
    pub(super) tool_users: Users,
    pub(super) block_users: Users,
}

/// Everything one tenant has registered: its packs (often shared with other tenants) and its
/// own providers and policy. Cheap to clone: a write clones it, changes the clone and
/// publishes it.
#[derive(Debug, Clone)]
pub(crate) struct TenantState {
    pub packs: Arc<PackState>,
    pub route: Arc<RouteSnapshot>,
    /// Compiled when set, so runs without a policy of their own route it as it is.
    pub policy: Option<Arc<CompiledPolicy>>,
}

impl Default for TenantState {
    fn default() -> TenantState {
        static EMPTY_ROUTE: std::sync::LazyLock<Arc<RouteSnapshot>> =
            std::sync::LazyLock::new(|| Arc::new(RouteSnapshot::compile(Vec::new())));
        static EMPTY_PACKS: std::sync::LazyLock<Arc<PackState>> =
            std::sync::LazyLock::new(|| Arc::new(PackState::default()));
        TenantState {
            packs: Arc::clone(&EMPTY_PACKS),
            route: Arc::clone(&EMPTY_ROUTE),
            policy: None,
        }
    }
}

impl PackState {
    /// The catalog that answers for tool `id` (an empty one when the id is not registered,
    /// which answers exactly as a catalog without the id).
    pub fn tool_catalog(&self, id: &str) -> &Catalog<CatalogTool> {
        static EMPTY: std::sync::LazyLock<Catalog<CatalogTool>> =
            std::sync::LazyLock::new(Catalog::new);
        self.tools.get(id).map_or(&*EMPTY, |t| &t.catalog)
    }
}
