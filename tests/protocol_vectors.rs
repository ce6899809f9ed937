//! Idempotency-key vectors made by Node (and Python) with `tests/data/idempotency/generate.sh`:
//! runstart's keys must equal Node's for every case, lone surrogates included.

use runstart::protocol::{idempotency_key, idempotency_key_utf16, stringify_strings_utf16};
use serde_json::Value;

#[test]
fn every_key_equals_nodes() {
    let text = std::fs::read_to_string("tests/data/idempotency/vectors.json")
        .expect("the committed vectors");
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    let cases = doc["cases"].as_array().expect("cases");
    let (mut equal, mut python_failed, mut python_equal) = (0, 0, 0);
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let parts: Vec<Vec<u16>> = case["parts"]
            .as_array()
            .expect("parts")
            .iter()
            .map(|p| {
                p.as_array()
                    .expect("units")
                    .iter()
                    .map(|u| u16::try_from(u.as_u64().expect("a unit")).expect("16 bits"))
                    .collect()
            })
            .collect();
        let slices: Vec<&[u16]> = parts.iter().map(Vec::as_slice).collect();
        assert_eq!(
            stringify_strings_utf16(&slices),
            case["json"].as_str().expect("json"),
            "{name}: JSON.stringify text"
        );
        let node = case["node"].as_str().expect("node's key");
        let key = idempotency_key_utf16(slices[0], slices[1], slices[2], slices.get(3).copied());
        assert_eq!(key.to_string(), node, "{name}");
        // Where every part is valid Unicode, the `&str` entry point gives the same key.
        let strings: Option<Vec<String>> =
            parts.iter().map(|p| String::from_utf16(p).ok()).collect();
        if let Some(s) = strings {
            let k = idempotency_key(&s[0], &s[1], &s[2], s.get(3).map(String::as_str));
            assert_eq!(k.to_string(), node, "{name} (&str)");
        }
        equal += 1;
        match case["python"].as_str() {
            Some(p) => {
                assert_eq!(p, node, "{name}: Python agrees with Node on valid Unicode");
                python_equal += 1;
            }
            None => python_failed += 1,
        }
    }
    assert_eq!(equal, cases.len());
    assert!(cases.len() >= 300, "{} cases", cases.len());
    // Python cannot encode a lone surrogate (README: the only disagreement).
    assert!(python_failed > 0 && python_equal > 0);
    assert_eq!(python_equal + python_failed, cases.len());
}
