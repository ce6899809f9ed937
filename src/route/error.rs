//! The `capability-unsatisfiable` error and its per-tuple [`RejectionReason`]s (spec §1.8,
//! §1.9). Messages follow upstream's templates byte for byte, with JavaScript number
//! formatting.

use super::numfmt::Js;
use super::wire::{ComparisonOp, UpperBoundOp};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use std::fmt;

/// Why one `(provider, model)` tuple failed one requirement (spec §1.9).
///
/// Serializes as upstream's object: `code`, `message`, then the variant's fields (camelCase).
/// Numbers are US dollars per 1k prompt tokens, tokens or milliseconds, as named.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum RejectionReason {
    /// The provider's kind is not the requested kind.
    CapabilityKindMismatch {
        /// Provider kind.
        observed: String,
        /// Requested kind.
        wanted: String,
    },
    /// The model lacks a needed feature.
    MissingFeature {
        /// The needed feature.
        feature: String,
    },
    /// `contextWindow` need failed.
    ContextWindowMismatch {
        /// The model's context window (tokens).
        observed: f64,
        /// The need's operator.
        op: ComparisonOp,
        /// The need's value (tokens).
        wanted: f64,
    },
    /// Tenant `maxTokensPerCall` failed: code `context-window-mismatch` with `op` `>=` (spec
    /// §1.9 "reused"), but its own message.
    TenantContextWindowBelowCap {
        /// The model's context window (tokens).
        observed: f64,
        /// The tenant's `maxTokensPerCall`.
        cap: f64,
    },
    /// `costPerCall` need failed (whatever the operator).
    CostExceedsCap {
        /// Prompt price, US dollars per 1k tokens.
        observed_usd_per_1k: f64,
        /// The need's operator.
        op: ComparisonOp,
        /// The need's `usd`.
        wanted_usd: f64,
    },
    /// `region` need failed.
    RegionMismatch {
        /// The provider's region.
        observed: String,
        /// The needed region.
        wanted: String,
    },
    /// `p95LatencyMs` need on a model without a p95.
    P95LatencyUnknown,
    /// `p95LatencyMs` need failed.
    P95LatencyExceeds {
        /// The model's p95 latency (ms).
        observed_ms: f64,
        /// The need's operator.
        op: UpperBoundOp,
        /// The need's bound (ms).
        wanted_ms: f64,
    },
    /// `providers.deny` need contains the provider.
    ProviderOnDenylist {
        /// Provider id.
        provider_id: String,
    },
    /// `providers.allow` need lacks the provider.
    ProviderNotInAllowlist {
        /// Provider id.
        provider_id: String,
        /// The allow list.
        allow: Vec<String>,
    },
    /// `models.deny` need contains the model.
    ModelOnDenylist {
        /// Model name.
        model_name: String,
    },
    /// `models.allow` need lacks the model.
    ModelNotInAllowlist {
        /// Model name.
        model_name: String,
        /// The allow list.
        allow: Vec<String>,
    },
    /// Tenant `providers.deny` contains the provider.
    TenantDenied {
        /// Provider id.
        provider_id: String,
    },
    /// Tenant `providers.allow` lacks the provider.
    TenantNotAllowed {
        /// Provider id.
        provider_id: String,
    },
    /// Tenant `models.deny` contains the model.
    TenantModelDenied {
        /// Model name.
        model_name: String,
    },
    /// Tenant `models.allow` lacks the model.
    TenantModelNotAllowed {
        /// Model name.
        model_name: String,
    },
    /// Tenant `regionAllow` lacks the provider's region.
    TenantRegionNotAllowed {
        /// The provider's region.
        observed: String,
        /// The tenant's list.
        allow: Vec<String>,
    },
    /// Tenant `maxCostPerCallUsd` exceeded.
    TenantCostCapExceeded {
        /// Prompt price, US dollars per 1k tokens.
        observed_usd: f64,
        /// The tenant cap.
        cap_usd: f64,
    },
    /// A need with none of the seven keys.
    UnknownRequirement,
}

