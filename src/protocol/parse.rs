//! Parsing v2 messages the way a pack service does (`parsePackRequest` and its siblings in
//! upstream's handler runtime), answering a bad message with the protocol's own error.
//!
//! The checks run in upstream's order: the message is JSON, then an object
//! (`Message must be a JSON object`), then `v` is 2 (`Expected protocol v2, got <v>`), then
//! `kind` is known (`Unknown request kind "<kind>"`), then the kind's required fields, in the
//! seed's order, with upstream's words where it has them (`` `tool.id` is required ``,
//! `` `ctx` needs string `tenantId` and `runId` ``). Upstream stops at the fields it needs;
//! runstart checks every field the seed types, so a message it accepts has the seed's shape.

use super::jsonstr::write_json_string;
use super::message::{
    CallContext, CheckInvoke, CheckResult, ErrorCode, MAX_PAUSE_MS, Message, PROTOCOL_VERSION,
    PackError, Request, Response, ServiceInfo, ToolInvoke, ToolPause, ToolResult,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

type Object = Map<String, Value>;

fn malformed(message: impl Into<String>) -> Box<PackError> {
    Box::new(PackError::new(ErrorCode::MalformedMessage, message))
}

/// `JSON.stringify(value)` for the few values a message's `v` or `kind` can be, `undefined`
/// for an absent one (upstream's messages print it so).
fn js_stringify(value: Option<&Value>) -> String {
    match value {
        None => "undefined".to_owned(),
        Some(Value::String(s)) => {
            let mut out = String::new();
            write_json_string(s, &mut out);
            out
        }
        // JavaScript prints an integral number without a fraction (`2`, not `2.0`).
        Some(Value::Number(n)) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e21 => format!("{f:.0}"),
            _ => n.to_string(),
        },
        Some(other) => other.to_string(),
    }
}

/// Parses the bytes of any v2 message: a request, a response, or a `/v1/info` answer (an
/// object with `protocol` and no `kind`).
///
/// # Errors
///
/// The [`PackError`] a pack service answers: `malformed-message` (not JSON, not an object, a
/// required field missing or of the wrong type, an unknown error code),
/// `unknown-protocol-version` (`v` — or an info's `protocol` — is not 2),
/// `unexpected-message-kind` (`kind` names no v2 message).
///
/// # Examples
///
/// ```
/// use runstart::protocol::{parse_message, ErrorCode};
///
/// let err = parse_message(br#"{"v": 3, "kind": "invoke"}"#).unwrap_err();
/// assert_eq!(err.code, ErrorCode::UnknownProtocolVersion);
/// assert_eq!(err.message, "Expected protocol v2, got 3");
/// let ok = parse_message(br#"{"v": 2, "kind": "result", "output": {"ok": true}}"#).unwrap();
/// assert_eq!(ok.kind(), "result");
/// ```
pub fn parse_message(bytes: &[u8]) -> Result<Message, Box<PackError>> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| malformed(format!("Message is not valid JSON ({e})")))?;
    parse_message_value(&value)
}

/// [`parse_message`] for a value already decoded from JSON.
///
/// # Errors
///
/// As [`parse_message`].
pub fn parse_message_value(value: &Value) -> Result<Message, Box<PackError>> {
    let m = as_message_object(value)?;
    if !m.contains_key("kind") && !m.contains_key("v") && m.contains_key("protocol") {
        return info_from(m).map(Message::Info);
    }
    check_version(m)?;
    match m.get("kind").and_then(Value::as_str) {
        Some("invoke" | "check-invoke") => request_from(m).map(Message::Request),
        Some("result" | "pause" | "check-result" | "error") => {
            response_from(m).map(Message::Response)
        }
        _ => Err(unknown_kind("message", m)),
    }
}

/// Parses a request body (already decoded from JSON) as a pack service does.
///
/// # Errors
///
/// As [`parse_message`]; a response kind is `unexpected-message-kind` here
/// (`Unknown request kind "result"`).
pub fn parse_request(value: &Value) -> Result<Request, Box<PackError>> {
    let m = as_message_object(value)?;
    check_version(m)?;
    request_from(m)
}

/// Parses a response body (already decoded from JSON) as a runtime does.
///
/// # Errors
///
/// As [`parse_message`]; a request kind is `unexpected-message-kind` here.
pub fn parse_response(value: &Value) -> Result<Response, Box<PackError>> {
    let m = as_message_object(value)?;
    check_version(m)?;
    response_from(m)
}

