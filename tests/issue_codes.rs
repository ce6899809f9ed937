//! The README's issue-code section and `IssueCode` list the same codes.

use runstart::diagnostics::IssueCode;

/// The README from "### Issue codes of `validate`" up to the next `## ` heading.
fn code_section() -> String {
    let readme = include_str!("../README.md");
    let start = readme
        .find("### Issue codes of `validate`")
        .expect("README has the issue-code section");
    let rest = &readme[start..];
    let end = rest[4..].find("\n## ").map_or(rest.len(), |i| i + 4);
    rest[..end].to_owned()
}

/// The backticked words of `text`.
fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

#[test]
fn every_issue_code_is_documented_in_the_readme() {
    let section = code_section();
    let documented = backticked(&section);
    let missing: Vec<&str> = IssueCode::ALL
        .iter()
        .map(|c| c.as_str())
        .filter(|c| !documented.contains(c))
        .collect();
    assert!(
        missing.is_empty(),
        "codes missing from the README: {missing:?}"
    );
}

#[test]
fn every_code_in_the_readme_table_is_an_issue_code() {
    let section = code_section();
    let mut rows = 0;
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let first_cell = line
            .split('|')
            .nth(1)
            .expect("a table row has a first cell");
        for word in backticked(first_cell) {
            assert!(
                word.parse::<IssueCode>().is_ok(),
                "README lists `{word}`, which is not an IssueCode"
            );
        }
        rows += 1;
    }
    assert!(rows >= 25, "only {rows} code rows found");
}
