//! The CLI fails closed on bad input and speaks one vocabulary (issue 17): each test gives the
//! failing input and the exact answer.

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn runstart(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_runstart"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the runstart binary runs")
}

fn with_stdin(args: &[&str], input: Vec<u8>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_runstart"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    let mut pipe = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("finishes");
    writer.join().expect("writer");
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch directory removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("runstart-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        Scratch(dir)
    }

    fn file(&self, name: &str, content: &[u8]) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, content).expect("write");
        path.to_str().expect("UTF-8 path").to_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Compares `actual` with a golden file under tests/golden, or rewrites it when
/// `UPDATE_GOLDEN=1`.
#[track_caller]
fn assert_golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1") {
        std::fs::write(&path, actual).expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read golden {}: {e}", path.display()));
    assert_eq!(actual, expected, "output differs from {}", path.display());
}

const POLICY_FIELDS: &str = "expected one of \"tenantId\", \"providers\", \"models\", \"regionAllow\", \"maxCostPerCallUsd\", \"maxTokensPerCall\"";

#[test]
fn the_misspelt_policy_is_refused_by_route_and_plan() {
    let dir = Scratch::new("policy");
    let providers = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/providers.json"),
    )
    .expect("providers");
    let input = format!(
        r#"{{"capability":{{"needs":[]}},"providers":{providers},"tenantPolicy":{{"deniedProviders":["anthropic-eu"]}}}}"#
    );
    let file = dir.file("route.json", input.as_bytes());
    let out = runstart(&["route", "--input", &file]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    // The file, the line and column of the field, its pointer and what is allowed.
    assert_eq!(
        stderr(&out),
        format!(
            "runstart: {file}:120:34: /tenantPolicy/deniedProviders: unknown field; {POLICY_FIELDS}\n"
        )
    );
    // The same policy given to plan.
    let policy = dir.file("policy.json", br#"{"deniedProviders": ["anthropic-eu"]}"#);
    let out = runstart(&[
        "plan",
        "fixtures/packs/support-desk/index.json",
        "--providers",
        "fixtures/providers.json",
        "--agent",
        "support.escalation-writer",
        "--param",
        "ticketId=T-17",
        "--policy",
        &policy,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!("runstart: {policy}:1:18: /deniedProviders: unknown field; {POLICY_FIELDS}\n")
    );
}

#[test]
fn a_misspelt_need_key_is_an_input_error_not_an_unsatisfiable_route() {
    let dir = Scratch::new("need");
    let file = dir.file(
        "route.json",
        br#"{"capability":{"needs":[{"feture":"tool-use"}]},"providers":[]}"#,
    );
    let out = runstart(&["route", "--input", &file]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "runstart: {file}:1:33: /capability/needs/0/feture: unknown field; expected one of \"feature\", \"contextWindow\", \"costPerCall\", \"region\", \"p95LatencyMs\", \"providers\", \"models\" (did you mean \"feature\"?)\n"
        )
    );
}

#[test]
fn route_jsonl_answers_every_line_with_one_error_shape() {
    let ok = r#"{"capability":{"needs":[]},"providers":[{"id":"p","region":"eu","models":[{"name":"m","contextWindow":1000,"features":[],"cost":{"promptUsdPer1kTokens":0.001,"completionUsdPer1kTokens":0.002}}]}]}"#;
    let mut input = Vec::new();
    input.extend_from_slice(b"\n");
    input.extend_from_slice(b"{\"capability\":{\"needs\":[]},\"providers\":[],\"tenantPolicy\":{\"deniedProviders\":[]}}\n");
    input.extend_from_slice(b"{\"capability\": \xff}\n");
    input.extend_from_slice(format!("{ok}\n").as_bytes());
    let out = with_stdin(&["route", "--jsonl"], input);
    assert_eq!(out.status.code(), Some(2));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 4, "every line answered");
    assert_eq!(
        lines[0],
        json!({"error": {"code": "blank-line", "message": "line 1 is blank; send one JSON value per line", "line": 1}})
    );
    assert_eq!(
        lines[1],
        json!({"error": {"code": "invalid-input", "message": format!("line 2: /tenantPolicy/deniedProviders: unknown field; {POLICY_FIELDS}"), "line": 2}})
    );
    assert_eq!(
        lines[2],
        json!({"error": {"code": "invalid-utf8", "message": "line 3 is not UTF-8 (invalid byte at offset 15); send UTF-8 JSON", "line": 3}})
    );
    assert_eq!(lines[3]["ok"]["providerId"], "p", "processing goes on");
    assert_eq!(lines[3]["ok"]["model"], "m");
}

