//! A tool entry as a deploy validates it: as a tool manifest (flows.md §3.3, deploy step 4),
//! which asks more of it than the pack index's own shape does. The index lets `description`
//! and `version` out (an indexer's input may lack them), takes any semver version and leaves
//! `spec` and `needsSpec` open; the manifest (`tool.schema.json` 1.1.0) requires both fields,
//! the version plain `major.minor.patch`, and gives `spec` and `needsSpec` their shapes, and
//! `defineTool` adds a reserved id prefix, an http spec's URL template rules and strict
//! compilation of `needsSpec.secrets` schemas. Every rule here is an
//! [`IssueCode::InvalidToolDefinition`] error, upstream's code for them.

use crate::diagnostics::{Issue, IssueCode};
use crate::index::Indexed;
use crate::index::wire::Tool;
use crate::schema::CompiledSchema;
use serde_json::{Value, json};
use std::sync::OnceLock;

/// Tool ids with this prefix are the runtime's own.
const BUILT_IN_TOOL_PREFIX: &str = "kindgi_";

/// Every rule of the tool manifest that `tool` breaks: required fields, the version's form,
/// the id's prefix, the shapes of `spec` and `needsSpec`, then (on a `spec` of that shape) the
/// URL template and (on a `needsSpec` of that shape) the secrets' schemas.
pub(super) fn check(tool: &Indexed<Tool>) -> Vec<Issue> {
    let base = format!("/tools/{}", tool.index);
    let entry = &tool.entry;
    let mut out = Vec::new();
    let problem = |path: String, message: String| {
        Issue::error(IssueCode::InvalidToolDefinition, path, message)
    };
    for (field, value) in [
        ("description", entry.description.as_deref()),
        ("version", entry.version.as_deref()),
    ] {
        match value {
            None => out.push(problem(
                base.clone(),
                format!(
                    "tool \"{}\" must have required property '{field}': a deploy validates each tool as a tool manifest (tool.schema.json), which requires it",
                    entry.id
                ),
            )),
            Some("") if field == "description" => out.push(problem(
                format!("{base}/description"),
                format!(
                    "tool \"{}\" must have a description that is not empty: the model reads it to decide when to call the tool",
                    entry.id
                ),
            )),
            Some(_) => {}
        }
    }
    if let Some(version) = entry.version.as_deref()
        && !is_plain_version(version)
        // A version that is not semver at all has its own issue (`invalid-shape`).
        && crate::range::parse_version(version).is_some()
    {
        out.push(problem(
            format!("{base}/version"),
            format!(
                "tool \"{}\" version \"{version}\" must be plain major.minor.patch (tool.schema.json: ^\\d+\\.\\d+\\.\\d+$); a deploy refuses a prerelease, build metadata and a leading \"v\"",
                entry.id
            ),
        ));
    }
    if entry.id.starts_with(BUILT_IN_TOOL_PREFIX) {
        out.push(problem(
            format!("{base}/id"),
            format!(
                "Tool id \"{}\": the prefix \"{BUILT_IN_TOOL_PREFIX}\" is reserved for tools built into Kindgi. Name pack tools \"<pack>.<tool>\".",
                entry.id
            ),
        ));
    }
    let shape = shape_problems(entry, &base);
    let spec_fits = !shape
        .iter()
        .any(|i| i.instance_path().starts_with(&format!("{base}/spec")));
    let needs_fit = !shape
        .iter()
        .any(|i| i.instance_path().starts_with(&format!("{base}/needsSpec")));
    out.extend(shape);
    if spec_fits && let Some(why) = entry.spec.as_ref().and_then(http_url_template_problem) {
        out.push(problem(
            format!("{base}/spec/urlTemplate"),
            format!("Tool \"{}\" spec.urlTemplate {why}", entry.id),
        ));
    }
    if needs_fit {
        out.extend(secret_need_problems(entry, &base));
    }
    out
}

/// The shapes `tool.schema.json` gives a tool's `spec` (an http spec, the one kind there is)
/// and `needsSpec`, which the pack index leaves open: Ajv's errors under `base`.
fn shape_problems(entry: &Tool, base: &str) -> Vec<Issue> {
    let mut instance = serde_json::Map::new();
    if let Some(spec) = &entry.spec {
        instance.insert("spec".into(), spec.clone());
    }
    if let Some(needs) = &entry.needs_spec {
        instance.insert("needsSpec".into(), needs.clone());
    }
    if instance.is_empty() {
        return Vec::new();
    }
    manifest_parts_schema().issues(
        &Value::Object(instance),
        base,
        IssueCode::InvalidToolDefinition,
    )
}

