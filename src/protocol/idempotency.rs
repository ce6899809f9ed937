//! Tool-call idempotency keys (pack protocol 2.6.0, call context `idempotencyKey`).
//!
//! A version 5 UUID (RFC 9562 §5.5, SHA-1) under the namespace
//! `a70d5bff-e713-4322-b2ea-9d5c4926a861`, over the UTF-8 bytes of the JSON array
//! `[runId, stepScope, toolId]` (with the model's call id appended for a call a model asked
//! for) as `JSON.stringify` writes it. Any runtime reproduces a call's key from its parts, so
//! a resumed, retried or re-run call carries the same one.

use super::jsonstr::{stringify_strings, stringify_strings_utf16};
use sha1::{Digest, Sha1};
use std::fmt;

/// The namespace of every tool call's idempotency key, as text.
pub const IDEMPOTENCY_NAMESPACE: &str = "a70d5bff-e713-4322-b2ea-9d5c4926a861";

/// [`IDEMPOTENCY_NAMESPACE`] as the 16 bytes the hash starts with.
const NAMESPACE_BYTES: [u8; 16] = [
    0xa7, 0x0d, 0x5b, 0xff, 0xe7, 0x13, 0x43, 0x22, 0xb2, 0xea, 0x9d, 0x5c, 0x49, 0x26, 0xa8, 0x61,
];

/// A tool call's idempotency key: a version 5, RFC-variant UUID. `Display` writes the
/// lowercase hyphenated form the protocol sends (`f6c8a374-b63c-5453-8320-1ca9c067447a`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IdempotencyKey([u8; 16]);

impl IdempotencyKey {
    /// The UUID's 16 bytes, in network order.
    pub fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// The key for the bytes of a name (the serialized parts).
    fn from_name(name: &[u8]) -> IdempotencyKey {
        let digest = Sha1::new()
            .chain_update(NAMESPACE_BYTES)
            .chain_update(name)
            .finalize();
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&digest[..16]);
        // RFC 9562 §5.5: version 5 in the high nibble of octet 6, the variant bits 10 in the
        // top of octet 8.
        bytes[6] = (bytes[6] & 0x0f) | 0x50;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        IdempotencyKey(bytes)
    }
}

impl fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut text = [0u8; 36];
        let mut at = 0;
        for (i, b) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                text[at] = b'-';
                at += 1;
            }
            text[at] = HEX[usize::from(b >> 4)];
            text[at + 1] = HEX[usize::from(b & 0x0f)];
            at += 2;
        }
        // Only ASCII hex digits and hyphens were written.
        f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl serde::Serialize for IdempotencyKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The idempotency key of one tool call.
///
/// `step_scope` is the step's own scope (its node id, a loop body's step with its iteration,
/// a fanout branch); `call_id` is the model's call id, for a call a model asked for, and
/// `None` for a flow's tool step.
///
/// # Examples
///
/// ```
/// use runstart::protocol::idempotency_key;
///
/// let run = "4b5f8c1e-2f0a-4c8e-9a51-0c7e2d9a6b13";
/// let key = idempotency_key(run, "charge-card", "acme.payments.charge", None);
/// assert_eq!(key.to_string(), "f6c8a374-b63c-5453-8320-1ca9c067447a");
/// ```
///
/// # Complexity
///
/// Linear in the parts' total length: one pass to serialize, one SHA-1.
pub fn idempotency_key(
    run_id: &str,
    step_scope: &str,
    tool_id: &str,
    call_id: Option<&str>,
) -> IdempotencyKey {
    let name = match call_id {
        Some(call) => stringify_strings(&[run_id, step_scope, tool_id, call]),
        None => stringify_strings(&[run_id, step_scope, tool_id]),
    };
    IdempotencyKey::from_name(name.as_bytes())
}

/// [`idempotency_key`] for parts given as UTF-16 code units, as a JavaScript runtime holds
/// them: a lone surrogate is serialized as `JSON.stringify` does (`\udxxx`), so the key is
/// Node's even for text a Rust `&str` cannot hold.
///
/// # Examples
///
/// ```
/// use runstart::protocol::{idempotency_key, idempotency_key_utf16};
///
/// let utf16 = |s: &str| s.encode_utf16().collect::<Vec<u16>>();
/// let (run, step, tool) = (utf16("r"), utf16("s"), utf16("t"));
/// assert_eq!(
///     idempotency_key_utf16(&run, &step, &tool, None),
///     idempotency_key("r", "s", "t", None)
/// );
/// ```
pub fn idempotency_key_utf16(
    run_id: &[u16],
    step_scope: &[u16],
    tool_id: &[u16],
    call_id: Option<&[u16]>,
) -> IdempotencyKey {
    let name = match call_id {
        Some(call) => stringify_strings_utf16(&[run_id, step_scope, tool_id, call]),
        None => stringify_strings_utf16(&[run_id, step_scope, tool_id]),
    };
    IdempotencyKey::from_name(name.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUN: &str = "4b5f8c1e-2f0a-4c8e-9a51-0c7e2d9a6b13";

    #[test]
    fn namespace_bytes_match_the_text() {
        let hex: String = IDEMPOTENCY_NAMESPACE
            .chars()
            .filter(|c| *c != '-')
            .collect();
        let text: String = NAMESPACE_BYTES.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, text);
    }

    #[test]
    fn upstream_vectors() {
        // The three vectors of upstream's own test (computed there with Python's uuid5).
        assert_eq!(
            idempotency_key(RUN, "charge-card", "acme.payments.charge", None).to_string(),
            "f6c8a374-b63c-5453-8320-1ca9c067447a"
        );
        assert_eq!(
            idempotency_key(
                RUN,
                "agent-loop#2/dispatch-tools",
                "acme.refunds.issue",
                Some("call_0")
            )
            .to_string(),
            "bf055463-2cce-5e82-b31a-43d7698db52e"
        );
        assert_eq!(
            idempotency_key(RUN, "notify/branch-é", "acme.mail.send", None).to_string(),
            "873f6e4e-cd72-5604-ac09-ab1496cfeb8a"
        );
    }

    #[test]
    fn version_and_variant_bits() {
        let key = idempotency_key("a", "b", "c", Some("d"));
        assert_eq!(key.as_bytes()[6] >> 4, 5);
        assert_eq!(key.as_bytes()[8] >> 6, 0b10);
        let text = key.to_string();
        assert_eq!(text.len(), 36);
        assert_eq!(&text[14..15], "5");
    }

    #[test]
    fn a_separator_inside_a_part_cannot_shift_the_others() {
        let a = idempotency_key(RUN, "a\",\"t", "c", None);
        let b = idempotency_key(RUN, "a", "t", Some("c"));
        assert_ne!(a, b);
    }
}
