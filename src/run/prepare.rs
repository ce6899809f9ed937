//! `prepare`: the run-start algorithm, in upstream's order.

use super::compiled::{
    AgentSlot, BlockContent, BlockRef, CompiledAgent, CompiledBlock, CompiledCapability,
    InstructionsSource, PackState, PinnedPlan, TENANT_KEY, TenantState,
};
use super::error::{
    AgentNotFoundReason, BlockReason, InvalidRequestReason, LLM_INFERENCE, RenderFailureReason,
    RoutingFailure, ToolVersionReason,
};
use super::route_memo::{self, Routes};
use super::wire::{Alternates, PlannedRoute, PlannedTool, RunPlan, RunRequest, TurnPins};
use super::{RunStartError, Snapshot};
use crate::catalog::ResolveError;
use crate::pack::{BlockRole, model_settings_problems};
use crate::range::parse_version;
use crate::route::{
    AllowDeny, CapabilityUnsatisfiable, CompiledPolicy, RouteRequest, Scratch, TenantPolicy,
    merge_tenant_policies,
};
use crate::template::{CompiledTemplate, PromptError, PromptGlobals, PromptParameter};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

impl Snapshot {
    /// Prepares one run, in upstream's order (agents.md §1.4, §3, §4.4; router.md §2.14):
    ///
    /// 1. the agent: the exact version asked for, else the highest registered;
    /// 2. guardrails: every listed id must be registered (all missing ids named at once);
    /// 3. tools, in declaration order: a resumed turn's `toolVersions` pin, else the agent
    ///    version's pin (exact lookups, which reach retired versions), else the range;
    /// 4. blocks: the prompt block, then settings, then model settings, with the same
    ///    precedence;
    /// 5. capabilities: each routed among the providers of its kind under the request's
    ///    tenant policy merged with the registered one; the run's model is the first
    ///    `llm-inference` capability's pick (upstream routes `capabilities[0]` whatever its
    ///    kind; runstart picks by kind). A resumed turn stays on its provider and model;
    /// 6. instructions rendered strictly with `today`/`now` from the request's clock.
    ///
    /// Steps 3 and 4 give the same answer for every run that brings no turn pins for tools or
    /// blocks, so registration makes that answer once and each such run shares it (the plan's
    /// `Arc` fields); a resumed turn's pins take the full path.
    ///
    /// # Errors
    ///
    /// The first failing step's [`RunStartError`], with upstream's code and message.
    pub fn prepare(&self, request: &RunRequest) -> Result<RunPlan, RunStartError> {
        let agent_id = request.agent.id.as_str();
        if !super::is_iso_instant(&request.now) {
            return Err(RunStartError::InvalidRequest {
                reason: InvalidRequestReason::NowNotInstant {
                    now: request.now.clone(),
                },
            });
        }
        let Some(state) = self.tenants.get(&request.tenant_id) else {
            return Err(RunStartError::AgentNotFound {
                agent_id: agent_id.to_owned(),
                reason: AgentNotFoundReason::UnknownTenant {
                    tenant_id: request.tenant_id.clone(),
                },
            });
        };
        let packs = &*state.packs;
        let slot = find_agent(packs, request)?;
        let agent = &*slot.agent;
        check_guardrails(packs, agent)?;
        // A resumed turn's tool or block versions take the slow path; otherwise the plan made
        // at registration is shared (it exists only when every pin resolved then).
        let turn_pins = request
            .pins
            .as_ref()
            .filter(|p| !p.tool_versions.is_empty() || !p.block_versions.is_empty());
        let fresh;
        let pinned: &PinnedPlan = match (turn_pins, &slot.pinned) {
            (None, Some(plan)) => plan,
            _ => {
                fresh = pinned_plan(packs, agent, turn_pins)?;
                &fresh
            }
        };
        // A run with no policy and no resumed route of its own routes as every such run of
        // this agent does while the tenant's state is the same.
        let resumed = resumed_route(request);
        let (route, capabilities, warnings) =
            if request.tenant_policy.is_none() && resumed.is_none() {
                route_memo::routes(state, &slot.agent, || {
                    route_capabilities(state, agent, request, None)
                })?
            } else {
                route_capabilities(state, agent, request, resumed)?
            };
        let instructions = render(agent, pinned, request)?;
        Ok(RunPlan {
            agent_id: Arc::clone(&agent.id),
            agent_version: Arc::clone(&agent.version_text),
            tools: Arc::clone(&pinned.tools),
            tool_versions: Arc::clone(&pinned.tool_versions),
            block_versions: Arc::clone(&pinned.block_versions),
            guardrails: Arc::clone(&agent.guardrails),
            model_settings: pinned.model_settings.clone(),
            route,
            capabilities,
            instructions,
            warnings,
        })
    }
}

