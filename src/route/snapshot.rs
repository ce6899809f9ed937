//! The compiled fast path: a tenant's provider slice turned into flat rows once, so that a
//! route call is a bitset filter over tuples in precomputed tie-break order plus, when
//! preferences or hints apply, a sort of integer keys.

use super::check::{self, Check};
use super::error::CapabilityUnsatisfiable;
use super::reference::{self, Tuple};
use super::wire::{
    Capability, ComparisonOp, ModelInfo, ProviderMetadata, Requirement, RouteInput,
    RoutingDecision, TenantPolicy, UpperBoundOp,
};
use std::collections::BTreeMap;

/// Sorted string table: lookups are binary searches (byte comparisons), never hashing.
#[derive(Debug, Clone, Default)]
struct SymTable {
    entries: Vec<(Box<str>, u32)>,
}

impl SymTable {
    fn build<'a>(strings: impl IntoIterator<Item = &'a str>) -> (SymTable, BTreeMap<&'a str, u32>) {
        let mut map = BTreeMap::new();
        for s in strings {
            let next = u32::try_from(map.len()).unwrap_or(u32::MAX);
            map.entry(s).or_insert(next);
        }
        let entries = map.iter().map(|(s, i)| (Box::from(*s), *i)).collect();
        (SymTable { entries }, map)
    }

    fn get(&self, s: &str) -> Option<u32> {
        self.entries
            .binary_search_by(|(k, _)| k.as_ref().cmp(s))
            .ok()
            .and_then(|i| self.entries.get(i))
            .map(|(_, v)| *v)
    }

    fn len(&self) -> usize {
        self.entries.len()
    }
}

/// One `(provider, model)` tuple, flattened.
#[derive(Debug, Clone, Copy)]
struct Row {
    provider: u32,
    model: u32,
    pid: u32,
    mname: u32,
    region: u32,
    kind: u32,
    context_window: f64,
    prompt_cost: f64,
    /// NaN when the model reports none: every comparison with NaN fails, which is exactly
    /// upstream's `p95-latency-unknown` rejection.
    p95: f64,
    fallback: bool,
}

/// A tenant's providers compiled for routing (spec §2).
///
/// Built once by [`RouteSnapshot::compile`]; immutable, `Send + Sync`, answers through `&self`
/// (hold it in an `Arc`/`ArcSwap` and swap in a new one when the registry changes).
///
/// # Examples
///
/// ```
/// use runstart::route::{Capability, ProviderMetadata, RouteRequest, RouteSnapshot};
///
/// let providers: Vec<ProviderMetadata> = serde_json::from_str(r#"[
///   {"id": "b", "region": "eu", "models": [{"name": "m", "contextWindow": 8000,
///     "features": [], "cost": {"promptUsdPer1kTokens": 0, "completionUsdPer1kTokens": 0}}]},
///   {"id": "a", "region": "eu", "models": [{"name": "m", "contextWindow": 8000,
///     "features": [], "cost": {"promptUsdPer1kTokens": 0, "completionUsdPer1kTokens": 0}}]}
/// ]"#)?;
/// let snapshot = RouteSnapshot::compile(providers);
/// let capability = Capability::default();
/// let routed = snapshot.route(&RouteRequest::new(&capability)).expect("routable");
/// assert_eq!(routed.provider().id, "a"); // ties break on provider id
/// assert_eq!(routed.alternates().count(), 1);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct RouteSnapshot {
    providers: Vec<ProviderMetadata>,
    rows: Vec<Row>,
    /// Tuple indices in tie-break order (spec §2.9), ties kept in expansion order.
    order: Vec<u32>,
    provider_ids: SymTable,
    model_names: SymTable,
    regions: SymTable,
    kinds: SymTable,
    /// Feature names and provider attributes (what preferences match).
    tags: SymTable,
    /// `u64` words per tag bitset.
    words: usize,
    /// Per row, `words` words: the model's features.
    feature_bits: Vec<u64>,
    /// Per row, `words` words: the model's features and the provider's attributes.
    tag_bits: Vec<u64>,
}

