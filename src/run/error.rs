//! Why a run could not be prepared, with upstream's codes and messages.
//!
//! Every variant holds what went wrong as typed fields; the message is written from them by
//! `Display` (one place per text), and the wire form (`{code, message, …}`, upstream's camelCase
//! fields) is written from the same fields, so callers branch on the fields, never on the text.

use crate::catalog::ResolveError;
use crate::pack::BlockRole;
use crate::route::CapabilityUnsatisfiable;
use crate::template::PromptError;
use serde::{Serialize, Serializer};
use serde_json::Value;
use std::fmt;

/// The capability kind that picks an agent's model.
pub(super) const LLM_INFERENCE: &str = "llm-inference";

/// Why [`super::Snapshot::prepare`] failed. `code()` is upstream's turn error code and
/// `Display` its message (agents.md §1.4, §2, §3, §4.4; router.md §2.14).
///
/// Serializes as upstream's turn error: `{code, message}` plus the variant's wire fields
/// (`guardrailIds`, `toolId`, `requestedRange`, `availableVersions`, `blockId`, `cause`,
/// `parameterName`, `instancePath`), in that order.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum RunStartError {
    /// No such agent (version) in the tenant.
    AgentNotFound {
        /// The agent id asked for.
        agent_id: String,
        /// What is missing.
        reason: AgentNotFoundReason,
    },
    /// Guardrail ids the agent lists that are not registered, all at once.
    UnresolvedGuardrail {
        /// The agent.
        agent_id: String,
        /// The missing ids, in the agent's order.
        guardrail_ids: Vec<String>,
    },
    /// A tool id that is not registered (or another failure of the tool registry).
    UnresolvedTool {
        /// The tool id.
        tool_id: String,
        /// The agent that declares it.
        agent_id: String,
        /// The registry's error, usually [`ResolveError::ToolNotFound`]; the message is its
        /// [`ResolveError::run_start_message`] (boxed: errors stay small on the success path).
        cause: Box<ResolveError>,
    },
    /// A tool range with no registered version, an invalid range, or a pin that is gone.
    ToolVersionUnresolvable {
        /// The tool id.
        tool_id: String,
        /// The agent's range for the tool (also when a pin failed).
        requested_range: String,
        /// How the version lookup failed (boxed: errors stay small on the success path).
        reason: Box<ToolVersionReason>,
    },
    /// A prompt, settings or model-settings block that does not resolve.
    BlockUnresolvable {
        /// The block id.
        block_id: String,
        /// The agent's range for the block.
        requested_range: String,
        /// What the agent uses the block for.
        role: BlockRole,
        /// Why it does not resolve.
        reason: BlockReason,
    },
    /// No provider and model satisfies a capability.
    CapabilityRoutingFailed {
        /// Why; [`RunStartError::cause`] is the router's error when routing ran (boxed:
        /// errors stay small on the success path).
        reason: Box<RoutingFailure>,
    },
    /// Required parameters not supplied, or a variable the template reads that does not
    /// resolve ([`PromptError::MissingParameters`] or [`PromptError::UnresolvedVariable`]).
    MissingParameter {
        /// The render's error.
        cause: PromptError,
    },
    /// The template failed to render for another reason.
    RenderFailure {
        /// Why.
        reason: RenderFailureReason,
    },
    /// The request itself is wrong: `now` is not an instant as `toISOString` writes it, a
    /// parameter is not declared, or its value does not have the declared type. Upstream
    /// checks none of these; runstart refuses the request rather than render a wrong prompt.
    InvalidRequest {
        /// What is wrong.
        reason: InvalidRequestReason,
    },
}

/// Why [`RunStartError::AgentNotFound`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AgentNotFoundReason {
    /// Nothing is registered for the tenant.
    UnknownTenant {
        /// The request's tenant.
        tenant_id: String,
    },
    /// The tenant has no version of the agent.
    NotRegistered,
    /// The tenant has the agent, but not the version asked for.
    NoSuchVersion {
        /// The version asked for, as written.
        version: String,
    },
}

