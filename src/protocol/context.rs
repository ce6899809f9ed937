//! Call contexts: the `invoke` request for one tool call of a prepared run.
//!
//! What goes in follows the seed's call context: `tool.version` is the version the run pinned;
//! `env` holds exactly the names the tool declares in `needsSpec.env`, each resolved project →
//! org → tenant → schema `default` (protocol 2.5.0) and checked against its schema;
//! `settings` holds the values of the settings blocks the agent version pins, by block id
//! (protocol 2.4.0); `idempotencyKey` is made from the run, the step and the call
//! (protocol 2.6.0); `waitToken` goes only to a tool that `pauses` (2.8.0); `toolFiles` only
//! to one that stores or reads files (2.10.0), and to one that only stores only when the call
//! has an idempotency key. A value that is needed and missing is an issue, never an empty
//! string.

use super::deployment::{Deployment, ToolContract};
use super::idempotency::idempotency_key;
use super::message::{CallContext, ToolFiles, ToolInvoke, ToolSelector, V2, WaitToken};
use crate::diagnostics::IssueCode;
use crate::diagnostics::{Issue, pointer};
use crate::run::RunPlan;
use serde_json::Value;
use std::collections::BTreeMap;

/// Env values set at each scope, by name (what the runtime's env store serves for the call's
/// env). An empty string counts as unset, as it does for a pack's own env.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvScopes {
    /// The call's project's values.
    pub project: BTreeMap<String, String>,
    /// Its org's values.
    pub org: BTreeMap<String, String>,
    /// The tenant's values.
    pub tenant: BTreeMap<String, String>,
}

impl EnvScopes {
    /// No value at any scope.
    pub fn new() -> EnvScopes {
        EnvScopes::default()
    }

    /// The value for `name` and the scope it came from, project first.
    fn resolve(&self, name: &str) -> Option<(&str, &'static str)> {
        [
            (&self.project, "project"),
            (&self.org, "org"),
            (&self.tenant, "tenant"),
        ]
        .into_iter()
        .find_map(|(scope, label)| {
            scope
                .get(name)
                .filter(|v| !v.is_empty())
                .map(|v| (v.as_str(), label))
        })
    }
}

static NO_ENV: std::sync::OnceLock<EnvScopes> = std::sync::OnceLock::new();

/// Where one tool call happens: the run's ids, the step and the model's call, and what the
/// runtime has for it (env values, a wait token, a file store). Build with [`CallSite::new`]
/// and the `with_*` setters; everything but the tenant and run is absent by default.
#[derive(Debug, Clone, Copy)]
pub struct CallSite<'a> {
    tenant_id: &'a str,
    run_id: &'a str,
    project_id: Option<&'a str>,
    org_id: Option<&'a str>,
    request_id: Option<&'a str>,
    step_scope: Option<&'a str>,
    call_id: Option<&'a str>,
    env: Option<&'a EnvScopes>,
    wait_token: Option<&'a WaitToken>,
    tool_files: Option<&'a ToolFiles>,
}