/// Steps 3 and 4: the agent's tools, then its blocks, each through the turn's pins, then the
/// agent's pins (made at registration). With no turn pins the answer is the same for every
/// run, which is why registration keeps it (`PackState::repin` in `register`).
///
/// # Errors
///
/// The first tool's or block's failure, as `prepare` reports it.
pub(crate) fn pinned_plan(
    state: &PackState,
    agent: &CompiledAgent,
    pins: Option<&TurnPins>,
) -> Result<PinnedPlan, RunStartError> {
    let mut tools = Vec::with_capacity(agent.tools.len());
    let mut tool_versions = BTreeMap::new();
    for r in &agent.tools {
        let version = resolve_tool(
            state,
            agent,
            r,
            pins.and_then(|p| p.tool_versions.get(&*r.id)),
        )?;
        tool_versions.insert(String::from(&*r.id), String::from(&*version));
        tools.push(PlannedTool {
            id: String::from(&*r.id),
            version: String::from(&*version),
            requested_range: String::from(&*r.range_text),
        });
    }
    let blocks = resolve_blocks(state, agent, pins)?;
    Ok(PinnedPlan {
        tools: tools.into(),
        tool_versions: Arc::new(tool_versions),
        block_versions: Arc::new(blocks.versions),
        prompt: blocks.prompt,
        settings: Value::Object(blocks.settings),
        model_settings: blocks.model_settings.map(Arc::new),
    })
}

fn find_agent<'s>(
    state: &'s PackState,
    request: &RunRequest,
) -> Result<&'s AgentSlot, RunStartError> {
    let id = request.agent.id.as_str();
    let versions = state
        .agents
        .get(id)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| RunStartError::AgentNotFound {
            agent_id: id.to_owned(),
            reason: AgentNotFoundReason::NotRegistered,
        })?;
    match &request.agent.version {
        None => versions.first().map(|(_, slot)| slot),
        Some(text) => parse_version(text).and_then(|v| versions.get(&v)),
    }
    .ok_or_else(|| RunStartError::AgentNotFound {
        agent_id: id.to_owned(),
        reason: AgentNotFoundReason::NoSuchVersion {
            version: request.agent.version.clone().unwrap_or_default(),
        },
    })
}

fn check_guardrails(state: &PackState, agent: &CompiledAgent) -> Result<(), RunStartError> {
    if agent
        .guardrails
        .iter()
        .all(|g| state.guardrails.contains_key(g))
    {
        return Ok(());
    }
    let missing: Vec<String> = agent
        .guardrails
        .iter()
        .filter(|g| !state.guardrails.contains_key(*g))
        .cloned()
        .collect();
    Err(RunStartError::UnresolvedGuardrail {
        agent_id: agent.id.to_string(),
        guardrail_ids: missing,
    })
}

fn resolve_tool(
    state: &PackState,
    agent: &CompiledAgent,
    r: &super::compiled::ToolRefC,
    turn_pin: Option<&String>,
) -> Result<Arc<str>, RunStartError> {
    let turn_pin = turn_pin.map(|t| (t.as_str(), parse_version(t)));
    let unresolvable = |reason: ToolVersionReason| RunStartError::ToolVersionUnresolvable {
        tool_id: r.id.to_string(),
        requested_range: r.range.text().to_owned(),
        reason: Box::new(reason),
    };
    // The registry's message is appended only when the whole id is gone.
    let appended = |e: ResolveError| match e {
        ResolveError::ToolVersionNotFound { .. } => None,
        other => Some(other),
    };
    if let Some((text, parsed)) = turn_pin {
        let found = parsed
            .as_ref()
            .map(|v| state.tool_catalog(&r.id).get_exact(TENANT_KEY, &r.id, v));
        return match found {
            Some(Ok(hit)) => Ok(Arc::clone(&hit.value.version)),
            Some(Err(e)) => Err(unresolvable(ToolVersionReason::TurnPinGone {
                version: text.to_owned(),
                registry: appended(e),
            })),
            None => Err(unresolvable(ToolVersionReason::TurnPinGone {
                version: text.to_owned(),
                registry: None,
            })),
        };
    }
    if let Some(pin) = &r.pin {
        return match state.tool_catalog(&r.id).get_exact(TENANT_KEY, &r.id, pin) {
            Ok(hit) => Ok(Arc::clone(&hit.value.version)),
            Err(e) => Err(unresolvable(ToolVersionReason::AgentPinGone {
                agent_id: agent.id.to_string(),
                agent_version: agent.version_text.to_string(),
                pin: pin.to_string(),
                registry: appended(e),
            })),
        };
    }
    match state
        .tool_catalog(&r.id)
        .resolve(TENANT_KEY, &r.id, &r.range)
    {
        Ok(hit) => Ok(Arc::clone(&hit.value.version)),
        Err(
            e @ (ResolveError::InvalidVersionRange { .. }
            | ResolveError::ToolVersionUnresolvable { .. }),
        ) => Err(unresolvable(ToolVersionReason::Registry(e))),
        Err(e) => Err(RunStartError::UnresolvedTool {
            tool_id: r.id.to_string(),
            agent_id: agent.id.to_string(),
            cause: Box::new(e),
        }),
    }
}

