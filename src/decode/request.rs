//! Requests read at the boundary (the `Request` trait: typed fields, JSON-carried payloads,
//! checks after decoding), and the field helpers the request types share (`or_default`,
//! counts read strictly or leniently).

use super::tracked::decode;
use crate::error::EngineError;
use serde::de::{self, Deserialize, Deserializer, Unexpected, Visitor};
use std::fmt;

/// A request read at the boundary: typed fields through serde, and fields holding opaque
/// JSON payloads (the host's `AgentMessage`s) carried as JSON and handed over apart, with
/// JSON's meaning (`undefined` members dropped, `toJSON` honoured) — what the engine stores
/// and gives back must be the JSON the host would write.
pub trait Request: de::DeserializeOwned {
    /// The fields carried as JSON.
    const JSON_FIELDS: &'static [&'static str] = &[];
    /// Takes one of [`Self::JSON_FIELDS`] (absent or `null` fields are not handed over).
    fn set_json(&mut self, _field: &str, _value: serde_json::Value) -> Result<(), EngineError> {
        Ok(())
    }
    /// Rules beyond types (non-empty ids, …), checked after decoding.
    fn check(&self) -> Result<(), EngineError> {
        Ok(())
    }
}

/// A [`Request`] from a JSON value (native callers and tests; the wasm boundary builds the
/// same request from a JS value).
pub fn request_from_value<T: Request>(mut v: serde_json::Value) -> Result<T, EngineError> {
    let mut json = Vec::new();
    if let serde_json::Value::Object(m) = &mut v {
        for f in T::JSON_FIELDS {
            if let Some(x) = m.remove(*f) {
                json.push((*f, x));
            }
        }
    }
    if !v.is_object() {
        return Err(EngineError::input("(input)", format!("expected an object, got {}", crate::decode::fields::describe(&v))));
    }
    finish_request(decode("(input)", v)?, json)
}

/// A decoded request with its JSON-carried fields handed over (absent or `null` ones are
/// not), then checked: the last step of every way a [`Request`] is read.
pub fn finish_request<T: Request>(mut t: T, json: Vec<(&'static str, serde_json::Value)>) -> Result<T, EngineError> {
    for (f, x) in json {
        if !x.is_null() {
            t.set_json(f, x)?;
        }
    }
    t.check()?;
    Ok(t)
}

/// `Option<T>` where `null` or absent means `T::default()` (`#[serde(default, deserialize_with = "or_default")]`).
pub fn or_default<'de, D: Deserializer<'de>, T: de::Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// An optional count: a non-negative integer a JS number can hold exactly
/// (`#[serde(default, deserialize_with = "count")]`).
pub fn count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(Option::<Count>::deserialize(d)?.map(|c| c.0))
}

struct Count(u64);

impl<'de> de::Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a non-negative integer")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Count, E> {
                if v as f64 <= 9.007_199_254_740_991e15 {
                    Ok(Count(v))
                } else {
                    Err(E::invalid_value(Unexpected::Unsigned(v), &self))
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Count, E> {
                u64::try_from(v).map_err(|_| E::invalid_value(Unexpected::Signed(v), &self)).and_then(|v| self.visit_u64(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Count, E> {
                if v >= 0.0 && v.fract() == 0.0 && v <= 9.007_199_254_740_991e15 {
                    Ok(Count(v as u64))
                } else {
                    Err(E::invalid_value(Unexpected::Float(v), &self))
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// An optional count read leniently: anything but a non-negative integer is `None`
/// (`#[serde(default, deserialize_with = "lenient_count")]`).
pub fn lenient_count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Option<u64>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any value")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(v))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(u64::try_from(v).ok())
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            // a whole number beyond 2^53 is still a (huge) count: it saturates, as JSON's u64 did
            Ok((v.is_finite() && v >= 0.0 && v.fract() == 0.0).then_some(v as u64))
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            while a.next_element::<de::IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_map<A: de::MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            while a.next_entry::<de::IgnoredAny, de::IgnoredAny>()?.is_some() {}
            Ok(None)
        }
    }
    d.deserialize_any(V)
}
