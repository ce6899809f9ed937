//! Typed pack protocol v2 messages (seed `000_…`, schema-version 2.10.0).
//!
//! Wire types: serde structs with the exact upstream camelCase names. Objects the seed calls
//! open (`secrets`, `config`, `settings` values, `trace`, a check's `result` beyond its listed
//! fields, a throw's `cause`, an issue) keep every field they arrive with; in the closed ones a
//! field this version does not know is ignored, as upstream's parser ignores it. Build messages
//! with these types and parse them with [`parse_message`](super::parse_message) and its
//! siblings, which answer what a pack service answers for a bad one.

use crate::diagnostics::IssueCode;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;

/// The protocol version every v2 message carries (`v`, and `protocol` in an info).
pub const PROTOCOL_VERSION: u64 = 2;

/// The schema version of the protocol these types follow.
pub const SCHEMA_VERSION: &str = "2.10.0";

/// The envelope version `2`: serializes as `2` and deserializes only from `2`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct V2;

impl Serialize for V2 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(PROTOCOL_VERSION)
    }
}

impl<'de> Deserialize<'de> for V2 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<V2, D::Error> {
        let v = u64::deserialize(d)?;
        if v == PROTOCOL_VERSION {
            Ok(V2)
        } else {
            Err(de::Error::custom(format!("expected protocol v2, got {v}")))
        }
    }
}

/// Why running pack code did not produce a result (`errorCode`, 16 codes in 2.10.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorCode {
    /// The input does not satisfy the tool's indexed input schema (or a check's config its
    /// `configSchema`).
    InputValidationFailed,
    /// The handler's return value does not satisfy the tool's output schema.
    OutputValidationFailed,
    /// The handler or check module failed to import.
    HandlerImportFailed,
    /// The module exports no handler.
    HandlerShapeInvalid,
    /// The handler threw.
    HandlerThrow,
    /// The app refused a connection's token (protocol 2.9.0).
    ConnectionRejected,
    /// The check module exports no check with `evaluate`.
    CheckShapeInvalid,
    /// The message is not JSON, not an object, or lacks a required field.
    MalformedMessage,
    /// `v` is not 2.
    UnknownProtocolVersion,
    /// `kind` is not a request (or response) kind.
    UnexpectedMessageKind,
    /// The pack has no tool of that id.
    ToolNotInPack,
    /// The pack has no check of that id.
    CheckNotInPack,
    /// The call named a version the pack does not hold.
    ToolVersionMismatch,
    /// The call passed its deadline.
    DeadlineExceeded,
    /// The caller closed the connection.
    Cancelled,
    /// A tool tried to pause without a `waitToken` (protocol 2.8.0).
    PauseNotAvailable,
}

impl ErrorCode {
    /// Every code, in the seed's order.
    pub const ALL: [ErrorCode; 16] = [
        ErrorCode::InputValidationFailed,
        ErrorCode::OutputValidationFailed,
        ErrorCode::HandlerImportFailed,
        ErrorCode::HandlerShapeInvalid,
        ErrorCode::HandlerThrow,
        ErrorCode::ConnectionRejected,
        ErrorCode::CheckShapeInvalid,
        ErrorCode::MalformedMessage,
        ErrorCode::UnknownProtocolVersion,
        ErrorCode::UnexpectedMessageKind,
        ErrorCode::ToolNotInPack,
        ErrorCode::CheckNotInPack,
        ErrorCode::ToolVersionMismatch,
        ErrorCode::DeadlineExceeded,
        ErrorCode::Cancelled,
        ErrorCode::PauseNotAvailable,
    ];

