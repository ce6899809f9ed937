//! Providers per tenant (spec §4.1): registration checks in upstream's order, duplicates
//! refused, insertion order kept, tenants isolated, `unregister` as a tombstone.

use super::snapshot::RouteSnapshot;
use super::wire::ProviderMetadata;
use serde_json::Value;
use std::collections::BTreeMap;

/// The label key runtimes use to mark providers they manage.
pub const PROVIDER_LABEL_MANAGED_BY: &str = "kindgi.com/managed-by";
/// At most this many labels per provider.
pub const PROVIDER_LABELS_MAX_KEYS: usize = 32;
/// At most this many UTF-16 code units per label value.
pub const PROVIDER_LABEL_VALUE_MAX_LENGTH: usize = 256;

/// Why provider metadata was refused: upstream's `reason` of an `invalid-provider` error
/// (router.md §4.1, checks in spec order), plus runstart's `invalid-shape`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InvalidProviderReason {
    /// `invalid-shape`: the JSON passed every upstream check but does not fit the typed
    /// model (upstream, being untyped, has no such check).
    InvalidShape,
    /// `empty-id`: `id` is missing or empty.
    EmptyId,
    /// `empty-region`: `region` is missing or empty.
    EmptyRegion,
    /// `empty-models`: `models` is missing or empty.
    EmptyModels,
    /// `empty-model-name`: a model's `name` is missing or empty.
    EmptyModelName,
    /// `duplicate-model-name`: two models share a `name`.
    DuplicateModelName,
    /// `invalid-context-window`: a model's `contextWindow` is not a positive integer.
    InvalidContextWindow,
    /// `invalid-cost`: a model's prompt or completion price is missing or negative.
    InvalidCost,
    /// `invalid-p95-latency`: a model's `p95LatencyMs` is present and not a number ≥ 0.
    InvalidP95Latency,
    /// `invalid-max-output-tokens`: a model's `maxOutputTokens` is present and not a positive
    /// integer.
    InvalidMaxOutputTokens,
    /// `invalid-sampling`: a model's sampling ranges are malformed.
    InvalidSampling,
    /// `invalid-thinking`: a model's thinking settings are malformed.
    InvalidThinking,
    /// `unknown-default-model`: `defaultModel` names no model of the provider.
    UnknownDefaultModel,
    /// `invalid-labels`: `labels` break a limit (key count, key or value length, value type).
    InvalidLabels,
}

impl InvalidProviderReason {
    /// Upstream's kebab-case `reason` string.
    pub fn as_str(self) -> &'static str {
        match self {
            InvalidProviderReason::InvalidShape => "invalid-shape",
            InvalidProviderReason::EmptyId => "empty-id",
            InvalidProviderReason::EmptyRegion => "empty-region",
            InvalidProviderReason::EmptyModels => "empty-models",
            InvalidProviderReason::EmptyModelName => "empty-model-name",
            InvalidProviderReason::DuplicateModelName => "duplicate-model-name",
            InvalidProviderReason::InvalidContextWindow => "invalid-context-window",
            InvalidProviderReason::InvalidCost => "invalid-cost",
            InvalidProviderReason::InvalidP95Latency => "invalid-p95-latency",
            InvalidProviderReason::InvalidMaxOutputTokens => "invalid-max-output-tokens",
            InvalidProviderReason::InvalidSampling => "invalid-sampling",
            InvalidProviderReason::InvalidThinking => "invalid-thinking",
            InvalidProviderReason::UnknownDefaultModel => "unknown-default-model",
            InvalidProviderReason::InvalidLabels => "invalid-labels",
        }
    }
}

impl std::fmt::Display for InvalidProviderReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a registration was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// `invalid-provider`: a metadata check failed (spec §4.1 table, checks 1–13).
    #[error("{message}")]
    InvalidProvider {
        /// Upstream's `reason` (`empty-id`, `invalid-cost`, …), or `invalid-shape`.
        reason: InvalidProviderReason,
        /// Upstream's message.
        message: String,
    },
    /// `duplicate-provider`: the id is already registered for the tenant.
    #[error("{message}")]
    DuplicateProvider {
        /// The id.
        provider_id: String,
        /// `Provider "<id>" is already registered for tenant "<tenantId>"`.
        message: String,
    },
    /// A seed entry was refused; wraps the entry's own error.
    #[error("seed provider \"{provider_id}\" rejected for tenant \"{tenant_id}\": {source}")]
    Seed {
        /// Tenant of the seed entry.
        tenant_id: String,
        /// Provider id of the seed entry.
        provider_id: String,
        /// Why it was refused.
        source: Box<RegistryError>,
    },
}

