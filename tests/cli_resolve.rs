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
    let out = runstart(&[
        "resolve",
        "fixtures/packs/order-review/index.json",
        "--tool",
        "shop.fraud.score",
        "--range",
        ">=4.0.0-beta.1",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(v["version"], "4.0.0-beta.2");
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
