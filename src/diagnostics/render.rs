//! Human rendering of a [`Report`]: one line per issue, with line and column resolved from
//! the issue's JSON Pointer.

use super::pointer::{LineIndex, SpanMap};
use super::{Issue, IssueCode, Report};
use std::fmt::Write as _;

/// Renders `report` for `file_name` whose text is `source` (when it could be read as text):
///
/// ```text
/// index.json:41:17: error[tool-version-unresolvable] /agents/2/tools/0/version: <message>
/// ```
///
/// Without a source the position is left out (`index.json: error[…] …`). Control characters
/// from the input are escaped so a pack cannot drive the terminal.
///
/// Only the pointers of issues that need a position are looked up, in one pass over the
/// source (see [`SpanMap`]), so rendering costs time and memory linear in the file however
/// deep or wide it is. A refusal of the whole file before it was read as JSON
/// (`index-too-large`) has no position.
pub fn human(file_name: &str, source: Option<&str>, report: &Report) -> String {
    let wanted: Vec<&str> = report
        .issues()
        .iter()
        .filter(|i| explicit_position(i).is_none() && !POSITIONLESS.contains(&i.code()))
        .map(Issue::instance_path)
        .collect();
    let spans = match source {
        Some(text) if !wanted.is_empty() => Some((
            SpanMap::resolve(text, wanted.iter().copied()),
            LineIndex::new(text),
        )),
        _ => None,
    };
    let mut out = String::new();
    for issue in report.issues() {
        line(&mut out, file_name, spans.as_ref(), issue);
    }
    out
}

/// Codes of refusals that concern the whole file before it was parsed: no position.
const POSITIONLESS: &[IssueCode] = &[IssueCode::IndexTooLarge];

/// The position an issue was given (JSON syntax errors and the like).
fn explicit_position(issue: &Issue) -> Option<(usize, usize)> {
    issue.position().map(|p| (p.line, p.column))
}

fn line(out: &mut String, file: &str, spans: Option<&(SpanMap, LineIndex<'_>)>, issue: &Issue) {
    out.push_str(&sanitize(file));
    let position = explicit_position(issue).or_else(|| {
        if POSITIONLESS.contains(&issue.code()) {
            return None;
        }
        let (spans, lines) = spans?;
        spans
            .offset(issue.instance_path())
            .map(|o| lines.line_col(o))
    });
    if let Some((l, c)) = position {
        let _ = write!(out, ":{l}:{c}");
    }
    let _ = write!(
        out,
        ": {}[{}] ",
        issue.severity(),
        sanitize(issue.code().as_str())
    );
    if issue.instance_path().is_empty() {
        // The root pointer is "" in every output, as RFC 6901 writes it ("/" is the key "").
        out.push_str("\"\"");
    } else {
        out.push_str(&sanitize(issue.instance_path()));
    }
    out.push_str(": ");
    out.push_str(&sanitize(issue.message()));
    out.push('\n');
}

/// Escapes control characters (including newlines) so one issue stays on one line.
pub fn sanitize(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_line_and_column_from_pointer() {
        let text = "{\n  \"agents\": [\n    {\"id\": 1}\n  ]\n}\n";
        let mut r = Report::new();
        r.push(Issue::error(
            IssueCode::InvalidShape,
            "/agents/0/id",
            "must be string",
        ));
        r.push(Issue::warning(
            IssueCode::NonCanonicalIndex,
            "",
            "keys\nnot sorted",
        ));
        assert_eq!(
            human("index.json", Some(text), &r),
            "index.json:3:12: error[invalid-shape] /agents/0/id: must be string\n\
             index.json:1:1: warning[non-canonical-index] \"\": keys\\nnot sorted\n"
        );
    }

    #[test]
    fn explicit_line_params_win_and_missing_source_omits_position() {
        let mut r = Report::new();
        r.push(Issue::error(IssueCode::JsonSyntax, "", "EOF while parsing").with_position(7, 3));
        assert_eq!(
            human("x.json", None, &r),
            "x.json:7:3: error[json-syntax] \"\": EOF while parsing\n"
        );
        let mut r = Report::new();
        r.push(Issue::error(IssueCode::IoError, "", "gone"));
        assert_eq!(
            human("x.json", None, &r),
            "x.json: error[io-error] \"\": gone\n"
        );
    }
}