/// Parses a `/v1/info` answer.
///
/// # Errors
///
/// `malformed-message` for a missing or mistyped field, `unknown-protocol-version` when
/// `protocol` is not 2.
pub fn parse_info(value: &Value) -> Result<ServiceInfo, Box<PackError>> {
    info_from(as_message_object(value)?)
}

fn as_message_object(value: &Value) -> Result<&Object, Box<PackError>> {
    value
        .as_object()
        .ok_or_else(|| malformed("Message must be a JSON object"))
}

fn version_error(got: Option<&Value>) -> Box<PackError> {
    Box::new(PackError::new(
        ErrorCode::UnknownProtocolVersion,
        format!(
            "Expected protocol v{PROTOCOL_VERSION}, got {}",
            js_stringify(got)
        ),
    ))
}

fn check_version(m: &Object) -> Result<(), Box<PackError>> {
    match m.get("v") {
        Some(v) if v.as_u64() == Some(PROTOCOL_VERSION) => Ok(()),
        // `2.0` is the number 2 to JavaScript's `===`.
        Some(v) if v.as_f64() == Some(2.0) => Ok(()),
        other => Err(version_error(other)),
    }
}

fn unknown_kind(what: &str, m: &Object) -> Box<PackError> {
    Box::new(PackError::new(
        ErrorCode::UnexpectedMessageKind,
        format!("Unknown {what} kind {}", js_stringify(m.get("kind"))),
    ))
}

fn request_from(m: &Object) -> Result<Request, Box<PackError>> {
    match m.get("kind").and_then(Value::as_str) {
        Some("invoke") => invoke_from(m).map(Request::Invoke),
        Some("check-invoke") => check_invoke_from(m).map(Request::CheckInvoke),
        _ => Err(unknown_kind("request", m)),
    }
}

fn response_from(m: &Object) -> Result<Response, Box<PackError>> {
    match m.get("kind").and_then(Value::as_str) {
        Some("result") => result_from(m).map(Response::Result),
        Some("pause") => pause_from(m).map(Response::Pause),
        Some("check-result") => check_result_from(m).map(Response::CheckResult),
        Some("error") => error_from(m).map(Response::Error),
        _ => Err(unknown_kind("response", m)),
    }
}

/// Deserializes the already-checked message into its type; a failure here is a nested field
/// of the wrong shape, reported with serde's description.
fn typed<T: DeserializeOwned>(m: &Object, kind: &str) -> Result<T, Box<PackError>> {
    let mut body = m.clone();
    body.remove("kind");
    // `v` was checked already; `2.0` is 2 to JavaScript but not to serde's integer.
    body.insert("v".into(), Value::from(PROTOCOL_VERSION));
    serde_json::from_value(Value::Object(body)).map_err(|e| {
        malformed(format!(
            "`{kind}` message does not have the protocol's shape: {e}"
        ))
    })
}

fn is_non_empty_str(v: Option<&Value>) -> bool {
    v.and_then(Value::as_str).is_some_and(|s| !s.is_empty())
}

fn optional_str(m: &Object, field: &str, path: &str) -> Result<(), Box<PackError>> {
    match m.get(field) {
        None | Some(Value::String(_)) => Ok(()),
        Some(_) => Err(malformed(format!("`{path}` must be a string"))),
    }
}

fn optional_object(m: &Object, field: &str, path: &str) -> Result<(), Box<PackError>> {
    match m.get(field) {
        None | Some(Value::Object(_)) => Ok(()),
        Some(_) => Err(malformed(format!("`{path}` must be an object"))),
    }
}

fn require(m: &Object, field: &str) -> Result<(), Box<PackError>> {
    if m.contains_key(field) {
        Ok(())
    } else {
        Err(malformed(format!("`{field}` is required")))
    }
}

fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

