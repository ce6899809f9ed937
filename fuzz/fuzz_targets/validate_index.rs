//! Arbitrary bytes → full validation (every check of `validate_index`), and every issue
//! rendered for humans.
//!
//! Invariants: never panics, never hangs; every report renders; an input over a limit is
//! refused with exactly that limit's code.
#![no_main]

use libfuzzer_sys::fuzz_target;
use runstart::index::Limits;
use runstart::validate::{ValidateOptions, validate_index};

fuzz_target!(|data: &[u8]| {
    // The default limits, except a small list cap so the fuzzer can reach it.
    let limits = Limits::default().with_max_entries_per_list(16);
    let options = ValidateOptions::new().with_limits(limits);
    let report = validate_index(data, &options);
    let source = std::str::from_utf8(data).ok();
    let text = runstart::diagnostics::render::human("index.json", source, &report);
    assert!(report.issues().is_empty() || !text.is_empty());
    for issue in report.issues() {
        assert!(!issue.code().as_str().is_empty());
        if issue.code() == "json-too-deep" || issue.code() == "index-too-large" {
            // Refused before parsing: nothing else can be said.
            assert_eq!(report.issues().len(), 1);
        }
    }
});