impl RegistryError {
    /// `invalid-provider` or `duplicate-provider` (a seed error gives its cause's code).
    pub fn code(&self) -> &'static str {
        match self {
            RegistryError::InvalidProvider { .. } => "invalid-provider",
            RegistryError::DuplicateProvider { .. } => "duplicate-provider",
            RegistryError::Seed { source, .. } => source.code(),
        }
    }

    /// The `reason` of an `invalid-provider` error.
    pub fn reason(&self) -> Option<InvalidProviderReason> {
        match self {
            RegistryError::InvalidProvider { reason, .. } => Some(*reason),
            RegistryError::DuplicateProvider { .. } => None,
            RegistryError::Seed { source, .. } => source.reason(),
        }
    }
}

fn invalid(reason: InvalidProviderReason, message: String) -> RegistryError {
    RegistryError::InvalidProvider { reason, message }
}

#[derive(Debug, Clone, Default)]
struct TenantSlot {
    /// Registration order; `None` is a tombstone left by `unregister`.
    entries: Vec<Option<ProviderMetadata>>,
    index: BTreeMap<String, usize>,
}

impl TenantSlot {
    fn compact_if_sparse(&mut self) {
        if self.entries.len() > 16 && self.index.len() * 2 < self.entries.len() {
            self.entries.retain(Option::is_some);
            self.index = self
                .entries
                .iter()
                .enumerate()
                .filter_map(|(i, p)| p.as_ref().map(|p| (p.id.clone(), i)))
                .collect();
        }
    }
}

/// Providers per tenant, in registration order (spec §4.1).
///
/// Each provider belongs to one tenant key; the same id may be registered under several
/// tenants, and nothing crosses tenants. [`ProviderRegistry::snapshot`] compiles a tenant's
/// slice for routing.
///
/// # Examples
///
/// ```
/// use runstart::route::{ProviderMetadata, ProviderRegistry};
///
/// let p: ProviderMetadata = serde_json::from_str(r#"{"id": "a", "region": "eu", "models": [
///   {"name": "m", "contextWindow": 8000, "features": [],
///    "cost": {"promptUsdPer1kTokens": 0, "completionUsdPer1kTokens": 0}}]}"#)?;
/// let mut registry = ProviderRegistry::new();
/// registry.register("t1", p.clone()).expect("valid");
/// assert_eq!(registry.register("t1", p.clone()).unwrap_err().code(), "duplicate-provider");
/// assert!(registry.get("t2", "a").is_none()); // tenants are isolated
/// assert!(registry.unregister("t1", "a"));
/// registry.register("t1", p).expect("the id is free again");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct ProviderRegistry {
    tenants: BTreeMap<String, TenantSlot>,
}

impl ProviderRegistry {
    /// An empty registry.
    pub fn new() -> ProviderRegistry {
        ProviderRegistry::default()
    }

    /// A registry pre-populated with `(tenantId, provider)` entries, registered in order.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Seed`] for the first entry refused.
    pub fn with_seed(
        seed: impl IntoIterator<Item = (String, ProviderMetadata)>,
    ) -> Result<ProviderRegistry, RegistryError> {
        let mut r = ProviderRegistry::new();
        for (tenant, provider) in seed {
            let id = provider.id.clone();
            r.register(&tenant, provider)
                .map_err(|e| RegistryError::Seed {
                    tenant_id: tenant.clone(),
                    provider_id: id,
                    source: Box::new(e),
                })?;
        }
        Ok(r)
    }

    /// Registers a typed provider after upstream's checks (see
    /// [`ProviderRegistry::register_value`]).
    ///
    /// # Errors
    ///
    /// As [`ProviderRegistry::register_value`].
    pub fn register(
        &mut self,
        tenant_id: &str,
        provider: ProviderMetadata,
    ) -> Result<(), RegistryError> {
        let value = serde_json::to_value(&provider).map_err(|e| {
            invalid(
                InvalidProviderReason::InvalidShape,
                format!("provider \"{}\" {e}", provider.id),
            )
        })?;
        validate_provider(&value)?;
        self.insert(tenant_id, provider)
    }

