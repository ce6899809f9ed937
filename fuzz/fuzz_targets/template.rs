//! Templates: parse, analyze (`globals`, `global_reads`), render against a fixed context.
//!
//! Invariants: never panics or hangs on any source; every error offset lies inside the
//! template and yields a line/column; a parsed template's reads point inside its source.
#![no_main]

use libfuzzer_sys::fuzz_target;
use runstart::template::CompiledTemplate;
use serde_json::{Value, json};
use std::sync::LazyLock;

/// A context shaped like a prompt's: agent, conversation, parameters, settings, lists,
/// numbers, `null`, booleans and a clock.
static CONTEXT: LazyLock<Value> = LazyLock::new(|| {
    json!({
        "agent": {"id": "shop.helper", "name": "Helper", "version": "2.0.1"},
        "conversation": {"id": "conv-9", "turn": 3},
        "input": {"order": {"id": "A-17", "lines": [{"sku": "x", "qty": 2}, {"sku": "y", "qty": 1}]}},
        "settings": {"shop.tone": {"style": "terse", "limit": 4}},
        "user": {"name": "Grace", "roles": ["admin", "ops"], "score": 7.25},
        "items": [1, 2, 3, "four", null, true],
        "empty": [],
        "n": 5,
        "neg": -3,
        "big": 1e300,
        "flag": false,
        "nothing": null,
        "text": "Hello, World <b>&</b>",
        "now": "2026-11-30T09:00:00.000Z",
        "today": "2026-11-30"
    })
});

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let template = match CompiledTemplate::parse(source) {
        Ok(t) => t,
        Err(e) => {
            assert!(e.offset() <= source.len(), "error offset past the end");
            let _ = e.message_with_position(source);
            return;
        }
    };
    for read in template.global_reads() {
        assert!(read.offset() <= source.len(), "read offset past the end");
        let _ = read.root();
    }
    let _ = template.globals();
    match template.render(&CONTEXT) {
        Ok(out) => drop(out),
        Err(e) => drop(e.to_string()),
    }
});
