//! Wire types: the serde shapes of the upstream TypeScript router, field for field
//! (spec §1). They carry no behaviour beyond small accessors; routing lives in
//! [`crate::route`].
//!
//! JSON `null` is read as "absent" everywhere (spec §6.6): upstream would throw on a `null`
//! deny list, which no caller could want.

use super::numfmt::{serialize_js, serialize_js_opt};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;

/// The closed set of model features, in declaration order (spec §1.1).
///
/// Routing compares feature strings exactly and accepts any string; only the capability
/// schema restricts a `feature` need to this list.
pub const FEATURES: [&str; 13] = [
    "structured-output",
    "vision",
    "audio-input",
    "audio-output",
    "tool-use",
    "parallel-tool-use",
    "thinking",
    "long-context",
    "code-execution",
    "web-search",
    "file-search",
    "streaming",
    "batch",
];

/// Built-in capability kinds (spec §1.1). Kinds are an open set; these are the well-known ones.
pub const BUILT_IN_CAPABILITY_KINDS: [&str; 5] = [
    "llm-inference",
    "embedding",
    "gpu-compute",
    "sandbox-exec",
    "browser-session",
];

/// The kind assumed when a capability or provider declares none.
pub const DEFAULT_CAPABILITY_KIND: &str = "llm-inference";

/// A comparison operator of a `contextWindow` or `costPerCall` need (spec §1.1).
///
/// A closed grammar: any other string is refused when the need is parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ComparisonOp {
    /// `>=`
    #[serde(rename = ">=")]
    Ge,
    /// `>`
    #[serde(rename = ">")]
    Gt,
    /// `=` (exact IEEE equality, no epsilon)
    #[serde(rename = "=")]
    Eq,
    /// `<=`
    #[serde(rename = "<=")]
    Le,
    /// `<`
    #[serde(rename = "<")]
    Lt,
}

impl ComparisonOp {
    /// The operator as written in JSON and in labels.
    pub fn as_str(self) -> &'static str {
        match self {
            ComparisonOp::Ge => ">=",
            ComparisonOp::Gt => ">",
            ComparisonOp::Eq => "=",
            ComparisonOp::Le => "<=",
            ComparisonOp::Lt => "<",
        }
    }

    /// Whether `observed <op> wanted` holds (IEEE comparisons; NaN fails every op).
    pub fn holds(self, observed: f64, wanted: f64) -> bool {
        match self {
            ComparisonOp::Ge => observed >= wanted,
            ComparisonOp::Gt => observed > wanted,
            ComparisonOp::Eq => observed == wanted,
            ComparisonOp::Le => observed <= wanted,
            ComparisonOp::Lt => observed < wanted,
        }
    }
}

impl fmt::Display for ComparisonOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The operator of a `p95LatencyMs` need: an upper bound only (spec §1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UpperBoundOp {
    /// `<=`
    #[serde(rename = "<=")]
    Le,
    /// `<`
    #[serde(rename = "<")]
    Lt,
}

impl UpperBoundOp {
    /// The operator as written in JSON and in labels.
    pub fn as_str(self) -> &'static str {
        match self {
            UpperBoundOp::Le => "<=",
            UpperBoundOp::Lt => "<",
        }
    }

    /// Whether `observed <op> bound` holds.
    pub fn holds(self, observed: f64, bound: f64) -> bool {
        match self {
            UpperBoundOp::Le => observed <= bound,
            UpperBoundOp::Lt => observed < bound,
        }
    }
}

impl fmt::Display for UpperBoundOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `{ op, value }` of a `contextWindow` need; `value` in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextWindowBound {
    /// How the model's context window compares to `value`.
    pub op: ComparisonOp,
    /// Tokens.
    #[serde(serialize_with = "serialize_js")]
    pub value: f64,
}

/// `{ op, usd }` of a `costPerCall` need: compared to the model's prompt price per 1k tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostBound {
    /// How the prompt price compares to `usd`.
    pub op: ComparisonOp,
    /// US dollars per 1k prompt tokens.
    #[serde(serialize_with = "serialize_js")]
    pub usd: f64,
}

