//! `RunStart` (agents.md §1.4, §3, §4.4; router.md §2.14): packs and providers registered per
//! tenant, `prepare` answering with upstream's turn codes.
//!
//! Each JavaScript `RunStart` holds an `Arc` of one registry. `shareId` names it, so that a
//! worker thread (which loads its own copy of the addon's JavaScript side) can
//! `RunStart.attach(id)` to the same registry and prepare runs on it while the main thread
//! registers packs: prepares are lock-free reads of the current snapshot.

use crate::guard::{Failure, from_json, guard, to_json};
use crate::routing::registry_failure;
use crate::validate::{IndexInput, input_bytes};
use napi::Env;
use napi_derive::napi;
use runstart::route::{ProviderMetadata, TenantPolicy};
use runstart::run::{RegisterError, RunRequest, RunStart};
use serde_json::json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};

type Shared = Mutex<(u32, HashMap<u32, Weak<RunStart>>)>;

/// Registries by share id; weak, so a registry lives as long as some JavaScript object
/// holds it.
fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| Mutex::new((0, HashMap::new())))
}

/// The native half of `RunStart` (see `index.js`).
#[napi]
pub struct NativeRunStart {
    inner: Arc<RunStart>,
    share_id: u32,
}

#[napi]
impl NativeRunStart {
    /// A new, empty registry; or, with `share_id`, the registry another `RunStart` (in any
    /// thread of this process) shares under that id.
    #[napi(constructor)]
    pub fn new(env: Env, share_id: Option<u32>) -> napi::Result<Self> {
        guard(&env, || {
            let mut table = shared().lock().unwrap_or_else(|p| p.into_inner());
            let (next, map) = &mut *table;
            map.retain(|_, w| w.strong_count() > 0);
            if let Some(id) = share_id {
                let inner = map.get(&id).and_then(Weak::upgrade).ok_or_else(|| {
                    Failure::new(
                        "unknown-share-id",
                        format!(
                            "no RunStart is shared under id {id}: it was never created or is gone"
                        ),
                    )
                })?;
                return Ok(NativeRunStart {
                    inner,
                    share_id: id,
                });
            }
            *next = next.wrapping_add(1);
            let inner = Arc::new(RunStart::new());
            map.insert(*next, Arc::downgrade(&inner));
            Ok(NativeRunStart {
                inner,
                share_id: *next,
            })
        })
    }

    /// The id other threads attach with.
    #[napi(getter, js_name = "shareId")]
    pub fn share_id(&self) -> u32 {
        self.share_id
    }

    /// Loads a pack index and registers it for the tenant (pins resolved, templates
    /// parsed). A file that is not a usable index throws `invalid-index`, a pack registration
    /// refuses (agents that cannot be pinned, a flow the flow checks refuse)
    /// `pack-not-registered`; both carry `issues`.
    #[napi(js_name = "registerPack")]
    pub fn register_pack(&self, env: Env, tenant: String, index: IndexInput) -> napi::Result<()> {
        guard(&env, || {
            let bytes = input_bytes(index);
            let loaded = runstart::index::load(&bytes);
            // As `runstart plan`: any load-time problem (not JSON, wrong envelope, an entry
            // of the wrong shape) refuses the pack with every such issue, in validate's
            // order, so an entry left out for its shape never shows up later as "not found".
            let mut report = loaded.report;
            let pack = match loaded.index {
                Some(pack) if !report.has_errors() => pack,
                _ => {
                    report.sort();
                    return Err(Failure::new(
                        "invalid-index",
                        format!(
                            "the bytes are not a usable pack index ({} error(s)); validateIndex explains each",
                            report.error_count()
                        ),
                    )
                    .with_extra(json!({ "issues": report.issues() })));
                }
            };
            match self.inner.register_pack(&tenant, &pack) {
                Ok(()) => Ok(()),
                Err(RegisterError::Pack(issues)) => Err(Failure::new(
                    "pack-not-registered",
                    format!("the pack cannot be registered ({} issue(s))", issues.len()),
                )
                .with_extra(json!({ "issues": issues }))),
                Err(RegisterError::Provider(e)) => Err(registry_failure(e)),
                Err(e) => Err(Failure::new("internal", e.to_string())),
            }
        })
    }

    /// Registers a provider (JSON metadata) for the tenant, with upstream's registry checks.
    #[napi(js_name = "registerProvider")]
    pub fn register_provider(
        &self,
        env: Env,
        tenant: String,
        provider_json: String,
    ) -> napi::Result<()> {
        guard(&env, || {
            let provider: ProviderMetadata = from_json("provider", &provider_json)?;
            self.inner
                .register_provider(&tenant, provider)
                .map_err(|e| match e {
                    RegisterError::Provider(e) => registry_failure(e),
                    other => Failure::new("internal", other.to_string()),
                })
        })
    }

    /// Unregisters a provider; whether it was registered.
    #[napi(js_name = "unregisterProvider")]
    pub fn unregister_provider(
        &self,
        env: Env,
        tenant: String,
        provider_id: String,
    ) -> napi::Result<bool> {
        guard(&env, || {
            Ok(self.inner.unregister_provider(&tenant, &provider_id))
        })
    }

    /// Sets (JSON policy) or clears (`None`) the tenant's registered routing policy.
    #[napi(js_name = "setTenantPolicy")]
    pub fn set_tenant_policy(
        &self,
        env: Env,
        tenant: String,
        policy_json: Option<String>,
    ) -> napi::Result<()> {
        guard(&env, || {
            let policy: Option<TenantPolicy> = policy_json
                .map(|j| from_json("tenant policy", &j))
                .transpose()?;
            self.inner.set_tenant_policy(&tenant, policy);
            Ok(())
        })
    }

    /// Retires a tool version (ranges skip it, pins still reach it); whether it existed.
    #[napi(js_name = "retireTool")]
    pub fn retire_tool(
        &self,
        env: Env,
        tenant: String,
        id: String,
        version: String,
    ) -> napi::Result<bool> {
        guard(&env, || {
            Ok(self.inner.retire_tool(&tenant, &id, &exact(&version)?))
        })
    }

    /// Removes a tool version (pins to it fail from now on); whether it existed.
    #[napi(js_name = "removeTool")]
    pub fn remove_tool(
        &self,
        env: Env,
        tenant: String,
        id: String,
        version: String,
    ) -> napi::Result<bool> {
        guard(&env, || {
            Ok(self.inner.remove_tool(&tenant, &id, &exact(&version)?))
        })
    }

    /// Prepares a run (JSON `RunRequest`); `{"kind":"ok","value":plan}` or
    /// `{"kind":"err","error":{code, message, …}}` as JSON.
    #[napi]
    pub fn prepare(&self, env: Env, request_json: String) -> napi::Result<String> {
        guard(&env, || {
            let request: RunRequest = from_json("run request", &request_json)?;
            match self.inner.prepare(&request) {
                Ok(plan) => to_json(&json!({ "kind": "ok", "value": plan })),
                Err(error) => to_json(&json!({ "kind": "err", "error": error })),
            }
        })
    }
}

/// A tool version, which is exact (`major.minor.patch`, agents.md §1.1).
fn exact(text: &str) -> Result<semver::Version, Failure> {
    semver::Version::parse(text).map_err(|e| {
        Failure::invalid(format!(
            "tool version {text:?} is not an exact version: {e}"
        ))
    })
}
