//! The process-wide, append-only string interner that lets a capability or a tenant policy be
//! compiled once, at registration, and still be read by every route snapshot built later.
//!
//! # Why one interner for the whole process
//!
//! Route snapshots are rebuilt whenever a tenant's providers change, and agent packs are
//! compiled once and shared by every tenant that registers them (`run::PackCache`). A compiled
//! capability therefore cannot hold any one snapshot's dense symbols: the next snapshot
//! numbers its strings differently, and another tenant's snapshot is a different table
//! altogether. Instead both sides intern into this table, whose numbers never change:
//!
//! - [`super::RouteSnapshot::compile`] records, for every string it holds, its global number and
//!   its local symbol in each dimension (provider id, model name, region, kind, tag), sorted by
//!   global number;
//! - a [`super::CompiledCapability`] or [`super::CompiledPolicy`] stores global numbers only.
//!
//! A route call then maps each of its (few) global numbers to the snapshot's local symbol by an
//! integer binary search: no string is hashed, compared or copied per call, and nothing has to
//! be recompiled when providers register or unregister.
//!
//! The table only grows (a string, once seen, keeps its number for the life of the process):
//! it holds each distinct id, name, region, kind and feature string ever registered once,
//! including those of providers since unregistered and of policies since replaced. So that
//! churn cannot grow it without bound, it stops at [`MAX_STRINGS`]: past that, interning
//! answers `None` and the compiled forms fall back to the per-call string path, so answers
//! never depend on it. It is locked only while compiling (registration), never by a route
//! call.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

/// A global string number.
pub(crate) type Global = u32;

#[derive(Debug, Default)]
pub(crate) struct Interner {
    numbers: HashMap<Arc<str>, Global>,
}

/// Most strings the table numbers (about 64 MB of keys at 40 bytes each, far above what a
/// registry of 100,000 tenants holds); later strings route on the per-call path.
pub(crate) const MAX_STRINGS: usize = 1 << 20;

static TABLE: LazyLock<Mutex<Interner>> = LazyLock::new(Mutex::default);

impl Interner {
    /// The table, locked. A poisoned lock only means a panic elsewhere while interning; the
    /// map is never left half-updated by `intern`, so its content stays usable.
    pub(crate) fn lock() -> MutexGuard<'static, Interner> {
        TABLE.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The number of `s`, assigned on first sight; `None` once numbers are exhausted.
    pub(crate) fn intern(&mut self, s: &str) -> Option<Global> {
        self.intern_within(s, MAX_STRINGS)
    }

    /// [`Interner::intern`] with the table capped at `cap` strings.
    fn intern_within(&mut self, s: &str, cap: usize) -> Option<Global> {
        if let Some(&n) = self.numbers.get(s) {
            return Some(n);
        }
        if self.numbers.len() >= cap {
            return None;
        }
        let n = Global::try_from(self.numbers.len()).ok()?;
        self.numbers.insert(Arc::from(s), n);
        Some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_stable_and_distinct() {
        let mut t = Interner::default();
        let a = t.intern("a");
        let b = t.intern("b");
        assert_ne!(a, b);
        assert_eq!(t.intern("a"), a);
        // One guard at a time: the table's mutex is not reentrant.
        let first = Interner::lock().intern("x");
        let again = Interner::lock().intern("x");
        assert_eq!(first, again);
    }

    #[test]
    fn a_full_table_numbers_nothing_new_but_keeps_what_it_has() {
        let mut t = Interner::default();
        let a = t.intern_within("a", 2);
        let b = t.intern_within("b", 2);
        assert!(a.is_some() && b.is_some());
        assert_eq!(t.intern_within("c", 2), None);
        assert_eq!(t.intern_within("a", 2), a);
    }
}
