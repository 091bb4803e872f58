//! Reads the TypeScript declarations back into shapes (the subset ts-rs writes and the
//! hand-written inputs use: object types, interfaces with `extends`, unions, intersections,
//! arrays, tuples, string literals, `Record<string, T>` and index signatures), and checks JSON
//! values against them: what lets the test compare the declarations with what serde writes
//! and what the hand-written parsers read.

use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    /// `string`, `number`, `boolean`, `unknown`, `null`.
    Prim(String),
    /// A string literal.
    Lit(String),
    /// A declared (or external) type name.
    Name(String),
    Array(Box<Ty>),
    Tuple(Vec<Ty>),
    /// Members and an index signature's value type.
    Object(Vec<Member>, Option<Box<Ty>>),
    Union(Vec<Ty>),
    Inter(Vec<Ty>),
    /// A generic this reader does not look into (`NonNullable<…>`).
    Other(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub name: String,
    pub optional: bool,
    pub ty: Ty,
}

impl Ty {
    pub fn nullable(&self) -> bool {
        match self {
            Ty::Prim(p) => p == "null" || p == "unknown",
            Ty::Union(a) => a.iter().any(Ty::nullable),
            _ => false,
        }
    }
    /// The type without `null` (what `NonNullable<…>` makes of it).
    pub fn non_null(&self) -> Ty {
        match self {
            Ty::Union(a) => {
                let mut rest: Vec<Ty> = a.iter().filter(|t| **t != Ty::Prim("null".into())).cloned().collect();
                if rest.len() == 1 { rest.pop().unwrap() } else { Ty::Union(rest) }
            }
            t => t.clone(),
        }
    }
    /// The string literals of a literal or a union of them.
    pub fn literals(&self) -> Vec<String> {
        match self {
            Ty::Lit(s) => vec![s.clone()],
            Ty::Union(a) => a.iter().flat_map(Ty::literals).collect(),
            _ => Vec::new(),
        }
    }
    /// Every member name inside (nested object types included).
    pub fn member_names(&self, out: &mut Vec<String>) {
        match self {
            Ty::Object(ms, idx) => {
                for m in ms {
                    out.push(m.name.clone());
                    m.ty.member_names(out);
                }
                if let Some(t) = idx {
                    t.member_names(out);
                }
            }
            Ty::Array(t) => t.member_names(out),
            Ty::Tuple(a) | Ty::Union(a) | Ty::Inter(a) => a.iter().for_each(|t| t.member_names(out)),
            _ => {}
        }
    }
}

