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
use runstart::template::{
    AutoVariables, CompiledTemplate, PromptError, PromptParameter, check_required,
};
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

/// What a render of the template numbered `id` reads of its context, as JSON text: an
/// object from each root the template reads to the key paths below it whose values it reads
/// whole (`{"customer": [["name"], ["tier"]], "orders": [[]]}`, see
/// `CompiledTemplate::read_paths`), or `null` when a render may read more than static paths
/// name, or `false` for a template that does not parse: it reads nothing, and its render
/// answers the parse error after the required-parameter check, which reads only whether each
/// declared parameter is supplied. The loader sends a root it finds here pruned to these paths.
///
/// # Errors
///
/// `invalid-argument` for a number that names no template of this thread.
#[napi(js_name = "templateReadPaths")]
pub fn template_read_paths(env: Env, id: u32) -> napi::Result<String> {
    guard(&env, || {
        TEMPLATES.with_borrow(|t| {
            let slot = t
                .slots
                .get(id as usize)
                .and_then(Option::as_ref)
                .ok_or_else(|| Failure::invalid(format!("no prepared template numbered {id}")))?;
            let Ok(template) = &slot.parsed else {
                return Ok("false".to_owned());
            };
            let Some(paths) = template.read_paths() else {
                return Ok("null".to_owned());
            };
            let mut roots: Map<String, Value> = Map::new();
            for (root, keys) in paths {
                let keys = Value::from(keys);
                let list = roots
                    .entry(root.to_owned())
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(list) = list
                    && !list.contains(&keys)
                {
                    list.push(keys);
                }
            }
            Ok(Value::Object(roots).to_string())
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

/// `input` when the turn has one (`{"value": …}`, any JSON, `null` included). A `value`
/// left out is an input whose JSON is nothing (`toJSON` answering `undefined`): the render
/// sees no input, as it sees no value JSON drops anywhere else.
#[derive(Debug, Deserialize)]
struct InputWire {
    #[serde(default, deserialize_with = "present")]
    value: Option<Value>,
}

/// What the loader sends for one render, as JSON text. The fields the template may read
/// from the agent, the clock, the turn and the declared and supplied parameters are
/// *retained*: one left out keeps its value from the last render of the same template (a
/// `null` `conversation` is one the turn does not have), and the loader leaves out what it
/// found equal to what it sent last time. `input` and `settings` are this render's (left out:
/// the turn has none). An empty text (no JSON at all) changes nothing, `input` and `settings`
/// included: the loader sends it when the payload would be the same text as the last one
/// (objects are compared by their JSON text), or when nothing at all changed. A field the
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

/// Longer payloads are not kept past their render (their `input` and `settings` are
/// dropped), so that a template does not keep a large input alive; the loader does not ask
/// to reuse them (it remembers no text this long).
pub const RETAINED_PAYLOAD_MAX_LEN: usize = 64 * 1024;

/// The render context of a template's last render, which the next payload updates.
#[derive(Debug)]
struct Retained {
    declared: Vec<PromptParameter>,
    parameters: Map<String, Value>,
    now: String,
    agent: AgentIdentity,
    conversation: Option<ConversationWire>,
    /// The auto-variables: the fields above with the last payload's `input` and `settings`.
    auto: AutoVariables,
    /// Whether `auto` holds an `input` or `settings`.
    auto_has_objects: bool,
    /// Whether a payload's `input` or `settings` were dropped after its render (a payload
    /// longer than [`RETAINED_PAYLOAD_MAX_LEN`]), so an empty payload cannot reuse them.
    objects_dropped: bool,
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
            auto: AutoVariables::new("", "", "", ""),
            auto_has_objects: false,
            objects_dropped: false,
        }
    }
}

impl Retained {
    /// Takes what `payload` changes.
    fn update(&mut self, payload: RenderPayload) {
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
        let has_objects = payload.input.is_some() || payload.settings.is_some();
        let auto_changed = payload.now.is_some()
            || payload.agent.is_some()
            || payload.conversation.is_some()
            || has_objects
            || self.auto_has_objects
            || self.objects_dropped;
        if let Some(now) = payload.now {
            self.now = now;
        }
        if let Some(agent) = payload.agent {
            self.agent = agent;
        }
        if let Some(conversation) = payload.conversation {
            self.conversation = conversation;
        }
        if auto_changed {
            let a = &self.agent;
            let mut auto = AutoVariables::new(self.now.clone(), &a.id, &a.name, &a.version);
            if let Some(c) = &self.conversation {
                auto = auto.with_conversation(&c.id, c.turn);
            }
            if let Some(value) = payload.input.and_then(|input| input.value) {
                auto = auto.with_input(value);
            }
            if let Some(settings) = payload.settings {
                auto = auto.with_settings(settings);
            }
            self.auto = auto;
            self.auto_has_objects = has_objects;
            self.objects_dropped = false;
        }
    }

    /// Drops the last payload's `input` and `settings` (see [`RETAINED_PAYLOAD_MAX_LEN`]).
    fn drop_objects(&mut self) {
        if self.auto_has_objects {
            self.update(RenderPayload::default());
            self.objects_dropped = true;
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
                let retained = &mut slot.retained;
                match payload {
                    Some(payload) => retained.update(payload),
                    None if retained.objects_dropped => {
                        return Err(Failure::invalid(
                            "render context: nothing sent after a payload too long to keep",
                        ));
                    }
                    None => {}
                }
                let result = match &slot.parsed {
                    Ok(compiled) => compiled.render_prompt(
                        &retained.declared,
                        &retained.parameters,
                        &retained.auto,
                    ),
                    // Required parameters are checked before Liquid runs, so before the parse.
                    Err(message) => check_required(&retained.declared, &retained.parameters)
                        .and(Err(PromptError::RenderFailure(message.clone()))),
                };
                if payload_json.len() > RETAINED_PAYLOAD_MAX_LEN {
                    retained.drop_objects();
                }
                Ok(result)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(json: &str) -> RenderPayload {
        serde_json::from_str(json).unwrap()
    }

    fn render(t: &CompiledTemplate, r: &Retained) -> Result<String, PromptError> {
        t.render_prompt(&r.declared, &r.parameters, &r.auto)
    }

    #[test]
    fn left_out_fields_keep_the_last_render_and_input_is_this_renders() {
        let t = CompiledTemplate::parse(
            "{{ who }} {{ agent.name }} {{ conversation.turn }} {{ input.x }}",
        )
        .unwrap();
        let mut retained = Retained::default();
        retained.update(payload(
            r#"{"parameters":{"who":"Ada"},"now":"2026-09-17T15:30:00.000Z",
                "agent":{"id":"a.b","name":"B","version":"1.0.0"},
                "conversation":{"id":"c","turn":2},"input":{"value":{"x":1}}}"#,
        ));
        assert_eq!(render(&t, &retained).unwrap(), "Ada B 2 1");
        // An empty text is not parsed and changes nothing (the input included).
        assert_eq!(render(&t, &retained).unwrap(), "Ada B 2 1");
        // A payload without input is a render without input; a null conversation is none.
        retained.update(payload(r#"{"parameters":{"who":"Bo"}}"#));
        assert_eq!(
            render(&t, &retained).unwrap_err(),
            PromptError::UnresolvedVariable("input".into())
        );
        retained.update(payload(
            r#"{"conversation":null,"input":{"value":{"x":2}}}"#,
        ));
        assert_eq!(
            render(&t, &retained).unwrap_err(),
            PromptError::UnresolvedVariable("conversation".into())
        );
        // Dropped objects are gone, and marked so that an empty text is refused.
        retained.drop_objects();
        assert!(retained.objects_dropped && !retained.auto_has_objects);
        // Unknown fields are the loader's mistake, refused.
        assert!(serde_json::from_str::<RenderPayload>(r#"{"nowish":"x"}"#).is_err());
    }
}
