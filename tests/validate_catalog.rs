//! Agent tool references resolve against a catalog of already-published tools when given.

use runstart::catalog::Catalog;
use runstart::validate::{ValidateOptions, validate_index};
use serde_json::json;
use std::sync::Arc;

fn pack() -> Vec<u8> {
    json!({
        "v": 1, "packId": "p", "packVersion": "1.0.0", "artifactVersion": "1", "publishedAt": "2026-01-01T00:00:00.000Z",
        "tools": [], "guardrails": [], "flows": [],
        "agents": [{"id": "p.a", "version": "1.0.0", "name": "A", "instructions": "Hi.",
            "capabilities": [{"needs": [{"feature": "tool-use"}]}],
            "tools": [{"id": "shared.lookup", "version": "^2.0.0"}], "modulePath": "a.ts"}]
    })
    .to_string()
    .into_bytes()
}

fn codes(options: &ValidateOptions) -> Vec<String> {
    validate_index(&pack(), &options.clone().should_check_canonical_form(false))
        .issues()
        .iter()
        .map(|i| format!("{} {}", i.code(), i.instance_path()))
        .collect()
}

#[test]
fn a_published_tool_satisfies_a_reference_the_pack_does_not() {
    assert_eq!(
        codes(&ValidateOptions::new()),
        vec!["tool-not-found /agents/0/tools/0/version"]
    );
    let mut catalog: Catalog<()> = Catalog::new();
    catalog
        .insert("acme", "shared.lookup", semver::Version::new(2, 3, 0), ())
        .expect("insert");
    let catalog = Arc::new(catalog);
    assert!(codes(&ValidateOptions::new().with_catalog(Arc::clone(&catalog), "acme")).is_empty());
    // Another tenant's catalog does not count.
    assert_eq!(
        codes(&ValidateOptions::new().with_catalog(catalog, "other")),
        vec!["tool-not-found /agents/0/tools/0/version"]
    );
}
