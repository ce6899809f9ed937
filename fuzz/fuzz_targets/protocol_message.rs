//! Pack protocol v2 messages: any bytes a peer sends.
//!
//! Invariants:
//! - `parse_message` never panics, and a refusal is one of the three parse codes;
//! - a message it accepts serializes to JSON that parses to the same message (nothing the
//!   typed form keeps is lost or changed).
#![no_main]

use libfuzzer_sys::fuzz_target;
use runstart::protocol::{ErrorCode, parse_message};

fuzz_target!(|data: &[u8]| {
    match parse_message(data) {
        Ok(message) => {
            let text = serde_json::to_vec(&message).expect("a message serializes");
            let again = parse_message(&text).expect("a serialized message parses");
            assert_eq!(again, message);
        }
        Err(e) => assert!(matches!(
            e.code,
            ErrorCode::MalformedMessage
                | ErrorCode::UnknownProtocolVersion
                | ErrorCode::UnexpectedMessageKind
        )),
    }
});