/// Removes comments, keeping string and template literals.
fn strip_comments(ts: &str) -> String {
    let mut out = String::new();
    let mut chars = ts.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'*') => {
                let mut prev = ' ';
                for d in chars.by_ref() {
                    if prev == '*' && d == '/' {
                        break;
                    }
                    prev = d;
                }
                out.push(' ');
            }
            '/' if chars.peek() == Some(&'/') => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
                out.push('\n');
            }
            '"' | '`' => {
                out.push(c);
                for d in chars.by_ref() {
                    out.push(d);
                    if d == c {
                        break;
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

fn tokens(ts: &str) -> Vec<String> {
    let src = strip_comments(ts);
    let mut out = Vec::new();
    let mut chars = src.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '"' || c == '`' {
            chars.next();
            let mut s = String::from(c);
            for d in chars.by_ref() {
                s.push(d);
                if d == c {
                    break;
                }
            }
            out.push(s);
        } else if c.is_ascii_alphanumeric() || c == '_' || c == '$' {
            let mut s = String::new();
            while let Some(&d) = chars.peek() {
                if d.is_ascii_alphanumeric() || d == '_' || d == '$' {
                    s.push(d);
                    chars.next();
                } else {
                    break;
                }
            }
            out.push(s);
        } else {
            out.push(c.to_string());
            chars.next();
        }
    }
    out
}

struct Parser {
    t: Vec<String>,
    i: usize,
}

impl Parser {
    fn peek(&self) -> &str {
        self.t.get(self.i).map(String::as_str).unwrap_or("")
    }
    fn next(&mut self) -> String {
        self.i += 1;
        self.t[self.i - 1].clone()
    }
    fn eat(&mut self, s: &str) -> bool {
        let hit = self.peek() == s;
        if hit {
            self.i += 1;
        }
        hit
    }
    fn expect(&mut self, s: &str) {
        assert!(self.eat(s), "expected {s:?} at token {}: {:?}", self.i, &self.t[self.i.saturating_sub(5)..(self.i + 5).min(self.t.len())]);
    }
    fn union(&mut self) -> Ty {
        self.eat("|");
        let mut alts = vec![self.inter()];
        while self.eat("|") {
            alts.push(self.inter());
        }
        if alts.len() == 1 { alts.pop().unwrap() } else { Ty::Union(alts) }
    }
    fn inter(&mut self) -> Ty {
        let mut parts = vec![self.postfix()];
        while self.eat("&") {
            parts.push(self.postfix());
        }
        if parts.len() == 1 { parts.pop().unwrap() } else { Ty::Inter(parts) }
    }
    fn postfix(&mut self) -> Ty {
        let mut t = self.primary();
        while self.eat("[") {
            if self.eat("]") {
                t = Ty::Array(Box::new(t));
            } else {
                // an indexed access (`T[k]`, in a mapped type)
                self.next();
                self.expect("]");
                t = Ty::Other("indexed access".into());
            }
        }
        t
    }
    fn primary(&mut self) -> Ty {
        let tok = self.next();
        match tok.as_str() {
            "{" => self.object(),
            "(" => {
                let t = self.union();
                self.expect(")");
                t
            }
            "[" => {
                let mut items = Vec::new();
                while !self.eat("]") {
                    items.push(self.union());
                    self.eat(",");
                }
                Ty::Tuple(items)
            }
            "string" | "number" | "boolean" | "unknown" | "null" => Ty::Prim(tok),
            s if s.starts_with('"') => Ty::Lit(s.trim_matches('"').to_string()),
            s if s.starts_with('`') => Ty::Prim("string".into()),
            name => {
                if self.eat("<") {
                    let mut args = vec![self.union()];
                    while self.eat(",") {
                        args.push(self.union());
                    }
                    self.expect(">");
                    match name {
                        "Array" => Ty::Array(Box::new(args.remove(0))),
                        "Record" => Ty::Object(Vec::new(), Some(Box::new(args.remove(1)))),
                        _ => Ty::Other(name.to_string()),
                    }
                } else {
                    Ty::Name(name.to_string())
                }
            }
        }
    }
    /// After `{`: members up to `}`.
    fn object(&mut self) -> Ty {
        let mut members = Vec::new();
        let mut index = None;
        while !self.eat("}") {
            if self.eat("[") {
                // `[key: string]`, `[key in string]`, `[k in keyof T]`: an index signature
                while !self.eat("]") {
                    self.next();
                }
                self.eat("?");
                self.expect(":");
                index = Some(Box::new(self.union()));
            } else {
                let name = self.next().trim_matches('"').to_string();
                let optional = self.eat("?");
                self.expect(":");
                members.push(Member { name, optional, ty: self.union() });
            }
            if !self.eat(";") {
                self.eat(",");
            }
        }
        Ty::Object(members, index)
    }
}

/// The `export type` and `export interface` declarations of a text (an interface's
/// `extends` becomes an intersection).
pub fn declarations(ts: &str) -> BTreeMap<String, Ty> {
    let mut p = Parser { t: tokens(ts), i: 0 };
    let mut out = BTreeMap::new();
    while p.i < p.t.len() {
        if p.peek() != "export" {
            p.i += 1;
            continue;
        }
        p.i += 1;
        match p.next().as_str() {
            "type" => {
                let name = p.next();
                p.expect("=");
                let t = p.union();
                p.expect(";");
                out.insert(name, t);
            }
            "interface" => {
                let name = p.next();
                let mut parts = Vec::new();
                if p.eat("extends") {
                    loop {
                        parts.push(Ty::Name(p.next()));
                        if !p.eat(",") {
                            break;
                        }
                    }
                }
                p.expect("{");
                parts.push(p.object());
                out.insert(name, if parts.len() == 1 { parts.pop().unwrap() } else { Ty::Inter(parts) });
            }
            _ => {}
        }
    }
    out
}

/// Declarations by name.
pub struct Decls(pub BTreeMap<String, Ty>);

impl Decls {
    /// The members of an object type, its named and intersected parts' included.
    pub fn members(&self, t: &Ty) -> (Vec<Member>, Option<Ty>) {
        match t {
            Ty::Object(ms, idx) => (ms.clone(), idx.as_deref().cloned()),
            Ty::Name(n) => self.members(self.0.get(n).unwrap_or_else(|| panic!("{n} is not declared"))),
            Ty::Inter(parts) => {
                let mut all = Vec::new();
                let mut index = None;
                for p in parts {
                    let (ms, idx) = self.members(p);
                    all.extend(ms);
                    index = index.or(idx);
                }
                (all, index)
            }
            other => panic!("not an object type: {other:?}"),
        }
    }

    /// Checks `v` against `t`; the number of objects checked, or what does not fit.
    pub fn check(&self, path: &str, v: &Value, t: &Ty) -> Result<usize, String> {
        let fail = |what: &str| Err(format!("{path}: {v} is not {what}"));
        match t {
            Ty::Prim(p) => match (p.as_str(), v) {
                ("unknown", _) | ("null", Value::Null) | ("string", Value::String(_)) | ("number", Value::Number(_)) | ("boolean", Value::Bool(_)) => Ok(0),
                _ => fail(p),
            },
            Ty::Lit(s) => if v == s.as_str() { Ok(0) } else { fail(&format!("{s:?}")) },
            Ty::Name(n) => match self.0.get(n) {
                Some(t) => self.check(path, v, t),
                None => Ok(0), // an external shape (AgentMessage, FindResult): read leniently
            },
            Ty::Array(t) => {
                let Value::Array(a) = v else { return fail("an array") };
                a.iter().enumerate().map(|(i, x)| self.check(&format!("{path}[{i}]"), x, t)).sum()
            }
            Ty::Tuple(ts) => {
                let Value::Array(a) = v else { return fail("a tuple") };
                if a.len() != ts.len() {
                    return fail(&format!("a tuple of {}", ts.len()));
                }
                a.iter().zip(ts).enumerate().map(|(i, (x, t))| self.check(&format!("{path}[{i}]"), x, t)).sum()
            }
            Ty::Union(alts) => {
                let mut why = Vec::new();
                for a in alts {
                    match self.check(path, v, a) {
                        Ok(n) => return Ok(n),
                        Err(e) => why.push(e),
                    }
                }
                Err(format!("{path}: no alternative fits: {}", why.join("; ")))
            }
            Ty::Object(..) | Ty::Inter(_) => {
                let Value::Object(o) = v else { return fail("an object") };
                let (members, index) = self.members(t);
                let mut n = 1;
                for m in &members {
                    match o.get(&m.name) {
                        None if m.optional => {}
                        None => return Err(format!("{path}.{}: declared required, absent", m.name)),
                        Some(x) => n += self.check(&format!("{path}.{}", m.name), x, &m.ty)?,
                    }
                }
                for (k, x) in o {
                    if !members.iter().any(|m| &m.name == k) {
                        match &index {
                            Some(t) => n += self.check(&format!("{path}.{k}"), x, t)?,
                            None => return Err(format!("{path}.{k}: present, not declared")),
                        }
                    }
                }
                Ok(n)
            }
            Ty::Other(g) => Err(format!("{path}: cannot check against {g}<…>")),
        }
    }
}
