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

/// Runs `f` on this thread alone (rayon's work included, on a one-thread pool that uses this
/// thread) and returns its result and the CPU time this thread spent on it.
///
/// Time bounds in tests are on CPU time: the tests of a binary run side by side and CI
/// machines are shared, which stretches wall-clock time many times over, while a
/// backtracking or quadratic algorithm is still seconds of CPU.
pub fn cpu_timed<T: Send>(f: impl FnOnce() -> T + Send) -> (T, std::time::Duration) {
    thread_local! {
        // Built once per thread: a thread stays registered with such a pool after it drops.
        static POOL: rayon::ThreadPool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .use_current_thread()
            .build()
            .expect("a one-thread pool on this thread");
    }
    POOL.with(|pool| {
        let start = cpu_time::ThreadTime::now();
        let out = pool.install(f);
        (out, start.elapsed())
    })
}
