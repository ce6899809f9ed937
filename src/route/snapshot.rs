//! The compiled fast path: a tenant's provider slice turned into flat rows once, so that a
//! route call is a bitset filter over tuples in precomputed tie-break order plus, when
//! preferences or hints apply, a sort of integer keys.

use super::check::{self, Check};
use super::compiled::{
    CompiledCapability, CompiledPolicy, Lists, MAX_SUBSET_PREFS, SubsetRanks, descending_score_key,
};
use super::error::CapabilityUnsatisfiable;
use super::interval::Bounds;
use super::reference::{self, Tuple};
use super::symbols::{Global, Interner};
use super::wire::{
    AllowDeny, Capability, ModelInfo, ProviderMetadata, Requirement, RouteInput, RoutingDecision,
    TenantPolicy,
};
use std::collections::HashMap;
use std::sync::Arc;

/// The part of a row the filter reads, kept apart (32 bytes) so the filter streams half the
/// memory of full rows.
#[derive(Debug, Clone, Copy)]
struct Hot {
    context_window: f64,
    prompt_cost: f64,
    /// NaN when unknown (see [`Row::p95`]).
    p95: f64,
    provider: u32,
    mname: u32,
}

/// A row before sorting: (tie-break key, row, further feature words, further tag words).
type Staged = ((u32, bool, u32), Row, Vec<u64>, Vec<u64>);

/// Sorted string table: lookups are binary searches (byte comparisons), never hashing.
#[derive(Debug, Clone, Default)]
struct SymTable {
    entries: Vec<(Box<str>, u32)>,
}

impl SymTable {
    /// Interns `strings` (first occurrence numbered first). Compile-time only: the hash map
    /// it returns is dropped before any route runs.
    fn build<'a>(strings: impl IntoIterator<Item = &'a str>) -> (SymTable, HashMap<&'a str, u32>) {
        let mut map = HashMap::new();
        for s in strings {
            let next = u32::try_from(map.len()).unwrap_or(u32::MAX);
            map.entry(s).or_insert(next);
        }
        let mut entries: Vec<(Box<str>, u32)> =
            map.iter().map(|(s, i)| (Box::from(*s), *i)).collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        (SymTable { entries }, map)
    }

    fn get(&self, s: &str) -> Option<u32> {
        self.entries
            .binary_search_by(|(k, _)| k.as_ref().cmp(s))
            .ok()
            .and_then(|i| self.entries.get(i))
            .map(|(_, v)| *v)
    }

    /// [`SymTable::get`], `NO_SYM` when absent.
    fn sym(&self, s: &str) -> u32 {
        self.get(s).unwrap_or(NO_SYM)
    }

    fn len(&self) -> usize {
        self.entries.len()
    }
}

/// One `(provider, model)` tuple, flattened. Rows are stored in tie-break order so the
/// filter walks memory sequentially and emits survivors already ranked.
#[derive(Debug, Clone, Copy)]
struct Row {
    /// First word of the model's feature bitset.
    features: u64,
    /// First word of the features-and-attributes bitset (what preferences match).
    tags: u64,
    context_window: f64,
    prompt_cost: f64,
    /// NaN when the model reports none: every comparison with NaN fails, which is exactly
    /// upstream's `p95-latency-unknown` rejection.
    p95: f64,
    pid: u32,
    mname: u32,
    kind: u32,
    provider: u32,
    model: u32,
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
    /// Tuples in tie-break order (spec §2.9), ties kept in expansion order.
    rows: Vec<Row>,
    provider_ids: SymTable,
    model_names: SymTable,
    regions: SymTable,
    kinds: SymTable,
    /// Feature names and provider attributes (what preferences match).
    tags: SymTable,
    /// `u64` words per tag bitset; words after the first live in the `extra_*` vectors.
    words: usize,
    /// Per row, `words - 1` further words of the feature bitset.
    extra_features: Vec<u64>,
    /// Per row, `words - 1` further words of the tag bitset.
    extra_tags: Vec<u64>,
    /// The filter's columns of `rows`, same order.
    hot: Vec<Hot>,
    /// `u64` words per row set (one bit per row).
    row_words: usize,
    /// Per kind symbol, the set of rows of that kind (`row_words` words each).
    kind_rows: Vec<u64>,
    /// Per tag symbol below 64, the set of rows whose model has that feature.
    feature_rows: Vec<u64>,
    /// Per provider index: id and region symbols, and whether it is a fallback.
    provider_syms: Vec<(u32, u32, bool)>,
    /// Per row, its provider id and model name, shared so that a decision can hold them
    /// without copying the text.
    shared_names: Vec<(Arc<str>, Arc<str>)>,
    /// Every string of the tables by its global number ([`super::symbols`]), sorted: its local
    /// symbol per dimension (`D_PROVIDER` … `D_TAG`), `NO_SYM` where it is not one. This is
    /// how a capability compiled before this snapshot existed finds its symbols here.
    globals: Vec<(Global, [u32; 5])>,
    /// Whether every string got a global number (else compiled routes use the string path).
    globals_complete: bool,
}

