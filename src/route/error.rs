//! The `capability-unsatisfiable` error and its per-tuple [`RejectionReason`]s (spec §1.8,
//! §1.9). Messages follow upstream's templates byte for byte, with JavaScript number
//! formatting.

use super::numfmt::Js;
use super::wire::{ComparisonOp, UpperBoundOp};
use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
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

/// Every field any rejection carries, for reading one back.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawReason {
    code: String,
    #[serde(default)]
    message: String,
    observed: Option<serde_json::Value>,
    wanted: Option<serde_json::Value>,
    op: Option<String>,
    feature: Option<String>,
    observed_usd_per_1k: Option<f64>,
    wanted_usd: Option<f64>,
    observed_ms: Option<f64>,
    wanted_ms: Option<f64>,
    provider_id: Option<String>,
    model_name: Option<String>,
    allow: Option<Vec<String>>,
    observed_usd: Option<f64>,
    cap_usd: Option<f64>,
}

impl<'de> Deserialize<'de> for RejectionReason {
    /// Reads upstream's object back. The tenant `maxTokensPerCall` rejection shares the
    /// `context-window-mismatch` code and is told apart by its message.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let r = RawReason::deserialize(d)?;
        fn need<T, E: serde::de::Error>(v: Option<T>, field: &str) -> Result<T, E> {
            v.ok_or_else(|| E::custom(format_args!("missing field `{field}`")))
        }
        let text = |v: Option<serde_json::Value>, f: &str| -> Result<String, D::Error> {
            need::<_, D::Error>(v.and_then(|v| v.as_str().map(str::to_owned)), f)
        };
        let num = |v: &Option<serde_json::Value>, f: &str| -> Result<f64, D::Error> {
            need::<_, D::Error>(v.as_ref().and_then(serde_json::Value::as_f64), f)
        };
        let op = |o: &Option<String>| -> Result<ComparisonOp, D::Error> {
            serde_json::from_value(serde_json::Value::String(need::<_, D::Error>(
                o.clone(),
                "op",
            )?))
            .map_err(D::Error::custom)
        };
        Ok(match r.code.as_str() {
            "capability-kind-mismatch" => RejectionReason::CapabilityKindMismatch {
                observed: text(r.observed, "observed")?,
                wanted: text(r.wanted, "wanted")?,
            },
            "missing-feature" => RejectionReason::MissingFeature {
                feature: need(r.feature, "feature")?,
            },
            "context-window-mismatch" if r.message.contains("tenant cap") => {
                RejectionReason::TenantContextWindowBelowCap {
                    observed: num(&r.observed, "observed")?,
                    cap: num(&r.wanted, "wanted")?,
                }
            }
            "context-window-mismatch" => RejectionReason::ContextWindowMismatch {
                observed: num(&r.observed, "observed")?,
                op: op(&r.op)?,
                wanted: num(&r.wanted, "wanted")?,
            },
            "cost-exceeds-cap" => RejectionReason::CostExceedsCap {
                observed_usd_per_1k: need(r.observed_usd_per_1k, "observedUsdPer1k")?,
                op: op(&r.op)?,
                wanted_usd: need(r.wanted_usd, "wantedUsd")?,
            },
            "region-mismatch" => RejectionReason::RegionMismatch {
                observed: text(r.observed, "observed")?,
                wanted: text(r.wanted, "wanted")?,
            },
            "p95-latency-unknown" => RejectionReason::P95LatencyUnknown,
            "p95-latency-exceeds" => RejectionReason::P95LatencyExceeds {
                observed_ms: need(r.observed_ms, "observedMs")?,
                op: serde_json::from_value(serde_json::Value::String(need(r.op, "op")?))
                    .map_err(D::Error::custom)?,
                wanted_ms: need(r.wanted_ms, "wantedMs")?,
            },
            "provider-on-denylist" => RejectionReason::ProviderOnDenylist {
                provider_id: need(r.provider_id, "providerId")?,
            },
            "provider-not-in-allowlist" => RejectionReason::ProviderNotInAllowlist {
                provider_id: need(r.provider_id, "providerId")?,
                allow: need(r.allow, "allow")?,
            },
            "model-on-denylist" => RejectionReason::ModelOnDenylist {
                model_name: need(r.model_name, "modelName")?,
            },
            "model-not-in-allowlist" => RejectionReason::ModelNotInAllowlist {
                model_name: need(r.model_name, "modelName")?,
                allow: need(r.allow, "allow")?,
            },
            "tenant-denied" => RejectionReason::TenantDenied {
                provider_id: need(r.provider_id, "providerId")?,
            },
            "tenant-not-allowed" => RejectionReason::TenantNotAllowed {
                provider_id: need(r.provider_id, "providerId")?,
            },
            "tenant-model-denied" => RejectionReason::TenantModelDenied {
                model_name: need(r.model_name, "modelName")?,
            },
            "tenant-model-not-allowed" => RejectionReason::TenantModelNotAllowed {
                model_name: need(r.model_name, "modelName")?,
            },
            "tenant-region-not-allowed" => RejectionReason::TenantRegionNotAllowed {
                observed: text(r.observed, "observed")?,
                allow: need(r.allow, "allow")?,
            },
            "tenant-cost-cap-exceeded" => RejectionReason::TenantCostCapExceeded {
                observed_usd: need(r.observed_usd, "observedUsd")?,
                cap_usd: need(r.cap_usd, "capUsd")?,
            },
            "unknown-requirement" => RejectionReason::UnknownRequirement,
            other => {
                return Err(D::Error::custom(format_args!(
                    "unknown rejection code `{other}`"
                )));
            }
        })
    }
}

/// One rejected tuple under one requirement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RejectingProvider {
    /// Tuple key `<providerId>/<modelName>` (upstream's name says provider; it is a tuple).
    pub id: String,
    /// Why.
    pub reason: RejectionReason,
}

/// One requirement that rejected at least one tuple (spec §2.6).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

impl<'de> Deserialize<'de> for CapabilityUnsatisfiable {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Raw {
            code: String,
            tenant_id: Option<String>,
            reasons: Vec<UnsatisfiedRequirement>,
        }
        let raw = Raw::deserialize(d)?;
        if raw.code != Self::CODE {
            return Err(D::Error::custom(format_args!(
                "expected code `{}`",
                Self::CODE
            )));
        }
        Ok(CapabilityUnsatisfiable {
            tenant_id: raw.tenant_id,
            reasons: raw.reasons,
        })
    }
}

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
