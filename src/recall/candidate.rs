//! Search results from OpenViking `POST /api/v1/search/find`, read leniently: one odd item
//! is reported in the explain records, it does not fail the whole recall.

use crate::error::{EngineError, Result};
use crate::decode::fields::{as_object, describe};
use serde::Serialize;
use serde_json::Value;

/// Which memory scope a hit came from. User results are merged before agent results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum Scope {
    User,
    Agent,
}

/// One `find` hit, as far as recall needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchItem {
    pub uri: String,
    /// 0 = directory abstract, 1 = directory overview, 2 = a memory's detail. `None` if absent
    /// or not a number.
    pub level: Option<i64>,
    /// The raw score clamped to 0..=1; a missing or non-numeric score counts as 0.
    pub score: f64,
    pub abstract_text: String,
    /// The item's `overview` when it has no abstract (empty otherwise): used in its place for
    /// ranking and dedupe (the legacy `abstract ?? overview`), and as the text when nothing
    /// better is readable.
    pub overview: String,
    pub category: Option<String>,
    /// Set when the item could not be read (no `uri`): the reason, for the explain record.
    pub malformed: Option<String>,
    /// When the memory was written (ms since the epoch): the item's `written_at` (a number of
    /// milliseconds or an ISO 8601 time), which the engine's read path adds from the memory
    /// folder's listing (`engine::read`); `None` when unknown.
    pub written_ms: Option<u64>,
}

/// A time in an item: milliseconds (a finite, non-negative number) or an ISO 8601 string.
pub fn written_from(v: Option<&Value>) -> Option<u64> {
    match v? {
        Value::Number(n) => n.as_f64().filter(|f| f.is_finite() && *f >= 0.0 && *f < 1e16).map(|f| f as u64),
        Value::String(s) => crate::text::time::parse_iso8601(s),
        _ => None,
    }
}

impl SearchItem {
    /// The short text that stands for the memory in ranking and dedupe: the abstract, else
    /// the overview (empty when the item has neither).
    pub fn summary(&self) -> &str {
        if self.abstract_text.is_empty() { &self.overview } else { &self.abstract_text }
    }

    /// Lowercased `uri + " " + summary`, what the lexical rerank searches.
    pub fn haystack(&self) -> String {
        let summary = self.summary();
        let mut h = String::with_capacity(self.uri.len() + summary.len() + 1);
        h.push_str(&self.uri);
        h.push(' ');
        h.push_str(summary);
        h.to_lowercase()
    }
}

