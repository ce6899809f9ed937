//! The rules and issue texts a pack compile applies, shared by every caller: deploy
//! validation reports through them and run registration refuses through them, so the two say
//! the same thing for the same pack (and run start words its own failures the same way).

use crate::catalog::deploy_pin_message;
use crate::diagnostics::{Issue, IssueCode};
use crate::index::wire::Parameter;
use crate::range::{Range, RangeError, parse_version};
use crate::template::{CompiledTemplate, ParseError, PromptParameter};
use semver::Version;
use serde_json::{Value, json};

/// Why a settings block's `values` are not model settings: each problem the model-settings
/// schema finds, as `<pointer> <message>`, joined with `; `; `None` when they are. Deploy
/// validation and run start both word a model-settings block this way.
pub(crate) fn model_settings_problems(values: &Value) -> Option<String> {
    let problems = crate::schema::model_settings_schema().issues(
        values,
        "/content/values",
        IssueCode::BlockUnresolvable,
    );
    if problems.is_empty() {
        return None;
    }
    let why: Vec<String> = problems
        .iter()
        .map(|p| format!("{} {}", p.instance_path(), p.message()))
        .collect();
    Some(why.join("; "))
}

/// Pins agent `agent_id`'s reference to tool `id` at `range_text` (`range`: its parse) among
/// the tool's `versions` (highest first, no duplicates): the highest version in range, or the
/// issue that says why there is none. The issue's instance path is empty (the caller places
/// it). Deploy validation and run registration both resolve through this, so they say the
/// same thing for the same pack.
pub(crate) fn pin_tool_ref<'v>(
    agent_id: &str,
    id: &str,
    range_text: &str,
    range: Result<&Range, &RangeError>,
    versions: &'v [Version],
) -> Result<&'v Version, Box<Issue>> {
    let range = range.map_err(|e| {
        Box::new(
            Issue::error(
                IssueCode::InvalidVersionRange,
                "",
                format!("agent \"{agent_id}\": tool \"{id}\" has an invalid version range \"{range_text}\": {e}"),
            )
            .with_param("toolId", id)
            .with_param("requestedRange", range_text),
        )
    })?;
    if versions.is_empty() {
        let none: [&str; 0] = [];
        return Err(Box::new(
            Issue::error(
                IssueCode::ToolNotFound,
                "",
                deploy_pin_message(agent_id, id, range_text, &none),
            )
            .with_param("toolId", id),
        ));
    }
    if let Some(pin) = versions.iter().find(|v| range.satisfies(v)) {
        return Ok(pin);
    }
    let published: Vec<String> = versions.iter().map(ToString::to_string).collect();
    Err(Box::new(
        Issue::error(
            IssueCode::ToolVersionUnresolvable,
            "",
            deploy_pin_message(agent_id, id, range_text, &published),
        )
        .with_param("toolId", id)
        .with_param("requestedRange", range_text)
        .with_param("availableVersions", json!(published)),
    ))
}

/// The version of the tool entry `tool`: its own, or the pack's when it has none (as the
/// Python indexer assigns it). The entry schema only asks for a string, so a text that is not
/// semver is refused here, with the same issue at deploy validation and run registration.
pub(crate) fn tool_version(
    tool: &crate::index::Indexed<crate::index::wire::Tool>,
    pack_version: &str,
) -> Result<Version, Box<Issue>> {
    let text = tool.entry.version.as_deref().unwrap_or(pack_version);
    parse_version(text).ok_or_else(|| {
        Box::new(Issue::error(
            IssueCode::InvalidShape,
            format!("/tools/{}/version", tool.index),
            format!(
                "tool \"{}\" version \"{text}\" is not a semver version",
                tool.entry.id
            ),
        ))
    })
}

/// Why block reference `desc` (e.g. `prompt block "acme.p"`) pins nothing: the block has no
/// version at all, or none in `range` (`published`, highest first). One text for deploy
/// validation, run registration and run start.
pub(crate) fn block_pin_message<V: std::fmt::Display>(
    desc: &str,
    range: &str,
    published: &[V],
) -> String {
    if published.is_empty() {
        format!("{desc} has no published version; publish the block first")
    } else {
        let list: Vec<String> = published.iter().map(ToString::to_string).collect();
        format!(
            "{desc} has no published version in \"{range}\" (published: {})",
            list.join(", ")
        )
    }
}

/// What an agent's data-block reference is for (`instructions.prompt`, `settings`,
/// `modelSettings`); names it in messages and says which block kind it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BlockRole {
    /// The agent's instructions come from a prompt block.
    Prompt,
    /// A settings block whose values the template reads as `settings.<id>`.
    Settings,
    /// A settings block whose values are the model's settings.
    ModelSettings,
}

impl BlockRole {
    /// How messages name the reference: `prompt`, `settings` or `model-settings`.
    pub fn desc(self) -> &'static str {
        match self {
            BlockRole::Prompt => "prompt",
            BlockRole::Settings => "settings",
            BlockRole::ModelSettings => "model-settings",
        }
    }
    /// The block kind the reference needs: `prompt` or `settings`.
    pub fn kind(self) -> &'static str {
        match self {
            BlockRole::Prompt => "prompt",
            BlockRole::Settings | BlockRole::ModelSettings => "settings",
        }
    }
}

/// Template `source` parsed, or the issue at `at` that says why it does not (see
/// [`template_issue`]).
pub(crate) fn parse_template(source: &str, at: &str) -> Result<CompiledTemplate, Box<Issue>> {
    CompiledTemplate::parse(source).map_err(|e| Box::new(template_issue(&e, source, at)))
}

/// Whether `text` is an npm range (`semver.validRange`), as the compile reads one.
pub(crate) fn is_range(text: &str) -> bool {
    Range::parse(text).is_ok()
}

/// The issue for a template `source` at `at` that does not compile. Deploy validation and run
/// registration both report through this, so a template refused at one is refused with the
/// same code and message at the other.
pub(crate) fn template_issue(e: &ParseError, source: &str, at: &str) -> Issue {
    let (line, col) = crate::template::line_col(source, e.offset());
    Issue::error(
        e.code(),
        at,
        format!(
            "template isn't valid Liquid: {}",
            e.message_with_position(source)
        ),
    )
    .with_param("templateLine", line)
    .with_param("templateColumn", col)
}

/// The prompt parameters a run reads of declared `parameters`.
pub(crate) fn parameters_of(list: &[Parameter]) -> Vec<PromptParameter> {
    list.iter()
        .map(|p| {
            let mut param = PromptParameter::new(p.name.as_str()).with_type(p.kind.as_str());
            if p.required == Some(false) {
                param = param.with_required(false);
            }
            if let Some(d) = &p.default {
                param = param.with_default(d.clone());
            }
            param
        })
        .collect()
}