/// `tool.schema.json`'s rules for `spec` and `needsSpec` (schema-version 1.1.0), with its
/// `$defs` names so that schema paths read as upstream's; compiled once per process.
fn manifest_parts_schema() -> &'static CompiledSchema {
    static SCHEMA: OnceLock<CompiledSchema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let closed = |required: &[&str], properties: Value| {
            json!({"type": "object", "additionalProperties": false, "required": required,
                "properties": properties})
        };
        let names = json!({"type": "array", "items": {"type": "string", "minLength": 1}});
        let schemas_by_name = json!({"type": "object", "additionalProperties": {"type": "object"}});
        let schema = json!({
            "type": "object",
            "properties": {
                "spec": {"oneOf": [{"$ref": "#/$defs/HttpToolSpec"}]},
                "needsSpec": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "env": schemas_by_name, "secrets": schemas_by_name,
                        "config": schemas_by_name, "capabilities": names, "bindings": names
                    }
                }
            },
            "$defs": {
                "HttpToolSpec": closed(&["kind", "method", "urlTemplate"], json!({
                    "kind": {"const": "http"},
                    "method": {"type": "string", "enum": ["GET", "POST", "PUT", "PATCH", "DELETE"]},
                    "urlTemplate": {"type": "string", "minLength": 1},
                    "headers": {"type": "array", "items": {"$ref": "#/$defs/HttpHeaderSpec"}},
                    "authorization": {"$ref": "#/$defs/HttpAuthSpec"},
                    "requestBody": {"$ref": "#/$defs/HttpRequestBodySpec"},
                    "timeoutMs": {"type": "integer", "minimum": 1},
                    "parseJson": {"type": "boolean"},
                    "successStatus": closed(&["min", "max"], json!({
                        "min": {"type": "integer", "minimum": 100, "maximum": 599},
                        "max": {"type": "integer", "minimum": 100, "maximum": 599}
                    }))
                })),
                "HttpHeaderSpec": closed(&["name", "value"], json!({
                    "name": {"type": "string", "minLength": 1}, "value": {"type": "string"}
                })),
                "HttpAuthSpec": {"oneOf": [
                    closed(&["kind", "secretRef"], json!({
                        "kind": {"const": "bearer"}, "secretRef": {"$ref": "#/$defs/ToolSecretRef"}
                    })),
                    closed(&["kind", "headerName", "secretRef"], json!({
                        "kind": {"const": "header"},
                        "headerName": {"type": "string", "minLength": 1},
                        "secretRef": {"$ref": "#/$defs/ToolSecretRef"}
                    }))
                ]},
                "HttpRequestBodySpec": {"oneOf": [
                    closed(&["kind"], json!({"kind": {"const": "json-input"}})),
                    closed(&["kind"], json!({"kind": {"const": "input-passthrough"}})),
                    closed(&["kind", "template"], json!({
                        "kind": {"const": "text"}, "template": {"type": "string"}
                    }))
                ]},
                "ToolSecretRef": closed(&["envName", "name"], json!({
                    "envName": {"type": "string", "minLength": 1},
                    "name": {"type": "string", "minLength": 1}
                }))
            }
        });
        // ok: the schema above is fixed and valid (the unit tests compile and use it).
        CompiledSchema::compile(&schema).expect("tool manifest parts schema")
    })
}

/// Each `needsSpec.secrets` schema compiles as upstream's `compileInlineSchema` compiles it
/// (strict mode). The `env` needs are [`crate::pack::compile_env_needs`]'s, with the pack
/// service's own code.
fn secret_need_problems(entry: &Tool, base: &str) -> Vec<Issue> {
    let Some(secrets) = crate::pack::needs_slot(entry, "secrets") else {
        return Vec::new();
    };
    crate::js::keys(secrets)
        .filter_map(|name| {
            let why = CompiledSchema::compile(&secrets[name.as_str()]).err()?;
            Some(Issue::error(
                IssueCode::InvalidToolDefinition,
                crate::diagnostics::pointer::join(base, &["needsSpec", "secrets", name]),
                format!(
                    "Tool \"{}\": the schema for needsSpec.secrets.{name} doesn't compile: {why}",
                    entry.id
                ),
            ))
        })
        .collect()
}