/// What the block step produced.
struct Blocks {
    prompt: Option<Arc<CompiledBlock>>,
    settings: Map<String, Value>,
    model_settings: Option<Value>,
    versions: BTreeMap<String, String>,
}

fn resolve_block(
    state: &PackState,
    r: &BlockRef,
    role: BlockRole,
    pins: Option<&TurnPins>,
) -> Result<Arc<CompiledBlock>, RunStartError> {
    let fail = |reason: BlockReason| RunStartError::BlockUnresolvable {
        block_id: r.id.clone(),
        requested_range: r.range_text.clone(),
        role,
        reason,
    };
    let index = state.blocks.get(&r.id);
    let versions = || index.into_iter().flat_map(|v| v.values());
    let turn_pin = pins.and_then(|p| p.block_versions.get(&r.id));
    // The agent's pin is a `Version` already (made at registration); only a resumed turn's
    // journaled text needs parsing. The text is written only for an error.
    let turn_version = turn_pin.map(|t| (t.as_str(), parse_version(t)));
    let pinned: Option<Option<Cow<'_, semver::Version>>> = match &turn_version {
        Some((_, parsed)) => Some(parsed.as_ref().map(Cow::Borrowed)),
        None => r.pin.as_ref().map(|v| Some(Cow::Borrowed(v))),
    };
    let block = match pinned {
        Some(wanted) => versions()
            .find(|b| wanted.as_deref() == Some(&b.version))
            .ok_or_else(|| {
                let text = match (&turn_version, &r.pin) {
                    (Some((t, _)), _) => (*t).to_owned(),
                    (None, Some(v)) => v.to_string(),
                    (None, None) => String::new(),
                };
                fail(BlockReason::PinGone { version: text })
            })?,
        None => match versions().find(|b| r.range.satisfies(&b.version)) {
            Some(b) => b,
            None => {
                let published = versions().map(|b| b.version_text.clone()).collect();
                return Err(fail(BlockReason::NoneSatisfies { published }));
            }
        },
    };
    if block.kind() != role.kind() {
        return Err(fail(BlockReason::WrongKind {
            kind: block.kind().to_owned(),
        }));
    }
    if let (BlockRole::ModelSettings, BlockContent::Settings { values }) = (role, &block.content)
        && let Some(problem) = model_settings_problems(values)
    {
        return Err(fail(BlockReason::NotModelSettings {
            version: block.version_text.clone(),
            problem,
        }));
    }
    Ok(Arc::clone(block))
}

fn resolve_blocks(
    state: &PackState,
    agent: &CompiledAgent,
    pins: Option<&TurnPins>,
) -> Result<Blocks, RunStartError> {
    let mut out = Blocks {
        prompt: None,
        settings: Map::new(),
        model_settings: None,
        versions: BTreeMap::new(),
    };
    if let InstructionsSource::Block(r) = &agent.instructions {
        let b = resolve_block(state, r, BlockRole::Prompt, pins)?;
        out.versions.insert(r.id.clone(), b.version_text.clone());
        out.prompt = Some(b);
    }
    for r in &agent.settings {
        let b = resolve_block(state, r, BlockRole::Settings, pins)?;
        out.versions.insert(r.id.clone(), b.version_text.clone());
        if let BlockContent::Settings { values } = &b.content {
            out.settings.insert(r.id.clone(), values.clone());
        }
    }
    if let Some(r) = &agent.model_settings {
        let b = resolve_block(state, r, BlockRole::ModelSettings, pins)?;
        out.versions.insert(r.id.clone(), b.version_text.clone());
        if let BlockContent::Settings { values } = &b.content {
            out.model_settings = Some(values.clone());
        }
    }
    Ok(out)
}

