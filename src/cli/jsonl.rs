//! The line protocol of `route --jsonl` and `template --jsonl`: one JSON value per stdin line,
//! one answer per line, every line answered (blank ones too), with one error shape
//! `{"error": {"code", "message", "line"}}`.

use super::outcome::CliError;
use serde_json::{Value, json};
use std::io::{BufRead, Write};

/// Default cap on one input line, in bytes (without its newline). A longer line is answered
/// with `line-too-long` and skipped without being held in memory.
pub const DEFAULT_MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// `--max-line-bytes`: a whole number of bytes, at least 1 (a cap of 0 would refuse every line).
pub fn parse_max_line_bytes(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1 (a cap of 0 would refuse every line)".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("must be a whole number of bytes ({e})")),
    }
}

/// Why a line could not be read as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineProblem {
    /// The line is empty or only whitespace.
    Blank,
    /// The line is longer than the cap.
    TooLong(usize),
    /// The line is not UTF-8 (offset of the first bad byte).
    NotUtf8(usize),
}

/// `{"error": {"code", "message", "line"}}`.
pub fn line_error(code: &str, message: impl Into<String>, line: usize) -> Value {
    json!({"error": {"code": code, "message": message.into(), "line": line}})
}

impl LineProblem {
    /// The answer line for this problem.
    pub fn answer(&self, line: usize) -> Value {
        match self {
            LineProblem::Blank => line_error(
                "blank-line",
                format!("line {line} is blank; send one JSON value per line"),
                line,
            ),
            LineProblem::TooLong(cap) => line_error(
                "line-too-long",
                format!(
                    "line {line} is longer than {cap} bytes and was skipped; raise --max-line-bytes or send less"
                ),
                line,
            ),
            LineProblem::NotUtf8(at) => line_error(
                "invalid-utf8",
                format!("line {line} is not UTF-8 (invalid byte at offset {at}); send UTF-8 JSON"),
                line,
            ),
        }
    }
}

/// Reads `input` line by line (LF or CRLF), calling `answer(line_number, text)` for each line
/// that is text and answering each other one with its [`LineProblem`]; each answer is written
/// as one compact JSON line, flushed so a co-process sees it at once. Lines are numbered from
/// 1; a line over `max_line_bytes` is drained in chunks, never held whole. Returns whether
/// some line was not text (a usage problem: the callers exit 2). A closed stdout ends the
/// reading there (nobody reads the answers), and what the lines so far said stands.
///
/// # Errors
///
/// Reading stdin or writing stdout failed.
pub fn for_each_line(
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    max_line_bytes: usize,
    mut answer: impl FnMut(usize, &str) -> Value,
) -> Result<bool, CliError> {
    let mut buf = Vec::new();
    let mut number = 0;
    let mut unreadable = false;
    loop {
        buf.clear();
        let Some(too_long) = read_line(input, &mut buf, max_line_bytes)? else {
            return Ok(unreadable);
        };
        number += 1;
        let text = if too_long {
            Err(LineProblem::TooLong(max_line_bytes))
        } else {
            match std::str::from_utf8(&buf) {
                Ok(t) if t.trim().is_empty() => Err(LineProblem::Blank),
                Ok(t) => Ok(t),
                Err(e) => Err(LineProblem::NotUtf8(e.valid_up_to())),
            }
        };
        let value = match text {
            Ok(text) => answer(number, text),
            Err(problem) => {
                unreadable = true;
                problem.answer(number)
            }
        };
        match write_answer(out, &value) {
            Err(CliError::BrokenPipe) => return Ok(unreadable),
            written => written?,
        }
    }
}

/// One answer as a compact JSON line, flushed.
fn write_answer(out: &mut dyn Write, value: &Value) -> Result<(), CliError> {
    serde_json::to_writer(&mut *out, value).map_err(super::outcome::json_error)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// Reads one line into `buf` without its line ending. `None` at the end of input;
/// `Some(true)` when the line was longer than `cap` (then `buf` holds at most `cap` bytes and
/// the rest of the line was consumed and dropped).
fn read_line(
    input: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
) -> Result<Option<bool>, CliError> {
    let mut seen_any = false;
    let mut too_long = false;
    loop {
        let chunk = input
            .fill_buf()
            .map_err(|e| CliError::Usage(format!("reading stdin: {e}")))?;
        if chunk.is_empty() {
            break;
        }
        seen_any = true;
        let (part, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        if !too_long {
            // One byte of slack for the `\r` of a CRLF ending, which is not the line's.
            if buf.len() + part.len() > cap.saturating_add(1) {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(part);
            }
        }
        let used = done.unwrap_or(chunk.len());
        input.consume(used);
        if done.is_some() {
            break;
        }
    }
    if !seen_any {
        return Ok(None);
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    if buf.len() > cap {
        too_long = true;
        buf.clear();
    }
    Ok(Some(too_long))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answers(input: &[u8], cap: usize) -> Vec<String> {
        let mut out = Vec::new();
        for_each_line(
            &mut &input[..],
            &mut out,
            cap,
            |n, text| json!({"line": n, "text": text}),
        )
        .expect("in memory");
        String::from_utf8(out)
            .expect("utf-8")
            .lines()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn every_line_is_answered_in_order() {
        let got = answers(b"a\r\n\n  \nb\xff\n0123456789x\nlast", 10);
        assert_eq!(
            got,
            [
                r#"{"line":1,"text":"a"}"#,
                r#"{"error":{"code":"blank-line","message":"line 2 is blank; send one JSON value per line","line":2}}"#,
                r#"{"error":{"code":"blank-line","message":"line 3 is blank; send one JSON value per line","line":3}}"#,
                r#"{"error":{"code":"invalid-utf8","message":"line 4 is not UTF-8 (invalid byte at offset 1); send UTF-8 JSON","line":4}}"#,
                r#"{"error":{"code":"line-too-long","message":"line 5 is longer than 10 bytes and was skipped; raise --max-line-bytes or send less","line":5}}"#,
                r#"{"line":6,"text":"last"}"#,
            ]
        );
        assert!(answers(b"", 10).is_empty());
        // A CRLF ending does not count against the cap; a lone trailing `\r` past it does.
        assert_eq!(
            answers(b"0123456789\r\n0123456789\n", 10),
            [
                r#"{"line":1,"text":"0123456789"}"#,
                r#"{"line":2,"text":"0123456789"}"#,
            ]
        );
        assert_eq!(
            answers(b"0123456789x\r\n", 10),
            [
                r#"{"error":{"code":"line-too-long","message":"line 1 is longer than 10 bytes and was skipped; raise --max-line-bytes or send less","line":1}}"#,
            ]
        );
        let mut out = Vec::new();
        let unreadable = |input: &[u8], out: &mut Vec<u8>| {
            for_each_line(&mut &input[..], out, 10, |_, _| json!(null)).expect("in memory")
        };
        assert!(!unreadable(b"a\nb", &mut out));
        assert!(unreadable(b"a\n\nb", &mut out));
    }
}
