//! Capabilities and tenant policies compiled once, at registration, into global string numbers
//! ([`super::symbols`]), so that a route call maps a few integers to the snapshot's symbols and
//! then only filters and ranks.
//!
//! Nothing here depends on a snapshot: a compiled capability stays valid while providers
//! register and unregister (each change builds a new snapshot, which numbers its strings with
//! the same global numbers), and one compiled capability serves every tenant that shares the
//! pack it came from.

use super::interval::Bounds;
use super::symbols::{Global, Interner};
use super::wire::{AllowDeny, Capability, Requirement, TenantPolicy};

/// Up to this many preferences, ranking buckets candidates by matched-preference subset
/// (2^6 subsets × hint hit/miss = 128 buckets).
pub(crate) const MAX_SUBSET_PREFS: usize = 6;

/// The global numbers of one list dimension's entries (provider ids, model names or regions).
#[derive(Debug, Clone, Default)]
pub(crate) struct Lists {
    /// Every deny list's entries (deny lists share one bit, so their union is all that counts).
    pub deny: Vec<Global>,
    /// Each allow list's entries; each list owns one bit.
    pub allow: Vec<Vec<Global>>,
}

impl Lists {
    fn add(&mut self, t: &mut Interner, ok: &mut bool, l: &AllowDeny) {
        if let Some(d) = &l.deny {
            self.deny.extend(d.iter().map(|s| intern(t, ok, s)));
        }
        if let Some(a) = &l.allow {
            self.allow_list(t, ok, a.iter().map(String::as_str));
        }
    }

    fn allow_list<'a>(
        &mut self,
        t: &mut Interner,
        ok: &mut bool,
        list: impl IntoIterator<Item = &'a str>,
    ) {
        let list = list.into_iter().map(|s| intern(t, ok, s)).collect();
        self.allow.push(list);
    }
}

fn intern(t: &mut Interner, ok: &mut bool, s: &str) -> Global {
    t.intern(s).unwrap_or_else(|| {
        *ok = false;
        Global::MAX
    })
}

/// The ranks of the 2·2^P (hint miss, matched-preference subset) buckets for P preferences:
/// a tuple's score depends only on which preferences it matches, so the 2^P scores are summed
/// once (in preference order, as the reference does) and ranked by (hint miss, descending
/// score); equal keys share a rank.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SubsetRanks {
    pub subsets: usize,
    pub rank_of: [u8; 2 << MAX_SUBSET_PREFS],
}

impl SubsetRanks {
    /// `None` past [`MAX_SUBSET_PREFS`] preferences.
    pub fn new(weights: &[f64]) -> Option<SubsetRanks> {
        if weights.len() > MAX_SUBSET_PREFS {
            return None;
        }
        let subsets = 1usize << weights.len();
        // Entry `miss * subsets + subset` → dense rank of its (miss, descending score) key.
        let mut keyed = [(0u128, 0usize); 2 << MAX_SUBSET_PREFS];
        for (idx, slot) in keyed.iter_mut().enumerate().take(2 * subsets) {
            let (miss, subset) = (idx / subsets, idx % subsets);
            let mut score = 0.0;
            for (k, &weight) in weights.iter().enumerate() {
                if subset >> k & 1 == 1 {
                    score += weight;
                }
            }
            let score_key = if weights.is_empty() {
                0
            } else {
                descending_score_key(score)
            };
            *slot = ((u128::from(miss == 1) << 64) | u128::from(score_key), idx);
        }
        let keyed = keyed.get_mut(..2 * subsets)?;
        keyed.sort_unstable();
        let mut rank_of = [0u8; 2 << MAX_SUBSET_PREFS];
        let mut rank = 0u8;
        for w in 0..keyed.len() {
            if w > 0 && keyed.get(w - 1).map(|e| e.0) != keyed.get(w).map(|e| e.0) {
                rank += 1;
            }
            if let Some(&(_, idx)) = keyed.get(w)
                && let Some(slot) = rank_of.get_mut(idx)
            {
                *slot = rank;
            }
        }
        Some(SubsetRanks { subsets, rank_of })
    }
}

/// Maps a score to a `u64` whose ascending order is the score's descending order; `-0` and
/// `0` map alike, NaN goes last.
pub(crate) fn descending_score_key(score: f64) -> u64 {
    if score.is_nan() {
        return u64::MAX;
    }
    let bits = (score + 0.0).to_bits();
    let ascending = if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    !ascending
}