/// A resumed turn's journaled provider and model, when it has both.
fn resumed_route(request: &RunRequest) -> Option<(&str, &str)> {
    request
        .pins
        .as_ref()
        .and_then(|p| Some((p.provider_id.as_deref()?, p.model.as_deref()?)))
}

/// Routes every capability of `agent`; `resumed` is the request's `resumed_route`.
fn route_capabilities(
    state: &TenantState,
    agent: &CompiledAgent,
    request: &RunRequest,
    resumed: Option<(&str, &str)>,
) -> Result<Routes, RunStartError> {
    if agent.capabilities.is_empty() {
        return Err(RunStartError::CapabilityRoutingFailed {
            reason: Box::new(RoutingFailure::NoCapabilities {
                agent_id: agent.id.to_string(),
            }),
        });
    }
    // Merge only when the request brings a policy; otherwise route the registered one as it
    // was compiled when set.
    let registered = state.policy.as_deref();
    let merged = request
        .tenant_policy
        .as_ref()
        .map(|p| merge_tenant_policies(Some(p), registered.map(CompiledPolicy::policy)));
    let policy: Option<&TenantPolicy> = match &merged {
        Some(m) => m.as_ref(),
        None => registered.map(CompiledPolicy::policy),
    };
    let pinned_policy = resumed.map(|(provider, model)| {
        let pin = TenantPolicy {
            tenant_id: Some(request.tenant_id.clone()),
            providers: Some(AllowDeny {
                allow: Some(vec![provider.to_owned()]),
                deny: None,
            }),
            models: Some(AllowDeny {
                allow: Some(vec![model.to_owned()]),
                deny: None,
            }),
            ..TenantPolicy::default()
        };
        merge_tenant_policies(policy, Some(&pin))
    });
    let mut llm: Option<PlannedRoute> = None;
    let mut all = Vec::with_capacity(agent.capabilities.len());
    let mut warnings = Vec::new();
    for CompiledCapability {
        capability: cap,
        kind,
    } in &agent.capabilities
    {
        let is_llm = &**kind == LLM_INFERENCE;
        let first_llm = is_llm && llm.is_none();
        let use_policy = match (&pinned_policy, first_llm) {
            (Some(p), true) => Policy::PerCall(p.as_ref()),
            _ if merged.is_some() => Policy::PerCall(policy),
            _ => Policy::Registered(registered),
        };
        let planned = route_one(state, agent, cap, kind, use_policy, is_llm).map_err(|cause| {
            let reason = match (resumed, first_llm) {
                (Some((provider, model)), true) => RoutingFailure::ResumedRouteGone {
                    provider_id: provider.to_owned(),
                    model: model.to_owned(),
                    cause,
                },
                _ => RoutingFailure::Unsatisfiable(cause),
            };
            RunStartError::CapabilityRoutingFailed {
                reason: Box::new(reason),
            }
        })?;
        if planned.fallback {
            warnings.push(format!(
                "fallback-provider: {} capability routed to fallback provider \"{}\"",
                planned.kind, planned.provider_id
            ));
        }
        if first_llm {
            llm = Some(planned.clone());
        }
        all.push(planned);
    }
    let Some(route) = llm else {
        return Err(RunStartError::CapabilityRoutingFailed {
            reason: Box::new(RoutingFailure::NoLlmCapability {
                agent_id: agent.id.to_string(),
            }),
        });
    };
    Ok((route, all, warnings))
}