#[test]
fn jsonl_line_length_is_capped_without_buffering_the_line() {
    // A 64 MiB line against a 1 KiB cap: answered `line-too-long`, the next line still routed.
    let ok = r#"{"capability":{"needs":[]},"providers":[]}"#;
    let mut input = vec![b' '; 64 << 20];
    input.push(b'\n');
    input.extend_from_slice(ok.as_bytes());
    input.push(b'\n');
    let out = with_stdin(&["route", "--jsonl", "--max-line-bytes", "1024"], input);
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        r#"{"error":{"code":"line-too-long","message":"line 1 is longer than 1024 bytes and was skipped; raise --max-line-bytes or send less","line":1}}"#
    );
    assert!(
        lines[1].starts_with(r#"{"err":{"code":"capability-unsatisfiable""#),
        "{}",
        lines[1]
    );
    // template --jsonl: the same for a long line and a line that is not UTF-8.
    let mut input = Vec::new();
    input.extend_from_slice(format!("\"{}\"\n", "x".repeat(5000)).as_bytes());
    input.extend_from_slice(b"\"caf\xe9\"\n\n42\n\"{{ a }}\"\n");
    let out = with_stdin(&["template", "--jsonl", "--max-line-bytes", "4096"], input);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stdout(&out),
        "{\"error\":{\"code\":\"line-too-long\",\"message\":\"line 1 is longer than 4096 bytes and was skipped; raise --max-line-bytes or send less\",\"line\":1}}\n\
         {\"error\":{\"code\":\"invalid-utf8\",\"message\":\"line 2 is not UTF-8 (invalid byte at offset 4); send UTF-8 JSON\",\"line\":2}}\n\
         {\"error\":{\"code\":\"blank-line\",\"message\":\"line 3 is blank; send one JSON value per line\",\"line\":3}}\n\
         {\"error\":{\"code\":\"invalid-input\",\"message\":\"line 4 is not a JSON string; send each template as one JSON string, like \\\"Hi {{ name }}\\\"\",\"line\":4}}\n\
         {\"parseError\":null,\"globals\":[[\"a\"]]}\n"
    );
}

fn plan(extra: &[&str]) -> Output {
    let mut args = vec![
        "plan",
        "fixtures/packs/support-desk/index.json",
        "--providers",
        "fixtures/providers.json",
        "--agent",
        "support.escalation-writer",
        "--now",
        "2026-11-30T09:00:00.000Z",
    ];
    args.extend_from_slice(extra);
    runstart(&args)
}

