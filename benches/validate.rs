//! Deploy-time validation at scale: generated 100-, 1,000- and 10,000-agent indexes and 200
//! small packs, on 1 and 2 threads. Throughput is in entries (tools + agents + flows + blocks +
//! guardrails) per second.

#[path = "common/gen.rs"]
mod generator;

/// The allocator the `runstart` binary uses (see `src/main.rs`): measured as the CLI runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use runstart::index::canonical_text;
use runstart::validate::{ValidateOptions, validate_index};
use std::hint::black_box;

fn entries(index: &serde_json::Value) -> u64 {
    ["tools", "agents", "flows", "blocks", "guardrails"]
        .iter()
        .map(|k| index[*k].as_array().map_or(0, Vec::len) as u64)
        .sum()
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
}

fn bench_indexes(c: &mut Criterion) {
    let options = ValidateOptions::new();
    let mut group = c.benchmark_group("validate");
    group.sample_size(10);
    for agents in [100usize, 1_000, 10_000] {
        let index = generator::Spec::new(agents, 0, 0, 0).index();
        let bytes = canonical_text(&index).into_bytes();
        // The generated index is clean: assert once before timing.
        assert!(validate_index(&bytes, &options).is_empty());
        group.throughput(Throughput::Elements(entries(&index)));
        for threads in [1usize, 2] {
            let pool = pool(threads);
            group.bench_with_input(
                BenchmarkId::new(format!("agents_{agents}"), format!("{threads}t")),
                &bytes,
                |b, bytes| {
                    b.iter_with_large_drop(|| {
                        pool.install(|| validate_index(black_box(bytes), &options))
                    })
                },
            );
        }
    }
    group.finish();
}

fn bench_many_packs(c: &mut Criterion) {
    let options = ValidateOptions::new();
    let packs: Vec<Vec<u8>> = (0..200)
        .map(|_| canonical_text(&generator::Spec::new(5, 8, 2, 2).index()).into_bytes())
        .collect();
    let total: u64 = packs
        .iter()
        .map(|p| entries(&serde_json::from_slice(p).expect("json")))
        .sum();
    let mut group = c.benchmark_group("validate");
    group.sample_size(10);
    group.throughput(Throughput::Elements(total));
    for threads in [1usize, 2] {
        let pool = pool(threads);
        group.bench_function(BenchmarkId::new("packs_200", format!("{threads}t")), |b| {
            b.iter_with_large_drop(|| {
                use rayon::prelude::*;
                pool.install(|| {
                    packs
                        .par_iter()
                        .map(|p| validate_index(black_box(p), &options))
                        .collect::<Vec<_>>()
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_indexes, bench_many_packs);
criterion_main!(benches);
