//! What OpenViking 0.5.2 takes in one turn's messages. Its privacy pass
//! (`openviking/privacy/session_extractor.py`, limits in `privacy/rules.py`) refuses a batch —
//! `400 INVALID_ARGUMENT "Session privacy text limit exceeded"` — in which one text (a text
//! part, a tool output, a string in a tool's input) is longer than 4 MiB characters or whose
//! texts add up to more than 16 MiB, and one whose tool input nests deeper than 32 levels or
//! holds more than 100,000 values ("structure limit"). Such a turn would be refused every time
//! it is sent, and would hold every later turn of its session in the outbox.
//!
//! So a turn is fitted before it is queued ([`fit_turn`]): a text over [`TEXT_MAX_CHARS`]
//! keeps its head and its tail with a note in the middle that says how much was cut, how long
//! the whole was and its SHA-256; if the turn's texts still add up to more than
//! [`TURN_MAX_CHARS`], its longest texts are cut further, to the same length; a tool input
//! over the structure limits, or longer than [`INPUT_MAX_CHARS`] as JSON, is kept as its JSON
//! text, cut the same way. Everything within the limits is stored as it was.

use crate::message::{StoredMessage, StoredPart, ToolPart};
use serde_json::{json, Value};

/// The longest text kept whole (OpenViking's limit is 4 MiB = 4,194,304 characters).
pub const TEXT_MAX_CHARS: usize = 4_000_000;
/// The most text one turn keeps (OpenViking's limit is 16 MiB per batch; a turn is one batch).
pub const TURN_MAX_CHARS: usize = 15_000_000;
/// The longest tool input kept as it was, as JSON text.
pub const INPUT_MAX_CHARS: usize = 1_000_000;
/// Nesting and size of a tool input kept as it was (OpenViking's limits: 32 and 100,000).
pub const INPUT_MAX_DEPTH: usize = 24;
pub const INPUT_MAX_NODES: usize = 50_000;

/// One text cut to fit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// What it was: `text`, `tool output of <tool> (<call id>)`, `tool input of …`.
    pub what: String,
    pub chars: usize,
    pub kept: usize,
}

fn nodes_and_depth(v: &Value, depth: usize, nodes: &mut usize, deepest: &mut usize) {
    *nodes += 1;
    *deepest = (*deepest).max(depth);
    if *nodes > INPUT_MAX_NODES || depth > INPUT_MAX_DEPTH {
        return;
    }
    match v {
        Value::Array(a) => a.iter().for_each(|x| nodes_and_depth(x, depth + 1, nodes, deepest)),
        Value::Object(o) => o.values().for_each(|x| nodes_and_depth(x, depth + 1, nodes, deepest)),
        _ => {}
    }
}

fn string_chars(v: &Value) -> usize {
    match v {
        Value::String(s) => s.chars().count(),
        Value::Array(a) => a.iter().map(string_chars).sum(),
        Value::Object(o) => o.iter().map(|(k, x)| k.chars().count() + string_chars(x)).sum(),
        _ => 0,
    }
}

/// `text` cut to `keep` characters: head, the note, tail.
pub fn cut_text(text: &str, chars: usize, keep: usize) -> String {
    let note = format!(
        "\n\n[… {} characters cut here by the context engine: OpenViking takes at most 4 MiB of text per field and 16 MiB per turn; the whole was {chars} characters, sha256 {} …]\n\n",
        chars.saturating_sub(keep),
        crate::text::sha256::sha256_hex(text.as_bytes())
    );
    let room = keep.saturating_sub(note.chars().count());
    let head = room / 2 + room % 2;
    let tail = room / 2;
    let start_of_tail = text.char_indices().nth(chars - tail).map_or(text.len(), |(i, _)| i);
    let end_of_head = text.char_indices().nth(head).map_or(text.len(), |(i, _)| i);
    format!("{}{note}{}", &text[..end_of_head], &text[start_of_tail..])
}

