//! Ids that only look alike: two distinct ids of one pack whose Unicode TR39 skeletons are
//! equal (Cyrillic `а` for Latin `a`, fullwidth `ｓ`, a zero-width space) are a warning, since
//! a reviewer reading `support.triage` cannot tell which of the two an agent references.

use crate::diagnostics::IssueCode;
use crate::diagnostics::{Issue, Report, pointer};
use crate::index::{ListHeads, kind_of_list};
use std::collections::HashMap;

/// Warns at each entry whose id is confusable with an earlier, different id of the pack
/// (lists in index order, entries in order), naming the earlier one.
///
/// # Complexity
///
/// O(n) in the total length of the ids: one skeleton each, grouped in a hash map.
pub(super) fn check_confusable_ids(heads: &[ListHeads<'_>], report: &mut Report) {
    // Skeleton → the first id with it and where that id is.
    let mut first: HashMap<String, (&str, &str, usize)> = HashMap::new();
    for (list, heads) in heads {
        for head in heads {
            let Some(id) = head.id else { continue };
            let i = head.index;
            // ASCII letters, digits and punctuation have themselves as skeleton except for a
            // few look-alike pairs (`rn`/`m`, `l`/`1`/`I`, `0`/`O`); all-ASCII ids are still
            // compared, since `shop.rnodel` against `shop.model` is the same trap.
            let skeleton: String = unicode_security::skeleton(id).collect();
            match first.get(&skeleton) {
                Some(&(other, other_list, j)) if other != id => {
                    let mut at = String::new();
                    pointer::push(&mut at, list);
                    pointer::push_index(&mut at, i);
                    at.push_str("/id");
                    report.push(
                        Issue::warning(
                            IssueCode::ConfusableId,
                            at,
                            format!(
                                "{} id \"{}\" looks like {} id \"{}\" (/{other_list}/{j}) but differs in look-alike characters; rename one so they read differently",
                                kind_of_list(list),
                                id.escape_default(),
                                kind_of_list(other_list),
                                other.escape_default()
                            ),
                        )
                        .with_param("similarTo", format!("/{other_list}/{j}/id")),
                    );
                }
                Some(_) => {}
                None => {
                    first.insert(skeleton, (id, list, i));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn warnings(doc: Value) -> Vec<(String, String)> {
        let index = crate::index::index_document(&doc, &mut Report::new());
        let mut r = Report::new();
        check_confusable_ids(&index.all_heads(), &mut r);
        r.issues()
            .iter()
            .map(|i| (i.instance_path().to_owned(), i.message().to_owned()))
            .collect()
    }

    #[test]
    fn look_alike_ids_warn_once_each() {
        let doc = json!({
            "tools": [{"id": "support.lookup"}, {"id": "support.lookup"}],
            "agents": [
                {"id": "supp\u{043e}rt.lookup"},
                {"id": "\u{ff53}upport.lookup"},
                {"id": "support\u{200b}.lookup"},
                {"id": "support.triage"}
            ]
        });
        let found = warnings(doc);
        let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        // The same id twice is a duplicate (another check), not a look-alike.
        assert_eq!(paths, ["/agents/0/id", "/agents/1/id", "/agents/2/id"]);
        assert_eq!(
            found[0].1,
            "agent id \"supp\\u{43e}rt.lookup\" looks like tool id \"support.lookup\" (/tools/0) but differs in look-alike characters; rename one so they read differently"
        );
        assert!(
            found[2].1.contains("support\\u{200b}.lookup"),
            "{}",
            found[2].1
        );
    }

    #[test]
    fn distinct_ids_do_not_warn() {
        let doc = json!({"tools": [{"id": "a.b"}, {"id": "a.c"}], "agents": [{"id": "a.b"}]});
        assert!(warnings(doc).is_empty());
    }
}