/// `{ op, value }` of a `p95LatencyMs` need; `value` in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LatencyBound {
    /// `<=` or `<`.
    pub op: UpperBoundOp,
    /// Milliseconds.
    #[serde(serialize_with = "serialize_js")]
    pub value: f64,
}

/// `{ allow?, deny? }` lists of a `providers` / `models` need or a tenant policy.
///
/// An absent `allow` allows everything; a present one (even `[]`) allows only its entries.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllowDeny {
    /// Only these pass, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow: Option<Vec<String>>,
    /// These are rejected, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deny: Option<Vec<String>>,
}

/// One hard constraint of a capability (spec §1.4).
///
/// The JSON shape is one object with exactly one of the keys `feature`, `contextWindow`,
/// `costPerCall`, `region`, `p95LatencyMs`, `providers`, `models` (a `null` value counts as
/// absent). Any other key, two keys, or none is an input error: upstream's router picks the
/// first key present and rejects every tuple for a need with none ("unknown requirement
/// shape"), which turns a typo into an unsatisfiable route; runstart is stricter and says which
/// key is wrong. [`Requirement::Unknown`] is never produced by parsing.
///
/// # Examples
///
/// ```
/// use runstart::route::{ComparisonOp, Requirement};
///
/// let r: Requirement = serde_json::from_str(r#"{"contextWindow":{"op":">=","value":128000}}"#)?;
/// assert!(matches!(r, Requirement::ContextWindow(b) if b.op == ComparisonOp::Ge));
/// assert!(serde_json::from_str::<Requirement>(r#"{"contextWindow":{"op":"!=","value":1}}"#).is_err());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Requirement {
    /// `{ feature }`: the model's `features` contain this string.
    Feature(String),
    /// `{ contextWindow: { op, value } }`.
    ContextWindow(ContextWindowBound),
    /// `{ costPerCall: { op, usd } }` on the prompt price.
    CostPerCall(CostBound),
    /// `{ region }`: the provider's region equals it exactly.
    Region(String),
    /// `{ p95LatencyMs: { op, value } }`; a model without a p95 fails.
    P95LatencyMs(LatencyBound),
    /// `{ providers: { allow?, deny? } }` on the provider id.
    Providers(AllowDeny),
    /// `{ models: { allow?, deny? } }` on the model name.
    Models(AllowDeny),
    /// None of the seven keys. Parsing refuses such a need; this variant exists for callers
    /// that build requirements in code, and rejects every tuple, as upstream does.
    Unknown(Map<String, Value>),
}

/// The seven discriminating keys, in upstream's precedence order.
const REQUIREMENT_KEYS: [&str; 7] = [
    "feature",
    "contextWindow",
    "costPerCall",
    "region",
    "p95LatencyMs",
    "providers",
    "models",
];

impl<'de> Deserialize<'de> for Requirement {
    /// Reads a need with exactly one of the seven keys (the capability schema's `oneOf`,
    /// router.md §1.10). Upstream's router would ignore a misspelt key and reject every tuple
    /// with "unknown requirement shape"; runstart refuses the input instead, naming the key, so
    /// `{"feture": "tool-use"}` is an input error rather than an unsatisfiable route. A `null`
    /// value counts as absent (spec §6.6).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(RequirementVisitor)
    }
}

struct RequirementVisitor;

impl<'de> serde::de::Visitor<'de> for RequirementVisitor {
    type Value = Requirement;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a need object with one of the keys feature, contextWindow, costPerCall, region, p95LatencyMs, providers, models")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Requirement, A::Error> {
        let mut found: Option<(&'static str, Requirement)> = None;
        while let Some(key) = map.next_key::<String>()? {
            let Some(&known) = REQUIREMENT_KEYS.iter().find(|k| **k == key) else {
                return Err(A::Error::unknown_field(&key, &REQUIREMENT_KEYS));
            };
            let parsed = match known {
                "feature" => map
                    .next_value::<Option<String>>()?
                    .map(Requirement::Feature),
                "contextWindow" => map
                    .next_value::<Option<_>>()?
                    .map(Requirement::ContextWindow),
                "costPerCall" => map.next_value::<Option<_>>()?.map(Requirement::CostPerCall),
                "region" => map.next_value::<Option<String>>()?.map(Requirement::Region),
                "p95LatencyMs" => map
                    .next_value::<Option<_>>()?
                    .map(Requirement::P95LatencyMs),
                "providers" => map.next_value::<Option<_>>()?.map(Requirement::Providers),
                _ => map.next_value::<Option<_>>()?.map(Requirement::Models),
            };
            let Some(parsed) = parsed else { continue };
            if let Some((first, _)) = found {
                return Err(A::Error::custom(format_args!(
                    "a need has exactly one key, but this one has both `{first}` and `{known}`; split it into two needs"
                )));
            }
            found = Some((known, parsed));
        }
        found.map(|(_, r)| r).ok_or_else(|| {
            A::Error::custom(
                "a need names one of `feature`, `contextWindow`, `costPerCall`, `region`, `p95LatencyMs`, `providers`, `models`; this one names none",
            )
        })
    }
}

