//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared` beside the checkout, where the conformance data lives.
///
/// Returns `None` (and prints why) when it is missing on a developer machine, so the caller can
/// skip; panics when `CI=true`, because CI must never pass a conformance test silently.
#[track_caller]
pub fn shared_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared");
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("../shared is missing at {}: CI must have it", dir.display());
    }
    // Written to the stderr handle, not with `eprintln!`: the test harness captures the
    // macros' output of passing tests, so a skip would go unseen.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: ../shared (the conformance data, see README \"The shared data\") is missing at {}; this test checked nothing",
        dir.display()
    );
    None
}

/// Reads a file under `../shared`, or `None` as for [`shared_dir`].
#[track_caller]
pub fn shared_file(relative: &str) -> Option<String> {
    let path = shared_dir()?.join(relative);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) => panic!("cannot read {}: {e}", path.display()),
    }
}