/// What a snapshot route call reads besides the providers: the capability, the optional
/// tenant policy and the optional hints (spec §1.6).
#[derive(Debug, Clone, Copy)]
pub struct RouteRequest<'a> {
    /// What is asked for.
    pub capability: &'a Capability,
    /// Tenant routing policy.
    pub tenant_policy: Option<&'a TenantPolicy>,
    /// Promote this provider id's tuples.
    pub preferred_provider: Option<&'a str>,
    /// Promote tuples with this model name.
    pub preferred_model: Option<&'a str>,
}

impl<'a> RouteRequest<'a> {
    /// A request with no policy and no hints.
    pub fn new(capability: &'a Capability) -> RouteRequest<'a> {
        RouteRequest {
            capability,
            tenant_policy: None,
            preferred_provider: None,
            preferred_model: None,
        }
    }

    /// The request part of a [`RouteInput`] (its providers are ignored).
    pub fn from_input(input: &'a RouteInput) -> RouteRequest<'a> {
        RouteRequest {
            capability: &input.capability,
            tenant_policy: input.tenant_policy.as_ref(),
            preferred_provider: input.preferred_provider.as_deref(),
            preferred_model: input.preferred_model.as_deref(),
        }
    }
}

/// Reusable per-call buffers for [`RouteSnapshot::route_with`]. Keep one per thread (or per
/// task) to route without allocating anything but the result.
#[derive(Debug, Default)]
pub struct Scratch {
    pmask: Vec<u64>,
    mmask: Vec<u64>,
    rmask: Vec<u64>,
    need_features: Vec<u64>,
    nums: Vec<NumCheck>,
    prefs: Vec<(u32, f64)>,
    regular: Vec<u32>,
    fallbacks: Vec<u32>,
    keys: Vec<u128>,
}

#[derive(Debug, Clone, Copy)]
enum Field {
    ContextWindow,
    PromptCost,
    P95,
}

#[derive(Debug, Clone, Copy)]
struct NumCheck {
    field: Field,
    op: ComparisonOp,
    value: f64,
}

/// Bits of one list dimension (provider ids, model names or regions): bit 0 marks "on some
/// deny list"; each allow list owns one further bit.
#[derive(Debug, Clone, Copy, Default)]
struct Dim {
    deny: u64,
    allow: u64,
    next: u32,
}

const NO_SYM: u32 = u32::MAX;

/// The per-call query, compiled into the scratch buffers.
#[derive(Debug, Clone, Copy)]
struct Query {
    impossible: bool,
    /// More allow lists than bits: evaluate the generic predicates instead.
    generic: bool,
    kind: u32,
    p: Dim,
    m: Dim,
    r: Dim,
}

impl Dim {
    fn add_deny(&mut self, mask: &mut [u64], table: &SymTable, list: &[String]) {
        self.deny = 1;
        for s in list {
            if let Some(slot) = table.get(s).and_then(|i| mask.get_mut(i as usize)) {
                *slot |= 1;
            }
        }
    }

    /// Returns false when the 63 allow bits are used up.
    fn add_allow<'s>(
        &mut self,
        mask: &mut [u64],
        table: &SymTable,
        list: impl IntoIterator<Item = &'s str>,
    ) -> bool {
        self.next = self.next.max(1);
        if self.next >= 64 {
            return false;
        }
        let bit = 1u64 << self.next;
        self.next += 1;
        self.allow |= bit;
        for s in list {
            if let Some(slot) = table.get(s).and_then(|i| mask.get_mut(i as usize)) {
                *slot |= bit;
            }
        }
        true
    }

    #[inline]
    fn passes(&self, bits: u64) -> bool {
        bits & self.deny == 0 && bits & self.allow == self.allow
    }
}

fn reset(v: &mut Vec<u64>, len: usize) {
    v.clear();
    v.resize(len, 0);
}

/// Maps a score to a `u64` whose ascending order is the score's descending order; `-0` and
/// `0` map alike, NaN goes last.
fn descending_score_key(score: f64) -> u64 {
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

impl RouteSnapshot {
    /// Compiles a tenant's provider slice (in registry order, which is the expansion order).
    ///
    /// Interns ids, names, regions, kinds and feature/attribute strings, builds the feature
    /// bitsets and sorts the tuples once by the collation tie-break.
    ///
    /// # Complexity
    ///
    /// O(t·log t · s) for t tuples and collation cost s: paid once, not per route.
    pub fn compile(providers: Vec<ProviderMetadata>) -> RouteSnapshot {
        let (provider_ids, pid_map) = SymTable::build(providers.iter().map(|p| p.id.as_str()));
        let (model_names, mname_map) = SymTable::build(
            providers
                .iter()
                .flat_map(|p| p.models.iter().map(|m| m.name.as_str())),
        );
        let (regions, region_map) = SymTable::build(providers.iter().map(|p| p.region.as_str()));
        let (kinds, kind_map) = SymTable::build(providers.iter().map(|p| p.kind_or_default()));
        let (tags, tag_map) = SymTable::build(providers.iter().flat_map(|p| {
            p.models
                .iter()
                .flat_map(|m| m.features.iter().map(String::as_str))
                .chain(p.attributes.iter().flatten().map(String::as_str))
        }));
        let words = tags.len().div_ceil(64).max(1);
        let sym = |map: &BTreeMap<&str, u32>, s: &str| map.get(s).copied().unwrap_or(NO_SYM);
        let mut rows = Vec::new();
        let mut feature_bits = Vec::new();
        let mut tag_bits = Vec::new();
        for (pi, p) in providers.iter().enumerate() {
            let mut attr = vec![0u64; words];
            for a in p.attributes.iter().flatten() {
                set_bit(&mut attr, sym(&tag_map, a));
            }
            for (mi, m) in p.models.iter().enumerate() {
                let mut feat = vec![0u64; words];
                for f in &m.features {
                    set_bit(&mut feat, sym(&tag_map, f));
                }
                tag_bits.extend(feat.iter().zip(&attr).map(|(f, a)| f | a));
                feature_bits.extend(feat);
                rows.push(Row {
                    provider: u32::try_from(pi).unwrap_or(u32::MAX),
                    model: u32::try_from(mi).unwrap_or(u32::MAX),
                    pid: sym(&pid_map, &p.id),
                    mname: sym(&mname_map, &m.name),
                    region: sym(&region_map, &p.region),
                    kind: sym(&kind_map, p.kind_or_default()),
                    context_window: m.context_window,
                    prompt_cost: m.cost.prompt_usd_per_1k_tokens,
                    p95: m.p95_latency_ms.unwrap_or(f64::NAN),
                    fallback: p.fallback,
                });
            }
        }
        let mut order: Vec<u32> = (0..u32::try_from(rows.len()).unwrap_or(u32::MAX)).collect();
        {
            let tuple = |i: u32| -> Option<Tuple<'_>> {
                let r = rows.get(i as usize)?;
                let p = providers.get(r.provider as usize)?;
                Some((p, p.models.get(r.model as usize)?))
            };
            // Stable: tuples the comparator calls equal keep expansion order (spec §2.8).
            order.sort_by(|&a, &b| match (tuple(a), tuple(b)) {
                (Some(x), Some(y)) => reference::tie_break(x, y),
                _ => a.cmp(&b),
            });
        }
        drop((pid_map, mname_map, region_map, kind_map, tag_map));
        RouteSnapshot {
            providers,
            rows,
            order,
            provider_ids,
            model_names,
            regions,
            kinds,
            tags,
            words,
            feature_bits,
            tag_bits,
        }
    }

    /// The providers, in slice order.
    pub fn providers(&self) -> &[ProviderMetadata] {
        &self.providers
    }

    /// How many `(provider, model)` tuples the snapshot holds.
    pub fn tuple_count(&self) -> usize {
        self.rows.len()
    }

    fn tuple(&self, i: u32) -> Option<Tuple<'_>> {
        let r = self.rows.get(i as usize)?;
        let p = self.providers.get(r.provider as usize)?;
        Some((p, p.models.get(r.model as usize)?))
    }