impl<'a> CallSite<'a> {
    /// A call of run `run_id` for tenant `tenant_id`.
    pub fn new(tenant_id: &'a str, run_id: &'a str) -> CallSite<'a> {
        CallSite {
            tenant_id,
            run_id,
            project_id: None,
            org_id: None,
            request_id: None,
            step_scope: None,
            call_id: None,
            env: None,
            wait_token: None,
            tool_files: None,
        }
    }

    /// The run's project (default: none).
    #[must_use]
    pub fn with_project(mut self, project_id: &'a str) -> CallSite<'a> {
        self.project_id = Some(project_id);
        self
    }

    /// The project's org (default: none).
    #[must_use]
    pub fn with_org(mut self, org_id: &'a str) -> CallSite<'a> {
        self.org_id = Some(org_id);
        self
    }

    /// The individual call's id, sent as `requestId` (default: none).
    #[must_use]
    pub fn with_request_id(mut self, request_id: &'a str) -> CallSite<'a> {
        self.request_id = Some(request_id);
        self
    }

    /// The step's own scope (its node id, a loop body's step with its iteration, a fanout
    /// branch). Default: none, and then no `idempotencyKey` is sent (a runtime that can't
    /// name its steps sends none).
    #[must_use]
    pub fn with_step_scope(mut self, step_scope: &'a str) -> CallSite<'a> {
        self.step_scope = Some(step_scope);
        self
    }

    /// The model's call id, for a call a model asked for (default: none, a flow's tool step).
    #[must_use]
    pub fn with_call_id(mut self, call_id: &'a str) -> CallSite<'a> {
        self.call_id = Some(call_id);
        self
    }

    /// The env values of the call's scopes (default: none set anywhere).
    #[must_use]
    pub fn with_env(mut self, env: &'a EnvScopes) -> CallSite<'a> {
        self.env = Some(env);
        self
    }

    /// The wait token minted for this attempt of the call (default: none).
    #[must_use]
    pub fn with_wait_token(mut self, token: &'a WaitToken) -> CallSite<'a> {
        self.wait_token = Some(token);
        self
    }

    /// Where the runtime's file store takes this call's files (default: none, the runtime
    /// has no file store).
    #[must_use]
    pub fn with_tool_files(mut self, files: &'a ToolFiles) -> CallSite<'a> {
        self.tool_files = Some(files);
        self
    }
}

impl Deployment {
    /// The tool selector and call context of one call to `tool_id` in the run `plan`.
    ///
    /// # Errors
    ///
    /// Every problem at once, each an [`Issue`] whose path points into the `invoke` request:
    /// [`IssueCode::ToolNotPlanned`] (`/tool/id`), [`IssueCode::ToolNotInDeployment`] (`/tool/version`),
    /// [`IssueCode::EnvValueMissing`] and [`IssueCode::EnvValueInvalid`] (`/ctx/env/<name>`),
    /// [`IssueCode::AgentNotInDeployment`] (`/ctx/settings`), [`IssueCode::SettingsBlockMissing`]
    /// (`/ctx/settings/<id>`), [`IssueCode::WaitTokenMissing`] (`/ctx/waitToken`).
    ///
    /// # Examples
    ///
    /// See [`Deployment::invoke`].
    pub fn call_context(
        &self,
        plan: &RunPlan,
        tool_id: &str,
        site: &CallSite<'_>,
    ) -> Result<(ToolSelector, CallContext), Vec<Issue>> {
        let mut issues = Vec::new();
        let Some(pinned) = plan.tool_versions.get(tool_id) else {
            return Err(vec![Issue::error(
                IssueCode::ToolNotPlanned,
                "/tool/id",
                format!(
                    "agent \"{}\" version {} does not reference tool {}; only its own tools can be called",
                    plan.agent_id,
                    plan.agent_version,
                    quoted(tool_id)
                ),
            )]);
        };
        let Some(tool) = self.pinned_tool(tool_id, pinned) else {
            return Err(vec![Issue::error(
                IssueCode::ToolNotInDeployment,
                "/tool/version",
                format!(
                    "the run pinned tool {} to {}, which pack {} does not deploy; call the endpoint that serves it",
                    quoted(tool_id),
                    quoted(pinned),
                    quoted(&self.pack_id)
                ),
            )]);
        };
        let key = site
            .step_scope
            .map(|step| idempotency_key(site.run_id, step, tool_id, site.call_id).to_string());
        let env = self.env_for(
            tool,
            site.env
                .unwrap_or_else(|| NO_ENV.get_or_init(EnvScopes::new)),
            &mut issues,
        );
        let settings = self.settings_for(plan, &mut issues);
        let wait_token = if tool.pauses {
            if site.wait_token.is_none() {
                issues.push(Issue::error(
                    IssueCode::WaitTokenMissing,
                    "/ctx/waitToken",
                    format!(
                        "tool {} pauses, so each call needs a wait token; mint one for this attempt of the call",
                        quoted(tool_id)
                    ),
                ));
            }
            site.wait_token.cloned()
        } else {
            None
        };
        let wants_files = tool.reads_files || (tool.stores_files && key.is_some());
        let tool_files = site.tool_files.filter(|_| wants_files).cloned();
        if !issues.is_empty() {
            return Err(issues);
        }
        let selector = ToolSelector {
            id: tool_id.to_owned(),
            // An unversioned index entry is served without a version: naming one would be a
            // tool-version-mismatch at the service.
            version: tool.version.clone(),
        };
        let ctx = CallContext {
            tenant_id: site.tenant_id.to_owned(),
            run_id: site.run_id.to_owned(),
            project_id: site.project_id.map(str::to_owned),
            org_id: site.org_id.map(str::to_owned),
            request_id: site.request_id.map(str::to_owned),
            idempotency_key: key,
            env,
            settings,
            wait_token,
            tool_files,
            ..CallContext::default()
        };
        Ok((selector, ctx))
    }

    /// The `invoke` request of one call to `tool_id` in the run `plan`, with `input`.
    ///
    /// # Errors
    ///
    /// As [`Deployment::call_context`].
    ///
    /// # Examples
    ///
    /// ```
    /// use runstart::protocol::{CallSite, Deployment, EnvScopes};
    /// use runstart::run::{RunRequest, RunStart};
    /// use serde_json::json;
    ///
    /// let bytes = std::fs::read("fixtures/packs/support-desk/index.json")?;
    /// let deployment = Deployment::new(&bytes).expect("a usable index");
    /// let run_start = RunStart::new();
    /// run_start.register_pack("acme", &runstart::index::load(&bytes).index.unwrap()).unwrap();
    /// let providers: Vec<runstart::route::ProviderMetadata> =
    ///     serde_json::from_slice(&std::fs::read("fixtures/providers.json")?)?;
    /// for p in providers {
    ///     run_start.register_provider("acme", p).unwrap();
    /// }
    /// let request: RunRequest = serde_json::from_value(json!({
    ///     "tenantId": "acme", "agent": {"id": "support.reply-drafter"},
    ///     "parameters": {"customerName": "Ana", "ticketId": "T-17"},
    ///     "now": "2026-11-30T09:00:00.000Z"
    /// }))?;
    /// let plan = run_start.prepare(&request).unwrap();
    /// let mut env = EnvScopes::new();
    /// env.tenant.insert("CRM_API_URL".into(), "https://crm.example".into());
    /// let site = CallSite::new("acme", "run-1").with_step_scope("turn-1").with_call_id("toolu_1").with_env(&env);
    /// let invoke = deployment
    ///     .invoke(&plan, "support.customers.lookup", json!({"email": "a@b.example"}), &site)
    ///     .unwrap();
    /// assert_eq!(invoke.tool.version.as_deref(), Some("3.2.0"));
    /// assert_eq!(invoke.ctx.env.unwrap()["CRM_API_URL"], "https://crm.example");
    /// assert_eq!(invoke.ctx.idempotency_key.unwrap().len(), 36);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn invoke(
        &self,
        plan: &RunPlan,
        tool_id: &str,
        input: Value,
        site: &CallSite<'_>,
    ) -> Result<ToolInvoke, Vec<Issue>> {
        let (tool, ctx) = self.call_context(plan, tool_id, site)?;
        Ok(ToolInvoke {
            v: V2,
            tool,
            input,
            ctx,
        })
    }

    /// The indexed tool a run's pin names: the version as indexed, or, for an unversioned
    /// entry, the pack's version (which registration pins it under).
    fn pinned_tool(&self, id: &str, pinned: &str) -> Option<&ToolContract> {
        self.tools.iter().find(|t| {
            t.id == id
                && match &t.version {
                    Some(v) => v == pinned,
                    None => self.pack_version == pinned,
                }
        })
    }

    fn env_for(
        &self,
        tool: &ToolContract,
        scopes: &EnvScopes,
        issues: &mut Vec<Issue>,
    ) -> Option<BTreeMap<String, String>> {
        if tool.env.is_empty() {
            return None;
        }
        let mut env = BTreeMap::new();
        for need in &tool.env {
            let at = pointer::join("/ctx/env", &[&need.name]);
            let (value, source) = match scopes.resolve(&need.name) {
                Some((v, scope)) => (v, scope),
                None => match &need.default {
                    Some(d) => (d.as_str(), "schema default"),
                    None => {
                        issues.push(Issue::error(
                            IssueCode::EnvValueMissing,
                            at,
                            format!(
                                "tool {} declares env name {} (needsSpec.env), which neither the project, its org nor the tenant sets, and its schema has no default; set it for one of them",
                                quoted(&tool.id),
                                quoted(&need.name)
                            ),
                        ));
                        continue;
                    }
                },
            };
            let as_json = Value::from(value);
            if !need.schema.is_valid(&as_json) {
                let why = need
                    .schema
                    .issues(&as_json, "", IssueCode::EnvValueInvalid)
                    .first()
                    .map(|i| i.message().to_owned())
                    .unwrap_or_default();
                issues.push(Issue::error(
                    IssueCode::EnvValueInvalid,
                    at,
                    format!(
                        "tool {}: env value {} ({}) {why}; set a value its needsSpec.env schema accepts",
                        quoted(&tool.id),
                        quoted(&need.name),
                        source
                    ),
                ));
                continue;
            }
            env.insert(need.name.clone(), value.to_owned());
        }
        Some(env)
    }

    fn settings_for(
        &self,
        plan: &RunPlan,
        issues: &mut Vec<Issue>,
    ) -> Option<BTreeMap<String, serde_json::Map<String, Value>>> {
        let Some(ids) = self.agent_settings(&plan.agent_id, &plan.agent_version) else {
            issues.push(Issue::error(
                IssueCode::AgentNotInDeployment,
                "/ctx/settings",
                format!(
                    "agent \"{}\" version {} is not in pack {}, so the settings blocks it pins are unknown; build call contexts with the deployment of the agent's pack",
                    plan.agent_id,
                    plan.agent_version,
                    quoted(&self.pack_id)
                ),
            ));
            return None;
        };
        if ids.is_empty() {
            return None;
        }
        let mut settings = BTreeMap::new();
        for id in ids {
            let version = plan.block_versions.get(id);
            let values = version.and_then(|v| self.settings_values(id, v));
            match values {
                Some(values) => {
                    settings.insert(id.clone(), values.clone());
                }
                None => issues.push(Issue::error(
                    IssueCode::SettingsBlockMissing,
                    pointer::join("/ctx/settings", &[id]),
                    format!(
                        "agent \"{}\" pins settings block {} at {}, which pack {} does not hold with object values; publish that block version",
                        plan.agent_id,
                        quoted(id),
                        version.map_or_else(|| "no version".to_owned(), |v| quoted(v)),
                        quoted(&self.pack_id)
                    ),
                )),
            }
        }
        Some(settings)
    }
}

fn quoted(s: &str) -> String {
    Value::from(s).to_string()
}
