//! JSON Schema's `integer` for serde fields: a number with no fractional part, so `4.0` is the
//! integer 4, as Ajv and the upstream schemas take it, where serde's integer types would refuse
//! it. A value out of the field's range is refused with both numbers in the message.

use serde::{Deserialize, Deserializer, de::Error};

/// 2^127: every integral `f64` below it in magnitude is an exact `i128`.
const I128_BOUND: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;

/// A required integer field (`#[serde(deserialize_with = "json_integer::required")]`).
pub(crate) fn required<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i128>,
{
    let n = serde_json::Number::deserialize(d)?;
    let whole: Option<i128> = if let Some(u) = n.as_u64() {
        Some(i128::from(u))
    } else if let Some(i) = n.as_i64() {
        Some(i128::from(i))
    } else {
        match n.as_f64() {
            // ok: integral and below 2^127 in magnitude, so the cast is exact (an f64 written
            // `1e16` is exactly that integer, whatever integers near it it cannot hold).
            #[allow(clippy::cast_possible_truncation)]
            Some(f) if f.fract() == 0.0 && f.abs() < I128_BOUND => Some(f as i128),
            _ => None,
        }
    };
    let Some(whole) = whole else {
        return Err(D::Error::custom(format!("expected an integer, found {n}")));
    };
    T::try_from(whole).map_err(|_| {
        D::Error::custom(format!(
            "integer {n} out of range for {}",
            std::any::type_name::<T>()
        ))
    })
}

/// An optional integer field (with `#[serde(default)]`; `null` is refused as for `required`).
pub(crate) fn optional<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i128>,
{
    required(d).map(Some)
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Holder {
        #[serde(deserialize_with = "super::required")]
        small: u8,
        #[serde(default, deserialize_with = "super::optional")]
        signed: Option<i8>,
    }

    fn read(v: serde_json::Value) -> Result<Holder, String> {
        Holder::deserialize(v).map_err(|e| e.to_string())
    }

    #[test]
    fn integral_numbers_in_range_are_read_whatever_their_notation() {
        assert_eq!(
            read(json!({"small": 4.0, "signed": -100})),
            Ok(Holder {
                small: 4,
                signed: Some(-100)
            })
        );
        assert_eq!(
            read(json!({"small": 255})),
            Ok(Holder {
                small: 255,
                signed: None
            })
        );
    }

    #[test]
    fn fractions_and_out_of_range_values_are_refused_with_the_number() {
        assert_eq!(
            read(json!({"small": 1.5})),
            Err("expected an integer, found 1.5".to_owned())
        );
        assert_eq!(
            read(json!({"small": 256})),
            Err("integer 256 out of range for u8".to_owned())
        );
        assert_eq!(
            read(json!({"small": 1, "signed": -129.0})),
            Err("integer -129.0 out of range for i8".to_owned())
        );
        assert!(read(json!({"small": "1"})).is_err());
        #[derive(Debug, Deserialize)]
        struct Wide {
            #[serde(deserialize_with = "super::required")]
            n: u64,
        }
        let wide =
            |v: serde_json::Value| Wide::deserialize(v).map(|w| w.n).map_err(|e| e.to_string());
        assert_eq!(wide(json!({"n": 1e16})), Ok(10_000_000_000_000_000));
        assert_eq!(wide(json!({"n": 1.8e19})), Ok(18_000_000_000_000_000_000));
        assert_eq!(
            wide(json!({"n": 1e20})),
            Err("integer 1e+20 out of range for u64".to_owned())
        );
    }
}
