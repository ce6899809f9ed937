//! Rendering an agent's prompt at run start (`shared/spec/agents.md` §3.2–§3.4): required
//! parameters first, then the context (defaults, supplied values, auto-variables), then a
//! strict render with upstream's error codes and messages.

use super::compiled::CompiledTemplate;
use super::parameter::PromptParameter;
use super::render::Globals;
use super::value::Val;
use serde_json::{Map, Value};
use std::fmt;

/// The auto-variables of one turn (§3.3); they overwrite caller values of the same name.
#[derive(Debug, Clone, PartialEq)]
pub struct AutoVariables {
    now: String,
    agent: Value,
    conversation: Option<Value>,
    input: Option<Value>,
    /// A JSON object when present.
    settings: Option<Value>,
}

impl AutoVariables {
    /// `now` is the render clock as ISO 8601 UTC with milliseconds
    /// (`2026-09-17T15:30:00.000Z`); `today` is its first 10 characters.
    pub fn new(
        now: impl Into<String>,
        agent_id: &str,
        agent_name: &str,
        agent_version: &str,
    ) -> AutoVariables {
        AutoVariables {
            now: now.into(),
            agent: serde_json::json!({"id": agent_id, "name": agent_name, "version": agent_version}),
            conversation: None,
            input: None,
            settings: None,
        }
    }

    /// Adds `conversation.{id,turn}` (absent by default; the turn's renderer always passes
    /// one).
    #[must_use]
    pub fn with_conversation(mut self, id: &str, turn: u64) -> AutoVariables {
        self.conversation = Some(serde_json::json!({"id": id, "turn": turn}));
        self
    }

    /// Adds `input` (absent by default: only flow agent steps have input).
    #[must_use]
    pub fn with_input(mut self, input: Value) -> AutoVariables {
        self.input = Some(input);
        self
    }

    /// Adds `settings`, block id → values (absent by default: only agents that reference
    /// data blocks have it, then `{}` if there are no settings blocks).
    #[must_use]
    pub fn with_settings(mut self, settings: Map<String, Value>) -> AutoVariables {
        self.settings = Some(Value::Object(settings));
        self
    }

    fn borrowed(&self) -> PromptGlobals<'_> {
        PromptGlobals {
            now: &self.now,
            agent: &self.agent,
            conversation: self.conversation.as_ref(),
            input: self.input.as_ref(),
            settings: self.settings.as_ref(),
        }
    }
}

/// [`AutoVariables`] borrowed from wherever they already live, so that run start renders
/// without copying the agent, its settings or the input per run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PromptGlobals<'a> {
    /// ISO 8601 UTC with milliseconds.
    pub now: &'a str,
    /// `{id, name, version}`.
    pub agent: &'a Value,
    /// `{id, turn}`.
    pub conversation: Option<&'a Value>,
    pub input: Option<&'a Value>,
    /// Block id → values, a JSON object.
    pub settings: Option<&'a Value>,
}

/// `today`: the first 10 characters of `now` (its date, for an ISO 8601 clock).
fn today_of(now: &str) -> &str {
    match now.char_indices().nth(10) {
        Some((end, _)) => now.get(..end).unwrap_or(now),
        None => now,
    }
}

/// Why a prompt could not be rendered; [`PromptError::code`] and the `Display` message are
/// upstream's.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PromptError {
    /// Required parameters without a value, in declaration order.
    MissingParameters(Vec<String>),
    /// The template read a variable that does not resolve; the full path LiquidJS reports.
    UnresolvedVariable(String),
    /// Any other render failure, with LiquidJS's message (position included).
    RenderFailure(String),
}

impl PromptError {
    /// `missing-parameter` or `render-failure`.
    pub fn code(&self) -> &'static str {
        match self {
            PromptError::MissingParameters(_) | PromptError::UnresolvedVariable(_) => {
                "missing-parameter"
            }
            PromptError::RenderFailure(_) => "render-failure",
        }
    }

    /// `parameterName`: set for exactly one missing parameter, or an unresolved variable.
    pub fn parameter_name(&self) -> Option<&str> {
        match self {
            PromptError::MissingParameters(v) if v.len() == 1 => v.first().map(String::as_str),
            PromptError::UnresolvedVariable(p) => Some(p),
            _ => None,
        }
    }
}

