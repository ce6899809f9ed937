//! Run start: register a pack (and providers), then prepare runs.
//!
//! Input: parts separated by NUL bytes. The first part is a pack index; when it loads, it is
//! registered for tenant `t` next to the providers of `fixtures/providers.json`. A later
//! part that is a JSON array registers more providers; any other part is read as a
//! `RunRequest` and prepared. Every agent of the pack is also prepared once with a default
//! request.
//!
//! Invariants: registration and `prepare` never panic or hang; a plan names the agent asked
//! for; a failed registration changes nothing; replaying a plan's tool versions as a resumed
//! turn's pins (the slow path) gives the same plan as the one shared from registration.
#![no_main]

use libfuzzer_sys::fuzz_target;
use runstart::route::ProviderMetadata;
use runstart::run::{RunRequest, RunStart, TurnPins};
use serde_json::{Value, json};
use std::sync::LazyLock;

static PROVIDERS: LazyLock<Vec<ProviderMetadata>> = LazyLock::new(|| {
    serde_json::from_str(include_str!("../../fixtures/providers.json"))
        .expect("fixtures/providers.json holds providers")
});

fn default_request(agent: &str, version: Option<&str>) -> Value {
    let mut selector = json!({"id": agent});
    if let Some(v) = version {
        selector["version"] = json!(v);
    }
    json!({
        "tenantId": "t",
        "agent": selector,
        "parameters": {"orderId": "A-1", "ticketId": "T-1", "customer": {"name": "Ada"}},
        "input": {"text": "hi"},
        "conversation": {"id": "c", "turn": 1},
        "now": "2026-11-30T09:00:00.000Z"
    })
}

fuzz_target!(|data: &[u8]| {
    let mut parts = data.split(|&b| b == 0);
    let index_bytes = parts.next().unwrap_or_default();
    let run_start = RunStart::new();
    for p in PROVIDERS.iter() {
        let _ = run_start.register_provider("t", p.clone());
    }
    let loaded = runstart::index::load(index_bytes);
    let mut agents = Vec::new();
    if let Some(pack) = &loaded.index {
        let before = run_start.snapshot();
        match run_start.register_pack("t", pack) {
            Ok(()) => {
                agents = pack
                    .agents
                    .iter()
                    .map(|a| (a.entry.id.clone(), a.entry.version.clone()))
                    .collect();
            }
            Err(e) => {
                let _ = e.to_string();
                assert!(
                    std::sync::Arc::ptr_eq(&before, &run_start.snapshot()),
                    "a refused registration published a snapshot"
                );
            }
        }
    }
    let mut requests: Vec<RunRequest> = Vec::new();
    for part in parts.take(8) {
        if part.first() == Some(&b'[') {
            if let Ok(list) = serde_json::from_slice::<Vec<ProviderMetadata>>(part) {
                for p in list {
                    let _ = run_start.register_provider("t", p);
                }
            }
        } else if let Ok(r) = serde_json::from_slice(part) {
            requests.push(r);
        }
    }
    for (id, version) in agents.iter().take(8) {
        for v in [None, Some(version.as_str())] {
            if let Ok(r) = serde_json::from_value(default_request(id, v)) {
                requests.push(r);
            }
        }
    }
    for request in &requests {
        match run_start.prepare(request) {
            Ok(plan) => {
                assert_eq!(
                    &*plan.agent_id, request.agent.id,
                    "a plan for another agent"
                );
                // Duplicate tool ids collapse in `toolVersions`; replay only when they don't.
                if request.pins.is_none() && plan.tools.len() == plan.tool_versions.len() {
                    let mut resumed = request.clone();
                    resumed.pins = Some(TurnPins {
                        tool_versions: (*plan.tool_versions).clone(),
                        ..TurnPins::default()
                    });
                    let replayed = run_start.prepare(&resumed);
                    assert_eq!(
                        replayed.as_ref().ok(),
                        Some(&plan),
                        "a replayed turn differs"
                    );
                }
            }
            Err(e) => {
                let _ = (e.to_string(), e.code());
            }
        }
    }
});
