//! A range's comparators, stored inline when there are at most two.
//!
//! Four ranges in five (in `../shared/conformance/semver`) desugar to one or two comparators
//! (`1.2.3`, `^1.2.3` = `>=1.2.3 <2.0.0-0`). Keeping those inside the [`Range`](super::Range)
//! saves a heap allocation per parse, which was the largest single cost of a parse; longer
//! ranges move to a `Vec` once, on the third push.

use super::comparator::Comparator;
use std::fmt;
use std::hash::{Hash, Hasher};

/// How many comparators fit without allocating.
const INLINE: usize = 2;

/// A growable list of comparators; see the [module docs](self).
#[derive(Clone)]
pub(super) enum Comparators {
    /// The first `len` items are the list; the rest are `*` fillers, never read.
    Inline {
        len: u8,
        items: [Comparator; INLINE],
    },
    /// Three or more comparators (or fewer after a truncation, which never moves them back).
    Heap(Vec<Comparator>),
}

impl Comparators {
    /// An empty list, allocating nothing.
    pub(super) const fn new() -> Self {
        Comparators::Inline {
            len: 0,
            items: [Comparator::ANY; INLINE],
        }
    }

    pub(super) fn push(&mut self, c: Comparator) {
        match self {
            Comparators::Inline { len, items } if usize::from(*len) < INLINE => {
                items[usize::from(*len)] = c;
                *len += 1;
            }
            Comparators::Inline { items, .. } => {
                let mut heap = Vec::with_capacity(2 * INLINE);
                heap.extend(
                    items
                        .iter_mut()
                        .map(|item| std::mem::replace(item, Comparator::ANY)),
                );
                heap.push(c);
                *self = Comparators::Heap(heap);
            }
            Comparators::Heap(heap) => heap.push(c),
        }
    }

    pub(super) fn as_slice(&self) -> &[Comparator] {
        match self {
            Comparators::Inline { len, items } => &items[..usize::from(*len)],
            Comparators::Heap(heap) => heap,
        }
    }

    pub(super) fn as_mut_slice(&mut self) -> &mut [Comparator] {
        match self {
            Comparators::Inline { len, items } => &mut items[..usize::from(*len)],
            Comparators::Heap(heap) => heap,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.as_slice().len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }

    /// Keeps the first `n` comparators (all of them if there are fewer).
    pub(super) fn truncate(&mut self, n: usize) {
        match self {
            Comparators::Inline { len, items } => {
                for item in items.iter_mut().take(usize::from(*len)).skip(n) {
                    *item = Comparator::ANY;
                }
                *len = (*len).min(u8::try_from(n).unwrap_or(u8::MAX));
            }
            Comparators::Heap(heap) => heap.truncate(n),
        }
    }
}

impl PartialEq for Comparators {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Comparators {}

impl Hash for Comparators {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl fmt::Debug for Comparators {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::range::Op;

    #[test]
    fn grows_past_inline_and_truncates() {
        let c = |patch| Comparator::new(Op::GreaterEq, [1, 2, patch], semver::Prerelease::EMPTY);
        let mut list = Comparators::new();
        for patch in 0..5 {
            list.push(c(patch));
            assert_eq!(list.len(), patch as usize + 1);
            assert_eq!(list.as_slice()[patch as usize], c(patch));
        }
        list.truncate(1);
        assert_eq!(list.as_slice(), [c(0)]);
        let mut inline = Comparators::new();
        inline.push(c(7));
        inline.push(c(8));
        inline.truncate(1);
        assert_eq!(inline, {
            let mut one = Comparators::new();
            one.push(c(7));
            one
        });
        inline.truncate(3);
        assert_eq!(inline.len(), 1);
    }
}
