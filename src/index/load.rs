//! Bytes → [`PackIndex`], collecting every problem.

use super::limits::Limits;
use super::limits::first_too_deep;
use super::model::{Indexed, LISTS, PackIndex, RejectedEntry, kind_of_list, raw_list};
use super::parse::{PARALLEL_MIN_BYTES, RepeatedKey, parse_document};
use super::typed::FromDocument;
use super::wire::Env;
use crate::diagnostics::IssueCode;
use crate::diagnostics::{Issue, Report, Severity};
use crate::schema::issue_from_error;
use rayon::prelude::*;
use serde_json::Value;
use std::sync::OnceLock;

/// What [`load`] found.
#[derive(Debug)]
pub struct Loaded<'a> {
    /// The file's text, when it is UTF-8.
    pub text: Option<&'a str>,
    /// The parsed JSON document, when it parsed.
    pub document: Option<Value>,
    /// The typed index, when the envelope is usable (`v` is 1 and the top level is an
    /// object). Entries with shape problems are left out.
    pub index: Option<PackIndex>,
    /// Every problem met while loading.
    pub report: Report,
}

/// The shape schema split for parallel checking: the envelope (lists only as arrays) and one
/// validator per entry kind, all built once from runstart's own pack index schema.
struct ShapeValidators {
    envelope: jsonschema::Validator,
    /// `(list name, validator for one entry)`, in [`LISTS`] order.
    entries: Vec<(&'static str, jsonschema::Validator)>,
}

fn build(schema: &Value) -> jsonschema::Validator {
    crate::schema::build_validator(schema).expect("the embedded pack index schema compiles") // ok: compiled-in constant, covered by tests
}

fn shape_validators() -> &'static ShapeValidators {
    static SHAPES: OnceLock<ShapeValidators> = OnceLock::new();
    SHAPES.get_or_init(|| {
        let full: Value = serde_json::from_str(include_str!("pack-index.schema.json"))
            .expect("the embedded pack index schema is valid JSON"); // ok: compiled-in constant, covered by tests
        let defs = full.get("$defs").cloned().unwrap_or(Value::Null);
        let mut envelope = full.clone();
        let mut entries = Vec::new();
        for list in LISTS {
            if let Some(prop) = envelope.pointer_mut(&format!("/properties/{list}")) {
                *prop = serde_json::json!({"type": "array"});
            }
            let kind = kind_of_list(list);
            let entry = serde_json::json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "$defs": defs,
                "$ref": format!("#/$defs/{kind}"),
            });
            entries.push((list, build(&entry)));
        }
        ShapeValidators {
            envelope: build(&envelope),
            entries,
        }
    })
}

/// Loads a pack index from the bytes of `index.json`.
///
/// Never panics and never stops at the first problem: a document that parses is checked in
/// full against the entry shapes of pack index 1.7.0, and every violation becomes an issue
/// (Ajv-shaped, code `invalid-shape`). Loading stops early only where nothing more can be
/// said: bytes that are not UTF-8 (`invalid-utf8`), text that is not JSON (`json-syntax`,
/// with `line` and `column` in `params`), or an envelope `v` other than 1
/// (`envelope-version`, message `Index envelope v<v> is not v1`).
///
/// # Examples
///
/// ```
/// let loaded = runstart::index::load(br#"{"v": 2}"#);
/// assert_eq!(loaded.report.issues()[0].message(), "Index envelope v2 is not v1");
/// assert!(loaded.index.is_none());
/// ```
pub fn load(bytes: &[u8]) -> Loaded<'_> {
    load_with(bytes, &Limits::default())
}

/// [`load`] with explicit [`Limits`]. A file over the size limit is refused before it is
/// read as text (`index-too-large`); JSON nested deeper than the limit is refused before it is
/// parsed (`json-too-deep`); a list with too many entries is refused before its entries are
/// checked (`too-many-entries`).
pub fn load_with<'a>(bytes: &'a [u8], limits: &Limits) -> Loaded<'a> {
    let (mut loaded, indexable) = read(bytes, limits);
    if let (true, Some(document)) = (indexable, &loaded.document) {
        loaded.index = Some(index_document(document, &mut loaded.report));
    }
    loaded
}