// The lead shares snapshots across threads behind an `ArcSwap`: keep them `Send + Sync`.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<RouteSnapshot>();
};

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
    prefs: Vec<(u32, f64)>,
    regular: Vec<u32>,
    fallbacks: Vec<u32>,
    keys: Vec<u128>,
    groups: Vec<(u128, u32)>,
    group_of: Vec<u8>,
    rowset: Vec<u64>,
    provider_ok: Vec<u8>,
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

/// Dimensions of [`RouteSnapshot::globals`]: where a global string number has a local symbol.
const D_PROVIDER: usize = 0;
const D_MODEL: usize = 1;
const D_REGION: usize = 2;
const D_KIND: usize = 3;
const D_TAG: usize = 4;

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
    /// Numeric needs folded per field: context window, prompt cost, p95 latency.
    bounds: Bounds,
}

impl Dim {
    /// Marks the symbols of a deny list (`NO_SYM`: not in the snapshot, nothing to deny).
    fn add_deny(&mut self, mask: &mut [u64], list: impl IntoIterator<Item = u32>) {
        self.deny = 1;
        for sym in list {
            if let Some(slot) = mask.get_mut(sym as usize) {
                *slot |= 1;
            }
        }
    }

    /// Gives an allow list its bit; returns false when the 63 allow bits are used up.
    fn add_allow(&mut self, mask: &mut [u64], list: impl IntoIterator<Item = u32>) -> bool {
        self.next = self.next.max(1);
        if self.next >= 64 {
            return false;
        }
        let bit = 1u64 << self.next;
        self.next += 1;
        self.allow |= bit;
        for sym in list {
            if let Some(slot) = mask.get_mut(sym as usize) {
                *slot |= bit;
            }
        }
        true
    }

    /// A wire allow/deny pair, by string lookups.
    fn add_strings(&mut self, mask: &mut [u64], table: &SymTable, l: &AllowDeny) -> bool {
        if let Some(d) = &l.deny {
            self.add_deny(mask, d.iter().map(|s| table.sym(s)));
        }
        match &l.allow {
            Some(a) => self.add_allow(mask, a.iter().map(|s| table.sym(s))),
            None => true,
        }
    }

    /// Compiled lists, by global numbers.
    fn add_lists(&mut self, mask: &mut [u64], snap: &RouteSnapshot, d: usize, l: &Lists) -> bool {
        self.add_deny(mask, l.deny.iter().map(|&g| snap.local(g, d)));
        let mut fits = true;
        for a in &l.allow {
            fits &= self.add_allow(mask, a.iter().map(|&g| snap.local(g, d)));
        }
        fits
    }

    #[inline]
    fn passes(&self, bits: u64) -> bool {
        (bits & self.deny == 0) & (bits & self.allow == self.allow)
    }
}

fn reset(v: &mut Vec<u64>, len: usize) {
    v.clear();
    v.resize(len, 0);
}

