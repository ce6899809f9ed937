//! `validate --format sarif` (SARIF 2.1.0, as GitHub code scanning reads it) and
//! `--format github` (workflow command annotations).

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use runstart::diagnostics::pointer::{LineIndex, SpanMap};
use runstart::diagnostics::{Issue, Severity};
use serde_sarif::sarif;
use std::collections::BTreeSet;

/// One validated file: its name, its text when it is UTF-8, and its issues.
pub struct FileIssues<'a> {
    pub file: &'a str,
    pub text: Option<&'a str>,
    pub issues: &'a [Issue],
}

/// 1-based line and column (in chars) of each issue, as the human output gives them:
/// explicit `line`/`column` params (syntax errors) first, else the issue's JSON Pointer
/// resolved in the text.
pub fn positions(f: &FileIssues<'_>) -> Vec<Option<(usize, usize)>> {
    let spans = f.text.filter(|_| !f.issues.is_empty()).map(|t| {
        // Only the pointers issues name are resolved (linear in the file).
        let wanted = f.issues.iter().map(Issue::instance_path);
        (SpanMap::resolve(t, wanted), LineIndex::new(t))
    });
    f.issues
        .iter()
        .map(|issue| {
            let explicit = issue.params().get("line").and_then(|l| {
                let c = issue.params().get("column")?.as_u64()?;
                Some((usize::try_from(l.as_u64()?).ok()?, usize::try_from(c).ok()?))
            });
            explicit.or_else(|| {
                let (spans, lines) = spans.as_ref()?;
                spans
                    .offset(issue.instance_path())
                    .map(|o| lines.line_col(o))
            })
        })
        .collect()
}

/// A file path as a SARIF `uri`, a URI reference (RFC 3986): forward slashes, and every byte
/// but the unreserved characters and `/` percent-encoded, so `#`, `?`, a `:` that would read
/// as a scheme and non-ASCII names all stay part of the path.
fn uri(file: &str) -> String {
    const PATH: &AsciiSet = &NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~')
        .remove(b'/');
    utf8_percent_encode(&file.replace('\\', "/"), PATH).to_string()
}

fn int(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The SARIF 2.1.0 log of a validation run: one run, tool `runstart`, one rule per issue code,
/// one result per issue with the file, line and column (physical location) and the JSON
/// Pointer (logical location, `fullyQualifiedName`; the root is `""`).
pub fn log(files: &[FileIssues<'_>]) -> sarif::Sarif {
    let codes: BTreeSet<&str> = files
        .iter()
        .flat_map(|f| f.issues.iter().map(|i| i.code().as_str()))
        .collect();
    let rules: Vec<sarif::ReportingDescriptor> = codes
        .iter()
        .map(|code| sarif::ReportingDescriptor::builder().id(*code).build())
        .collect();
    let mut results = Vec::new();
    for f in files {
        for (issue, position) in f.issues.iter().zip(positions(f)) {
            let artifact = sarif::ArtifactLocation::builder().uri(uri(f.file)).build();
            let physical = match position {
                Some((line, column)) => sarif::PhysicalLocation::builder()
                    .artifact_location(artifact)
                    .region(
                        sarif::Region::builder()
                            .start_line(int(line))
                            .start_column(int(column))
                            .build(),
                    )
                    .build(),
                None => sarif::PhysicalLocation::builder()
                    .artifact_location(artifact)
                    .build(),
            };
            let logical = sarif::LogicalLocation::builder()
                .fully_qualified_name(issue.instance_path())
                .kind("value")
                .build();
            let location = sarif::Location::builder()
                .physical_location(physical)
                .logical_locations(vec![logical])
                .build();
            let level = match issue.severity() {
                Severity::Error => sarif::ResultLevel::Error,
                Severity::Warning => sarif::ResultLevel::Warning,
            };
            let pointer = if issue.instance_path().is_empty() {
                "\"\""
            } else {
                issue.instance_path()
            };
            results.push(
                sarif::Result::builder()
                    .rule_id(issue.code().as_str())
                    .level(level)
                    .message(
                        sarif::Message::builder()
                            .text(format!("{pointer}: {}", issue.message()))
                            .build(),
                    )
                    .locations(vec![location])
                    .build(),
            );
        }
    }
    let driver = sarif::ToolComponent::builder()
        .name("runstart")
        .version(env!("CARGO_PKG_VERSION"))
        .rules(rules)
        .build();
    let run = sarif::Run::builder()
        .tool(sarif::Tool::builder().driver(driver).build())
        .results(results)
        // Columns count characters, as runstart's human output does.
        .column_kind(serde_json::json!("unicodeCodePoints"))
        .build();
    sarif::Sarif::builder()
        .schema(sarif::SCHEMA_URL)
        .version(serde_json::json!("2.1.0"))
        .runs(vec![run])
        .build()
}

/// Escapes a workflow command's message (`%`, CR, LF).
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command property (`data` plus `:` and `,`).
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One GitHub Actions annotation per issue:
/// `::error file=F,line=L,col=C,title=CODE::POINTER: MESSAGE`.
pub fn github(files: &[FileIssues<'_>]) -> String {
    let mut out = String::new();
    for f in files {
        for (issue, position) in f.issues.iter().zip(positions(f)) {
            let command = match issue.severity() {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            let at = position
                .map(|(l, c)| format!(",line={l},col={c}"))
                .unwrap_or_default();
            let pointer = if issue.instance_path().is_empty() {
                "\"\""
            } else {
                issue.instance_path()
            };
            out.push_str(&format!(
                "::{command} file={}{at},title={}::{}\n",
                property(f.file),
                property(issue.code().as_str()),
                data(&format!("{pointer}: {}", issue.message()))
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::uri;

    #[test]
    fn a_file_name_is_one_uri_path() {
        assert_eq!(uri("packs/acme/index.json"), "packs/acme/index.json");
        assert_eq!(uri("a b%.json"), "a%20b%25.json");
        assert_eq!(uri("a#b.json"), "a%23b.json");
        assert_eq!(uri("a,b:c?.json"), "a%2Cb%3Ac%3F.json");
        assert_eq!(uri("packs\\é.json"), "packs/%C3%A9.json");
        assert_eq!(uri("/abs/x~y_z-1.json"), "/abs/x~y_z-1.json");
    }
}
