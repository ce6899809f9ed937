//! Tool versions already published where a pack deploys: what agent tool references may
//! resolve against beyond the pack's own tools.

/// The active tool versions published for one tenant, highest first; implemented for a
/// [`crate::catalog::Catalog`] through [`super::ValidateOptions::with_catalog`].
pub trait PublishedTools: Send + Sync + std::fmt::Debug {
    /// Active versions of the tool `id`, highest first (empty when there are none).
    fn versions(&self, id: &str) -> Vec<semver::Version>;
}

/// A catalog's active versions for one tenant, as [`super::ValidateOptions::with_catalog`] gives them.
#[derive(Debug)]
pub(super) struct CatalogTools<T> {
    catalog: std::sync::Arc<crate::catalog::Catalog<T>>,
    tenant: String,
}

impl<T> CatalogTools<T> {
    pub(super) fn new(catalog: std::sync::Arc<crate::catalog::Catalog<T>>, tenant: &str) -> Self {
        CatalogTools {
            catalog,
            tenant: tenant.to_owned(),
        }
    }
}

impl<T: Send + Sync + std::fmt::Debug> PublishedTools for CatalogTools<T> {
    fn versions(&self, id: &str) -> Vec<semver::Version> {
        self.catalog.versions(&self.tenant, id).cloned().collect()
    }
}
