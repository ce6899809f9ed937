//! Issues and reports: what validation finds, as plain data.
//!
//! An [`Issue`] is the Ajv-shaped validation error of the pack protocol (`instancePath`,
//! `schemaPath`, `keyword`, `params`, `message`) plus a `severity` and a stable `code`.
//! Validators push issues into a [`Report`]; they never stop at the first problem. Rendering
//! for people lives in [`render`]; the JSON form is the serde form of [`Report`].

mod capped;
mod code;
pub mod pointer;
pub mod render;

pub(crate) use capped::{CappedIssues, more_issues};
pub use code::{IssueCode, UnknownIssueCode};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// How bad an issue is.
///
/// Errors make `runstart validate` exit 1; warnings are reported but do not fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The input is wrong: a deploy must refuse it.
    Error,
    /// The input works but is probably not what its author meant.
    Warning,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem found in the input.
///
/// Fields follow the pack protocol's Ajv-shaped error (`instancePath`, `schemaPath`, `keyword`,
/// `params`, `message`), with a [`Severity`] and a stable machine `code` (for example
/// `tool-version-unresolvable`). `instancePath` is an RFC 6901 JSON Pointer into the validated
/// document (`""` is the whole document).
///
/// # Examples
///
/// ```
/// use runstart::diagnostics::{Issue, IssueCode, Severity};
///
/// let issue = Issue::error(IssueCode::EnvelopeVersion, "/v", "Index envelope v2 is not v1")
///     .with_keyword("const");
/// assert_eq!(issue.severity(), Severity::Error);
/// assert_eq!(issue.code(), "envelope-version");
/// assert_eq!(issue.instance_path(), "/v");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Issue {
    severity: Severity,
    code: IssueCode,
    instance_path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    schema_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    keyword: Option<Cow<'static, str>>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    params: Map<String, Value>,
    message: String,
    /// Where in the file's text the problem is, when the issue knows it better than its
    /// pointer does (a JSON syntax error has no pointer to a value). Not part of the wire
    /// form, which carries the same numbers as the `line` and `column` params.
    #[serde(skip)]
    position: Option<Position>,
}

/// A place in a file's text: 1-based line and column (columns count characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
}

impl Issue {
    /// An issue of the given severity.
    pub fn new(
        severity: Severity,
        code: IssueCode,
        instance_path: impl Into<String>,
        message: impl Into<String>,
    ) -> Issue {
        Issue {
            severity,
            code,
            instance_path: instance_path.into(),
            schema_path: None,
            keyword: None,
            params: Map::new(),
            message: message.into(),
            position: None,
        }
    }

    /// An [`Severity::Error`] issue.
    pub fn error(
        code: IssueCode,
        instance_path: impl Into<String>,
        message: impl Into<String>,
    ) -> Issue {
        Issue::new(Severity::Error, code, instance_path, message)
    }

    /// A [`Severity::Warning`] issue.
    pub fn warning(
        code: IssueCode,
        instance_path: impl Into<String>,
        message: impl Into<String>,
    ) -> Issue {
        Issue::new(Severity::Warning, code, instance_path, message)
    }

    /// Sets the schema path (`#/…`, the failing keyword's location in the schema).
    #[must_use]
    pub fn with_schema_path(mut self, schema_path: impl Into<String>) -> Issue {
        self.schema_path = Some(schema_path.into());
        self
    }

    /// Sets the JSON Schema keyword that failed (`required`, `type`, …).
    #[must_use]
    pub fn with_keyword(mut self, keyword: impl Into<Cow<'static, str>>) -> Issue {
        self.keyword = Some(keyword.into());
        self
    }

    /// Adds one entry to `params` (the keyword's details, as Ajv gives them).
    #[must_use]
    pub fn with_param(mut self, name: impl Into<String>, value: impl Into<Value>) -> Issue {
        self.params.insert(name.into(), value.into());
        self
    }