impl RouteSnapshot {
    /// Compiles a tenant's provider slice (in registry order, which is the expansion order).
    ///
    /// Interns ids, names, regions, kinds and feature/attribute strings, builds the feature
    /// bitsets, ranks the distinct provider ids and model names once with the collator and
    /// stores the tuples in tie-break order.
    ///
    /// # Complexity
    ///
    /// O(u·log u · s + t·log t) for u distinct ids and names, collation cost s and t tuples:
    /// paid once, not per route.
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
        let maps = SymMaps {
            pid: &pid_map,
            mname: &mname_map,
            kind: &kind_map,
            tag: &tag_map,
        };
        let mut staged = stage_rows(&providers, &maps, words);
        // Stable: tuples the comparator calls equal keep expansion order (spec §2.8).
        staged.sort_by_key(|(key, ..)| *key);
        let mut rows = Vec::with_capacity(staged.len());
        let mut extra_features = Vec::new();
        let mut extra_tags = Vec::new();
        for (_, row, f, t) in staged {
            rows.push(row);
            extra_features.extend(f);
            extra_tags.extend(t);
        }
        let hot = rows
            .iter()
            .map(|r| Hot {
                context_window: r.context_window,
                prompt_cost: r.prompt_cost,
                p95: r.p95,
                provider: r.provider,
                mname: r.mname,
            })
            .collect();
        let row_words = rows.len().div_ceil(64);
        let (kind_rows, feature_rows) = row_bitsets(&rows, kinds.len(), tags.len(), row_words);
        let shared_names = shared_names(&providers, &rows);
        let provider_syms = providers
            .iter()
            .map(|p| {
                (
                    sym(&pid_map, &p.id),
                    sym(&region_map, &p.region),
                    p.fallback,
                )
            })
            .collect();
        let (globals, globals_complete) =
            global_symbols([&provider_ids, &model_names, &regions, &kinds, &tags]);
        RouteSnapshot {
            globals,
            globals_complete,
            providers,
            rows,
            provider_ids,
            model_names,
            regions,
            kinds,
            tags,
            words,
            extra_features,
            extra_tags,
            hot,
            row_words,
            kind_rows,
            feature_rows,
            provider_syms,
            shared_names,
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

    /// The provider id and model name of tuple `i`, an index from [`Routed::order`]; lets a
    /// caller keep a decision as indices and name its tuples only when it needs them.
    pub fn tuple_names(&self, i: u32) -> Option<(&str, &str)> {
        self.tuple(i).map(|(p, m)| (p.id.as_str(), m.name.as_str()))
    }

    /// [`RouteSnapshot::tuple_names`] as shared strings, to keep in a decision that outlives
    /// the call.
    pub fn tuple_shared_names(&self, i: u32) -> Option<(&Arc<str>, &Arc<str>)> {
        self.shared_names.get(i as usize).map(|(p, m)| (p, m))
    }

    /// Where tuple `i` (an index from [`Routed::order`]) comes from: its provider's index in
    /// [`RouteSnapshot::providers`] and its model's index in that provider's `models`. Lets a
    /// caller that holds its own copy of the slice (a language binding) map a decision back
    /// to its own objects.
    pub fn tuple_position(&self, i: u32) -> Option<(usize, usize)> {
        self.rows
            .get(i as usize)
            .map(|r| (r.provider as usize, r.model as usize))
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
    /// bitset tests in precomputed tie-break order, so without preferences or hints no
    /// reordering happens at all, and with them survivors are bucketed by (hint, score).
    /// With a warm `scratch`, only the returned [`Routed`] allocates.
    ///
    /// # Errors
    ///
    /// [`CapabilityUnsatisfiable`] when no tuple survives; only then are the per-requirement
    /// diagnostics built (by the same predicates as the reference path).
    ///
    /// # Complexity
    ///
    /// O(t·(w + n) + c·g) for t tuples, w bitset words, n numeric needs, c candidates and
    /// g distinct (hint, score) groups (a sort of c integer keys past 64 groups).
    pub fn route_with(
        &self,
        request: &RouteRequest<'_>,
        scratch: &mut Scratch,
    ) -> Result<Routed<'_>, CapabilityUnsatisfiable> {
        let q = self.compile_query(request, scratch);
        let want = (
            request.preferred_provider.map(|s| self.provider_ids.sym(s)),
            request.preferred_model.map(|s| self.model_names.sym(s)),
        );
        self.finish(request, &q, want, None, scratch)
    }

    /// Routes a capability compiled at registration under an optional compiled tenant policy,
    /// with the capability's preferred provider and model applied when `hints` is true. The
    /// answer equals [`RouteSnapshot::route_with`] on the same request; the difference is the
    /// work per call: the request's strings were numbered when compiled, so the call maps a few
    /// integers to this snapshot's symbols (no string is hashed or compared) and the preference
    /// ranking table is already built; then it filters and ranks as `route_with` does.
    ///
    /// # Errors
    ///
    /// As [`RouteSnapshot::route_with`].
    pub fn route_compiled<'s>(
        &'s self,
        capability: &CompiledCapability,
        policy: Option<&CompiledPolicy>,
        hints: bool,
        scratch: &mut Scratch,
    ) -> Result<Routed<'s>, CapabilityUnsatisfiable> {
        let request = RouteRequest {
            capability: &capability.capability,
            tenant_policy: policy.map(|p| &p.policy),
            preferred_provider: capability.preferred_provider.as_deref().filter(|_| hints),
            preferred_model: capability.preferred_model.as_deref().filter(|_| hints),
        };
        if !(self.globals_complete && capability.complete && policy.is_none_or(|p| p.complete)) {
            // Some string got no global number: the string path gives the same answer.
            return self.route_with(&request, scratch);
        }
        let q = self.compiled_query(capability, policy, scratch);
        let want = if hints {
            (
                capability.hint_provider.map(|g| self.local(g, D_PROVIDER)),
                capability.hint_model.map(|g| self.local(g, D_MODEL)),
            )
        } else {
            (None, None)
        };
        self.finish(&request, &q, want, capability.ranks.as_ref(), scratch)
    }

    /// Filters and ranks for a compiled query: `want` holds the hinted provider and model
    /// symbols (`NO_SYM`: hinted but absent), `ranks` the preference buckets when known.
    fn finish(
        &self,
        request: &RouteRequest<'_>,
        q: &Query,
        want: (Option<u32>, Option<u32>),
        ranks: Option<&SubsetRanks>,
        scratch: &mut Scratch,
    ) -> Result<Routed<'_>, CapabilityUnsatisfiable> {
        scratch.regular.clear();
        scratch.fallbacks.clear();
        if !q.impossible {
            if q.generic {
                let checks = check::checks(request.capability, request.tenant_policy);
                for (i, row) in (0u32..).zip(&self.rows) {
                    if let Some((p, m)) = self.tuple(i)
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
                self.filter(q, scratch);
            }
        }
        let fallback = scratch.regular.is_empty();
        let Scratch {
            regular,
            fallbacks,
            prefs: pref_tags,
            keys,
            groups,
            group_of,
            ..
        } = scratch;
        let candidates: &[u32] = if fallback { fallbacks } else { regular };
        if candidates.is_empty() {
            return Err(self.diagnose(request));
        }
        let prefs = request.capability.prefer.as_deref().unwrap_or_default();
        let (want_p, want_m) = want;
        let order = if prefs.is_empty() && want_p.is_none() && want_m.is_none() {
            candidates.to_vec()
        } else {
            let hit = |row: &Row| {
                want_p.is_none_or(|w| w == row.pid && w != NO_SYM)
                    && want_m.is_none_or(|w| w == row.mname && w != NO_SYM)
            };
            let group_key = |i: u32| -> u128 {
                let Some(row) = self.rows.get(i as usize) else {
                    return u128::MAX;
                };
                let score_key = if pref_tags.is_empty() {
                    0
                } else {
                    let mut score = 0.0;
                    for &(tag, weight) in pref_tags.iter() {
                        if self.has_tag(i, row, tag) {
                            score += weight;
                        }
                    }
                    descending_score_key(score)
                };
                (u128::from(!hit(row)) << 64) | u128::from(score_key)
            };
            let by_subsets = if self.subsets_apply(pref_tags) {
                ranks.copied().or_else(|| self.subset_ranks(pref_tags))
            } else {
                None
            };
            match by_subsets {
                Some(r) => self.rank_by_subsets(candidates, pref_tags, &r, hit, group_of),
                None => rank_candidates(candidates, group_key, keys, groups, group_of),
            }
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

    /// The bucket ranks for the preferences' weights, `None` past [`MAX_SUBSET_PREFS`].
    fn subset_ranks(&self, pref_tags: &[(u32, f64)]) -> Option<SubsetRanks> {
        if pref_tags.len() > MAX_SUBSET_PREFS {
            return None;
        }
        let mut weights = [0.0; MAX_SUBSET_PREFS];
        for (w, &(_, weight)) in weights.iter_mut().zip(pref_tags) {
            *w = weight;
        }
        SubsetRanks::new(weights.get(..pref_tags.len()).unwrap_or_default())
    }

    /// Whether ranking by subsets applies: every preference on the first 64 tags (row tags
    /// are read from the first word only).
    fn subsets_apply(&self, pref_tags: &[(u32, f64)]) -> bool {
        pref_tags.len() <= MAX_SUBSET_PREFS && pref_tags.iter().all(|&(t, _)| t == NO_SYM || t < 64)
    }

    /// Ranks candidates when there are at most [`MAX_SUBSET_PREFS`] preferences, all on the
    /// first 64 tags, bucketing each candidate by (hint, matched subset) with a counting sort
    /// over the precomputed bucket ranks (see [`SubsetRanks`]).
    fn rank_by_subsets(
        &self,
        candidates: &[u32],
        pref_tags: &[(u32, f64)],
        ranks: &SubsetRanks,
        hit: impl Fn(&Row) -> bool,
        group_of: &mut Vec<u8>,
    ) -> Vec<u32> {
        let mut counts = [0u32; 2 << MAX_SUBSET_PREFS];
        group_of.clear();
        for &i in candidates {
            let Some(row) = self.rows.get(i as usize) else {
                continue;
            };
            let mut subset = 0usize;
            for (k, &(tag, _)) in pref_tags.iter().enumerate() {
                if tag != NO_SYM {
                    subset |= usize::from(row.tags >> tag & 1 == 1) << k;
                }
            }
            let idx = usize::from(!hit(row)) * ranks.subsets + subset;
            let r = ranks.rank_of.get(idx).copied().unwrap_or(0);
            if let Some(c) = counts.get_mut(usize::from(r)) {
                *c += 1;
            }
            group_of.push(r);
        }
        let mut start = [0u32; 2 << MAX_SUBSET_PREFS];
        let mut offset = 0u32;
        for (slot, count) in start.iter_mut().zip(counts) {
            *slot = offset;
            offset += count;
        }
        let mut out = vec![0u32; candidates.len()];
        for (&i, &r) in candidates.iter().zip(group_of.iter()) {
            if let Some(pos) = start.get_mut(usize::from(r)) {
                if let Some(slot) = out.get_mut(*pos as usize) {
                    *slot = i;
                }
                *pos += 1;
            }
        }
        out
    }

    #[inline]
    fn has_tag(&self, i: u32, row: &Row, tag: u32) -> bool {
        if tag == NO_SYM {
            return false;
        }
        if tag < 64 {
            return row.tags & (1 << tag) != 0;
        }
        let extra = self.words - 1;
        has_bit(&self.extra_tags, i as usize * extra, tag - 64)
    }

    /// The filter, in tie-break order.
    ///
    /// Kind and feature needs are answered for all rows at once by AND-ing precomputed row
    /// sets; provider-level lists (ids, regions) are decided once per provider; only rows
    /// left after that are tested one by one (model lists, numeric needs), with the tests
    /// combined by `&` into one branch, since which test rejects a row is unpredictable.
    fn filter(&self, q: &Query, s: &mut Scratch) {
        let rw = self.row_words;
        let Scratch {
            rowset,
            provider_ok,
            pmask,
            mmask,
            rmask,
            need_features,
            regular,
            fallbacks,
            ..
        } = s;
        let bits = |mask: &[u64], sym: u32| mask.get(sym as usize).copied().unwrap_or(0);
        rowset.clear();
        let kind_start = q.kind as usize * rw;
        rowset.extend_from_slice(
            self.kind_rows
                .get(kind_start..kind_start + rw)
                .unwrap_or_default(),
        );
        let need0 = need_features.first().copied().unwrap_or(0);
        let mut need = need0;
        while need != 0 {
            let tag = need.trailing_zeros() as usize;
            need &= need - 1;
            let start = tag * rw;
            let set = self.feature_rows.get(start..start + rw).unwrap_or_default();
            for (w, f) in rowset.iter_mut().zip(set) {
                *w &= f;
            }
        }
        // Per provider: 0 rejected, 1 passes as a regular provider, 2 passes as a fallback.
        provider_ok.clear();
        provider_ok.extend(self.provider_syms.iter().map(|&(pid, region, fallback)| {
            let ok = q.p.passes(bits(pmask, pid)) && q.r.passes(bits(rmask, region));
            u8::from(ok) << u8::from(fallback)
        }));
        let need_rest = need_features.get(1..).unwrap_or_default();
        let extra = self.words - 1;
        for (w, &word) in rowset.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let b = word.trailing_zeros() as usize;
                word &= word - 1;
                let i = w * 64 + b;
                let Some(row) = self.hot.get(i) else {
                    continue;
                };
                let class = provider_ok.get(row.provider as usize).copied().unwrap_or(0);
                let [cw, cost, p95] = &q.bounds.fields;
                // One data-dependent branch instead of four (see the filter docs).
                let ok = (class != 0)
                    & q.m.passes(bits(mmask, row.mname))
                    & cw.admits(row.context_window)
                    & cost.admits(row.prompt_cost)
                    & p95.admits(row.p95);
                if !ok {
                    continue;
                }
                if extra > 0 {
                    let base = i * extra;
                    let have = self
                        .extra_features
                        .get(base..base + extra)
                        .unwrap_or_default();
                    if !have
                        .iter()
                        .zip(need_rest)
                        .all(|(have, need)| have & need == *need)
                    {
                        continue;
                    }
                }
                let i = u32::try_from(i).unwrap_or(u32::MAX);
                if class == 2 {
                    fallbacks.push(i);
                } else {
                    regular.push(i);
                }
            }
        }
    }

    /// A fresh query with its masks sized for this snapshot.
    fn empty_query(&self, s: &mut Scratch) -> Query {
        reset(&mut s.pmask, self.provider_ids.len());
        reset(&mut s.mmask, self.model_names.len());
        reset(&mut s.rmask, self.regions.len());
        reset(&mut s.need_features, self.words);
        s.prefs.clear();
        Query {
            impossible: false,
            generic: false,
            kind: NO_SYM,
            p: Dim::default(),
            m: Dim::default(),
            r: Dim::default(),
            bounds: Bounds::default(),
        }
    }

    /// The per-call query: every requested string looked up in the snapshot's tables.
    fn compile_query(&self, req: &RouteRequest<'_>, s: &mut Scratch) -> Query {
        let mut q = self.empty_query(s);
        q.kind = self.kinds.sym(req.capability.kind_or_default());
        let mut fits = true;
        for need in &req.capability.needs {
            if q.bounds.need(need) {
                continue;
            }
            match need {
                Requirement::Feature(f) => {
                    let t = self.tags.sym(f);
                    q.impossible |= t == NO_SYM;
                    set_bit(&mut s.need_features, t);
                }
                Requirement::Region(r) => {
                    fits &= q.r.add_allow(&mut s.rmask, [self.regions.sym(r)]);
                }
                Requirement::Providers(l) => {
                    fits &= q.p.add_strings(&mut s.pmask, &self.provider_ids, l);
                }
                Requirement::Models(l) => {
                    fits &= q.m.add_strings(&mut s.mmask, &self.model_names, l);
                }
                _ => q.impossible = true,
            }
        }
        if let Some(policy) = req.tenant_policy {
            if let Some(l) = &policy.providers {
                fits &= q.p.add_strings(&mut s.pmask, &self.provider_ids, l);
            }
            if let Some(l) = &policy.models {
                fits &= q.m.add_strings(&mut s.mmask, &self.model_names, l);
            }
            if let Some(a) = &policy.region_allow {
                fits &=
                    q.r.add_allow(&mut s.rmask, a.iter().map(|r| self.regions.sym(r)));
            }
            q.bounds.policy(policy);
        }
        q.generic = !fits;
        q.impossible |= q.kind == NO_SYM || q.bounds.impossible;
        for pref in req.capability.prefer.as_deref().unwrap_or_default() {
            s.prefs.push((self.tags.sym(&pref.feature), pref.weight));
        }
        q
    }

    /// The local symbol of global string number `g` in dimension `d`, `NO_SYM` when the
    /// snapshot has no such string there.
    #[inline]
    fn local(&self, g: Global, d: usize) -> u32 {
        match self.globals.binary_search_by_key(&g, |e| e.0) {
            Ok(i) => self
                .globals
                .get(i)
                .and_then(|e| e.1.get(d))
                .copied()
                .unwrap_or(NO_SYM),
            Err(_) => NO_SYM,
        }
    }

    /// The query of a compiled capability and policy: integer lookups only.
    fn compiled_query(
        &self,
        cap: &CompiledCapability,
        policy: Option<&CompiledPolicy>,
        s: &mut Scratch,
    ) -> Query {
        let mut q = self.empty_query(s);
        q.kind = self.local(cap.kind, D_KIND);
        q.impossible = cap.unknown_need;
        for &f in &cap.features {
            let t = self.local(f, D_TAG);
            q.impossible |= t == NO_SYM;
            set_bit(&mut s.need_features, t);
        }
        let mut fits =
            q.p.add_lists(&mut s.pmask, self, D_PROVIDER, &cap.providers)
                & q.m.add_lists(&mut s.mmask, self, D_MODEL, &cap.models)
                & q.r.add_lists(&mut s.rmask, self, D_REGION, &cap.regions);
        q.bounds = cap.bounds;
        if let Some(p) = policy {
            fits &= q.p.add_lists(&mut s.pmask, self, D_PROVIDER, &p.providers)
                & q.m.add_lists(&mut s.mmask, self, D_MODEL, &p.models)
                & q.r.add_lists(&mut s.rmask, self, D_REGION, &p.regions);
            q.bounds = q.bounds.and(p.bounds);
        }
        q.generic = !fits;
        q.impossible |= q.kind == NO_SYM || q.bounds.impossible;
        s.prefs
            .extend(cap.prefs.iter().map(|&(g, w)| (self.local(g, D_TAG), w)));
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

/// The global numbers of the tables' strings (tables in `D_*` order), sorted, each with its
/// local symbol per table; and whether every string got a number.
fn global_symbols(tables: [&SymTable; 5]) -> (Vec<(Global, [u32; 5])>, bool) {
    let mut t = Interner::lock();
    let mut by_global: HashMap<Global, [u32; 5]> = HashMap::new();
    let mut complete = true;
    for (d, table) in tables.iter().enumerate() {
        for (s, local) in &table.entries {
            let Some(g) = t.intern(s) else {
                complete = false;
                continue;
            };
            if let Some(slot) = by_global.entry(g).or_insert([NO_SYM; 5]).get_mut(d) {
                *slot = *local;
            }
        }
    }
    drop(t);
    let mut globals: Vec<(Global, [u32; 5])> = by_global.into_iter().collect();
    globals.sort_unstable_by_key(|e| e.0);
    (globals, complete)
}

/// The symbol of `s` in `map`, or [`NO_SYM`].
fn sym(map: &HashMap<&str, u32>, s: &str) -> u32 {
    map.get(s).copied().unwrap_or(NO_SYM)
}

/// The symbol maps of a snapshot's string tables, for staging its rows.
struct SymMaps<'a, 'p> {
    pid: &'a HashMap<&'p str, u32>,
    mname: &'a HashMap<&'p str, u32>,
    kind: &'a HashMap<&'p str, u32>,
    tag: &'a HashMap<&'p str, u32>,
}

/// One staged row per `(provider, model)` tuple, in expansion order, with its sort key and
/// the feature and tag words past the first.
fn stage_rows(providers: &[ProviderMetadata], maps: &SymMaps<'_, '_>, words: usize) -> Vec<Staged> {
    let pid_rank = collation_ranks(maps.pid);
    let mname_rank = collation_ranks(maps.mname);
    let rank_of = |ranks: &[u32], sym: u32| ranks.get(sym as usize).copied().unwrap_or(u32::MAX);
    let mut staged: Vec<Staged> = Vec::new();
    // Reused per model: one allocation each for the whole compile.
    let (mut feat, mut tag) = (Vec::with_capacity(words), Vec::with_capacity(words));
    for (pi, p) in providers.iter().enumerate() {
        let mut attr = vec![0u64; words];
        for a in p.attributes.iter().flatten() {
            set_bit(&mut attr, sym(maps.tag, a));
        }
        let pid = sym(maps.pid, &p.id);
        let kind = sym(maps.kind, p.kind_or_default());
        for (mi, m) in p.models.iter().enumerate() {
            feat.clear();
            feat.resize(words, 0);
            for f in &m.features {
                set_bit(&mut feat, sym(maps.tag, f));
            }
            tag.clear();
            tag.extend(feat.iter().zip(&attr).map(|(f, a)| f | a));
            let mname = sym(maps.mname, &m.name);
            let is_default = p.default_model.as_deref() == Some(m.name.as_str());
            let row = Row {
                features: feat.first().copied().unwrap_or(0),
                tags: tag.first().copied().unwrap_or(0),
                context_window: m.context_window,
                prompt_cost: m.cost.prompt_usd_per_1k_tokens,
                p95: m.p95_latency_ms.unwrap_or(f64::NAN),
                pid,
                mname,
                kind,
                provider: u32::try_from(pi).unwrap_or(u32::MAX),
                model: u32::try_from(mi).unwrap_or(u32::MAX),
                fallback: p.fallback,
            };
            let key = (
                rank_of(&pid_rank, pid),
                !is_default,
                rank_of(&mname_rank, mname),
            );
            staged.push((
                key,
                row,
                feat.get(1..).unwrap_or_default().to_vec(),
                tag.get(1..).unwrap_or_default().to_vec(),
            ));
        }
    }
    staged
}

/// Per kind and per feature (the first 64 tags), a bitset of the rows that have it,
/// `row_words` words each.
fn row_bitsets(rows: &[Row], kinds: usize, tags: usize, row_words: usize) -> (Vec<u64>, Vec<u64>) {
    let mut kind_rows = vec![0u64; kinds * row_words];
    let mut feature_rows = vec![0u64; tags.min(64) * row_words];
    for (i, row) in rows.iter().enumerate() {
        let (w, bit) = (i / 64, 1u64 << (i % 64));
        if let Some(word) = kind_rows.get_mut(row.kind as usize * row_words + w) {
            *word |= bit;
        }
        let mut f = row.features;
        while f != 0 {
            let tag = f.trailing_zeros() as usize;
            f &= f - 1;
            if let Some(word) = feature_rows.get_mut(tag * row_words + w) {
                *word |= bit;
            }
        }
    }
    (kind_rows, feature_rows)
}

/// Each row's provider id and model name as shared text, for the decisions.
fn shared_names(providers: &[ProviderMetadata], rows: &[Row]) -> Vec<(Arc<str>, Arc<str>)> {
    let provider_arcs: Vec<Arc<str>> = providers.iter().map(|p| Arc::from(p.id.as_str())).collect();
    rows.iter()
        .map(|r| {
            let provider = provider_arcs
                .get(r.provider as usize)
                .cloned()
                .unwrap_or_else(|| Arc::from(""));
            let model = providers
                .get(r.provider as usize)
                .and_then(|p| p.models.get(r.model as usize))
                .map_or_else(|| Arc::from(""), |m| Arc::from(m.name.as_str()));
            (provider, model)
        })
        .collect()
}

/// Dense collation ranks of interned strings, indexed by symbol: equal-comparing strings
/// (ignorable code points) share a rank, so the integer order is exactly `localeCompare`'s.
fn collation_ranks(map: &HashMap<&str, u32>) -> Vec<u32> {
    let mut by_collation: Vec<(&str, u32)> = map.iter().map(|(s, i)| (*s, *i)).collect();
    by_collation.sort_by(|a, b| super::collate::compare(a.0, b.0));
    let mut ranks = vec![0u32; map.len()];
    let mut rank = 0u32;
    let mut prev: Option<&str> = None;
    for (s, sym) in by_collation {
        if prev.is_some_and(|p| super::collate::compare(p, s).is_ne()) {
            rank += 1;
        }
        prev = Some(s);
        if let Some(slot) = ranks.get_mut(sym as usize) {
            *slot = rank;
        }
    }
    ranks
}

/// Orders candidates (row indices, ascending = tie-break order) by their group key (hint miss,
/// then descending score), keeping tie-break order inside a group.
///
/// Few distinct groups is the norm (a score is a sum over a handful of weights), so this is a
/// counting sort over at most 64 groups; more groups fall back to one integer sort.
fn rank_candidates(
    candidates: &[u32],
    group_key: impl Fn(u32) -> u128,
    keys: &mut Vec<u128>,
    groups: &mut Vec<(u128, u32)>,
    group_of: &mut Vec<u8>,
) -> Vec<u32> {
    const MAX_GROUPS: usize = 64;
    groups.clear();
    group_of.clear();
    keys.clear();
    let mut overflow = false;
    for &i in candidates {
        let k = group_key(i);
        keys.push(k);
        if overflow {
            continue;
        }
        let g = match groups.iter().position(|(x, _)| *x == k) {
            Some(g) => g,
            None if groups.len() < MAX_GROUPS => {
                groups.push((k, 0));
                groups.len() - 1
            }
            None => {
                overflow = true;
                continue;
            }
        };
        if let Some(entry) = groups.get_mut(g) {
            entry.1 += 1;
        }
        group_of.push(u8::try_from(g).unwrap_or(u8::MAX));
    }
    if overflow {
        // Keys end in the (unique) row index, so an unstable sort is deterministic.
        let mut full: Vec<(u128, u32)> = keys
            .iter()
            .copied()
            .zip(candidates.iter().copied())
            .collect();
        full.sort_unstable();
        return full.into_iter().map(|(_, i)| i).collect();
    }
    // Groups in key order; each group's start offset, indexed by first-seen group number.
    let mut sorted = [(0u128, 0usize); MAX_GROUPS];
    for (slot, (g, (k, _))) in sorted.iter_mut().zip(groups.iter().enumerate()) {
        *slot = (*k, g);
    }
    let sorted = sorted.get_mut(..groups.len()).unwrap_or_default();
    sorted.sort_unstable();
    let mut start = [0u32; MAX_GROUPS];
    let mut offset = 0u32;
    for &mut (_, g) in sorted {
        if let (Some(slot), Some((_, count))) = (start.get_mut(g), groups.get(g)) {
            *slot = offset;
            offset += count;
        }
    }
    let mut out = vec![0u32; candidates.len()];
    for (&i, &g) in candidates.iter().zip(group_of.iter()) {
        if let Some(pos) = start.get_mut(usize::from(g)) {
            if let Some(slot) = out.get_mut(*pos as usize) {
                *slot = i;
            }
            *pos += 1;
        }
    }
    out
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

    /// Every candidate tuple, best first (the pick, then the alternates), as indices into the
    /// snapshot ([`RouteSnapshot::tuple_names`]).
    pub fn order(&self) -> &[u32] {
        &self.order
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

#[cfg(test)]
mod tests {
    use super::*;
    // The per-call path itself (`crate::route::route` only forwards to it).
    use crate::route::reference::route;
    use serde_json::json;

    fn input(v: serde_json::Value) -> RouteInput {
        serde_json::from_value(v).expect("test input parses")
    }

    fn agree(input: &RouteInput) {
        let snapshot = RouteSnapshot::compile(input.providers.clone());
        let fast = snapshot
            .route(&RouteRequest::from_input(input))
            .map(|r| r.to_decision());
        assert_eq!(fast, route(input));
        let capability = CompiledCapability::new(
            input.capability.clone(),
            input.preferred_provider.clone(),
            input.preferred_model.clone(),
        );
        let policy = input.tenant_policy.clone().map(CompiledPolicy::new);
        let compiled = snapshot
            .route_compiled(&capability, policy.as_ref(), true, &mut Scratch::default())
            .map(|r| r.to_decision());
        assert_eq!(compiled, fast);
    }

    #[test]
    fn a_compiled_capability_survives_provider_changes() {
        let providers = wide(12, 4);
        let ask = input(json!({
            "capability": {"needs": [{"feature": "f1"}, {"providers": {"deny": ["p3"]}}],
                           "prefer": [{"feature": "a2", "weight": 1}]},
            "providers": providers,
            "tenantPolicy": {"regionAllow": ["eu"], "models": {"deny": ["m0"]}},
            "preferredProvider": "p9",
        }));
        let capability =
            CompiledCapability::new(ask.capability.clone(), ask.preferred_provider.clone(), None);
        let policy = ask.tenant_policy.clone().map(CompiledPolicy::new);
        // Providers leave and come back in another order: every snapshot numbers its strings
        // anew, the compiled forms stay as they are.
        for slice in [
            ask.providers.clone(),
            ask.providers.get(5..).unwrap_or_default().to_vec(),
            ask.providers.iter().rev().cloned().collect(),
            Vec::new(),
        ] {
            let snapshot = RouteSnapshot::compile(slice.clone());
            let mut scratch = Scratch::default();
            let compiled = snapshot
                .route_compiled(&capability, policy.as_ref(), true, &mut scratch)
                .map(|r| r.to_decision());
            let mut per_call = ask.clone();
            per_call.providers = slice;
            assert_eq!(compiled, route(&per_call));
        }
    }

    /// Many providers with `n` models each; model `j` of provider `i` has feature `f<(i+j)%k>`
    /// and attribute `a<i % 8>`.
    fn wide(providers: usize, k: usize) -> Vec<serde_json::Value> {
        (0..providers)
            .map(|i| {
                let models: Vec<_> = (0..3)
                    .map(|j| {
                        json!({"name": format!("m{j}"), "contextWindow": 1000 * (j + 1),
                               "features": [format!("f{}", (i + j) % k), "tool-use"],
                               "cost": {"promptUsdPer1kTokens": 0.001 * j as f64, "completionUsdPer1kTokens": 0}})
                    })
                    .collect();
                json!({"id": format!("p{i}"), "region": "eu", "models": models,
                       "attributes": [format!("a{}", i % 8), format!("b{}", i % 7)]})
            })
            .collect()
    }

    #[test]
    fn more_than_64_tags_use_the_extra_words() {
        let providers = wide(100, 90);
        assert!(
            RouteSnapshot::compile(
                input(json!({"capability": {"needs": []}, "providers": providers})).providers
            )
            .words
                > 1
        );
        for f in ["f0", "f70", "f89", "tool-use", "a3", "nope"] {
            agree(&input(json!({
                "capability": {"needs": [{"feature": f}], "prefer": [{"feature": "f80", "weight": 1}, {"feature": "a2", "weight": 2}]},
                "providers": providers,
            })));
        }
    }

    #[test]
    fn more_than_63_allow_lists_use_the_generic_path() {
        let needs: Vec<_> = (0..70)
            .map(|i| json!({"providers": {"allow": ["p1", "p2", format!("p{i}")]}}))
            .collect();
        agree(&input(
            json!({"capability": {"needs": needs}, "providers": wide(10, 5)}),
        ));
    }

    #[test]
    fn more_than_64_score_groups_fall_back_to_a_full_sort() {
        // Eight attribute preferences with weights 1, 2, 4, … give every (a, b) pair its own
        // score: up to 56 groups from attributes times hint hits and misses.
        let prefer: Vec<_> =
            (0..8)
                .map(|i| json!({"feature": format!("a{i}"), "weight": f64::from(1 << i)}))
                .chain((0..7).map(
                    |i| json!({"feature": format!("b{i}"), "weight": f64::from(1 << (i + 8))}),
                ))
                .collect();
        agree(&input(json!({
            "capability": {"needs": [], "prefer": prefer},
            "providers": wide(120, 5),
            "preferredModel": "m1",
        })));
    }

    #[test]
    fn strict_and_equal_bounds_fold_like_the_predicates() {
        for (op, v) in [
            (">", 1000.0),
            ("<", 3000.0),
            ("=", 2000.0),
            (">=", 2000.0),
            ("<=", 1000.0),
            (">", 3000.0),
        ] {
            agree(&input(json!({
                "capability": {"needs": [{"contextWindow": {"op": op, "value": v}}, {"costPerCall": {"op": ">", "usd": 0}}]},
                "providers": wide(6, 3),
                "tenantPolicy": {"tenantId": "t", "maxTokensPerCall": 1000, "maxCostPerCallUsd": 0.002},
            })));
        }
    }
}