impl fmt::Display for PromptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PromptError::MissingParameters(v) if v.len() == 1 => {
                write!(f, "Required parameter missing: {}", v.join(", "))
            }
            PromptError::MissingParameters(v) => {
                write!(f, "Required parameters missing: {}", v.join(", "))
            }
            PromptError::UnresolvedVariable(p) => {
                write!(f, "Template references an unresolved variable: {p}")
            }
            PromptError::RenderFailure(m) => write!(f, "Template render failed: {m}"),
        }
    }
}

impl std::error::Error for PromptError {}

/// Step 1 of a prompt render (agents.md §3.2), before Liquid runs: every declared parameter
/// that is required (`required` not false) and has no default must be a key of `supplied`.
/// A JSON `null` counts as supplied.
///
/// # Errors
///
/// [`PromptError::MissingParameters`] with every missing name, in declaration order.
///
/// # Examples
///
/// ```
/// use runstart::template::{PromptParameter, check_required};
/// use serde_json::{json, Map};
///
/// let params = [PromptParameter::new("firm"), PromptParameter::new("tone")];
/// let mut supplied = Map::new();
/// supplied.insert("tone".into(), json!(null));
/// let err = check_required(&params, &supplied).unwrap_err();
/// assert_eq!(err.to_string(), "Required parameter missing: firm");
/// ```
pub fn check_required(
    params: &[PromptParameter],
    supplied: &Map<String, Value>,
) -> Result<(), PromptError> {
    let missing: Vec<String> = params
        .iter()
        .filter(|p| p.required && p.default.is_none() && !supplied.contains_key(&p.name))
        .map(|p| p.name.clone())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(PromptError::MissingParameters(missing))
    }
}

/// The render context of §3.3: defaults, then every supplied parameter, then the
/// auto-variables.
pub fn prompt_context(
    params: &[PromptParameter],
    supplied: &Map<String, Value>,
    auto: &AutoVariables,
) -> Map<String, Value> {
    let mut ctx = Map::new();
    for p in params {
        if let Some(d) = &p.default {
            ctx.insert(p.name.clone(), d.clone());
        }
    }
    for (k, v) in supplied {
        ctx.insert(k.clone(), v.clone());
    }
    ctx.insert(
        "today".into(),
        Value::String(today_of(&auto.now).to_owned()),
    );
    ctx.insert("now".into(), Value::String(auto.now.clone()));
    ctx.insert("agent".into(), auto.agent.clone());
    if let Some(c) = &auto.conversation {
        ctx.insert("conversation".into(), c.clone());
    }
    if let Some(i) = &auto.input {
        ctx.insert("input".into(), i.clone());
    }
    if let Some(s) = &auto.settings {
        ctx.insert("settings".into(), s.clone());
    }
    ctx
}

