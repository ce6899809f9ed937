//! `RouteTable`: a provider slice compiled once into a [`RouteSnapshot`], routed per call
//! with a reused [`Scratch`] (router.md §2).
//!
//! A decision crosses back as numbers: `out[0]` is 0 (routed) or 1 (unsatisfiable),
//! `out[1]` the fallback flag, `out[2]` the candidate count `n`, and `out[3..3 + n]` the
//! candidates best first, each as its index in expansion order (providers in slice order,
//! models in `models` order, spec §2.2). The loader turns those into the caller's own
//! provider and model objects; only the `reason` (or the error's JSON) is a string.

use crate::guard::{Failure, from_json, guard, to_json};
use napi::Env;
use napi_derive::napi;
use runstart::route::{
    Capability, ProviderMetadata, ProviderRegistry, RouteInput, RouteRequest, RouteSnapshot,
    Scratch, TenantPolicy, explain,
};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The request of one `table.route` call: a `RouteInput` without its providers (§1.6).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RequestWire {
    capability: Capability,
    #[serde(default)]
    tenant_policy: Option<TenantPolicy>,
    #[serde(default)]
    preferred_provider: Option<String>,
    #[serde(default)]
    preferred_model: Option<String>,
}

/// Distinct request texts kept parsed. A runtime routes the same few capabilities and
/// policies over and over (one per agent and tenant), and a hit costs a hash of the text
/// instead of a parse; past the cap the cache starts over.
const REQUEST_CACHE_CAP: usize = 1024;

/// Longer request texts are parsed every time rather than kept.
const REQUEST_CACHE_MAX_TEXT: usize = 64 * 1024;

fn parsed_request(text: &str) -> Result<Arc<RequestWire>, Failure> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<RequestWire>>>> = OnceLock::new();
    if text.len() > REQUEST_CACHE_MAX_TEXT {
        return from_json("route request", text).map(Arc::new);
    }
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(hit) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(text) {
        return Ok(hit.clone());
    }
    let request: Arc<RequestWire> = Arc::new(from_json("route request", text)?);
    let mut map = cache.lock().unwrap_or_else(|p| p.into_inner());
    if map.len() >= REQUEST_CACHE_CAP {
        map.clear();
    }
    map.insert(text.to_owned(), request.clone());
    Ok(request)
}

/// The output buffer: a `Uint32Array` the loader allocates once per table and passes on
/// every call. Written through an alias so that napi reads it as a plain typed-array slice;
/// whatever its lifetime says, it is used only during the call that received it.
type OutWords = &'static mut [u32];

/// Header words before the candidate indices in the output buffer.
const HEADER: usize = 3;

/// Compiled providers plus, per snapshot tuple, its index in expansion order.
#[derive(Debug)]
struct Compiled {
    snapshot: RouteSnapshot,
    flat_of_row: Vec<u32>,
}

impl Compiled {
    fn new(providers: Vec<ProviderMetadata>) -> Result<Compiled, Failure> {
        let mut base = Vec::with_capacity(providers.len());
        let mut total = 0usize;
        for p in &providers {
            base.push(total);
            total += p.models.len();
        }
        if u32::try_from(total).is_err() {
            return Err(Failure::invalid(format!(
                "{total} (provider, model) tuples: at most {} fit a route table",
                u32::MAX
            )));
        }
        let snapshot = RouteSnapshot::compile(providers);
        let flat_of_row = (0..snapshot.tuple_count())
            .map(|row| {
                let (p, m) = u32::try_from(row)
                    .ok()
                    .and_then(|row| snapshot.tuple_position(row))
                    .ok_or_else(|| Failure::new("internal", "a snapshot row has no position"))?;
                let flat = base.get(p).copied().unwrap_or_default() + m;
                u32::try_from(flat).map_err(|_| Failure::new("internal", "tuple index overflow"))
            })
            .collect::<Result<Vec<u32>, Failure>>()?;
        Ok(Compiled {
            snapshot,
            flat_of_row,
        })
    }
}

/// The native half of `RouteTable` (see `index.js`).
#[napi]
pub struct NativeRouteTable {
    compiled: Compiled,
    scratch: Scratch,
    tenant_id: String,
}

#[napi]
impl NativeRouteTable {
    /// `providers_json`: a JSON array of `ProviderMetadata`, routed as given (no registry
    /// checks, as upstream's `route` takes any slice).
    #[napi(constructor)]
    pub fn new(env: Env, providers_json: String, tenant_id: String) -> napi::Result<Self> {
        guard(&env, || {
            let providers: Vec<ProviderMetadata> = from_json("providers", &providers_json)?;
            Ok(NativeRouteTable {
                compiled: Compiled::new(providers)?,
                scratch: Scratch::default(),
                tenant_id,
            })
        })
    }

