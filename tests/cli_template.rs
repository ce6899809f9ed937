//! `runstart template`: the human report and the `--jsonl` protocol.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn runstart() -> Command {
    Command::new(env!("CARGO_BIN_EXE_runstart"))
}

/// `runstart template --jsonl` fed `input` on stdin.
fn jsonl(input: &[u8]) -> Output {
    let mut child = runstart()
        .args(["template", "--jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawns");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write");
    child.wait_with_output().expect("finishes")
}

#[test]
fn file_report_lists_globals_and_problems() {
    let dir = std::env::temp_dir().join(format!("runstart-cli-template-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("prompt.liquid");
    std::fs::write(
        &file,
        "Hi {{ firm }} {{ agent.owner }}\n{% for x in items %}{{ x }}{% endfor %}{{ input.a }}",
    )
    .expect("write template");
    let out = runstart()
        .args(["template", "--param", "firm"])
        .arg(&file)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout).replace(&*file.to_string_lossy(), "FILE");
    assert_eq!(
        text,
        "globals:\n  firm\n  agent.owner\n  items\n  input.a\n\
         FILE:1:18: error[template-unknown-field]: it reads \"agent.owner\", but agent has only id, name and version\n\
         FILE:2:13: error[template-unknown-variable]: it reads \"items\", which the agent doesn't have (a declared parameter or an auto-variable)\n\
         FILE:2:43: warning[template-input-outside-flow]: it reads \"input.a\", but only a flow agent step has input; a direct run fails to render\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn jsonl_answers_like_liquidjs() {
    let out = jsonl(b"\"{{ settings[\\\"acme.w\\\"].max }}{% assign x = 1 %}{{ x }}\"\n\"{{ a | nosuch }}\"\n\"{% include 'x' %}\"\n");
    assert_eq!(out.status.code(), Some(1), "a line failed to parse");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"parseError\":null,\"globals\":[[\"settings\",\"acme.w\",\"max\"]]}\n\
         {\"parseError\":\"undefined filter: nosuch, line:1, col:1\",\"globals\":null}\n\
         {\"parseError\":null,\"globals\":{\"error\":\"ENOENT: Failed to lookup \\\"x\\\" in \\\".\\\"\"}}\n"
    );
}

#[test]
fn jsonl_exit_status_is_the_worst_line() {
    let run = |input: &[u8]| {
        let out = jsonl(input);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).lines().count(),
        )
    };
    assert_eq!(run(b"\"{{ a }}\"\n\"b\"\n"), (Some(0), 2));
    assert_eq!(run(b"\"{{ a | nosuch }}\"\n\"b\"\n"), (Some(1), 2));
    assert_eq!(
        run(b"42\n\"{{ a | nosuch }}\"\n\"b\"\n"),
        (Some(2), 3),
        "every line answered"
    );
}

/// A template over the length cap gets `validate`'s code for it, not `template-parse`; and
/// `--jsonl`, which answers as LiquidJS does, refuses the file report's options instead of
/// ignoring them.
#[test]
fn caps_have_their_own_codes_and_jsonl_refuses_the_report_options() {
    let dir =
        std::env::temp_dir().join(format!("runstart-cli-template-cap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("long.liquid");
    std::fs::write(&file, "x".repeat(300_000)).expect("write template");
    let out = runstart()
        .args(["template", "--format", "json"])
        .arg(&file)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["issues"][0]["code"], "template-too-long");
    let _ = std::fs::remove_dir_all(&dir);
    for extra in [
        &["--param", "x"][..],
        &["--settings", "acme.w"],
        &["--flow"],
        &["--format", "human"],
    ] {
        let out = runstart()
            .args(["template", "--jsonl"])
            .args(extra)
            .stdin(Stdio::null())
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
    }
}

/// A file with `--jsonl` is a usage error whose usage lines show the two forms apart (clap's
/// own line would read `runstart template --jsonl [FILE]`, as if they went together).
#[test]
fn jsonl_with_a_file_is_a_usage_error_naming_both_forms() {
    let out = runstart()
        .args(["template", "--jsonl", "fixtures/prompt.liquid"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "Usage: runstart template [OPTIONS] <FILE>\n       runstart template --jsonl [--max-line-bytes <BYTES>]\n"
        ),
        "{err}"
    );
    assert!(!err.contains("--jsonl [FILE]"), "{err}");
}