impl Serialize for Requirement {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        if let Requirement::Unknown(map) = self {
            return map.serialize(s);
        }
        let mut m = s.serialize_map(Some(1))?;
        match self {
            Requirement::Feature(f) => m.serialize_entry("feature", f)?,
            Requirement::ContextWindow(b) => m.serialize_entry("contextWindow", b)?,
            Requirement::CostPerCall(b) => m.serialize_entry("costPerCall", b)?,
            Requirement::Region(r) => m.serialize_entry("region", r)?,
            Requirement::P95LatencyMs(b) => m.serialize_entry("p95LatencyMs", b)?,
            Requirement::Providers(l) => m.serialize_entry("providers", l)?,
            Requirement::Models(l) => m.serialize_entry("models", l)?,
            Requirement::Unknown(_) => {}
        }
        m.end()
    }
}

/// A soft preference: adds `weight` to a tuple's score when the model's features or the
/// provider's attributes contain `feature` (spec §2.8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preference {
    /// A feature name or a provider attribute (`lower-cost`, `local`, …).
    pub feature: String,
    /// Added once when matched; may be negative.
    #[serde(serialize_with = "serialize_js")]
    pub weight: f64,
}

/// Declarative budget carried with a capability; nothing enforces it (spec §1.4).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Budget {
    /// US dollars.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_js_opt"
    )]
    pub max_cost_usd: Option<f64>,
    /// Tokens.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_js_opt"
    )]
    pub max_tokens: Option<f64>,
    /// Milliseconds.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_js_opt"
    )]
    pub max_duration_ms: Option<f64>,
}

/// What an agent asks of a model (spec §1.4).
///
/// Routing accepts any capability that parses (even `needs: []`); the stricter schema rules
/// are checked by [`crate::route::validate_capability`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capability {
    /// Requested kind; absent means [`DEFAULT_CAPABILITY_KIND`]. An empty string stays empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Hard constraints, all of which a tuple must meet.
    pub needs: Vec<Requirement>,
    /// Soft preferences, in scoring order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefer: Option<Vec<Preference>>,
    /// Declarative budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<Budget>,
}

impl Capability {
    /// The requested kind with the default applied.
    pub fn kind_or_default(&self) -> &str {
        self.kind.as_deref().unwrap_or(DEFAULT_CAPABILITY_KIND)
    }
}

/// A model's prices (spec §1.2). Extra vendor keys are kept and ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCost {
    /// US dollars per 1k prompt tokens: the router's cost proxy.
    #[serde(serialize_with = "serialize_js")]
    pub prompt_usd_per_1k_tokens: f64,
    /// US dollars per 1k completion tokens; never read by the router.
    #[serde(serialize_with = "serialize_js")]
    pub completion_usd_per_1k_tokens: f64,
    /// Vendor extensions, ignored.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// When a model thinks and its lowest setting (newest upstream only; ignored by routing).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelThinking {
    /// `adaptive` or `always`.
    pub mode: ThinkingMode,
    /// The vendor's lowest thinking setting.
    pub lowest: String,
}

/// [`ModelThinking::mode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThinkingMode {
    /// Thinks when the call asks for it.
    Adaptive,
    /// Always thinks.
    Always,
}

