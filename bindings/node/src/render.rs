//! `renderInstructions` (agents.md §3): the required-parameter check and the strict render,
//! with upstream's codes and messages. The loader picks the template (the prompt block's or
//! the agent's), reads the clock and builds the merged `context` it returns; this side
//! parses each distinct template once and renders it.
//!
//! A render is the hot call of the binding, so it crosses the boundary as cheaply as Node-API
//! allows: a parsed template lives in this thread's table and the loader names it by a number
//! (no wrapped object to unwrap per call), and a render answers a plain string, or a number
//! saying it failed whose message the loader then asks for (no object built per answer).

use crate::guard::{Failure, from_json, guard};
use napi::Env;
use napi::bindgen_prelude::Either;
use napi_derive::napi;
use runstart::template::{AutoVariables, CompiledTemplate, PromptError, PromptParameter};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::cell::RefCell;

/// A template parsed once, or LiquidJS's parse message (with its line and column), which
/// each render answers.
type Parsed = Result<CompiledTemplate, String>;

/// One prepared template and the context of its last render.
struct Slot {
    parsed: Parsed,
    retained: Retained,
}

/// This thread's parsed templates, by the number [`prepare_template`] gave. Each JavaScript
/// thread (the main one, each worker) loads its own instance of the addon and keeps its own
/// numbers, so a thread-local table is the whole of the bookkeeping. The loader owns the
/// lifetimes: it releases a number when it forgets its template.
#[derive(Default)]
struct Templates {
    slots: Vec<Option<Slot>>,
    /// Released slots, reused first.
    free: Vec<u32>,
    /// The message of this thread's last failed render, until it is read.
    last_failure: String,
}

thread_local! {
    static TEMPLATES: RefCell<Templates> = RefCell::new(Templates::default());
}

/// Parses `template` into this thread's table and answers its number (a failure to parse
/// is kept too, and answered by each render).
#[napi(js_name = "prepareTemplate")]
pub fn prepare_template(env: Env, template: String) -> napi::Result<u32> {
    guard(&env, || {
        let parsed =
            CompiledTemplate::parse(&template).map_err(|e| e.message_with_position(&template));
        let parsed = Slot {
            parsed,
            retained: Retained::default(),
        };
        TEMPLATES.with_borrow_mut(|t| {
            if let Some(id) = t.free.pop()
                && let Some(slot) = t.slots.get_mut(id as usize)
            {
                *slot = Some(parsed);
                return Ok(id);
            }
            let id = u32::try_from(t.slots.len())
                .map_err(|_| Failure::invalid("too many prepared templates"))?;
            t.slots.push(Some(parsed));
            Ok(id)
        })
    })
}

/// Forgets the template numbered `id` (a number not in use is ignored).
#[napi(js_name = "releaseTemplate")]
pub fn release_template(env: Env, id: u32) -> napi::Result<()> {
    guard(&env, || {
        TEMPLATES.with_borrow_mut(|t| {
            if let Some(slot @ Some(_)) = t.slots.get_mut(id as usize) {
                *slot = None;
                t.free.push(id);
            }
        });
        Ok(())
    })
}

