//! End-to-end tests of `runstart validate`: exit codes, golden reports.

mod util;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn runstart(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_runstart"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the runstart binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 output")
}

/// Compares `actual` with the golden file, or rewrites it when `UPDATE_GOLDEN=1`.
#[track_caller]
fn assert_golden(path: &Path, actual: &str) {
    if std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1") {
        std::fs::write(path, actual).expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read golden {}: {e}", path.display()));
    assert_eq!(actual, expected, "output differs from {}", path.display());
}

#[test]
fn clean_fixture_packs_exit_0_without_issues() {
    for pack in ["support-desk", "order-review"] {
        let file = format!("fixtures/packs/{pack}/index.json");
        let out = runstart(&["validate", &file]);
        assert_eq!(out.status.code(), Some(0), "{pack}: {}", stdout(&out));
        assert_eq!(stdout(&out), "", "{pack} should have no issues");
    }
}

#[test]
fn fixture_packs_are_canonical() {
    for pack in ["support-desk", "order-review"] {
        let path = root().join(format!("fixtures/packs/{pack}/index.json"));
        let text = std::fs::read_to_string(&path).expect("fixture");
        let value: serde_json::Value = serde_json::from_str(&text).expect("json");
        assert_eq!(runstart::index::canonical_text(&value), text, "{pack}");
    }
}

