//! The examples in `runstart <command> --help` that name files of `fixtures/` run as shown,
//! so a newcomer can paste them from the checkout's root.

use std::process::Command;

/// Every example line (`  runstart …`) of `command`'s help that is one plain command (no
/// pipe, redirection, glob or continuation) whose files are all in `fixtures/`, as argument
/// lists.
fn fixture_examples(command: &str) -> Vec<Vec<String>> {
    let out = Command::new(env!("CARGO_BIN_EXE_runstart"))
        .args([command, "--help"])
        .output()
        .expect("runstart runs");
    let help = String::from_utf8(out.stdout).expect("UTF-8 help");
    help.lines()
        .filter_map(|line| line.trim_start().strip_prefix("runstart "))
        .filter(|rest| !rest.ends_with('\\') && !rest.contains(['|', '>', '*', '#', '\'']))
        .map(|rest| {
            rest.split_whitespace()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .filter(|args| {
            args.iter()
                .filter(|a| a.ends_with(".json") || a.ends_with(".liquid"))
                .all(|a| a.starts_with("fixtures/"))
        })
        .collect()
}

#[test]
fn route_template_and_resolve_examples_run_on_the_fixtures() {
    for (command, want) in [("route", 2), ("template", 2), ("resolve", 1)] {
        let examples = fixture_examples(command);
        assert_eq!(examples.len(), want, "{command}: {examples:?}");
        for args in examples {
            let out = Command::new(env!("CARGO_BIN_EXE_runstart"))
                .args(&args)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .output()
                .expect("runstart runs");
            // 0 or 1 (problems found, e.g. a template's undeclared variables), never a
            // usage or I/O error.
            assert!(
                matches!(out.status.code(), Some(0 | 1)) && !out.stdout.is_empty(),
                "runstart {}: {}{}",
                args.join(" "),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}
