//! Run start: every failure code, pins, and many threads preparing while packs register.

use runstart::index::{PackIndex, load};
use runstart::route::ProviderMetadata;
use runstart::run::{RunRequest, RunStart, RunStartError};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

fn fixture(name: &str) -> PackIndex {
    let bytes = std::fs::read(format!(
        "{}/fixtures/packs/{name}/index.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("fixture");
    load(&bytes).index.expect("valid fixture")
}

fn providers() -> Vec<ProviderMetadata> {
    let text = std::fs::read_to_string(format!(
        "{}/fixtures/providers.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("providers");
    serde_json::from_str(&text).expect("providers parse")
}

fn pack(doc: Value) -> PackIndex {
    load(doc.to_string().as_bytes())
        .index
        .expect("test pack loads")
}

fn registry() -> RunStart {
    let rs = RunStart::new();
    rs.register_pack("acme", &fixture("support-desk"))
        .expect("support desk registers");
    rs.register_pack("acme", &fixture("order-review"))
        .expect("order review registers");
    for p in providers() {
        rs.register_provider("acme", p).expect("provider registers");
    }
    rs
}

/// A registry holding the fixture providers and one pack for `tenant`.
fn tenant_with(tenant: &str, pack: &PackIndex) -> RunStart {
    let rs = RunStart::new();
    for p in providers() {
        rs.register_provider(tenant, p).expect("provider registers");
    }
    rs.register_pack(tenant, pack).expect("pack registers");
    rs
}

fn request(v: Value) -> RunRequest {
    let mut v = v;
    let obj = v.as_object_mut().expect("object");
    obj.entry("tenantId").or_insert(json!("acme"));
    obj.entry("now")
        .or_insert(json!("2026-09-17T15:30:00.000Z"));
    serde_json::from_value(v).expect("request parses")
}

fn err(rs: &RunStart, v: Value) -> RunStartError {
    rs.prepare(&request(v)).expect_err("should fail")
}

#[test]
fn prepares_a_block_based_agent_end_to_end() {
    let rs = registry();
    let plan = rs
        .prepare(&request(json!({
            "agent": {"id": "support.reply-drafter"},
            "parameters": {"customerName": "Dana", "ticketId": "T-42", "plan": "enterprise"},
            "conversation": {"id": "c-1", "turn": 3}
        })))
        .expect("plan");
    assert_eq!(&*plan.agent_version, "2.1.0");
    let tools: Vec<_> = plan
        .tools
        .iter()
        .map(|t| (t.id.as_str(), t.version.as_str()))
        .collect();
    assert_eq!(
        tools,
        vec![
            ("support.tickets.get", "1.4.2"),
            ("support.kb.search", "0.9.3"),
            ("support.customers.lookup", "3.2.0"),
            ("support.tickets.reply", "2.0.1"),
        ]
    );
    assert_eq!(
        plan.block_versions
            .get("support.reply-prompt")
            .map(String::as_str),
        Some("1.1.0")
    );
    assert_eq!(
        plan.block_versions
            .get("support.reply-style")
            .map(String::as_str),
        Some("1.2.3")
    );
    assert_eq!(
        plan.model_settings.as_deref(),
        Some(&json!({"maxOutputTokens": 1024, "temperature": 0.2}))
    );
    assert_eq!(
        plan.instructions,
        "Reply to Dana about ticket T-42.\nTone: warm; at most 180 words.\nOffer a call with their account manager."
    );
    // region eu-only: the EU provider, not the US one; the fallback only as an alternate.
    assert_eq!(&*plan.route.provider_id, "anthropic-eu");
    assert!(!plan.route.fallback);
    assert_eq!(
        &plan.guardrails[..],
        ["support.no-refund-promises", "support.pii-redaction"]
    );
}

#[test]
fn auto_variables_come_from_the_request() {
    let rs = registry();
    let plan = rs
        .prepare(&request(json!({
            "agent": {"id": "support.triage", "version": "1.3.0"},
            "conversation": {"id": "c-9", "turn": 2},
            "parameters": {"language": "de"}
        })))
        .expect("plan");
    assert_eq!(
        plan.instructions,
        "You triage tickets for Acme. It is 2026-09-17T15:30:00.000Z.\n- billing\n- tech\nAgent Triage v1.3.0, turn 2.\nAntworte auf Deutsch."
    );
}

#[test]
fn agent_not_found() {
    let rs = registry();
    assert_eq!(
        err(&rs, json!({"agent": {"id": "nope"}})).code(),
        "agent-not-found"
    );
    assert_eq!(
        err(
            &rs,
            json!({"agent": {"id": "support.triage", "version": "9.9.9"}})
        )
        .code(),
        "agent-not-found"
    );
    assert_eq!(
        err(
            &rs,
            json!({"tenantId": "other", "agent": {"id": "support.triage"}})
        )
        .code(),
        "agent-not-found"
    );
}

#[test]
fn unresolved_guardrail_names_all_missing_ids() {
    let rs = registry();
    let mut p = fixture("order-review");
    p.guardrails.clear();
    let rs2 = tenant_with("acme", &p);
    let e = err(
        &rs2,
        json!({"agent": {"id": "shop.fraud-analyst"}, "parameters": {"orderId": "1"}}),
    );
    assert_eq!(e.code(), "unresolved-guardrail");
    assert_eq!(
        e.message(),
        "Agent \"shop.fraud-analyst\" references guardrails not in the registry: shop.amount-consistency"
    );
    drop(rs);
}

#[test]
fn missing_parameter_and_render_failure() {
    let rs = registry();
    let e = err(&rs, json!({"agent": {"id": "support.escalation-writer"}}));
    assert_eq!(e.code(), "missing-parameter");
    assert_eq!(e.message(), "Required parameter missing: ticketId");
    let e = err(
        &rs,
        json!({"agent": {"id": "support.reply-drafter"}, "parameters": {}}),
    );
    assert_eq!(
        e.message(),
        "Required parameters missing: customerName, ticketId"
    );
    // An optional parameter without a default that the template reads: undefined variable
    // (`default` does not rescue it, as in LiquidJS).
    let mut doc = one_agent_pack("{{ a }} {{ b | default: 3 }}");
    doc["agents"][0]["parameters"] = json!([{"name": "a", "type": "string"}, {"name": "b", "type": "number", "required": false}]);
    let rs4 = tenant_with("t", &pack(doc));
    let e = rs4
        .prepare(&request(
            json!({"tenantId": "t", "agent": {"id": "t.a"}, "parameters": {"a": "x"}}),
        ))
        .expect_err("fails");
    assert_eq!(e.code(), "missing-parameter");
    assert_eq!(e.message(), "Template references an unresolved variable: b");
    let rs3 = tenant_with("t", &pack(one_agent_pack("{{ a }}{% include 'header' %}")));
    let e = rs3
        .prepare(&request(
            json!({"tenantId": "t", "agent": {"id": "t.a"}, "parameters": {"a": "hello"}}),
        ))
        .expect_err("fails");
    assert_eq!(e.code(), "render-failure", "{e:?}");
}

fn one_agent_pack(template: &str) -> Value {
    json!({
        "v": 1, "packId": "t", "packVersion": "1.0.0", "artifactVersion": "1", "publishedAt": "2026-01-01T00:00:00.000Z",
        "tools": [{"id": "t.tool", "version": "1.0.0", "input": {}, "output": {}, "modulePath": "t.ts"}],
        "guardrails": [], "flows": [],
        "agents": [{"id": "t.a", "version": "1.0.0", "name": "A", "instructions": template,
            "parameters": [{"name": "a", "type": "string"}],
            "capabilities": [{"needs": [{"feature": "tool-use"}]}], "tools": [{"id": "t.tool", "version": "^1.0.0"}], "modulePath": "a.ts"}]
    })
}

#[test]
fn capability_routing_failed_carries_the_router_error() {
    let rs = registry();
    let e = err(
        &rs,
        json!({
            "agent": {"id": "shop.order-reviewer"},
            "parameters": {"orderNumber": "A-1"},
            "tenantPolicy": {"tenantId": "acme", "providers": {"deny": ["anthropic-eu", "openai-us", "local-fallback"]}}
        }),
    );
    assert_eq!(e.code(), "capability-routing-failed");
    match e.cause() {
        Some(cause) => assert!(!cause.reasons.is_empty()),
        None => panic!("{e:?}"),
    }
}

#[test]
fn tool_pins_reach_retired_versions_and_fail_when_gone() {
    let rs = registry();
    let v = semver::Version::parse("3.8.1").expect("version");
    // Retired: ranges skip it, but the agent's pin still reaches it.
    assert!(rs.retire_tool("acme", "shop.fraud.score", &v));
    let plan = rs
        .prepare(&request(
            json!({"agent": {"id": "shop.fraud-analyst"}, "parameters": {"orderId": "1"}}),
        ))
        .expect("plan");
    assert_eq!(plan.tool_versions["shop.fraud.score"], "3.8.1");
    // A resumed turn pins its own journaled versions.
    let e = err(
        &rs,
        json!({"agent": {"id": "shop.fraud-analyst"}, "parameters": {"orderId": "1"},
        "pins": {"toolVersions": {"shop.fraud.score": "3.9.0"}}}),
    );
    assert_eq!(e.code(), "tool-version-unresolvable");
    assert_eq!(
        e.message(),
        "Tool \"shop.fraud.score\": this turn started with version 3.9.0, which is no longer registered; it doesn't run another version mid-turn."
    );
    // Gone: the pin fails with upstream's message.
    assert!(rs.remove_tool("acme", "shop.fraud.score", &v));
    let e = err(
        &rs,
        json!({"agent": {"id": "shop.fraud-analyst"}, "parameters": {"orderId": "1"}}),
    );
    assert_eq!(e.code(), "tool-version-unresolvable");
    assert_eq!(
        e.message(),
        "Tool \"shop.fraud.score\": agent \"shop.fraud-analyst\" version 1.2.0 runs version 3.8.1 (its pins), which isn't registered; it doesn't run another version."
    );
    match e {
        RunStartError::ToolVersionUnresolvable {
            requested_range, ..
        } => assert_eq!(requested_range, "^3.0.0"),
        other => panic!("{other:?}"),
    }
    // The whole id gone: the registry's message is appended.
    let v4 = semver::Version::parse("4.0.0").expect("version");
    assert!(rs.remove_tool("acme", "shop.fraud.score", &v4));
    let e = err(
        &rs,
        json!({"agent": {"id": "shop.fraud-analyst"}, "parameters": {"orderId": "1"}}),
    );
    assert!(
        e.message().ends_with(
            "it doesn't run another version. No tool registered with id \"shop.fraud.score\""
        ),
        "{}",
        e.message()
    );
}

#[test]
fn registration_refuses_unpinnable_agents() {
    let rs = RunStart::new();
    let mut doc = one_agent_pack("{{ a }}");
    doc["agents"][0]["tools"][0]["version"] = json!("^2.0.0");
    let e = rs.register_pack("t", &pack(doc)).expect_err("refused");
    assert!(
        e.to_string().contains("tool-version") || e.to_string().contains("has no version"),
        "{e}"
    );
    // Nothing was registered.
    assert!(
        rs.prepare(&request(
            json!({"tenantId": "t", "agent": {"id": "t.a"}, "parameters": {"a": "x"}})
        ))
        .is_err()
    );
}

#[test]
fn block_unresolvable_and_unresolved_tool_are_reported() {
    // Registered without pins' targets: build a state where a pinned block is gone by
    // resuming with a journaled block version that does not exist.
    let rs = registry();
    let e = err(
        &rs,
        json!({"agent": {"id": "support.reply-drafter"}, "parameters": {"customerName": "D", "ticketId": "T"},
        "pins": {"blockVersions": {"support.reply-style": "9.0.0"}}}),
    );
    assert_eq!(e.code(), "block-unresolvable");
    assert_eq!(
        e.message(),
        "settings block \"support.reply-style\" runs version 9.0.0, which isn't published"
    );
    let e = err(
        &rs,
        json!({"agent": {"id": "support.reply-drafter"}, "parameters": {"customerName": "D", "ticketId": "T"},
        "pins": {"toolVersions": {"support.kb.search": "0.9.3"}, "providerId": "openai-us", "model": "gpt-large"}}),
    );
    // Resumed on a provider the agent's region need now excludes.
    assert_eq!(e.code(), "capability-routing-failed");
    assert!(
        e.message().starts_with(
            "The turn was routed to openai-us/gpt-large, which is no longer registered or allowed: "
        ),
        "{}",
        e.message()
    );
}

#[test]
fn unresolved_tool_when_the_id_is_unknown_at_run_start() {
    let rs = tenant_with("t", &pack(one_agent_pack("{{ a }}")));
    assert!(rs.remove_tool("t", "t.tool", &semver::Version::new(1, 0, 0)));
    let e = rs
        .prepare(&request(
            json!({"tenantId": "t", "agent": {"id": "t.a"}, "parameters": {"a": "x"}}),
        ))
        .expect_err("fails");
    // Pinned at registration, so the pin reports the gone id with the registry's message.
    assert_eq!(e.code(), "tool-version-unresolvable");
    assert!(
        e.message()
            .ends_with("No tool registered with id \"t.tool\""),
        "{}",
        e.message()
    );
}

#[test]
fn eight_threads_prepare_while_packs_and_providers_register() {
    let rs = Arc::new(RunStart::new());
    for p in providers() {
        rs.register_provider("acme", p).expect("provider");
    }
    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let (rs, done) = (Arc::clone(&rs), Arc::clone(&done));
        std::thread::spawn(move || {
            for n in 0..60u64 {
                // Each pack brings a tool and an agent that needs it: a run that sees the agent
                // must see the tool too.
                let mut doc = one_agent_pack("{{ a }} #{{ agent.version }}");
                doc["tools"][0]["version"] = json!(format!("1.{n}.0"));
                doc["agents"][0]["version"] = json!(format!("1.{n}.0"));
                doc["agents"][0]["tools"][0]["version"] = json!(format!("~1.{n}.0"));
                rs.register_pack("acme", &pack(doc)).expect("registers");
                if n % 10 == 0 {
                    let mut extra = providers()[2].clone();
                    extra.id = format!("extra-{n}");
                    rs.register_provider("acme", extra).expect("provider");
                }
            }
            done.store(true, Ordering::SeqCst);
        })
    };
    let readers: Vec<_> = (0..8)
        .map(|_| {
            let (rs, done) = (Arc::clone(&rs), Arc::clone(&done));
            std::thread::spawn(move || {
                let req = request(json!({"agent": {"id": "t.a"}, "parameters": {"a": "x"}}));
                let mut seen = 0usize;
                while !done.load(Ordering::SeqCst) || seen == 0 {
                    let snapshot = rs.snapshot();
                    match snapshot.prepare(&req) {
                        Ok(plan) => {
                            seen += 1;
                            // The agent and its exact tool version arrived together.
                            let minor = plan
                                .agent_version
                                .split('.')
                                .nth(1)
                                .expect("minor")
                                .to_owned();
                            assert_eq!(plan.tool_versions["t.tool"], format!("1.{minor}.0"));
                            assert_eq!(plan.instructions, format!("x #{}", plan.agent_version));
                            // The same snapshot answers the same, single-threaded.
                            assert_eq!(snapshot.prepare(&req).expect("again"), plan);
                        }
                        Err(e) => assert_eq!(e.code(), "agent-not-found", "{e:?}"),
                    }
                }
                seen
            })
        })
        .collect();
    writer.join().expect("writer");
    for r in readers {
        assert!(r.join().expect("reader") > 0);
    }
    let last = rs
        .prepare(&request(
            json!({"agent": {"id": "t.a"}, "parameters": {"a": "x"}}),
        ))
        .expect("plan");
    assert_eq!(&*last.agent_version, "1.59.0");
}

/// Parameters every fixture agent's template is satisfied with, limited to those `pack`
/// declares for `agent` (on the agent, or on a prompt block of the pack): run start refuses
/// undeclared ones.
fn all_parameters(pack: &PackIndex, agent: &runstart::index::wire::Agent) -> Value {
    let all = json!({
        "ticketId": "T-1", "customerName": "Dana", "orderId": "A-1", "orderNumber": "A-1",
        "country": "DE", "company": "Acme"
    });
    let mut names: Vec<String> = agent
        .parameters
        .iter()
        .flatten()
        .map(|p| p.name.clone())
        .collect();
    if agent.parameters.is_none() {
        for b in &pack.blocks {
            if let Some(p) = b.entry.content.get("parameters").and_then(Value::as_array) {
                names.extend(
                    p.iter()
                        .filter_map(|p| Some(p.get("name")?.as_str()?.to_owned())),
                );
            }
        }
    }
    let kept: serde_json::Map<String, Value> = all
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| names.contains(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Value::Object(kept)
}

#[test]
fn a_plan_shared_from_registration_equals_a_replayed_turn() {
    let rs = registry();
    let mut compared = 0;
    for name in ["support-desk", "order-review"] {
        let pack = fixture(name);
        for agent in &pack.agents {
            let first = request(json!({
                "agent": {"id": agent.entry.id},
                "parameters": all_parameters(&pack, &agent.entry),
                "conversation": {"id": "c-1", "turn": 1}
            }));
            let plan = rs.prepare(&first).expect("fixture agent prepares");
            // The slow path: the same run, resumed with the versions the plan journaled.
            let mut resumed = first.clone();
            resumed.pins = Some(runstart::run::TurnPins {
                tool_versions: (*plan.tool_versions).clone(),
                block_versions: (*plan.block_versions).clone(),
                ..Default::default()
            });
            assert_eq!(rs.prepare(&resumed).expect("resumed turn"), plan);
            compared += 1;
        }
    }
    assert_eq!(compared, 6);
}

#[test]
fn a_republished_block_version_reaches_the_next_run() {
    let with_tone = |tone: &str| {
        let mut doc = one_agent_pack("Tone: {{ settings[\"t.style\"].tone }}.");
        doc["blocks"] = json!([{"id": "t.style", "version": "1.0.0", "kind": "settings",
            "modulePath": "b.json", "content": {"values": {"tone": tone}}}]);
        doc["agents"][0]["settings"] = json!([{"id": "t.style", "version": "^1.0.0"}]);
        doc["agents"][0]["parameters"] = json!([]);
        pack(doc)
    };
    let rs = tenant_with("acme", &with_tone("warm"));
    let run = request(json!({"agent": {"id": "t.a"}}));
    assert_eq!(rs.prepare(&run).expect("plan").instructions, "Tone: warm.");
    // Only the block is published again (same version, new values); the agent is not.
    let mut block_only = with_tone("dry");
    block_only.agents.clear();
    rs.register_pack("acme", &block_only).expect("registers");
    assert_eq!(rs.prepare(&run).expect("plan").instructions, "Tone: dry.");
}

#[test]
fn a_scalar_input_renders_as_itself() {
    let mut doc = one_agent_pack("In: {{ input }} ({{ input | size }})");
    doc["agents"][0]["parameters"] = json!([]);
    let rs = tenant_with("acme", &pack(doc));
    let plan = rs
        .prepare(&request(json!({"agent": {"id": "t.a"}, "input": "hello"})))
        .expect("plan");
    assert_eq!(plan.instructions, "In: hello (5)");
}
/// Round `n`'s pack for `tenant`: tool `t.tool` 1.n.0 and agent `t.a` 1.n.0 pinned to it,
/// whose instructions name the tenant (so a plan from another tenant's pack shows).
fn tenant_round_pack(tenant: &str, n: u64) -> PackIndex {
    let mut doc = one_agent_pack(&format!("{{{{ a }}}} @{tenant} #{{{{ agent.version }}}}"));
    doc["tools"][0]["version"] = json!(format!("1.{n}.0"));
    doc["agents"][0]["version"] = json!(format!("1.{n}.0"));
    doc["agents"][0]["tools"][0]["version"] = json!(format!("~1.{n}.0"));
    pack(doc)
}

/// Checks one answer of `snapshot` for `tenant`: a plan is the agent version's own (its
/// pinned tool, the tenant's instructions) and the snapshot gives it again; a refusal is
/// one the writers' steps can explain.
fn check_answer(snapshot: &runstart::run::Snapshot, tenant: &str, version: Option<u64>) -> bool {
    let mut agent = json!({"id": "t.a"});
    if let Some(v) = version {
        agent["version"] = json!(format!("1.{v}.0"));
    }
    let req = request(json!({"tenantId": tenant, "agent": agent, "parameters": {"a": "x"}}));
    match snapshot.prepare(&req) {
        Ok(plan) => {
            let minor = plan
                .agent_version
                .split('.')
                .nth(1)
                .expect("minor")
                .to_owned();
            if let Some(v) = version {
                assert_eq!(minor, v.to_string());
            }
            assert_eq!(plan.tool_versions["t.tool"], format!("1.{minor}.0"));
            assert_eq!(
                plan.instructions,
                format!("x @{tenant} #{}", plan.agent_version)
            );
            assert_eq!(
                snapshot.prepare(&req).expect("the same snapshot again"),
                plan
            );
            true
        }
        Err(e) => {
            // Not registered yet, or (for an older version asked by number) its tool version
            // removed; the highest version's tool is never removed.
            let allowed: &[&str] = match version {
                None => &["agent-not-found"],
                Some(_) => &["agent-not-found", "tool-version-unresolvable"],
            };
            assert!(allowed.contains(&e.code()), "{tenant} {version:?}: {e:?}");
            // The same snapshot refuses the same way.
            assert_eq!(snapshot.prepare(&req).expect_err("again").code(), e.code());
            false
        }
    }
}

#[test]
fn several_tenants_written_at_once_never_show_half_a_write() {
    const WRITERS: usize = 3;
    const TENANTS_EACH: usize = 3;
    const ROUNDS: u64 = 24;
    let rs = Arc::new(RunStart::new());
    let done = Arc::new(AtomicBool::new(false));
    let tenant = |w: usize, k: usize| format!("w{w}-t{k}");
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let rs = Arc::clone(&rs);
            std::thread::spawn(move || {
                for k in 0..TENANTS_EACH {
                    for p in providers() {
                        rs.register_provider(&tenant(w, k), p).expect("provider");
                    }
                }
                for n in 0..ROUNDS {
                    for k in 0..TENANTS_EACH {
                        let t = tenant(w, k);
                        rs.register_pack(&t, &tenant_round_pack(&t, n))
                            .expect("registers");
                        // Retired: ranges skip it, the agent's pin still reaches it.
                        if n % 3 == 0 {
                            let v = semver::Version::new(1, n, 0);
                            assert!(rs.retire_tool(&t, "t.tool", &v));
                        }
                        // Removed: agent 1.(n-2).0 can no longer run.
                        if n >= 2 {
                            let v = semver::Version::new(1, n - 2, 0);
                            assert!(rs.remove_tool(&t, "t.tool", &v));
                        }
                    }
                }
            })
        })
        .collect();
    let readers: Vec<_> = (0..4)
        .map(|r| {
            let (rs, done) = (Arc::clone(&rs), Arc::clone(&done));
            std::thread::spawn(move || {
                let mut plans = 0usize;
                let mut i: usize = r;
                while !done.load(Ordering::SeqCst) || plans == 0 {
                    i = i.wrapping_mul(31).wrapping_add(7);
                    let snapshot = rs.snapshot();
                    let t = tenant(i % WRITERS, (i / WRITERS) % TENANTS_EACH);
                    let version = i.is_multiple_of(2).then_some((i as u64 / 6) % ROUNDS);
                    plans += usize::from(check_answer(&snapshot, &t, version));
                }
                plans
            })
        })
        .collect();
    for w in writers {
        w.join().expect("writer");
    }
    done.store(true, Ordering::SeqCst);
    for r in readers {
        assert!(r.join().expect("reader") > 0);
    }
    // At the end every tenant runs its last round, and the removed versions are refused.
    let snapshot = rs.snapshot();
    for w in 0..WRITERS {
        for k in 0..TENANTS_EACH {
            let t = tenant(w, k);
            assert!(check_answer(&snapshot, &t, None));
            assert!(check_answer(&snapshot, &t, Some(ROUNDS - 1)));
            assert!(!check_answer(&snapshot, &t, Some(ROUNDS - 3)));
        }
    }
}

/// The same pack registered for many tenants is compiled once: every tenant runs it, and a
/// later write for one tenant changes only that tenant.
#[test]
fn a_pack_shared_by_many_tenants_stays_per_tenant_under_writes() {
    let rs = RunStart::new();
    let shared = pack(one_agent_pack("{{ a }} #{{ agent.version }}"));
    for k in 0..50 {
        let t = format!("s{k}");
        for p in providers() {
            rs.register_provider(&t, p).expect("provider");
        }
        rs.register_pack(&t, &shared).expect("registers");
    }
    let newer = {
        let mut doc = one_agent_pack("{{ a }} newer");
        doc["tools"][0]["version"] = json!("1.1.0");
        doc["agents"][0]["version"] = json!("1.1.0");
        pack(doc)
    };
    rs.register_pack("s7", &newer).expect("registers");
    assert!(rs.remove_tool("s3", "t.tool", &semver::Version::new(1, 0, 0)));
    for k in 0..50 {
        let req = request(
            json!({"tenantId": format!("s{k}"), "agent": {"id": "t.a"}, "parameters": {"a": "x"}}),
        );
        match k {
            7 => assert_eq!(rs.prepare(&req).expect("plan").instructions, "x newer"),
            3 => assert_eq!(
                rs.prepare(&req).expect_err("its tool is gone").code(),
                "tool-version-unresolvable"
            ),
            _ => assert_eq!(rs.prepare(&req).expect("plan").instructions, "x #1.0.0"),
        }
    }
}

/// Runs without a policy or resumed route of their own are routed once per thread and tenant
/// state; every change to the tenant (a provider gone or back, a policy set) is seen by the
/// next run, and runs that bring a policy route it.
#[test]
fn repeated_runs_route_alike_and_see_every_change_at_once() {
    let rs = registry();
    let req =
        request(json!({"agent": {"id": "shop.fraud-analyst"}, "parameters": {"orderId": "1"}}));
    let first = rs.prepare(&req).expect("plan");
    for _ in 0..3 {
        assert_eq!(rs.prepare(&req).expect("plan"), first);
    }
    let picked = first.route.provider_id.to_string();
    assert!(rs.unregister_provider("acme", &picked));
    let without = rs.prepare(&req);
    match &without {
        Ok(plan) => assert_ne!(&*plan.route.provider_id, picked.as_str()),
        Err(e) => assert_eq!(e.code(), "capability-routing-failed"),
    }
    let back = providers()
        .into_iter()
        .find(|p| p.id == picked)
        .expect("the picked provider is a fixture provider");
    rs.register_provider("acme", back)
        .expect("provider registers");
    assert_eq!(rs.prepare(&req).expect("plan"), first);
    // A registered policy that denies the pick.
    let deny: runstart::route::TenantPolicy = serde_json::from_value(
        json!({"tenantId": "acme", "providers": {"deny": [picked.clone()]}}),
    )
    .expect("policy");
    rs.set_tenant_policy("acme", Some(deny.clone()));
    match rs.prepare(&req) {
        Ok(plan) => assert_ne!(&*plan.route.provider_id, picked.as_str()),
        Err(e) => assert_eq!(e.code(), "capability-routing-failed"),
    }
    rs.set_tenant_policy("acme", None);
    assert_eq!(rs.prepare(&req).expect("plan"), first);
    // A run's own policy is routed for that run alone.
    let mut own = req.clone();
    own.tenant_policy = Some(deny);
    match rs.prepare(&own) {
        Ok(plan) => assert_ne!(&*plan.route.provider_id, picked.as_str()),
        Err(e) => assert_eq!(e.code(), "capability-routing-failed"),
    }
    assert_eq!(rs.prepare(&req).expect("plan"), first);
}