/// Why [`RunStartError::ToolVersionUnresolvable`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolVersionReason {
    /// A resumed turn's journaled version is no longer registered (or is not a version).
    TurnPinGone {
        /// The journaled version, as written.
        version: String,
        /// The registry's error when the whole id is gone (its message is appended).
        registry: Option<ResolveError>,
    },
    /// The version the agent was pinned to at registration is no longer registered.
    AgentPinGone {
        /// The agent.
        agent_id: String,
        /// The agent's version.
        agent_version: String,
        /// The pinned tool version.
        pin: String,
        /// The registry's error when the whole id is gone (its message is appended).
        registry: Option<ResolveError>,
    },
    /// The registry's answer for the range: [`ResolveError::InvalidVersionRange`] or
    /// [`ResolveError::ToolVersionUnresolvable`] (which lists the available versions).
    Registry(ResolveError),
}

/// Why [`RunStartError::BlockUnresolvable`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BlockReason {
    /// The pinned version (the agent's, or a resumed turn's) is not published.
    PinGone {
        /// The pinned version, as written.
        version: String,
    },
    /// No published version satisfies the range.
    NoneSatisfies {
        /// The published versions, highest first (empty: none at all).
        published: Vec<String>,
    },
    /// The block is of the other kind (`prompt` where settings are needed, or the reverse).
    WrongKind {
        /// The block's kind.
        kind: String,
    },
    /// A model-settings reference names a settings block whose values are not model settings.
    NotModelSettings {
        /// The block's version.
        version: String,
        /// What the model-settings schema says of its values.
        problem: String,
    },
}

/// Why [`RunStartError::CapabilityRoutingFailed`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum RoutingFailure {
    /// The agent declares no capabilities.
    NoCapabilities {
        /// The agent.
        agent_id: String,
    },
    /// The agent declares no `llm-inference` capability, so nothing picks its model.
    NoLlmCapability {
        /// The agent.
        agent_id: String,
    },
    /// The router found no provider and model for a capability.
    Unsatisfiable(CapabilityUnsatisfiable),
    /// A resumed turn's provider and model can no longer be routed to.
    ResumedRouteGone {
        /// The journaled provider.
        provider_id: String,
        /// The journaled model.
        model: String,
        /// The router's error for the pinned route.
        cause: CapabilityUnsatisfiable,
    },
}

/// Why [`RunStartError::RenderFailure`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RenderFailureReason {
    /// The instructions come from a prompt block that was not loaded.
    PromptBlockNotLoaded {
        /// The block id.
        block_id: String,
        /// The agent's range for it.
        range: String,
    },
    /// The template failed ([`PromptError::RenderFailure`], LiquidJS's message).
    Template(PromptError),
    /// The agent's prompt block is not a prompt (the block step rules this out; kept so that
    /// a change there is an error, not a panic).
    NotAPrompt {
        /// The agent.
        agent_id: String,
    },
}

/// Why [`RunStartError::InvalidRequest`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InvalidRequestReason {
    /// `now` is not an instant as `toISOString` writes it.
    NowNotInstant {
        /// The request's `now`.
        now: String,
    },
    /// A supplied parameter the agent does not declare.
    UndeclaredParameter {
        /// The agent.
        agent_id: String,
        /// The parameter.
        name: String,
        /// The declared parameters' names, in declaration order.
        declared: Vec<String>,
    },
    /// A supplied value that does not have the parameter's declared type.
    WrongParameterType {
        /// The parameter.
        name: String,
        /// Its declared type: `string`, `number`, `boolean` or `date`.
        declared_type: String,
        /// The value supplied (boxed: a JSON value is as large as the rest of the error).
        value: Box<Value>,
    },
}

