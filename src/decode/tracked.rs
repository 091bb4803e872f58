//! The `Tracked` deserializer (see the module doc of [`crate::decode`]): field paths in
//! errors, no input content in them, depth and size limits.

use crate::error::EngineError;
use serde::de::{self, DeserializeSeed, Deserializer, Expected, Unexpected, Visitor};
use std::cell::{Cell, RefCell};
use std::fmt;

/// Nesting levels an input may have (objects and arrays).
pub const MAX_DEPTH: usize = 64;
/// Entries one array or object may have.
pub const MAX_ITEMS: usize = 1_000_000;

/// Decodes `T` from `d`; errors are `INVALID_INPUT` naming the field (or `root` for the
/// value itself).
pub fn decode<'de, T: de::Deserialize<'de>, D: Deserializer<'de>>(root: &str, d: D) -> Result<T, EngineError> {
    let track = Track::default();
    let out = T::deserialize(Tracked { inner: d, track: &track });
    out.map_err(|e| {
        let e = track.take_pending().unwrap_or(e);
        let path = e.path.unwrap_or_default();
        EngineError::input(if path.is_empty() { root.to_string() } else { path }, e.message)
    })
}

/// An error while decoding: a message and, once known, the path of the field it is about.
#[derive(Debug)]
pub struct DecodeError {
    message: String,
    path: Option<String>,
}

impl DecodeError {
    fn new(message: impl Into<String>) -> Self {
        DecodeError { message: message.into(), path: None }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DecodeError {}

/// What a value was, without its content.
fn kind(u: &Unexpected<'_>) -> &'static str {
    match u {
        Unexpected::Bool(_) => "a boolean",
        Unexpected::Unsigned(_) | Unexpected::Signed(_) | Unexpected::Float(_) => "a number",
        Unexpected::Char(_) | Unexpected::Str(_) => "a string",
        Unexpected::Bytes(_) => "bytes",
        Unexpected::Unit | Unexpected::Option => "null",
        Unexpected::Seq => "an array",
        Unexpected::Map => "an object",
        Unexpected::Enum | Unexpected::UnitVariant | Unexpected::NewtypeVariant | Unexpected::TupleVariant | Unexpected::StructVariant => {
            "an enum"
        }
        Unexpected::NewtypeStruct => "a value",
        Unexpected::Other(_) => "another kind of value",
    }
}

impl de::Error for DecodeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DecodeError::new(msg.to_string())
    }
    fn invalid_type(unexp: Unexpected<'_>, exp: &dyn Expected) -> Self {
        DecodeError::new(format!("expected {exp}, got {}", kind(&unexp)))
    }
    fn invalid_value(unexp: Unexpected<'_>, exp: &dyn Expected) -> Self {
        let _ = unexp; // its content is the input's
        DecodeError::new(format!("expected {exp}"))
    }
    fn invalid_length(len: usize, exp: &dyn Expected) -> Self {
        DecodeError::new(format!("expected {exp}, got {len} items"))
    }
    fn unknown_variant(_variant: &str, expected: &'static [&'static str]) -> Self {
        DecodeError::new(format!("expected one of {}", expected.join(", ")))
    }
    fn missing_field(field: &'static str) -> Self {
        DecodeError { message: "is required".into(), path: Some(format!("\u{0}{field}")) }
    }
    fn duplicate_field(_field: &'static str) -> Self {
        DecodeError::new("is given twice")
    }
}

enum Seg {
    Key(String),
    Index(usize),
}

/// The decoder's position and the errors it keeps aside.
#[derive(Default)]
struct Track {
    path: RefCell<Vec<Seg>>,
    depth: Cell<usize>,
    /// The last key read, until its value is read.
    key: RefCell<String>,
    /// An error of ours travelling through the format's code as the format's error.
    pending: RefCell<Option<DecodeError>>,
    /// What the visitor the format's deserializer last rejected expected.
    expected: RefCell<Option<String>>,
}

