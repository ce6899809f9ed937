//! A deserializer adapter under which a struct is read from a JSON object only.
//!
//! serde's derive also reads a struct from an array of its field values, in order: a policy
//! file holding `["acme", {"allow": []}]` would read as `{tenantId: "acme", providers: …}`.
//! Nobody writes a steering input by position, and reading one that way hides a mistake, so
//! [`StructsAsObjects`] asks every struct, at every depth, for an object (`deserialize_map`),
//! and an array there is the type error "expected an object".
//!
//! Everything else is passed through unchanged; the wrapper only follows the values down
//! (map values, sequence elements, `Some`, newtypes, enum payloads) so that nested structs
//! are asked the same way.

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use std::fmt;

/// `D`, with every struct read from an object only (see the [module docs](self)).
pub(crate) struct StructsAsObjects<D>(pub(crate) D);

/// Forwards `deserialize_*` methods that take only a visitor.
macro_rules! forward_visitor_only {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method(Nested(visitor))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for StructsAsObjects<D> {
    type Error = D::Error;

    forward_visitor_only! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32
        deserialize_u64 deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char
        deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf
        deserialize_option deserialize_unit deserialize_seq deserialize_map
        deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_unit_struct(name, Nested(visitor))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_newtype_struct(name, Nested(visitor))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, Nested(visitor))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple_struct(name, len, Nested(visitor))
    }

    /// The one change: a struct is read as a map, so an array is a type error.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(Nested(visitor))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_enum(name, variants, Nested(visitor))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// A visitor, a map or sequence access, a seed or an enum access whose nested values are
/// read through [`StructsAsObjects`].
struct Nested<T>(T);

/// Forwards `visit_*` methods that take one plain value.
macro_rules! forward_values {
    ($($method:ident($ty:ty))*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
            self.0.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Nested<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    forward_values! {
        visit_bool(bool) visit_i8(i8) visit_i16(i16) visit_i32(i32) visit_i64(i64)
        visit_i128(i128) visit_u8(u8) visit_u16(u16) visit_u32(u32) visit_u64(u64)
        visit_u128(u128) visit_f32(f32) visit_f64(f64) visit_char(char) visit_str(&str)
        visit_borrowed_str(&'de str) visit_string(String) visit_bytes(&[u8])
        visit_borrowed_bytes(&'de [u8]) visit_byte_buf(Vec<u8>)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_unit()
    }

    fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<V::Value, D2::Error> {
        self.0.visit_some(StructsAsObjects(d))
    }

    fn visit_newtype_struct<D2: Deserializer<'de>>(self, d: D2) -> Result<V::Value, D2::Error> {
        self.0.visit_newtype_struct(StructsAsObjects(d))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.0.visit_seq(Nested(seq))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_map(Nested(map))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.0.visit_enum(Nested(data))
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Nested<S> {
    type Value = S::Value;

    fn deserialize<D2: Deserializer<'de>>(self, d: D2) -> Result<S::Value, D2::Error> {
        self.0.deserialize(StructsAsObjects(d))
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Nested<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Nested(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Nested<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(Nested(seed))
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(Nested(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for Nested<A> {
    type Error = A::Error;
    type Variant = Nested<A::Variant>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Nested<A::Variant>), A::Error> {
        let (value, variant) = self.0.variant_seed(Nested(seed))?;
        Ok((value, Nested(variant)))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Nested<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(Nested(seed))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Nested(visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.struct_variant(fields, Nested(visitor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        a: u32,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        name: String,
        inner: Option<Inner>,
        list: Vec<Inner>,
        #[serde(default)]
        pick: Option<Pick>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Pick {
        Plain,
        Wrapped(Inner),
    }

    fn read(v: serde_json::Value) -> Result<Outer, String> {
        Outer::deserialize(StructsAsObjects(v)).map_err(|e| e.to_string())
    }

    #[test]
    fn objects_read_as_before() {
        let v = json!({"name": "n", "inner": {"a": 1}, "list": [{"a": 2}], "pick": {"wrapped": {"a": 3}}});
        assert_eq!(
            read(v),
            Ok(Outer {
                name: "n".into(),
                inner: Some(Inner { a: 1 }),
                list: vec![Inner { a: 2 }],
                pick: Some(Pick::Wrapped(Inner { a: 3 })),
            })
        );
        let plain = read(json!({"name": "n", "inner": null, "list": [], "pick": "plain"}));
        assert_eq!(plain.map(|o| o.pick), Ok(Some(Pick::Plain)));
    }

    #[test]
    fn arrays_are_refused_where_a_struct_is_read_at_every_depth() {
        // Plain serde reads each of these by position.
        let cases = [
            json!(["n", null, []]),
            json!({"name": "n", "inner": [1], "list": []}),
            json!({"name": "n", "list": [[2]]}),
            json!({"name": "n", "list": [], "pick": {"wrapped": [3]}}),
        ];
        for v in cases {
            assert!(
                Outer::deserialize(v.clone()).is_ok(),
                "serde alone reads {v}"
            );
            let err = read(v.clone()).expect_err("refused");
            assert!(err.contains("invalid type: sequence"), "{v}: {err}");
        }
    }

    #[test]
    fn from_text_too() {
        let mut de = serde_json::Deserializer::from_str(r#"{"name": "n", "list": [[2]]}"#);
        let err = Outer::deserialize(StructsAsObjects(&mut de)).expect_err("refused");
        assert!(
            err.to_string().starts_with("invalid type: sequence"),
            "{err}"
        );
    }
}
