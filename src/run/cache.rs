//! Compiled packs shared between tenants.
//!
//! Registering a pack is a pure function of the tenant's pack state and the pack, so its
//! result is cached under (the state's id, the pack's digest): the next tenant in the same
//! state that registers the same pack (the common case: an installed pack, registered first
//! by every tenant) gets the same `Arc<PackState>`, and holds no copy of its own.

use super::compiled::PackState;
use crate::diagnostics::Issue;
use crate::index::PackIndex;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Arc;

/// Most cached registrations. Past it, entries no tenant uses any more are dropped first,
/// then all of them: the cache only saves work, it never changes an answer.
const MAX_ENTRIES: usize = 64;

/// SHA-256 of everything registration reads from a pack.
pub(crate) type PackDigest = [u8; 32];

/// Registrations already made, by (pack state id, pack digest).
#[derive(Debug, Default)]
pub(crate) struct PackCache {
    entries: HashMap<(u64, PackDigest), Arc<PackState>>,
}

impl PackCache {
    /// `current` with `pack` added: from the cache when this exact registration was made
    /// before, else compiled (and remembered).
    ///
    /// # Errors
    ///
    /// Every problem [`PackState::add_pack`] finds; nothing is cached then.
    pub fn add_pack(
        &mut self,
        current: &Arc<PackState>,
        pack: &PackIndex,
    ) -> Result<Arc<PackState>, Vec<Issue>> {
        // A pack with rejected entries is refused (by `add_pack`), whatever the cache holds:
        // the digest covers the typed entries only.
        if !pack.rejected.is_empty() {
            return (**current)
                .clone()
                .add_pack(pack)
                .map(|()| Arc::clone(current));
        }
        let key = (current.id, digest(pack));
        if let Some(hit) = self.entries.get(&key) {
            return Ok(Arc::clone(hit));
        }
        let mut next = (**current).clone();
        next.add_pack(pack)?;
        let next = Arc::new(next);
        if self.entries.len() >= MAX_ENTRIES {
            self.entries.retain(|_, state| Arc::strong_count(state) > 1);
            if self.entries.len() >= MAX_ENTRIES {
                self.entries.clear();
            }
        }
        self.entries.insert(key, Arc::clone(&next));
        Ok(next)
    }
}

/// Feeds serialized JSON into a hash without building the text.
struct HashWriter<'a>(&'a mut Sha256);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// SHA-256 of what [`PackState::add_pack`] reads: the pack version, and each tool,
/// guardrail, block and agent with its position. Every part is length-prefixed or
/// self-delimiting JSON, so two packs that register differently never share a digest short
/// of a SHA-256 collision.
pub(crate) fn digest(pack: &PackIndex) -> PackDigest {
    fn list<T: serde::Serialize>(
        hasher: &mut Sha256,
        name: &str,
        entries: &[crate::index::Indexed<T>],
    ) {
        hasher.update(name.as_bytes());
        hasher.update((entries.len() as u64).to_le_bytes());
        for e in entries {
            hasher.update((e.index as u64).to_le_bytes());
            // Wire types serialize infallibly (string keys, no non-finite floats).
            let _ = serde_json::to_writer(HashWriter(hasher), &e.entry);
            hasher.update(b"\n");
        }
    }
    let mut hasher = Sha256::new();
    hasher.update((pack.pack_version.len() as u64).to_le_bytes());
    hasher.update(pack.pack_version.as_bytes());
    list(&mut hasher, "tools", &pack.tools);
    list(&mut hasher, "guardrails", &pack.guardrails);
    list(&mut hasher, "blocks", &pack.blocks);
    list(&mut hasher, "agents", &pack.agents);
    hasher.finalize().into()
}
