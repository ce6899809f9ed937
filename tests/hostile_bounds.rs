//! Hostile inputs inside every documented cap, each answered within 1 s and 100 MB of heap
//! beyond the input's own size (issue "Bounded everywhere"). Heap use is measured with a
//! counting allocator: the peak of live bytes above what was live when the measure began.
//! Tests in this file take a lock so that one test's allocations never count in another's.

use proptest::prelude::*;
use runstart::diagnostics::pointer::SpanMap;
use runstart::diagnostics::{Report, render};
use runstart::flow::MAX_ISSUES_PER_FLOW;
use runstart::validate::{
    MAX_ISSUES_PER_REPORT, MAX_ISSUES_PER_TEMPLATE, ValidateOptions, validate_index,
};
use serde_json::{Value, json};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

mod util;

struct Peak;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: defers every call to the system allocator; only keeps two counters.
unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size >= layout.size() {
            grew(new_size - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Peak = Peak;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

const SECOND: Duration = Duration::from_secs(1);
/// For a child process, timed by the wall clock, which a loaded machine stretches: still far
/// below reading an endless input to its end (never) or at disk speed.
const CHILD_WALL: Duration = Duration::from_secs(5);
const MB: usize = 1 << 20;

/// Runs `f`, returning its result, the CPU time it took (see `util::cpu_timed`) and the
/// peak heap it added.
fn measured<T: Send>(f: impl FnOnce() -> T + Send) -> (T, Duration, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let (out, took) = util::cpu_timed(f);
    (out, took, PEAK.load(Ordering::Relaxed).saturating_sub(base))
}

#[track_caller]
fn assert_bounded(what: &str, took: Duration, heap: usize, limit: usize) {
    assert_bounded_in(what, took, SECOND, heap, limit);
}

#[track_caller]
fn assert_bounded_in(what: &str, took: Duration, time: Duration, heap: usize, limit: usize) {
    eprintln!("{what}: {took:?}, {:.1} MB", heap as f64 / MB as f64);
    assert!(took < time, "{what} took {took:?}");
    assert!(
        heap < limit,
        "{what} used {heap} bytes of heap (limit {limit})"
    );
}

/// Validates and renders for people, as `runstart validate` does.
fn validate_and_render(text: &str) -> (Report, String) {
    let report = validate_index(text.as_bytes(), &ValidateOptions::new());
    let human = render::human("index.json", Some(text), &report);
    (report, human)
}

#[test]
fn deep_nesting_renders_in_linear_time_and_memory() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    for levels in [30_000, 100_000] {
        let text = format!("{}1{}", "{\"a\":".repeat(levels), "}".repeat(levels));
        let ((report, human), took, heap) = measured(|| validate_and_render(&text));
        assert_bounded(&format!("{levels} nested objects"), took, heap, 100 * MB);
        let codes: Vec<&str> = report.issues().iter().map(|i| i.code().as_str()).collect();
        assert_eq!(codes, ["json-too-deep"]);
        // The position is the depth scan's own (where level 65 opens).
        assert_eq!(
            human.lines().next().map(|l| l.split(": ").next()),
            Some(Some("index.json:1:321"))
        );
    }
}

#[test]
fn one_long_key_with_many_values_renders_quickly() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let key = "k".repeat(100_000);
    let values = vec!["1"; 10_000].join(",");
    let text = format!("{{\"{key}\": [{values}], \"v\": 1}}");
    let ((report, human), took, heap) = measured(|| validate_and_render(&text));
    assert_bounded("a 100,000-char key and 10,000 values", took, heap, 100 * MB);
    assert!(report.has_errors());
    assert_eq!(human.lines().count(), report.issues().len());
    // Positions still resolve: the pointer of the long key's list.
    let map = SpanMap::resolve(&text, [format!("/{key}/9999").as_str()]);
    assert_eq!(
        map.offset(&format!("/{key}/9999")),
        Some(text.find("1]").expect("last"))
    );
}

