//! The requirement list of one route call (spec §2.3), each requirement's label (§2.12) and
//! predicate (§2.4). Shared by the reference path, the snapshot's diagnostics and `explain`.

use super::error::RejectionReason;
use super::numfmt::Js;
use super::wire::{AllowDeny, Capability, ModelInfo, ProviderMetadata, Requirement, TenantPolicy};
use std::fmt::{self, Write};

/// One requirement of the fixed-order list: kind gate, needs, then tenant rules.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Check<'a> {
    Kind(&'a str),
    Need(&'a Requirement),
    TenantProvidersDeny(&'a [String]),
    TenantProvidersAllow(&'a [String]),
    TenantModelsDeny(&'a [String]),
    TenantModelsAllow(&'a [String]),
    TenantRegionAllow(&'a [String]),
    TenantMaxCost(f64),
    TenantMaxTokens(f64),
}

/// Builds the list in upstream's order (spec §2.3). Deny lists are emitted only when
/// non-empty; allow lists whenever present, since `[]` fails closed.
pub(crate) fn checks<'a>(
    capability: &'a Capability,
    policy: Option<&'a TenantPolicy>,
) -> Vec<Check<'a>> {
    let mut out = Vec::with_capacity(1 + capability.needs.len() + 7);
    out.push(Check::Kind(capability.kind_or_default()));
    out.extend(capability.needs.iter().map(Check::Need));
    if let Some(p) = policy {
        let providers = p.providers.as_ref();
        let models = p.models.as_ref();
        if let Some(d) = providers
            .and_then(|l| l.deny.as_deref())
            .filter(|d| !d.is_empty())
        {
            out.push(Check::TenantProvidersDeny(d));
        }
        if let Some(a) = providers.and_then(|l| l.allow.as_deref()) {
            out.push(Check::TenantProvidersAllow(a));
        }
        if let Some(d) = models
            .and_then(|l| l.deny.as_deref())
            .filter(|d| !d.is_empty())
        {
            out.push(Check::TenantModelsDeny(d));
        }
        if let Some(a) = models.and_then(|l| l.allow.as_deref()) {
            out.push(Check::TenantModelsAllow(a));
        }
        if let Some(a) = p.region_allow.as_deref() {
            out.push(Check::TenantRegionAllow(a));
        }
        if let Some(c) = p.max_cost_per_call_usd {
            out.push(Check::TenantMaxCost(c));
        }
        if let Some(c) = p.max_tokens_per_call {
            out.push(Check::TenantMaxTokens(c));
        }
    }
    out
}

fn contains(list: &[String], s: &str) -> bool {
    list.iter().any(|x| x == s)
}

fn owned(list: &[String]) -> Vec<String> {
    list.to_vec()
}

impl Check<'_> {
    /// Whether the tuple passes. Allocation-free.
    pub(crate) fn passes(&self, p: &ProviderMetadata, m: &ModelInfo) -> bool {
        match *self {
            Check::Kind(k) => p.kind_or_default() == k,
            Check::Need(r) => match r {
                Requirement::Feature(f) => contains(&m.features, f),
                Requirement::ContextWindow(b) => b.op.holds(m.context_window, b.value),
                Requirement::CostPerCall(b) => b.op.holds(m.cost.prompt_usd_per_1k_tokens, b.usd),
                Requirement::Region(r) => p.region == *r,
                Requirement::P95LatencyMs(b) => {
                    m.p95_latency_ms.is_some_and(|v| b.op.holds(v, b.value))
                }
                Requirement::Providers(l) => allow_deny_passes(l, &p.id),
                Requirement::Models(l) => allow_deny_passes(l, &m.name),
                Requirement::Unknown(_) => false,
            },
            Check::TenantProvidersDeny(d) => !contains(d, &p.id),
            Check::TenantProvidersAllow(a) => contains(a, &p.id),
            Check::TenantModelsDeny(d) => !contains(d, &m.name),
            Check::TenantModelsAllow(a) => contains(a, &m.name),
            Check::TenantRegionAllow(a) => contains(a, &p.region),
            Check::TenantMaxCost(c) => m.cost.prompt_usd_per_1k_tokens <= c,
            // Upstream's predicate is a minimum despite the name (spec §6.1); kept.
            Check::TenantMaxTokens(c) => m.context_window >= c,
        }
    }

    /// `None` when the tuple passes, else why it fails.
    pub(crate) fn evaluate(&self, p: &ProviderMetadata, m: &ModelInfo) -> Option<RejectionReason> {
        if self.passes(p, m) {
            return None;
        }
        Some(match *self {
            Check::Kind(k) => RejectionReason::CapabilityKindMismatch {
                observed: p.kind_or_default().to_owned(),
                wanted: k.to_owned(),
            },
            Check::Need(r) => match r {
                Requirement::Feature(f) => RejectionReason::MissingFeature { feature: f.clone() },
                Requirement::ContextWindow(b) => RejectionReason::ContextWindowMismatch {
                    observed: m.context_window,
                    op: b.op,
                    wanted: b.value,
                },
                Requirement::CostPerCall(b) => RejectionReason::CostExceedsCap {
                    observed_usd_per_1k: m.cost.prompt_usd_per_1k_tokens,
                    op: b.op,
                    wanted_usd: b.usd,
                },
                Requirement::Region(r) => RejectionReason::RegionMismatch {
                    observed: p.region.clone(),
                    wanted: r.clone(),
                },
                Requirement::P95LatencyMs(b) => match m.p95_latency_ms {
                    None => RejectionReason::P95LatencyUnknown,
                    Some(v) => RejectionReason::P95LatencyExceeds {
                        observed_ms: v,
                        op: b.op,
                        wanted_ms: b.value,
                    },
                },
                Requirement::Providers(l) => {
                    if l.deny.as_deref().is_some_and(|d| contains(d, &p.id)) {
                        RejectionReason::ProviderOnDenylist {
                            provider_id: p.id.clone(),
                        }
                    } else {
                        RejectionReason::ProviderNotInAllowlist {
                            provider_id: p.id.clone(),
                            allow: owned(l.allow.as_deref().unwrap_or_default()),
                        }
                    }
                }
                Requirement::Models(l) => {
                    if l.deny.as_deref().is_some_and(|d| contains(d, &m.name)) {
                        RejectionReason::ModelOnDenylist {
                            model_name: m.name.clone(),
                        }
                    } else {
                        RejectionReason::ModelNotInAllowlist {
                            model_name: m.name.clone(),
                            allow: owned(l.allow.as_deref().unwrap_or_default()),
                        }
                    }
                }
                Requirement::Unknown(_) => RejectionReason::UnknownRequirement,
            },
            Check::TenantProvidersDeny(_) => RejectionReason::TenantDenied {
                provider_id: p.id.clone(),
            },
            Check::TenantProvidersAllow(_) => RejectionReason::TenantNotAllowed {
                provider_id: p.id.clone(),
            },
            Check::TenantModelsDeny(_) => RejectionReason::TenantModelDenied {
                model_name: m.name.clone(),
            },
            Check::TenantModelsAllow(_) => RejectionReason::TenantModelNotAllowed {
                model_name: m.name.clone(),
            },
            Check::TenantRegionAllow(a) => RejectionReason::TenantRegionNotAllowed {
                observed: p.region.clone(),
                allow: owned(a),
            },
            Check::TenantMaxCost(c) => RejectionReason::TenantCostCapExceeded {
                observed_usd: m.cost.prompt_usd_per_1k_tokens,
                cap_usd: c,
            },
            Check::TenantMaxTokens(c) => RejectionReason::TenantContextWindowBelowCap {
                observed: m.context_window,
                cap: c,
            },
        })
    }

    /// The requirement's label (spec §2.12).
    pub(crate) fn label(&self) -> String {
        let mut s = String::new();
        let _ = self.write_label(&mut s);
        s
    }

    fn write_label(&self, s: &mut String) -> fmt::Result {
        match *self {
            Check::Kind(k) => write!(s, "capability.kind = {k}"),
            Check::Need(r) => match r {
                Requirement::Feature(f) => write!(s, "feature:{f}"),
                Requirement::ContextWindow(b) => write!(s, "contextWindow{}{}", b.op, Js(b.value)),
                Requirement::CostPerCall(b) => write!(s, "costPerCall{}${}", b.op, Js(b.usd)),
                Requirement::Region(r) => write!(s, "region={r}"),
                Requirement::P95LatencyMs(b) => {
                    write!(s, "p95LatencyMs{}{}", b.op, Js(b.value))
                }
                Requirement::Providers(l) => write_allow_deny(s, "providers", l),
                Requirement::Models(l) => write_allow_deny(s, "models", l),
                Requirement::Unknown(_) => s.write_str("unknown"),
            },
            Check::TenantProvidersDeny(l) => write!(s, "tenant.providers.deny[{}]", l.join(",")),
            Check::TenantProvidersAllow(l) => {
                write!(s, "tenant.providers.allow[{}]", l.join(","))
            }
            Check::TenantModelsDeny(l) => write!(s, "tenant.models.deny[{}]", l.join(",")),
            Check::TenantModelsAllow(l) => write!(s, "tenant.models.allow[{}]", l.join(",")),
            Check::TenantRegionAllow(l) => write!(s, "tenant.regionAllow[{}]", l.join(",")),
            Check::TenantMaxCost(c) => write!(s, "tenant.maxCostPerCallUsd<={}", Js(c)),
            // Upstream's label says `<=` although the predicate is `>=` (spec §2.12); kept.
            Check::TenantMaxTokens(c) => write!(s, "tenant.maxTokensPerCall<={}", Js(c)),
        }
    }
}

fn allow_deny_passes(l: &AllowDeny, s: &str) -> bool {
    if l.deny.as_deref().is_some_and(|d| contains(d, s)) {
        return false;
    }
    l.allow.as_deref().is_none_or(|a| contains(a, s))
}

fn write_allow_deny(s: &mut String, name: &str, l: &AllowDeny) -> fmt::Result {
    let allow = l.allow.as_deref().unwrap_or_default().join(",");
    let deny = l.deny.as_deref().unwrap_or_default().join(",");
    write!(s, "{name}{{allow:[{allow}]deny:[{deny}]}}")
}

/// The preference score of a tuple (spec §2.8): weights summed in preference order, each
/// preference counted once when the model's features or the provider's attributes name it.
pub(crate) fn score(prefs: &[super::wire::Preference], p: &ProviderMetadata, m: &ModelInfo) -> f64 {
    let mut total = 0.0;
    for pref in prefs {
        if contains(&m.features, &pref.feature) || p.has_attribute(&pref.feature) {
            total += pref.weight;
        }
    }
    total
}

/// Orders scores descending, `0 == -0`, NaN after everything (a total order, unlike V8's
/// NaN-as-equal comparator, spec §6.10).
pub(crate) fn score_order(a: f64, b: f64) -> std::cmp::Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Greater,
        (false, true) => std::cmp::Ordering::Less,
        (false, false) => b.partial_cmp(&a).unwrap_or(std::cmp::Ordering::Equal),
    }
}

/// Tuple key `<providerId>/<modelName>` as used in diagnostics.
pub(crate) fn tuple_key(p: &ProviderMetadata, m: &ModelInfo) -> String {
    let mut k = String::with_capacity(p.id.len() + 1 + m.name.len());
    k.push_str(&p.id);
    k.push('/');
    k.push_str(&m.name);
    k
}

/// The `reason` text of a decision (spec §2.11).
pub(crate) fn reason_text(
    provider: &str,
    model: &str,
    needs: usize,
    fallback: bool,
    tenant_policy: bool,
    prefs: usize,
) -> String {
    let mut s = String::with_capacity(64 + provider.len() + model.len());
    let _ = write!(
        s,
        "picked \"{provider}\"/\"{model}\", satisfies {needs} constraint(s)"
    );
    if fallback {
        s.push_str(", a fallback provider \u{2014} no other registered provider satisfies it");
    }
    if tenant_policy {
        s.push_str(", respects tenant policy");
    }
    if prefs > 0 {
        let _ = write!(s, ", ranked top of {prefs} preference(s)");
    }
    s
}
