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

/// Where the values named by a set of JSON Pointers start in a JSON text.
///
/// Only the pointers asked for are resolved: a renderer asks for the pointers its issues
/// name, so a file with a million values and three issues records three offsets. The
/// pointers form a trie; the scan follows it and skips every subtree no pointer enters
/// without decoding or copying anything, so neither deep nesting nor long keys cost more
/// than reading them once.
///
/// # Complexity
///
/// O(n + p) time and O(d + p) extra space for a text of n bytes nested d deep and pointers
/// of total length p. The walk is iterative, so deep nesting cannot overflow the stack.
///
/// # Examples
///
/// ```
/// use runstart::diagnostics::pointer::SpanMap;
/// let text = r#"{"a": [1, {"b": true}]}"#;
/// let map = SpanMap::resolve(text, ["/a/1/b", "/a/7"]);
/// assert_eq!(map.offset("/a/1/b"), Some(16));
/// assert_eq!(map.offset("/a/7"), Some(6)); // the deepest ancestor that exists
/// ```
#[derive(Debug)]
pub struct SpanMap {
    nodes: Vec<TrieNode>,
}

/// One reference token position in the trie of requested pointers.
#[derive(Debug, Default)]
struct TrieNode {
    children: HashMap<String, usize>,
    /// Where the value at this pointer starts, once seen (the last one for duplicate keys).
    offset: Option<usize>,
}

impl SpanMap {
    /// Scans `text` (expected to be JSON; on malformed text the map holds what was seen up to
    /// the first problem) for the values at `pointers`.
    pub fn resolve<'p>(text: &str, pointers: impl IntoIterator<Item = &'p str>) -> SpanMap {
        let mut map = SpanMap {
            nodes: vec![TrieNode::default()],
        };
        for pointer in pointers {
            let mut node = 0;
            for token in tokens(pointer) {
                let next = map.nodes.len();
                let child = *map.nodes[node].children.entry(token).or_insert(next);
                if child == next {
                    map.nodes.push(TrieNode::default());
                }
                node = child;
            }
        }
        let mut scanner = Scanner {
            bytes: text.as_bytes(),
            pos: 0,
        };
        if map.nodes[0].children.is_empty() {
            // Only the whole document is asked for: where it starts is all there is to find.
            scanner.skip_ws();
            map.nodes[0].offset = (scanner.pos < text.len()).then_some(scanner.pos);
        } else {
            scanner.run(&mut map.nodes);
        }
        map
    }

    /// Byte offset where the value at `pointer` starts; for a pointer into something that does
    /// not exist (or was not asked for), the start of its deepest existing ancestor.
    pub fn offset(&self, pointer: &str) -> Option<usize> {
        let mut node = 0;
        let mut best = self.nodes[0].offset;
        for token in tokens(pointer) {
            let Some(&child) = self.nodes[node].children.get(&token) else {
                break;
            };
            node = child;
            match self.nodes[node].offset {
                Some(o) => best = Some(o),
                None => break,
            }
        }
        best
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
/// Building is O(n); each lookup is O(log lines + 256 bytes): columns count chars from a
/// checkpoint kept every 256 bytes, so thousands of issues on one long line (a minified index,
/// a template without newlines) stay linear overall.
#[derive(Debug)]
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
    /// Chars that start before byte `k * CHECKPOINT`, for each k.
    chars_at: Vec<usize>,
}

/// Bytes between char-count checkpoints.
const CHECKPOINT: usize = 256;

/// Whether `b` starts a UTF-8 sequence (is not a continuation byte).
fn starts_char(b: u8) -> bool {
    b & 0xC0 != 0x80
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
        let mut chars_at = Vec::with_capacity(text.len() / CHECKPOINT + 1);
        let mut count = 0;
        for chunk in text.as_bytes().chunks(CHECKPOINT) {
            chars_at.push(count);
            count += chunk.iter().filter(|&&b| starts_char(b)).count();
        }
        chars_at.push(count);
        LineIndex {
            text,
            starts,
            chars_at,
        }
    }

    /// Chars that start before byte `offset` (at most the text's length).
    fn chars_before(&self, offset: usize) -> usize {
        let block = offset / CHECKPOINT;
        let from = block * CHECKPOINT;
        let counted = self.chars_at.get(block).copied().unwrap_or(0);
        counted
            + self
                .text
                .as_bytes()
                .get(from..offset)
                .map_or(0, |b| b.iter().filter(|&&b| starts_char(b)).count())
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
        let col = self.chars_before(offset) - self.chars_before(start) + 1;
        (line, col)
    }
}

