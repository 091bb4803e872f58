//! A recall request read from its JSON text with the two scopes' search results typed on
//! the way: each `find` hit straight into a [`SearchItem`] (only the fields recall reads;
//! the rest of a hit — `context_type`, `match_reason`, `relations`, … — read and dropped
//! without copying: [`Skip`], which the JSON parser checks as it checks any value),
//! never a JSON tree of the hits. The rest of the request is read as JSON values, as
//! [`RecallRequest::from_value`](crate::recall::request::RecallRequest::from_value) reads it.
//!
//! The same request and the same errors as reading the whole text as a JSON value: any
//! shape the fast read does not take (a scope that is not a find result or a list of hits,
//! a hit that is not an object, `memories` that is not a list, JSON that is not an object)
//! makes it give up, and the caller reads the text the plain way ([`RequestText::Plain`]),
//! which says what is wrong. A hit's fields are read as JSON values and then exactly as
//! `candidate::take_search_result` reads them (`candidate::item_from_fields`).

use crate::recall::candidate::{item_from_fields, SearchItem};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// Both scopes' search results, read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Scopes {
    pub user: Vec<SearchItem>,
    pub agent: Vec<SearchItem>,
}

/// A request's JSON text, read.
#[derive(Debug)]
pub enum RequestText {
    /// The search results typed; `rest` is the request with `search` an empty object (when
    /// it had one), to be read as the plain way reads it.
    Typed { rest: Value, scopes: Scopes },
    /// The whole request as a JSON value (the fast read gave up).
    Plain(Value),
}

/// Reads a request's JSON text; `Err` only where reading it as a JSON value fails (the
/// message of `serde_json`'s error, as the plain read gives it).
pub fn read_request_text(text: &str) -> Result<RequestText, serde_json::Error> {
    let mut d = serde_json::Deserializer::from_str(text);
    if let Ok(Top { rest, scopes }) = Top::deserialize_from(&mut d) {
        if d.end().is_ok() {
            return Ok(RequestText::Typed { rest: Value::Object(rest), scopes: scopes.unwrap_or_default() });
        }
    }
    serde_json::from_str(text).map(RequestText::Plain)
}

struct Top {
    rest: Map<String, Value>,
    /// `None` when the request has no `search`.
    scopes: Option<Scopes>,
}

impl Top {
    fn deserialize_from<'de, D: Deserializer<'de>>(d: D) -> Result<Top, D::Error> {
        d.deserialize_map(TopVisitor)
    }
}

struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Top;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a request object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top, A::Error> {
        let mut rest = Map::new();
        let mut scopes = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "search" {
                let s = map.next_value_seed(SearchSeed)?;
                rest.insert(key, Value::Object(Map::new()));
                scopes = Some(s);
            } else {
                let v = map.next_value::<Value>()?;
                rest.insert(key, v);
            }
        }
        Ok(Top { rest, scopes })
    }
}

/// `search`: an object of `user` and `agent` (either absent or `null`: no results).
struct SearchSeed;