pub fn clamp01(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// The memory category: the item's `category`, else a `memory_type=` tag, else the folder
/// under `memories/` in its URI (`…/memories/preferences/x.md` → `preferences`,
/// `…/memories/profile.md` → `profile`).
fn infer_category(item: &serde_json::Map<String, Value>, uri: &str) -> Option<String> {
    infer_category_from(item.get("category"), item.get("tags"), uri)
}

/// [`infer_category`] from the item's `category` and `tags` values.
fn infer_category_from(category: Option<&Value>, tags: Option<&Value>, uri: &str) -> Option<String> {
    if let Some(Value::String(c)) = category {
        if !c.trim().is_empty() {
            return Some(c.trim().to_string());
        }
    }
    if let Some(Value::Array(tags)) = tags {
        for t in tags {
            if let Some(rest) = t.as_str().and_then(|s| s.strip_prefix("memory_type=")) {
                if !rest.is_empty() {
                    return Some(rest.to_string());
                }
            }
        }
    }
    let after = uri.split("/memories/").nth(1)?;
    let first = after.split('/').next()?;
    let name = first.strip_suffix(".md").unwrap_or(first);
    if name.is_empty() || name.starts_with('.') {
        None
    } else {
        Some(name.to_string())
    }
}

fn read_item(v: &Value) -> SearchItem {
    let Value::Object(m) = v else {
        return SearchItem {
            uri: String::new(),
            level: None,
            score: 0.0,
            abstract_text: String::new(),
            overview: String::new(),
            category: None,
            malformed: Some(format!("item is {}, not an object", describe(v))),
            written_ms: None,
        };
    };
    let uri = m.get("uri").and_then(Value::as_str).unwrap_or("").trim().to_string();
    let malformed = if uri.is_empty() { Some("item has no uri".to_string()) } else { None };
    let level = m.get("level").and_then(|l| l.as_f64()).filter(|f| f.fract() == 0.0).map(|f| f as i64);
    let score = clamp01(m.get("score").and_then(Value::as_f64).unwrap_or(0.0));
    let text = |key: &str| crate::text::trim_space(m.get(key).and_then(Value::as_str).unwrap_or("")).to_string();
    let abstract_text = text("abstract");
    // read only where it stands in for the abstract (overviews can be long)
    let overview = if abstract_text.is_empty() { text("overview") } else { String::new() };
    let category = infer_category(m, &uri);
    let written_ms = written_from(m.get("written_at"));
    SearchItem { uri, level, score, abstract_text, overview, category, malformed, written_ms }
}

/// The string in `v`, trimmed by `trim`: moved out when trimming leaves it whole (absent or
/// not a string reads as "").
fn take_trimmed(v: Option<Value>, trim: fn(&str) -> &str) -> String {
    match v {
        Some(Value::String(s)) => {
            let t = trim(&s);
            if t.len() == s.len() {
                s
            } else {
                t.to_string()
            }
        }
        _ => String::new(),
    }
}

/// [`read_item`] of an owned item: the same fields, read in one pass over its keys, the
/// strings moved out where possible.
fn take_item(v: Value) -> SearchItem {
    let Value::Object(m) = v else { return read_item(&v) };
    let (mut uri, mut level, mut score, mut abs, mut overview, mut category, mut tags, mut written) = (None, None, None, None, None, None, None, None);
    for (k, v) in m {
        match k.as_str() {
            "uri" => uri = Some(v),
            "level" => level = Some(v),
            "score" => score = Some(v),
            "abstract" => abs = Some(v),
            "overview" => overview = Some(v),
            "category" => category = Some(v),
            "tags" => tags = Some(v),
            "written_at" => written = Some(v),
            _ => {}
        }
    }
    item_from_fields(uri, level, score, abs, overview, category, tags, written)
}

/// A hit from the values of the fields recall reads (absent: `None`), as [`take_item`] reads
/// them (also `recall::wire`, which reads them straight from the request's text).
pub(crate) fn item_from_fields(
    uri: Option<Value>,
    level: Option<Value>,
    score: Option<Value>,
    abs: Option<Value>,
    overview: Option<Value>,
    category: Option<Value>,
    tags: Option<Value>,
    written: Option<Value>,
) -> SearchItem {
    let uri = take_trimmed(uri, str::trim);
    let category = infer_category_from(category.as_ref(), tags.as_ref(), &uri);
    let malformed = if uri.is_empty() { Some("item has no uri".to_string()) } else { None };
    let level = level.as_ref().and_then(|l| l.as_f64()).filter(|f| f.fract() == 0.0).map(|f| f as i64);
    let score = clamp01(score.as_ref().and_then(Value::as_f64).unwrap_or(0.0));
    let abstract_text = take_trimmed(abs, crate::text::trim_space);
    let overview = if abstract_text.is_empty() { take_trimmed(overview, crate::text::trim_space) } else { String::new() };
    let written_ms = written_from(written.as_ref());
    SearchItem { uri, level, score, abstract_text, overview, category, malformed, written_ms }
}

/// [`read_search_result`] of an owned result (the same items and errors), moving the strings
/// out of it instead of copying them (`recall::wire::take_scope` also takes a result given as
/// the text of OpenViking's answer).
pub fn take_search_result(path: &str, v: Value) -> Result<Vec<SearchItem>> {
    let items = match v {
        Value::Null => return Ok(Vec::new()),
        Value::Array(a) => a,
        Value::Object(_) => {
            if as_object(path, &v)?.opt_array("memories")?.is_none() {
                return Ok(Vec::new());
            }
            match v {
                Value::Object(mut m) => match m.remove("memories") {
                    Some(Value::Array(a)) => a,
                    _ => return Ok(Vec::new()),
                },
                _ => return Ok(Vec::new()),
            }
        }
        other => return read_search_result(path, Some(&other)),
    };
    Ok(items.into_iter().map(take_item).collect())
}

/// Reads one scope's search result: the `find` result object (`{memories:[…], …}`) or a
/// bare array of items. `null`/absent means no results (a scope that failed counts as empty).
pub fn read_search_result(path: &str, v: Option<&Value>) -> Result<Vec<SearchItem>> {
    Ok(search_items(path, v)?.map_or_else(Vec::new, |items| items.iter().map(read_item).collect()))
}

/// Whether [`read_search_result`] can read `v` (the same error if not), without reading the
/// items: an item never fails a result, only its shape does.
pub fn check_search_result(path: &str, v: Option<&Value>) -> Result<()> {
    search_items(path, v).map(|_| ())
}

/// The items of a search result, `None` for none; the error for a result of the wrong shape.
fn search_items<'a>(path: &'a str, v: Option<&'a Value>) -> Result<Option<&'a Vec<Value>>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) => Ok(Some(a)),
        Some(obj @ Value::Object(_)) => as_object(path, obj)?.opt_array("memories"),
        Some(other) => Err(EngineError::input(
            path,
            format!("expected a find result object or an array of items, got {}", describe(other)),
        )),
    }
}

/// The items of a find answer (`{memories: [...]}` or a bare list), to change in place.
fn items_mut(answer: &mut Value) -> Option<&mut Vec<Value>> {
    match answer {
        Value::Array(a) => Some(a),
        Value::Object(m) => m.get_mut("memories").and_then(Value::as_array_mut),
        _ => None,
    }
}

/// The folders holding an answer's memories (level-2 items), the fullest first, at most
/// `max`: where the read path asks when each memory was written.
pub fn memory_folders(answers: &[&Value], max: usize) -> Vec<String> {
    let mut count: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for answer in answers {
        let items = match answer {
            Value::Array(a) => Some(a),
            Value::Object(m) => m.get("memories").and_then(Value::as_array),
            _ => None,
        };
        for item in items.into_iter().flatten() {
            let leaf = item.get("level").and_then(Value::as_f64) == Some(2.0);
            if let (true, Some(uri)) = (leaf, item.get("uri").and_then(Value::as_str)) {
                if let Some((folder, _)) = uri.rsplit_once('/') {
                    *count.entry(folder).or_default() += 1;
                }
            }
        }
    }
    let mut folders: Vec<(&str, usize)> = count.into_iter().collect();
    folders.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    folders.into_iter().take(max).map(|(f, _)| f.to_string()).collect()
}

/// Adds `written_at` (ms) to each item of `answer` whose uri `times` knows (an item that has
/// one keeps it).
pub fn add_written_times(answer: &mut Value, times: &std::collections::HashMap<String, u64>) {
    for item in items_mut(answer).into_iter().flatten() {
        let Value::Object(m) = item else { continue };
        let at = m.get("uri").and_then(Value::as_str).and_then(|u| times.get(u)).copied();
        if let (Some(at), false) = (at, m.contains_key("written_at")) {
            m.insert("written_at".into(), Value::from(at));
        }
    }
}