#[test]
fn broken_pack_matches_golden_json_and_human_reports() {
    let out = runstart(&[
        "validate",
        "fixtures/packs/broken/index.json",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_golden(
        &root().join("fixtures/packs/broken/expected.json"),
        &stdout(&out),
    );
    let out = runstart(&["validate", "fixtures/packs/broken/index.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_golden(&root().join("tests/golden/broken.txt"), &stdout(&out));
}

#[test]
fn upstream_python_pack_is_valid() {
    let Some(shared) = util::shared_dir() else {
        return;
    };
    let file = shared.join("upstream/examples/pack-index.example.python-pack.json");
    let out = runstart(&["validate", file.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // Written by Prettier, not by an indexer: only the canonical-form warning.
    assert!(stdout(&out).contains("warning[non-canonical-index]"));
    assert!(!stdout(&out).contains("error["));
}

#[test]
fn envelope_v2_exits_1_with_the_envelope_error() {
    let dir = tempdir();
    let file = dir.join("v2.json");
    std::fs::write(&file, "{\n  \"v\": 2\n}\n").expect("write");
    let out = runstart(&["validate", file.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).ends_with(":2:8: error[envelope-version] /v: Index envelope v2 is not v1\n"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn truncated_file_exits_1_naming_line_and_column() {
    let dir = tempdir();
    let file = dir.join("truncated.json");
    let full = std::fs::read_to_string(root().join("fixtures/packs/support-desk/index.json"))
        .expect("fixture");
    std::fs::write(&file, &full[..200]).expect("write");
    let out = runstart(&["validate", file.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("truncated.json:13:9: "), "{text}");
    assert!(
        text.contains("error[json-syntax] \"\": invalid JSON: EOF while parsing"),
        "{text}"
    );
}

#[test]
fn missing_file_exits_2() {
    let out = runstart(&["validate", "fixtures/packs/no-such-pack/index.json"]);
    assert_eq!(out.status.code(), Some(2));
    // An unreadable file is an issue of that file, like any other (and counts in the summary).
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "fixtures/packs/no-such-pack/index.json: error[io-error] \"\": cannot read fixtures/packs/no-such-pack/index.json: No such file or directory (os error 2); check the path and its permissions\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "1 file(s): 1 error(s), 0 warning(s)\n"
    );
}

#[test]
fn a_directory_is_told_to_name_its_index() {
    let out = runstart(&["validate", "fixtures/packs/support-desk"]);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("fixtures/packs/support-desk: error[io-error] \"\": cannot read fixtures/packs/support-desk: ")
            && text.ends_with("; name the pack's index.json inside it\n"),
        "{text}"
    );
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(runstart(&["validate"]).status.code(), Some(2));
    assert_eq!(runstart(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(
        runstart(&["validate", "x.json", "--format", "yaml"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn several_files_in_one_call_report_each() {
    let out = runstart(&[
        "validate",
        "fixtures/packs/support-desk/index.json",
        "fixtures/packs/broken/index.json",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(v[0]["file"], "fixtures/packs/support-desk/index.json");
    assert_eq!(v[0]["errors"], 0);
    assert_eq!(v[1]["file"], "fixtures/packs/broken/index.json");
    assert!(v[1]["errors"].as_u64().expect("count") >= 12);
}

/// `validate --format json` of the support-desk fixture after `edit`, which must make it fail
/// (exit 1): the reports.
fn support_desk_with(edit: impl FnOnce(&mut serde_json::Value)) -> serde_json::Value {
    let fixture = root().join("fixtures/packs/support-desk/index.json");
    let mut pack: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture).expect("fixture")).expect("JSON");
    edit(&mut pack);
    let dir = tempdir();
    let file = dir.join("index.json");
    std::fs::write(&file, pack.to_string()).expect("write");
    let out = runstart(&["validate", file.to_str().expect("utf8"), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(dir);
    serde_json::from_str(&stdout(&out)).expect("json")
}

fn tempdir() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "runstart-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A reader that stops early (`runstart validate … | head`) does not turn problems found into
/// success: the run still exits 1, so a pipeline under `set -o pipefail` fails. The clean pack
/// still exits 0.
#[test]
fn a_closed_stdout_keeps_the_exit_status() {
    let run = |file: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_runstart"))
            .args(["validate", "--format", "json"])
            .args(std::iter::repeat_n(file, 40))
            .current_dir(root())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the runstart binary runs");
        // Close the read end before the report (more than a pipe's buffer) is written.
        drop(child.stdout.take());
        child.wait().expect("finishes").code()
    };
    assert_eq!(run("fixtures/packs/broken/index.json"), Some(1));
    assert_eq!(run("fixtures/packs/support-desk/index.json"), Some(0));
}

/// One run reports every problem: an unknown field in a tool or guardrail entry does not hide
/// its other problems (bad schemas, a version that is not semver, a config its schema refuses),
/// and a tool whose version does not parse is not reported again, at each agent reference, as
/// a tool with no published version.
#[test]
fn an_unknown_field_hides_nothing_and_an_unusable_tool_version_is_reported_once() {
    let reports = support_desk_with(|pack| {
        pack["tools"][0]["bogus"] = serde_json::json!(1);
        pack["tools"][0]["input"] = serde_json::json!({"type": "strng"});
        pack["tools"][0]["version"] = serde_json::json!("x.y");
        pack["guardrails"][0]["bogus"] = serde_json::json!(1);
        pack["guardrails"][0]["config"] = serde_json::json!({"phrases": 5});
    });
    let errors: Vec<(String, String)> = reports[0]["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .filter(|i| i["severity"] == "error")
        .map(|i| {
            (
                i["code"].as_str().unwrap_or_default().to_owned(),
                i["instancePath"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let expected = [
        ("invalid-shape", "/guardrails/0"),
        ("guardrail-config", "/guardrails/0/config/phrases"),
        ("invalid-shape", "/tools/0"),
        ("invalid-schema", "/tools/0/input/type"),
        ("invalid-schema", "/tools/0/input/type"),
        ("invalid-schema", "/tools/0/input/type"),
        ("invalid-shape", "/tools/0/version"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(c, p)| ((*c).to_owned(), (*p).to_owned()))
        .collect();
    assert_eq!(errors, expected);
}

/// A key repeated in an object is an error at the member kept: a JSON reader keeps the last
/// value without a word, which here would change what the agent is routed by. `fmt` leaves
/// the file as it is, and `plan` refuses it.
#[test]
fn a_repeated_key_is_reported_and_the_file_is_not_formatted() {
    let fixture = root().join("fixtures/packs/support-desk/index.json");
    let text = std::fs::read_to_string(fixture).expect("fixture");
    let repeated = text.replacen(
        "\"feature\": \"tool-use\"",
        "\"feature\": \"tool-use\", \"feature\": \"vision\"",
        1,
    );
    assert_ne!(repeated, text);
    let dir = tempdir();
    let file = dir.join("index.json");
    std::fs::write(&file, &repeated).expect("write");
    let path = file.to_str().expect("utf8");
    let out = runstart(&["validate", path, "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let reports: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    let issue = &reports[0]["issues"][0];
    assert_eq!(issue["code"], "duplicate-key");
    assert_eq!(
        issue["instancePath"],
        "/agents/0/capabilities/0/needs/0/feature"
    );
    assert_eq!(issue["params"]["key"], "feature");
    assert_eq!(
        issue["message"],
        "key \"feature\" appears 2 times in this object; a JSON reader keeps only the last value, so the others are lost: remove or rename the repeats"
    );
    let out = runstart(&["fmt", path]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&file).expect("kept"), repeated);
    let out = runstart(&[
        "plan",
        path,
        "--providers",
        root()
            .join("fixtures/providers.json")
            .to_str()
            .expect("utf8"),
        "--agent",
        "support.escalation-writer",
        "--param",
        "ticketId=T-1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(dir);
}

/// An agent entry the typed model refuses is reported at the field, in the words its type
/// gives (an `instructions` that is neither a template nor a prompt reference).
#[test]
fn a_refused_field_is_named_where_it_is() {
    let reports = support_desk_with(|pack| {
        pack["agents"][1]["instructions"] = serde_json::json!({"bogus": 1});
    });
    let shape: Vec<&serde_json::Value> = reports[0]["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .filter(|i| i["code"] == "invalid-shape")
        .collect();
    assert_eq!(shape.len(), 1);
    assert_eq!(shape[0]["instancePath"], "/agents/1/instructions");
    assert_eq!(
        shape[0]["message"],
        "not an agent entry: must be an inline Liquid template (a string) or a prompt block reference {\"prompt\", \"version\"}"
    );
}
