//! The strict-variable check: which reads a template makes that an agent cannot satisfy.

use super::analysis::{Segment, VariableRef};
use super::compiled::CompiledTemplate;
use crate::diagnostics::IssueCode;
use std::collections::BTreeSet;
use std::ops::Range;

/// Where `input.*` may be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum InputPolicy {
    /// A flow agent step: the turn has structured input.
    Allowed,
    /// A direct run has no input, so `{{ input… }}` fails there; reported as a warning.
    #[default]
    Warn,
}

/// What a template may read: declared parameters plus the auto-variables (spec §3.3).
#[derive(Debug, Clone, Default)]
pub struct AllowedVariables {
    params: BTreeSet<String>,
    settings: BTreeSet<String>,
    input: InputPolicy,
}

impl AllowedVariables {
    /// Only the auto-variables `today`, `now`, `agent.{id,name,version}`,
    /// `conversation.{id,turn}`; `input.*` is a warning; no settings block.
    pub fn new() -> AllowedVariables {
        AllowedVariables::default()
    }

    /// Adds declared parameter names (any field below them may be read).
    #[must_use]
    pub fn with_params<I, S>(mut self, names: I) -> AllowedVariables
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.params.extend(names.into_iter().map(Into::into));
        self
    }

    /// Adds settings blocks the agent references: `settings["<id>"].*` becomes readable.
    #[must_use]
    pub fn with_settings<I, S>(mut self, ids: I) -> AllowedVariables
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.settings.extend(ids.into_iter().map(Into::into));
        self
    }

    /// Sets where `input.*` may be read (default: [`InputPolicy::Warn`]).
    #[must_use]
    pub fn with_input(mut self, policy: InputPolicy) -> AllowedVariables {
        self.input = policy;
        self
    }
}

/// What a [`CheckIssue`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CheckIssueKind {
    /// A root that is neither a parameter nor an auto-variable.
    UnknownVariable,
    /// A known root with a field it does not have (`agent.owner`).
    UnknownField,
    /// `settings` without a block id, or with a block the agent does not reference.
    UnknownSettings,
    /// `input.*` outside a flow agent step (a warning).
    InputOutsideFlow,
    /// `include`, `render` or `layout`: a prompt has no template root.
    PartialTag,
    /// A filter call runstart cannot render exactly as LiquidJS (`group_by`, a `date` time
    /// zone name), refused rather than rendered differently.
    Unsupported,
}

impl CheckIssueKind {
    /// The stable issue code.
    pub fn code(self) -> IssueCode {
        match self {
            CheckIssueKind::UnknownVariable => IssueCode::TemplateUnknownVariable,
            CheckIssueKind::UnknownField => IssueCode::TemplateUnknownField,
            CheckIssueKind::UnknownSettings => IssueCode::TemplateUnknownSettings,
            CheckIssueKind::InputOutsideFlow => IssueCode::TemplateInputOutsideFlow,
            CheckIssueKind::PartialTag => IssueCode::TemplatePartial,
            CheckIssueKind::Unsupported => IssueCode::TemplateUnsupported,
        }
    }

    /// Whether this is only a warning.
    pub fn is_warning(self) -> bool {
        matches!(self, CheckIssueKind::InputOutsideFlow)
    }
}

/// One problem the check found, positioned in the template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckIssue {
    kind: CheckIssueKind,
    message: String,
    span: Range<usize>,
    line: usize,
    col: usize,
}

impl CheckIssue {
    /// The kind.
    pub fn kind(&self) -> CheckIssueKind {
        self.kind
    }
    /// The stable code (see [`CheckIssueKind::code`]).
    pub fn code(&self) -> IssueCode {
        self.kind.code()
    }
    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
    /// Byte range of the offending token in the template.
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }
    /// 1-based line.
    pub fn line(&self) -> usize {
        self.line
    }
    /// 1-based column, in characters.
    pub fn col(&self) -> usize {
        self.col
    }

    /// Converts to a [`crate::diagnostics::Issue`] at `pointer` (the template's JSON Pointer,
    /// e.g. `/agents/0/instructions`), with `line`, `col` and `offset` params.
    pub fn to_issue(&self, pointer: &str) -> crate::diagnostics::Issue {
        let issue = if self.kind.is_warning() {
            crate::diagnostics::Issue::warning(self.code(), pointer, self.message.clone())
        } else {
            crate::diagnostics::Issue::error(self.code(), pointer, self.message.clone())
        };
        issue
            .with_param("line", self.line)
            .with_param("col", self.col)
            .with_param("offset", self.span.start)
    }
}

/// Fields a string value has in LiquidJS (`size`, `length`, a character index).
fn string_field_ok(seg: &Segment) -> bool {
    match seg {
        Segment::Key(k) => k == "size" || k == "length" || k.parse::<u32>().is_ok(),
        Segment::Index(n) => n.fract() == 0.0,
        Segment::Variable(_) => true,
    }
}

fn key(seg: Option<&Segment>) -> Option<&str> {
    match seg {
        Some(Segment::Key(k)) => Some(k),
        _ => None,
    }
}

