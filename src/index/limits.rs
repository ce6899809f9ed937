//! Caps on hostile input sizes, checked before anything expensive runs.

/// Size limits applied when loading and validating a pack index.
///
/// Packs come from many teams and are untrusted input to a deploy service, so every size
/// that could make validation slow or memory-hungry has a cap; exceeding one is an issue with
/// its own code, never a panic or a hang.
///
/// # Examples
///
/// ```
/// use runstart::index::Limits;
/// let limits = Limits::default().with_max_index_bytes(1 << 20);
/// assert_eq!(limits.max_index_bytes(), 1 << 20);
/// assert_eq!(limits.max_json_depth(), 64);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    max_index_bytes: usize,
    max_json_depth: usize,
    max_entries_per_list: usize,
}

impl Default for Limits {
    /// 64 MiB per index, JSON nested at most 64 deep, 100,000 entries per list.
    fn default() -> Limits {
        Limits {
            max_index_bytes: 64 << 20,
            max_json_depth: 64,
            max_entries_per_list: 100_000,
        }
    }
}

impl Limits {
    /// Largest index file accepted, in bytes. Default 64 MiB (code `index-too-large`).
    #[must_use]
    pub fn with_max_index_bytes(mut self, bytes: usize) -> Limits {
        self.max_index_bytes = bytes;
        self
    }

    /// Deepest JSON nesting accepted (arrays and objects). Default 64, at most 120 because
    /// the JSON parser refuses deeper documents anyway (code `json-too-deep`).
    #[must_use]
    pub fn with_max_json_depth(mut self, depth: usize) -> Limits {
        self.max_json_depth = depth.min(120);
        self
    }

    /// Most entries accepted in one list (`tools`, `agents`, …). Default 100,000 (code
    /// `too-many-entries`).
    #[must_use]
    pub fn with_max_entries_per_list(mut self, entries: usize) -> Limits {
        self.max_entries_per_list = entries;
        self
    }

    /// See [`Limits::with_max_index_bytes`].
    pub fn max_index_bytes(&self) -> usize {
        self.max_index_bytes
    }

    /// See [`Limits::with_max_json_depth`].
    pub fn max_json_depth(&self) -> usize {
        self.max_json_depth
    }

    /// See [`Limits::with_max_entries_per_list`].
    pub fn max_entries_per_list(&self) -> usize {
        self.max_entries_per_list
    }
}

/// Byte offset where JSON `text` first nests deeper than `max`, scanning brackets outside
/// strings: O(n), no allocation, so a document nested a million deep is refused at once.
pub(crate) fn first_too_deep(text: &[u8], max: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in text.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_scan_ignores_brackets_in_strings() {
        assert_eq!(first_too_deep(br#"{"a": "[[[[[["}"#, 1), None);
        assert_eq!(first_too_deep(br#"{"a": [[1]]}"#, 2), Some(7));
        assert_eq!(first_too_deep(br#"{"a": "\"[[" }"#, 1), None);
    }
}
