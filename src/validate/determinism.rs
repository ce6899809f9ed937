//! Determinism rules of seed `001_…` on the file: canonical bytes and lists sorted by id.
//! The third, each `kind:id:version` defined once, is a rule of the compiled pack
//! (`crate::pack`), so that registration refuses what it reports.

use crate::diagnostics::IssueCode;
use crate::diagnostics::{Issue, Report};
use crate::index::{ListHeads, canonical_text};
use serde_json::Value;
use std::cmp::Ordering;

pub(super) fn check_canonical(text: &str, document: &Value, report: &mut Report) {
    let canonical = canonical_text(document);
    if canonical == text {
        return;
    }
    let line = text
        .lines()
        .zip(canonical.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| text.lines().count().min(canonical.lines().count()))
        + 1;
    report.push(
        Issue::warning(
            IssueCode::NonCanonicalIndex,
            "",
            format!(
                "the file is not in canonical form (first difference at line {line}): an indexer \
                 writes keys sorted at every level, two-space indentation, integral numbers \
                 without a fraction and a trailing newline; run `runstart fmt` on the file or re-index the pack"
            ),
        )
        .with_position(line, 1),
    );
}

/// `entries-not-sorted` at each entry whose id sorts before the previous id of its list.
pub(super) fn check_sorted(heads: &[ListHeads<'_>], report: &mut Report) {
    for (list, heads) in heads {
        let mut previous: Option<&str> = None;
        for head in heads {
            let Some(id) = head.id else { continue };
            if let Some(prev) = previous
                && crate::index::utf16_cmp(prev, id) == Ordering::Greater
            {
                report.push(Issue::error(
                        IssueCode::EntriesNotSorted,
                        format!("/{list}/{}/id", head.index),
                        format!(
                            "{list} must be sorted by id (UTF-16 code-unit order): \"{id}\" comes after \"{prev}\""
                        ),
                    ));
            }
            previous = Some(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(f: fn(&[ListHeads<'_>], &mut Report), doc: Value) -> Vec<(String, String)> {
        let index = crate::index::index_document(&doc, &mut Report::new());
        let mut r = Report::new();
        f(&index.all_heads(), &mut r);
        r.issues()
            .iter()
            .map(|i| (i.instance_path().to_owned(), i.message().to_owned()))
            .collect()
    }

    #[test]
    fn unsorted_lists_are_reported_per_inversion() {
        let got = run(
            check_sorted,
            json!({"tools":[{"id":"b"},{"id":"a"},{"id":"c"}],"agents":[{"id":"x"},{"id":"x"}]}),
        );
        assert_eq!(
            got,
            vec![(
                "/tools/1/id".to_owned(),
                "tools must be sorted by id (UTF-16 code-unit order): \"a\" comes after \"b\""
                    .to_owned()
            )]
        );
    }

    #[test]
    fn canonical_text_gets_no_warning() {
        let doc = json!({"a": [1, {"b": "c"}]});
        let mut r = Report::new();
        check_canonical(&canonical_text(&doc), &doc, &mut r);
        assert!(r.is_empty());
        check_canonical("{\"a\":[1,{\"b\":\"c\"}]}", &doc, &mut r);
        assert_eq!(r.issues()[0].code(), IssueCode::NonCanonicalIndex);
        assert_eq!(r.issues()[0].params()["line"], 1);
    }
}
