//! Declarations as TypeScript text.

use super::{Decl, Field, Kind, Variant};

/// Rust doc text as TSDoc text: intra-doc links `` [`x`](path) `` / `` [`x`] `` become `` `x` ``,
/// and nothing can close the comment early.
fn doc_text(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(start) = rest.find("[`") {
        let Some(end) = rest[start + 2..].find("`]") else { break };
        out.push_str(&rest[..start]);
        let code = &rest[start + 1..start + 2 + end + 1];
        out.push_str(code);
        rest = &rest[start + 2 + end + 2..];
        if rest.starts_with('(') {
            if let Some(close) = rest.find(')') {
                rest = &rest[close + 1..];
            }
        }
    }
    out.push_str(rest);
    // Rust's absent value is JSON's null
    out.replace("`None`", "`null`").replace("*/", "*\\/")
}

/// A TSDoc comment at `indent` (empty when there are no doc lines).
pub fn tsdoc(doc: &[String], indent: &str) -> String {
    let lines: Vec<String> = doc.iter().map(|l| doc_text(l)).collect();
    // trailing and leading blank lines say nothing
    let start = lines.iter().position(|l| !l.trim().is_empty());
    let end = lines.iter().rposition(|l| !l.trim().is_empty());
    let (Some(start), Some(end)) = (start, end) else { return String::new() };
    let lines = &lines[start..=end];
    if lines.len() == 1 {
        return format!("{indent}/** {} */\n", lines[0]);
    }
    let mut s = format!("{indent}/**\n");
    for l in lines {
        if l.is_empty() {
            s.push_str(&format!("{indent} *\n"));
        } else {
            s.push_str(&format!("{indent} * {l}\n"));
        }
    }
    s.push_str(&format!("{indent} */\n"));
    s
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

fn key(f: &Field) -> String {
    // an index signature (`[key: string]`) is written as it is
    let name = if is_identifier(&f.name) || f.name.starts_with('[') { f.name.clone() } else { format!("{:?}", f.name) };
    format!("{name}{}: {}", if f.optional { "?" } else { "" }, f.ts)
}

fn quoted(s: &str) -> String {
    format!("{s:?}")
}

fn inline_object(lead: Option<String>, fields: &[Field]) -> String {
    let parts: Vec<String> = lead.into_iter().chain(fields.iter().map(key)).collect();
    if parts.is_empty() {
        "{}".to_string()
    } else {
        format!("{{ {} }}", parts.join("; "))
    }
}

fn tagged_variant(tag: &str, v: &Variant) -> String {
    let tag_key = if is_identifier(tag) { tag.to_string() } else { quoted(tag) };
    inline_object(Some(format!("{tag_key}: {}", quoted(&v.name))), &v.fields)
}

/// A declaration rendered in place: `{ a: T; b?: U }`, `"x" | "y"`, `{ kind: "a"; … } | …`.
pub fn inline(decl: &Decl) -> String {
    match &decl.kind {
        Kind::Object { extends, fields } => {
            let obj = inline_object(None, fields);
            if extends.is_empty() {
                obj
            } else {
                format!("{} & {obj}", extends.join(" & "))
            }
        }
        Kind::Strings(vs) => vs.iter().map(|v| quoted(&v.name)).collect::<Vec<_>>().join(" | "),
        Kind::Tagged { tag, variants } => variants.iter().map(|v| tagged_variant(tag, v)).collect::<Vec<_>>().join(" | "),
    }
}

/// A declaration as an exported `interface` or `type`, with its TSDoc.
pub fn render_decl(decl: &Decl) -> String {
    let mut s = tsdoc(&decl.doc, "");
    match &decl.kind {
        Kind::Object { extends, fields } => {
            let ext = if extends.is_empty() { String::new() } else { format!(" extends {}", extends.join(", ")) };
            s.push_str(&format!("export interface {}{ext} {{\n", decl.name));
            for f in fields {
                s.push_str(&tsdoc(&f.doc, "  "));
                s.push_str(&format!("  {};\n", key(f)));
            }
            s.push_str("}\n");
        }
        Kind::Strings(vs) if vs.iter().all(|v| v.doc.is_empty()) => {
            s.push_str(&format!("export type {} = {};\n", decl.name, inline(decl)));
        }
        Kind::Strings(vs) => {
            s.push_str(&format!("export type {} =\n", decl.name));
            for v in vs {
                s.push_str(&tsdoc(&v.doc, "  "));
                s.push_str(&format!("  | {}\n", quoted(&v.name)));
            }
            s.truncate(s.trim_end().len());
            s.push_str(";\n");
        }
        Kind::Tagged { tag, variants } => {
            s.push_str(&format!("export type {} =\n", decl.name));
            for v in variants {
                s.push_str(&tsdoc(&v.doc, "  "));
                s.push_str(&format!("  | {}\n", tagged_variant(tag, v)));
            }
            s.truncate(s.trim_end().len());
            s.push_str(";\n");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;

    #[test]
    fn doc_links_become_code() {
        assert_eq!(doc_text("see [`CompactCheckpoint`](crate::lifecycle::checkpoint::CompactCheckpoint) and [`SEARCH_REUSE_MS`]."), "see `CompactCheckpoint` and `SEARCH_REUSE_MS`.");
        assert_eq!(doc_text("a */ b"), "a *\\/ b");
        assert_eq!(doc_text("`None` when unknown"), "`null` when unknown");
        assert_eq!(tsdoc(&["one".into()], "  "), "  /** one */\n");
        assert_eq!(tsdoc(&["one".into(), "".into(), "two".into(), "".into()], ""), "/**\n * one\n *\n * two\n */\n");
    }
}
