//! JSON Pointers (RFC 6901): building them, ordering them, and finding where they point in
//! the source text.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Appends one reference token to `pointer`, escaping `~` as `~0` and `/` as `~1`.
///
/// # Examples
///
/// ```
/// let mut p = String::from("/settings");
/// runstart::diagnostics::pointer::push(&mut p, "acme/w~x");
/// assert_eq!(p, "/settings/acme~1w~0x");
/// ```
pub fn push(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Appends an array index to `pointer`.
pub fn push_index(pointer: &mut String, index: usize) {
    // Writing into a String cannot fail.
    let _ = write!(pointer, "/{index}");
}

/// `base` followed by the given tokens, each escaped.
///
/// # Examples
///
/// ```
/// use runstart::diagnostics::pointer::join;
/// assert_eq!(join("/agents/2", &["tools", "0"]), "/agents/2/tools/0");
/// ```
pub fn join(base: &str, tokens: &[&str]) -> String {
    let mut p =
        String::with_capacity(base.len() + tokens.iter().map(|t| t.len() + 1).sum::<usize>());
    p.push_str(base);
    for t in tokens {
        push(&mut p, t);
    }
    p
}

/// Splits a pointer into its unescaped reference tokens (`""` gives none).
pub fn tokens(pointer: &str) -> Vec<String> {
    if pointer.is_empty() {
        return Vec::new();
    }
    pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// Orders pointers token by token; tokens that are both array indexes compare as numbers, so
/// `/agents/2` sorts before `/agents/10`.
pub fn compare(a: &str, b: &str) -> Ordering {
    let mut ai = a.split('/');
    let mut bi = b.split('/');
    loop {
        match (ai.next(), bi.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => {
                let ord = match (index_value(x), index_value(y)) {
                    (Some(m), Some(n)) => m.cmp(&n).then_with(|| x.cmp(y)),
                    _ => x.cmp(y),
                };
                if ord != Ordering::Equal {
                    return ord;
                }
            }
        }
    }
}

fn index_value(token: &str) -> Option<u128> {
    if token.is_empty() || token.len() > 30 || !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok()
}

/// Where each value of a JSON text starts, by JSON Pointer.
///
/// Built once per document from its bytes, only when issues need line and column.
///
/// # Complexity
///
/// One pass over the text: O(n) time, O(v) space for v values. The walk is iterative, so deep
/// nesting cannot overflow the stack.
#[derive(Debug, Default)]
pub struct SpanMap {
    starts: HashMap<String, usize>,
}

impl SpanMap {
    /// Scans `text` (expected to be JSON; on malformed text the map holds what was seen up to
    /// the first problem).
    pub fn build(text: &str) -> SpanMap {
        let mut map = SpanMap::default();
        Scanner {
            bytes: text.as_bytes(),
            pos: 0,
        }
        .run(&mut map.starts);
        map
    }

    /// Byte offset where the value at `pointer` starts; for a pointer into something that does
    /// not exist, the start of its deepest existing ancestor.
    pub fn offset(&self, pointer: &str) -> Option<usize> {
        let mut p = pointer;
        loop {
            if let Some(&o) = self.starts.get(p) {
                return Some(o);
            }
            let cut = p.rfind('/')?;
            p = &p[..cut];
        }
    }
}

/// 1-based line and column (in chars) of byte `offset` in `text`.
///
/// # Examples
///
/// ```
/// use runstart::diagnostics::pointer::line_col;
/// assert_eq!(line_col("{\n  \"a\": 1\n}", 9), (2, 8));
/// ```
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = text[line_start..offset].chars().count() + 1;
    (line, col)
}

/// Line starts of a text, for turning many byte offsets into line and column.
///
/// # Complexity
///
/// Building is O(n); each lookup is O(log lines) plus the length of the line prefix, so
/// rendering thousands of issues in a large file stays linear overall.
#[derive(Debug)]
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Indexes the line starts of `text`.
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { text, starts }
    }

    /// 1-based line and column (in chars) of byte `offset`, as [`line_col`] computes it.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self
            .starts
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(0);
        let col = self
            .text
            .get(start..offset)
            .map_or(0, |p| p.chars().count())
            + 1;
        (line, col)
    }
}

