//! `renderInstructions` (agents.md §3): the required-parameter check and the strict render,
//! with upstream's codes and messages. The loader picks the template (the prompt block's or
//! the agent's), reads the clock and builds the merged `context` it returns; this side
//! parses each distinct template once into a [`PreparedTemplate`], which the loader keeps
//! by template text, and renders it.

use crate::guard::{from_json, guard};
use napi::Env;
use napi::bindgen_prelude::Either;
use napi_derive::napi;
use runstart::template::{AutoVariables, CompiledTemplate, PromptError, PromptParameter};
use serde::Deserialize;
use serde_json::{Map, Value};

/// A template parsed once: the loader keeps one per distinct template text and hands it back
/// with each render, so that a render crosses neither the text nor a cache lookup here.
#[napi]
pub struct PreparedTemplate {
    /// The parsed template, or LiquidJS's parse message (with its line and column).
    parsed: Result<CompiledTemplate, String>,
}

/// Parses `template` (a failure to parse is kept, and answered by each render).
#[napi(js_name = "prepareTemplate")]
pub fn prepare_template(env: Env, template: String) -> napi::Result<PreparedTemplate> {
    guard(&env, || {
        Ok(PreparedTemplate {
            parsed: CompiledTemplate::parse(&template)
                .map_err(|e| e.message_with_position(&template)),
        })
    })
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

/// Everything but the template, as the loader sends it: only what the template may read (an
/// absent `now` or `agent` is one it does not name, so any value renders the same).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RenderPayload {
    #[serde(default)]
    declared: Vec<DeclaredParameter>,
    #[serde(default)]
    parameters: Map<String, Value>,
    #[serde(default)]
    now: String,
    #[serde(default)]
    agent: Option<AgentIdentity>,
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
#[napi(js_name = "renderPrepared")]
pub fn render_prepared(
    env: Env,
    template: &PreparedTemplate,
    payload_json: String,
) -> napi::Result<RenderOutcome> {
    guard(&env, || {
        let payload: RenderPayload = from_json("render context", &payload_json)?;
        let compiled = match &template.parsed {
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
        let mut auto = match &payload.agent {
            Some(a) => AutoVariables::new(payload.now, &a.id, &a.name, &a.version),
            None => AutoVariables::new(payload.now, "", "", ""),
        };
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