/// Forgets every template of this thread (the loader started its map over).
#[napi(js_name = "releaseAllTemplates")]
pub fn release_all_templates(env: Env) -> napi::Result<()> {
    guard(&env, || {
        TEMPLATES.with_borrow_mut(|t| {
            t.slots.clear();
            t.free.clear();
        });
        Ok(())
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

/// `input` when the turn has one (`{"value": …}`, any JSON, `null` included).
#[derive(Debug, Deserialize)]
struct InputWire {
    value: Value,
}

/// What the loader sends for one render. The fields the template may read from the agent,
/// the clock, the turn and the declared and supplied parameters are *retained*: one left
/// out keeps its value from the last render of the same template (a `null` `conversation`
/// is one the turn does not have), and the loader leaves out what it found equal to what it
/// sent last time, so that a turn whose agent, clock and plain parameters repeat sends
/// nothing at all (an empty payload). `input` and `settings`, objects the loader cannot
/// compare, are sent with every render that has them and never retained. A field the
/// template never names renders the same whatever its value.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RenderPayload {
    #[serde(default)]
    declared: Option<Vec<DeclaredParameter>>,
    #[serde(default)]
    parameters: Option<Map<String, Value>>,
    #[serde(default)]
    now: Option<String>,
    #[serde(default)]
    agent: Option<AgentIdentity>,
    #[serde(default, deserialize_with = "present_or_null")]
    conversation: Option<Option<ConversationWire>>,
    #[serde(default)]
    input: Option<InputWire>,
    #[serde(default)]
    settings: Option<Map<String, Value>>,
}

/// A field that is present: `Some(None)` for `null`, `Some(Some(_))` for a value.
fn present_or_null<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// The retained part of a template's render context (see [`RenderPayload`]).
#[derive(Debug)]
struct Retained {
    declared: Vec<PromptParameter>,
    parameters: Map<String, Value>,
    now: String,
    agent: AgentIdentity,
    conversation: Option<ConversationWire>,
    /// The auto-variables of the fields above, without `input` or `settings`; `None` when
    /// one of the fields changed since, or the last render had `input` or `settings`.
    auto: Option<AutoVariables>,
}

impl Default for Retained {
    fn default() -> Retained {
        Retained {
            declared: Vec::new(),
            parameters: Map::new(),
            now: String::new(),
            agent: AgentIdentity {
                id: String::new(),
                name: String::new(),
                version: String::new(),
            },
            conversation: None,
            auto: None,
        }
    }
}

/// The values of one render that are never retained.
struct Unretained {
    input: Option<Value>,
    settings: Option<Map<String, Value>>,
}

impl Retained {
    /// Takes what `payload` changes; answers the fields it does not retain.
    fn update(&mut self, payload: RenderPayload) -> Unretained {
        if let Some(declared) = payload.declared {
            self.declared = declared
                .into_iter()
                .map(|p| {
                    let out = PromptParameter::new(p.name).with_required(p.required != Some(false));
                    match p.default {
                        Some(d) => out.with_default(d),
                        None => out,
                    }
                })
                .collect();
        }
        if let Some(parameters) = payload.parameters {
            self.parameters = parameters;
        }
        if payload.now.is_some() || payload.agent.is_some() || payload.conversation.is_some() {
            self.auto = None;
        }
        if let Some(now) = payload.now {
            self.now = now;
        }
        if let Some(agent) = payload.agent {
            self.agent = agent;
        }
        if let Some(conversation) = payload.conversation {
            self.conversation = conversation;
        }
        Unretained {
            input: payload.input.map(|i| i.value),
            settings: payload.settings,
        }
    }

    /// The auto-variables of the retained fields.
    fn base_auto(&self) -> AutoVariables {
        let a = &self.agent;
        let auto = AutoVariables::new(self.now.clone(), &a.id, &a.name, &a.version);
        match &self.conversation {
            Some(c) => auto.with_conversation(&c.id, c.turn),
            None => auto,
        }
    }
}

/// How a failed render failed: the number [`render_prepared`] answers instead of the text;
/// [`render_failure_message`] then gives upstream's message.
#[repr(u32)]
enum FailureKind {
    /// `missing-parameter` with exactly one name: the `parameterName` is the message past
    /// `Required parameter missing: `.
    OneMissingParameter = 1,
    /// `missing-parameter` with several names (no `parameterName`).
    MissingParameters = 2,
    /// `missing-parameter` for a variable that does not resolve: the `parameterName` is the
    /// message past `Template references an unresolved variable: `.
    UnresolvedVariable = 3,
    /// `render-failure`.
    RenderFailure = 4,
}

/// The rendered text, or a [`FailureKind`] number.
pub type RenderOutcome = Either<String, u32>;

/// Renders the template numbered `id`, its last render's context updated with
/// `payload_json` (see `RenderPayload`; an empty string changes nothing).
///
/// # Errors
///
/// `invalid-argument` for a number that names no template of this thread, or a payload that
/// is not the loader's JSON.
#[napi(js_name = "renderPrepared")]
pub fn render_prepared(env: Env, id: u32, payload_json: String) -> napi::Result<RenderOutcome> {
    guard(&env, || {
        let payload: Option<RenderPayload> = if payload_json.is_empty() {
            None
        } else {
            Some(from_json("render context", &payload_json)?)
        };
        let result = TEMPLATES.with_borrow_mut(|t| match t.slots.get_mut(id as usize) {
            Some(Some(slot)) => {
                let unretained = match payload {
                    Some(payload) => slot.retained.update(payload),
                    None => Unretained {
                        input: None,
                        settings: None,
                    },
                };
                Ok(match &slot.parsed {
                    Ok(compiled) => render(compiled, &mut slot.retained, unretained),
                    Err(message) => Err(PromptError::RenderFailure(message.clone())),
                })
            }
            _ => Err(Failure::invalid(format!("no prepared template {id}"))),
        })?;
        Ok(match result {
            Ok(text) => Either::A(text),
            Err(e) => {
                let kind = match &e {
                    PromptError::MissingParameters(names) if names.len() == 1 => {
                        FailureKind::OneMissingParameter
                    }
                    PromptError::MissingParameters(_) => FailureKind::MissingParameters,
                    PromptError::UnresolvedVariable(_) => FailureKind::UnresolvedVariable,
                    _ => FailureKind::RenderFailure,
                };
                TEMPLATES.with_borrow_mut(|t| t.last_failure = e.to_string());
                Either::B(kind as u32)
            }
        })
    })
}

/// The message of this thread's last failed render (and forgets it).
#[napi(js_name = "renderFailureMessage")]
pub fn render_failure_message(env: Env) -> napi::Result<String> {
    guard(&env, || {
        Ok(TEMPLATES.with_borrow_mut(|t| std::mem::take(&mut t.last_failure)))
    })
}

fn render(
    compiled: &CompiledTemplate,
    retained: &mut Retained,
    this_render: Unretained,
) -> Result<String, PromptError> {
    let Unretained { input, settings } = this_render;
    let plain = input.is_none() && settings.is_none();
    let auto = match retained.auto.take() {
        Some(auto) if plain => auto,
        _ => {
            let mut auto = retained.base_auto();
            if let Some(input) = input {
                auto = auto.with_input(input);
            }
            if let Some(settings) = settings {
                auto = auto.with_settings(settings);
            }
            auto
        }
    };
    let result = compiled.render_prompt(&retained.declared, &retained.parameters, &auto);
    // Kept for the next render only without this render's own objects.
    if plain {
        retained.auto = Some(auto);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(json: &str) -> RenderPayload {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn left_out_fields_keep_the_last_render_and_input_is_never_kept() {
        let t =
            CompiledTemplate::parse("{{ who }} {{ agent.name }} {{ conversation.turn }}").unwrap();
        let mut retained = Retained::default();
        let first = payload(
            r#"{"parameters":{"who":"Ada"},"now":"2026-09-17T15:30:00.000Z",
                "agent":{"id":"a.b","name":"B","version":"1.0.0"},
                "conversation":{"id":"c","turn":2},"input":{"value":{"x":1}}}"#,
        );
        let once = retained.update(first);
        assert_eq!(once.input, Some(serde_json::json!({"x": 1})));
        assert_eq!(render(&t, &mut retained, once).unwrap(), "Ada B 2");
        // Nothing sent: the same answer, from the kept values.
        let again = retained.update(payload("{}"));
        assert!(again.input.is_none());
        assert_eq!(render(&t, &mut retained, again).unwrap(), "Ada B 2");
        // A null conversation is one the turn does not have.
        let gone = retained.update(payload(r#"{"conversation":null}"#));
        assert_eq!(
            render(&t, &mut retained, gone).unwrap_err(),
            PromptError::UnresolvedVariable("conversation".into())
        );
        // Unknown fields are the loader's mistake, refused.
        assert!(serde_json::from_str::<RenderPayload>(r#"{"nowish":"x"}"#).is_err());
    }
}