impl Track {
    fn render(&self, child: Option<&str>) -> String {
        let mut out = String::new();
        for seg in self.path.borrow().iter() {
            match seg {
                Seg::Key(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(k);
                }
                Seg::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
            }
        }
        if let Some(c) = child {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(c);
        }
        out
    }

    /// Gives `e` the current path, unless a deeper level already did.
    fn mark(&self, mut e: DecodeError) -> DecodeError {
        match e.path.as_deref() {
            None => e.path = Some(self.render(None)),
            Some(p) if p.starts_with('\u{0}') => e.path = Some(self.render(Some(&p[1..]))),
            Some(_) => {}
        }
        e
    }

    fn take_pending(&self) -> Option<DecodeError> {
        self.pending.borrow_mut().take()
    }

    /// Our error, to travel through the format's code as the format's error.
    fn stash<E: de::Error>(&self, e: DecodeError) -> E {
        let e = self.mark(e);
        *self.pending.borrow_mut() = Some(e);
        E::custom("")
    }

    /// The format's error back as ours: the one kept aside, or one worded from what the
    /// rejected visitor expected (the format's own message may quote the input).
    fn unstash<E: fmt::Display>(&self, _e: E) -> DecodeError {
        if let Some(e) = self.take_pending() {
            return e;
        }
        let msg = match self.expected.borrow_mut().take() {
            Some(exp) => format!("expected {exp}"),
            None => "could not be read".to_string(),
        };
        self.mark(DecodeError::new(msg))
    }

    fn enter(&self) -> Result<(), DecodeError> {
        let d = self.depth.get() + 1;
        if d > MAX_DEPTH {
            return Err(self.mark(DecodeError::new(format!("is nested deeper than {MAX_DEPTH} levels"))));
        }
        self.depth.set(d);
        Ok(())
    }

    fn leave(&self) {
        self.depth.set(self.depth.get().saturating_sub(1));
    }
}

/// A format's deserializer, tracked.
struct Tracked<'t, D> {
    inner: D,
    track: &'t Track,
}

/// A visitor of ours handed to the format: forwards to the real one, tracking.
struct Wrap<'t, V> {
    visitor: V,
    track: &'t Track,
}

/// A seed handed to the format for a nested value.
struct Seed<'t, S> {
    seed: S,
    track: &'t Track,
}

/// A key seed: records the key's text on the way.
struct KeySeed<'t, S> {
    seed: S,
    track: &'t Track,
}

struct Map<'t, A> {
    inner: A,
    track: &'t Track,
    count: usize,
}

struct Seq<'t, A> {
    inner: A,
    track: &'t Track,
    index: usize,
}

struct Enum<'t, A> {
    inner: A,
    track: &'t Track,
}

macro_rules! via_any {
    ($($name:ident),*) => {$(
        fn $name<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
            self.deserialize_any(visitor)
        }
    )*};
}

