//! TypeScript declarations of the JSON shapes that cross the wasm boundary, generated from the
//! Rust type definitions themselves — one source of truth.
//!
//! - [`TsType`] says how a Rust type appears in TypeScript: its type expression where it is
//!   used, and, for the boundary types, its declaration ([`Decl`]).
//! - [`ts_type!`](crate::ts_type) wraps a struct or enum definition unchanged (derives, docs,
//!   serde attributes) and implements [`TsType`] from the same tokens: the wire names come from
//!   the serde attributes it reads (`rename_all`, `rename`, `tag`), optional `?:` from
//!   `skip_serializing_if` (output) or `default`/`Option` (input), `flatten` becomes `extends`
//!   (or the flattened fields, for an inline type), doc comments become TSDoc. A serde
//!   attribute it does not understand makes generation panic, so it cannot silently disagree
//!   with serde. A field whose Rust type says less than the JSON does (`Value`, `&'static str`)
//!   may carry the TypeScript type after `=>`: `pub messages: Vec<Value> => "AgentMessage[]",`.
//! - [`ts_input!`](crate::ts_input) declares the keys of an input the engine reads by hand
//!   (`input::Obj`), next to its parser; `tests/typescript_declarations.rs` proves the parser
//!   reads exactly those keys.
//! - [`declarations`] renders the file `src/wasm/types.d.ts`, which `wasm::types` puts in the
//!   package's `.d.ts`; the test fails when the checked-in file differs
//!   (`UPDATE_TS=1 cargo test --test typescript_declarations` rewrites it).
//!
//! No wasm-bindgen here: the generator runs natively, in the test.

mod declarations;
mod foreign;
mod render;

pub use declarations::{declarations, exported, plugin_config, HAND_WRITTEN_EXTERNAL, HAND_WRITTEN_HOST};
pub use render::{render_decl, tsdoc};

use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// How a Rust type appears in TypeScript.
pub trait TsType {
    /// The type expression where the type is used: `string`, `RankParts`, `ExplainRecord[]`,
    /// `string | null`, or an inline object type for an inline declaration.
    fn ts_name() -> String;
    /// The type without the `| null` an `Option` adds (what an optional field `?:` holds).
    fn ts_non_null() -> String {
        Self::ts_name()
    }
    /// The declaration, for types that have one.
    fn ts_decl() -> Option<Decl> {
        None
    }
}

/// One declaration: an interface, a string union or a tagged union.
#[derive(Debug, Clone, PartialEq)]
pub struct Decl {
    /// The TypeScript name (the Rust name unless `name = "…"` says otherwise).
    pub name: String,
    pub doc: Vec<String>,
    /// Rendered in place (an object literal or a union) rather than declared by name.
    pub inline: bool,
    pub kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// An interface: named supertypes (flattened, non-inline types) and its fields.
    Object { extends: Vec<String>, fields: Vec<Field> },
    /// A unit-only enum: its serialized names.
    Strings(Vec<Variant>),
    /// An internally tagged enum (`#[serde(tag = "…")]`): one object type per variant.
    Tagged { tag: String, variants: Vec<Variant> },
}

/// One enum variant: its serialized name and, for struct variants, its fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    pub name: String,
    pub doc: Vec<String>,
    pub fields: Vec<Field>,
}

/// One property on the wire.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The wire name (after serde's renaming).
    pub name: String,
    pub ts: String,
    pub optional: bool,
    pub doc: Vec<String>,
    /// For input keys: accepted but not read by the parser.
    pub ignored: bool,
}

/// Which way a shape crosses: what the engine serializes, or what it accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Output,
    Input,
}

/// What the attributes of a container, variant or field say (docs and serde).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attrs {
    pub doc: Vec<String>,
    pub rename: Option<String>,
    pub rename_all: Option<String>,
    pub tag: Option<String>,
    pub default: bool,
    pub skip_serializing_if: bool,
    pub flatten: bool,
    pub skip: bool,
}

