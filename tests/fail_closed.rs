//! Inputs that steer a route or a plan are checked, never ignored (issue 17): each test gives
//! the failing input and the exact answer, through the library.

use runstart::input;
use runstart::route::{ProviderMetadata, RouteInput, TenantPolicy};
use runstart::run::{RunRequest, RunStart, RunStartError};
use serde_json::json;

fn registry() -> RunStart {
    let root = env!("CARGO_MANIFEST_DIR");
    let bytes =
        std::fs::read(format!("{root}/fixtures/packs/support-desk/index.json")).expect("fixture");
    let pack = runstart::index::load(&bytes).index.expect("valid fixture");
    let rs = RunStart::new();
    rs.register_pack("acme", &pack).expect("registers");
    let providers: Vec<ProviderMetadata> = input::from_slice(
        &std::fs::read(format!("{root}/fixtures/providers.json")).expect("providers"),
    )
    .expect("fixture providers parse strictly");
    for p in providers {
        rs.register_provider("acme", p).expect("valid provider");
    }
    rs
}

fn escalation(now: &str) -> RunRequest {
    RunRequest::new("acme", "support.escalation-writer", now).with_parameter("ticketId", "T-17")
}

fn invalid(e: RunStartError) -> (String, String) {
    let value = serde_json::to_value(&e).expect("serializes");
    assert_eq!(value["code"], "invalid-request");
    (
        value["instancePath"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        e.to_string(),
    )
}

#[test]
fn the_misspelt_policy_of_the_issue_is_refused_everywhere_a_policy_enters() {
    let policy = json!({"deniedProviders": ["anthropic-eu"]});
    // As a policy on its own (serde directly: the Node binding's path).
    let plain = serde_json::from_value::<TenantPolicy>(policy.clone()).unwrap_err();
    assert_eq!(
        plain.to_string(),
        "unknown field `deniedProviders`, expected one of `tenantId`, `providers`, `models`, `regionAllow`, `maxCostPerCallUsd`, `maxTokensPerCall`"
    );
    // Inside a run request, with its place.
    let request = json!({
        "tenantId": "acme", "agent": {"id": "support.escalation-writer"},
        "parameters": {"ticketId": "T-17"}, "now": "2026-11-30T09:00:00.000Z",
        "tenantPolicy": policy
    });
    let err = input::from_value::<RunRequest>(request).unwrap_err();
    assert_eq!(
        err.to_string(),
        "/tenantPolicy/deniedProviders: unknown field; expected one of \"tenantId\", \"providers\", \"models\", \"regionAllow\", \"maxCostPerCallUsd\", \"maxTokensPerCall\""
    );
    // Inside a route input.
    let route = json!({"capability": {"needs": []}, "providers": [], "tenantPolicy": {"deniedProviders": []}});
    assert_eq!(
        input::from_value::<RouteInput>(route)
            .unwrap_err()
            .pointer(),
        "/tenantPolicy/deniedProviders"
    );
    // The spelling that exists does deny the provider.
    let good: TenantPolicy =
        input::from_value(json!({"providers": {"deny": ["anthropic-eu"]}})).expect("policy");
    let plan = registry()
        .prepare(&escalation("2026-11-30T09:00:00.000Z").with_tenant_policy(good))
        .expect("another provider");
    assert_ne!(&*plan.route.provider_id, "anthropic-eu");
}

#[test]
fn a_run_request_refuses_unknown_fields_with_their_place() {
    let err = input::from_value::<RunRequest>(json!({
        "tenantId": "acme", "agent": {"id": "a", "versoin": "1.0.0"}, "now": "2026-11-30T09:00:00.000Z"
    }))
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "/agent/versoin: unknown field; expected one of \"id\", \"version\" (did you mean \"version\"?)"
    );
}