/// The first step of [`load_with`]: the text and the JSON document, with their issues and the
/// envelope's (size, depth, list sizes, `v`), and whether the document is a pack index whose
/// entries [`index_document`] can check. Deploy validation runs the second step beside its
/// whole-file checks.
pub(crate) fn read<'a>(bytes: &'a [u8], limits: &Limits) -> (Loaded<'a>, bool) {
    let mut report = Report::new();
    let text = match text_of(bytes, limits) {
        Ok(t) => t,
        Err(issue) => {
            report.push(*issue);
            let loaded = Loaded {
                text: None,
                document: None,
                index: None,
                report,
            };
            return (loaded, false);
        }
    };
    let document = match document_of(text, limits) {
        Ok((d, repeated)) => {
            report_repeated_keys(repeated, &mut report);
            d
        }
        Err(issue) => {
            report.push(*issue);
            let loaded = Loaded {
                text: Some(text),
                document: None,
                index: None,
                report,
            };
            return (loaded, false);
        }
    };
    check_list_sizes(&document, limits, &mut report);
    let indexable = !report.has_errors() && check_envelope(&document, &mut report);
    let loaded = Loaded {
        text: Some(text),
        document: Some(document),
        index: None,
        report,
    };
    (loaded, indexable)
}

/// The file as text: within the size limit, and UTF-8. The issue is boxed (here and in
/// `document_of`) so the success path of every load does not carry an issue-sized result.
fn text_of<'a>(bytes: &'a [u8], limits: &Limits) -> Result<&'a str, Box<Issue>> {
    if bytes.len() > limits.max_index_bytes() {
        return Err(Box::new(Issue::error(
            IssueCode::IndexTooLarge,
            "",
            // A capped reader stops one byte past the limit, so the size read is a lower
            // bound, not the file's size.
            format!(
                "the index is larger than the limit of {} bytes; split the pack or raise the limit",
                limits.max_index_bytes()
            ),
        )));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let valid = String::from_utf8_lossy(bytes.get(..at).unwrap_or_default());
        let (line, column) = crate::diagnostics::pointer::line_col(&valid, valid.len());
        Box::new(
            Issue::error(
                IssueCode::InvalidUtf8,
                "",
                format!("the file is not UTF-8: invalid byte sequence at byte {at}"),
            )
            .with_position(line, column),
        )
    })
}

/// `duplicate-key` for each key repeated in an object of the document.
fn report_repeated_keys(repeated: Vec<RepeatedKey>, report: &mut Report) {
    for r in repeated {
        let key = crate::diagnostics::pointer::tokens(&r.pointer)
            .pop()
            .unwrap_or_default();
        report.push(
            Issue::error(
                IssueCode::DuplicateKey,
                r.pointer,
                format!(
                    "key \"{key}\" appears {} times in this object; a JSON reader keeps only the last value, so the others are lost: remove or rename the repeats",
                    r.times
                ),
            )
            .with_param("key", key),
        );
    }
}

/// The text as a JSON document (within the depth limit, and valid JSON), with the keys
/// repeated in its objects.
fn document_of(text: &str, limits: &Limits) -> Result<(Value, Vec<RepeatedKey>), Box<Issue>> {
    let bytes = text.as_bytes();
    // The depth scan and the parse both read the whole text: on a large file, run them side
    // by side (a too-deep file still gets only the depth issue).
    let (too_deep, parsed) = if text.len() >= PARALLEL_MIN_BYTES {
        let (too_deep, parsed) = rayon::join(
            || first_too_deep(bytes, limits.max_json_depth()),
            || parse_document(text),
        );
        (too_deep, Some(parsed))
    } else {
        (first_too_deep(bytes, limits.max_json_depth()), None)
    };
    if let Some(at) = too_deep {
        let (line, column) = crate::diagnostics::pointer::line_col(text, at);
        return Err(Box::new(
            Issue::error(
                IssueCode::JsonTooDeep,
                "",
                format!(
                    "JSON nested more than {} levels deep; a pack index never needs that",
                    limits.max_json_depth()
                ),
            )
            .with_position(line, column),
        ));
    }
    parsed.unwrap_or_else(|| parse_document(text)).map_err(|e| {
        // JSON (and `JSON.parse`) has no byte order mark; serde_json only says "expected value".
        let message = if text.starts_with('\u{feff}') && e.line() == 1 && e.column() <= 1 {
            "the file starts with a byte order mark (U+FEFF), which JSON does not allow; save it as UTF-8 without one".to_owned()
        } else {
            strip_position(&e.to_string())
        };
        Box::new(
            Issue::error(
                IssueCode::JsonSyntax,
                "",
                format!("invalid JSON: {message}"),
            )
            // serde_json says column 0 when the text ends right after a newline;
            // columns are 1-based everywhere else.
            .with_position(e.line(), e.column().max(1)),
        )
    })
}