impl Attrs {
    pub fn doc(&mut self, line: &str) {
        self.doc.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_string());
    }

    /// `#[serde(key = "value")]`.
    pub fn serde_kv(&mut self, key: &str, value: &str) {
        match key {
            "rename" => self.rename = Some(value.to_string()),
            "rename_all" => {
                check_case(value);
                self.rename_all = Some(value.to_string());
            }
            "tag" => self.tag = Some(value.to_string()),
            "skip_serializing_if" => self.skip_serializing_if = true,
            "default" => self.default = true,
            // read-only names (old records): no bearing on what is written
            "alias" => {}
            other => panic!("the TypeScript generator does not understand #[serde({other} = {value:?})]; teach typescript::Attrs"),
        }
    }

    /// `#[serde(flag)]`.
    pub fn serde_flag(&mut self, key: &str) {
        match key {
            "default" => self.default = true,
            "flatten" => self.flatten = true,
            "skip" => self.skip = true,
            "deny_unknown_fields" => {}
            other => panic!("the TypeScript generator does not understand #[serde({other})]; teach typescript::Attrs"),
        }
    }
}

/// Options of a [`ts_type!`](crate::ts_type) declaration (`ts(name = "…", inline, input)`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Opts {
    pub name: Option<String>,
    pub inline: bool,
    pub input: bool,
}

impl Opts {
    pub fn kv(&mut self, key: &str, value: &str) {
        match key {
            "name" => self.name = Some(value.to_string()),
            other => panic!("unknown ts_type! option {other} = {value:?}"),
        }
    }

    pub fn flag(&mut self, key: &str) {
        match key {
            "inline" => self.inline = true,
            "input" => self.input = true,
            other => panic!("unknown ts_type! option {other}"),
        }
    }
}

const CASES: &[&str] = &["lowercase", "UPPERCASE", "PascalCase", "camelCase", "snake_case", "SCREAMING_SNAKE_CASE", "kebab-case", "SCREAMING-KEBAB-CASE"];

fn check_case(case: &str) {
    assert!(CASES.contains(&case), "rename_all = {case:?} is not a serde casing");
}

