//! What a caller sends to prepare a run, and the plan it gets back (serde, camelCase).

use crate::route::{RouteSnapshot, TenantPolicy};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// Which agent to run: an exact version, or the latest when `version` is absent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSelector {
    /// Agent id.
    pub id: String,
    /// Exact version; absent means the highest registered version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// The conversation a turn belongs to (the `conversation` auto-variable).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Conversation {
    /// Conversation id.
    pub id: String,
    /// Turn number, counting from 1.
    pub turn: u64,
}

/// What a resumed turn journaled in its first `setup`: it runs exactly these again.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TurnPins {
    /// Tool id → exact version (`toolVersions`).
    #[serde(default)]
    pub tool_versions: BTreeMap<String, String>,
    /// Block id → exact version (`blockVersions`).
    #[serde(default)]
    pub block_versions: BTreeMap<String, String>,
    /// The provider the turn was routed to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_id: Option<String>,
    /// The model the turn was routed to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// A request to prepare one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunRequest {
    /// The tenant the run is for.
    pub tenant_id: String,
    /// The agent to run.
    pub agent: AgentSelector,
    /// Caller-supplied prompt parameters. Each must be declared by the agent (or its prompt
    /// block) and have the declared type; upstream keeps undeclared ones, runstart refuses them.
    #[serde(default)]
    pub parameters: Map<String, Value>,
    /// Structured input (flow agent steps): the `input` auto-variable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    /// The conversation: the `conversation` auto-variable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<Conversation>,
    /// A resumed turn's journaled versions and route.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pins: Option<TurnPins>,
    /// The caller's tenant policy, merged with the registered one (router.md §2.14).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant_policy: Option<TenantPolicy>,
    /// The render clock, as `toISOString` writes it (`2026-09-17T15:30:00.000Z`); anything
    /// else is refused by `prepare` (`invalid-request` at `/now`).
    pub now: String,
}

impl RunRequest {
    /// A request for the highest registered version of `agent_id` in `tenant_id`, rendered at
    /// `now` (an instant as `toISOString` writes it; [`super::iso_now`] gives the current one),
    /// with no parameters, input, conversation, pins or tenant policy; add them with the
    /// `with_*` setters.
    ///
    /// # Examples
    ///
    /// ```
    /// use runstart::run::RunRequest;
    ///
    /// let request = RunRequest::new("acme", "support.escalation-writer", "2026-11-30T09:00:00.000Z")
    ///     .with_parameter("ticketId", "T-17")
    ///     .with_parameter("maxWords", 80)
    ///     .with_conversation("c-1", 1);
    /// assert_eq!(request.parameters["maxWords"], 80);
    /// assert_eq!(request.agent.version, None);
    /// ```
    pub fn new(
        tenant_id: impl Into<String>,
        agent_id: impl Into<String>,
        now: impl Into<String>,
    ) -> RunRequest {
        RunRequest {
            tenant_id: tenant_id.into(),
            agent: AgentSelector {
                id: agent_id.into(),
                version: None,
            },
            parameters: Map::new(),
            input: None,
            conversation: None,
            pins: None,
            tenant_policy: None,
            now: now.into(),
        }
    }

    /// Asks for this exact agent version (default: the highest registered).
    #[must_use]
    pub fn with_version(mut self, version: impl Into<String>) -> RunRequest {
        self.agent.version = Some(version.into());
        self
    }

    /// Supplies one prompt parameter (default: none).
    #[must_use]
    pub fn with_parameter(
        mut self,
        name: impl Into<String>,
        value: impl Into<Value>,
    ) -> RunRequest {
        self.parameters.insert(name.into(), value.into());
        self
    }

    /// Sets the `conversation` auto-variable (default: none).
    #[must_use]
    pub fn with_conversation(mut self, id: impl Into<String>, turn: u64) -> RunRequest {
        self.conversation = Some(Conversation {
            id: id.into(),
            turn,
        });
        self
    }

    /// Sets the structured `input` of a flow step (default: none).
    #[must_use]
    pub fn with_input(mut self, input: Value) -> RunRequest {
        self.input = Some(input);
        self
    }

    /// Sets the caller's tenant policy (default: none).
    #[must_use]
    pub fn with_tenant_policy(mut self, policy: TenantPolicy) -> RunRequest {
        self.tenant_policy = Some(policy);
        self
    }

    /// Sets a resumed turn's pins (default: none).
    #[must_use]
    pub fn with_pins(mut self, pins: TurnPins) -> RunRequest {
        self.pins = Some(pins);
        self
    }
}

/// One resolved tool of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedTool {
    /// Tool id.
    pub id: String,
    /// The version the run uses.
    pub version: String,
    /// The agent's range for it.
    pub requested_range: String,
}

/// The alternates of a routing decision: the ranked candidates after the pick, kept as
/// indices into the tenant's compiled route snapshot, so preparing a run copies no provider or
/// model names. Serializes as `[[providerId, model], …]`, best first.
#[derive(Clone)]
pub struct Alternates {
    snapshot: Arc<RouteSnapshot>,
    order: Arc<[u32]>,
}

impl Alternates {
    pub(crate) fn new(snapshot: Arc<RouteSnapshot>, order: &[u32]) -> Alternates {
        Alternates {
            snapshot,
            order: Arc::from(order),
        }
    }

    /// `(provider id, model name)` of each alternate, best first.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.order
            .iter()
            .filter_map(|&i| self.snapshot.tuple_names(i))
    }

    /// How many alternates there are.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

impl PartialEq for Alternates {
    fn eq(&self, other: &Alternates) -> bool {
        self.iter().eq(other.iter())
    }
}

impl fmt::Debug for Alternates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Alternates {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// One routed capability of the plan. The text fields are shared with the registry
/// (`Arc<str>`), so a plan costs no copies of them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedRoute {
    /// The capability's kind.
    pub kind: Arc<str>,
    /// Picked provider id.
    pub provider_id: Arc<str>,
    /// Picked model name.
    pub model: Arc<str>,
    /// The other candidates, best first, as `[providerId, model]`.
    pub alternates: Alternates,
    /// Whether the pick is a fallback provider.
    pub fallback: bool,
    /// The router's explanation.
    pub reason: String,
}

/// Everything the runtime journals when a run starts.
///
/// What does not change from run to run of an agent version (its id, version, tools, blocks
/// and guardrails) is shared with the registry behind `Arc`s: preparing a run copies none of
/// it. Serializes as plain JSON (`Arc<T>` serializes as `T`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunPlan {
    /// The agent id.
    pub agent_id: Arc<str>,
    /// The agent version that runs.
    pub agent_version: Arc<str>,
    /// Resolved tools, in the agent's declaration order.
    pub tools: Arc<[PlannedTool]>,
    /// Tool id → version (`toolVersions`, what a resumed turn pins).
    pub tool_versions: Arc<BTreeMap<String, String>>,
    /// Block id → version (`blockVersions`), prompt and settings blocks.
    pub block_versions: Arc<BTreeMap<String, String>>,
    /// Guardrail ids that run, in the agent's order.
    pub guardrails: Arc<[String]>,
    /// The model settings block's values (`temperature`, `maxOutputTokens`), when referenced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_settings: Option<Arc<Value>>,
    /// The run's model: the first `llm-inference` capability's decision.
    pub route: PlannedRoute,
    /// Every capability's decision, in declaration order.
    pub capabilities: Vec<PlannedRoute>,
    /// The rendered instructions.
    pub instructions: String,
    /// Warnings (`fallback-provider`).
    pub warnings: Vec<String>,
}
