//! Routing benches on `../shared/bench/route-workloads.json` (small, medium, large): the
//! compiled snapshot (`route/snapshot/<w>`, warm scratch) against the plain per-call path
//! (`route/per_call/<w>`), plus the one-off snapshot compile (`route/compile/<w>`).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use runstart::route::{RouteInput, RouteRequest, RouteSnapshot, RoutingDecision, Scratch, route};
use serde_json::Value;
use std::hint::black_box;
use std::path::PathBuf;

fn workloads() -> Vec<(String, RouteInput, Value)> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/bench/route-workloads.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{} is missing: CI must have it",
            path.display()
        );
        eprintln!("skipping: {} is missing", path.display());
        return Vec::new();
    };
    let doc: Value = serde_json::from_str(&text).expect("workloads are JSON");
    doc["workloads"]
        .as_array()
        .expect("workloads array")
        .iter()
        .map(|w| {
            let name = w["name"].as_str().expect("workload name").to_owned();
            let input: RouteInput =
                serde_json::from_value(w["input"].clone()).expect("workload input parses");
            (name, input, w["expected"]["ok"].clone())
        })
        .collect()
}

fn check(name: &str, got: &RoutingDecision, expected: &Value) {
    // The workloads name the picked provider's id `provider`; runstart writes `providerId`.
    let mut expected = expected.clone();
    if let Some(o) = expected.as_object_mut()
        && let Some(id) = o.remove("provider")
    {
        o.insert("providerId".to_owned(), id);
    }
    assert_eq!(
        serde_json::to_value(got).expect("serializable"),
        expected,
        "{name}: the answer differs from upstream's"
    );
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("route");
    for (name, input, expected) in workloads() {
        let snapshot = RouteSnapshot::compile(input.providers.clone());
        let request = RouteRequest::from_input(&input);
        let mut scratch = Scratch::default();
        // Assert the pick once, on both paths, before timing anything.
        check(&name, &route(&input).expect("routes"), &expected);
        check(
            &name,
            &snapshot
                .route_with(&request, &mut scratch)
                .expect("routes")
                .to_decision(),
            &expected,
        );
        group.bench_function(BenchmarkId::new("snapshot", &name), |b| {
            b.iter(|| {
                snapshot
                    .route_with(black_box(&request), &mut scratch)
                    .map(|r| r.fallback())
            });
        });
        group.bench_function(BenchmarkId::new("per_call", &name), |b| {
            b.iter(|| route(black_box(&input)).map(|d| d.fallback));
        });
        group.bench_function(BenchmarkId::new("compile", &name), |b| {
            b.iter_with_large_drop(|| RouteSnapshot::compile(black_box(input.providers.clone())));
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
