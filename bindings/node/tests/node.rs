//! Runs the binding's JavaScript tests (`bindings/node/test/*.test.js`, Node's built-in
//! runner) against the addon this `cargo test` just built, so that the repository's one
//! test command covers the Node binding too.
//!
//! Node ≥ 20 must be on `PATH`; without it the test says so and passes on a developer
//! machine, and fails under `CI=true`.

use std::path::PathBuf;
use std::process::Command;

/// `target/<profile>/deps`, where this test runs from. Cargo builds the package's library
/// (the addon) there before its integration tests, but copies it up to `target/<profile>`
/// only when the library itself was asked for, so the addon is read from here.
fn deps_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its own path");
    exe.parent()
        .expect("the test runs from target/<profile>/deps")
        .to_path_buf()
}

fn library_name() -> &'static str {
    if cfg!(target_os = "windows") {
        "runstart_node.dll"
    } else if cfg!(target_os = "macos") {
        "librunstart_node.dylib"
    } else {
        "librunstart_node.so"
    }
}

fn node_version() -> Option<String> {
    let out = Command::new("node").arg("--version").output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

#[test]
fn node_test_suites_pass() {
    let Some(version) = node_version() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "node is not on PATH: CI must run the Node binding's tests (Node >= 20)"
        );
        eprintln!("skipping the Node binding's tests: node is not on PATH (install Node >= 20)");
        return;
    };
    let major: u32 = version
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    assert!(major >= 20, "the binding needs Node >= 20, found {version}");

    let deps = deps_dir();
    let library = deps.join(library_name());
    assert!(
        library.is_file(),
        "the addon was not built at {}",
        library.display()
    );
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(crate_dir.join("test"))
        .expect("bindings/node/test exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".test.js"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "found only {files:?}");

    let mut command = Command::new("node");
    command
        .arg("--test")
        .args(&files)
        .current_dir(&crate_dir)
        .env("RUNSTART_NODE_LIBRARY", &library)
        // The forced-panic tests would print a backtrace for each panic they cause.
        .env("RUST_BACKTRACE", "0");
    // The CLI the answers are compared with, when this `cargo test` built it too (the
    // workspace's default members include the root crate).
    let cli = deps.parent().unwrap_or(&deps).join(if cfg!(windows) {
        "runstart.exe"
    } else {
        "runstart"
    });
    if cli.is_file() {
        command.env("RUNSTART_BIN", &cli);
    }
    let out = command.output().expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The runner's summary and every diagnostic line (conformance counts).
    for line in stdout.lines().filter(|l| l.starts_with("# ")) {
        println!("{line}");
    }
    assert!(
        out.status.success(),
        "node --test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