impl<'de> DeserializeSeed<'de> for SearchSeed {
    type Value = Scopes;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Scopes, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for SearchSeed {
    type Value = Scopes;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("search results by scope")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scopes, A::Error> {
        let mut scopes = Scopes::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "user" => scopes.user = map.next_value_seed(ScopeSeed::<true>)?,
                "agent" => scopes.agent = map.next_value_seed(ScopeSeed::<true>)?,
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(scopes)
    }
}

/// One scope's result: `null`, a find result `{memories: [hits] | null, …}` or a list of hits;
/// where `TEXT`, also a find answer's body text (a request's scope). An answer's own `result`
/// is read with `TEXT` false: the text of a find answer nested in one is refused, as the
/// plain read refuses it.
struct ScopeSeed<const TEXT: bool>;

impl<'de, const TEXT: bool> DeserializeSeed<'de> for ScopeSeed<TEXT> {
    type Value = Vec<SearchItem>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<SearchItem>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, const TEXT: bool> Visitor<'de> for ScopeSeed<TEXT> {
    type Value = Vec<SearchItem>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a find result")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Vec<SearchItem>, E> {
        Ok(Vec::new())
    }
    fn visit_none<E: de::Error>(self) -> Result<Vec<SearchItem>, E> {
        Ok(Vec::new())
    }
    /// A find answer's body text (see [`scope_from_text`]); one it cannot read gives up.
    fn visit_str<E: de::Error>(self, text: &str) -> Result<Vec<SearchItem>, E> {
        if !TEXT {
            return Err(E::invalid_type(de::Unexpected::Str(text), &self));
        }
        read_body_text(text).ok_or_else(|| E::custom("not a find answer"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Vec<SearchItem>, A::Error> {
        HitsSeed.visit_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<SearchItem>, A::Error> {
        let mut items = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "memories" {
                items = map.next_value_seed(HitsSeed)?;
            } else {
                map.next_value::<Skip>()?;
            }
        }
        Ok(items)
    }
}

/// One scope's search result as the host handed it in: a find result, a list of hits or
/// nothing ([`take_search_result`](crate::recall::candidate::take_search_result)), or, with
/// the page's exports, the text of OpenViking's answer ([`scope_from_text`]; the page's
/// `Engine.recall` takes it — the plugin reads answers itself).
pub fn take_scope(path: &str, v: Value) -> crate::error::Result<Vec<SearchItem>> {
    #[cfg(feature = "page")]
    if let Value::String(text) = &v {
        return scope_from_text(path, text);
    }
    crate::recall::candidate::take_search_result(path, v)
}

/// One scope's search result given as the text of OpenViking's answer to `find` — the HTTP
/// body as it arrived (`{"status": "ok", "result": {"memories": [hits], …}, …}`), or the
/// text of a find result or of a list of hits — so a host hands it over without parsing it.
/// The same items and errors as reading the text as a JSON value and then that value as
/// [`take_search_result`](crate::recall::candidate::take_search_result) reads a scope:
/// an answer's `result` is the scope's result (an answer without one, such as an error
/// answer, has no hits); `path` names the scope in errors.
pub fn scope_from_text(path: &str, text: &str) -> crate::error::Result<Vec<SearchItem>> {
    if let Some(items) = read_body_text(text) {
        return Ok(items);
    }
    let v: Value = serde_json::from_str(text).map_err(|e| crate::error::EngineError::input(path, format!("is not valid JSON (a find answer's text): {e}")))?;
    let v = match v {
        Value::Object(mut m) if m.contains_key("result") => m.remove("result").unwrap_or(Value::Null),
        v => v,
    };
    if v.is_string() {
        return Err(crate::error::EngineError::input(path, "expected a find answer's text, got the text of a string"));
    }
    crate::recall::candidate::take_search_result(path, v)
}

/// A request's scopes given as text apart from the rest of it (the wasm `Engine.recall`
/// takes string scopes out of the request before reading it, so their text is not escaped
/// into the request's JSON and read twice) put back: read into `scopes` when the rest was
/// read typed ([`RequestText::Typed`]), else into the request as the strings they were,
/// where the plain way reads them — the same answer and errors as the whole request.
pub fn with_scope_texts(
    req: &mut crate::recall::request::RecallRequest,
    scopes: Option<Scopes>,
    user: Option<String>,
    agent: Option<String>,
) -> crate::error::Result<Option<Scopes>> {
    match scopes {
        Some(mut s) => {
            if let Some(t) = user {
                s.user = scope_from_text("search.user", &t)?;
            }
            if let Some(t) = agent {
                s.agent = scope_from_text("search.agent", &t)?;
            }
            Ok(Some(s))
        }
        None => {
            if let Some(t) = user {
                req.user = Value::String(t);
            }
            if let Some(t) = agent {
                req.agent = Value::String(t);
            }
            Ok(None)
        }
    }
}

/// The typed read of [`scope_from_text`]; `None` where it gives up.
fn read_body_text(text: &str) -> Option<Vec<SearchItem>> {
    let mut d = serde_json::Deserializer::from_str(text);
    let items = BodySeed.deserialize(&mut d).ok()?;
    d.end().ok()?;
    Some(items)
}

/// A find answer's body: a list of hits, `null`, or an object whose `result` (when it has
/// one) or else whose `memories` holds them.
struct BodySeed;

impl<'de> DeserializeSeed<'de> for BodySeed {
    type Value = Vec<SearchItem>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<SearchItem>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for BodySeed {
    type Value = Vec<SearchItem>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a find answer")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Vec<SearchItem>, E> {
        Ok(Vec::new())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Vec<SearchItem>, A::Error> {
        HitsSeed.visit_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<SearchItem>, A::Error> {
        let (mut memories, mut result) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "result" => result = Some(map.next_value_seed(ScopeSeed::<false>)?),
                "memories" => memories = Some(map.next_value_seed(HitsSeed)?),
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(result.or(memories).unwrap_or_default())
    }
}

/// A list of hits, or `null` (none).
struct HitsSeed;

impl<'de> DeserializeSeed<'de> for HitsSeed {
    type Value = Vec<SearchItem>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<SearchItem>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for HitsSeed {
    type Value = Vec<SearchItem>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of hits")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Vec<SearchItem>, E> {
        Ok(Vec::new())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<SearchItem>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(HitSeed)? {
            items.push(item);
        }
        Ok(items)
    }
}

/// One hit (an object; anything else gives up).
struct HitSeed;

impl<'de> DeserializeSeed<'de> for HitSeed {
    type Value = SearchItem;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<SearchItem, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for HitSeed {
    type Value = SearchItem;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a hit")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SearchItem, A::Error> {
        let (mut uri, mut level, mut score, mut abs, mut overview, mut category, mut tags, mut written) = (None, None, None, None, None, None, None, None);
        while let Some(key) = map.next_key::<Key>()? {
            let slot = match key {
                Key::Uri => &mut uri,
                Key::Level => &mut level,
                Key::Score => &mut score,
                Key::Abstract => &mut abs,
                Key::Overview => &mut overview,
                Key::Category => &mut category,
                Key::Tags => &mut tags,
                Key::WrittenAt => &mut written,
                Key::Other => {
                    map.next_value::<Skip>()?;
                    continue;
                }
            };
            *slot = Some(map.next_value::<Value>()?);
        }
        Ok(item_from_fields(uri, level, score, abs, overview, category, tags, written))
    }
}

/// A hit's key: one recall reads, or another (read without copying it).
enum Key {
    Uri,
    Level,
    Score,
    Abstract,
    Overview,
    Category,
    Tags,
    WrittenAt,
    Other,
}

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        d.deserialize_identifier(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, k: &str) -> Result<Key, E> {
        Ok(match k {
            "uri" => Key::Uri,
            "level" => Key::Level,
            "score" => Key::Score,
            "abstract" => Key::Abstract,
            "overview" => Key::Overview,
            "written_at" => Key::WrittenAt,
            "category" => Key::Category,
            "tags" => Key::Tags,
            _ => Key::Other,
        })
    }
}

/// A value read and dropped: parsed as any value is (the same syntax checks and nesting
/// limit as reading it into a JSON value — serde's `IgnoredAny` skips nested values without
/// the limit), no string copied unless it has escapes.
struct Skip;

impl<'de> de::Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Skip, D::Error> {
        d.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_none<E: de::Error>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_key::<Skip>()?.is_some() {
            map.next_value::<Skip>()?;
        }
        Ok(Skip)
    }
}
