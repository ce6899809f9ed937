//! Each `kind:id:version` defined once (seed `001_…`'s determinism rule): a pack that
//! defines one twice says two things about it, and neither deploy nor run start may pick one
//! in silence, so the compile step reports it and registration refuses the pack.

use crate::diagnostics::{Issue, IssueCode, pointer};
use crate::index::{EntryHead, ListHeads, kind_of_list};
use std::collections::HashMap;

/// `duplicate-entry` at each entry whose kind, id and version an earlier entry has.
pub(super) fn duplicate_entries(heads: &[ListHeads<'_>]) -> Vec<Issue> {
    let mut issues = Vec::new();
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
                // Guardrails have no version: each is defined once by its id.
                let key = if keyed_by_version {
                    "id and version"
                } else {
                    "id"
                };
                let mut at = String::new();
                pointer::push(&mut at, list);
                pointer::push_index(&mut at, head.index);
                issues.push(
                    Issue::error(
                        IssueCode::DuplicateEntry,
                        at,
                        format!(
                            "{}: duplicate {kind} '{id}'{version_text} (also defined in {}, at /{list}/{}); a pack defines each {kind} {key} once",
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
    issues
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Report;
    use serde_json::json;

    fn run(doc: serde_json::Value) -> Vec<(String, String)> {
        let index = crate::index::index_document(&doc, &mut Report::new());
        duplicate_entries(&index.all_heads())
            .iter()
            .map(|i| (i.instance_path().to_owned(), i.message().to_owned()))
            .collect()
    }

    #[test]
    fn duplicates_follow_kind_id_version() {
        let got = run(json!({
            "tools":[
                {"id":"t","version":"1.0.0","modulePath":"tools/a.py"},
                {"id":"t","version":"2.0.0","modulePath":"tools/b.py"},
                {"id":"t","version":"1.0.0","modulePath":"tools/c.py"},
                {"id":"u","modulePath":"tools/u.py"},
                {"id":"u","version":"1.0.0","modulePath":"tools/v.py"}
            ],
            "guardrails":[{"id":"g","version":"1"},{"id":"g","version":"2","checkModulePath":"g.py"}]
        }));
        let paths: Vec<_> = got.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, vec!["/tools/2", "/tools/4", "/guardrails/1"]);
        assert_eq!(
            got[0].1,
            "tools/c.py: duplicate tool 't' version 1.0.0 (also defined in tools/a.py, at /tools/0); a pack defines each tool id and version once"
        );
        assert_eq!(
            got[2].1,
            "g.py: duplicate guardrail 'g' (also defined in /guardrails/0, at /guardrails/0); a pack defines each guardrail id once"
        );
    }
}
