//! Why a run could not be prepared, with upstream's codes and messages.

use crate::route::CapabilityUnsatisfiable;
use serde::Serialize;
use std::fmt;

/// Why [`super::Snapshot::prepare`] failed. `code()` is upstream's turn error code and
/// `Display` its message (agents.md §1.4, §2, §3, §4.4; router.md §2.14).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "code", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum RunStartError {
    /// No such agent (version) in the tenant.
    AgentNotFound {
        /// What went wrong.
        message: String,
    },
    /// Guardrail ids the agent lists that are not registered, all at once.
    UnresolvedGuardrail {
        /// What went wrong.
        message: String,
        /// The missing ids, in the agent's order.
        #[serde(rename = "guardrailIds")]
        guardrail_ids: Vec<String>,
    },
    /// A tool id that is not registered.
    UnresolvedTool {
        /// What went wrong.
        message: String,
        /// The tool id.
        #[serde(rename = "toolId")]
        tool_id: String,
    },
    /// A tool range with no registered version, an invalid range, or a pin that is gone.
    ToolVersionUnresolvable {
        /// What went wrong.
        message: String,
        /// The tool id.
        #[serde(rename = "toolId")]
        tool_id: String,
        /// The agent's range for the tool (also when a pin failed).
        #[serde(rename = "requestedRange")]
        requested_range: String,
        /// Active versions, highest first, when no version satisfied the range.
        #[serde(rename = "availableVersions", skip_serializing_if = "Option::is_none")]
        available_versions: Option<Vec<String>>,
    },
    /// A prompt, settings or model-settings block that does not resolve.
    BlockUnresolvable {
        /// What went wrong.
        message: String,
        /// The block id.
        #[serde(rename = "blockId")]
        block_id: String,
        /// The agent's range for the block.
        #[serde(rename = "requestedRange")]
        requested_range: String,
    },
    /// No provider and model satisfies a capability; `cause` is the router's error.
    CapabilityRoutingFailed {
        /// What went wrong.
        message: String,
        /// The router's error, when routing ran.
        cause: Option<CapabilityUnsatisfiable>,
    },
    /// Required parameters not supplied, or a variable the template reads that does not
    /// resolve.
    MissingParameter {
        /// What went wrong.
        message: String,
        /// Set for exactly one missing parameter, or the unresolved variable's path.
        #[serde(rename = "parameterName", skip_serializing_if = "Option::is_none")]
        parameter_name: Option<String>,
    },
    /// The template failed to render for another reason.
    RenderFailure {
        /// What went wrong.
        message: String,
    },
    /// The request itself is wrong: `now` is not an instant as `toISOString` writes it, a
    /// parameter is not declared, or its value does not have the declared type. Upstream
    /// checks none of these; runstart refuses the request rather than render a wrong prompt.
    InvalidRequest {
        /// What went wrong and what would fix it.
        message: String,
        /// JSON Pointer into the request (`/now`, `/parameters/maxWords`).
        #[serde(rename = "instancePath")]
        instance_path: String,
        /// The parameter concerned, if any.
        #[serde(rename = "parameterName", skip_serializing_if = "Option::is_none")]
        parameter_name: Option<String>,
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

    /// The message, as upstream words it.
    pub fn message(&self) -> &str {
        match self {
            RunStartError::AgentNotFound { message }
            | RunStartError::UnresolvedGuardrail { message, .. }
            | RunStartError::UnresolvedTool { message, .. }
            | RunStartError::ToolVersionUnresolvable { message, .. }
            | RunStartError::BlockUnresolvable { message, .. }
            | RunStartError::CapabilityRoutingFailed { message, .. }
            | RunStartError::MissingParameter { message, .. }
            | RunStartError::RenderFailure { message }
            | RunStartError::InvalidRequest { message, .. } => message,
        }
    }
}

impl fmt::Display for RunStartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for RunStartError {}