    /// How many `(provider, model)` tuples the table holds (the loader sizes its output
    /// buffer with it).
    #[napi(js_name = "tupleCount")]
    pub fn tuple_count(&self, env: Env) -> napi::Result<u32> {
        guard(&env, || {
            u32::try_from(self.compiled.flat_of_row.len())
                .map_err(|_| Failure::new("internal", "tuple count overflow"))
        })
    }

    /// Registers one provider with upstream's registry checks (router.md §4.1: the first
    /// failing check, then the duplicate check), appending it to the slice.
    #[napi]
    pub fn register(&mut self, env: Env, provider_json: String) -> napi::Result<()> {
        guard(&env, || {
            let value: Value = from_json("provider", &provider_json)?;
            let mut checker = ProviderRegistry::new();
            checker
                .register_value(&self.tenant_id, &value)
                .map_err(registry_failure)?;
            let typed: ProviderMetadata = from_json("provider", &provider_json)?;
            let mut providers = self.compiled.snapshot.providers().to_vec();
            if providers.iter().any(|p| p.id == typed.id) {
                return Err(Failure::new(
                    "duplicate-provider",
                    format!(
                        "Provider \"{}\" is already registered for tenant \"{}\"",
                        typed.id, self.tenant_id
                    ),
                )
                .with_extra(serde_json::json!({ "providerId": typed.id })));
            }
            providers.push(typed);
            self.compiled = Compiled::new(providers)?;
            Ok(())
        })
    }

    /// Removes the provider with this id; returns its index in the slice, or -1.
    #[napi]
    pub fn unregister(&mut self, env: Env, provider_id: String) -> napi::Result<i32> {
        guard(&env, || {
            let mut providers = self.compiled.snapshot.providers().to_vec();
            let Some(i) = providers.iter().position(|p| p.id == provider_id) else {
                return Ok(-1);
            };
            providers.remove(i);
            self.compiled = Compiled::new(providers)?;
            i32::try_from(i).map_err(|_| Failure::new("internal", "provider index overflow"))
        })
    }

    /// Routes one request (JSON of `{capability, tenantPolicy?, preferredProvider?,
    /// preferredModel?}`), writing the decision into `out` (module docs); returns the
    /// `reason`, or the `capability-unsatisfiable` error as JSON.
    #[napi]
    pub fn route(&mut self, env: Env, request_json: String, out: OutWords) -> napi::Result<String> {
        guard(&env, || {
            let wire = parsed_request(&request_json)?;
            let request = RouteRequest {
                capability: &wire.capability,
                tenant_policy: wire.tenant_policy.as_ref(),
                preferred_provider: wire.preferred_provider.as_deref(),
                preferred_model: wire.preferred_model.as_deref(),
            };
            let needed = HEADER + self.compiled.flat_of_row.len();
            if out.len() < needed {
                return Err(Failure::invalid(format!(
                    "output buffer: {} words, {needed} needed",
                    out.len()
                )));
            }
            match self
                .compiled
                .snapshot
                .route_with(&request, &mut self.scratch)
            {
                Ok(routed) => {
                    let order = routed.order();
                    out[0] = 0;
                    out[1] = u32::from(routed.fallback());
                    out[2] = u32::try_from(order.len())
                        .map_err(|_| Failure::new("internal", "candidate count overflow"))?;
                    for (slot, &row) in out[HEADER..].iter_mut().zip(order) {
                        *slot = self
                            .compiled
                            .flat_of_row
                            .get(row as usize)
                            .copied()
                            .ok_or_else(|| Failure::new("internal", "a candidate has no tuple"))?;
                    }
                    Ok(routed.reason())
                }
                Err(unsatisfiable) => {
                    out[0] = 1;
                    to_json(&unsatisfiable)
                }
            }
        })
    }

    /// `runstart route --explain` for one request: every tuple's requirement outcomes and
    /// score, as JSON.
    #[napi]
    pub fn explain(&self, env: Env, request_json: String) -> napi::Result<String> {
        guard(&env, || {
            let wire: RequestWire = from_json("route request", &request_json)?;
            let input = RouteInput {
                capability: wire.capability,
                providers: self.compiled.snapshot.providers().to_vec(),
                tenant_policy: wire.tenant_policy,
                preferred_provider: wire.preferred_provider,
                preferred_model: wire.preferred_model,
            };
            to_json(&explain(&input))
        })
    }
}

/// A registry refusal as the `Error` upstream's registry throws: `code`, `message`, and
/// `reason` or `providerId`.
pub fn registry_failure(e: runstart::route::RegistryError) -> Failure {
    let code = e.code();
    let extra = match (&e, e.reason()) {
        (runstart::route::RegistryError::DuplicateProvider { provider_id, .. }, _) => {
            serde_json::json!({ "providerId": provider_id })
        }
        (_, Some(reason)) => serde_json::json!({ "reason": reason.as_str() }),
        (_, None) => serde_json::json!({}),
    };
    Failure::new(code, e.to_string()).with_extra(extra)
}