fn context_from(raw: Option<&Value>) -> Result<CallContext, Box<PackError>> {
    let ctx = raw
        .and_then(Value::as_object)
        .filter(|c| {
            c.get("tenantId").is_some_and(Value::is_string)
                && c.get("runId").is_some_and(Value::is_string)
        })
        .ok_or_else(|| malformed("`ctx` needs string `tenantId` and `runId`"))?;
    for field in ["projectId", "orgId", "requestId", "idempotencyKey"] {
        optional_str(ctx, field, &format!("ctx.{field}"))?;
    }
    if let Some(key) = ctx.get("idempotencyKey").and_then(Value::as_str)
        && !is_uuid(key)
    {
        return Err(malformed(format!(
            "`ctx.idempotencyKey` must be a UUID, got {}",
            js_stringify(ctx.get("idempotencyKey"))
        )));
    }
    for field in [
        "env",
        "secrets",
        "connections",
        "config",
        "settings",
        "waitToken",
        "toolFiles",
    ] {
        optional_object(ctx, field, &format!("ctx.{field}"))?;
    }
    if let Some(env) = ctx.get("env").and_then(Value::as_object)
        && let Some((name, _)) = env.iter().find(|(_, v)| !v.is_string())
    {
        return Err(malformed(format!("`ctx.env.{name}` must be a string")));
    }
    if let Some(settings) = ctx.get("settings").and_then(Value::as_object)
        && let Some((id, _)) = settings.iter().find(|(_, v)| !v.is_object())
    {
        return Err(malformed(format!("`ctx.settings.{id}` must be an object")));
    }
    for (field, parts) in [
        ("waitToken", ["id", "url"]),
        ("toolFiles", ["url", "token"]),
    ] {
        if let Some(obj) = ctx.get(field).and_then(Value::as_object) {
            for part in parts {
                if !obj.get(part).is_some_and(Value::is_string) {
                    return Err(malformed(format!(
                        "`ctx.{field}` needs string `{}` and `{}`",
                        parts[0], parts[1]
                    )));
                }
            }
        }
    }
    serde_json::from_value(Value::Object(ctx.clone()))
        .map_err(|e| malformed(format!("`ctx` is not a call context: {e}")))
}

fn invoke_from(m: &Object) -> Result<ToolInvoke, Box<PackError>> {
    let tool = m.get("tool").and_then(Value::as_object);
    if !tool.is_some_and(|t| is_non_empty_str(t.get("id"))) {
        return Err(malformed("`tool.id` is required"));
    }
    if let Some(t) = tool {
        optional_str(t, "version", "tool.version")?;
    }
    let ctx = context_from(m.get("ctx"))?;
    require(m, "input")?;
    let tool = m.get("tool").cloned().unwrap_or(Value::Null);
    let tool = serde_json::from_value(tool)
        .map_err(|e| malformed(format!("`tool` is not a tool selector: {e}")))?;
    Ok(ToolInvoke {
        v: super::message::V2,
        tool,
        input: m.get("input").cloned().unwrap_or(Value::Null),
        ctx,
    })
}

fn check_invoke_from(m: &Object) -> Result<CheckInvoke, Box<PackError>> {
    let check = m.get("check").and_then(Value::as_object);
    if !check.is_some_and(|c| is_non_empty_str(c.get("id"))) {
        return Err(malformed("`check.id` is required"));
    }
    if !m.get("config").is_some_and(Value::is_object) {
        return Err(malformed("`config` must be an object"));
    }
    if !m.get("trace").is_some_and(Value::is_object) {
        return Err(malformed("`trace` must be an object"));
    }
    typed(m, "check-invoke")
}

fn result_from(m: &Object) -> Result<ToolResult, Box<PackError>> {
    require(m, "output")?;
    typed(m, "result")
}

fn pause_from(m: &Object) -> Result<ToolPause, Box<PackError>> {
    if let Some(t) = m.get("timeoutMs") {
        let ok = t.as_u64().is_some_and(|ms| ms <= MAX_PAUSE_MS)
            || t.as_f64()
                .is_some_and(|f| f.fract() == 0.0 && (0.0..=MAX_PAUSE_MS as f64).contains(&f));
        if !ok {
            return Err(malformed(format!(
                "`timeoutMs` must be an integer number of milliseconds from 0 to {MAX_PAUSE_MS} (24 days), got {}",
                js_stringify(Some(t))
            )));
        }
    }
    optional_str(m, "name", "name")?;
    let mut body = m.clone();
    // serde reads `2.0e3` as a float; the check above made sure it is integral.
    if let Some(ms) = m.get("timeoutMs").and_then(Value::as_f64) {
        body.insert("timeoutMs".into(), Value::from(ms as u64));
    }
    typed(&body, "pause")
}

fn check_result_from(m: &Object) -> Result<CheckResult, Box<PackError>> {
    let result = m
        .get("result")
        .and_then(Value::as_object)
        .ok_or_else(|| malformed("`result` must be an object"))?;
    if !result.get("passed").is_some_and(Value::is_boolean) {
        return Err(malformed("`result.passed` must be a boolean"));
    }
    optional_str(result, "reason", "result.reason")?;
    optional_str(result, "judgeResponse", "result.judgeResponse")?;
    optional_object(result, "attributes", "result.attributes")?;
    typed(m, "check-result")
}