    /// Routes with fresh scratch buffers; see [`RouteSnapshot::route_with`].
    ///
    /// # Errors
    ///
    /// As [`RouteSnapshot::route_with`].
    pub fn route(&self, request: &RouteRequest<'_>) -> Result<Routed<'_>, CapabilityUnsatisfiable> {
        self.route_with(request, &mut Scratch::default())
    }

    /// Routes one request (spec §2.3–§2.11), reusing `scratch`; the answer equals
    /// [`crate::route::route`] on the same providers.
    ///
    /// Requested strings (kind, features, ids, names, regions, preference tags, hints) are
    /// looked up once per call by binary search; tuples are then filtered by integer and
    /// bitset tests in precomputed tie-break order, so without preferences or hints no sort
    /// happens at all. With a warm `scratch`, only the returned [`Routed`] allocates.
    ///
    /// # Errors
    ///
    /// [`CapabilityUnsatisfiable`] when no tuple survives; only then are the per-requirement
    /// diagnostics built (by the same predicates as the reference path).
    ///
    /// # Complexity
    ///
    /// O(t·(w + n) + c·log c) for t tuples, w bitset words, n numeric needs and c candidates
    /// that a sort must reorder (none when there are no preferences and no hints).
    pub fn route_with(
        &self,
        request: &RouteRequest<'_>,
        scratch: &mut Scratch,
    ) -> Result<Routed<'_>, CapabilityUnsatisfiable> {
        let q = self.compile_query(request, scratch);
        scratch.regular.clear();
        scratch.fallbacks.clear();
        if !q.impossible {
            if q.generic {
                let checks = check::checks(request.capability, request.tenant_policy);
                for &i in &self.order {
                    if let (Some((p, m)), Some(row)) = (self.tuple(i), self.rows.get(i as usize))
                        && checks.iter().all(|c| c.passes(p, m))
                    {
                        if row.fallback {
                            &mut scratch.fallbacks
                        } else {
                            &mut scratch.regular
                        }
                        .push(i);
                    }
                }
            } else {
                self.filter(&q, scratch);
            }
        }
        let fallback = scratch.regular.is_empty();
        let candidates = if fallback {
            &scratch.fallbacks
        } else {
            &scratch.regular
        };
        if candidates.is_empty() {
            return Err(self.diagnose(request));
        }
        let prefs = request.capability.prefer.as_deref().unwrap_or_default();
        let hints = request.preferred_provider.is_some() || request.preferred_model.is_some();
        let order = if prefs.is_empty() && !hints {
            candidates.clone()
        } else {
            let want_p = request
                .preferred_provider
                .map(|s| self.provider_ids.get(s).unwrap_or(NO_SYM));
            let want_m = request
                .preferred_model
                .map(|s| self.model_names.get(s).unwrap_or(NO_SYM));
            scratch.keys.clear();
            for (pos, &i) in candidates.iter().enumerate() {
                let Some(row) = self.rows.get(i as usize) else {
                    continue;
                };
                let hit = want_p.is_none_or(|w| w == row.pid && w != NO_SYM)
                    && want_m.is_none_or(|w| w == row.mname && w != NO_SYM);
                let score_key = if prefs.is_empty() {
                    0
                } else {
                    let base = i as usize * self.words;
                    let mut score = 0.0;
                    for &(tag, weight) in &scratch.prefs {
                        if tag != NO_SYM && has_bit(&self.tag_bits, base, tag) {
                            score += weight;
                        }
                    }
                    descending_score_key(score)
                };
                let pos = u32::try_from(pos).unwrap_or(u32::MAX);
                scratch.keys.push(
                    (u128::from(!hit) << 96) | (u128::from(score_key) << 32) | u128::from(pos),
                );
            }
            // Keys are unique (they end in the position), so an unstable sort is deterministic.
            scratch.keys.sort_unstable();
            scratch
                .keys
                .iter()
                .filter_map(|k| candidates.get((*k & 0xffff_ffff) as usize).copied())
                .collect()
        };
        Ok(Routed {
            snapshot: self,
            order,
            fallback,
            needs: request.capability.needs.len(),
            tenant_policy: request.tenant_policy.is_some(),
            prefs: prefs.len(),
        })
    }