/// serde's renaming of a variant (written in PascalCase).
pub fn rename_variant(case: &str, name: &str) -> String {
    let snake = || {
        let mut s = String::new();
        for (i, c) in name.char_indices() {
            if i > 0 && c.is_uppercase() {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
        }
        s
    };
    match case {
        "lowercase" => name.to_ascii_lowercase(),
        "UPPERCASE" => name.to_ascii_uppercase(),
        "PascalCase" => name.to_string(),
        "camelCase" => name[..1].to_ascii_lowercase() + &name[1..],
        "snake_case" => snake(),
        "SCREAMING_SNAKE_CASE" => snake().to_ascii_uppercase(),
        "kebab-case" => snake().replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => snake().replace('_', "-").to_ascii_uppercase(),
        other => panic!("rename_all = {other:?} is not a serde casing"),
    }
}

/// serde's renaming of a field (written in snake_case).
pub fn rename_field(case: &str, name: &str) -> String {
    let pascal = || {
        let mut s = String::new();
        let mut upper = true;
        for c in name.chars() {
            if c == '_' {
                upper = true;
            } else if upper {
                s.push(c.to_ascii_uppercase());
                upper = false;
            } else {
                s.push(c);
            }
        }
        s
    };
    match case {
        "lowercase" | "snake_case" => name.to_string(),
        "UPPERCASE" | "SCREAMING_SNAKE_CASE" => name.to_ascii_uppercase(),
        "PascalCase" => pascal(),
        "camelCase" => {
            let p = pascal();
            p[..1].to_ascii_lowercase() + &p[1..]
        }
        "kebab-case" => name.replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => name.replace('_', "-").to_ascii_uppercase(),
        other => panic!("rename_all = {other:?} is not a serde casing"),
    }
}

fn raw_ident(name: &str) -> &str {
    name.strip_prefix("r#").unwrap_or(name)
}

/// One field as written in a [`ts_type!`](crate::ts_type) definition, before the container's
/// rules apply.
#[derive(Debug, Clone)]
pub struct RawField {
    pub rust_name: String,
    pub attrs: Attrs,
    /// `T::ts_name()` (or the `=> "…"` override).
    pub ts: String,
    /// `T::ts_non_null()` (or the override).
    pub ts_non_null: String,
    /// `T` is an `Option`.
    pub nullable: bool,
    /// `T::ts_decl()`, for `flatten`.
    pub decl: Option<Decl>,
}

impl RawField {
    pub fn new<T: TsType>(rust_name: &str, attrs: Attrs, ts_override: Option<&str>) -> RawField {
        let ts = ts_override.map_or_else(T::ts_name, str::to_string);
        let ts_non_null = ts_override.map_or_else(T::ts_non_null, str::to_string);
        let nullable = T::ts_name() != T::ts_non_null();
        RawField { rust_name: raw_ident(rust_name).to_string(), attrs, ts, ts_non_null, nullable, decl: T::ts_decl() }
    }
}

/// One variant as written.
#[derive(Debug, Clone)]
pub struct RawVariant {
    pub rust_name: String,
    pub attrs: Attrs,
    /// `None` for a unit variant.
    pub fields: Option<Vec<RawField>>,
}

/// The fields of a struct (or struct variant) on the wire, and the supertypes a flatten adds.
fn wire_fields(raw: Vec<RawField>, case: Option<&str>, container_default: bool, dir: Direction, extends: &mut Vec<String>) -> Vec<Field> {
    let mut out = Vec::new();
    for f in raw {
        if f.attrs.skip {
            continue;
        }
        if f.attrs.flatten {
            match f.decl {
                Some(Decl { inline: true, kind: Kind::Object { extends: e, fields }, .. }) => {
                    extends.extend(e);
                    out.extend(fields);
                }
                Some(Decl { inline: false, name, kind: Kind::Object { .. }, .. }) => extends.push(name),
                _ => panic!("#[serde(flatten)] on {}: only struct types declared with ts_type! can be flattened", f.rust_name),
            }
            continue;
        }
        let name = match (&f.attrs.rename, case) {
            (Some(r), _) => r.clone(),
            (None, Some(c)) => rename_field(c, &f.rust_name),
            (None, None) => f.rust_name.clone(),
        };
        let (optional, ts) = match dir {
            Direction::Output if f.attrs.skip_serializing_if => (true, f.ts_non_null),
            Direction::Output => (false, f.ts),
            Direction::Input => (f.nullable || f.attrs.default || container_default, f.ts),
        };
        out.push(Field { name, ts, optional, doc: f.attrs.doc, ignored: false });
    }
    out
}

/// The declaration of a struct wrapped in [`ts_type!`](crate::ts_type).
pub fn struct_decl(rust_name: &str, opts: Opts, attrs: Attrs, fields: Vec<RawField>) -> Decl {
    assert!(attrs.tag.is_none(), "{rust_name}: #[serde(tag)] on a struct is not supported");
    let dir = if opts.input { Direction::Input } else { Direction::Output };
    let mut extends = Vec::new();
    let fields = wire_fields(fields, attrs.rename_all.as_deref(), attrs.default, dir, &mut extends);
    Decl {
        name: opts.name.unwrap_or_else(|| attrs.rename.unwrap_or_else(|| rust_name.to_string())),
        doc: attrs.doc,
        inline: opts.inline,
        kind: Kind::Object { extends, fields },
    }
}

/// The declaration of an enum wrapped in [`ts_type!`](crate::ts_type).
pub fn enum_decl(rust_name: &str, opts: Opts, attrs: Attrs, variants: Vec<RawVariant>) -> Decl {
    let dir = if opts.input { Direction::Input } else { Direction::Output };
    let case = attrs.rename_all.as_deref();
    let mut out = Vec::new();
    let mut any_fields = false;
    for v in variants {
        if v.attrs.skip {
            continue;
        }
        let name = match (&v.attrs.rename, case) {
            (Some(r), _) => r.clone(),
            (None, Some(c)) => rename_variant(c, &v.rust_name),
            (None, None) => v.rust_name.clone(),
        };
        let fields = match v.fields {
            None => Vec::new(),
            Some(f) => {
                any_fields = true;
                let mut extends = Vec::new();
                // serde: an enum's rename_all renames variants; a variant's renames its fields
                let fields = wire_fields(f, v.attrs.rename_all.as_deref(), v.attrs.default, dir, &mut extends);
                assert!(extends.is_empty(), "{rust_name}::{}: flatten in a variant is not supported", v.rust_name);
                fields
            }
        };
        out.push(Variant { name, doc: v.attrs.doc, fields });
    }
    let kind = match attrs.tag {
        Some(tag) => Kind::Tagged { tag, variants: out },
        None if !any_fields => Kind::Strings(out),
        None => panic!("{rust_name}: only unit-only or internally tagged (#[serde(tag = \"…\")]) enums are supported"),
    };
    Decl { name: opts.name.unwrap_or_else(|| rust_name.to_string()), doc: attrs.doc, inline: opts.inline, kind }
}

/// The name of a declared type where it is used: its name, or the inline rendering.
pub fn use_name(decl: &Decl) -> String {
    if decl.inline {
        render::inline(decl)
    } else {
        decl.name.clone()
    }
}

/// An array of a type expression: `T[]`, `(A | B)[]`, `Array<{ … }>` for an object literal.
fn array_of(ts: &str) -> String {
    if ts.starts_with('{') {
        format!("Array<{ts}>")
    } else {
        format!("{}[]", atom(ts))
    }
}

/// Wraps a type expression in parentheses when it is a union (for `T[]`).
fn atom(ts: &str) -> String {
    let mut depth = 0i32;
    let mut top_level_union = false;
    let mut in_str = false;
    for c in ts.chars() {
        match c {
            '"' => in_str = !in_str,
            _ if in_str => {}
            '{' | '(' | '[' | '<' => depth += 1,
            '}' | ')' | ']' | '>' => depth -= 1,
            '|' | '&' if depth == 0 => top_level_union = true,
            _ => {}
        }
    }
    if top_level_union {
        format!("({ts})")
    } else {
        ts.to_string()
    }
}

macro_rules! ts_primitive {
    ($ts:literal: $($t:ty),*) => {
        $(impl TsType for $t {
            fn ts_name() -> String {
                $ts.to_string()
            }
        })*
    };
}

ts_primitive!("number": u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64);
ts_primitive!("string": String, str, char);
ts_primitive!("boolean": bool);
ts_primitive!("unknown": Value);

impl<T: TsType> TsType for Option<T> {
    fn ts_name() -> String {
        let inner = T::ts_name();
        if inner.ends_with("| null") || inner == "unknown" {
            inner
        } else {
            format!("{inner} | null")
        }
    }
    fn ts_non_null() -> String {
        T::ts_non_null()
    }
}

impl<T: TsType> TsType for Vec<T> {
    fn ts_name() -> String {
        array_of(&T::ts_name())
    }
}

impl<T: TsType> TsType for [T] {
    fn ts_name() -> String {
        array_of(&T::ts_name())
    }
}

impl<T: TsType + ?Sized> TsType for &T {
    fn ts_name() -> String {
        T::ts_name()
    }
}

impl<T: TsType> TsType for Box<T> {
    fn ts_name() -> String {
        T::ts_name()
    }
}

impl<A: TsType, B: TsType> TsType for (A, B) {
    fn ts_name() -> String {
        format!("[{}, {}]", A::ts_name(), B::ts_name())
    }
}

impl<V: TsType> TsType for BTreeMap<String, V> {
    fn ts_name() -> String {
        format!("Record<string, {}>", V::ts_name())
    }
}

impl<V: TsType, S> TsType for HashMap<String, V, S> {
    fn ts_name() -> String {
        format!("Record<string, {}>", V::ts_name())
    }
}

impl TsType for serde_json::Map<String, Value> {
    fn ts_name() -> String {
        "Record<string, unknown>".to_string()
    }
}

/// Wraps a struct or enum definition (kept as written) and implements [`TsType`] for it from
/// the same tokens. Optional leading options: `ts(name = "TsName", inline, input);`.
///
/// - `name`: the TypeScript name, when it differs from the Rust one;
/// - `inline`: rendered in place where used (an object literal or a string union), not
///   declared by name; a flattened inline struct contributes its fields;
/// - `input`: the shape the engine accepts (an `Option` or `default` field is optional), not
///   the one it produces (a `skip_serializing_if` field is optional).
///
/// A field may end in `=> "TS type"` when its Rust type says less than the JSON.
#[macro_export]
macro_rules! ts_type {
    (ts($($ok:ident $(= $ov:literal)?),* $(,)?); $($item:tt)*) => {
        $crate::__ts_item! { [$($ok $(= $ov)?),*] $($item)* }
    };
    ($($item:tt)*) => {
        $crate::__ts_item! { [] $($item)* }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __ts_item {
    (
        [$($ok:ident $(= $ov:literal)?),*]
        $(#[$($cattr:tt)*])*
        $vis:vis struct $name:ident {
            $(
                $(#[$($fattr:tt)*])*
                $fvis:vis $fname:ident : $fty:ty $(=> $fts:literal)?
            ),* $(,)?
        }
    ) => {
        $(#[$($cattr)*])*
        $vis struct $name {
            $(
                $(#[$($fattr)*])*
                $fvis $fname : $fty
            ),*
        }

        impl $crate::typescript::TsType for $name {
            fn ts_name() -> String {
                $crate::typescript::use_name(&<Self as $crate::typescript::TsType>::ts_decl().expect("declared"))
            }
            fn ts_decl() -> Option<$crate::typescript::Decl> {
                #[allow(unused_mut)]
                let mut opts = $crate::typescript::Opts::default();
                $( $crate::__ts_opt!(opts; $ok $(= $ov)?); )*
                #[allow(unused_mut)]
                let mut attrs = $crate::typescript::Attrs::default();
                $( $crate::__ts_attr!(attrs; $($cattr)*); )*
                let fields = vec![$(
                    {
                        #[allow(unused_mut)]
                        let mut a = $crate::typescript::Attrs::default();
                        $( $crate::__ts_attr!(a; $($fattr)*); )*
                        $crate::typescript::RawField::new::<$fty>(stringify!($fname), a, $crate::__ts_override!($($fts)?))
                    }
                ),*];
                Some($crate::typescript::struct_decl(stringify!($name), opts, attrs, fields))
            }
        }
    };
    (
        [$($ok:ident $(= $ov:literal)?),*]
        $(#[$($cattr:tt)*])*
        $vis:vis enum $name:ident {
            $(
                $(#[$($vattr:tt)*])*
                $vname:ident $({
                    $(
                        $(#[$($fattr:tt)*])*
                        $fname:ident : $fty:ty $(=> $fts:literal)?
                    ),* $(,)?
                })?
            ),* $(,)?
        }
    ) => {
        $(#[$($cattr)*])*
        $vis enum $name {
            $(
                $(#[$($vattr)*])*
                $vname $({
                    $(
                        $(#[$($fattr)*])*
                        $fname : $fty
                    ),*
                })?
            ),*
        }

        impl $crate::typescript::TsType for $name {
            fn ts_name() -> String {
                $crate::typescript::use_name(&<Self as $crate::typescript::TsType>::ts_decl().expect("declared"))
            }
            fn ts_decl() -> Option<$crate::typescript::Decl> {
                #[allow(unused_mut)]
                let mut opts = $crate::typescript::Opts::default();
                $( $crate::__ts_opt!(opts; $ok $(= $ov)?); )*
                #[allow(unused_mut)]
                let mut attrs = $crate::typescript::Attrs::default();
                $( $crate::__ts_attr!(attrs; $($cattr)*); )*
                let variants = vec![$(
                    {
                        #[allow(unused_mut)]
                        let mut va = $crate::typescript::Attrs::default();
                        $( $crate::__ts_attr!(va; $($vattr)*); )*
                        #[allow(unused_mut, unused_assignments)]
                        let mut fields: Option<Vec<$crate::typescript::RawField>> = None;
                        $(
                            fields = Some(vec![$(
                                {
                                    #[allow(unused_mut)]
                                    let mut a = $crate::typescript::Attrs::default();
                                    $( $crate::__ts_attr!(a; $($fattr)*); )*
                                    $crate::typescript::RawField::new::<$fty>(stringify!($fname), a, $crate::__ts_override!($($fts)?))
                                }
                            ),*]);
                        )?
                        $crate::typescript::RawVariant { rust_name: stringify!($vname).to_string(), attrs: va, fields }
                    }
                ),*];
                Some($crate::typescript::enum_decl(stringify!($name), opts, attrs, variants))
            }
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __ts_opt {
    ($o:ident; $k:ident = $v:literal) => {
        $o.kv(stringify!($k), $v)
    };
    ($o:ident; $k:ident) => {
        $o.flag(stringify!($k))
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __ts_override {
    () => {
        None
    };
    ($ts:literal) => {
        Some($ts)
    };
}

/// Reads one attribute: docs and serde are understood; anything else (derive, allow, default)
/// has no bearing on the JSON.
#[doc(hidden)]
#[macro_export]
macro_rules! __ts_attr {
    ($a:ident; doc = $d:literal) => {
        $a.doc($d)
    };
    ($a:ident; serde($($k:ident $(= $v:literal)?),* $(,)?)) => {
        $( $crate::__ts_serde!($a; $k $(= $v)?); )*
    };
    ($a:ident; serde $($rest:tt)*) => {
        compile_error!(concat!("ts_type!: unsupported serde attribute: serde", stringify!($($rest)*)))
    };
    ($a:ident; $($other:tt)*) => {};
}

#[doc(hidden)]
#[macro_export]
macro_rules! __ts_serde {
    ($a:ident; $k:ident = $v:literal) => {
        $a.serde_kv(stringify!($k), $v)
    };
    ($a:ident; $k:ident) => {
        $a.serde_flag(stringify!($k))
    };
}

/// Declares an input the engine reads by hand (with `input::Obj`, not `Deserialize`), next to
/// its parser, as the [`TsType`] of the Rust type the parser produces (or of a marker type):
/// `impl RustType as TsName [extends Base] { opt key: "ts", req key: "ts", ignored key: "ts" }`.
/// `opt` keys may be absent (or null), `req` keys must be there, `ignored` keys are accepted
/// and not read. `tests/typescript_declarations.rs` proves the parser reads exactly the
/// `opt`/`req` keys.
#[macro_export]
macro_rules! ts_input {
    (
        $(#[doc = $doc:literal])*
        impl $rust:ident as $ts_name:ident $(extends $base:ident)? {
            $(
                $(#[doc = $fdoc:literal])*
                $mode:ident $key:ident : $ts:literal
            ),* $(,)?
        }
    ) => {
        impl $crate::typescript::TsType for $rust {
            fn ts_name() -> String {
                stringify!($ts_name).to_string()
            }
            fn ts_decl() -> Option<$crate::typescript::Decl> {
                #[allow(unused_mut)]
                let mut doc = $crate::typescript::Attrs::default();
                $( doc.doc($doc); )*
                let fields = vec![$(
                    {
                        #[allow(unused_mut)]
                        let mut a = $crate::typescript::Attrs::default();
                        $( a.doc($fdoc); )*
                        $crate::typescript::input_field(stringify!($mode), stringify!($key), $ts, a.doc)
                    }
                ),*];
                Some($crate::typescript::Decl {
                    name: stringify!($ts_name).to_string(),
                    doc: doc.doc,
                    inline: false,
                    kind: $crate::typescript::Kind::Object { extends: vec![$(stringify!($base).to_string())?], fields },
                })
            }
        }
    };
}

/// One key of a [`ts_input!`](crate::ts_input) declaration.
pub fn input_field(mode: &str, key: &str, ts: &str, doc: Vec<String>) -> Field {
    let (optional, ignored) = match mode {
        "req" => (false, false),
        "opt" => (true, false),
        "ignored" => (true, true),
        other => panic!("ts_input!: {key}: `{other}` is not opt, req or ignored"),
    };
    Field { name: key.to_string(), ts: ts.to_string(), optional, doc, ignored }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;

    #[test]
    fn casing_follows_serde() {
        #[derive(serde::Serialize)]
        #[serde(rename_all = "snake_case")]
        enum Snake {
            NotLevel2,
            TooShort,
        }
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Camel {
            recall_max_content_chars: u8,
            a: u8,
        }
        assert_eq!(serde_json::to_value(Snake::NotLevel2).unwrap(), rename_variant("snake_case", "NotLevel2").as_str());
        assert_eq!(serde_json::to_value(Snake::TooShort).unwrap(), rename_variant("snake_case", "TooShort").as_str());
        let v = serde_json::to_value(Camel { recall_max_content_chars: 1, a: 2 }).unwrap();
        assert!(v.get(rename_field("camelCase", "recall_max_content_chars")).is_some());
        assert!(v.get(rename_field("camelCase", "a")).is_some());
        assert_eq!(rename_variant("kebab-case", "TokensAdded"), "tokens-added");
        assert_eq!(rename_field("PascalCase", "live_count"), "LiveCount");
    }

    #[test]
    fn containers_and_unions() {
        assert_eq!(<Vec<Option<String>>>::ts_name(), "(string | null)[]");
        assert_eq!(<Option<Option<u8>>>::ts_name(), "number | null");
        assert_eq!(<Option<Value>>::ts_name(), "unknown");
        assert_eq!(<BTreeMap<String, Vec<u8>>>::ts_name(), "Record<string, number[]>");
        assert_eq!(<(u64, u64)>::ts_name(), "[number, number]");
        assert_eq!(<Option<(u64, u64)>>::ts_non_null(), "[number, number]");
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    #[should_panic(expected = "does not understand")]
    fn unknown_serde_attributes_are_refused() {
        Attrs::default().serde_kv("with", "some_module");
    }
}
