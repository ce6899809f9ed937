//! Wire types of the pack index (envelope `v: 1`, pack index 1.7.0, seed `001_…`).
//!
//! Serde structs with the exact upstream camelCase field names. Closed objects use
//! `deny_unknown_fields`; the loader reports unknown fields as issues before these types are
//! built, so nothing is dropped silently. Open objects (`openObject`, `jsonSchema`) stay
//! [`serde_json::Value`]. These types carry no behaviour.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool with handler code (`tools[]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Tool {
    /// Tool id: what a pack service resolves an `invoke` by.
    pub id: String,
    /// What the tool does; the model reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The tool's version (exact semver when present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// JSON Schema (draft 2020-12) of the input.
    pub input: Value,
    /// JSON Schema (draft 2020-12) of the output.
    pub output: Value,
    /// Declared side effects (open objects).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effects: Option<Vec<Value>>,
    /// Declared needs (open objects).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs: Option<Vec<Value>>,
    /// Typed needs (open object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs_spec: Option<Value>,
    /// Isolation posture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// Resource limits (open object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Value>,
    /// Network policy (open object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<Value>,
    /// Whether the tool may change something; absent means it may.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutating: Option<bool>,
    /// Whether a person must approve every call in an unattended run; absent means `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs_approval_when_unattended: Option<bool>,
    /// Whether the tool may answer `pause`; absent means `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pauses: Option<bool>,
    /// Whether results are outside data; absent means `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_is_outside_data: Option<bool>,
    /// A declarative tool's spec (open object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<Value>,
    /// Source file, relative to the pack root.
    pub module_path: String,
}

/// Where in an agent's turn a guardrail runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckPoint {
    /// Before each tool call.
    BeforeTool,
    /// After each tool call.
    AfterTool,
    /// After each model step.
    ModelStep,
    /// On the final answer.
    FinalAnswer,
}

/// What a guardrail check sees of the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sees {
    /// The current turn only.
    Turn,
    /// The whole conversation.
    Conversation,
}

/// A guardrail whose check is pack code (`guardrails[]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Guardrail {
    /// Guardrail id.
    pub id: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// How the guardrail is checked (`zero-llm`, `llm-judge`, …).
    pub kind: String,
    /// What a violation does (open object with `on-violation`).
    pub action: Value,
    /// Severity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<String>,
    /// When the guardrail applies (open object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Value>,
    /// Where in the turn it runs; absent means the final answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<CheckPoint>,
    /// What the check sees; absent means the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sees: Option<Sees>,
    /// The points the pack's check runs at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_points: Option<Vec<CheckPoint>>,
    /// The file the check is declared in.
    pub check_module_path: String,
    /// The check's id; absent means the guardrail's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_id: Option<String>,
    /// `true` when the guardrail names a built-in check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_built_in: Option<bool>,
    /// JSON Schema of the check's config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_schema: Option<Value>,
    /// The check's config (open object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Value>,
    /// What one check may spend (open object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<Value>,
    /// For an `llm-judge` guardrail: what its judge model is routed by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_capabilities: Option<Value>,
    /// Isolation posture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// Resource limits (open object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Value>,
    /// Network policy (open object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<Value>,
}

/// A reference from an agent to a tool: an id and an npm-style version range.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolRef {
    /// Tool id.
    pub id: String,
    /// npm semver range (`^1.2.0`, `1.x || 2.0.0`, …).
    pub version: String,
}

/// A reference to a prompt block used as an agent's instructions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptRef {
    /// Prompt block id.
    pub prompt: String,
    /// npm semver range over the block's versions.
    pub version: String,
}

/// An agent's instructions: an inline Liquid template, or a prompt block reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "must be an inline Liquid template (a string) or a prompt block reference {\"prompt\", \"version\"}"
)]
pub enum Instructions {
    /// An inline LiquidJS template.
    Template(String),
    /// A prompt block `{prompt, version}`.
    Prompt(PromptRef),
}

/// A reference from an agent to a settings block (`settings[]`, `modelSettings`): a dotted
/// block id and an npm range over the block's versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SettingsRef {
    /// Block id (`acme.weights`).
    pub id: String,
    /// npm semver range over the block's versions.
    pub version: String,
}

impl<'de> Deserialize<'de> for SettingsRef {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Fields {
            id: String,
            version: String,
        }
        let Fields { id, version } = object_only(deserializer)?;
        Ok(SettingsRef { id, version })
    }
}

/// A prompt parameter an agent's inline instructions (or a prompt block) declare
/// (agents.md §2): the caller supplies it at run start, or its default applies.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Parameter {
    /// The variable name the template reads.
    pub name: String,
    /// Prose for callers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The value's type.
    #[serde(rename = "type")]
    pub kind: ParameterType,
    /// `false` makes the parameter optional; absent means required (unless it has a default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// The value used when the caller supplies none; a JSON `null` is a default of `null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
}

