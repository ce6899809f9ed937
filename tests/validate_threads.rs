//! The validation report does not depend on the thread count.

#[path = "../benches/common/gen.rs"]
mod generator;

use runstart::diagnostics::render;
use runstart::validate::{ValidateOptions, validate_index};

fn report_text(bytes: &[u8], threads: usize) -> String {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    let report = pool.install(|| validate_index(bytes, &ValidateOptions::new()));
    let json = serde_json::to_string(&report).expect("json");
    format!(
        "{json}\n{}",
        render::human("index.json", std::str::from_utf8(bytes).ok(), &report)
    )
}

#[test]
fn report_is_byte_identical_for_1_2_and_8_threads() {
    let broken = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/packs/broken/index.json"
    ))
    .expect("fixture");
    // A generated index with problems sprinkled in, so the report is long.
    let mut generated = generator::Spec::new(300, 0, 0, 0).index();
    for (i, agent) in generated["agents"]
        .as_array_mut()
        .expect("agents")
        .iter_mut()
        .enumerate()
    {
        if i % 7 == 0 {
            agent["tools"][0]["version"] = serde_json::json!("^9.0.0");
        }
        if i % 11 == 0 {
            agent["instructions"] = serde_json::json!("Hi {{ custmer }}");
        }
    }
    let generated = runstart::index::canonical_text(&generated).into_bytes();
    // Large enough that the document is parsed across threads (256 KiB and up).
    assert!(generated.len() > 256 << 10, "{} bytes", generated.len());
    for bytes in [&broken, &generated] {
        let one = report_text(bytes, 1);
        assert!(one.len() > 1000, "the report should be substantial");
        assert_eq!(report_text(bytes, 2), one);
        assert_eq!(report_text(bytes, 8), one);
    }
}