    /// The code as the protocol spells it (`input-validation-failed`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InputValidationFailed => "input-validation-failed",
            ErrorCode::OutputValidationFailed => "output-validation-failed",
            ErrorCode::HandlerImportFailed => "handler-import-failed",
            ErrorCode::HandlerShapeInvalid => "handler-shape-invalid",
            ErrorCode::HandlerThrow => "handler-throw",
            ErrorCode::ConnectionRejected => "connection-rejected",
            ErrorCode::CheckShapeInvalid => "check-shape-invalid",
            ErrorCode::MalformedMessage => "malformed-message",
            ErrorCode::UnknownProtocolVersion => "unknown-protocol-version",
            ErrorCode::UnexpectedMessageKind => "unexpected-message-kind",
            ErrorCode::ToolNotInPack => "tool-not-in-pack",
            ErrorCode::CheckNotInPack => "check-not-in-pack",
            ErrorCode::ToolVersionMismatch => "tool-version-mismatch",
            ErrorCode::DeadlineExceeded => "deadline-exceeded",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::PauseNotAvailable => "pause-not-available",
        }
    }

    /// The same code as an issue's [`IssueCode`] (the strings are equal), for an answer that is
    /// reported as one issue.
    pub fn issue_code(self) -> IssueCode {
        match self {
            ErrorCode::InputValidationFailed => IssueCode::InputValidationFailed,
            ErrorCode::OutputValidationFailed => IssueCode::OutputValidationFailed,
            ErrorCode::HandlerImportFailed => IssueCode::HandlerImportFailed,
            ErrorCode::HandlerShapeInvalid => IssueCode::HandlerShapeInvalid,
            ErrorCode::HandlerThrow => IssueCode::HandlerThrow,
            ErrorCode::ConnectionRejected => IssueCode::ConnectionRejected,
            ErrorCode::CheckShapeInvalid => IssueCode::CheckShapeInvalid,
            ErrorCode::MalformedMessage => IssueCode::MalformedMessage,
            ErrorCode::UnknownProtocolVersion => IssueCode::UnknownProtocolVersion,
            ErrorCode::UnexpectedMessageKind => IssueCode::UnexpectedMessageKind,
            ErrorCode::ToolNotInPack => IssueCode::ToolNotInPack,
            ErrorCode::CheckNotInPack => IssueCode::CheckNotInPack,
            ErrorCode::ToolVersionMismatch => IssueCode::ToolVersionMismatch,
            ErrorCode::DeadlineExceeded => IssueCode::DeadlineExceeded,
            ErrorCode::Cancelled => IssueCode::Cancelled,
            ErrorCode::PauseNotAvailable => IssueCode::PauseNotAvailable,
        }
    }

    /// The code named `text`, if the protocol has one.
    pub fn parse(text: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == text)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ErrorCode {
    type Err = String;

    fn from_str(s: &str) -> Result<ErrorCode, String> {
        ErrorCode::parse(s).ok_or_else(|| format!("not a pack protocol error code: {s:?}"))
    }
}

/// The tool an `invoke` runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolSelector {
    /// Tool id, resolved from the pack service's own index.
    pub id: String,
    /// When set, the pack service refuses a different indexed version (`tool-version-mismatch`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// The check a `check-invoke` runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckSelector {
    /// Check id (the indexed guardrail's `checkId`, else its `id`).
    pub id: String,
}

/// The wait token of a call to a tool that `pauses` (protocol 2.8.0).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitToken {
    /// The token's id: the same every time this attempt of the call runs.
    pub id: String,
    /// Where the other system posts its answer (a URI; the link is the credential).
    pub url: String,
}

/// Where a tool that stores or reads files does so (protocol 2.10.0). Never logged.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolFiles {
    /// Where files are posted, and read from under (a URI).
    pub url: String,
    /// The call's bearer token for `url`.
    pub token: String,
}

impl fmt::Debug for ToolFiles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The token is a credential: never in a log line.
        f.debug_struct("ToolFiles")
            .field("url", &self.url)
            .field("token", &"<redacted>")
            .finish()
    }
}

/// Whose account a connection is at its app.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectionAccount {
    /// Its stable id at the app.
    pub id: String,
    /// What people see (`ana@acme.example`).
    pub label: String,
}

/// One connection resolved for a call: an account at another app and a short-lived token
/// (`ToolConnection`, protocol 2.9.0). Never logged.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Connection {
    /// The connection's id.
    pub connection_id: String,
    /// The app entry's id (`google`, `github`).
    pub app: String,
    /// The app's name as people know it (`Google`).
    pub app_name: String,
    /// The token the tool sends to the app's API.
    pub access_token: String,
    /// Whose account it is.
    pub account: ConnectionAccount,
    /// When the token expires (date-time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("connection_id", &self.connection_id)
            .field("app", &self.app)
            .field("app_name", &self.app_name)
            .field("access_token", &"<redacted>")
            .field("account", &self.account)
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