    /// Sets where in the file's text the problem is (1-based `line` and `column`), also
    /// written as the `line` and `column` params of the wire form. The human renderer
    /// prints this position instead of looking the pointer up.
    #[must_use]
    pub fn with_position(mut self, line: usize, column: usize) -> Issue {
        self.position = Some(Position { line, column });
        self.with_param("line", line).with_param("column", column)
    }

    /// Where in the file's text the problem is, when the issue was given a position.
    pub fn position(&self) -> Option<Position> {
        self.position
    }

    /// Changes the severity (used when a rule is configured down to a warning).
    #[must_use]
    pub fn with_severity(mut self, severity: Severity) -> Issue {
        self.severity = severity;
        self
    }

    /// Prefixes the instance path with `prefix` (a JSON Pointer), for issues found inside a
    /// nested document (a flow inside an index, a schema inside a tool).
    #[must_use]
    pub fn under(mut self, prefix: &str) -> Issue {
        if !prefix.is_empty() {
            self.instance_path.insert_str(0, prefix);
        }
        self
    }

    /// Error or warning.
    pub fn severity(&self) -> Severity {
        self.severity
    }

    /// The stable machine code, e.g. `tool-version-unresolvable`.
    pub fn code(&self) -> IssueCode {
        self.code
    }

    /// JSON Pointer (RFC 6901) to the offending value in the validated document.
    pub fn instance_path(&self) -> &str {
        &self.instance_path
    }

    /// Location of the failing keyword in the schema (`#/…`), when a schema was involved.
    pub fn schema_path(&self) -> Option<&str> {
        self.schema_path.as_deref()
    }

    /// The failing JSON Schema keyword, when a schema was involved.
    pub fn keyword(&self) -> Option<&str> {
        self.keyword.as_deref()
    }

    /// The keyword's details (Ajv's `params`); empty when there are none.
    pub fn params(&self) -> &Map<String, Value> {
        &self.params
    }

    /// What is wrong, for a person.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// `severity[code] pointer: message`, one line, the root pointer written `""`:
///
/// ```
/// use runstart::diagnostics::{Issue, IssueCode};
///
/// let issue = Issue::error(IssueCode::EnvelopeVersion, "/v", "Index envelope v2 is not v1");
/// assert_eq!(issue.to_string(), "error[envelope-version] /v: Index envelope v2 is not v1");
/// let whole = Issue::warning(IssueCode::NonCanonicalIndex, "", "the file is not in canonical form");
/// assert_eq!(whole.to_string(), "warning[non-canonical-index] \"\": the file is not in canonical form");
/// ```
impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.instance_path.is_empty() {
            "\"\""
        } else {
            &self.instance_path
        };
        write!(
            f,
            "{}[{}] {pointer}: {}",
            self.severity, self.code, self.message
        )
    }
}

/// Every issue found in one document.
///
/// Issues are kept in a deterministic order once [`Report::sort`] (or [`Report::finish`]) ran:
/// by instance path (segment-wise, array indexes compared as numbers), then code, then message.
///
/// # Examples
///
/// ```
/// use runstart::diagnostics::{Issue, IssueCode, Report};
///
/// let mut report = Report::new();
/// report.push(Issue::warning(IssueCode::NonCanonicalIndex, "", "keys are not sorted"));
/// assert!(!report.has_errors());
/// report.push(Issue::error(IssueCode::InvalidShape, "/tools/0", "must have required property 'id'"));
/// assert!(report.has_errors());
/// assert_eq!(report.error_count(), 1);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    issues: Vec<Issue>,
}

impl Report {
    /// An empty report.
    pub fn new() -> Report {
        Report::default()
    }

    /// Adds one issue.
    pub fn push(&mut self, issue: Issue) {
        self.issues.push(issue);
    }

    /// Adds several issues.
    pub fn extend(&mut self, issues: impl IntoIterator<Item = Issue>) {
        self.issues.extend(issues);
    }