/// `too-many-entries` for each list over the limit.
fn check_list_sizes(document: &Value, limits: &Limits, report: &mut Report) {
    for list in LISTS {
        let n = raw_list(document, list).len();
        if n > limits.max_entries_per_list() {
            report.push(Issue::error(
                IssueCode::TooManyEntries,
                format!("/{list}"),
                format!(
                    "{list} has {n} entries, over the limit of {}",
                    limits.max_entries_per_list()
                ),
            ));
        }
    }
}

/// serde_json appends " at line L column C"; the issue carries those as params.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(cut) => message[..cut].to_owned(),
        None => message.to_owned(),
    }
}

/// Whether `document` is a pack index envelope (an object, `v` 1 when present); when it is
/// not, the issue that says so.
fn check_envelope(document: &Value, report: &mut Report) -> bool {
    let Some(top) = document.as_object() else {
        report.push(
            Issue::error(
                IssueCode::InvalidShape,
                "",
                "the pack index must be a JSON object",
            )
            .with_keyword("type")
            .with_schema_path("#/type")
            .with_param("type", "object"),
        );
        return false;
    };
    if let Some(v) = top.get("v") {
        // JSON's `1.0` is the number 1, as for Ajv's `const`.
        if v.as_f64() != Some(1.0) {
            report.push(
                Issue::error(
                    IssueCode::EnvelopeVersion,
                    "/v",
                    format!("Index envelope v{v} is not v1"),
                )
                .with_keyword("const")
                .with_schema_path("#/properties/v/const")
                .with_param("allowedValue", 1),
            );
            return false;
        }
    }
    true
}