enum Frame {
    /// Inside an object; the pointer of the object itself.
    Object(String),
    /// Inside an array; the pointer and the next index.
    Array(String, usize),
}

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Scanner<'_> {
    fn skip_ws(&mut self) {
        while let Some(b) = self.bytes.get(self.pos) {
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Reads a string starting at the opening quote; returns its decoded text.
    fn string(&mut self) -> Option<String> {
        let start = self.pos + 1;
        let mut i = start;
        let mut escaped = false;
        while let Some(&b) = self.bytes.get(i) {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                let raw = self.bytes.get(self.pos..=i)?;
                self.pos = i + 1;
                let raw = std::str::from_utf8(raw).ok()?;
                return serde_json::from_str::<String>(raw).ok();
            }
            i += 1;
        }
        None
    }

    /// Skips a scalar (number, true, false, null).
    fn scalar(&mut self) {
        while let Some(b) = self.peek() {
            if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                break;
            }
            self.pos += 1;
        }
    }

    fn run(&mut self, starts: &mut HashMap<String, usize>) {
        let mut stack: Vec<Frame> = Vec::new();
        // The pointer of the value about to be read.
        let mut next = Some(String::new());
        loop {
            self.skip_ws();
            if let Some(pointer) = next.take() {
                let Some(b) = self.peek() else { return };
                starts.insert(pointer.clone(), self.pos);
                match b {
                    b'{' => {
                        self.pos += 1;
                        stack.push(Frame::Object(pointer));
                        if !self.object_key(&mut stack, &mut next) {
                            return;
                        }
                        continue;
                    }
                    b'[' => {
                        self.pos += 1;
                        self.skip_ws();
                        if self.peek() == Some(b']') {
                            self.pos += 1;
                        } else {
                            let mut child = pointer.clone();
                            push_index(&mut child, 0);
                            stack.push(Frame::Array(pointer, 1));
                            next = Some(child);
                            continue;
                        }
                    }
                    b'"' => {
                        if self.string().is_none() {
                            return;
                        }
                    }
                    _ => self.scalar(),
                }
            }
            // After a value: a comma or the end of the container.
            self.skip_ws();
            let Some(frame) = stack.last_mut() else {
                return;
            };
            match (self.peek(), frame) {
                (Some(b','), Frame::Array(p, n)) => {
                    self.pos += 1;
                    let mut child = p.clone();
                    push_index(&mut child, *n);
                    *n += 1;
                    next = Some(child);
                }
                (Some(b','), Frame::Object(_)) => {
                    self.pos += 1;
                    if !self.object_key(&mut stack, &mut next) {
                        return;
                    }
                }
                (Some(b']'), Frame::Array(..)) | (Some(b'}'), Frame::Object(_)) => {
                    self.pos += 1;
                    stack.pop();
                }
                _ => return,
            }
        }
    }

    /// After `{` or `,` in an object: reads `"key":` and sets `next`, or consumes `}`.
    fn object_key(&mut self, stack: &mut Vec<Frame>, next: &mut Option<String>) -> bool {
        self.skip_ws();
        match self.peek() {
            Some(b'}') => {
                self.pos += 1;
                stack.pop();
                true
            }
            Some(b'"') => {
                let Some(key) = self.string() else {
                    return false;
                };
                self.skip_ws();
                if self.peek() != Some(b':') {
                    return false;
                }
                self.pos += 1;
                let Some(Frame::Object(p)) = stack.last() else {
                    return false;
                };
                let mut child = p.clone();
                push(&mut child, &key);
                *next = Some(child);
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_map_finds_nested_values() {
        let text = "{\n  \"a\": [1, {\"b/c\": \"x\"}],\n  \"d\": {}\n}\n";
        let m = SpanMap::build(text);
        assert_eq!(m.offset(""), Some(0));
        assert_eq!(line_col(text, m.offset("/a").expect("a")), (2, 8));
        assert_eq!(line_col(text, m.offset("/a/1/b~1c").expect("b/c")), (2, 20));
        assert_eq!(line_col(text, m.offset("/d").expect("d")), (3, 8));
        // Missing child falls back to the parent.
        assert_eq!(m.offset("/d/missing"), m.offset("/d"));
        assert_eq!(m.offset("/a/0"), Some(10));
    }

    #[test]
    fn compare_orders_indexes_numerically() {
        assert_eq!(compare("/a/2", "/a/10"), Ordering::Less);
        assert_eq!(compare("/a", "/a/0"), Ordering::Less);
        assert_eq!(compare("/b", "/a/0"), Ordering::Greater);
        assert_eq!(compare("", "/a"), Ordering::Less);
    }

    #[test]
    fn tokens_unescape() {
        assert_eq!(tokens("/a~1b/c~0d"), vec!["a/b", "c~d"]);
        assert!(tokens("").is_empty());
    }

    #[test]
    fn line_col_counts_chars_not_bytes() {
        assert_eq!(line_col("é\"x\"", 2), (1, 2));
    }

    #[test]
    fn line_index_agrees_with_line_col() {
        let text = "ab\n\nçd\ne\n";
        let index = LineIndex::new(text);
        for offset in 0..=text.len() + 2 {
            assert_eq!(
                index.line_col(offset),
                line_col(text, offset),
                "offset {offset}"
            );
        }
    }
}