/// The policy a capability routes under: the registered one, compiled when it was set, or
/// one made for this call (the request's merged in, or a resumed turn's pin), routed by its
/// strings.
#[derive(Clone, Copy)]
enum Policy<'a> {
    Registered(Option<&'a CompiledPolicy>),
    PerCall(Option<&'a TenantPolicy>),
}

fn route_one(
    state: &TenantState,
    agent: &CompiledAgent,
    cap: &crate::route::CompiledCapability,
    kind: &Arc<str>,
    policy: Policy<'_>,
    is_llm: bool,
) -> Result<PlannedRoute, CapabilityUnsatisfiable> {
    let route = |scratch: &mut Scratch| match policy {
        Policy::Registered(p) => state.route.route_compiled(cap, p, is_llm, scratch),
        Policy::PerCall(p) => {
            let request = RouteRequest {
                capability: cap.capability(),
                tenant_policy: p,
                preferred_provider: agent.preferred_provider.as_deref().filter(|_| is_llm),
                preferred_model: agent.preferred_model.as_deref().filter(|_| is_llm),
            };
            state.route.route_with(&request, scratch)
        }
    };
    // Each thread keeps its routing scratch buffers, so routing allocates only its answer.
    thread_local! {
        static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
    }
    let routed = SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => route(&mut scratch),
        Err(_) => route(&mut Scratch::default()),
    });
    match routed {
        Ok(routed) => {
            let (provider_id, model) = routed
                .order()
                .first()
                .and_then(|&i| state.route.tuple_shared_names(i))
                .map_or_else(
                    || {
                        (
                            Arc::from(routed.provider().id.as_str()),
                            Arc::from(routed.model().name.as_str()),
                        )
                    },
                    |(p, m)| (Arc::clone(p), Arc::clone(m)),
                );
            Ok(PlannedRoute {
                kind: Arc::clone(kind),
                provider_id,
                model,
                alternates: Alternates::new(
                    Arc::clone(&state.route),
                    routed.order().get(1..).unwrap_or_default(),
                ),
                fallback: routed.fallback(),
                reason: routed.reason(),
            })
        }
        Err(e) => Err(e),
    }
}

fn render(
    agent: &CompiledAgent,
    pinned: &PinnedPlan,
    request: &RunRequest,
) -> Result<String, RunStartError> {
    let (template, params): (&CompiledTemplate, &[PromptParameter]) =
        match (&agent.instructions, &pinned.prompt) {
            (InstructionsSource::Inline { template, params }, _) => (template, params),
            (InstructionsSource::Block(_), Some(block)) => match &block.content {
                BlockContent::Prompt { template, params } => (template, params),
                BlockContent::Settings { .. } => unreachable_prompt(agent)?,
            },
            (InstructionsSource::Block(r), None) => {
                return Err(RunStartError::RenderFailure {
                    reason: RenderFailureReason::PromptBlockNotLoaded {
                        block_id: r.id.clone(),
                        range: r.range_text.clone(),
                    },
                });
            }
        };
    check_parameters(agent, params, &request.parameters)?;
    let conversation = request
        .conversation
        .as_ref()
        .map(|c| serde_json::json!({"id": c.id, "turn": c.turn}));
    let auto = PromptGlobals {
        now: &request.now,
        agent: &agent.agent_value,
        conversation: conversation.as_ref(),
        input: request.input.as_ref(),
        settings: agent.references_blocks().then_some(&pinned.settings),
    };
    template
        .render_prompt_with(params, &request.parameters, &auto)
        .map_err(|e| match e {
            PromptError::RenderFailure(_) => RunStartError::RenderFailure {
                reason: RenderFailureReason::Template(e),
            },
            cause => RunStartError::MissingParameter { cause },
        })
}

/// Every supplied parameter must be declared and have its declared type (agents.md §2:
/// `string`, `number`, `boolean`, `date`). Upstream keeps undeclared values and renders
/// whatever it is given, so `maxWords=lots` would read "at most lots words"; runstart refuses
/// the request and names the nearest declared parameter for a typo.
fn check_parameters(
    agent: &CompiledAgent,
    params: &[PromptParameter],
    supplied: &Map<String, Value>,
) -> Result<(), RunStartError> {
    for (name, value) in supplied {
        let invalid = |reason: InvalidRequestReason| RunStartError::InvalidRequest { reason };
        let Some(param) = params.iter().find(|p| p.name() == name) else {
            return Err(invalid(InvalidRequestReason::UndeclaredParameter {
                agent_id: agent.id.to_string(),
                name: name.clone(),
                declared: params.iter().map(|p| p.name().to_owned()).collect(),
            }));
        };
        let Some(ty) = param.type_name() else {
            continue;
        };
        let fits = match ty {
            "string" => value.is_string(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            "date" => value.as_str().is_some_and(crate::pack::is_date_value),
            _ => true,
        };
        if !fits {
            return Err(invalid(InvalidRequestReason::WrongParameterType {
                name: name.clone(),
                declared_type: ty.to_owned(),
                value: Box::new(value.clone()),
            }));
        }
    }
    Ok(())
}

/// The kind check of the block step guarantees a prompt block here; answer with an error
/// rather than panic should that ever change.
fn unreachable_prompt<T>(agent: &CompiledAgent) -> Result<T, RunStartError> {
    Err(RunStartError::RenderFailure {
        reason: RenderFailureReason::NotAPrompt {
            agent_id: agent.id.to_string(),
        },
    })
}