fn error_from(m: &Object) -> Result<PackError, Box<PackError>> {
    let code = m.get("code").and_then(Value::as_str);
    let Some(code) = code else {
        return Err(malformed("`code` must be a string"));
    };
    if ErrorCode::parse(code).is_none() {
        let known: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        return Err(malformed(format!(
            "`code` must be one of the protocol's error codes ({}), got {}",
            known.join(", "),
            js_stringify(m.get("code"))
        )));
    }
    if !m.get("message").is_some_and(Value::is_string) {
        return Err(malformed("`message` must be a string"));
    }
    for field in ["toolId", "checkId", "connection"] {
        optional_str(m, field, field)?;
    }
    optional_object(m, "cause", "cause")?;
    if let Some(issues) = m.get("issues") {
        let list = issues
            .as_array()
            .ok_or_else(|| malformed("`issues` must be an array"))?;
        for (i, issue) in list.iter().enumerate() {
            let ok = issue.as_object().is_some_and(|o| {
                o.get("instancePath").is_some_and(Value::is_string)
                    && o.get("message").is_some_and(Value::is_string)
            });
            if !ok {
                return Err(malformed(format!(
                    "`issues[{i}]` needs string `instancePath` and `message`"
                )));
            }
            if let Some(o) = issue.as_object() {
                optional_str(o, "schemaPath", &format!("issues[{i}].schemaPath"))?;
                optional_str(o, "keyword", &format!("issues[{i}].keyword"))?;
                optional_object(o, "params", &format!("issues[{i}].params"))?;
            }
        }
    }
    typed(m, "error")
}

