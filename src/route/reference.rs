//! The plain per-call router: expands tuples, evaluates every requirement with string
//! comparisons and sorts with the collator on every call. It is the executable reading of the
//! spec; the snapshot path is tested against it.

use super::check::{self, Check};
use super::collate;
use super::error::{CapabilityUnsatisfiable, RejectingProvider, UnsatisfiedRequirement};
use super::wire::{ModelInfo, ProviderMetadata, RouteInput, RoutingDecision};
use std::cmp::Ordering;

pub(crate) type Tuple<'a> = (&'a ProviderMetadata, &'a ModelInfo);

/// Every `(provider, model)` in slice order, then model order (spec §2.2).
pub(crate) fn expand(providers: &[ProviderMetadata]) -> Vec<Tuple<'_>> {
    providers
        .iter()
        .flat_map(|p| p.models.iter().map(move |m| (p, m)))
        .collect()
}

/// The tie-break comparator (spec §2.9): provider id by collation, then the provider's
/// default model first, then model name by collation.
pub(crate) fn tie_break(a: Tuple<'_>, b: Tuple<'_>) -> Ordering {
    collate::compare(&a.0.id, &b.0.id)
        .then_with(|| {
            let da = a.0.default_model.as_deref() == Some(a.1.name.as_str());
            let db = b.0.default_model.as_deref() == Some(b.1.name.as_str());
            db.cmp(&da)
        })
        .then_with(|| collate::compare(&a.1.name, &b.1.name))
}

/// Per-requirement diagnostics over every tuple (spec §2.6).
pub(crate) fn diagnose(
    checks: &[Check<'_>],
    tuples: &[Tuple<'_>],
    tenant_id: Option<String>,
) -> CapabilityUnsatisfiable {
    let mut reasons = Vec::new();
    if !tuples.is_empty() {
        for c in checks {
            let mut satisfying = Vec::new();
            let mut rejecting = Vec::new();
            for &(p, m) in tuples {
                match c.evaluate(p, m) {
                    None => satisfying.push(check::tuple_key(p, m)),
                    Some(reason) => rejecting.push(RejectingProvider {
                        id: check::tuple_key(p, m),
                        reason,
                    }),
                }
            }
            if !rejecting.is_empty() {
                reasons.push(UnsatisfiedRequirement {
                    requirement: c.label(),
                    satisfying_providers: satisfying,
                    rejecting_providers: rejecting,
                });
            }
        }
    }
    CapabilityUnsatisfiable { tenant_id, reasons }
}

/// Survivors ranked (spec §2.5–§2.10): indices into `tuples`, best first, and whether they
/// are fallback tuples. Empty when nothing survives.
pub(crate) fn ranked(
    input: &RouteInput,
    checks: &[Check<'_>],
    tuples: &[Tuple<'_>],
) -> (Vec<usize>, bool) {
    // Rejections are tracked per tuple, not per `provider/model` key (a deliberate fix of the
    // key-collision quirk of spec §2.5 / §6.2).
    let survivors: Vec<usize> = (0..tuples.len())
        .filter(|&i| {
            tuples
                .get(i)
                .is_some_and(|&(p, m)| checks.iter().all(|c| c.passes(p, m)))
        })
        .collect();
    let at = |i: usize| tuples.get(i).copied();
    let regular: Vec<usize> = survivors
        .iter()
        .copied()
        .filter(|&i| at(i).is_some_and(|t| !t.0.fallback))
        .collect();
    let (mut candidates, fallback) = if regular.is_empty() {
        (survivors, true)
    } else {
        (regular, false)
    };
    let order = |a: usize, b: usize| match (at(a), at(b)) {
        (Some(x), Some(y)) => tie_break(x, y),
        _ => a.cmp(&b),
    };
    let prefs = input.capability.prefer.as_deref().unwrap_or_default();
    if prefs.is_empty() {
        candidates.sort_by(|&a, &b| order(a, b));
    } else {
        let score = |i: usize| at(i).map_or(0.0, |(p, m)| check::score(prefs, p, m));
        let mut scored: Vec<(f64, usize)> = candidates.iter().map(|&i| (score(i), i)).collect();
        scored.sort_by(|a, b| {
            // Descending; `==` ties (0 == -0) fall through to the tie-break. NaN (only from
            // +inf + -inf weights) sorts last, keeping the order total (spec §6.10).
            check::score_order(a.0, b.0).then_with(|| order(a.1, b.1))
        });
        candidates = scored.into_iter().map(|(_, i)| i).collect();
    }
    let pp = input.preferred_provider.as_deref();
    let pm = input.preferred_model.as_deref();
    if pp.is_some() || pm.is_some() {
        let hit = |i: &usize| {
            at(*i)
                .is_some_and(|t| pp.is_none_or(|x| t.0.id == x) && pm.is_none_or(|x| t.1.name == x))
        };
        let (mut hits, misses): (Vec<usize>, Vec<usize>) = candidates.into_iter().partition(hit);
        hits.extend(misses);
        candidates = hits;
    }
    (candidates, fallback)
}

/// The reference implementation of [`super::route`].
pub(crate) fn route(input: &RouteInput) -> Result<RoutingDecision, CapabilityUnsatisfiable> {
    let policy = input.tenant_policy.as_ref();
    let checks = check::checks(&input.capability, policy);
    let tuples = expand(&input.providers);
    let (order, fallback) = ranked(input, &checks, &tuples);
    let mut it = order.into_iter().filter_map(|i| tuples.get(i).copied());
    let Some((p, m)) = it.next() else {
        return Err(diagnose(
            &checks,
            &tuples,
            policy.and_then(|p| p.tenant_id.clone()),
        ));
    };
    Ok(RoutingDecision {
        provider: p.id.clone(),
        model: m.name.clone(),
        alternates: it.map(|(p, m)| (p.id.clone(), m.name.clone())).collect(),
        fallback,
        reason: check::reason_text(
            &p.id,
            &m.name,
            input.capability.needs.len(),
            fallback,
            policy.is_some(),
            input.capability.prefer.as_ref().map_or(0, Vec::len),
        ),
    })
}
