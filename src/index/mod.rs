//! The pack index: typed model, loading from bytes, canonical form.
//!
//! [`load`] turns the bytes of an `index.json` into a [`PackIndex`], reporting every problem
//! it meets on the way as an [`Issue`](crate::diagnostics::Issue): invalid UTF-8, JSON syntax
//! (with line and column), an envelope `v` other than 1, and entry shapes (required fields,
//! types, closed objects). Entries whose shape is wrong are left out of the typed model and
//! stay in the report; everything else is kept, so later checks still see them.

mod canonical;
mod fields;
mod limits;
pub(crate) use canonical::utf16_cmp;
mod load;
mod model;
mod parse;
mod typed;
pub(crate) use parse::release;
pub(crate) use typed::FromDocument;
pub(crate) use typed::typed_without_unknown_fields;
pub mod wire;

pub use canonical::{canonical_text, index_hash};
pub(crate) use fields::{
    BLOCK_ID_MESSAGE, RANGE_MESSAGE, parameter_list_issues, settings_ref_issues,
};
pub use limits::Limits;
pub use load::{Loaded, load, load_with};
pub(crate) use load::{index_document, read};
pub(crate) use model::{Entry, EntryHead, ListHeads, rejected_json};
pub use model::{Indexed, LISTS, PackIndex, RejectedEntry, kind_of_list};