fn info_from(m: &Object) -> Result<ServiceInfo, Box<PackError>> {
    match m.get("protocol") {
        Some(p) if p.as_u64() == Some(PROTOCOL_VERSION) || p.as_f64() == Some(2.0) => {}
        other => return Err(version_error(other)),
    }
    for field in ["packId", "packVersion", "artifactVersion"] {
        if !m.get(field).is_some_and(Value::is_string) {
            return Err(malformed(format!("`{field}` must be a string")));
        }
    }
    optional_str(m, "indexHash", "indexHash")?;
    let tools = m
        .get("tools")
        .and_then(Value::as_array)
        .ok_or_else(|| malformed("`tools` must be an array"))?;
    for (i, t) in tools.iter().enumerate() {
        let t = t
            .as_object()
            .filter(|t| t.get("id").is_some_and(Value::is_string))
            .ok_or_else(|| malformed(format!("`tools[{i}]` needs a string `id`")))?;
        optional_str(t, "version", &format!("tools[{i}].version"))?;
    }
    for field in ["checks", "missingEnv"] {
        match m.get(field) {
            None if field == "missingEnv" => {}
            Some(Value::Array(list)) if list.iter().all(Value::is_string) => {}
            _ => {
                return Err(malformed(format!("`{field}` must be an array of strings")));
            }
        }
    }
    let mut body = m.clone();
    body.insert("protocol".into(), Value::from(PROTOCOL_VERSION));
    serde_json::from_value(Value::Object(body))
        .map_err(|e| malformed(format!("info does not have the protocol's shape: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(v: Value) -> (ErrorCode, String) {
        let e = parse_message_value(&v).expect_err("should fail");
        (e.code, e.message)
    }

    #[test]
    fn envelope_errors_use_upstream_words() {
        assert_eq!(
            err(json!([1])),
            (
                ErrorCode::MalformedMessage,
                "Message must be a JSON object".into()
            )
        );
        assert_eq!(
            err(json!({"kind": "invoke"})),
            (
                ErrorCode::UnknownProtocolVersion,
                "Expected protocol v2, got undefined".into()
            )
        );
        assert_eq!(
            err(json!({"v": "2", "kind": "invoke"})).1,
            "Expected protocol v2, got \"2\""
        );
        assert_eq!(
            err(json!({"v": 2, "kind": "nope"})),
            (
                ErrorCode::UnexpectedMessageKind,
                "Unknown message kind \"nope\"".into()
            )
        );
        assert_eq!(
            parse_request(&json!({"v": 2, "kind": "result", "output": 1}))
                .expect_err("a response is not a request")
                .message,
            "Unknown request kind \"result\""
        );
        assert_eq!(
            parse_response(&json!({"v": 2}))
                .expect_err("no kind")
                .message,
            "Unknown response kind undefined"
        );
    }

    #[test]
    fn v_two_point_zero_is_two() {
        let m = parse_message_value(&json!({"v": 2.0, "kind": "result", "output": null}))
            .expect("2.0 === 2");
        assert_eq!(m.kind(), "result");
    }

    #[test]
    fn js_numbers_print_as_javascript_does() {
        assert_eq!(js_stringify(Some(&json!(3.0))), "3");
        assert_eq!(js_stringify(Some(&json!(2.5))), "2.5");
        assert_eq!(js_stringify(Some(&json!(null))), "null");
    }

    #[test]
    fn invoke_fields() {
        let ok = json!({"v": 2, "kind": "invoke", "tool": {"id": "t"}, "input": 1,
            "ctx": {"tenantId": "a", "runId": "r", "env": {"X": "1"}, "secrets": {"k": {"deep": 1}}}});
        let Message::Request(Request::Invoke(inv)) = parse_message_value(&ok).expect("valid")
        else {
            panic!("not an invoke")
        };
        assert_eq!(inv.ctx.env.expect("env")["X"], "1");
        assert_eq!(inv.ctx.secrets.expect("secrets")["k"], json!({"deep": 1}));
        let mut bad = ok.clone();
        bad["ctx"]["env"]["X"] = json!(1);
        assert_eq!(err(bad).1, "`ctx.env.X` must be a string");
        let mut bad = ok.clone();
        bad["ctx"]["idempotencyKey"] = json!("nope");
        assert_eq!(
            err(bad).1,
            "`ctx.idempotencyKey` must be a UUID, got \"nope\""
        );
        let mut bad = ok.clone();
        bad["tool"]["id"] = json!("");
        assert_eq!(err(bad).1, "`tool.id` is required");
        let mut bad = ok;
        bad["ctx"]["waitToken"] = json!({"id": "w"});
        assert_eq!(err(bad).1, "`ctx.waitToken` needs string `id` and `url`");
    }

    #[test]
    fn pause_and_check_result() {
        let p = parse_message_value(&json!({"v": 2, "kind": "pause", "timeoutMs": 6.0e4}))
            .expect("valid pause");
        assert_eq!(
            serde_json::to_value(&p).expect("serializes"),
            json!({"v": 2, "kind": "pause", "timeoutMs": 60000})
        );
        assert_eq!(
            err(json!({"v": 2, "kind": "pause", "timeoutMs": MAX_PAUSE_MS + 1})).0,
            ErrorCode::MalformedMessage
        );
        let c = json!({"v": 2, "kind": "check-result", "result": {"passed": true, "score": 0.9}});
        let parsed = parse_message_value(&c).expect("valid check result");
        assert_eq!(serde_json::to_value(&parsed).expect("serializes"), c);
        assert_eq!(
            err(json!({"v": 2, "kind": "check-result", "result": {}})).1,
            "`result.passed` must be a boolean"
        );
    }

    #[test]
    fn every_error_code_parses_and_an_unknown_one_is_malformed() {
        for code in ErrorCode::ALL {
            let m = json!({"v": 2, "kind": "error", "code": code.as_str(), "message": "m"});
            let Message::Response(Response::Error(e)) = parse_message_value(&m).expect("valid")
            else {
                panic!("not an error")
            };
            assert_eq!(e.code, code);
            assert_eq!(code.as_str().parse::<ErrorCode>(), Ok(code));
        }
        let (code, message) =
            err(json!({"v": 2, "kind": "error", "code": "exploded", "message": "m"}));
        assert_eq!(code, ErrorCode::MalformedMessage);
        assert!(message.ends_with("got \"exploded\""), "{message}");
    }

    #[test]
    fn info_protocol_and_fields() {
        let info = json!({"protocol": 2, "packId": "p", "packVersion": "1", "artifactVersion": "a",
            "tools": [{"id": "t"}], "checks": []});
        assert_eq!(parse_message_value(&info).expect("valid").kind(), "info");
        let mut bad = info.clone();
        bad["protocol"] = json!(3);
        assert_eq!(
            err(bad),
            (
                ErrorCode::UnknownProtocolVersion,
                "Expected protocol v2, got 3".into()
            )
        );
        let mut bad = info;
        bad["tools"] = json!([{"version": "1"}]);
        assert_eq!(err(bad).1, "`tools[0]` needs a string `id`");
    }
}