/// A field of the turn that may be cut: (message, part, key, what).
struct Field {
    at: (usize, usize, &'static str),
    what: String,
    chars: usize,
}

/// Fits one turn's OpenViking messages (`{role, parts}`) to what OpenViking takes; says
/// what it cut.
pub fn fit_turn(messages: &mut [Value]) -> Vec<Cut> {
    let mut cuts = Vec::new();
    // tool inputs first: over the structure limits, or too long, they become their JSON text
    for m in messages.iter_mut() {
        for p in m.get_mut("parts").and_then(Value::as_array_mut).into_iter().flatten() {
            let StoredPart::Tool(ToolPart { input: Some(input), name, id, .. }) = StoredPart::of(p) else { continue };
            let (mut nodes, mut deepest) = (0, 0);
            nodes_and_depth(input, 0, &mut nodes, &mut deepest);
            let chars = string_chars(input);
            if nodes <= INPUT_MAX_NODES && deepest <= INPUT_MAX_DEPTH && chars <= INPUT_MAX_CHARS {
                continue;
            }
            let text = input.to_string();
            let total = text.chars().count();
            let keep = total.min(INPUT_MAX_CHARS);
            let what = format!("tool input of {} ({})", name.unwrap_or("?"), id.unwrap_or("?"));
            p["tool_input"] = json!({ "json": if keep < total { cut_text(&text, total, keep) } else { text } });
            cuts.push(Cut { what, chars: total, kept: keep });
        }
    }
    // the texts: each to TEXT_MAX_CHARS, then the longest together until the turn fits
    let mut fields = Vec::new();
    let mut other = 0usize;
    for (i, m) in messages.iter().enumerate() {
        for (j, raw) in StoredMessage::of(m).raw_parts().unwrap_or_default().iter().enumerate() {
            match StoredPart::of(raw) {
                StoredPart::Text { text } => fields.push(Field { at: (i, j, "text"), what: "text".into(), chars: text.map_or(0, |t| t.chars().count()) }),
                StoredPart::Tool(t) => {
                    let what = format!("tool output of {} ({})", t.name.unwrap_or("?"), t.id.unwrap_or("?"));
                    fields.push(Field { at: (i, j, "tool_output"), what, chars: t.output.map_or(0, |o| o.chars().count()) });
                    other += t.input.map_or(0, string_chars);
                }
                StoredPart::Context { .. } | StoredPart::Other(_) => other += raw.as_object().map_or(0, |o| o.values().map(string_chars).sum()),
            }
        }
    }
    let budget = TURN_MAX_CHARS.saturating_sub(other);
    let total = |cap: usize| fields.iter().map(|f| f.chars.min(cap)).sum::<usize>();
    let mut cap = TEXT_MAX_CHARS;
    if total(cap) > budget {
        // the largest cap under which the texts fit
        let (mut lo, mut hi) = (0usize, cap);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if total(mid) <= budget {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        cap = lo.max(1_000);
    }
    for f in fields.iter().filter(|f| f.chars > cap) {
        let (i, j, key) = f.at;
        let part = &mut messages[i]["parts"][j];
        let text = part.get(key).and_then(Value::as_str).unwrap_or("").to_string();
        part[key] = Value::String(cut_text(&text, f.chars, cap));
        cuts.push(Cut { what: f.what.clone(), chars: f.chars, kept: cap });
    }
    cuts
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    fn turn(output: &str) -> Vec<Value> {
        vec![
            json!({"role": "user", "parts": [{"type": "text", "text": "dump the log"}]}),
            json!({"role": "assistant", "parts": [{"type": "tool", "tool_id": "c1", "tool_name": "exec", "tool_input": {"command": "cat huge.log"}, "tool_output": output, "tool_status": "completed"}, {"type": "text", "text": "Done."}]}),
        ]
    }

    /// The characters OpenViking's privacy pass counts: texts, tool outputs, tool inputs.
    fn total(messages: &[Value]) -> usize {
        let parts = messages.iter().flat_map(|m| m["parts"].as_array().unwrap().iter());
        parts.map(|p| ["text", "tool_output"].iter().map(|k| p.get(*k).map_or(0, string_chars)).sum::<usize>() + p.get("tool_input").map_or(0, string_chars)).sum()
    }

    #[test]
    fn a_turn_within_the_limits_is_left_as_it_was() {
        let mut m = turn(&"x".repeat(TEXT_MAX_CHARS));
        let before = m.clone();
        assert!(fit_turn(&mut m).is_empty());
        assert_eq!(m, before);
    }

    #[test]
    fn an_output_over_the_text_limit_keeps_its_head_and_tail_and_says_what_was_cut() {
        let out = format!("FIRST LINE\n{}\nLAST LINE", "é".repeat(9_000_000));
        let mut m = turn(&out);
        let cuts = fit_turn(&mut m);
        assert_eq!(cuts, [Cut { what: "tool output of exec (c1)".into(), chars: out.chars().count(), kept: TEXT_MAX_CHARS }]);
        let kept = m[1]["parts"][0]["tool_output"].as_str().unwrap();
        assert_eq!(kept.chars().count(), TEXT_MAX_CHARS);
        assert!(kept.starts_with("FIRST LINE") && kept.ends_with("LAST LINE"));
        assert!(kept.contains(&format!("the whole was {} characters, sha256 {}", out.chars().count(), crate::text::sha256::sha256_hex(out.as_bytes()))));
        assert_eq!(m[1]["parts"][1]["text"], "Done.", "the rest is untouched");
    }

    #[test]
    fn a_turn_over_the_turn_limit_cuts_its_longest_texts_to_one_length() {
        let mut m = turn(&"o".repeat(3_900_000));
        for k in 0..4 {
            m[1]["parts"].as_array_mut().unwrap().push(json!({"type": "tool", "tool_id": format!("c{}", k + 2), "tool_name": "exec", "tool_input": {}, "tool_output": "p".repeat(3_900_000), "tool_status": "completed"}));
        }
        let cuts = fit_turn(&mut m);
        assert_eq!(cuts.len(), 5);
        assert!(total(&m) <= TURN_MAX_CHARS, "{}", total(&m));
        assert!(total(&m) > TURN_MAX_CHARS - 100, "as much kept as fits");
        assert_eq!(m[0]["parts"][0]["text"], "dump the log");
    }

    #[test]
    fn a_tool_input_too_deep_or_too_large_is_kept_as_its_json_text() {
        let mut deep = json!("bottom");
        for _ in 0..40 {
            deep = json!({ "a": deep });
        }
        let mut m = turn("ok");
        m[1]["parts"][0]["tool_input"] = deep.clone();
        let cuts = fit_turn(&mut m);
        assert_eq!(cuts.len(), 1);
        assert_eq!(m[1]["parts"][0]["tool_input"]["json"], deep.to_string(), "whole, as text");
        let mut wide = turn("ok");
        wide[1]["parts"][0]["tool_input"] = json!({"rows": vec![1; 60_000]});
        assert_eq!(fit_turn(&mut wide)[0].what, "tool input of exec (c1)");
        let mut long = turn("ok");
        long[1]["parts"][0]["tool_input"] = json!({"content": "y".repeat(2_000_000)});
        let cut = fit_turn(&mut long);
        assert_eq!(cut[0].kept, INPUT_MAX_CHARS);
        assert_eq!(long[1]["parts"][0]["tool_input"]["json"].as_str().unwrap().chars().count(), INPUT_MAX_CHARS);
    }
}