impl RunStartError {
    /// Upstream's code: `unresolved-tool`, `tool-version-unresolvable`, …
    pub fn code(&self) -> &'static str {
        match self {
            RunStartError::AgentNotFound { .. } => "agent-not-found",
            RunStartError::UnresolvedGuardrail { .. } => "unresolved-guardrail",
            RunStartError::UnresolvedTool { .. } => "unresolved-tool",
            RunStartError::ToolVersionUnresolvable { .. } => "tool-version-unresolvable",
            RunStartError::BlockUnresolvable { .. } => "block-unresolvable",
            RunStartError::CapabilityRoutingFailed { .. } => "capability-routing-failed",
            RunStartError::MissingParameter { .. } => "missing-parameter",
            RunStartError::RenderFailure { .. } => "render-failure",
            RunStartError::InvalidRequest { .. } => "invalid-request",
        }
    }

    /// The message, as upstream words it (the `Display` text).
    pub fn message(&self) -> String {
        self.to_string()
    }

    /// The router's error (`cause` on the wire), when routing ran and failed.
    pub fn cause(&self) -> Option<&CapabilityUnsatisfiable> {
        match self {
            RunStartError::CapabilityRoutingFailed { reason } => match &**reason {
                RoutingFailure::Unsatisfiable(cause)
                | RoutingFailure::ResumedRouteGone { cause, .. } => Some(cause),
                _ => None,
            },
            _ => None,
        }
    }

    /// `availableVersions`: the active versions, highest first, when no tool version
    /// satisfied the range.
    pub fn available_versions(&self) -> Option<Vec<String>> {
        match self {
            RunStartError::ToolVersionUnresolvable { reason, .. } => match &**reason {
                ToolVersionReason::Registry(ResolveError::ToolVersionUnresolvable {
                    available_versions,
                    ..
                }) => Some(available_versions.iter().map(ToString::to_string).collect()),
                _ => None,
            },
            _ => None,
        }
    }

    /// `parameterName`: the one missing parameter or unresolved variable, or the parameter a
    /// refused request names.
    pub fn parameter_name(&self) -> Option<&str> {
        match self {
            RunStartError::MissingParameter { cause } => cause.parameter_name(),
            RunStartError::InvalidRequest {
                reason:
                    InvalidRequestReason::UndeclaredParameter { name, .. }
                    | InvalidRequestReason::WrongParameterType { name, .. },
            } => Some(name),
            _ => None,
        }
    }

    /// `instancePath` of a refused request: a JSON Pointer into the request (`/now`,
    /// `/parameters/maxWords`); `None` for the other variants.
    pub fn instance_path(&self) -> Option<String> {
        match self {
            RunStartError::InvalidRequest { reason } => Some(match reason {
                InvalidRequestReason::NowNotInstant { .. } => "/now".to_owned(),
                InvalidRequestReason::UndeclaredParameter { name, .. }
                | InvalidRequestReason::WrongParameterType { name, .. } => {
                    crate::diagnostics::pointer::join("/parameters", &[name])
                }
            }),
            _ => None,
        }
    }
}

/// ` <registry message>`, appended to a pin's message when the whole tool id is gone.
struct Appended<'a>(&'a Option<ResolveError>);

impl fmt::Display for Appended<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(e) => write!(f, " {e}"),
            None => Ok(()),
        }
    }
}

impl fmt::Display for RunStartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunStartError::AgentNotFound { agent_id, reason } => match reason {
                AgentNotFoundReason::UnknownTenant { tenant_id } => write!(
                    f,
                    "Agent \"{agent_id}\" is not registered for tenant \"{tenant_id}\""
                ),
                AgentNotFoundReason::NotRegistered => {
                    write!(f, "Agent \"{agent_id}\" is not registered")
                }
                AgentNotFoundReason::NoSuchVersion { version } => {
                    write!(
                        f,
                        "Agent \"{agent_id}\" has no version \"{version}\" registered"
                    )
                }
            },
            RunStartError::UnresolvedGuardrail {
                agent_id,
                guardrail_ids,
            } => write!(
                f,
                "Agent \"{agent_id}\" references guardrails not in the registry: {}",
                guardrail_ids.join(", ")
            ),
            RunStartError::UnresolvedTool {
                agent_id, cause, ..
            } => f.write_str(&cause.run_start_message(agent_id)),
            RunStartError::ToolVersionUnresolvable {
                tool_id, reason, ..
            } => match &**reason {
                ToolVersionReason::TurnPinGone { version, registry } => write!(
                    f,
                    "Tool \"{tool_id}\": this turn started with version {version}, which is no longer registered; it doesn't run another version mid-turn.{}",
                    Appended(registry)
                ),
                ToolVersionReason::AgentPinGone {
                    agent_id,
                    agent_version,
                    pin,
                    registry,
                } => write!(
                    f,
                    "Tool \"{tool_id}\": agent \"{agent_id}\" version {agent_version} runs version {pin} (its pins), which isn't registered; it doesn't run another version.{}",
                    Appended(registry)
                ),
                ToolVersionReason::Registry(e) => write!(f, "{e}"),
            },
            RunStartError::BlockUnresolvable {
                block_id,
                requested_range,
                role,
                reason,
            } => {
                let desc = format!("{} block \"{block_id}\"", role.desc());
                match reason {
                    BlockReason::PinGone { version } => {
                        write!(f, "{desc} runs version {version}, which isn't published")
                    }
                    BlockReason::NoneSatisfies { published } => f.write_str(
                        &crate::pack::block_pin_message(&desc, requested_range, published),
                    ),
                    BlockReason::WrongKind { kind } => write!(f, "{desc} is a {kind} block"),
                    BlockReason::NotModelSettings { version, problem } => {
                        write!(
                            f,
                            "{desc} version {version} isn't model settings: {problem}"
                        )
                    }
                }
            }
            RunStartError::CapabilityRoutingFailed { reason } => match &**reason {
                RoutingFailure::NoCapabilities { agent_id } => {
                    write!(f, "Agent \"{agent_id}\" has no capabilities declared")
                }
                RoutingFailure::NoLlmCapability { agent_id } => write!(
                    f,
                    "Agent \"{agent_id}\" declares no {LLM_INFERENCE} capability to pick its model"
                ),
                RoutingFailure::Unsatisfiable(cause) => write!(f, "{cause}"),
                RoutingFailure::ResumedRouteGone {
                    provider_id,
                    model,
                    cause,
                } => write!(
                    f,
                    "The turn was routed to {provider_id}/{model}, which is no longer registered or allowed: {cause}"
                ),
            },
            RunStartError::MissingParameter { cause } => write!(f, "{cause}"),
            RunStartError::RenderFailure { reason } => match reason {
                RenderFailureReason::PromptBlockNotLoaded { block_id, range } => write!(
                    f,
                    "The instructions come from prompt block \"{block_id}\" ({range}), which wasn't loaded"
                ),
                RenderFailureReason::Template(e) => write!(f, "{e}"),
                RenderFailureReason::NotAPrompt { agent_id } => {
                    write!(f, "Agent \"{agent_id}\": its prompt block is not a prompt")
                }
            },
            RunStartError::InvalidRequest { reason } => write!(f, "{reason}"),
        }
    }
}