/// An open container during the scan, with the trie node of its pointer when a requested
/// pointer runs through it.
enum Frame {
    Object(Option<usize>),
    /// The next element's index.
    Array(Option<usize>, usize),
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

    /// Skips a string starting at its opening quote; returns its raw bytes, quotes included.
    fn skip_string(&mut self) -> Option<&[u8]> {
        let start = self.pos;
        let mut i = start + 1;
        while let Some(&b) = self.bytes.get(i) {
            match b {
                b'\\' => i += 2,
                b'"' => {
                    self.pos = i + 1;
                    return self.bytes.get(start..=i);
                }
                _ => i += 1,
            }
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

    /// The trie child of `parent` for `token`, if a requested pointer goes there.
    fn child(nodes: &[TrieNode], parent: Option<usize>, token: &str) -> Option<usize> {
        nodes.get(parent?)?.children.get(token).copied()
    }

    fn run(&mut self, nodes: &mut [TrieNode]) {
        let mut stack: Vec<Frame> = Vec::new();
        let mut index_text = String::new();
        // The trie node of the value about to be read (`Some(None)`: a value no requested
        // pointer reaches); `None` between values.
        let mut next: Option<Option<usize>> = Some(Some(0));
        loop {
            self.skip_ws();
            if let Some(node) = next.take() {
                let Some(b) = self.peek() else { return };
                if let Some(n) = node.and_then(|n| nodes.get_mut(n)) {
                    n.offset = Some(self.pos);
                }
                // A subtree with no requested pointer below is still walked (to find where it
                // ends) but never looked up.
                let node = node.filter(|&n| nodes.get(n).is_some_and(|t| !t.children.is_empty()));
                match b {
                    b'{' => {
                        self.pos += 1;
                        stack.push(Frame::Object(node));
                        if !self.object_key(nodes, &mut stack, &mut next) {
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
                            next = Some(Self::child(nodes, node, "0"));
                            stack.push(Frame::Array(node, 1));
                            continue;
                        }
                    }
                    b'"' => {
                        if self.skip_string().is_none() {
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
                (Some(b','), Frame::Array(node, n)) => {
                    self.pos += 1;
                    next = Some(if node.is_some() {
                        index_text.clear();
                        push_index(&mut index_text, *n);
                        Self::child(nodes, *node, &index_text[1..])
                    } else {
                        None
                    });
                    *n += 1;
                }
                (Some(b','), Frame::Object(_)) => {
                    self.pos += 1;
                    if !self.object_key(nodes, &mut stack, &mut next) {
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

    /// After `{` or `,` in an object: reads `"key":` and sets `next`, or consumes `}`. The key
    /// is decoded only when a requested pointer runs through the object.
    fn object_key(
        &mut self,
        nodes: &[TrieNode],
        stack: &mut Vec<Frame>,
        next: &mut Option<Option<usize>>,
    ) -> bool {
        self.skip_ws();
        match self.peek() {
            Some(b'}') => {
                self.pos += 1;
                stack.pop();
                true
            }
            Some(b'"') => {
                let Some(Frame::Object(node)) = stack.last() else {
                    return false;
                };
                let node = *node;
                let Some(raw) = self.skip_string() else {
                    return false;
                };
                let child = match node {
                    Some(_) => {
                        let key = std::str::from_utf8(raw)
                            .ok()
                            .and_then(|raw| serde_json::from_str::<String>(raw).ok());
                        match key {
                            Some(key) => Self::child(nodes, node, &key),
                            None => return false,
                        }
                    }
                    None => None,
                };
                self.skip_ws();
                if self.peek() != Some(b':') {
                    return false;
                }
                self.pos += 1;
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
        let m = SpanMap::resolve(text, ["", "/a", "/a/1/b~1c", "/d/missing", "/a/0"]);
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
        let long = format!("{}\nxé{}\n", "ü".repeat(3000), "aé".repeat(5000));
        for text in ["ab\n\nçd\ne\n", long.as_str()] {
            let index = LineIndex::new(text);
            for offset in (0..=text.len() + 2).filter(|o| o % 7 == 0 || *o < 20) {
                assert_eq!(
                    index.line_col(offset),
                    line_col(text, offset),
                    "offset {offset}"
                );
            }
        }
    }
}
