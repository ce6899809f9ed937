//! Pack protocol v2 at run start (seed `000_…`, schema-version 2.10.0): typed messages and
//! their parsing, the `/v1/info` service check, idempotency keys, call contexts and tool
//! input and output validation.
//!
//! A runtime talks to a pack service in one request and one response per call. Before a run's
//! first call it checks that the endpoint serves the deployment it was set for
//! ([`check_service_info`]); for every call it builds the `invoke` request
//! ([`Deployment::invoke`]: pinned version, `env`, `settings`, `idempotencyKey`, `waitToken`,
//! `toolFiles`) and may check the input against the indexed schema
//! ([`Deployment::validate_tool_input`]) before sending it. Everything a call needs is
//! compiled once, when the [`Deployment`] is built.
//!
//! # Examples
//!
//! ```
//! use runstart::protocol::{check_service_info, parse_info, Deployment};
//!
//! let bytes = std::fs::read("fixtures/packs/order-review/index.json")?;
//! let deployment = Deployment::new(&bytes).expect("a usable index");
//! let info = parse_info(&serde_json::json!({
//!     "protocol": 2, "packId": "shop", "packVersion": "0.8.0", "artifactVersion": "20261118.1",
//!     "tools": [], "checks": []
//! })).expect("an info answer");
//! let issues = check_service_info(&info, &deployment);
//! assert!(issues.iter().any(|i| i.code() == "tool-not-served"));
//! # Ok::<(), std::io::Error>(())
//! ```

mod context;
mod defaults;
mod deployment;
mod idempotency;
mod jsonstr;
mod message;
mod parse;
mod service;
mod validate;

pub use context::{CallSite, EnvScopes};
pub use deployment::{Deployment, EnvCheck};
pub use service::check_service_info;

pub use idempotency::{
    IDEMPOTENCY_NAMESPACE, IdempotencyKey, idempotency_key, idempotency_key_utf16,
};
pub use jsonstr::{
    stringify_strings, stringify_strings_utf16, write_json_string, write_json_string_utf16,
};
pub use message::{
    CallContext, CheckInvoke, CheckResult, CheckSelector, CheckVerdict, Connection,
    ConnectionAccount, ErrorCode, MAX_PAUSE_MS, Message, PROTOCOL_VERSION, PackError, Request,
    Response, SCHEMA_VERSION, ServedTool, ServiceInfo, ToolFiles, ToolInvoke, ToolPause,
    ToolResult, ToolSelector, V2, ValidationIssue, WaitToken,
};
pub use parse::{parse_info, parse_message, parse_message_value, parse_request, parse_response};
