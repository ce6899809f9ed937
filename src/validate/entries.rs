//! Per-entry checks of the first cut: module paths in the index's form, and the JSON Schemas
//! tools and guardrails carry.

use crate::diagnostics::IssueCode;
use crate::diagnostics::{Issue, Report};
use crate::index::wire::{Guardrail, Tool};
use crate::index::{Indexed, ListHeads};
use crate::schema::{CompileOptions, CompiledSchema, check_meta};

/// Why `path` is not in the index's form (forward slashes, relative to the pack root, no
/// leading `./`), or `None` when it is.
fn module_path_problem(path: &str) -> Option<&'static str> {
    // A NUL ends the path for the C APIs that open the file: `a.ts\0../../x` names `a.ts` to
    // one program and something else to another.
    if path.contains('\0') {
        Some("contains a NUL character, which no file name may hold; remove it")
    } else if path.contains('\\') {
        Some("uses backslashes; write forward slashes")
    } else if path.starts_with("./") {
        Some("starts with `./`; write it without")
    } else if path.starts_with('/') || path.as_bytes().get(1) == Some(&b':') {
        Some("is absolute; write it relative to the pack root")
    } else if path.split('/').any(|s| s == "..") {
        Some("leaves the pack root with `..`")
    } else if path.split('/').any(|s| s.is_empty() || s == ".") {
        Some("has an empty or `.` segment")
    } else {
        None
    }
}

/// `module-path-form` at each `modulePath` and `checkModulePath` not in the index's form.
pub(super) fn check_module_paths(heads: &[ListHeads<'_>], report: &mut Report) {
    for (list, heads) in heads {
        for head in heads {
            let i = head.index;
            let fields = [
                ("modulePath", head.module_path),
                ("checkModulePath", head.check_module_path),
            ];
            for (field, path) in fields {
                let Some(path) = path else { continue };
                if path.is_empty() {
                    continue; // minLength is the shape check's
                }
                if let Some(problem) = module_path_problem(path) {
                    report.push(Issue::error(
                        IssueCode::ModulePathForm,
                        format!("/{list}/{i}/{field}"),
                        format!("{field} \"{path}\" {problem} (e.g. tools/echo/index.ts)"),
                    ));
                }
            }
        }
    }
}

/// How a schema must compile beyond the meta-schema.
#[derive(Clone, Copy)]
enum Compile {
    /// Without strict mode (a guardrail's `configSchema`, as upstream checks configs).
    Lenient,
    /// In Ajv's strict mode, as a deploy (`defineTool`) and the pack service compile a pack
    /// tool's `input` and `output`.
    Strict,
}

/// `schema` is a valid draft 2020-12 schema ([`IssueCode::InvalidSchema`](IssueCode::InvalidSchema)
/// issues otherwise) and, when it is, compiles as `how` says (one [`IssueCode::SchemaCompile`]
/// issue otherwise: an unresolvable `$ref`, a pattern no engine runs, a strict-mode rule), so
/// a schema that will never check anything does not pass silently.
fn check_schema(schema: &serde_json::Value, pointer: &str, how: Compile) -> Vec<Issue> {
    let out = check_meta(schema, pointer);
    if !out.is_empty() {
        return out;
    }
    let (compiled, how) = match how {
        Compile::Lenient => (CompiledSchema::compile_lenient_checked(schema), ""),
        Compile::Strict => (
            // `compileJsonSchema` registers no `x-kindgi-tunable`: an unknown keyword here.
            CompiledSchema::compile_with(
                schema,
                &CompileOptions::new().with_tunable_keyword(false),
            ),
            " in strict mode, as a deploy and the pack service compile a tool's schemas",
        ),
    };
    match compiled {
        Ok(_) => Vec::new(),
        Err(why) => vec![Issue::error(
            IssueCode::SchemaCompile,
            pointer,
            format!("the schema does not compile{how}: {why}"),
        )],
    }
}

/// The `input` and `output` schemas of one tool are valid draft 2020-12 schemas that compile
/// in strict mode, and its `needsSpec.env` needs compile as a pack service compiles them.
pub(super) fn check_tool_schemas(tool: &Indexed<Tool>) -> Vec<Issue> {
    let base = format!("/tools/{}", tool.index);
    let mut out = check_schema(&tool.entry.input, &format!("{base}/input"), Compile::Strict);
    out.extend(check_schema(
        &tool.entry.output,
        &format!("{base}/output"),
        Compile::Strict,
    ));
    crate::pack::compile_env_needs(&tool.entry, tool.index, &mut out);
    out
}

/// A guardrail's `configSchema`, when present, is a valid draft 2020-12 schema that compiles.
pub(super) fn check_guardrail_schema(guardrail: &Indexed<Guardrail>) -> Vec<Issue> {
    match &guardrail.entry.config_schema {
        Some(schema) => check_schema(
            schema,
            &format!("/guardrails/{}/configSchema", guardrail.index),
            Compile::Lenient,
        ),
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_path_forms() {
        assert_eq!(module_path_problem("tools/echo/index.ts"), None);
        assert_eq!(module_path_problem("ledger.py"), None);
        assert!(module_path_problem("./tools/a.ts").is_some());
        assert!(module_path_problem("/abs/a.ts").is_some());
        assert!(module_path_problem("C:/a.ts").is_some());
        assert!(module_path_problem("tools\\a.ts").is_some());
        assert!(module_path_problem("../a.ts").is_some());
        assert!(module_path_problem("a//b.ts").is_some());
        assert_eq!(
            module_path_problem("tools/a.ts\0../../etc/passwd"),
            Some("contains a NUL character, which no file name may hold; remove it")
        );
    }
}