#[test]
fn an_index_over_the_size_cap_renders_without_a_position() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let text = format!("{{\"v\": 1, \"pad\": \"{}\"}}", " ".repeat(65 << 20));
    let ((report, human), took, heap) = measured(|| validate_and_render(&text));
    assert_bounded("a 65 MiB index", took, heap, 100 * MB);
    assert_eq!(
        human,
        "index.json: error[index-too-large] \"\": the index is larger than the limit of 67108864 bytes; split the pack or raise the limit\n"
    );
    assert_eq!(report.issues().len(), 1);
}

/// An index with `agents` agents whose instructions each read `names` unknown variables
/// (a 256 KiB template holds about 26,000 of them).
fn unknown_variables_index(agents: usize, names: usize) -> String {
    let template: String = (0..names).map(|i| format!("{{{{u{i}}}}}")).collect();
    let agents: Vec<Value> = (0..agents)
        .map(|a| {
            json!({"id": format!("t.a{a:02}"), "version": "1.0.0", "name": "A", "modulePath": "a.ts",
                   "instructions": template, "tools": []})
        })
        .collect();
    json!({"v": 1, "packId": "t", "packVersion": "1.0.0", "artifactVersion": "1",
           "publishedAt": "2026-01-01T00:00:00.000Z", "tools": [], "guardrails": [],
           "blocks": [], "flows": [], "agents": agents})
    .to_string()
}

/// The issues of `code` in `report`, which must be `listed` of them and one summary of the
/// rest (the one with `params.omitted`), and that summary.
#[track_caller]
fn capped<'r>(
    report: &'r Report,
    code: &str,
    listed: usize,
) -> (
    Vec<&'r runstart::diagnostics::Issue>,
    &'r runstart::diagnostics::Issue,
) {
    let of_code: Vec<_> = report
        .issues()
        .iter()
        .filter(|i| i.code() == code)
        .collect();
    assert_eq!(of_code.len(), listed + 1, "{code}");
    let summary = of_code
        .iter()
        .copied()
        .find(|i| i.params().contains_key("omitted"))
        .expect("a summary");
    (of_code, summary)
}

#[test]
fn template_issues_are_capped_per_template() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let text = unknown_variables_index(1, 26_000);
    let ((report, human), took, heap) = measured(|| validate_and_render(&text));
    assert_bounded(
        "26,000 unknown variables in one template",
        took,
        heap + text.len(),
        100 * MB,
    );
    let (unknown, last) = capped(
        &report,
        "template-unknown-variable",
        MAX_ISSUES_PER_TEMPLATE,
    );
    assert_eq!(last.params()["omitted"], 26_000 - MAX_ISSUES_PER_TEMPLATE);
    assert_eq!(last.instance_path(), "/agents/0/instructions");
    assert_eq!(
        last.message(),
        "25900 more issues of this kind in this template are not listed (only the first 100 are); fix these and validate again"
    );
    // Positions are right far into the template (the 100th name starts after 99 others).
    let hundredth = unknown
        .iter()
        .find(|i| i.message().contains("\"u99\""))
        .expect("u99");
    let column = (0..99)
        .map(|i| format!("{{{{u{i}}}}}").len())
        .sum::<usize>()
        + 3;
    assert_eq!(hundredth.params()["templateColumn"], column);
    assert!(human.lines().count() < 200);
}