impl<'de, 't, D: Deserializer<'de>> Deserializer<'de> for Tracked<'t, D> {
    type Error = DecodeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let track = self.track;
        self.inner.deserialize_any(Wrap { visitor, track }).map_err(|e| track.unstash(e))
    }

    via_any!(
        deserialize_bool, deserialize_i8, deserialize_i16, deserialize_i32, deserialize_i64, deserialize_u8,
        deserialize_u16, deserialize_u32, deserialize_u64, deserialize_f32, deserialize_f64, deserialize_char,
        deserialize_str, deserialize_string, deserialize_bytes, deserialize_byte_buf, deserialize_unit, deserialize_seq,
        deserialize_map
    );

    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_any(visitor)
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_any(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let track = self.track;
        self.inner.deserialize_option(Wrap { visitor, track }).map_err(|e| track.unstash(e))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_any(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_any(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(self, _name: &'static str, _len: usize, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_any(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_any(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        let track = self.track;
        self.inner.deserialize_enum(name, variants, Wrap { visitor, track }).map_err(|e| track.unstash(e))
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let track = self.track;
        self.inner.deserialize_identifier(Wrap { visitor, track }).map_err(|e| track.unstash(e))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let track = self.track;
        self.inner.deserialize_ignored_any(Wrap { visitor, track }).map_err(|e| track.unstash(e))
    }
}

macro_rules! forward_visit {
    ($($name:ident: $ty:ty),*) => {$(
        fn $name<E: de::Error>(self, v: $ty) -> Result<Self::Value, E> {
            let track = self.track;
            self.visitor.$name(v).map_err(|e| track.stash(e))
        }
    )*};
}

impl<'de, 't, V: Visitor<'de>> Visitor<'de> for Wrap<'t, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The format is about to word a type error: keep what was expected for ours.
        let exp = ExpectingOf(&self.visitor).to_string();
        f.write_str(&exp)?;
        *self.track.expected.borrow_mut() = Some(exp);
        Ok(())
    }

    forward_visit!(
        visit_bool: bool, visit_i8: i8, visit_i16: i16, visit_i32: i32, visit_i64: i64, visit_i128: i128,
        visit_u8: u8, visit_u16: u16, visit_u32: u32, visit_u64: u64, visit_u128: u128, visit_f32: f32,
        visit_f64: f64, visit_char: char, visit_str: &str, visit_borrowed_str: &'de str, visit_string: String,
        visit_bytes: &[u8], visit_borrowed_bytes: &'de [u8], visit_byte_buf: Vec<u8>
    );

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        let track = self.track;
        self.visitor.visit_none().map_err(|e| track.stash(e))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        let track = self.track;
        self.visitor.visit_unit().map_err(|e| track.stash(e))
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let track = self.track;
        self.visitor.visit_some(Tracked { inner: d, track }).map_err(|e| track.stash(e))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let track = self.track;
        self.visitor.visit_newtype_struct(Tracked { inner: d, track }).map_err(|e| track.stash(e))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        let track = self.track;
        track.enter().map_err(|e| track.stash::<A::Error>(e))?;
        let out = self.visitor.visit_seq(Seq { inner: seq, track, index: 0 }).map_err(|e| track.stash(e));
        track.leave();
        out
    }

    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let track = self.track;
        track.enter().map_err(|e| track.stash::<A::Error>(e))?;
        let out = self.visitor.visit_map(Map { inner: map, track, count: 0 }).map_err(|e| track.stash(e));
        track.leave();
        out
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        let track = self.track;
        self.visitor.visit_enum(Enum { inner: data, track }).map_err(|e| track.stash(e))
    }
}

/// A visitor's `expecting` as a `Display`.
struct ExpectingOf<'a, V>(&'a V);

impl<'de, V: Visitor<'de>> fmt::Display for ExpectingOf<'_, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }
}

impl<'de, 't, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<'t, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let track = self.track;
        self.seed.deserialize(Tracked { inner: d, track }).map_err(|e| track.stash(e))
    }
}

impl<'de, 't, S: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'t, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let track = self.track;
        self.seed.deserialize(KeyTracked { inner: d, track }).map_err(|e| track.stash(e))
    }
}

/// A map key's deserializer: its text is recorded for the value's path.
struct KeyTracked<'t, D> {
    inner: D,
    track: &'t Track,
}

/// The key visitor: records the text, then forwards.
struct KeyWrap<'t, V> {
    visitor: V,
    track: &'t Track,
}

impl<'de, 't, D: Deserializer<'de>> Deserializer<'de> for KeyTracked<'t, D> {
    type Error = DecodeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let track = self.track;
        self.inner.deserialize_any(KeyWrap { visitor, track }).map_err(|e| track.unstash(e))
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let track = self.track;
        self.inner.deserialize_identifier(KeyWrap { visitor, track }).map_err(|e| track.unstash(e))
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let track = self.track;
        self.inner.deserialize_str(KeyWrap { visitor, track }).map_err(|e| track.unstash(e))
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let track = self.track;
        self.inner.deserialize_string(KeyWrap { visitor, track }).map_err(|e| track.unstash(e))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf option unit unit_struct
        newtype_struct seq tuple tuple_struct map struct enum ignored_any
    }
}

