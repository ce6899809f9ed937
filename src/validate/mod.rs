//! Deploy-time validation of a pack index: every rule, every issue, one pass.
//!
//! [`validate_index`] loads the bytes (see [`crate::index::load`]) and then runs each check
//! module over the document and the typed model, collecting every issue into one
//! [`Report`], sorted in the documented order (by instance path, then code).

mod determinism;
mod entries;
mod env;

use crate::diagnostics::Report;
use crate::index;

/// Options for [`validate_index`].
///
/// The defaults match upstream behaviour where upstream has a rule, and report everything
/// else runstart checks beyond upstream.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ValidateOptions {
    skip_canonical_check: bool,
}

impl ValidateOptions {
    /// Default options: every check on.
    pub fn new() -> ValidateOptions {
        ValidateOptions::default()
    }

    /// Whether to warn (`non-canonical-index`) when the file is not in canonical form.
    /// Default `true`.
    #[must_use]
    pub fn should_check_canonical_form(mut self, yes: bool) -> ValidateOptions {
        self.skip_canonical_check = !yes;
        self
    }
}

/// Validates the bytes of a pack index `index.json`.
///
/// Never panics on any input and never stops at the first problem: the report holds every
/// issue found, sorted by instance path then code.
///
/// # Examples
///
/// ```
/// use runstart::validate::{validate_index, ValidateOptions};
///
/// let report = validate_index(b"{\"v\": 2}", &ValidateOptions::new());
/// assert!(report.has_errors());
/// assert_eq!(report.issues()[0].code(), "envelope-version");
/// ```
pub fn validate_index(bytes: &[u8], options: &ValidateOptions) -> Report {
    let loaded = index::load(bytes);
    let mut report = loaded.report;
    if let (Some(text), Some(document), Some(index)) =
        (loaded.text, loaded.document.as_ref(), loaded.index.as_ref())
    {
        if !options.skip_canonical_check {
            determinism::check_canonical(text, document, &mut report);
        }
        determinism::check_sorted(document, &mut report);
        determinism::check_duplicates(document, &mut report);
        env::check_env(document, &mut report);
        entries::check_module_paths(document, &mut report);
        entries::check_schemas(index, &mut report);
        crate::flow::check_index_flows(document, &crate::flow::FlowOptions::new(), &mut report);
    }
    report.finish()
}