/// The typed index of `document`, a pack index envelope (see [`read`]): every entry checked
/// against its shape (the issues into `report`), and typed when its shape is valid.
pub(crate) fn index_document(document: &Value, report: &mut Report) -> PackIndex {
    let shapes = shape_validators();
    report.extend(
        shapes
            .envelope
            .iter_errors(document)
            .map(|e| issue_from_error(&e, "", IssueCode::InvalidShape)),
    );
    // Entries are independent: check them in parallel, keeping file order.
    let mut shape_issues: Vec<(&'static str, Vec<Vec<Issue>>)> = Vec::new();
    for (list, validator) in &shapes.entries {
        let issues: Vec<Vec<Issue>> = raw_list(document, list)
            .par_iter()
            .enumerate()
            .map(|(i, entry)| {
                let base = format!("/{list}/{i}");
                validator
                    .iter_errors(entry)
                    // Schema paths come out as in the whole index schema (`#/$defs/tool/…`).
                    .map(|e| issue_from_error(&e, &base, IssueCode::InvalidShape))
                    .collect()
            })
            .collect();
        report.extend(issues.iter().flatten().cloned());
        shape_issues.push((list, issues));
    }
    let mut rejected = Vec::new();
    let mut warnings = Vec::new();
    let shapes_of = |list: &str| {
        shape_issues
            .iter()
            .find(|(l, _)| *l == list)
            .map_or(&[][..], |(_, issues)| issues.as_slice())
    };
    let mut out = Typed {
        rejected: &mut rejected,
        warnings: &mut warnings,
        report,
    };
    let tools = entries(document, "tools", shapes_of("tools"), &mut out);
    let guardrails = entries(document, "guardrails", shapes_of("guardrails"), &mut out);
    let agents = entries(document, "agents", shapes_of("agents"), &mut out);
    let blocks = entries(document, "blocks", shapes_of("blocks"), &mut out);
    let flows = entries(document, "flows", shapes_of("flows"), &mut out);
    PackIndex {
        pack_id: string_field(document, "packId"),
        pack_version: string_field(document, "packVersion"),
        artifact_version: string_field(document, "artifactVersion"),
        published_at: string_field(document, "publishedAt"),
        tools,
        guardrails,
        agents,
        flows,
        blocks,
        env: document
            .get("env")
            .and_then(|e| serde_json::from_value::<Env>(e.clone()).ok()),
        rejected,
        warnings,
    }
}

fn string_field(document: &Value, name: &str) -> String {
    document
        .get(name)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// An entry with no typed form, and whether its issues go into the load report.
type Rejection = (Box<RejectedEntry>, bool);

/// Where typing the entry lists puts what is not a typed entry.
struct Typed<'a> {
    rejected: &'a mut Vec<RejectedEntry>,
    warnings: &'a mut Vec<Issue>,
    report: &'a mut Report,
}

/// What loading makes of one entry: its typed form with the warnings of its checks, or its
/// rejection.
type Typing<T> = Result<(Indexed<T>, Vec<Issue>), Rejection>;

/// Entries of `list` whose shape deserializes and whose checks ([`FromDocument::checks`])
/// find no error. Each other one goes to `rejected` with its shape issues (`shapes`, by
/// entry) and its checks' errors; one the shape check passed but the typed model refuses
/// gets an issue of its own, so no entry is ever dropped without one. That issue goes into
/// the report too; the checks' errors (a flow's) do not, as deploy validation reports them
/// with the checks of the entries loading could not type. The checks' warnings go to
/// `out.warnings`, in file order.
fn entries<T: FromDocument + Send>(
    document: &Value,
    list: &'static str,
    shapes: &[Vec<Issue>],
    out: &mut Typed<'_>,
) -> Vec<Indexed<T>> {
    let typed: Vec<Typing<T>> = raw_list(document, list)
        .par_iter()
        .enumerate()
        .map(|(index, raw)| {
            let shape = shapes.get(index).cloned().unwrap_or_default();
            let shape_failed = !shape.is_empty();
            let (errors, checked): (Vec<Issue>, Vec<Issue>) = T::checks(raw, index)
                .into_iter()
                .partition(|i| i.severity() == Severity::Error);
            if !errors.is_empty() {
                let mut issues = shape;
                issues.extend(errors);
                return Err((Box::new(rejected_entry(raw, list, index, issues)), false));
            }
            match type_entry(raw, list, index, shape) {
                Ok(entry) => Ok((entry, checked)),
                Err(r) if shape_failed => Err((r, false)),
                Err(mut r) => {
                    let refusal = T::refusal(raw, index);
                    let reported_here = refusal.is_empty();
                    if !reported_here {
                        r.issues = refusal;
                    }
                    Err((r, reported_here))
                }
            }
        })
        .collect();
    let mut list = Vec::with_capacity(typed.len());
    for result in typed {
        match result {
            Ok((entry, checked)) => {
                list.push(entry);
                out.warnings.extend(checked);
            }
            Err((r, reported_here)) => {
                if reported_here {
                    out.report.extend(r.issues.iter().cloned());
                }
                out.rejected.push(*r);
            }
        }
    }
    list
}

/// Entry `index` of `list` in its typed form, or, when it has none, the rejected entry with
/// `shape_issues` (what the shape check found) or, when those are empty, an issue that says
/// why the typed model refuses it.
fn type_entry<T: FromDocument>(
    raw: &Value,
    list: &'static str,
    index: usize,
    shape_issues: Vec<Issue>,
) -> Result<Indexed<T>, Box<RejectedEntry>> {
    T::from_document(raw)
        .map(|entry| Indexed { index, entry })
        .map_err(|why| {
            let mut issues = shape_issues;
            if issues.is_empty() {
                // At the field serde stopped at, when it can be told.
                let (at, why) = T::locate(raw).unwrap_or_else(|| (String::new(), why.to_string()));
                issues.push(Issue::error(
                    IssueCode::InvalidShape,
                    format!("/{list}/{index}{at}"),
                    format!(
                        "not {} {} entry: {why}",
                        if list == "agents" { "an" } else { "a" },
                        kind_of_list(list)
                    ),
                ));
            }
            Box::new(rejected_entry(raw, list, index, issues))
        })
}

/// Entry `index` of `list` rejected with `issues` (at least one): what it has no typed
/// form for.
fn rejected_entry(
    raw: &Value,
    list: &'static str,
    index: usize,
    issues: Vec<Issue>,
) -> RejectedEntry {
    let field = |name: &str| raw.get(name).and_then(Value::as_str).map(str::to_owned);
    RejectedEntry {
        list,
        index,
        id: field("id"),
        version: field("version"),
        module_path: field("modulePath"),
        check_module_path: field("checkModulePath"),
        issues,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(bytes: &[u8]) -> Vec<(String, String)> {
        load(bytes)
            .report
            .issues()
            .iter()
            .map(|i| (i.code().to_string(), i.instance_path().to_owned()))
            .collect()
    }

    #[test]
    fn a_byte_order_mark_is_named() {
        let loaded = load(b"\xef\xbb\xbf{\"v\": 1}");
        let issue = &loaded.report.issues()[0];
        assert_eq!(issue.code(), IssueCode::JsonSyntax);
        assert_eq!(
            issue.message(),
            "invalid JSON: the file starts with a byte order mark (U+FEFF), which JSON does not allow; save it as UTF-8 without one"
        );
    }

    #[test]
    fn a_file_ending_after_a_newline_reports_column_1() {
        let loaded = load(b"{\n");
        let issue = &loaded.report.issues()[0];
        assert_eq!(issue.code(), IssueCode::JsonSyntax);
        assert_eq!(issue.params().get("line"), Some(&serde_json::json!(2)));
        assert_eq!(issue.params().get("column"), Some(&serde_json::json!(1)));
    }

    #[test]
    fn embedded_schema_compiles() {
        assert_eq!(shape_validators().entries.len(), 5);
    }

    #[test]
    fn invalid_utf8_is_an_issue_with_position() {
        let loaded = load(b"{\n  \"a\": \"\xff\"}");
        let issue = &loaded.report.issues()[0];
        assert_eq!(issue.code(), IssueCode::InvalidUtf8);
        assert_eq!(issue.params()["line"], 2);
        assert_eq!(issue.params()["column"], 9);
    }

    #[test]
    fn truncated_json_names_line_and_column() {
        let loaded = load(b"{\n  \"v\": 1,\n  \"tools\": [");
        let issue = &loaded.report.issues()[0];
        assert_eq!(issue.code(), IssueCode::JsonSyntax);
        assert_eq!(issue.params()["line"], 3);
        assert_eq!(issue.message(), "invalid JSON: EOF while parsing a list");
    }

    #[test]
    fn envelope_v2_is_refused() {
        assert_eq!(
            codes(br#"{"v":2}"#),
            vec![(IssueCode::EnvelopeVersion.to_string(), "/v".into())]
        );
        assert_eq!(
            load(br#"{"v":"1"}"#).report.issues()[0].message(),
            r#"Index envelope v"1" is not v1"#
        );
    }

    #[test]
    fn shapes_are_all_reported() {
        let doc = br#"{"v":1,"packId":"p","packVersion":"1","artifactVersion":"a",
            "publishedAt":"yesterday","tools":[{"id":"t","input":{},"output":{},"extra":1}],
            "guardrails":[],"agents":[{"id":"a"}],"flows":[]}"#;
        let got = codes(doc);
        assert!(
            got.contains(&(IssueCode::InvalidShape.to_string(), "/publishedAt".into())),
            "{got:?}"
        );
        assert!(
            got.contains(&(IssueCode::InvalidShape.to_string(), "/tools/0".into())),
            "{got:?}"
        );
        assert!(
            got.contains(&(IssueCode::InvalidShape.to_string(), "/agents/0".into())),
            "{got:?}"
        );
        let loaded = load(doc);
        let index = loaded.index.expect("envelope is usable");
        assert!(
            index.tools.is_empty(),
            "a tool with an unknown field is left out"
        );
        assert!(index.agents.is_empty());
    }

    #[test]
    fn limits_refuse_hostile_sizes() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let loaded = load(deep.as_bytes());
        assert_eq!(loaded.report.issues()[0].code(), IssueCode::JsonTooDeep);
        assert_eq!(loaded.report.issues()[0].params()["column"], 65);
        let small = Limits::default().with_max_index_bytes(10);
        assert_eq!(
            load_with(b"{\"v\": 1, \"x\": 2}", &small).report.issues()[0].code(),
            IssueCode::IndexTooLarge
        );
        let few = Limits::default().with_max_entries_per_list(1);
        let loaded = load_with(br#"{"v":1,"tools":[{},{}]}"#, &few);
        assert_eq!(loaded.report.issues()[0].code(), IssueCode::TooManyEntries);
        assert_eq!(loaded.report.issues()[0].instance_path(), "/tools");
    }

    #[test]
    fn top_level_must_be_an_object() {
        assert_eq!(
            codes(b"[]"),
            vec![(IssueCode::InvalidShape.to_string(), "".into())]
        );
    }
}