impl<'de> Deserialize<'de> for Parameter {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Fields {
            name: String,
            #[serde(default, deserialize_with = "present")]
            description: Option<String>,
            #[serde(rename = "type")]
            kind: ParameterType,
            #[serde(default, deserialize_with = "present")]
            required: Option<bool>,
            #[serde(default, deserialize_with = "present")]
            default: Option<Value>,
        }
        let f: Fields = object_only(deserializer)?;
        Ok(Parameter {
            name: f.name,
            description: f.description,
            kind: f.kind,
            required: f.required,
            default: f.default,
        })
    }
}

/// A `T` read only from a JSON object: serde's derive also reads a struct from an array of
/// its field values in order, which an index never means (`["acme.weights", "^1"]` is not a
/// settings reference).
fn object_only<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct ObjectOnly<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for ObjectOnly<T> {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }
    deserializer.deserialize_map(ObjectOnly(std::marker::PhantomData))
}

/// A field that, when present, holds a `T` (`null` included, for `T = Value`): serde's
/// `Option` would read a `null` as absent, and a parameter's `required: null` is a mistake
/// to report, not a default.
pub(crate) fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// The type of a [`Parameter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParameterType {
    /// A string.
    String,
    /// A number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// An ISO 8601 date (or date-time) string.
    Date,
}

impl ParameterType {
    /// The type's name as written in the index: `string`, `number`, `boolean`, `date`.
    pub fn as_str(self) -> &'static str {
        match self {
            ParameterType::String => "string",
            ParameterType::Number => "number",
            ParameterType::Boolean => "boolean",
            ParameterType::Date => "date",
        }
    }
}

/// An agent as declared (`agents[]`, index form of seed `001_…`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Agent {
    /// Agent id.
    pub id: String,
    /// Exact semver version.
    pub version: String,
    /// Display name.
    pub name: String,
    /// System prompt template or prompt block reference.
    pub instructions: Instructions,
    /// Settings block references: their values are the template's `settings.<id>`. (Here
    /// and in `modelSettings` and `parameters`, a `null` is refused, as the index schema
    /// refuses it, not read as absent.)
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub settings: Option<Vec<SettingsRef>>,
    /// The settings block whose values are the model's settings.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub model_settings: Option<SettingsRef>,
    /// Capability declarations.
    pub capabilities: Vec<Value>,
    /// Tool references.
    pub tools: Vec<ToolRef>,
    /// Retrieval intents (a `null` is refused).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub retrieval: Option<Vec<Value>>,
    /// Memory settings (open object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<Value>,
    /// Guardrail ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guardrails: Option<Vec<String>>,
    /// Turn budget (open object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<Value>,
    /// Prompt parameters of inline instructions (a prompt block declares its own).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub parameters: Option<Vec<Parameter>>,
    /// Preferred provider (soft hint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_provider: Option<String>,
    /// Preferred model (soft hint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_model: Option<String>,
    /// Prose description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Catalog tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// Conversation policy (object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_policy: Option<Value>,
    /// Typed output `{schema, name?, maxRepairs?}`; a `null` is kept (the agent rules refuse
    /// it), not read as absent.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub output: Option<Value>,
    /// Tool-error retry policy `{maxRetries?, retryOn?}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_errors: Option<Value>,
    /// Whether read-only tool calls may run at the same time; default `true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    /// Source file, relative to the pack root.
    pub module_path: String,
}

/// A flow entry (`flows[]`): the flow document's type, whose `kernelPayloadVersion` and
/// `modulePath` an index entry always has (loading refuses an entry without them).
pub use crate::flow::wire::Flow;

/// The kind of a data block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockKind {
    /// A Liquid prompt `{template, parameters?}`.
    Prompt,
    /// Settings values `{values, schema?}`.
    Settings,
}

impl BlockKind {
    /// `"prompt"` or `"settings"`.
    pub fn as_str(self) -> &'static str {
        match self {
            BlockKind::Prompt => "prompt",
            BlockKind::Settings => "settings",
        }
    }
}

/// A data block at one version (`blocks[]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Block {
    /// Dotted lowercase id (`acme.reply-prompt`).
    pub id: String,
    /// Plain `major.minor.patch`.
    pub version: String,
    /// Prompt or settings.
    pub kind: BlockKind,
    /// Prose description (a `null` is refused, not read as absent).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub description: Option<String>,
    /// A prompt's `{template, parameters?}` or settings' `{values, schema?}`.
    pub content: Value,
    /// The block's file, relative to the pack root.
    pub module_path: String,
}

/// The process environment the pack's code reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Env {
    /// Names that must be set and non-empty.
    pub required: Vec<String>,
    /// Names read when present.
    pub optional: Vec<String>,
}
