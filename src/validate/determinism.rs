//! Determinism rules of seed `001_…`: canonical bytes, lists sorted by id, and each
//! `kind:id:version` defined once.

use crate::diagnostics::IssueCode;
use crate::diagnostics::{Issue, Report, pointer};
use crate::index::{EntryHead, ListHeads, canonical_text, kind_of_list};
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::HashMap;

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

/// `duplicate-entry` at each entry whose kind, id and version an earlier entry has.
pub(super) fn check_duplicates(heads: &[ListHeads<'_>], report: &mut Report) {
    for (list, heads) in heads {
        let kind = kind_of_list(list);
        // Guardrails are keyed by id only; the others by id and version, where an entry
        // without a version conflicts with every other entry of its id.
        let keyed_by_version = *list != "guardrails";
        let mut by_id: HashMap<&str, Vec<(&EntryHead<'_>, Option<&str>)>> = HashMap::new();
        for head in heads {
            let Some(id) = head.id else { continue };
            let version = head.version.filter(|_| keyed_by_version);
            let seen = by_id.entry(id).or_default();
            let clash = seen.iter().find(|(_, v)| match (v, version) {
                (Some(a), Some(b)) => *a == b,
                _ => true,
            });
            if let Some(&(first, _)) = clash {
                let file = |head: &EntryHead<'_>| {
                    head.file()
                        .map_or_else(|| format!("/{list}/{}", head.index), str::to_owned)
                };
                let version_text = version.map(|v| format!(" version {v}")).unwrap_or_default();
                let mut at = String::new();
                pointer::push(&mut at, list);
                pointer::push_index(&mut at, head.index);
                report.push(
                    Issue::error(
                        IssueCode::DuplicateEntry,
                        at,
                        format!(
                            "{}: duplicate {kind} '{id}'{version_text} (also defined in {}, at /{list}/{}); a pack defines each {kind} id and version once",
                            file(head),
                            file(first),
                            first.index
                        ),
                    )
                    .with_param("firstIndex", first.index),
                );
            }
            seen.push((head, version));
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
    fn duplicates_follow_kind_id_version() {
        let got = run(
            check_duplicates,
            json!({
                "tools":[
                    {"id":"t","version":"1.0.0","modulePath":"tools/a.py"},
                    {"id":"t","version":"2.0.0","modulePath":"tools/b.py"},
                    {"id":"t","version":"1.0.0","modulePath":"tools/c.py"},
                    {"id":"u","modulePath":"tools/u.py"},
                    {"id":"u","version":"1.0.0","modulePath":"tools/v.py"}
                ],
                "guardrails":[{"id":"g","version":"1"},{"id":"g","version":"2","checkModulePath":"g.py"}]
            }),
        );
        let paths: Vec<_> = got.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, vec!["/tools/2", "/tools/4", "/guardrails/1"]);
        assert_eq!(
            got[0].1,
            "tools/c.py: duplicate tool 't' version 1.0.0 (also defined in tools/a.py, at /tools/0); a pack defines each tool id and version once"
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
