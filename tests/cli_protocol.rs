//! `runstart protocol check-info` and `runstart protocol message`: output and exit codes.

mod util;

use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn runstart(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_runstart"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the runstart binary runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("writes stdin");
    child.wait_with_output().expect("finishes")
}

const INDEX: &str = "fixtures/packs/support-desk/index.json";

/// A matching info answer for the support-desk fixture, written to a temporary file.
fn info_file(name: &str, edit: impl FnOnce(&mut Value)) -> std::path::PathBuf {
    let bytes = std::fs::read(INDEX).expect("fixture");
    let index: Value = serde_json::from_slice(&bytes).expect("JSON");
    let mut info = json!({
        "protocol": 2,
        "packId": index["packId"], "packVersion": index["packVersion"],
        "artifactVersion": index["artifactVersion"],
        "indexHash": runstart::index::index_hash(&bytes),
        "tools": index["tools"].as_array().expect("tools").iter()
            .map(|t| json!({"id": t["id"], "version": t["version"]})).collect::<Vec<_>>(),
        "checks": ["support.no-refund-promises", "support.checks.pii"],
        "missingEnv": []
    });
    edit(&mut info);
    let path = std::env::temp_dir().join(format!(
        "runstart-cli-protocol-{}-{name}.json",
        std::process::id()
    ));
    std::fs::write(&path, serde_json::to_vec_pretty(&info).expect("json")).expect("writes");
    path
}

#[test]
fn check_info_clean_problems_and_usage() {
    let clean = info_file("clean", |_| {});
    let out = runstart(
        &[
            "protocol",
            "check-info",
            INDEX,
            clean.to_str().expect("utf8"),
        ],
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 error(s), 0 warning(s)"));

    let bad = info_file("bad", |i| {
        i["indexHash"] = json!("sha256:00");
        i["missingEnv"] = json!(["HELPDESK_TOKEN"]);
    });
    let bad = bad.to_str().expect("utf8");
    let out = runstart(&["protocol", "check-info", INDEX, bad], b"");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].contains(": error[index-hash-mismatch] /indexHash: "),
        "{text}"
    );
    assert!(
        lines[1].contains(": error[missing-env] /missingEnv/0: "),
        "{text}"
    );
    // Under the warn env check a missing name is a warning: exit 0.
    let out = runstart(
        &[
            "protocol",
            "check-info",
            INDEX,
            bad,
            "--env-check",
            "warn",
            "--format",
            "json",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1), "the hash still differs");
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["errors"], 1);
    assert_eq!(report["warnings"], 1);
    assert_eq!(report["issues"][1]["severity"], "warning");

    // An answer that is no info message is a problem with the service: exit 1.
    let not_info = info_file("v3", |i| i["protocol"] = json!(3));
    let out = runstart(
        &[
            "protocol",
            "check-info",
            INDEX,
            not_info.to_str().expect("utf8"),
            "--format",
            "json",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["issues"][0]["code"], "unknown-protocol-version");

    let out = runstart(&["protocol", "check-info", "no/such/index.json", bad], b"");
    assert_eq!(out.status.code(), Some(2));
    let out = runstart(&["protocol", "check-info", INDEX], b"");
    assert_eq!(
        out.status.code(),
        Some(2),
        "a missing argument is a usage error"
    );
    for p in [
        clean.as_path(),
        std::path::Path::new(bad),
        not_info.as_path(),
    ] {
        let _ = std::fs::remove_file(p);
    }
}

#[test]
fn message_validates_stdin() {
    let Some(example) = util::shared_file("upstream/pack-protocol.example.tool-invoke.json") else {
        return;
    };
    let out = runstart(&["protocol", "message"], example.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ok: invoke\n");
    let out = runstart(
        &["protocol", "message", "--format", "json"],
        example.as_bytes(),
    );
    let answer: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(answer["valid"], true);
    assert_eq!(
        answer["message"]["tool"]["id"],
        "acme.ledger.record-expense"
    );

    let out = runstart(&["protocol", "message"], br#"{"v": 1, "kind": "invoke"}"#);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "error[unknown-protocol-version]: Expected protocol v2, got 1\n"
    );
    let out = runstart(
        &["protocol", "message", "--format", "json"],
        br#"{"v": 2, "kind": "hello"}"#,
    );
    assert_eq!(out.status.code(), Some(1));
    let answer: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        answer,
        json!({"v": 2, "kind": "error", "code": "unexpected-message-kind",
            "message": "Unknown message kind \"hello\""})
    );
    let out = runstart(&["protocol", "message"], b"{");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("error[malformed-message]: "));
}

/// An index with load-time problems is refused before the service is checked against it, as
/// `resolve` and `plan` refuse it: `invalid-index`, exit 1, whether it is broken or not JSON.
#[test]
fn check_info_refuses_an_unusable_index() {
    let info = info_file("unusable", |_| {});
    let info = info.to_str().expect("utf8");
    let out = runstart(
        &[
            "protocol",
            "check-info",
            "fixtures/packs/broken/index.json",
            info,
            "--format",
            "json",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let answer: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(answer["error"]["code"], "invalid-index");
    assert_eq!(answer["error"]["file"], "fixtures/packs/broken/index.json");
    assert!(
        !answer["error"]["issues"]
            .as_array()
            .expect("issues")
            .is_empty()
    );

    let not_json = std::env::temp_dir().join(format!(
        "runstart-cli-protocol-{}-not-json.json",
        std::process::id()
    ));
    std::fs::write(&not_json, b"{\"v\": 1,").expect("writes");
    let out = runstart(
        &[
            "protocol",
            "check-info",
            not_json.to_str().expect("utf8"),
            info,
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is not a usable pack index"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_file(&not_json);
    let _ = std::fs::remove_file(info);
}

/// A tool env need whose schema does not compile is refused by a pack service: `validate`
/// reports it (`invalid-env-need`, at the env name) and `check-info` refuses the index with it.
#[test]
fn an_env_need_that_does_not_compile_fails_validate_and_check_info_alike() {
    let mut index: Value =
        serde_json::from_slice(&std::fs::read(INDEX).expect("fixture")).expect("JSON");
    index["tools"][0]["needsSpec"]["env"]["CRM_API_URL"] = json!({"type": "strng"});
    let path = std::env::temp_dir().join(format!(
        "runstart-cli-protocol-{}-env-need-index.json",
        std::process::id()
    ));
    std::fs::write(&path, index.to_string()).expect("writes");
    let path_text = path.to_str().expect("utf8");
    let pointer = "/tools/0/needsSpec/env/CRM_API_URL";

    let out = runstart(&["validate", path_text, "--format", "json"], b"");
    assert_eq!(out.status.code(), Some(1));
    let reports: Value = serde_json::from_slice(&out.stdout).expect("json");
    let errors: Vec<(&str, &str)> = reports[0]["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .filter(|i| i["severity"] == "error")
        .map(|i| {
            (
                i["code"].as_str().unwrap_or(""),
                i["instancePath"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(errors, [("invalid-env-need", pointer)]);

    let info = info_file("env-need", |_| {});
    let info = info.to_str().expect("utf8");
    let out = runstart(
        &[
            "protocol",
            "check-info",
            path_text,
            info,
            "--format",
            "json",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let answer: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(answer["error"]["code"], "invalid-index");
    assert_eq!(answer["error"]["issues"][0]["code"], "invalid-env-need");
    assert_eq!(answer["error"]["issues"][0]["instancePath"], pointer);
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(info);
}
