//! Run start: one lock-free call that prepares a run (agents.md §1.4, §3, §4.4; router.md
//! §2.14).
//!
//! A [`RunStart`] holds every tenant's registered packs and providers as an immutable
//! [`Snapshot`], compiled at registration: tool ranges parsed and pinned, templates parsed,
//! capabilities typed, provider lists compiled into route snapshots. Registering replaces
//! the snapshot atomically (`arc-swap`), so any number of threads call
//! [`RunStart::prepare`] without locks while a deploy registers a new pack, and no run ever
//! sees half of a registration.
//!
//! # Examples
//!
//! ```
//! use runstart::run::{RunRequest, RunStart};
//! use serde_json::json;
//!
//! let bytes = std::fs::read("fixtures/packs/order-review/index.json")?;
//! let pack = runstart::index::load(&bytes).index.expect("a valid index");
//! let providers: Vec<runstart::route::ProviderMetadata> =
//!     serde_json::from_str(&std::fs::read_to_string("fixtures/providers.json")?)?;
//! let run_start = RunStart::new();
//! run_start.register_pack("acme", &pack).expect("pins resolve");
//! for p in providers {
//!     run_start.register_provider("acme", p).expect("valid provider");
//! }
//! let request: RunRequest = serde_json::from_value(json!({
//!     "tenantId": "acme",
//!     "agent": {"id": "shop.fraud-analyst"},
//!     "parameters": {"orderId": "A-1001"},
//!     "now": "2026-11-30T09:00:00.000Z"
//! }))?;
//! let plan = run_start.prepare(&request).expect("a plan");
//! assert_eq!(plan.tool_versions["shop.fraud.score"], "3.8.1");
//! assert!(plan.instructions.starts_with("Review order A-1001 for fraud."));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A run that cannot start is a [`RunStartError`]: `code()` and `Display` are upstream's code
//! and message, serde writes upstream's wire form, and the fields say what failed, so a caller
//! branches on them rather than on the text:
//!
//! ```
//! use runstart::run::{InvalidRequestReason, RunRequest, RunStart, RunStartError};
//!
//! let bytes = std::fs::read("fixtures/packs/order-review/index.json")?;
//! let pack = runstart::index::load(&bytes).index.expect("a valid index");
//! let run_start = RunStart::new();
//! run_start.register_pack("acme", &pack).expect("pins resolve");
//! for p in serde_json::from_str::<Vec<runstart::route::ProviderMetadata>>(
//!     &std::fs::read_to_string("fixtures/providers.json")?,
//! )? {
//!     run_start.register_provider("acme", p).expect("valid provider");
//! }
//! let request = RunRequest::new("acme", "shop.fraud-analyst", "2026-11-30T09:00:00.000Z")
//!     .with_parameter("orderID", "A-1001");
//! let error = run_start.prepare(&request).unwrap_err();
//! assert_eq!(error.code(), "invalid-request");
//! assert_eq!(error.instance_path().as_deref(), Some("/parameters/orderID"));
//! match &error {
//!     RunStartError::InvalidRequest {
//!         reason: InvalidRequestReason::UndeclaredParameter { name, declared, .. },
//!     } => {
//!         assert_eq!(name, "orderID");
//!         assert!(declared.iter().any(|d| d == "orderId"));
//!     }
//!     other => panic!("{other}"),
//! }
//! assert!(error.to_string().contains("did you mean \"orderId\"?"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A run with no tenant policy or resumed route of its own routes as every such run of the
//! agent does while the tenant's registrations stay the same, so each thread keeps those
//! routes (at most 256 answers) and routes again after any write to the tenant.

mod cache;
mod compiled;
mod error;
mod instant;
mod prepare;
mod register;
mod route_memo;
mod wire;

pub use crate::pack::BlockRole;
pub use error::{
    AgentNotFoundReason, BlockReason, InvalidRequestReason, RenderFailureReason, RoutingFailure,
    RunStartError, ToolVersionReason,
};
pub use instant::{format_iso_instant, is_iso_instant, iso_now};
pub use wire::{
    AgentSelector, Conversation, PlannedRoute, PlannedTool, RunPlan, RunRequest, TurnPins,
};