impl RejectionReason {
    /// The stable upstream code, e.g. `missing-feature`.
    pub fn code(&self) -> &'static str {
        match self {
            RejectionReason::CapabilityKindMismatch { .. } => "capability-kind-mismatch",
            RejectionReason::MissingFeature { .. } => "missing-feature",
            RejectionReason::ContextWindowMismatch { .. }
            | RejectionReason::TenantContextWindowBelowCap { .. } => "context-window-mismatch",
            RejectionReason::CostExceedsCap { .. } => "cost-exceeds-cap",
            RejectionReason::RegionMismatch { .. } => "region-mismatch",
            RejectionReason::P95LatencyUnknown => "p95-latency-unknown",
            RejectionReason::P95LatencyExceeds { .. } => "p95-latency-exceeds",
            RejectionReason::ProviderOnDenylist { .. } => "provider-on-denylist",
            RejectionReason::ProviderNotInAllowlist { .. } => "provider-not-in-allowlist",
            RejectionReason::ModelOnDenylist { .. } => "model-on-denylist",
            RejectionReason::ModelNotInAllowlist { .. } => "model-not-in-allowlist",
            RejectionReason::TenantDenied { .. } => "tenant-denied",
            RejectionReason::TenantNotAllowed { .. } => "tenant-not-allowed",
            RejectionReason::TenantModelDenied { .. } => "tenant-model-denied",
            RejectionReason::TenantModelNotAllowed { .. } => "tenant-model-not-allowed",
            RejectionReason::TenantRegionNotAllowed { .. } => "tenant-region-not-allowed",
            RejectionReason::TenantCostCapExceeded { .. } => "tenant-cost-cap-exceeded",
            RejectionReason::UnknownRequirement => "unknown-requirement",
        }
    }

    /// Upstream's message for this rejection (spec §1.9 templates).
    pub fn message(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for RejectionReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RejectionReason::CapabilityKindMismatch { observed, wanted } => write!(
                f,
                "provider kind \"{observed}\" does not match requested \"{wanted}\""
            ),
            RejectionReason::MissingFeature { feature } => {
                write!(f, "does not support feature \"{feature}\"")
            }
            RejectionReason::ContextWindowMismatch {
                observed,
                op,
                wanted,
            } => write!(
                f,
                "contextWindow={} fails {op}{}",
                Js(*observed),
                Js(*wanted)
            ),
            RejectionReason::TenantContextWindowBelowCap { observed, cap } => write!(
                f,
                "contextWindow={} < tenant cap {}",
                Js(*observed),
                Js(*cap)
            ),
            RejectionReason::CostExceedsCap {
                observed_usd_per_1k,
                op,
                wanted_usd,
            } => write!(
                f,
                "promptCost=${}/1k fails {op}${}",
                Js(*observed_usd_per_1k),
                Js(*wanted_usd)
            ),
            RejectionReason::RegionMismatch { observed, wanted } => {
                write!(f, "region \"{observed}\" != required \"{wanted}\"")
            }
            RejectionReason::P95LatencyUnknown => f.write_str("model does not report p95 latency"),
            RejectionReason::P95LatencyExceeds {
                observed_ms,
                op,
                wanted_ms,
            } => write!(
                f,
                "p95Latency={}ms fails {op}{}ms",
                Js(*observed_ms),
                Js(*wanted_ms)
            ),
            RejectionReason::ProviderOnDenylist { .. } => f.write_str("provider on deny list"),
            RejectionReason::ProviderNotInAllowlist { .. } => {
                f.write_str("provider not on allow list")
            }
            RejectionReason::ModelOnDenylist { .. } => f.write_str("model on deny list"),
            RejectionReason::ModelNotInAllowlist { .. } => f.write_str("model not on allow list"),
            RejectionReason::TenantDenied { .. } => f.write_str("tenant policy deny"),
            RejectionReason::TenantNotAllowed { .. } => f.write_str("not on tenant allow list"),
            RejectionReason::TenantModelDenied { .. } => f.write_str("tenant policy deny (model)"),
            RejectionReason::TenantModelNotAllowed { .. } => {
                f.write_str("not on tenant model allow list")
            }
            RejectionReason::TenantRegionNotAllowed { observed, .. } => {
                write!(f, "region \"{observed}\" not in tenant allow list")
            }
            RejectionReason::TenantCostCapExceeded {
                observed_usd,
                cap_usd,
            } => write!(
                f,
                "promptCost/1k=${} > tenant cap ${}",
                Js(*observed_usd),
                Js(*cap_usd)
            ),
            RejectionReason::UnknownRequirement => f.write_str("unknown requirement shape"),
        }
    }
}

/// A JSON number the way `JSON.stringify` writes it.
struct JsNum(f64);

impl Serialize for JsNum {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        super::numfmt::serialize_js(&self.0, s)
    }
}