#[test]
fn plan_checks_parameter_types_and_names() {
    let out = plan(&["--param", "ticketId=T-17", "--param", "maxWords=lots"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).expect("JSON"),
        json!({"error": {
            "code": "invalid-request",
            "instancePath": "/parameters/maxWords",
            "parameterName": "maxWords",
            "message": "parameter \"maxWords\" is declared as number, but the value is \"lots\"; give a JSON number, like 80"
        }})
    );
    let out = plan(&["--param", "ticketId=T-17", "--param", "maxWord=80"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        v["error"]["message"],
        "agent \"support.escalation-writer\" declares no parameter \"maxWord\"; did you mean \"maxWords\"? (declared: ticketId, team, urgent, maxWords)"
    );
    // A value that reads as JSON is still text for a parameter declared as string.
    let out = plan(&["--param", "ticketId=17", "--param", "maxWords=80"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        v["instructions"],
        "You escalate ticket 17 to the billing team on 2026-11-30.\n\nSummarise the thread in at most 80 words."
    );
}

#[test]
fn plan_clock_and_turn_messages_say_what_to_write() {
    let out = runstart(&[
        "plan",
        "fixtures/packs/support-desk/index.json",
        "--providers",
        "fixtures/providers.json",
        "--agent",
        "support.escalation-writer",
        "--now",
        "2026-11-30",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: invalid value '2026-11-30' for '--now <NOW>': \"2026-11-30\" is not an instant as toISOString writes it; write UTC with a real date, like 2026-09-17T15:30:00.000Z\n\nFor more information, try '--help'.\n"
    );
    let out = plan(&["--turn", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: invalid value '0' for '--turn <TURN>': the turn number counts from 1 (the first turn of a conversation is 1)\n\nFor more information, try '--help'.\n"
    );
}

#[test]
fn resolve_and_plan_refuse_unusable_indexes_with_validates_issues() {
    let dir = Scratch::new("unusable");
    for (name, text) in [
        ("empty.json", "{}"),
        ("tools5.json", r#"{"v": 1, "tools": 5}"#),
    ] {
        let file = dir.file(name, text.as_bytes());
        let validated = runstart(&[
            "validate",
            &file,
            "--format",
            "json",
            "--no-canonical-check",
        ]);
        let validated: Value = serde_json::from_slice(&validated.stdout).expect("JSON");
        let want = &validated[0]["issues"];
        let out = runstart(&[
            "resolve", &file, "--tool", "a", "--range", "*", "--format", "json",
        ]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let got: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(got["error"]["code"], "invalid-index");
        assert_eq!(&got["error"]["issues"], want, "{name}: validate's issues");
        assert_eq!(
            got["error"]["message"],
            format!(
                "{file} is not a usable pack index ({} error(s)); `runstart validate {file}` explains each",
                want.as_array().map_or(0, Vec::len)
            )
        );
        let out = runstart(&[
            "plan",
            &file,
            "--providers",
            "fixtures/providers.json",
            "--agent",
            "a",
        ]);
        assert_eq!(out.status.code(), Some(1));
        let got: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(&got["error"]["issues"], want, "{name}: plan");
    }
    // Human output: validate's lines, then the summary on stderr.
    let file = dir.file("tools5.json", br#"{"v": 1, "tools": 5}"#);
    let out = runstart(&["resolve", &file, "--tool", "a", "--range", "*"]);
    assert!(
        stdout(&out).contains(&format!(
            "{file}:1:19: error[invalid-shape] /tools: must be array\n"
        )),
        "{}",
        stdout(&out)
    );
}

#[test]
fn resolve_explains_a_bad_range_as_validate_does() {
    let out = runstart(&[
        "resolve",
        "fixtures/packs/order-review/index.json",
        "--tool",
        "shop.fraud.score",
        "--range",
        ">=1.0.0 <",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "shop.fraud.score \">=1.0.0 <\" -> error[invalid-version-range] tool \"shop.fraud.score\" has an invalid version range \">=1.0.0 <\": \"<\" (in alternative 1 of the range) is not an npm comparator; write a range such as \"^1.2.3\", \">=1.0.0 <2.0.0\", \"1.x\" or \"1.2.3 - 2.0.0\"\n"
    );
}

#[test]
fn threads_are_bounded() {
    for n in ["0", "257", "100000", "many"] {
        let out = runstart(&[
            "validate",
            "fixtures/packs/support-desk/index.json",
            "--threads",
            n,
        ]);
        assert_eq!(out.status.code(), Some(2), "{n}");
        assert_eq!(
            stderr(&out),
            format!(
                "error: invalid value '{n}' for '--threads <N>': give a number of worker threads from 1 to 256, or leave --threads out for one per core\n\nFor more information, try '--help'.\n"
            )
        );
    }
    let out = runstart(&[
        "validate",
        "fixtures/packs/support-desk/index.json",
        "--threads",
        "256",
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn validate_json_lists_an_unreadable_file_as_an_entry() {
    let out = runstart(&[
        "validate",
        "fixtures/packs/support-desk/index.json",
        "fixtures/packs/no-such-pack/index.json",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v.as_array().map(Vec::len), Some(2));
    assert_eq!(
        v[1],
        json!({"file": "fixtures/packs/no-such-pack/index.json", "errors": 1, "warnings": 0, "issues": [{
            "severity": "error", "code": "io-error", "instancePath": "",
            "message": "cannot read fixtures/packs/no-such-pack/index.json: No such file or directory (os error 2); check the path and its permissions"
        }]})
    );
    // The human summary counts it.
    let out = runstart(&[
        "validate",
        "fixtures/packs/support-desk/index.json",
        "fixtures/packs/no-such-pack/index.json",
    ]);
    assert_eq!(stderr(&out), "2 file(s): 1 error(s), 0 warning(s)\n");
}

#[test]
fn validate_sarif_and_github_match_golden_files() {
    let out = runstart(&[
        "validate",
        "fixtures/packs/broken/index.json",
        "--format",
        "sarif",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_golden("broken.sarif.json", &stdout(&out));
    let out = runstart(&[
        "validate",
        "fixtures/packs/broken/index.json",
        "--format",
        "github",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_golden("broken.github.txt", &stdout(&out));
    let first = stdout(&out).lines().nth(1).map(str::to_owned);
    assert_eq!(
        first.as_deref(),
        Some(
            "::error file=fixtures/packs/broken/index.json,line=21,col=9,title=unresolved-guardrail::/agents/0/guardrails/0: agent \"support.triage\": guardrail \"support.no-such-guardrail\" is not in the pack; its turns would fail with unresolved-guardrail"
        )
    );
}

/// The SARIF 2.1.0 JSON schema, read at test time from the `serde-sarif` crate's sources in
/// the cargo registry (that crate ships the OASIS schema as `src/schema.json`); nothing of it
/// is committed here.
fn sarif_schema() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let metadata = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--manifest-path",
        ])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
        .output()
        .expect("cargo metadata runs");
    assert!(metadata.status.success(), "{}", stderr(&metadata));
    let metadata: Value = serde_json::from_slice(&metadata.stdout).expect("metadata JSON");
    let manifest = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "serde-sarif")
        .and_then(|p| p["manifest_path"].as_str())
        .expect("serde-sarif is a dependency")
        .to_owned();
    let schema = Path::new(&manifest).with_file_name("src/schema.json");
    let text = std::fs::read_to_string(&schema)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", schema.display()));
    let mut schema: Value = serde_json::from_str(&text).expect("schema JSON");
    // A known erratum of the published schema: the `language` patterns have a stray `]`,
    // which ECMAScript reads as a literal and Rust's regex engine refuses. Put the intended
    // pattern (a two-letter language, optionally a two-letter region) in their place.
    fn fix_language_patterns(v: &mut Value) -> usize {
        match v {
            Value::Object(o) => {
                let mut fixed = 0;
                if o.get("pattern").and_then(Value::as_str)
                    == Some("^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$")
                {
                    o.insert("pattern".into(), json!("^[a-zA-Z]{2}(-[a-zA-Z]{2})?$"));
                    fixed += 1;
                }
                fixed + o.values_mut().map(fix_language_patterns).sum::<usize>()
            }
            Value::Array(a) => a.iter_mut().map(fix_language_patterns).sum(),
            _ => 0,
        }
    }
    assert!(fix_language_patterns(&mut schema) > 0);
    assert_eq!(
        schema["title"],
        "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    );
    schema
}

#[test]
fn validate_sarif_validates_against_the_sarif_2_1_0_schema() {
    let schema = sarif_schema();
    let validator = jsonschema::validator_for(&schema).expect("the SARIF schema compiles");
    for args in [
        &[
            "validate",
            "fixtures/packs/broken/index.json",
            "--format",
            "sarif",
        ][..],
        &[
            "validate",
            "fixtures/packs/support-desk/index.json",
            "--format",
            "sarif",
        ][..],
        &[
            "validate",
            "fixtures/packs/no-such-pack/index.json",
            "--format",
            "sarif",
        ][..],
    ] {
        let out = runstart(args);
        let log: Value = serde_json::from_slice(&out.stdout).expect("SARIF is JSON");
        let errors: Vec<String> = validator
            .iter_errors(&log)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{args:?}: {errors:?}");
        assert_eq!(log["version"], "2.1.0");
    }
    // A deliberately broken log is refused, so the check above has teeth.
    let bad = json!({"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": [{"message": 5}]}]});
    assert!(!validator.is_valid(&bad));
}

#[test]
fn fmt_writes_the_canonical_form_which_revalidates_and_is_stable() {
    let dir = Scratch::new("fmt");
    let mut pack: Value = serde_json::from_slice(
        &std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs/support-desk/index.json"),
        )
        .expect("fixture"),
    )
    .expect("JSON");
    pack["packVersion"] = json!("1.0.0");
    let file = dir.file("index.json", pack.to_string().as_bytes());
    let out = runstart(&["fmt", "--check", &file]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        format!("{file}:1:1: not in canonical form; run `runstart fmt {file}`\n")
    );
    let before = runstart(&["validate", &file, "--format", "json"]);
    let before: Value = serde_json::from_slice(&before.stdout).expect("JSON");
    assert_eq!(before[0]["issues"][0]["code"], "non-canonical-index");
    let out = runstart(&["fmt", &file]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), format!("formatted {file}\n"));
    let first = std::fs::read(&file).expect("formatted");
    let after = runstart(&["validate", &file, "--format", "json"]);
    assert_eq!(after.status.code(), Some(0));
    let after: Value = serde_json::from_slice(&after.stdout).expect("JSON");
    assert_eq!(after[0]["issues"], json!([]), "no non-canonical-index left");
    let out = runstart(&["fmt", &file]);
    assert_eq!((out.status.code(), stdout(&out)), (Some(0), String::new()));
    assert_eq!(
        std::fs::read(&file).expect("again"),
        first,
        "byte-identical on a second run"
    );
    assert_eq!(runstart(&["fmt", "--check", &file]).status.code(), Some(0));
    // A file that is not JSON is reported, not rewritten.
    let broken = dir.file("broken.json", b"{\"v\": 1,");
    let out = runstart(&["fmt", &broken]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("error[json-syntax]"),
        "{}",
        stdout(&out)
    );
    assert_eq!(std::fs::read(&broken).expect("kept"), b"{\"v\": 1,");
}

#[cfg(unix)]
#[test]
fn fmt_rewrites_what_a_link_names_keeps_permissions_and_goes_past_an_unreadable_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = Scratch::new("fmt-links");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/packs/broken/index.json");
    let original = std::fs::read(&fixture).expect("fixture");
    let real = dir.file("real.json", &original);
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let link = format!("{}/link.json", dir.0.display());
    std::os::unix::fs::symlink("real.json", &link).expect("symlink");
    let other = dir.file("other.json", &original);
    let missing = format!("{}/missing.json", dir.0.display());

    let out = runstart(&["fmt", &link, &missing, &other]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!("formatted {link}\nformatted {other}\n")
    );
    assert_eq!(
        stderr(&out),
        format!("runstart: cannot read {missing}: No such file or directory (os error 2)\n")
    );
    // The link is still a link; the file it names holds the canonical form, still private.
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("link")
            .file_type()
            .is_symlink()
    );
    let formatted = std::fs::read(&real).expect("real");
    assert_ne!(formatted, original);
    assert_eq!(std::fs::read(&other).expect("other"), formatted);
    let mode = std::fs::metadata(&real).expect("meta").permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    // A read-only file is not rewritten (a rename would replace it all the same).
    let read_only = dir.file("read-only.json", &original);
    std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    let out = runstart(&["fmt", &read_only]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!("runstart: cannot write {read_only}: the file is read-only\n")
    );
    assert_eq!(std::fs::read(&read_only).expect("kept"), original);
    // A pipe is not a file to rewrite.
    let out = with_stdin(&["fmt", "/dev/stdin"], original.clone());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "runstart: cannot write /dev/stdin: not a regular file\n"
    );
}

#[test]
fn every_command_takes_format_json_and_names_the_provider_providerid() {
    let dir = Scratch::new("formats");
    let route = dir.file(
        "route.json",
        br#"{"capability":{"needs":[]},"providers":[{"id":"p","region":"eu","models":[{"name":"m","contextWindow":1000,"features":[],"cost":{"promptUsdPer1kTokens":0.001,"completionUsdPer1kTokens":0.002}}]}]}"#,
    );
    let out = runstart(&["route", "--input", &route, "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("route JSON");
    assert_eq!(v["ok"]["providerId"], "p");
    assert!(v["ok"].get("provider").is_none());
    let out = runstart(&["route", "--input", &route, "--explain", "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("explain JSON");
    assert_eq!(v["tuples"][0]["providerId"], "p");
    let out = plan(&["--param", "ticketId=T-17", "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("plan JSON");
    assert_eq!(v["route"]["providerId"], "anthropic-eu");
    let template = dir.file("t.liquid", b"Hi {{ name }} {{ x | nosuch }}");
    let out = runstart(&["template", &template, "--param", "name", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).expect("template JSON");
    assert_eq!(
        v,
        json!({"file": template, "globals": null, "issues": [{"severity": "error", "code": "template-parse", "line": 1, "column": 15, "message": "undefined filter: nosuch"}]})
    );
    let template = dir.file("u.liquid", b"Hi {{ name }} {{ other }}");
    let out = runstart(&["template", &template, "--param", "name", "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("template JSON");
    assert_eq!(v["globals"], json!(["name", "other"]));
    assert_eq!(v["issues"][0]["code"], "template-unknown-variable");
    let out = runstart(&[
        "resolve",
        "fixtures/packs/order-review/index.json",
        "--tool",
        "shop.fraud.score",
        "--range",
        "^3.0.0",
        "--format",
        "json",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("resolve JSON");
    assert_eq!(v["version"], "3.8.1");
}

#[test]
fn help_shows_examples_and_exit_codes() {
    for command in ["validate", "fmt", "route", "plan", "resolve", "template"] {
        let out = runstart(&[command, "--help"]);
        assert_eq!(out.status.code(), Some(0), "{command}");
        let text = stdout(&out);
        assert!(text.contains("Examples:\n  runstart "), "{command}: {text}");
        assert!(text.contains("Exit status: 0 "), "{command}: {text}");
    }
}

#[test]
fn a_library_user_compiles_no_cli_dependency() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .args([
            "tree",
            "-p",
            "runstart",
            "-e",
            "normal",
            "--no-default-features",
            "--locked",
            "--prefix",
            "none",
            "--manifest-path",
        ])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
        .output()
        .expect("cargo tree runs");
    assert!(out.status.success(), "{}", stderr(&out));
    let tree = stdout(&out);
    assert!(tree.starts_with("runstart v"), "{tree}");
    for name in [
        "clap",
        "indicatif",
        "mimalloc",
        "libmimalloc-sys",
        "serde-sarif",
    ] {
        assert!(
            !tree.lines().any(|l| l.starts_with(&format!("{name} v"))),
            "{name} is compiled without the cli feature:\n{tree}"
        );
    }
    // With the default features the binary has them.
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
        .args([
            "tree",
            "-p",
            "runstart",
            "-e",
            "normal",
            "--locked",
            "--prefix",
            "none",
            "--depth",
            "1",
            "--manifest-path",
        ])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
        .output()
        .expect("cargo tree runs");
    let tree = stdout(&out);
    for name in ["clap", "indicatif", "mimalloc", "serde-sarif"] {
        assert!(
            tree.lines().any(|l| l.starts_with(&format!("{name} v"))),
            "{name}: {tree}"
        );
    }
}

/// A line cap of 0 would refuse every line: it is a usage error, for both `--jsonl` modes.
#[test]
fn a_zero_line_cap_is_a_usage_error() {
    for command in ["template", "route"] {
        let out = with_stdin(
            &[command, "--jsonl", "--max-line-bytes", "0"],
            b"\"a\"\n".to_vec(),
        );
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("must be at least 1"),
            "{command}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A `--jsonl` run whose stdout closes stops reading there, with the status of the lines it
/// answered: a blank line (2) is not forgotten because nobody read its answer.
#[test]
fn a_closed_stdout_keeps_the_jsonl_status() {
    for command in ["template", "route"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_runstart"))
            .args([command, "--jsonl"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the runstart binary runs");
        // The reader goes before the first line arrives.
        drop(child.stdout.take());
        let mut input = child.stdin.take().expect("stdin");
        let _ = input.write_all(b"\n\n\n");
        drop(input);
        let status = child.wait().expect("finishes");
        assert_eq!(status.code(), Some(2), "{command}");
    }
}
