//! `runstart plan`: a run prepared from pack indexes and providers, printed as JSON.

use std::process::{Command, Output};

fn runstart(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_runstart"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the runstart binary runs")
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).expect("json output")
}

#[test]
fn plans_a_run_and_prints_what_the_runtime_journals() {
    let out = runstart(&[
        "plan",
        "fixtures/packs/order-review/index.json",
        "--providers",
        "fixtures/providers.json",
        "--tenant",
        "acme",
        "--agent",
        "shop.order-reviewer@0.3.1",
        "--param",
        "orderNumber=A-77",
        "--param",
        "flagged=true",
        "--now",
        "2026-11-30T10:00:00.000Z",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan = json(&out);
    assert_eq!(plan["agentVersion"], "0.3.1");
    assert_eq!(plan["blockVersions"]["shop.review-prompt"], "2.0.4");
    assert_eq!(plan["toolVersions"]["shop.inventory.check"], "1.6.0");
    assert_eq!(plan["route"]["providerId"], "anthropic-eu");
    assert_eq!(
        plan["instructions"],
        "Review order A-77 for Acme Outdoor.\nIt was flagged: explain why.\nKeep it under 12 lines."
    );
}

#[test]
fn a_failed_plan_exits_1_with_the_error_code() {
    let out = runstart(&[
        "plan",
        "fixtures/packs/order-review/index.json",
        "--providers",
        "fixtures/providers.json",
        "--agent",
        "shop.fraud-analyst",
        "--now",
        "2026-11-30T10:00:00.000Z",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["error"]["code"], "missing-parameter");
}

#[test]
fn usage_errors_exit_2() {
    let out = runstart(&[
        "plan",
        "fixtures/packs/order-review/index.json",
        "--providers",
        "nope.json",
        "--agent",
        "x",
    ]);
    assert_eq!(out.status.code(), Some(2));
    for (flag, value) in [
        ("--now", "notadate"),
        ("--now", "2026-13-45T99:00:00Z"),
        ("--turn", "0"),
    ] {
        let out = runstart(&[
            "plan",
            "fixtures/packs/order-review/index.json",
            "--providers",
            "fixtures/providers.json",
            "--agent",
            "shop.fraud-analyst",
            flag,
            value,
        ]);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
    }
    // Two values for one parameter: neither wins in silence.
    let out = runstart(&[
        "plan",
        "fixtures/packs/support-desk/index.json",
        "--providers",
        "fixtures/providers.json",
        "--agent",
        "support.escalation-writer",
        "--param",
        "ticketId=T-1",
        "--param",
        "ticketId=T-2",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "runstart: --param ticketId is given more than once; give each parameter one value\n"
    );
    // One agent version defined differently by two files: the later one would replace the
    // first without a word, so it is refused. The same file twice is fine.
    let index = "fixtures/packs/support-desk/index.json";
    let mut other: serde_json::Value =
        serde_json::from_slice(&std::fs::read(index).expect("fixture")).expect("JSON");
    other["packId"] = serde_json::json!("other");
    other["agents"][0]["instructions"] =
        serde_json::json!("OTHER {{ ticketId }} {{ team }} {{ urgent }} {{ maxWords }}");
    let other_file = std::env::temp_dir().join(format!(
        "runstart-cli-plan-{}-other.json",
        std::process::id()
    ));
    std::fs::write(&other_file, other.to_string()).expect("write");
    let other_path = other_file.to_str().expect("utf8");
    let plan = |files: &[&str]| {
        let mut args = vec!["plan"];
        args.extend(files);
        args.extend([
            "--providers",
            "fixtures/providers.json",
            "--agent",
            "support.escalation-writer",
            "--param",
            "ticketId=T-1",
        ]);
        runstart(&args)
    };
    let out = plan(&[index, other_path]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "runstart: agent support.escalation-writer@1.0.0 is defined differently in {index} and {other_path}; one version has one definition, so give one of the files a new version\n"
        )
    );
    assert_eq!(plan(&[index, index]).status.code(), Some(0));
    let _ = std::fs::remove_file(&other_file);
    // The same tool version spelled `v1.4.2` is the same version to registration; the same
    // definition with its version written out (or a number written `10.0`) is the same tool.
    let original: serde_json::Value =
        serde_json::from_slice(&std::fs::read(index).expect("fixture")).expect("JSON");
    let at = original["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .position(|t| t["version"] == "1.4.2")
        .expect("a tool at 1.4.2");
    let variant = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut pack = original.clone();
        pack["packId"] = serde_json::json!("other");
        edit(&mut pack["tools"][at]);
        std::fs::write(&other_file, pack.to_string()).expect("write");
        plan(&[index, other_path]).status.code()
    };
    assert_eq!(
        variant(&|t| {
            t["version"] = serde_json::json!("v1.4.2");
            t["description"] = serde_json::json!("CHANGED");
        }),
        Some(2)
    );
    assert_eq!(
        variant(&|t| t["version"] = serde_json::json!("v1.4.2")),
        Some(0)
    );
    let _ = std::fs::remove_file(&other_file);
    // A provider the registry refuses is named by its place in the file and the code.
    let mut providers: serde_json::Value =
        serde_json::from_slice(&std::fs::read("fixtures/providers.json").expect("fixture"))
            .expect("JSON");
    providers[1] = providers[0].clone();
    let providers_file = std::env::temp_dir().join(format!(
        "runstart-cli-plan-{}-providers.json",
        std::process::id()
    ));
    std::fs::write(&providers_file, providers.to_string()).expect("write");
    let providers_path = providers_file.to_str().expect("utf8");
    let out = runstart(&[
        "plan",
        index,
        "--providers",
        providers_path,
        "--agent",
        "support.escalation-writer",
        "--param",
        "ticketId=T-1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let id = providers[0]["id"].as_str().expect("id");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "runstart: {providers_path}: /1: duplicate-provider: Provider \"{id}\" is already registered for tenant \"default\"\n"
        )
    );
    let _ = std::fs::remove_file(&providers_file);
}

#[test]
fn a_pack_that_cannot_be_registered_exits_1_with_every_issue() {
    // The broken fixture has entries with shape problems: refused as validate reports them,
    // before any of its tools could be reported as "not found".
    let out = runstart(&[
        "plan",
        "fixtures/packs/broken/index.json",
        "--providers",
        "fixtures/providers.json",
        "--agent",
        "x",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let error = &json(&out)["error"];
    assert_eq!(error["code"], "invalid-index");
    assert_eq!(
        error["message"],
        "fixtures/packs/broken/index.json is not a usable pack index (7 error(s)); `runstart validate fixtures/packs/broken/index.json` explains each"
    );
    let issues = error["issues"].as_array().expect("issues");
    assert!(issues.iter().any(|i| i["instancePath"] == "/tools/1"
        && i["message"] == "must NOT have additional properties ('timeout' is not a known field)"));
    // A pack that loads but whose agents cannot be pinned: every pinning issue.
    let mut pack: serde_json::Value = serde_json::from_slice(
        &std::fs::read(format!(
            "{}/fixtures/packs/support-desk/index.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .expect("fixture"),
    )
    .expect("JSON");
    for agent in pack["agents"].as_array_mut().expect("agents") {
        for tool in agent["tools"].as_array_mut().into_iter().flatten() {
            tool["version"] = serde_json::json!("^99.0.0");
        }
    }
    let dir = std::env::temp_dir().join(format!("runstart-plan-pins-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("index.json");
    std::fs::write(&file, pack.to_string()).expect("write");
    let out = runstart(&[
        "plan",
        file.to_str().expect("UTF-8"),
        "--providers",
        "fixtures/providers.json",
        "--agent",
        "x",
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1));
    let error = &json(&out)["error"];
    assert_eq!(error["code"], "pack-not-registered");
    let issues = error["issues"].as_array().expect("issues");
    assert!(
        issues.len() > 1,
        "every issue, not only the first: {issues:?}"
    );
    assert!(issues.iter().all(|i| {
        i["instancePath"]
            .as_str()
            .is_some_and(|p| p.starts_with("/agents/"))
    }));
}