use crate::diagnostics::Issue;
use crate::index::PackIndex;
use crate::route::{
    CompiledPolicy, ProviderMetadata, ProviderRegistry, RegistryError, RouteSnapshot, TenantPolicy,
};
use arc_swap::ArcSwap;
use cache::PackCache;
use compiled::TenantState;
use semver::Version;
use std::sync::{Arc, Mutex};

/// An immutable view of everything registered, per tenant. Cheap to hold: runs prepared on
/// one snapshot always agree with each other, whatever is registered meanwhile.
///
/// The tenant map is persistent (`imbl`): a write for one tenant copies the few nodes on
/// the path to that tenant and shares every other tenant with the previous snapshot, so a
/// registration costs the same in a registry of ten tenants or of a hundred thousand.
#[derive(Debug, Default)]
pub struct Snapshot {
    tenants: imbl::HashMap<String, Arc<TenantState>>,
}

/// Why a registration was refused; nothing was changed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegisterError {
    /// The pack has problems that would fail its runs: unpinnable tool or block references,
    /// templates that do not parse, capabilities that are not declarations. Paths are JSON
    /// Pointers into the pack index.
    #[error("the pack cannot be registered ({} issue(s)):{}", .0.len(), .0.iter().map(|i| format!("\n  {i}")).collect::<String>())]
    Pack(Vec<Issue>),
    /// The provider was refused by the registry (router.md §4.1).
    #[error(transparent)]
    Provider(#[from] RegistryError),
}

/// The registry every run starts from: packs and providers per tenant.
///
/// Reads ([`RunStart::prepare`], [`RunStart::snapshot`]) are lock-free; writes are
/// serialized among themselves and publish a new snapshot atomically.
///
/// A write costs what it changes: the tenant written, and in it the tool and block ids it
/// touches and the agents that reference them (re-pinned). A pack registered for many
/// tenants in the same state (typically: as their first pack) is compiled once and shared
/// by all of them, keyed by the SHA-256 of what registration reads from it; only each
/// tenant's providers and policy are its own.
#[derive(Debug, Default)]
pub struct RunStart {
    current: ArcSwap<Snapshot>,
    /// Serializes writers; holds what writes need that readers never see.
    writer: Mutex<Writer>,
}

/// The writers' side: the provider registry (whose checks registration runs) and the cache
/// of compiled packs.
#[derive(Debug, Default)]
struct Writer {
    providers: ProviderRegistry,
    packs: PackCache,
}

impl RunStart {
    /// An empty registry.
    pub fn new() -> RunStart {
        RunStart::default()
    }

