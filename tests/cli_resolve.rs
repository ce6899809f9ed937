//! `runstart resolve`: tool references resolved against pack indexes.

use std::process::{Command, Output};

fn runstart(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_runstart"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the runstart binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}

#[test]
fn resolves_one_tool_with_the_prerelease_rule() {
    let out = runstart(&[
        "resolve",
        "fixtures/packs/order-review/index.json",
        "--tool",
        "shop.fraud.score",
        "--range",
        "^3.0.0",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        "shop.fraud.score \"^3.0.0\" -> 3.8.1 (fixtures/packs/order-review/index.json /tools/2)\n"
    );
    // A prerelease is picked only when the range names one on the same major.minor.patch.
    // (A deploy refuses a prerelease tool version, so the fixture has none; `resolve` answers
    // for any index that loads, so a copy with one shows the rule.)
    let fixture = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/packs/order-review/index.json"
    ))
    .expect("fixture");
    let prerelease = fixture.replacen("\"version\": \"4.0.0\"", "\"version\": \"4.0.0-beta.2\"", 1);
    assert_ne!(
        prerelease, fixture,
        "the fixture has shop.fraud.score 4.0.0"
    );
    let path = std::env::temp_dir().join(format!("runstart-resolve-{}.json", std::process::id()));
    std::fs::write(&path, prerelease).expect("write the copy");
    let path = path.to_str().expect("UTF-8 path").to_owned();
    let pick = |range: &str| {
        let out = runstart(&[
            "resolve",
            &path,
            "--tool",
            "shop.fraud.score",
            "--range",
            range,
            "--format",
            "json",
        ]);
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
        (out.status.code(), v["version"].clone())
    };
    assert_eq!(pick(">=4.0.0-beta.1"), (Some(0), "4.0.0-beta.2".into()));
    assert_eq!(
        pick(">=3.9.0").0,
        Some(1),
        "no prerelease without one named"
    );
    assert_eq!(pick(">=3.0.0"), (Some(0), "3.8.1".into()));
    let _ = std::fs::remove_file(&path);
}

#[test]
fn failures_exit_1_with_the_spec_code() {
    let out = runstart(&[
        "resolve",
        "fixtures/packs/order-review/index.json",
        "--tool",
        "shop.orders.get",
        "--range",
        "^9",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(v["error"]["code"], "tool-version-unresolvable");
    let out = runstart(&[
        "resolve",
        "fixtures/packs/order-review/index.json",
        "--tool",
        "nope",
        "--range",
        "*",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("error[tool-not-found]"));
}

#[test]
fn agents_lists_every_reference() {
    let out = runstart(&[
        "resolve",
        "fixtures/packs/support-desk/index.json",
        "fixtures/packs/order-review/index.json",
        "--agents",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    let rows = v.as_array().expect("array");
    assert_eq!(rows.len(), 10 + 9);
    assert!(rows.iter().all(|r| r["version"].is_string()));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(
        runstart(&["resolve", "fixtures/packs/order-review/index.json"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        runstart(&["resolve", "missing.json", "--agents"])
            .status
            .code(),
        Some(2)
    );
}
