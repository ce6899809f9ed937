//! Capability routing: pick the `(provider, model)` tuple that meets a capability's needs and a
//! tenant's policy, ranked by preferences (behaviour of upstream `@kindgi/capabilities`,
//! `shared/spec/router.md`).
//!
//! Two ways to route, with identical answers:
//!
//! - [`route`] takes a whole [`RouteInput`] and does everything per call (string comparisons,
//!   a collator sort). Convenient, and the reference the fast path is tested against.
//! - [`RouteSnapshot::compile`] compiles a tenant's provider slice once (interned ids, feature
//!   bitsets, precomputed collation ranks); [`RouteSnapshot::route`] then hashes no strings,
//!   sorts no strings and, with a reused [`Scratch`], allocates only its result.
//! - [`CompiledCapability`] and [`CompiledPolicy`] go one step further for what is registered
//!   ahead of the calls (an agent's capabilities, a tenant's policy): compiled once into
//!   process-wide string numbers that every later snapshot shares, so
//!   [`RouteSnapshot::route_compiled`] looks up no string at all, and nothing needs
//!   recompiling when providers register or unregister (design notes in `symbols.rs`).
//!
//! [`explain`] reports, for every tuple, which requirements it met or failed and its score.
//! [`ProviderRegistry`] keeps providers per tenant with upstream's registration checks, and
//! [`validate_capability`] checks a declaration against the capability schema.
//!
//! # Deviations from upstream
//!
//! - Rejections are recorded per tuple, not per `provider/model` key, so ids containing `/`
//!   cannot knock out other tuples (spec §2.5, §6.2).
//! - JSON `null` reads as absent (spec §6.6); comparison operators are enums, so an invalid op
//!   fails parsing instead of silently rejecting (spec §6.7).
//! - A NaN score (only reachable when weights sum to both +∞ and −∞) orders after every
//!   other score, so the ranking stays a total order (spec §6.10).
//! - Tie-breaks compare ids with CLDR root collation from ICU4X (`icu_collator` 2.3, generated
//!   from ICU 78 data, the peer's ICU; spec §6.3). One difference remains: ICU 78's root
//!   orders Han ideographs (and the radicals and enclosed ideographs sorting with them) by
//!   radical and stroke count, ICU4X by code point within each Unicode block, so ids written
//!   in Han characters can break a tie the other way (`丽` before `中` upstream, after it
//!   here). Every other script orders as upstream.
//!
//! # Examples
//!
//! ```
//! use runstart::route::{route, RouteInput};
//!
//! let input: RouteInput = serde_json::from_str(r#"{
//!   "capability": {"needs": [{"feature": "vision"}]},
//!   "providers": [
//!     {"id": "text", "region": "eu", "models": [{"name": "t1", "contextWindow": 8000,
//!       "features": ["tool-use"], "cost": {"promptUsdPer1kTokens": 0.001, "completionUsdPer1kTokens": 0.002}}]},
//!     {"id": "seeing", "region": "eu", "models": [{"name": "v1", "contextWindow": 8000,
//!       "features": ["vision"], "cost": {"promptUsdPer1kTokens": 0.001, "completionUsdPer1kTokens": 0.002}}]}
//!   ]
//! }"#)?;
//! let decision = route(&input).expect("one provider sees");
//! assert_eq!((decision.provider.as_str(), decision.model.as_str()), ("seeing", "v1"));
//! assert_eq!(decision.reason, r#"picked "seeing"/"v1", satisfies 1 constraint(s)"#);
//! # Ok::<(), serde_json::Error>(())
//! ```

mod capability;
mod check;
mod collate;
mod compiled;
mod error;
mod explain;
mod interval;
mod numfmt;
mod policy;
mod reference;
mod registry;
mod snapshot;
mod symbols;
mod wire;

pub use capability::{CAPABILITY_SCHEMA_URI, validate_capability};
pub use compiled::{CompiledCapability, CompiledPolicy};
pub use error::{
    CapabilityUnsatisfiable, RejectingProvider, RejectionReason, UnsatisfiedRequirement,
};
pub use explain::{ExplainedOutcome, Explanation, RequirementOutcome, TupleExplanation, explain};
pub use policy::merge_tenant_policies;
pub use registry::{
    InvalidProviderReason, PROVIDER_LABEL_MANAGED_BY, PROVIDER_LABEL_VALUE_MAX_LENGTH,
    PROVIDER_LABELS_MAX_KEYS, ProviderRegistry, RegistryError, validate_provider_labels,
};
pub use snapshot::{RouteRequest, RouteSnapshot, Routed, Scratch};
pub use wire::{
    AllowDeny, BUILT_IN_CAPABILITY_KINDS, Budget, Capability, ComparisonOp, ContextWindowBound,
    CostBound, DEFAULT_CAPABILITY_KIND, FEATURES, LatencyBound, ModelCost, ModelInfo,
    ModelThinking, Preference, ProviderMetadata, Requirement, RouteInput, RoutingDecision,
    TenantPolicy, ThinkingMode, UpperBoundOp,
};

/// Routes one input, doing all the work per call (spec §2).
///
/// This compiles nothing: every call compares strings and sorts with the collator. To route
/// many times over the same providers, compile a [`RouteSnapshot`] once instead.
///
/// # Errors
///
/// [`CapabilityUnsatisfiable`] when no tuple meets every requirement, with one entry per
/// requirement that rejected some tuple (spec §2.6).
///
/// # Complexity
///
/// O(t·r + c·log c · s) for t tuples, r requirements, c candidates and collation cost s.
pub fn route(input: &RouteInput) -> Result<RoutingDecision, CapabilityUnsatisfiable> {
    reference::route(input)
}