/// The per-call context a handler receives (`callContext`). Only `tenantId` and `runId` are
/// required; every other field is absent from an older runtime.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallContext {
    /// Tenant the call runs for.
    pub tenant_id: String,
    /// The kernel run the call belongs to.
    pub run_id: String,
    /// The run's project, set by the runtime from the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// That project's org, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub org_id: Option<String>,
    /// The individual call (e.g. the model's tool-call id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The call's idempotency key (a UUID, protocol 2.6.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    /// The env values the tool declares (`needsSpec.env`), by name (protocol 2.5.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// Resolved secrets (open object). Never logged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secrets: Option<Map<String, Value>>,
    /// The connections the tool declares, by the tool's name for each (protocol 2.9.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connections: Option<BTreeMap<String, Connection>>,
    /// Reserved: no runtime sends it yet (open object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Map<String, Value>>,
    /// The values of the settings blocks the calling agent version pins, by block id
    /// (protocol 2.4.0); each value an open object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<BTreeMap<String, Map<String, Value>>>,
    /// Sent only for a tool whose index entry says `pauses` (protocol 2.8.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_token: Option<WaitToken>,
    /// Sent only for a tool that stores or reads files (protocol 2.10.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_files: Option<ToolFiles>,
}

impl fmt::Debug for CallContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Secrets, connections and file tokens stay out of debug output, as out of logs.
        f.debug_struct("CallContext")
            .field("tenant_id", &self.tenant_id)
            .field("run_id", &self.run_id)
            .field("project_id", &self.project_id)
            .field("org_id", &self.org_id)
            .field("request_id", &self.request_id)
            .field("idempotency_key", &self.idempotency_key)
            .field("env", &self.env)
            .field("secrets", &self.secrets.as_ref().map(|s| s.len()))
            .field("connections", &self.connections)
            .field("config", &self.config)
            .field("settings", &self.settings)
            .field("wait_token", &self.wait_token)
            .field("tool_files", &self.tool_files)
            .finish()
    }
}

/// `invoke`: run a tool handler. The message structs hold no `kind`: serialize a
/// [`Request`] or [`Response`] (`Request::from(invoke)`) to write one with its `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInvoke {
    /// Always 2.
    pub v: V2,
    /// The tool to run.
    pub tool: ToolSelector,
    /// The tool's input (any JSON).
    pub input: Value,
    /// The call's context.
    pub ctx: CallContext,
}

/// `check-invoke`: run a guardrail check, `evaluate(config, trace)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckInvoke {
    /// Always 2.
    pub v: V2,
    /// The check to run.
    pub check: CheckSelector,
    /// The guardrail's config (open object).
    pub config: Map<String, Value>,
    /// The run trace the check evaluates (open object).
    pub trace: Map<String, Value>,
}

/// `result`: the handler's return value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// Always 2.
    pub v: V2,
    /// The handler's return value, valid against the tool's output schema.
    pub output: Value,
}

/// `pause`: the call waits for another system (protocol 2.8.0).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolPause {
    /// Always 2.
    pub v: V2,
    /// How long the run waits, in milliseconds: at most [`MAX_PAUSE_MS`] (24 days); absent
    /// means the runtime's default, 24 hours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// What the run waits for, in a few words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The longest pause a tool may ask for: 24 days, in milliseconds.
pub const MAX_PAUSE_MS: u64 = 24 * 24 * 60 * 60 * 1000;

/// A check's verdict (`CheckResult`): open beyond its listed fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckVerdict {
    /// Whether the check passed.
    pub passed: bool,
    /// Why, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A judge model's raw answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_response: Option<String>,
    /// Extra attributes (open object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<Map<String, Value>>,
    /// Every other field, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `check-result`: a check's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    /// Always 2.
    pub v: V2,
    /// The verdict.
    pub result: CheckVerdict,
}

/// One validation issue, Ajv-shaped (`issue`): open, an implementation may add fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidationIssue {
    /// JSON Pointer to the failing value (`""` for the root).
    pub instance_path: String,
    /// URI fragment of the failing schema keyword (`#/properties/name/type`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_path: Option<String>,
    /// The failing keyword; absent when a model's own validation failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyword: Option<String>,
    /// Keyword parameters, as Ajv reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Map<String, Value>>,
    /// Human-readable message (`must have required property 'name'`).
    pub message: String,
    /// Every other field, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `error`: why running pack code did not produce a result. Also what parsing a bad message
/// answers (`malformed-message`, `unknown-protocol-version`, `unexpected-message-kind`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackError {
    /// Always 2.
    pub v: V2,
    /// The error code.
    pub code: ErrorCode,
    /// What happened, in words.
    pub message: String,
    /// Present when the error is about a tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_id: Option<String>,
    /// Present when the error is about a check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_id: Option<String>,
    /// The serialized throw, for `handler-throw` / `handler-import-failed` (open object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<Map<String, Value>>,
    /// For `input-validation-failed` / `output-validation-failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issues: Option<Vec<ValidationIssue>>,
    /// For `connection-rejected`: the tool's name for the refused connection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<String>,
}