/// A capability (and, optionally, the preferred provider and model that promote tuples)
/// compiled for [`super::RouteSnapshot::route_compiled`].
///
/// Compile it once, when the declaration is registered; it holds global string numbers, not
/// any snapshot's symbols, so it stays valid across provider changes and is shared by every
/// tenant (design notes in `route/symbols.rs`). Routing it gives exactly the answer of
/// [`super::RouteSnapshot::route_with`] on the same request.
///
/// # Examples
///
/// ```
/// use runstart::route::{Capability, CompiledCapability, ProviderMetadata, RouteSnapshot, Scratch};
///
/// let capability: Capability = serde_json::from_str(r#"{"needs": [{"feature": "vision"}]}"#)?;
/// let compiled = CompiledCapability::new(capability, None, None);
/// let providers: Vec<ProviderMetadata> = serde_json::from_str(r#"[
///   {"id": "a", "region": "eu", "models": [{"name": "m", "contextWindow": 8000,
///     "features": ["vision"], "cost": {"promptUsdPer1kTokens": 0, "completionUsdPer1kTokens": 0}}]}
/// ]"#)?;
/// // Compiled before the snapshot existed: still valid for it.
/// let snapshot = RouteSnapshot::compile(providers);
/// let routed = snapshot
///     .route_compiled(&compiled, None, true, &mut Scratch::default())
///     .expect("routable");
/// assert_eq!(routed.provider().id, "a");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct CompiledCapability {
    pub(crate) capability: Capability,
    pub(crate) preferred_provider: Option<String>,
    pub(crate) preferred_model: Option<String>,
    /// Every string got a number (else routes take the per-call string path).
    pub(crate) complete: bool,
    pub(crate) kind: Global,
    pub(crate) features: Vec<Global>,
    /// A need runstart does not know: nothing routes.
    pub(crate) unknown_need: bool,
    pub(crate) providers: Lists,
    pub(crate) models: Lists,
    pub(crate) regions: Lists,
    pub(crate) bounds: Bounds,
    /// Preference tags, in scoring order, with their weights.
    pub(crate) prefs: Vec<(Global, f64)>,
    pub(crate) ranks: Option<SubsetRanks>,
    pub(crate) hint_provider: Option<Global>,
    pub(crate) hint_model: Option<Global>,
}

impl CompiledCapability {
    /// Compiles a declaration and the hints that promote tuples when routing it with hints on
    /// (an agent's `preferredProvider` and `preferredModel`).
    pub fn new(
        capability: Capability,
        preferred_provider: Option<String>,
        preferred_model: Option<String>,
    ) -> CompiledCapability {
        let mut t = Interner::lock();
        let mut ok = true;
        let kind = intern(&mut t, &mut ok, capability.kind_or_default());
        let (mut providers, mut models, mut regions) =
            (Lists::default(), Lists::default(), Lists::default());
        let mut features = Vec::new();
        let mut bounds = Bounds::default();
        let mut unknown_need = false;
        for need in &capability.needs {
            if bounds.need(need) {
                continue;
            }
            match need {
                Requirement::Feature(f) => features.push(intern(&mut t, &mut ok, f)),
                Requirement::Region(r) => regions.allow_list(&mut t, &mut ok, [r.as_str()]),
                Requirement::Providers(l) => providers.add(&mut t, &mut ok, l),
                Requirement::Models(l) => models.add(&mut t, &mut ok, l),
                _ => unknown_need = true,
            }
        }
        let prefer = capability.prefer.as_deref().unwrap_or_default();
        let prefs: Vec<(Global, f64)> = prefer
            .iter()
            .map(|p| (intern(&mut t, &mut ok, &p.feature), p.weight))
            .collect();
        let weights: Vec<f64> = prefs.iter().map(|p| p.1).collect();
        let hint_provider = preferred_provider
            .as_deref()
            .map(|s| intern(&mut t, &mut ok, s));
        let hint_model = preferred_model
            .as_deref()
            .map(|s| intern(&mut t, &mut ok, s));
        drop(t);
        CompiledCapability {
            ranks: SubsetRanks::new(&weights),
            capability,
            preferred_provider,
            preferred_model,
            complete: ok,
            kind,
            features,
            unknown_need,
            providers,
            models,
            regions,
            bounds,
            prefs,
            hint_provider,
            hint_model,
        }
    }

    /// The declaration.
    pub fn capability(&self) -> &Capability {
        &self.capability
    }
}

/// A tenant routing policy compiled for [`super::RouteSnapshot::route_compiled`]: compile it
/// when the policy is set; like [`CompiledCapability`] it holds global string numbers and
/// stays valid across provider changes.
#[derive(Debug, Clone)]
pub struct CompiledPolicy {
    pub(crate) policy: TenantPolicy,
    pub(crate) complete: bool,
    pub(crate) providers: Lists,
    pub(crate) models: Lists,
    pub(crate) regions: Lists,
    pub(crate) bounds: Bounds,
}

impl CompiledPolicy {
    /// Compiles a policy.
    pub fn new(policy: TenantPolicy) -> CompiledPolicy {
        let mut t = Interner::lock();
        let mut ok = true;
        let (mut providers, mut models, mut regions) =
            (Lists::default(), Lists::default(), Lists::default());
        if let Some(l) = &policy.providers {
            providers.add(&mut t, &mut ok, l);
        }
        if let Some(l) = &policy.models {
            models.add(&mut t, &mut ok, l);
        }
        if let Some(a) = &policy.region_allow {
            regions.allow_list(&mut t, &mut ok, a.iter().map(String::as_str));
        }
        drop(t);
        let mut bounds = Bounds::default();
        bounds.policy(&policy);
        CompiledPolicy {
            policy,
            complete: ok,
            providers,
            models,
            regions,
            bounds,
        }
    }

    /// The policy.
    pub fn policy(&self) -> &TenantPolicy {
        &self.policy
    }
}