#[test]
fn prepare_checks_parameter_types() {
    let rs = registry();
    let (at, message) = invalid(
        rs.prepare(&escalation("2026-11-30T09:00:00.000Z").with_parameter("maxWords", "lots"))
            .unwrap_err(),
    );
    assert_eq!(at, "/parameters/maxWords");
    assert_eq!(
        message,
        "parameter \"maxWords\" is declared as number, but the value is \"lots\"; give a JSON number, like 80"
    );
    let (at, message) = invalid(
        rs.prepare(&escalation("2026-11-30T09:00:00.000Z").with_parameter("urgent", "yes"))
            .unwrap_err(),
    );
    assert_eq!(at, "/parameters/urgent");
    assert_eq!(
        message,
        "parameter \"urgent\" is declared as boolean, but the value is \"yes\"; give true or false"
    );
    let (_, message) = invalid(
        rs.prepare(&escalation("2026-11-30T09:00:00.000Z").with_parameter("ticketId", 17))
            .unwrap_err(),
    );
    assert_eq!(
        message,
        "parameter \"ticketId\" is declared as string, but the value is 17; give a JSON string"
    );
    let plan = rs
        .prepare(&escalation("2026-11-30T09:00:00.000Z").with_parameter("maxWords", 80))
        .expect("a number is a number");
    assert!(plan.instructions.contains("80"), "{}", plan.instructions);
}

#[test]
fn prepare_names_the_nearest_declared_parameter() {
    let (at, message) = invalid(
        registry()
            .prepare(&escalation("2026-11-30T09:00:00.000Z").with_parameter("maxWord", 80))
            .unwrap_err(),
    );
    assert_eq!(at, "/parameters/maxWord");
    assert_eq!(
        message,
        "agent \"support.escalation-writer\" declares no parameter \"maxWord\"; did you mean \"maxWords\"? (declared: ticketId, team, urgent, maxWords)"
    );
}

#[test]
fn prepare_checks_the_clock_and_the_library_can_write_it() {
    let rs = registry();
    for bad in ["2026-11-30", "2026-11-30T09:00:00+01:00", "yesterday"] {
        let (at, message) = invalid(rs.prepare(&escalation(bad)).unwrap_err());
        assert_eq!(at, "/now");
        assert_eq!(
            message,
            format!(
                "now {bad:?} is not an instant as toISOString writes it, like 2026-09-17T15:30:00.000Z (UTC, with a real date); runstart::run::iso_now() gives the current one"
            )
        );
    }
    let now = runstart::run::iso_now();
    assert!(runstart::run::is_iso_instant(&now), "{now}");
    rs.prepare(&escalation(&now))
        .expect("the helper's clock is accepted");
}

#[test]
fn a_pack_error_shows_every_issue() {
    let bytes = std::fs::read(format!(
        "{}/fixtures/packs/broken/index.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("fixture");
    let Some(pack) = runstart::index::load(&bytes).index else {
        panic!("the broken fixture still loads");
    };
    let err = RunStart::new().register_pack("t", &pack).unwrap_err();
    let runstart::run::RegisterError::Pack(issues) = &err else {
        panic!("a pack error: {err}");
    };
    let text = err.to_string();
    assert!(issues.len() > 1);
    assert!(text.starts_with(&format!(
        "the pack cannot be registered ({} issue(s)):\n  ",
        issues.len()
    )));
    for issue in issues {
        assert!(text.contains(&format!("\n  {issue}")), "{text}");
    }
}

#[test]
fn a_capability_declaration_with_a_misspelt_field_is_refused_at_registration() {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut doc: serde_json::Value = serde_json::from_slice(
        &std::fs::read(format!("{root}/fixtures/packs/support-desk/index.json")).expect("fixture"),
    )
    .expect("JSON");
    doc["agents"][0]["capabilities"][0]["needs"][0] = json!({"feture": "tool-use"});
    doc["agents"][0]["capabilities"][0]["prefers"] = json!([]);
    let bytes = doc.to_string();
    let pack = runstart::index::load(bytes.as_bytes())
        .index
        .expect("loads: capabilities are checked by validate and registration");
    let err = RunStart::new().register_pack("t", &pack).unwrap_err();
    let runstart::run::RegisterError::Pack(issues) = err else {
        panic!("a pack error");
    };
    let got: Vec<String> = issues.iter().map(ToString::to_string).collect();
    assert_eq!(
        got,
        [
            // The capability schema's issues, as `validate` reports them (tests/pack_parity.rs).
            "error[invalid-capability] /agents/0/capabilities/0/needs/0: must match exactly one schema in oneOf",
            "error[invalid-capability] /agents/0/capabilities/0: must NOT have additional properties ('prefers' is not a known field)"
        ]
    );
}