    /// The bitset filter over tuples in tie-break order.
    fn filter(&self, q: &Query, s: &mut Scratch) {
        let words = self.words;
        for &i in &self.order {
            let Some(row) = self.rows.get(i as usize) else {
                continue;
            };
            if row.kind != q.kind {
                continue;
            }
            let base = i as usize * words;
            let feats = self
                .feature_bits
                .get(base..base + words)
                .unwrap_or_default();
            if feats
                .iter()
                .zip(&s.need_features)
                .any(|(have, need)| have & need != *need)
            {
                continue;
            }
            let bits = |mask: &[u64], sym: u32| mask.get(sym as usize).copied().unwrap_or(0);
            if !q.p.passes(bits(&s.pmask, row.pid))
                || !q.m.passes(bits(&s.mmask, row.mname))
                || !q.r.passes(bits(&s.rmask, row.region))
            {
                continue;
            }
            if !s.nums.iter().all(|c| {
                let v = match c.field {
                    Field::ContextWindow => row.context_window,
                    Field::PromptCost => row.prompt_cost,
                    Field::P95 => row.p95,
                };
                c.op.holds(v, c.value)
            }) {
                continue;
            }
            if row.fallback {
                s.fallbacks.push(i);
            } else {
                s.regular.push(i);
            }
        }
    }