    /// Registers a provider given as JSON metadata, running the checks of spec §4.1 in order
    /// and stopping at the first failure, then the duplicate check.
    ///
    /// # Errors
    ///
    /// [`RegistryError::InvalidProvider`] with upstream's `reason` and message;
    /// [`RegistryError::DuplicateProvider`] when the tenant already has the id.
    pub fn register_value(
        &mut self,
        tenant_id: &str,
        provider: &Value,
    ) -> Result<(), RegistryError> {
        validate_provider(provider)?;
        let typed: ProviderMetadata = serde_json::from_value(provider.clone()).map_err(|e| {
            let id = provider
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or_default();
            invalid(
                InvalidProviderReason::InvalidShape,
                format!("provider \"{id}\" {e}"),
            )
        })?;
        self.insert(tenant_id, typed)
    }

    fn insert(&mut self, tenant_id: &str, provider: ProviderMetadata) -> Result<(), RegistryError> {
        let slot = self.tenants.entry(tenant_id.to_owned()).or_default();
        if slot.index.contains_key(&provider.id) {
            return Err(RegistryError::DuplicateProvider {
                message: format!(
                    "Provider \"{}\" is already registered for tenant \"{tenant_id}\"",
                    provider.id
                ),
                provider_id: provider.id,
            });
        }
        slot.index.insert(provider.id.clone(), slot.entries.len());
        slot.entries.push(Some(provider));
        Ok(())
    }

    /// Removes a provider at once (a tombstone: gone from `get`, `list` and new snapshots, and
    /// its id can be registered again, landing at the end of the order). Returns whether it
    /// was registered.
    pub fn unregister(&mut self, tenant_id: &str, provider_id: &str) -> bool {
        let Some(slot) = self.tenants.get_mut(tenant_id) else {
            return false;
        };
        let Some(i) = slot.index.remove(provider_id) else {
            return false;
        };
        if let Some(e) = slot.entries.get_mut(i) {
            *e = None;
        }
        slot.compact_if_sparse();
        true
    }

    /// The tenant's provider with this id.
    pub fn get(&self, tenant_id: &str, provider_id: &str) -> Option<&ProviderMetadata> {
        let slot = self.tenants.get(tenant_id)?;
        slot.entries.get(*slot.index.get(provider_id)?)?.as_ref()
    }

    /// Whether the tenant has this provider id.
    pub fn has(&self, tenant_id: &str, provider_id: &str) -> bool {
        self.get(tenant_id, provider_id).is_some()
    }

    /// The tenant's providers in registration order (empty for an unknown tenant).
    pub fn list(&self, tenant_id: &str) -> impl Iterator<Item = &ProviderMetadata> {
        self.tenants
            .get(tenant_id)
            .into_iter()
            .flat_map(|s| s.entries.iter().flatten())
    }

    /// Compiles the tenant's current slice for routing.
    pub fn snapshot(&self, tenant_id: &str) -> RouteSnapshot {
        RouteSnapshot::compile(self.list(tenant_id).cloned().collect())
    }
}