impl CompiledTemplate {
    /// Renders the prompt as run start does: missing required parameters are reported
    /// together before anything renders, then the template renders strictly against
    /// [`prompt_context`].
    ///
    /// # Errors
    ///
    /// [`PromptError::MissingParameters`] (a parameter is missing when it is required, has no
    /// default and its name is not supplied; a JSON `null` counts as supplied),
    /// [`PromptError::UnresolvedVariable`], or [`PromptError::RenderFailure`].
    ///
    /// # Examples
    ///
    /// ```
    /// use runstart::template::{AutoVariables, CompiledTemplate, PromptParameter};
    /// use serde_json::{json, Map};
    ///
    /// let t = CompiledTemplate::parse("You are {{ agent.name }} for {{ firm }}. Today is {{ today }}.")?;
    /// let auto = AutoVariables::new("2026-09-17T15:30:00.000Z", "acme.test", "Test", "1.0.0");
    /// let mut supplied = Map::new();
    /// supplied.insert("firm".into(), json!("Acme LLP"));
    /// let params = [PromptParameter::new("firm")];
    /// assert_eq!(
    ///     t.render_prompt(&params, &supplied, &auto)?,
    ///     "You are Test for Acme LLP. Today is 2026-09-17."
    /// );
    /// let err = t.render_prompt(&params, &Map::new(), &auto).unwrap_err();
    /// assert_eq!(err.to_string(), "Required parameter missing: firm");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn render_prompt(
        &self,
        params: &[PromptParameter],
        supplied: &Map<String, Value>,
        auto: &AutoVariables,
    ) -> Result<String, PromptError> {
        self.render_prompt_with(params, supplied, &auto.borrowed())
    }

    /// [`CompiledTemplate::render_prompt`] with borrowed auto-variables: the context is looked
    /// up through layers (auto-variables, then supplied values, then defaults) instead of
    /// being copied into one object.
    pub(crate) fn render_prompt_with(
        &self,
        params: &[PromptParameter],
        supplied: &Map<String, Value>,
        auto: &PromptGlobals<'_>,
    ) -> Result<String, PromptError> {
        check_required(params, supplied)?;
        let mut named = [
            ("today", Val::S(today_of(auto.now))),
            ("now", Val::S(auto.now)),
            ("agent", Val::from_json(auto.agent)),
            ("", Val::Undef),
            ("", Val::Undef),
            ("", Val::Undef),
        ];
        let mut n = 3;
        for (name, value) in [
            ("conversation", auto.conversation),
            ("input", auto.input),
            ("settings", auto.settings),
        ] {
            if let (Some(value), Some(slot)) = (value, named.get_mut(n)) {
                // `input` may be any JSON value, not only an object.
                *slot = (name, Val::from_json(value));
                n += 1;
            }
        }
        let globals = Globals {
            named: named.get(..n).unwrap_or_default(),
            object: Some(supplied),
            defaults: params,
        };
        self.render_globals(globals)
            .map_err(|e| match e.undefined_path() {
                Some(path) => PromptError::UnresolvedVariable(path.to_string()),
                None => PromptError::RenderFailure(e.message_with_position(self.source())),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The layered lookup of `render_prompt` answers exactly as rendering the flat
    /// [`prompt_context`] object does.
    #[test]
    fn layered_render_equals_the_flat_context() {
        let templates = [
            "{{ input }}|{{ input | size }}|{{ input | json }}",
            "{% if input %}yes{% else %}no{% endif %}|{{ input | default: 'd' }}",
            "{% if input == 'hello' %}eq{% endif %}{{ input | plus: 1 }}",
            "{{ x }}|{{ today }}|{{ now }}|{{ agent.name }}",
            "{% increment x %}{% increment x %}{{ x }}|{{ conversation.turn }}",
            "{{ settings.s.tone }}|{{ y }}",
        ];
        let params = [
            PromptParameter::new("x").with_default(json!("first")),
            PromptParameter::new("x").with_required(false),
            PromptParameter::new("x").with_default(json!("second")),
            PromptParameter::new("y").with_default(json!(7)),
        ];
        let inputs = [
            json!("hello"),
            json!(42),
            json!(true),
            json!(null),
            json!({"a": 1}),
            json!([1, 2]),
        ];
        let mut supplied = Map::new();
        supplied.insert("y".into(), Value::Null);
        supplied.insert("today".into(), json!("not today"));
        let mut settings = Map::new();
        settings.insert("s".into(), json!({"tone": "warm"}));
        let mut compared = 0;
        for input in inputs {
            let auto = AutoVariables::new("2026-09-17T15:30:00.000Z", "a.b", "Ann", "1.0.0")
                .with_conversation("c", 2)
                .with_input(input)
                .with_settings(settings.clone());
            let flat = Value::Object(prompt_context(&params, &supplied, &auto));
            for source in templates {
                let t = CompiledTemplate::parse(source).expect("parses");
                let layered = t.render_prompt(&params, &supplied, &auto);
                let expected = t.render(&flat).map_err(|e| e.to_string());
                assert_eq!(
                    layered.map_err(|e| e.to_string()).is_ok(),
                    expected.is_ok(),
                    "{source}"
                );
                if let (Ok(a), Ok(b)) = (t.render_prompt(&params, &supplied, &auto), &expected) {
                    assert_eq!(&a, b, "{source}");
                    compared += 1;
                }
            }
        }
        assert!(compared >= 30, "{compared} renders compared");
    }
}
