//! Pack protocol v2 per call: an idempotency key, a call context from a run plan, and tool
//! input validation on the fixture tools (small valid inputs, compiled at registration).

use criterion::{Criterion, criterion_group, criterion_main};
use runstart::protocol::{CallSite, Deployment, EnvScopes, idempotency_key};
use runstart::run::{RunPlan, RunRequest, RunStart};
use serde_json::{Value, json};
use std::hint::black_box;

fn fixture(pack: &str) -> Vec<u8> {
    let path = format!(
        "{}/fixtures/packs/{pack}/index.json",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

fn plan(bytes: &[u8], agent: &str, parameters: Value) -> RunPlan {
    let run_start = RunStart::new();
    let pack = runstart::index::load(bytes).index.expect("index");
    run_start.register_pack("acme", &pack).expect("registers");
    let providers = format!("{}/fixtures/providers.json", env!("CARGO_MANIFEST_DIR"));
    let providers: Vec<runstart::route::ProviderMetadata> =
        serde_json::from_slice(&std::fs::read(providers).expect("providers")).expect("parse");
    for p in providers {
        run_start.register_provider("acme", p).expect("provider");
    }
    let request: RunRequest = serde_json::from_value(json!({
        "tenantId": "acme", "agent": {"id": agent}, "parameters": parameters,
        "now": "2026-11-30T09:00:00.000Z"
    }))
    .expect("request");
    run_start.prepare(&request).expect("a plan")
}

fn bench(c: &mut Criterion) {
    let run = "4b5f8c1e-2f0a-4c8e-9a51-0c7e2d9a6b13";
    assert_eq!(
        idempotency_key(
            run,
            "agent-loop#2/dispatch-tools",
            "acme.refunds.issue",
            Some("call_0")
        )
        .to_string(),
        "bf055463-2cce-5e82-b31a-43d7698db52e"
    );
    c.bench_function("idempotency_key/model_call", |b| {
        b.iter(|| {
            idempotency_key(
                black_box(run),
                black_box("agent-loop#2/dispatch-tools"),
                black_box("acme.refunds.issue"),
                black_box(Some("call_0")),
            )
        })
    });

    let bytes = fixture("support-desk");
    let deployment = Deployment::new(&bytes).expect("usable");
    let plan = plan(
        &bytes,
        "support.reply-drafter",
        json!({"customerName": "Ana", "ticketId": "T-9"}),
    );
    let mut env = EnvScopes::new();
    env.tenant
        .insert("CRM_API_URL".into(), "https://crm.example".into());
    let site = CallSite::new("acme", run)
        .with_project("p1")
        .with_request_id("toolu_01")
        .with_step_scope("agent-loop#2/dispatch-tools")
        .with_call_id("toolu_01")
        .with_env(&env);
    let (tool, ctx) = deployment
        .call_context(&plan, "support.customers.lookup", &site)
        .expect("a call context");
    assert_eq!(tool.version.as_deref(), Some("3.2.0"));
    assert_eq!(
        ctx.env.as_ref().expect("env")["CRM_API_URL"],
        "https://crm.example"
    );
    assert!(
        ctx.settings
            .as_ref()
            .expect("settings")
            .contains_key("support.reply-style")
    );
    c.bench_function("call_context/support_desk_lookup", |b| {
        b.iter_with_large_drop(|| {
            deployment.call_context(
                black_box(&plan),
                black_box("support.customers.lookup"),
                &site,
            )
        })
    });

    let shop = Deployment::new(&fixture("order-review")).expect("usable");
    let cases: [(&Deployment, &str, &str, Value); 6] = [
        (
            &deployment,
            "support.tickets.get",
            "1.4.2",
            json!({"ticketId": "T-1042"}),
        ),
        (
            &deployment,
            "support.customers.lookup",
            "3.2.0",
            json!({"email": "ana@acme.example"}),
        ),
        (
            &deployment,
            "support.kb.search",
            "0.9.3",
            json!({"query": "refund policy"}),
        ),
        (
            &deployment,
            "support.tickets.tag",
            "1.0.0",
            json!({"ticketId": "T-1", "tags": ["billing", "vip"]}),
        ),
        (
            &shop,
            "shop.fraud.score",
            "3.8.1",
            json!({"orderId": "A-1001", "total": 129.5}),
        ),
        (
            &shop,
            "shop.notify.staff",
            "1.2.0",
            json!({"text": "Order A-1001 held", "channel": "fraud"}),
        ),
    ];
    let mut group = c.benchmark_group("validate_tool_input");
    for (d, id, version, input) in &cases {
        d.validate_tool_input(id, Some(version), input)
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        group.bench_function(*id, |b| {
            b.iter(|| d.validate_tool_input(black_box(id), Some(version), black_box(input)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