    fn compile_query(&self, req: &RouteRequest<'_>, s: &mut Scratch) -> Query {
        reset(&mut s.pmask, self.provider_ids.len());
        reset(&mut s.mmask, self.model_names.len());
        reset(&mut s.rmask, self.regions.len());
        reset(&mut s.need_features, self.words);
        s.nums.clear();
        s.prefs.clear();
        let mut q = Query {
            impossible: false,
            generic: false,
            kind: NO_SYM,
            p: Dim::default(),
            m: Dim::default(),
            r: Dim::default(),
        };
        match self.kinds.get(req.capability.kind_or_default()) {
            Some(k) => q.kind = k,
            None => q.impossible = true,
        }
        let mut fits = true;
        for need in &req.capability.needs {
            match need {
                Requirement::Feature(f) => match self.tags.get(f) {
                    Some(t) => set_bit(&mut s.need_features, t),
                    None => q.impossible = true,
                },
                Requirement::ContextWindow(b) => s.nums.push(NumCheck {
                    field: Field::ContextWindow,
                    op: b.op,
                    value: b.value,
                }),
                Requirement::CostPerCall(b) => s.nums.push(NumCheck {
                    field: Field::PromptCost,
                    op: b.op,
                    value: b.usd,
                }),
                Requirement::P95LatencyMs(b) => s.nums.push(NumCheck {
                    field: Field::P95,
                    op: match b.op {
                        UpperBoundOp::Le => ComparisonOp::Le,
                        UpperBoundOp::Lt => ComparisonOp::Lt,
                    },
                    value: b.value,
                }),
                Requirement::Region(r) => {
                    fits &= q.r.add_allow(&mut s.rmask, &self.regions, [r.as_str()]);
                }
                Requirement::Providers(l) => {
                    if let Some(d) = &l.deny {
                        q.p.add_deny(&mut s.pmask, &self.provider_ids, d);
                    }
                    if let Some(a) = &l.allow {
                        fits &= q.p.add_allow(
                            &mut s.pmask,
                            &self.provider_ids,
                            a.iter().map(String::as_str),
                        );
                    }
                }
                Requirement::Models(l) => {
                    if let Some(d) = &l.deny {
                        q.m.add_deny(&mut s.mmask, &self.model_names, d);
                    }
                    if let Some(a) = &l.allow {
                        fits &= q.m.add_allow(
                            &mut s.mmask,
                            &self.model_names,
                            a.iter().map(String::as_str),
                        );
                    }
                }
                Requirement::Unknown(_) => q.impossible = true,
            }
        }
        if let Some(policy) = req.tenant_policy {
            if let Some(l) = &policy.providers {
                if let Some(d) = &l.deny {
                    q.p.add_deny(&mut s.pmask, &self.provider_ids, d);
                }
                if let Some(a) = &l.allow {
                    fits &= q.p.add_allow(
                        &mut s.pmask,
                        &self.provider_ids,
                        a.iter().map(String::as_str),
                    );
                }
            }
            if let Some(l) = &policy.models {
                if let Some(d) = &l.deny {
                    q.m.add_deny(&mut s.mmask, &self.model_names, d);
                }
                if let Some(a) = &l.allow {
                    fits &= q.m.add_allow(
                        &mut s.mmask,
                        &self.model_names,
                        a.iter().map(String::as_str),
                    );
                }
            }
            if let Some(a) = &policy.region_allow {
                fits &=
                    q.r.add_allow(&mut s.rmask, &self.regions, a.iter().map(String::as_str));
            }
            if let Some(cap) = policy.max_cost_per_call_usd {
                s.nums.push(NumCheck {
                    field: Field::PromptCost,
                    op: ComparisonOp::Le,
                    value: cap,
                });
            }
            if let Some(cap) = policy.max_tokens_per_call {
                // A minimum despite the name (spec §6.1), as upstream.
                s.nums.push(NumCheck {
                    field: Field::ContextWindow,
                    op: ComparisonOp::Ge,
                    value: cap,
                });
            }
        }
        q.generic = !fits;
        for pref in req.capability.prefer.as_deref().unwrap_or_default() {
            s.prefs
                .push((self.tags.get(&pref.feature).unwrap_or(NO_SYM), pref.weight));
        }
        q
    }