impl fmt::Display for InvalidRequestReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvalidRequestReason::NowNotInstant { now } => write!(
                f,
                "now {now:?} is not an instant as toISOString writes it, like 2026-09-17T15:30:00.000Z (UTC, with a real date); runstart::run::iso_now() gives the current one"
            ),
            InvalidRequestReason::UndeclaredParameter {
                agent_id,
                name,
                declared,
            } if declared.is_empty() => write!(
                f,
                "agent \"{agent_id}\" declares no parameters; remove \"{name}\""
            ),
            InvalidRequestReason::UndeclaredParameter {
                agent_id,
                name,
                declared,
            } => {
                write!(f, "agent \"{agent_id}\" declares no parameter \"{name}\"; ")?;
                if let Some(n) = crate::input::nearest(name, declared.iter().map(String::as_str)) {
                    write!(f, "did you mean \"{n}\"? ")?;
                }
                write!(f, "(declared: {})", declared.join(", "))
            }
            InvalidRequestReason::WrongParameterType {
                name,
                declared_type,
                value,
            } => {
                let example = match declared_type.as_str() {
                    "string" => "a JSON string",
                    "number" => "a JSON number, like 80",
                    "boolean" => "true or false",
                    _ => "an ISO 8601 date string, like \"2026-09-17\"",
                };
                write!(
                    f,
                    "parameter \"{name}\" is declared as {declared_type}, but the value is {value}; give {example}"
                )
            }
        }
    }
}

impl std::error::Error for RunStartError {}

/// The wire form, borrowed: `code`, `message`, then the fields a variant has, in upstream's
/// order (a field left out is absent; `cause` is `null` when routing did not run).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Wire<'a> {
    code: &'static str,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    guardrail_ids: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    block_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    requested_range: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    available_versions: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cause: Option<Option<&'a CapabilityUnsatisfiable>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    instance_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parameter_name: Option<&'a str>,
}

