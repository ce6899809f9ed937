//! Run start: an agent with 20 tool refs, 2 guardrails, a settings block and 2 capabilities,
//! routed against the shared medium routing workload; one call (repeated: its routes come
//! from the thread's memo), the first call after a write to the tenant (it routes), then
//! batches of 1,000 calls on one thread and on each of two threads at once.

mod util {
    pub fn shared(relative: &str) -> String {
        let path = format!("{}/../shared/{relative}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
    }
}

use criterion::{Criterion, criterion_group, criterion_main};
use runstart::index::load;
use runstart::route::{ProviderMetadata, RouteInput, TenantPolicy};
use runstart::run::{RunRequest, RunStart};
use serde_json::{Value, json};
use std::hint::black_box;

/// The pack: 20 tools, 2 guardrails, a settings block, one agent using all of them with the
/// medium workload's capability plus an embedding capability.
fn setup() -> (RunStart, RunRequest, Option<TenantPolicy>) {
    let workloads: Value =
        serde_json::from_str(&util::shared("bench/route-workloads.json")).expect("workloads");
    let medium = workloads["workloads"]
        .as_array()
        .and_then(|w| w.iter().find(|x| x["name"] == "medium"))
        .expect("the medium workload");
    let medium: RouteInput = serde_json::from_value(medium["input"].clone()).expect("medium input");
    let tools: Vec<Value> = (0..20)
        .map(|i| json!({"id": format!("bench.tool-{i:02}"), "version": format!("1.{i}.0"), "input": {"type": "object"}, "output": {"type": "object"}, "modulePath": "t.ts"}))
        .collect();
    let ranges = [
        "^1.0.0",
        "~1.{i}.0",
        "1.x",
        ">=1.0.0 <2.0.0",
        "1.{i}.0 || 2.0.0",
    ];
    let refs: Vec<Value> = (0..20)
        .map(|i| json!({"id": format!("bench.tool-{i:02}"), "version": ranges[i % ranges.len()].replace("{i}", &i.to_string())}))
        .collect();
    let llm = serde_json::to_value(&medium.capability).expect("capability");
    let pack = json!({
        "v": 1, "packId": "bench", "packVersion": "1.0.0", "artifactVersion": "1", "publishedAt": "2026-01-01T00:00:00.000Z",
        "tools": tools,
        "guardrails": [
            {"id": "bench.guard-a", "kind": "zero-llm", "action": {"on-violation": "halt"}, "checkModulePath": "g.ts"},
            {"id": "bench.guard-b", "kind": "zero-llm", "action": {"on-violation": "warn"}, "checkModulePath": "g.ts"}
        ],
        "blocks": [{"id": "bench.style", "version": "1.2.0", "kind": "settings", "modulePath": "b.json", "content": {"values": {"tone": "warm", "maxWords": 150}}}],
        "flows": [],
        "agents": [{
            "id": "bench.agent", "version": "1.0.0", "name": "Bench", "modulePath": "a.ts",
            "instructions": "You help {{ customer }} of {{ company }} on {{ today }}.\n{% if vip %}VIP.{% endif %} Tone: {{ settings[\"bench.style\"].tone }}, {{ settings[\"bench.style\"].maxWords }} words.",
            "parameters": [{"name": "customer", "type": "string"}, {"name": "company", "type": "string", "default": "Acme"}, {"name": "vip", "type": "boolean", "required": false, "default": false}],
            "settings": [{"id": "bench.style", "version": "^1.0.0"}],
            "capabilities": [llm, {"kind": "embedding", "needs": [{"contextWindow": {"op": ">=", "value": 1}}]}],
            "tools": refs,
            "guardrails": ["bench.guard-a", "bench.guard-b"],
            "preferredProvider": medium.preferred_provider
        }]
    });
    let index = load(pack.to_string().as_bytes())
        .index
        .expect("bench pack loads");
    let rs = RunStart::new();
    rs.register_pack("bench", &index).expect("registers");
    let mut providers: Vec<ProviderMetadata> = medium.providers.clone();
    let mut embed = providers[0].clone();
    embed.id = "embedder".into();
    embed.capability_kind = Some("embedding".into());
    providers.push(embed);
    for p in providers {
        rs.register_provider("bench", p)
            .expect("provider registers");
    }
    let policy = medium.tenant_policy.clone();
    if policy.is_some() {
        rs.set_tenant_policy("bench", policy.clone());
    }
    let request: RunRequest = serde_json::from_value(json!({
        "tenantId": "bench", "agent": {"id": "bench.agent"},
        "parameters": {"customer": "Dana", "vip": true},
        "now": "2026-11-30T09:00:00.000Z"
    }))
    .expect("request");
    (rs, request, policy)
}

fn bench_prepare(c: &mut Criterion) {
    let (rs, request, policy) = setup();
    let plan = rs.prepare(&request).expect("the bench request prepares");
    assert_eq!(plan.tools.len(), 20);
    assert_eq!(plan.capabilities.len(), 2);
    let expected_provider = plan.route.provider_id.clone();
    let mut group = c.benchmark_group("run_start");
    group.bench_function("prepare/medium", |b| {
        b.iter_with_large_drop(|| rs.prepare(black_box(&request)))
    });
    // The first run after a write to the tenant (here: its policy set again) routes; later
    // runs of the agent on the same thread copy that answer (`run::route_memo`).
    group.bench_function("prepare/medium_first_run_after_a_write", |b| {
        b.iter_batched(
            || rs.set_tenant_policy("bench", policy.clone()),
            |()| rs.prepare(black_box(&request)),
            criterion::BatchSize::PerIteration,
        )
    });
    // Contention check: a batch of prepares (each plan dropped at once) on one thread, then the
    // same batch on each of two threads at once. Without shared locks or counters the two-thread
    // batch takes as long as the one-thread batch (the machine has two cores).
    const BATCH: usize = 1_000;
    let batch = || {
        for _ in 0..BATCH {
            drop(black_box(rs.prepare(black_box(&request))));
        }
    };
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    group.bench_function("prepare/medium_batch_1000/1_thread", |b| {
        b.iter(|| one.install(batch))
    });
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("pool");
    group.bench_function("prepare/medium_batch_1000/2_threads_each", |b| {
        b.iter(|| two.install(|| rayon::join(batch, batch)))
    });
    group.finish();
    assert_eq!(
        rs.prepare(&request).expect("plan").route.provider_id,
        expected_provider
    );
}

fn fixture(relative: &str) -> String {
    let path = format!("{}/fixtures/{relative}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// The support-desk pack, its ids (all `support.…`) renamed to `p{i}.…` when `i` is given.
fn support_desk(i: Option<usize>) -> runstart::index::PackIndex {
    let text = fixture("packs/support-desk/index.json");
    let text = match i {
        Some(i) => text.replace("\"support.", &format!("\"p{i}.")),
        None => text,
    };
    load(text.as_bytes()).index.expect("support desk loads")
}

fn fixture_providers() -> Vec<ProviderMetadata> {
    serde_json::from_str(&fixture("providers.json")).expect("providers parse")
}

/// Resident memory of this process in bytes (Linux), for the notes printed beside a bench.
fn rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Registration as the registry grows: re-registering the support-desk pack (a full compile:
/// the tenant's state has changed since, so nothing is cached) for one tenant of a registry
/// of 10 … 100,000 tenants that each hold that pack and the 4 fixture providers; then, in one
/// tenant of 1, 100 and 1,000 distinct packs, re-registering one pack and retiring one tool.
fn bench_register(c: &mut Criterion) {
    let pack = support_desk(None);
    let providers = fixture_providers();
    let mut group = c.benchmark_group("run_start/register");
    let rs = RunStart::new();
    let mut tenants = 0;
    // `cargo bench` passes `--bench`; `cargo test --benches` (CI) runs each bench once in a
    // debug build, where filling the two largest registries alone takes three minutes and
    // checks nothing the 1,000-tenant one does not.
    let measuring = std::env::args().any(|a| a == "--bench");
    let sizes: &[usize] = if measuring {
        &[10, 1_000, 10_000, 100_000]
    } else {
        &[10, 1_000]
    };
    for &n in sizes {
        let before = rss_bytes();
        while tenants < n {
            let tenant = format!("tenant-{tenants}");
            for p in &providers {
                rs.register_provider(&tenant, p.clone())
                    .expect("provider registers");
            }
            rs.register_pack(&tenant, &pack).expect("pack registers");
            tenants += 1;
        }
        if let (Some(a), Some(b)) = (before, rss_bytes()) {
            eprintln!(
                "run_start/register: {n} tenants, RSS {} MB (+{} MB)",
                b >> 20,
                b.saturating_sub(a) >> 20
            );
        }
        group.bench_function(format!("pack/{n}_tenants"), |b| {
            b.iter(|| rs.register_pack(black_box("tenant-0"), black_box(&pack)))
        });
    }
    drop(rs);
    let tenant = "one-tenant";
    let rs = RunStart::new();
    let mut packs = 0;
    let tool = semver::Version::new(1, 0, 0);
    for n in [1usize, 100, 1_000] {
        while packs < n {
            rs.register_pack(tenant, &support_desk(Some(packs)))
                .expect("pack registers");
            packs += 1;
        }
        let first = support_desk(Some(0));
        group.bench_function(format!("pack/in_tenant_of_{n}_packs"), |b| {
            b.iter(|| rs.register_pack(black_box(tenant), black_box(&first)))
        });
        group.bench_function(format!("retire_tool/in_tenant_of_{n}_packs"), |b| {
            b.iter(|| rs.retire_tool(black_box(tenant), black_box("p0.sla.check"), &tool))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_prepare, bench_register);
criterion_main!(benches);