impl PackError {
    /// An error message with `code` and `message` and no other field.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> PackError {
        PackError {
            v: V2,
            code,
            message: message.into(),
            tool_id: None,
            check_id: None,
            cause: None,
            issues: None,
            connection: None,
        }
    }

    /// The same error about tool `id`.
    #[must_use]
    pub fn with_tool_id(mut self, id: impl Into<String>) -> PackError {
        self.tool_id = Some(id.into());
        self
    }

    /// The same error with validation `issues`.
    #[must_use]
    pub fn with_issues(mut self, issues: Vec<ValidationIssue>) -> PackError {
        self.issues = Some(issues);
        self
    }
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for PackError {}

/// One tool a pack service serves, as `/v1/info` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServedTool {
    /// Tool id.
    pub id: String,
    /// Its version, when the index gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// The answer to `GET /v1/info`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceInfo {
    /// The protocol version the service speaks (2; [`parse_info`](super::parse_info) refuses
    /// others, a hand-built value may hold any).
    pub protocol: u64,
    /// The pack's id.
    pub pack_id: String,
    /// The pack's version.
    pub pack_version: String,
    /// The build of the pack it serves.
    pub artifact_version: String,
    /// `sha256:` and the hex SHA-256 of its index file (protocol 2.7.0); absent from an older
    /// service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_hash: Option<String>,
    /// The tools it serves.
    pub tools: Vec<ServedTool>,
    /// The check ids it serves.
    pub checks: Vec<String>,
    /// The index's required env names the process lacks, sorted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_env: Option<Vec<String>>,
}

/// A request: what a runtime sends to `POST /v1/invoke`.
// An invoke is larger than a check-invoke (its context's fields); a message is built once per
// call and moved a few times, so boxing it would cost more than it saves.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind")]
pub enum Request {
    /// `invoke`.
    #[serde(rename = "invoke")]
    Invoke(ToolInvoke),
    /// `check-invoke`.
    #[serde(rename = "check-invoke")]
    CheckInvoke(CheckInvoke),
}

/// A response: what a pack service answers an invoke with.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind")]
pub enum Response {
    /// `result`.
    #[serde(rename = "result")]
    Result(ToolResult),
    /// `pause`.
    #[serde(rename = "pause")]
    Pause(ToolPause),
    /// `check-result`.
    #[serde(rename = "check-result")]
    CheckResult(CheckResult),
    /// `error`.
    #[serde(rename = "error")]
    Error(PackError),
}

impl From<ToolInvoke> for Request {
    fn from(m: ToolInvoke) -> Request {
        Request::Invoke(m)
    }
}

impl From<CheckInvoke> for Request {
    fn from(m: CheckInvoke) -> Request {
        Request::CheckInvoke(m)
    }
}

impl From<ToolResult> for Response {
    fn from(m: ToolResult) -> Response {
        Response::Result(m)
    }
}

impl From<ToolPause> for Response {
    fn from(m: ToolPause) -> Response {
        Response::Pause(m)
    }
}

impl From<CheckResult> for Response {
    fn from(m: CheckResult) -> Response {
        Response::CheckResult(m)
    }
}

impl From<PackError> for Response {
    fn from(m: PackError) -> Response {
        Response::Error(m)
    }
}

/// Any v2 message: a request, a response, or an info answer.
#[allow(clippy::large_enum_variant)] // as for `Request`
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Message {
    /// A request.
    Request(Request),
    /// A response.
    Response(Response),
    /// A `/v1/info` answer.
    Info(ServiceInfo),
}

impl Message {
    /// The message's `kind` (`invoke`, `error`, …), or `info` for an info answer.
    pub fn kind(&self) -> &'static str {
        match self {
            Message::Request(Request::Invoke(_)) => "invoke",
            Message::Request(Request::CheckInvoke(_)) => "check-invoke",
            Message::Response(Response::Result(_)) => "result",
            Message::Response(Response::Pause(_)) => "pause",
            Message::Response(Response::CheckResult(_)) => "check-result",
            Message::Response(Response::Error(_)) => "error",
            Message::Info(_) => "info",
        }
    }
}