/// Whether `version` matches `^\d+\.\d+\.\d+$`: three runs of ASCII digits, nothing else.
fn is_plain_version(version: &str) -> bool {
    let parts: Vec<&str> = version.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// What is wrong with an http spec's `urlTemplate` (`None` for another kind of spec, or a
/// template that starts with `http://` or `https://`, any case, and a host without
/// placeholders). Placeholders are filled from the call's input, so one in the host would
/// let the model choose where the request goes.
fn http_url_template_problem(spec: &Value) -> Option<&'static str> {
    if spec.get("kind").and_then(Value::as_str) != Some("http") {
        return None;
    }
    let template = spec
        .get("urlTemplate")
        .and_then(Value::as_str)
        .unwrap_or("");
    let lower = template.get(..8).unwrap_or(template).to_ascii_lowercase();
    let scheme = ["https://", "http://"]
        .into_iter()
        .find(|s| lower.starts_with(s));
    let Some(scheme) = scheme else {
        return Some("must start with http:// or https:// and a host");
    };
    let rest = &template[scheme.len()..];
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    if host.contains(['{', '}']) {
        Some("fills {placeholders} in its path and query only, never in its host or port")
    } else if host.is_empty() {
        Some("must name a host")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problems(tool: Value) -> Vec<(String, String)> {
        let entry: Tool = serde_json::from_value(tool).expect("tool");
        check(&Indexed { index: 3, entry })
            .into_iter()
            .map(|i| {
                assert_eq!(i.code(), "invalid-tool-definition");
                (i.instance_path().to_owned(), i.message().to_owned())
            })
            .collect()
    }

    fn tool(extra: Value) -> Value {
        let mut t = json!({"id": "acme.echo", "description": "Echoes.", "version": "1.0.0",
            "input": {}, "output": {}, "modulePath": "tools/echo.ts"});
        for (k, v) in extra.as_object().expect("object") {
            if v.is_null() {
                t.as_object_mut().expect("object").remove(k);
            } else {
                t[k] = v.clone();
            }
        }
        t
    }

    #[test]
    fn a_manifest_needs_a_description_and_a_version() {
        assert_eq!(problems(tool(json!({}))), vec![]);
        assert_eq!(
            problems(tool(json!({"description": null, "version": null}))),
            vec![
                ("/tools/3".to_owned(), "tool \"acme.echo\" must have required property 'description': a deploy validates each tool as a tool manifest (tool.schema.json), which requires it".to_owned()),
                ("/tools/3".to_owned(), "tool \"acme.echo\" must have required property 'version': a deploy validates each tool as a tool manifest (tool.schema.json), which requires it".to_owned()),
            ]
        );
        assert_eq!(
            problems(tool(json!({"description": ""}))),
            vec![("/tools/3/description".to_owned(), "tool \"acme.echo\" must have a description that is not empty: the model reads it to decide when to call the tool".to_owned())]
        );
    }

    #[test]
    fn a_tool_version_is_plain() {
        let version = |v: &str| problems(tool(json!({"version": v})));
        for plain in ["1.0.0", "0.0.0", "10.20.30", "01.2.3"] {
            assert_eq!(version(plain), vec![], "{plain}");
        }
        for (v, shown) in [
            ("4.0.0-beta.2", "4.0.0-beta.2"),
            ("1.2.3+build.5", "1.2.3+build.5"),
            ("v1.2.3", "v1.2.3"),
        ] {
            assert_eq!(
                version(v),
                vec![(
                    "/tools/3/version".to_owned(),
                    format!(
                        "tool \"acme.echo\" version \"{shown}\" must be plain major.minor.patch (tool.schema.json: ^\\d+\\.\\d+\\.\\d+$); a deploy refuses a prerelease, build metadata and a leading \"v\""
                    )
                )]
            );
        }
        // Not semver at all: the `invalid-shape` issue of the version check says so.
        assert_eq!(version("1.2"), vec![]);
    }

    #[test]
    fn the_built_in_prefix_is_reserved() {
        assert_eq!(
            problems(tool(json!({"id": "kindgi_search"}))),
            vec![("/tools/3/id".to_owned(), "Tool id \"kindgi_search\": the prefix \"kindgi_\" is reserved for tools built into Kindgi. Name pack tools \"<pack>.<tool>\".".to_owned())]
        );
        assert_eq!(problems(tool(json!({"id": "acme.kindgi_search"}))), vec![]);
    }

    #[test]
    fn an_http_spec_names_its_host() {
        let url = |template: Value| {
            problems(tool(
                json!({"spec": {"kind": "http", "method": "GET", "urlTemplate": template}}),
            ))
            .into_iter()
            .map(|(path, message)| {
                assert_eq!(path, "/tools/3/spec/urlTemplate");
                message
            })
            .collect::<Vec<_>>()
        };
        for fine in [
            "https://api.example.com/orders/{id}",
            "HTTP://x?q={q}",
            "https://x",
            "https://user@x:8080/#{frag}",
        ] {
            assert_eq!(url(json!(fine)), Vec::<String>::new(), "{fine}");
        }
        let host = "Tool \"acme.echo\" spec.urlTemplate fills {placeholders} in its path and query only, never in its host or port";
        assert_eq!(url(json!("https://{host}/x")), vec![host]);
        assert_eq!(url(json!("http://x:{port}")), vec![host]);
        let scheme =
            "Tool \"acme.echo\" spec.urlTemplate must start with http:// or https:// and a host";
        assert_eq!(url(json!("ftp://x")), vec![scheme]);
        assert_eq!(url(json!("//x/y")), vec![scheme]);
        assert_eq!(
            url(json!("https:///x")),
            vec!["Tool \"acme.echo\" spec.urlTemplate must name a host"]
        );
        // A template that is not a string is the shape's to report, once.
        assert_eq!(
            problems(tool(
                json!({"spec": {"kind": "http", "method": "GET", "urlTemplate": 42}})
            )),
            vec![
                (
                    "/tools/3/spec/urlTemplate".to_owned(),
                    "must be string".to_owned()
                ),
                (
                    "/tools/3/spec".to_owned(),
                    "must match exactly one schema in oneOf".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn spec_and_needs_spec_have_the_manifests_shapes() {
        let spec = |spec: Value| problems(tool(json!({"spec": spec})));
        assert_eq!(
            spec(
                json!({"kind": "http", "method": "POST", "urlTemplate": "https://x/{id}",
                "headers": [{"name": "Accept", "value": "application/json"}],
                "authorization": {"kind": "bearer", "secretRef": {"envName": "TOKEN", "name": "api"}},
                "requestBody": {"kind": "json-input"}, "timeoutMs": 1000, "parseJson": true,
                "successStatus": {"min": 200, "max": 299}})
            ),
            vec![]
        );
        assert_eq!(
            spec(
                json!({"kind": "http", "method": "get", "urlTemplate": "https://x", "timeoutMs": 0})
            ),
            vec![
                (
                    "/tools/3/spec/method".to_owned(),
                    "must be equal to one of the allowed values".to_owned()
                ),
                (
                    "/tools/3/spec/timeoutMs".to_owned(),
                    "must be >= 1".to_owned()
                ),
                (
                    "/tools/3/spec".to_owned(),
                    "must match exactly one schema in oneOf".to_owned()
                ),
            ]
        );
        // Another kind of spec is not one the manifest knows.
        let sql = spec(json!({"kind": "sql", "query": "select 1"}));
        assert!(
            sql.contains(&(
                "/tools/3/spec".to_owned(),
                "must have required property 'method'".to_owned()
            )),
            "{sql:?}"
        );
        let needs = |needs: Value| problems(tool(json!({"needsSpec": needs})));
        assert_eq!(
            needs(
                json!({"env": {"A": {"type": "string"}}, "secrets": {"K": {"type": "string"}},
                "config": {"c": {}}, "capabilities": ["x"], "bindings": ["y"]})
            ),
            vec![]
        );
        assert_eq!(
            needs(json!({"capabilities": [""], "extra": 1})),
            vec![
                (
                    "/tools/3/needsSpec".to_owned(),
                    "must NOT have additional properties".to_owned()
                ),
                (
                    "/tools/3/needsSpec/capabilities/0".to_owned(),
                    "must NOT have fewer than 1 characters".to_owned()
                ),
            ]
        );
        assert_eq!(
            needs(json!({"secrets": {"K": {"type": "string", "foo": 1}}})),
            vec![(
                "/tools/3/needsSpec/secrets/K".to_owned(),
                "Tool \"acme.echo\": the schema for needsSpec.secrets.K doesn't compile: strict mode: unknown keyword: \"foo\"".to_owned()
            )]
        );
    }
}