/// A flow that repeats one edge 30,000 times (1.5 MB): one warning per repeat was listed
/// before (a million repeats, inside `flow::MAX_EDGES`, took 3.2 GB); now the first
/// `MAX_ISSUES_PER_FLOW` and one summary.
#[test]
fn flow_issues_are_capped_per_flow() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let repeats = 30_000;
    let mut edges = vec![
        json!({"id": "e-start", "from": "$start", "to": "a"}),
        json!({"id": "e-end", "from": "a", "to": "$end"}),
    ];
    edges.extend((0..repeats).map(|i| json!({"id": format!("p{i}"), "from": "a", "to": "$end"})));
    let text = json!({"v": 1, "packId": "t", "packVersion": "1.0.0", "artifactVersion": "1",
           "publishedAt": "2026-01-01T00:00:00.000Z", "tools": [], "guardrails": [],
           "blocks": [], "agents": [],
           "flows": [{"id": "f", "version": "1.0.0", "kernelPayloadVersion": 1,
                      "modulePath": "flows/f.ts",
                      "nodes": [{"id": "a", "kind": "agent", "ref": "t.nobody"}],
                      "edges": edges}]})
    .to_string();
    let ((report, human), took, heap) = measured(|| validate_and_render(&text));
    assert_bounded(
        "30,000 repeats of one flow edge",
        took,
        heap + text.len(),
        100 * MB,
    );
    let (_, summary) = capped(&report, "duplicate-parallel-edge", MAX_ISSUES_PER_FLOW);
    assert_eq!(summary.params()["omitted"], repeats - MAX_ISSUES_PER_FLOW);
    assert_eq!(summary.params()["flowId"], "f");
    assert_eq!(summary.instance_path(), "/flows/0");
    assert_eq!(
        summary.message(),
        "29900 more issues of this kind in this flow are not listed (only the first 100 are); fix these and validate again"
    );
    assert!(human.lines().count() < 200, "{}", human.lines().count());
}

#[test]
fn template_issues_are_capped_per_report() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    // 20 agents of 26,000 issues each: a 5 MB file.
    let text = unknown_variables_index(20, 26_000);
    assert!(text.len() > 4_900_000, "{}", text.len());
    let ((report, _), took, heap) = measured(|| validate_and_render(&text));
    // Half a million checked reads: 0.2 s in a release build. An unoptimized test build needs
    // 3.7-4.1 s on this project's quiet 2-vCPU machine (measured 2026-12-02 on this commit and
    // on 8c60bbe alike), so it gets a looser bound, still far from the 26 s of per-issue
    // position walks this test exists to catch.
    let time = if cfg!(debug_assertions) {
        10 * SECOND
    } else {
        SECOND
    };
    assert_bounded_in(
        "20 templates of 26,000 unknown variables",
        took,
        time,
        heap,
        100 * MB,
    );
    let unknown: Vec<_> = report
        .issues()
        .iter()
        .filter(|i| i.code() == "template-unknown-variable")
        .collect();
    // The first ten templates' 100 issues each and their summaries (25,900 more each), then
    // one summary for the other ten templates' 260,000.
    let per_template_rest = 26_000 - MAX_ISSUES_PER_TEMPLATE;
    assert_eq!(unknown.len(), MAX_ISSUES_PER_REPORT + 10 + 1);
    let total = unknown
        .iter()
        .find(|i| i.instance_path().is_empty())
        .expect("a report summary");
    assert_eq!(
        total.params()["omitted"],
        20 * 26_000 - MAX_ISSUES_PER_REPORT - 10 * per_template_rest
    );
    assert_eq!(
        total.message(),
        "260000 more issues of this kind in this index are not listed (only the first 1000 are); fix these and validate again"
    );
}