    /// The `capability-unsatisfiable` diagnostics for a request, whether or not it routes
    /// (spec §2.6): one entry per requirement that rejects some tuple.
    pub fn diagnose(&self, request: &RouteRequest<'_>) -> CapabilityUnsatisfiable {
        let checks: Vec<Check<'_>> = check::checks(request.capability, request.tenant_policy);
        let tuples = reference::expand(&self.providers);
        reference::diagnose(
            &checks,
            &tuples,
            request.tenant_policy.and_then(|p| p.tenant_id.clone()),
        )
    }
}

fn set_bit(bits: &mut [u64], sym: u32) {
    if sym == NO_SYM {
        return;
    }
    if let Some(w) = bits.get_mut(sym as usize / 64) {
        *w |= 1 << (sym % 64);
    }
}

#[inline]
fn has_bit(bits: &[u64], base: usize, sym: u32) -> bool {
    bits.get(base + sym as usize / 64)
        .is_some_and(|w| w & (1 << (sym % 64)) != 0)
}

/// A successful snapshot route: the pick, the ranked alternates and the facts behind
/// `reason`, borrowing the snapshot's providers.
#[derive(Debug, Clone)]
pub struct Routed<'s> {
    snapshot: &'s RouteSnapshot,
    /// Tuple indices, best first; never empty.
    order: Vec<u32>,
    fallback: bool,
    needs: usize,
    tenant_policy: bool,
    prefs: usize,
}

impl<'s> Routed<'s> {
    fn pick(&self) -> Tuple<'s> {
        self.order
            .first()
            .and_then(|&i| self.snapshot.tuple(i))
            // ok: a Routed is only built from a non-empty candidate list of valid indices
            .expect("a routed answer has a pick")
    }

    /// The picked provider.
    pub fn provider(&self) -> &'s ProviderMetadata {
        self.pick().0
    }

    /// The picked model.
    pub fn model(&self) -> &'s ModelInfo {
        self.pick().1
    }

    /// The remaining ranked candidates, best first.
    pub fn alternates(&self) -> impl Iterator<Item = (&'s ProviderMetadata, &'s ModelInfo)> + '_ {
        self.order
            .iter()
            .skip(1)
            .filter_map(|&i| self.snapshot.tuple(i))
    }

    /// Whether the pick is a fallback provider.
    pub fn fallback(&self) -> bool {
        self.fallback
    }

    /// Upstream's `reason` text (spec §2.11), built on demand.
    pub fn reason(&self) -> String {
        let (p, m) = self.pick();
        check::reason_text(
            &p.id,
            &m.name,
            self.needs,
            self.fallback,
            self.tenant_policy,
            self.prefs,
        )
    }

    /// The owned wire form.
    pub fn to_decision(&self) -> RoutingDecision {
        let (p, m) = self.pick();
        RoutingDecision {
            provider: p.id.clone(),
            model: m.name.clone(),
            alternates: self
                .alternates()
                .map(|(p, m)| (p.id.clone(), m.name.clone()))
                .collect(),
            fallback: self.fallback,
            reason: self.reason(),
        }
    }
}