impl CompiledTemplate {
    /// Checks every global read against `allowed`. Issues come in source order.
    ///
    /// Only what can be known statically is checked: a parameter's own fields and a settings
    /// block's values are not (their shapes are not declared).
    ///
    /// # Examples
    ///
    /// ```
    /// use runstart::template::{AllowedVariables, CompiledTemplate};
    ///
    /// let t = CompiledTemplate::parse("{{ firm }} {{ agent.owner }}\n{{ custmer.name }}")?;
    /// let issues = t.check(&AllowedVariables::new().with_params(["firm"]));
    /// let found: Vec<_> = issues.iter().map(|i| (i.code().as_str(), i.line(), i.col())).collect();
    /// assert_eq!(
    ///     found,
    ///     [("template-unknown-field", 1, 15), ("template-unknown-variable", 2, 4)]
    /// );
    /// # Ok::<(), runstart::template::ParseError>(())
    /// ```
    pub fn check(&self, allowed: &AllowedVariables) -> Vec<CheckIssue> {
        let mut out = Vec::new();
        // The same read reported twice at one offset (a tag LiquidJS analyses twice) is one
        // issue; a set keeps this linear when a template has thousands of unknown names.
        let mut seen: std::collections::HashSet<(usize, String)> = Default::default();
        for r in self.global_reads() {
            if let Some((kind, message)) = check_read(r, allowed) {
                if !seen.insert((r.offset(), r.to_string())) {
                    continue;
                }
                out.push(self.issue(kind, message, r.offset(), r.offset() + 1));
            }
        }
        for p in &self.partials {
            out.push(self.issue(
                CheckIssueKind::PartialTag,
                format!(
                    "{{% {} %}} reads another template, and a prompt has no template root; inline the text instead",
                    p.tag.name()
                ),
                p.offset,
                p.offset + 2,
            ));
        }
        for (offset, why) in &self.unsupported {
            out.push(self.issue(
                CheckIssueKind::Unsupported,
                why.clone(),
                *offset,
                *offset + 1,
            ));
        }
        out.sort_by_key(|i| i.span.start);
        // Lines and columns (LiquidJS's, in UTF-16 units) in one walk over the source, the
        // issues being in offset order, not one walk from the start per issue.
        let mut position = super::Utf16Position::new(self.source());
        for issue in &mut out {
            (issue.line, issue.col) = position.advance_to(issue.span.start);
        }
        out
    }

    fn issue(&self, kind: CheckIssueKind, message: String, start: usize, end: usize) -> CheckIssue {
        let end = end.min(self.source().len()).max(start);
        CheckIssue {
            kind,
            message,
            span: start..end,
            // Set by `check` once all issues are sorted.
            line: 0,
            col: 0,
        }
    }
}

fn check_read(r: &VariableRef, allowed: &AllowedVariables) -> Option<(CheckIssueKind, String)> {
    let segs = r.segments();
    let root = r.root()?;
    if allowed.params.contains(root) {
        return None;
    }
    let unknown_field = |what: &str, fields: &str| {
        Some((
            CheckIssueKind::UnknownField,
            format!("it reads \"{r}\", but {what} has only {fields}"),
        ))
    };
    match root {
        "today" | "now" => match segs.get(1) {
            Some(s) if !string_field_ok(s) => unknown_field(root, "a date string's size"),
            _ => None,
        },
        "agent" => match segs.get(1) {
            None => None,
            Some(Segment::Key(k)) if matches!(k.as_str(), "id" | "name" | "version") => {
                match segs.get(2) {
                    Some(s) if !string_field_ok(s) => {
                        unknown_field(&format!("agent.{k}"), "a string's size")
                    }
                    _ => None,
                }
            }
            Some(Segment::Variable(_)) => None,
            Some(_) => unknown_field("agent", "id, name and version"),
        },
        "conversation" => match segs.get(1) {
            None => None,
            Some(Segment::Key(k)) if k == "id" => match segs.get(2) {
                Some(s) if !string_field_ok(s) => {
                    unknown_field("conversation.id", "a string's size")
                }
                _ => None,
            },
            Some(Segment::Key(k)) if k == "turn" => match segs.get(2) {
                Some(_) => unknown_field("conversation.turn", "no fields (it is a number)"),
                None => None,
            },
            Some(Segment::Variable(_)) => None,
            Some(_) => unknown_field("conversation", "id and turn"),
        },
        "input" => match allowed.input {
            InputPolicy::Allowed => None,
            InputPolicy::Warn => Some((
                CheckIssueKind::InputOutsideFlow,
                format!(
                    "it reads \"{r}\", but only a flow agent step has input; a direct run fails to render"
                ),
            )),
        },
        "settings" => match (key(segs.get(1)), segs.get(1)) {
            (Some(id), _) if allowed.settings.contains(id) => None,
            (_, Some(Segment::Variable(_))) if !allowed.settings.is_empty() => None,
            (Some(id), _) => Some((
                CheckIssueKind::UnknownSettings,
                format!(
                    "it reads settings[{}], which is not a settings block the agent references",
                    serde_json::to_string(id).unwrap_or_default()
                ),
            )),
            _ => Some((
                CheckIssueKind::UnknownSettings,
                "it reads settings without a block id; write settings[\"<block id>\"].<key>"
                    .to_string(),
            )),
        },
        _ => Some((
            CheckIssueKind::UnknownVariable,
            format!(
                "it reads \"{r}\", which the agent doesn't have (a declared parameter or an auto-variable)"
            ),
        )),
    }
}
