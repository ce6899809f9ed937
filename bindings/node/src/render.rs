//! `renderInstructions` (agents.md §3): the required-parameter check and the strict render,
//! with upstream's codes and messages. The loader picks the template (the prompt block's or
//! the agent's), reads the clock and builds the merged `context` it returns; this side
//! parses each distinct template once and renders it.

use crate::guard::{from_json, guard};
use napi::Env;
use napi::bindgen_prelude::Either;
use napi_derive::napi;
use runstart::template::{AutoVariables, CompiledTemplate, PromptError, PromptParameter};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Distinct templates kept parsed; past this the cache starts over. Agents have a handful
/// of instructions each, so this only bounds memory for callers with endless templates.
const TEMPLATE_CACHE_CAP: usize = 8192;

/// A parsed template, or LiquidJS's parse message (with its line and column).
type Parsed = Arc<Result<CompiledTemplate, String>>;

fn parsed(source: &str) -> Parsed {
    static CACHE: OnceLock<Mutex<HashMap<String, Parsed>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    // A template past the length cap fails to parse at once; caching it would only hold
    // its text.
    if source.len() > runstart::template::MAX_TEMPLATE_LENGTH {
        return Arc::new(
            CompiledTemplate::parse(source).map_err(|e| e.message_with_position(source)),
        );
    }
    if let Some(hit) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(source) {
        return hit.clone();
    }
    // Parse outside the lock: other threads keep rendering meanwhile.
    let template =
        Arc::new(CompiledTemplate::parse(source).map_err(|e| e.message_with_position(source)));
    let mut map = cache.lock().unwrap_or_else(|p| p.into_inner());
    if map.len() >= TEMPLATE_CACHE_CAP {
        map.clear();
    }
    map.insert(source.to_owned(), template.clone());
    template
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DeclaredParameter {
    name: String,
    #[serde(default)]
    required: Option<bool>,
    /// `null` is a default too (upstream tests `default !== undefined`).
    #[serde(default, deserialize_with = "present")]
    default: Option<Value>,
}

/// A field that is present, whatever its value (`null` included); absent is `None`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

#[derive(Debug, Deserialize)]
struct AgentIdentity {
    id: String,
    name: String,
    version: String,
}

#[derive(Debug, Deserialize)]
struct ConversationWire {
    id: String,
    turn: u64,
}

/// Everything but the template, as the loader sends it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RenderPayload {
    declared: Vec<DeclaredParameter>,
    parameters: Map<String, Value>,
    now: String,
    agent: AgentIdentity,
    #[serde(default)]
    conversation: Option<ConversationWire>,
    /// `null` is an input too (upstream tests `input !== undefined`).
    #[serde(default, deserialize_with = "present")]
    input: Option<Value>,
    #[serde(default)]
    settings: Option<Map<String, Value>>,
}

/// Why a render failed; the loader wraps it in upstream's `{ok: false, error}`.
#[napi(object)]
pub struct RenderFailed {
    /// `missing-parameter` or `render-failure`.
    pub code: String,
    /// Upstream's message.
    pub message: String,
    /// Upstream's `parameterName` (one missing parameter, or the unresolved path).
    pub parameter_name: Option<String>,
}

/// The rendered text (a plain string: the common answer builds no object), or the failure.
pub type RenderOutcome = Either<String, RenderFailed>;

/// Renders `template` with the parameters, clock and auto-variables of `payload_json`.
#[napi(js_name = "renderPrompt")]
pub fn render_prompt(
    env: Env,
    template: String,
    payload_json: String,
) -> napi::Result<RenderOutcome> {
    guard(&env, || {
        let payload: RenderPayload = from_json("render context", &payload_json)?;
        let compiled = parsed(&template);
        let compiled = match compiled.as_ref() {
            Ok(t) => t,
            Err(message) => {
                return Ok(failed(PromptError::RenderFailure(message.clone())));
            }
        };
        let declared: Vec<PromptParameter> = payload
            .declared
            .into_iter()
            .map(|p| {
                let mut out = PromptParameter::new(p.name).with_required(p.required != Some(false));
                if let Some(d) = p.default {
                    out = out.with_default(d);
                }
                out
            })
            .collect();
        let a = &payload.agent;
        let mut auto = AutoVariables::new(payload.now, &a.id, &a.name, &a.version);
        if let Some(c) = &payload.conversation {
            auto = auto.with_conversation(&c.id, c.turn);
        }
        if let Some(input) = payload.input {
            auto = auto.with_input(input);
        }
        if let Some(settings) = payload.settings {
            auto = auto.with_settings(settings);
        }
        Ok(
            match compiled.render_prompt(&declared, &payload.parameters, &auto) {
                Ok(text) => Either::A(text),
                Err(e) => failed(e),
            },
        )
    })
}

fn failed(e: PromptError) -> RenderOutcome {
    Either::B(RenderFailed {
        code: e.code().to_string(),
        message: e.to_string(),
        parameter_name: e.parameter_name().map(str::to_owned),
    })
}