impl<'de, 't, V: Visitor<'de>> Visitor<'de> for KeyWrap<'t, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.track.key.replace(v.to_string());
        let track = self.track;
        self.visitor.visit_str(v).map_err(|e| track.stash(e))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        self.track.key.replace(v.to_string());
        let track = self.track;
        self.visitor.visit_borrowed_str(v).map_err(|e| track.stash(e))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        self.track.key.replace(v.clone());
        let track = self.track;
        self.visitor.visit_string(v).map_err(|e| track.stash(e))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        self.track.key.replace(v.to_string());
        let track = self.track;
        self.visitor.visit_u64(v).map_err(|e| track.stash(e))
    }
}

/// The error of a list or object over [`MAX_ITEMS`]: out of line, so the wording is compiled
/// once rather than in every instantiation of [`Map`] and [`Seq`] (it keeps the wasm small).
#[cold]
#[inline(never)]
fn too_many(track: &Track, what: &str) -> DecodeError {
    track.mark(DecodeError::new(format!("has more than {MAX_ITEMS} {what}")))
}

impl<'de, 't, A: de::MapAccess<'de>> de::MapAccess<'de> for Map<'t, A> {
    type Error = DecodeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, DecodeError> {
        self.count += 1;
        if self.count > MAX_ITEMS {
            return Err(too_many(self.track, "entries"));
        }
        let track = self.track;
        self.inner.next_key_seed(KeySeed { seed, track }).map_err(|e| track.unstash(e))
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, DecodeError> {
        let track = self.track;
        let key = track.key.take();
        track.path.borrow_mut().push(Seg::Key(key));
        let out = self.inner.next_value_seed(Seed { seed, track }).map_err(|e| track.unstash(e));
        track.path.borrow_mut().pop();
        out
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'de, 't, A: de::SeqAccess<'de>> de::SeqAccess<'de> for Seq<'t, A> {
    type Error = DecodeError;

    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, DecodeError> {
        if self.index >= MAX_ITEMS {
            return Err(too_many(self.track, "items"));
        }
        let track = self.track;
        track.path.borrow_mut().push(Seg::Index(self.index));
        let out = self.inner.next_element_seed(Seed { seed, track }).map_err(|e| track.unstash(e));
        track.path.borrow_mut().pop();
        self.index += 1;
        out
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint().map(|n| n.min(4096))
    }
}

impl<'de, 't, A: de::EnumAccess<'de>> de::EnumAccess<'de> for Enum<'t, A> {
    type Error = DecodeError;
    type Variant = Enum<'t, A::Variant>;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self::Variant), DecodeError> {
        let track = self.track;
        let (v, variant) = self.inner.variant_seed(Seed { seed, track }).map_err(|e| track.unstash(e))?;
        Ok((v, Enum { inner: variant, track }))
    }
}

impl<'de, 't, A: de::VariantAccess<'de>> de::VariantAccess<'de> for Enum<'t, A> {
    type Error = DecodeError;

    fn unit_variant(self) -> Result<(), DecodeError> {
        let track = self.track;
        self.inner.unit_variant().map_err(|e| track.unstash(e))
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, DecodeError> {
        let track = self.track;
        self.inner.newtype_variant_seed(Seed { seed, track }).map_err(|e| track.unstash(e))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, DecodeError> {
        let track = self.track;
        self.inner.tuple_variant(len, Wrap { visitor, track }).map_err(|e| track.unstash(e))
    }

    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], visitor: V) -> Result<V::Value, DecodeError> {
        let track = self.track;
        self.inner.struct_variant(fields, Wrap { visitor, track }).map_err(|e| track.unstash(e))
    }
}

/// Decodes `T` from JSON text (tests, files, and the boundary's JSON-carried payloads).
pub fn from_json_text<T: de::DeserializeOwned>(root: &str, text: &str) -> Result<T, EngineError> {
    let mut d = serde_json::Deserializer::from_str(text);
    let v = decode(root, &mut d)?;
    d.end().map_err(|_| EngineError::input(root, "has trailing characters after the JSON value"))?;
    Ok(v)
}