fn non_empty_str(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// Absent or `null`.
fn absent(v: Option<&Value>) -> bool {
    v.is_none_or(Value::is_null)
}

fn is_integer(x: f64) -> bool {
    x.is_finite() && x.fract() == 0.0
}

/// Upstream's registration checks 1–13 (spec §4.1), in order; check 14 (`invoke` is a
/// function) has no counterpart, as metadata carries no code here.
fn validate_provider(v: &Value) -> Result<(), RegistryError> {
    let Some(id) = non_empty_str(v.get("id")) else {
        return Err(invalid(
            InvalidProviderReason::EmptyId,
            "provider.metadata.id required".into(),
        ));
    };
    if non_empty_str(v.get("region")).is_none() {
        return Err(invalid(
            InvalidProviderReason::EmptyRegion,
            format!("provider \"{id}\" missing metadata.region"),
        ));
    }
    let models = match v.get("models").and_then(Value::as_array) {
        Some(m) if !m.is_empty() => m,
        _ => {
            return Err(invalid(
                InvalidProviderReason::EmptyModels,
                format!("provider \"{id}\" must expose at least one model in metadata.models[]"),
            ));
        }
    };
    let mut names: Vec<&str> = Vec::with_capacity(models.len());
    for m in models {
        let Some(name) = non_empty_str(m.get("name")) else {
            return Err(invalid(
                InvalidProviderReason::EmptyModelName,
                format!("provider \"{id}\" has a model with empty name"),
            ));
        };
        if names.contains(&name) {
            return Err(invalid(
                InvalidProviderReason::DuplicateModelName,
                format!(
                    "provider \"{id}\" declares model \"{name}\" more than once in metadata.models[]"
                ),
            ));
        }
        names.push(name);
        validate_model(id, name, m)?;
    }
    if let Some(dm) = v.get("defaultModel").filter(|d| !d.is_null())
        && !dm.as_str().is_some_and(|d| names.contains(&d))
    {
        let shown = dm.as_str().map_or_else(|| dm.to_string(), str::to_owned);
        return Err(invalid(
            InvalidProviderReason::UnknownDefaultModel,
            format!(
                "provider \"{id}\" defaultModel \"{shown}\" isn't one of its models ({})",
                names.join(", ")
            ),
        ));
    }
    validate_provider_labels(id, v.get("labels"))
}

/// The registration checks (spec §4.1) of model `name`, entry `m` of provider `id`'s `models`,
/// after its name: context window, cost table, latency, output tokens, sampling, thinking.
fn validate_model(id: &str, name: &str, m: &Value) -> Result<(), RegistryError> {
    let num = |k: &str| m.get(k).and_then(Value::as_f64);
    if !num("contextWindow").is_some_and(|x| x > 0.0 && is_integer(x)) {
        return Err(invalid(
            InvalidProviderReason::InvalidContextWindow,
            format!("provider \"{id}\" model \"{name}\" contextWindow must be a positive integer"),
        ));
    }
    let cost = m.get("cost");
    let price = |k: &str| cost.and_then(|c| c.get(k)).and_then(Value::as_f64);
    if !(price("promptUsdPer1kTokens").is_some_and(|x| x >= 0.0)
        && price("completionUsdPer1kTokens").is_some_and(|x| x >= 0.0))
    {
        return Err(invalid(
            InvalidProviderReason::InvalidCost,
            format!(
                "provider \"{id}\" model \"{name}\" cost table must have non-negative promptUsdPer1kTokens + completionUsdPer1kTokens"
            ),
        ));
    }
    if !(absent(m.get("p95LatencyMs")) || num("p95LatencyMs").is_some_and(|x| x >= 0.0)) {
        return Err(invalid(
            InvalidProviderReason::InvalidP95Latency,
            format!(
                "provider \"{id}\" model \"{name}\" p95LatencyMs must be a non-negative number"
            ),
        ));
    }
    if !(absent(m.get("maxOutputTokens"))
        || num("maxOutputTokens").is_some_and(|x| x > 0.0 && is_integer(x)))
    {
        return Err(invalid(
            InvalidProviderReason::InvalidMaxOutputTokens,
            format!(
                "provider \"{id}\" model \"{name}\" maxOutputTokens must be a positive integer"
            ),
        ));
    }
    if !(absent(m.get("sampling")) || m.get("sampling").is_some_and(Value::is_boolean)) {
        return Err(invalid(
            InvalidProviderReason::InvalidSampling,
            format!("provider \"{id}\" model \"{name}\" sampling must be true or false"),
        ));
    }
    if !(absent(m.get("thinking")) || thinking_ok(m.get("thinking"))) {
        return Err(invalid(
            InvalidProviderReason::InvalidThinking,
            format!(
                "provider \"{id}\" model \"{name}\" thinking must be {{ mode: 'adaptive' | 'always', lowest: <the vendor's setting> }}"
            ),
        ));
    }
    Ok(())
}

fn thinking_ok(v: Option<&Value>) -> bool {
    let Some(obj) = v.and_then(Value::as_object) else {
        return false;
    };
    obj.len() == 2
        && matches!(
            obj.get("mode").and_then(Value::as_str),
            Some("adaptive" | "always")
        )
        && non_empty_str(obj.get("lowest")).is_some()
}

fn label_key_ok(k: &str) -> bool {
    let b = k.as_bytes();
    let edge = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let inner = |c: u8| edge(c) || matches!(c, b'.' | b'-' | b'_' | b'/');
    match b {
        [] => false,
        [c] => edge(*c),
        [first, mid @ .., last] => {
            b.len() <= 63 && edge(*first) && edge(*last) && mid.iter().all(|c| inner(*c))
        }
    }
}

/// Upstream's `validateProviderLabels` (spec §4.1 label rules): absent (or `null`) is fine;
/// otherwise an object of at most [`PROVIDER_LABELS_MAX_KEYS`] entries whose keys are 1–63
/// lowercase letters and digits (`.`, `-`, `_`, `/` inside) and whose values are strings of at
/// most [`PROVIDER_LABEL_VALUE_MAX_LENGTH`] UTF-16 code units.
///
/// Keys are checked in the JSON object's iteration order, which for `serde_json` is sorted;
/// upstream checks in insertion order, so with several bad keys the one named may differ.
///
/// # Errors
///
/// [`RegistryError::InvalidProvider`] with reason `invalid-labels` and the message
/// `provider "<id>" labels <detail>`.
///
/// # Examples
///
/// ```
/// use runstart::route::validate_provider_labels;
///
/// let bad = serde_json::json!({"Team": "x"});
/// let err = validate_provider_labels("p", Some(&bad)).unwrap_err();
/// assert_eq!(err.to_string(), r#"provider "p" labels key "Team" must be 1-63 lowercase letters and digits, with ".", "-", "_" or "/" inside"#);
/// assert!(validate_provider_labels("p", None).is_ok());
/// ```
pub fn validate_provider_labels(
    provider_id: &str,
    labels: Option<&Value>,
) -> Result<(), RegistryError> {
    let fail = |detail: String| {
        Err(invalid(
            InvalidProviderReason::InvalidLabels,
            format!("provider \"{provider_id}\" labels {detail}"),
        ))
    };
    let Some(labels) = labels.filter(|l| !l.is_null()) else {
        return Ok(());
    };
    let Some(map) = labels.as_object() else {
        return fail("must be an object of string keys to string values".into());
    };
    if map.len() > PROVIDER_LABELS_MAX_KEYS {
        return fail(format!(
            "may have at most {PROVIDER_LABELS_MAX_KEYS} keys (got {})",
            map.len()
        ));
    }
    for (k, v) in crate::js::entries(map) {
        if !label_key_ok(k) {
            return fail(format!(
                "key \"{k}\" must be 1-63 lowercase letters and digits, with \".\", \"-\", \"_\" or \"/\" inside"
            ));
        }
        let Some(s) = v.as_str() else {
            return fail(format!("value of \"{k}\" must be a string"));
        };
        let n = s.encode_utf16().count();
        if n > PROVIDER_LABEL_VALUE_MAX_LENGTH {
            return fail(format!(
                "value of \"{k}\" may be at most {PROVIDER_LABEL_VALUE_MAX_LENGTH} characters (got {n})"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn model(name: &str) -> Value {
        json!({"name": name, "contextWindow": 1000, "features": [],
               "cost": {"promptUsdPer1kTokens": 0.1, "completionUsdPer1kTokens": 0.2}})
    }

    fn reason_of(v: Value) -> (Option<&'static str>, String) {
        let mut r = ProviderRegistry::new();
        match r.register_value("t", &v) {
            Ok(()) => (None, String::new()),
            Err(e) => (e.reason().map(InvalidProviderReason::as_str), e.to_string()),
        }
    }

    #[test]
    fn checks_run_in_spec_order_with_spec_messages() {
        assert_eq!(
            reason_of(json!({"id": "", "region": ""})),
            (Some("empty-id"), "provider.metadata.id required".into())
        );
        assert_eq!(
            reason_of(json!({"id": "p", "region": ""})).1,
            "provider \"p\" missing metadata.region"
        );
        assert_eq!(
            reason_of(json!({"id": "p", "region": "r", "models": []})).0,
            Some("empty-models")
        );
        assert_eq!(
            reason_of(json!({"id": "p", "region": "r", "models": [model("a"), model("a")]})).1,
            "provider \"p\" declares model \"a\" more than once in metadata.models[]"
        );
        let mut m = model("a");
        m["contextWindow"] = json!(1.5);
        assert_eq!(
            reason_of(json!({"id": "p", "region": "r", "models": [m]})).0,
            Some("invalid-context-window")
        );
        let mut m = model("a");
        m["cost"]["completionUsdPer1kTokens"] = json!(-1);
        assert_eq!(
            reason_of(json!({"id": "p", "region": "r", "models": [m]})).0,
            Some("invalid-cost")
        );
        let mut m = model("a");
        m["p95LatencyMs"] = json!(-1);
        assert_eq!(
            reason_of(json!({"id": "p", "region": "r", "models": [m]})).0,
            Some("invalid-p95-latency")
        );
        let mut m = model("a");
        m["maxOutputTokens"] = json!(0);
        assert_eq!(
            reason_of(json!({"id": "p", "region": "r", "models": [m]})).0,
            Some("invalid-max-output-tokens")
        );
        let mut m = model("a");
        m["sampling"] = json!("yes");
        assert_eq!(
            reason_of(json!({"id": "p", "region": "r", "models": [m]})).0,
            Some("invalid-sampling")
        );
        let mut m = model("a");
        m["thinking"] = json!({"mode": "adaptive", "lowest": "low", "x": 1});
        assert_eq!(
            reason_of(json!({"id": "p", "region": "r", "models": [m]})).0,
            Some("invalid-thinking")
        );
        assert_eq!(
            reason_of(json!({"id": "p", "region": "r", "models": [model("a"), model("b")], "defaultModel": "c"})).1,
            "provider \"p\" defaultModel \"c\" isn't one of its models (a, b)"
        );
        assert_eq!(
            reason_of(json!({"id": "p", "region": "r", "models": [model("a")], "labels": ["a"]})).1,
            "provider \"p\" labels must be an object of string keys to string values"
        );
        assert_eq!(
            reason_of(json!({"id": "p", "region": "r", "models": [model("a")]})).0,
            None
        );
    }

    #[test]
    fn label_rules() {
        let check = |v: Value| validate_provider_labels("p", Some(&v)).map_err(|e| e.to_string());
        assert!(check(json!({"team": "x", "kindgi.com/managed-by": "api", "a": "b"})).is_ok());
        assert!(
            check(json!({"-team": "x"}))
                .unwrap_err()
                .contains("key \"-team\"")
        );
        let long = format!("k{}", "x".repeat(63));
        assert!(
            check(json!({ long: "x" }))
                .unwrap_err()
                .contains("must be 1-63")
        );
        assert!(
            check(json!({"team": 7}))
                .unwrap_err()
                .ends_with("value of \"team\" must be a string")
        );
        assert!(
            check(json!({"team": "x".repeat(257)}))
                .unwrap_err()
                .ends_with("may be at most 256 characters (got 257)")
        );
        let many: serde_json::Map<String, Value> =
            (0..33).map(|i| (format!("k{i}"), json!("v"))).collect();
        assert!(
            check(Value::Object(many))
                .unwrap_err()
                .ends_with("may have at most 32 keys (got 33)")
        );
    }

    #[test]
    fn tenants_are_isolated_and_unregister_is_a_tombstone() {
        let p = |id: &str| -> ProviderMetadata {
            serde_json::from_value(json!({"id": id, "region": "r", "models": [model("m")]}))
                .expect("test provider")
        };
        let mut r = ProviderRegistry::with_seed([
            ("A".to_owned(), p("a")),
            ("A".to_owned(), p("b")),
            ("B".to_owned(), p("c")),
        ])
        .expect("seed");
        let ids =
            |r: &ProviderRegistry, t: &str| r.list(t).map(|p| p.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&r, "A"), ["a", "b"]);
        assert_eq!(ids(&r, "B"), ["c"]);
        assert!(!r.has("A", "c"));
        r.register("B", p("a")).expect("same id in another tenant");
        assert!(r.unregister("A", "a"));
        assert!(!r.has("A", "a"));
        assert_eq!(ids(&r, "A"), ["b"]);
        assert_eq!(r.snapshot("A").tuple_count(), 1);
        r.register("A", p("a")).expect("id reusable");
        assert_eq!(ids(&r, "A"), ["b", "a"]);
        let err = r.register("A", p("a")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Provider \"a\" is already registered for tenant \"A\""
        );
        let seed_err = ProviderRegistry::with_seed([("T".to_owned(), p(""))]).unwrap_err();
        assert_eq!(
            seed_err.to_string(),
            "seed provider \"\" rejected for tenant \"T\": provider.metadata.id required"
        );
    }
}