/// One model a provider exposes (spec §1.2).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelInfo {
    /// Vendor model id, unique within the provider.
    pub name: String,
    /// Tokens.
    #[serde(serialize_with = "serialize_js")]
    pub context_window: f64,
    /// Feature strings (not validated).
    pub features: Vec<String>,
    /// Prices.
    pub cost: ModelCost,
    /// Milliseconds; absent fails any `p95LatencyMs` need.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_js_opt"
    )]
    pub p95_latency_ms: Option<f64>,
    /// Tokens; ignored by routing.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_js_opt"
    )]
    pub max_output_tokens: Option<f64>,
    /// `false` means the model takes no temperature; ignored by routing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<bool>,
    /// Thinking support; ignored by routing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<ModelThinking>,
    /// Free text; ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// One provider connection (spec §1.3).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderMetadata {
    /// Provider id, unique per tenant.
    pub id: String,
    /// Region, compared exactly (`unspecified` is just a string).
    pub region: String,
    /// Models, in expansion order.
    pub models: Vec<ModelInfo>,
    /// Within this provider, this model wins ties.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_model: Option<String>,
    /// Soft attributes matched only by preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<Vec<String>>,
    /// Free text; ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Absent means [`DEFAULT_CAPABILITY_KIND`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capability_kind: Option<String>,
    /// Only the JSON value `true` marks a fallback; any other value (a truthy string
    /// included) reads as `false`, as upstream's `=== true` does.
    #[serde(
        default,
        deserialize_with = "only_true",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub fallback: bool,
    /// Labels; ignored by routing, validated at registration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
}

impl ProviderMetadata {
    /// The provider's kind with the default applied.
    pub fn kind_or_default(&self) -> &str {
        self.capability_kind
            .as_deref()
            .unwrap_or(DEFAULT_CAPABILITY_KIND)
    }

    /// Whether `attributes` contains `s`.
    pub fn has_attribute(&self, s: &str) -> bool {
        self.attributes
            .as_deref()
            .is_some_and(|a| a.iter().any(|x| x == s))
    }
}

fn only_true<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(matches!(Value::deserialize(d)?, Value::Bool(true)))
}

/// The routing policy of one tenant (policy kind `model-routing`, spec §1.5).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TenantPolicy {
    /// Copied into the error's `tenantId`; not checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant_id: Option<String>,
    /// Provider id lists; a present `allow` (even `[]`) restricts, fail closed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub providers: Option<AllowDeny>,
    /// Model name lists, across providers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub models: Option<AllowDeny>,
    /// Allowed provider regions; `[]` allows none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region_allow: Option<Vec<String>>,
    /// A model passes iff its prompt price per 1k tokens is `<=` this (US dollars).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_js_opt"
    )]
    pub max_cost_per_call_usd: Option<f64>,
    /// A model passes iff its context window is `>=` this (tokens). Upstream's name and docs
    /// say "cap", but the predicate is a minimum; kept for conformance (spec §6.1).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_js_opt"
    )]
    pub max_tokens_per_call: Option<f64>,
}

/// What [`crate::route::route`] reads (spec §1.6): the capability, the tenant's provider slice
/// in registry order, and the optional policy and hints.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RouteInput {
    /// What is asked for.
    pub capability: Capability,
    /// The tenant's providers, in registration order (the expansion order).
    pub providers: Vec<ProviderMetadata>,
    /// Tenant routing policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant_policy: Option<TenantPolicy>,
    /// Promote this provider's tuples (exact id match).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_provider: Option<String>,
    /// Promote tuples with this model name (exact match).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_model: Option<String>,
}

/// The router's answer (spec §1.6), with providers and models named by id and name.
///
/// Serializes as `{providerId, model, alternates: [[providerId, modelName]…], fallback,
/// reason}`: the conformance cases' shape, with the provider id named `providerId` as
/// upstream's journal, rejection reasons and a plan's route name it (the cases write
/// `provider`, which is also read).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoutingDecision {
    /// Picked provider id.
    #[serde(rename = "providerId", alias = "provider")]
    pub provider: String,
    /// Picked model name.
    pub model: String,
    /// The remaining ranked candidates, best first.
    pub alternates: Vec<(String, String)>,
    /// Whether the pick is a fallback provider (no regular provider survived).
    pub fallback: bool,
    /// Human explanation, upstream's exact text (spec §2.11).
    pub reason: String,
}