    /// The issues, in the order they were pushed (or sorted, after [`Report::sort`]).
    pub fn issues(&self) -> &[Issue] {
        &self.issues
    }

    /// Takes the issues out.
    pub fn into_issues(self) -> Vec<Issue> {
        self.issues
    }

    /// Whether no issue at all was found.
    pub fn is_empty(&self) -> bool {
        self.issues.is_empty()
    }

    /// Whether at least one issue is an error.
    pub fn has_errors(&self) -> bool {
        self.issues.iter().any(|i| i.severity == Severity::Error)
    }

    /// How many issues are errors.
    pub fn error_count(&self) -> usize {
        self.issues
            .iter()
            .filter(|i| i.severity == Severity::Error)
            .count()
    }

    /// How many issues are warnings.
    pub fn warning_count(&self) -> usize {
        self.issues
            .iter()
            .filter(|i| i.severity == Severity::Warning)
            .count()
    }

    /// Sorts the issues into the documented deterministic order and drops exact duplicates.
    pub fn sort(&mut self) {
        self.issues.sort_by(|a, b| {
            pointer::compare(&a.instance_path, &b.instance_path)
                .then_with(|| a.code.as_str().cmp(b.code.as_str()))
                .then_with(|| a.message.cmp(&b.message))
                .then_with(|| a.severity.cmp(&b.severity))
        });
        self.issues.dedup();
    }

    /// Sorts and returns the report.
    #[must_use]
    pub fn finish(mut self) -> Report {
        self.sort();
        self
    }
}

impl Extend<Issue> for Report {
    fn extend<T: IntoIterator<Item = Issue>>(&mut self, iter: T) {
        self.issues.extend(iter);
    }
}

impl FromIterator<Issue> for Report {
    fn from_iter<T: IntoIterator<Item = Issue>>(iter: T) -> Report {
        Report {
            issues: iter.into_iter().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_serializes_with_camel_case_and_skips_empty_fields() {
        let issue = Issue::error(
            IssueCode::InvalidShape,
            "/tools/0",
            "must have required property 'id'",
        )
        .with_schema_path("#/required")
        .with_keyword("required")
        .with_param("missingProperty", "id");
        let json = serde_json::to_string(&issue).expect("serializable");
        assert_eq!(
            json,
            r##"{"severity":"error","code":"invalid-shape","instancePath":"/tools/0","schemaPath":"#/required","keyword":"required","params":{"missingProperty":"id"},"message":"must have required property 'id'"}"##
        );
        let bare = Issue::warning(IssueCode::ConfusableId, "", "m");
        assert_eq!(
            serde_json::to_string(&bare).expect("serializable"),
            r#"{"severity":"warning","code":"confusable-id","instancePath":"","message":"m"}"#
        );
    }

    #[test]
    fn report_sorts_by_pointer_numerically_then_code() {
        let mut r = Report::new();
        r.push(Issue::error(IssueCode::InvalidBlock, "/agents/10", "x"));
        r.push(Issue::error(IssueCode::InvalidAgent, "/agents/2", "x"));
        r.push(Issue::error(IssueCode::InvalidAgent, "/agents/2", "x"));
        r.push(Issue::error(IssueCode::NonCanonicalIndex, "", "x"));
        r.push(Issue::error(IssueCode::InvalidAgent, "/agents/10", "x"));
        r.sort();
        let got: Vec<_> = r
            .issues()
            .iter()
            .map(|i| (i.instance_path(), i.code()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("", IssueCode::NonCanonicalIndex),
                ("/agents/2", IssueCode::InvalidAgent),
                ("/agents/10", IssueCode::InvalidAgent),
                ("/agents/10", IssueCode::InvalidBlock)
            ]
        );
    }

    #[test]
    fn under_prefixes_the_pointer() {
        let i = Issue::error(IssueCode::CycleDetected, "/nodes/0", "m").under("/flows/3");
        assert_eq!(i.instance_path(), "/flows/3/nodes/0");
    }
}