impl Serialize for RejectionReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("code", self.code())?;
        m.serialize_entry("message", &self.message())?;
        match self {
            RejectionReason::CapabilityKindMismatch { observed, wanted }
            | RejectionReason::RegionMismatch { observed, wanted } => {
                m.serialize_entry("observed", observed)?;
                m.serialize_entry("wanted", wanted)?;
            }
            RejectionReason::MissingFeature { feature } => m.serialize_entry("feature", feature)?,
            RejectionReason::ContextWindowMismatch {
                observed,
                op,
                wanted,
            } => {
                m.serialize_entry("observed", &JsNum(*observed))?;
                m.serialize_entry("op", op)?;
                m.serialize_entry("wanted", &JsNum(*wanted))?;
            }
            RejectionReason::TenantContextWindowBelowCap { observed, cap } => {
                m.serialize_entry("observed", &JsNum(*observed))?;
                m.serialize_entry("op", &ComparisonOp::Ge)?;
                m.serialize_entry("wanted", &JsNum(*cap))?;
            }
            RejectionReason::CostExceedsCap {
                observed_usd_per_1k,
                op,
                wanted_usd,
            } => {
                m.serialize_entry("observedUsdPer1k", &JsNum(*observed_usd_per_1k))?;
                m.serialize_entry("op", op)?;
                m.serialize_entry("wantedUsd", &JsNum(*wanted_usd))?;
            }
            RejectionReason::P95LatencyUnknown | RejectionReason::UnknownRequirement => {}
            RejectionReason::P95LatencyExceeds {
                observed_ms,
                op,
                wanted_ms,
            } => {
                m.serialize_entry("observedMs", &JsNum(*observed_ms))?;
                m.serialize_entry("op", op)?;
                m.serialize_entry("wantedMs", &JsNum(*wanted_ms))?;
            }
            RejectionReason::ProviderOnDenylist { provider_id }
            | RejectionReason::TenantDenied { provider_id }
            | RejectionReason::TenantNotAllowed { provider_id } => {
                m.serialize_entry("providerId", provider_id)?;
            }
            RejectionReason::ProviderNotInAllowlist { provider_id, allow } => {
                m.serialize_entry("providerId", provider_id)?;
                m.serialize_entry("allow", allow)?;
            }
            RejectionReason::ModelOnDenylist { model_name }
            | RejectionReason::TenantModelDenied { model_name }
            | RejectionReason::TenantModelNotAllowed { model_name } => {
                m.serialize_entry("modelName", model_name)?;
            }
            RejectionReason::ModelNotInAllowlist { model_name, allow } => {
                m.serialize_entry("modelName", model_name)?;
                m.serialize_entry("allow", allow)?;
            }
            RejectionReason::TenantRegionNotAllowed { observed, allow } => {
                m.serialize_entry("observed", observed)?;
                m.serialize_entry("allow", allow)?;
            }
            RejectionReason::TenantCostCapExceeded {
                observed_usd,
                cap_usd,
            } => {
                m.serialize_entry("observedUsd", &JsNum(*observed_usd))?;
                m.serialize_entry("capUsd", &JsNum(*cap_usd))?;
            }
        }
        m.end()
    }
}

/// One rejected tuple under one requirement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RejectingProvider {
    /// Tuple key `<providerId>/<modelName>` (upstream's name says provider; it is a tuple).
    pub id: String,
    /// Why.
    pub reason: RejectionReason,
}

/// One requirement that rejected at least one tuple (spec §2.6).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnsatisfiedRequirement {
    /// The requirement's label (spec §2.12), e.g. `feature:vision`.
    pub requirement: String,
    /// Tuple keys that pass this requirement, in expansion order.
    pub satisfying_providers: Vec<String>,
    /// Tuples that fail it, in expansion order.
    pub rejecting_providers: Vec<RejectingProvider>,
}

/// No tuple survived: upstream's `capability-unsatisfiable` error (spec §1.8, §2.6).
///
/// Serializes as `{code, message, tenantId?, reasons}`.
#[derive(Debug, Clone, PartialEq)]
pub struct CapabilityUnsatisfiable {
    /// The policy's `tenantId`; present iff a tenant policy was passed (and carried one).
    pub tenant_id: Option<String>,
    /// Each requirement that rejected some tuple, in requirement order.
    pub reasons: Vec<UnsatisfiedRequirement>,
}

impl CapabilityUnsatisfiable {
    /// `capability-unsatisfiable`.
    pub const CODE: &'static str = "capability-unsatisfiable";
    /// Upstream's fixed message.
    pub const MESSAGE: &'static str = "No registered provider satisfies the capability declaration";

    /// [`Self::CODE`].
    pub fn code(&self) -> &'static str {
        Self::CODE
    }
}

impl fmt::Display for CapabilityUnsatisfiable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(Self::MESSAGE)
    }
}

impl std::error::Error for CapabilityUnsatisfiable {}

impl Serialize for CapabilityUnsatisfiable {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("code", Self::CODE)?;
        m.serialize_entry("message", Self::MESSAGE)?;
        if let Some(t) = &self.tenant_id {
            m.serialize_entry("tenantId", t)?;
        }
        m.serialize_entry("reasons", &self.reasons)?;
        m.end()
    }
}