impl Serialize for RunStartError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut wire = Wire {
            code: self.code(),
            message: self.to_string(),
            guardrail_ids: None,
            tool_id: None,
            block_id: None,
            requested_range: None,
            available_versions: self.available_versions(),
            cause: None,
            instance_path: self.instance_path(),
            parameter_name: self.parameter_name(),
        };
        match self {
            RunStartError::UnresolvedGuardrail { guardrail_ids, .. } => {
                wire.guardrail_ids = Some(guardrail_ids);
            }
            RunStartError::UnresolvedTool { tool_id, .. } => wire.tool_id = Some(tool_id),
            RunStartError::ToolVersionUnresolvable {
                tool_id,
                requested_range,
                ..
            } => {
                wire.tool_id = Some(tool_id);
                wire.requested_range = Some(requested_range);
            }
            RunStartError::BlockUnresolvable {
                block_id,
                requested_range,
                ..
            } => {
                wire.block_id = Some(block_id);
                wire.requested_range = Some(requested_range);
            }
            RunStartError::CapabilityRoutingFailed { .. } => wire.cause = Some(self.cause()),
            RunStartError::AgentNotFound { .. }
            | RunStartError::MissingParameter { .. }
            | RunStartError::RenderFailure { .. }
            | RunStartError::InvalidRequest { .. } => {}
        }
        wire.serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn wire(e: &RunStartError) -> String {
        serde_json::to_string(e).expect("serializes")
    }

    #[test]
    fn the_wire_form_is_code_message_then_the_variant_fields_in_upstream_order() {
        let e = RunStartError::ToolVersionUnresolvable {
            tool_id: "acme.score".to_owned(),
            requested_range: "^2".to_owned(),
            reason: Box::new(ToolVersionReason::Registry(
                ResolveError::ToolVersionUnresolvable {
                    id: "acme.score".to_owned(),
                    range: "^2".to_owned(),
                    available_versions: vec![semver::Version::new(1, 4, 0)],
                },
            )),
        };
        assert_eq!(
            wire(&e),
            format!(
                r#"{{"code":"tool-version-unresolvable","message":{},"toolId":"acme.score","requestedRange":"^2","availableVersions":["1.4.0"]}}"#,
                serde_json::to_string(&e.to_string()).expect("string")
            )
        );
        let pin = RunStartError::ToolVersionUnresolvable {
            tool_id: "acme.score".to_owned(),
            requested_range: "^2".to_owned(),
            reason: Box::new(ToolVersionReason::TurnPinGone {
                version: "2.0.1".to_owned(),
                registry: None,
            }),
        };
        assert_eq!(pin.available_versions(), None);
        assert!(!wire(&pin).contains("availableVersions"));
    }

    #[test]
    fn a_refused_request_names_its_pointer_and_parameter() {
        let e = RunStartError::InvalidRequest {
            reason: InvalidRequestReason::WrongParameterType {
                name: "max/words".to_owned(),
                declared_type: "number".to_owned(),
                value: Box::new(json!("lots")),
            },
        };
        assert_eq!(
            wire(&e),
            r#"{"code":"invalid-request","message":"parameter \"max/words\" is declared as number, but the value is \"lots\"; give a JSON number, like 80","instancePath":"/parameters/max~1words","parameterName":"max/words"}"#
        );
        let undeclared = RunStartError::InvalidRequest {
            reason: InvalidRequestReason::UndeclaredParameter {
                agent_id: "a".to_owned(),
                name: "tickedId".to_owned(),
                declared: vec!["ticketId".to_owned(), "maxWords".to_owned()],
            },
        };
        assert_eq!(
            undeclared.message(),
            "agent \"a\" declares no parameter \"tickedId\"; did you mean \"ticketId\"? (declared: ticketId, maxWords)"
        );
        let now = RunStartError::InvalidRequest {
            reason: InvalidRequestReason::NowNotInstant {
                now: "today".to_owned(),
            },
        };
        assert_eq!(now.instance_path().as_deref(), Some("/now"));
        assert_eq!(now.parameter_name(), None);
        assert!(!wire(&now).contains("parameterName"));
    }

    #[test]
    fn routing_failures_without_a_router_error_send_a_null_cause() {
        let e = RunStartError::CapabilityRoutingFailed {
            reason: Box::new(RoutingFailure::NoLlmCapability {
                agent_id: "a".to_owned(),
            }),
        };
        assert_eq!(
            wire(&e),
            r#"{"code":"capability-routing-failed","message":"Agent \"a\" declares no llm-inference capability to pick its model","cause":null}"#
        );
        let blocks = RunStartError::BlockUnresolvable {
            block_id: "tone".to_owned(),
            requested_range: "^1".to_owned(),
            role: BlockRole::ModelSettings,
            reason: BlockReason::NoneSatisfies {
                published: Vec::new(),
            },
        };
        assert_eq!(
            wire(&blocks),
            r#"{"code":"block-unresolvable","message":"model-settings block \"tone\" has no published version; publish the block first","blockId":"tone","requestedRange":"^1"}"#
        );
    }

    #[test]
    fn an_error_stays_small_on_the_success_path() {
        assert!(std::mem::size_of::<RunStartError>() <= 112);
    }
}