/// A random JSON value, nested up to `depth` through arrays and objects with short keys
/// (some escaped or non-ASCII).
fn json_value(depth: u32) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        "[a-z\"\\\\é/~]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(depth, 256, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec(("[a-z/~\"é]{0,12}", inner), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Every pointer into `value`, parents first.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match value {
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                pointers(v, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                let mut p = at.clone();
                runstart::diagnostics::pointer::push(&mut p, k);
                pointers(v, p, out);
            }
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Resolving pointers finds where each value starts (parsing from there gives the value),
    /// and the scan's extra memory stays linear in the text: a chain `depth` deep with keys
    /// `key_len` long wrapped around a random value costs no more than a few times its size.
    #[test]
    fn span_map_is_exact_and_linear(
        value in json_value(6),
        depth in 0usize..3_000,
        key_len in 0usize..3_000,
        pretty in any::<bool>(),
    ) {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
        let key = "k".repeat(key_len);
        let inner = if pretty {
            serde_json::to_string_pretty(&value)
        } else {
            serde_json::to_string(&value)
        }
        .expect("serializes");
        // Built as text: a `Value` this deep would overflow the stack when dropped.
        let open = format!("{{\"{key}\": [");
        let text = format!("{}{inner}{}", open.repeat(depth), "]}".repeat(depth));
        let chain = format!("/{key}/0").repeat(depth);
        let mut all = Vec::new();
        pointers(&value, chain.clone(), &mut all);
        // A few pointers, as a report names: the deepest ones and some in between, plus a
        // pointer into the chain and one to nothing.
        let mut asked: Vec<String> = all.iter().rev().step_by(7).take(16).cloned().collect();
        let half = format!("/{key}/0").repeat(depth / 2);
        asked.push(half.clone());
        asked.push(format!("{chain}/nothing/here"));
        let (map, _, heap) = measured(|| SpanMap::resolve(&text, asked.iter().map(String::as_str)));
        // The scan's stack (one small frame per level) and the trie of asked pointers (a node
        // and a map entry per token, a few hundred bytes): nothing per value of the text.
        let tokens: usize = asked.iter().map(|p| p.matches('/').count()).sum();
        let asked_len: usize = asked.iter().map(String::len).sum();
        prop_assert!(
            heap <= 64 * (depth + 1) + 512 * tokens + 4 * asked_len + 64 * 1024,
            "{} bytes of heap for {} bytes of text", heap, text.len()
        );
        for p in asked.iter().take(asked.len() - 2) {
            let offset = map.offset(p).expect("every asked pointer exists");
            let at = p.strip_prefix(chain.as_str()).expect("inside the chain");
            let mut values = serde_json::Deserializer::from_str(&text[offset..]).into_iter::<Value>();
            let found = values.next().expect("a value starts there").expect("parses");
            prop_assert_eq!(Some(&found), value.pointer(at), "at {}", at);
        }
        prop_assert_eq!(map.offset(&half), Some(open.len() * (depth / 2)));
        // A pointer to nothing finds its deepest existing ancestor.
        prop_assert_eq!(map.offset(&format!("{chain}/nothing/here")), map.offset(&chain));
    }
}

/// Runs `runstart validate PATH` with `stdin` fed from a thread; returns exit code, stdout
/// and how long it took (wall-clock: the work is another process's).
fn validate_cli(path: &str, stdin: Option<usize>) -> (Option<i32>, String, Duration) {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_runstart"))
        .args(["validate", "--quiet", path])
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let feeder = stdin.zip(child.stdin.take()).map(|(bytes, mut pipe)| {
        std::thread::spawn(move || {
            let chunk = vec![b' '; 1 << 20];
            let mut sent = 0;
            while sent < bytes {
                // The reader stops at the cap and exits: a broken pipe ends the feed.
                if pipe.write_all(&chunk).is_err() {
                    break;
                }
                sent += chunk.len();
            }
            sent
        })
    });
    let out = child.wait_with_output().expect("the binary runs");
    let took = start.elapsed();
    if let Some(feeder) = feeder {
        let sent = feeder.join().expect("the feeder ends");
        assert!(
            sent < 100 << 20,
            "{sent} bytes were read before the refusal"
        );
    }
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        took,
    )
}

#[test]
fn the_cli_reads_at_most_the_cap_plus_one_byte() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let expected = "error[index-too-large] \"\": the index is larger than the limit of 67108864 bytes; split the pack or raise the limit\n";
    // An endless file: read up to the cap, then refused.
    let (code, out, took) = validate_cli("/dev/zero", None);
    eprintln!("/dev/zero: {took:?}");
    assert!(took < CHILD_WALL, "{took:?}");
    assert_eq!(code, Some(1));
    assert_eq!(out, format!("/dev/zero: {expected}"));
    // 200 MB piped in: the feeder is cut off past the cap.
    let (code, out, took) = validate_cli("/dev/stdin", Some(200 << 20));
    eprintln!("200 MB on /dev/stdin: {took:?}");
    assert!(took < CHILD_WALL, "{took:?}");
    assert_eq!(code, Some(1));
    assert_eq!(out, format!("/dev/stdin: {expected}"));
}