    /// The current snapshot.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.current.load_full()
    }

    /// Prepares a run on the current snapshot; see [`Snapshot::prepare`].
    ///
    /// # Errors
    ///
    /// As [`Snapshot::prepare`].
    pub fn prepare(&self, request: &RunRequest) -> Result<RunPlan, RunStartError> {
        self.current.load().prepare(request)
    }

    fn update<T, E>(
        &self,
        tenant: &str,
        change: impl FnOnce(&mut TenantState, &mut Writer) -> Result<T, E>,
    ) -> Result<T, E> {
        // A poisoned lock only means another writer panicked; the registry itself is intact
        // because every write publishes a complete new snapshot or nothing.
        let mut writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        let current = self.current.load_full();
        // Both clones are cheap: a tenant state is a few `Arc`s, the tenant map persistent.
        let mut state = current
            .tenants
            .get(tenant)
            .map(|s| (**s).clone())
            .unwrap_or_default();
        let out = change(&mut state, &mut writer)?;
        let mut tenants = current.tenants.clone();
        tenants.insert(tenant.to_owned(), Arc::new(state));
        self.current.store(Arc::new(Snapshot { tenants }));
        Ok(out)
    }

    /// Registers a pack for `tenant`: its tools, then guardrails, then blocks, then agents,
    /// each agent's tool and block references pinned to the highest version in range (as a
    /// deploy pins them). Registering the same tool, block or agent version again replaces it.
    ///
    /// The pack is compiled exactly as [`crate::validate::validate_index`] compiles it, so
    /// every issue a registration is refused with is in that report too, with the same code,
    /// instance path and message.
    ///
    /// # Errors
    ///
    /// [`RegisterError::Pack`] with every problem, and nothing registered, when the index has
    /// entries whose shape failed at load ([`crate::index::PackIndex::rejected`]: their shape
    /// issues), or when compiling finds a problem: a tool or agent version that is not
    /// semver, a template that is not Liquid, a tool or block reference that pins nothing (or
    /// a block of the wrong kind, or model settings that are not), a capability declaration
    /// that does not check.
    pub fn register_pack(&self, tenant: &str, pack: &PackIndex) -> Result<(), RegisterError> {
        self.update(tenant, |state, writer| {
            state.packs = writer
                .packs
                .add_pack(&state.packs, pack)
                .map_err(RegisterError::Pack)?;
            Ok(())
        })
    }

    /// Registers a provider for `tenant` (router.md §4.1 checks, in order; duplicates refused).
    ///
    /// # Errors
    ///
    /// [`RegisterError::Provider`] with the registry's reason.
    pub fn register_provider(
        &self,
        tenant: &str,
        provider: ProviderMetadata,
    ) -> Result<(), RegisterError> {
        self.update(tenant, |state, writer| {
            writer.providers.register(tenant, provider)?;
            state.route = Arc::new(RouteSnapshot::compile(
                writer.providers.list(tenant).cloned().collect(),
            ));
            Ok(())
        })
    }

    /// Unregisters a provider: gone from routing at once; its id may be registered again.
    /// Returns whether it was registered.
    pub fn unregister_provider(&self, tenant: &str, provider_id: &str) -> bool {
        self.update(tenant, |state, writer| {
            let removed = writer.providers.unregister(tenant, provider_id);
            state.route = Arc::new(RouteSnapshot::compile(
                writer.providers.list(tenant).cloned().collect(),
            ));
            Ok::<bool, RegisterError>(removed)
        })
        .unwrap_or(false)
    }

    /// Sets the tenant's registered routing policy (merged with each request's, §2.14).
    pub fn set_tenant_policy(&self, tenant: &str, policy: Option<TenantPolicy>) {
        let _ = self.update(tenant, |state, _| {
            state.policy = policy.map(|p| Arc::new(CompiledPolicy::new(p)));
            Ok::<(), RegisterError>(())
        });
    }

    /// Retires a tool version: ranges no longer pick it, but pins (exact lookups) still reach
    /// it. Returns whether the version was registered.
    pub fn retire_tool(&self, tenant: &str, id: &str, version: &Version) -> bool {
        self.update(tenant, |state, _| {
            let mut packs = (*state.packs).clone();
            let hit = packs.change_tool(id, |records| {
                let found = records.iter_mut().find(|r| &r.version == version);
                found.map(|r| r.retired = true).is_some()
            });
            state.packs = Arc::new(packs);
            Ok::<bool, RegisterError>(hit)
        })
        .unwrap_or(false)
    }

    /// Removes a tool version entirely: pins to it fail from now on. Returns whether it was
    /// registered.
    pub fn remove_tool(&self, tenant: &str, id: &str, version: &Version) -> bool {
        self.update(tenant, |state, _| {
            let mut packs = (*state.packs).clone();
            let hit = packs.change_tool(id, |records| {
                let before = records.len();
                records.retain(|r| &r.version != version);
                records.len() != before
            });
            state.packs = Arc::new(packs);
            Ok::<bool, RegisterError>(hit)
        })
        .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn registry_types_are_send_and_sync() {
        assert_send_sync::<RunStart>();
        assert_send_sync::<Snapshot>();
        assert_send_sync::<RunPlan>();
        assert_send_sync::<RunStartError>();
    }
}
