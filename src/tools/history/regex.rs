//! A small regular-expression matcher for `memory_search_history`'s `pattern`: parsed into
//! a program and run as a Pike VM (Thompson NFA simulation, all threads in lock step), so the
//! time is linear in the text — no backtracking, no pattern can make it explode.
//!
//! The subset: literals; `.` (any character but a newline); classes `[abc]`, `[a-z0-9_]`,
//! `[^…]` (`]` first is literal; `\d \w \s` and escapes inside); `\d \w \s \D \W \S`;
//! escapes `\n \t \r` and `\` before any other non-alphanumeric character (`\.` `\(` `\\`);
//! anchors `^` / `$` (the start and end of the text or of a line); groups `( … )` (also
//! `(?: … )`; nothing is captured); alternation `|`; quantifiers `*`, `+`, `?`, `{m}`,
//! `{m,}`, `{m,n}` with `n ≤ REPEAT_MAX`. Lazy quantifiers, backreferences, lookaround and
//! flags are not supported and are refused, not guessed. Case-insensitive matching folds
//! every character to lower case.
//!
//! Limits: a pattern is at most [`PATTERN_MAX_CHARS`] characters and compiles to at most
//! [`PROGRAM_MAX`] instructions; each run is charged its steps against a caller's budget.

/// The longest pattern accepted (characters).
pub const PATTERN_MAX_CHARS: usize = 256;
/// The largest compiled program (instructions): bounds the work per character.
pub const PROGRAM_MAX: usize = 1024;
/// The largest `m` / `n` in `{m,n}`.
pub const REPEAT_MAX: u32 = 100;

#[derive(Debug, Clone, PartialEq)]
enum ClassItem {
    Range(char, char),
    Digit(bool),
    Word(bool),
    Space(bool),
}

#[derive(Debug, Clone, PartialEq)]
struct Class {
    negated: bool,
    items: Vec<ClassItem>,
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl ClassItem {
    fn matches(&self, c: char) -> bool {
        match *self {
            ClassItem::Range(a, b) => a <= c && c <= b,
            ClassItem::Digit(neg) => c.is_ascii_digit() != neg,
            ClassItem::Word(neg) => is_word(c) != neg,
            ClassItem::Space(neg) => c.is_whitespace() != neg,
        }
    }
}

impl Class {
    fn matches(&self, c: char, fold: bool) -> bool {
        let hit = |x: char| self.items.iter().any(|i| i.matches(x));
        let any = if fold { hit(c) || hit(lower(c)) || hit(upper(c)) } else { hit(c) };
        any != self.negated
    }
}

fn lower(c: char) -> char {
    let mut l = c.to_lowercase();
    match (l.next(), l.next()) {
        (Some(x), None) => x,
        _ => c,
    }
}

fn upper(c: char) -> char {
    let mut u = c.to_uppercase();
    match (u.next(), u.next()) {
        (Some(x), None) => x,
        _ => c,
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Empty,
    Char(char),
    Any,
    Class(Class),
    LineStart,
    LineEnd,
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat { node: Box<Node>, min: u32, max: Option<u32> },
}

enum Esc {
    Lit(char),
    Class(ClassItem),
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

type PResult<T> = std::result::Result<T, String>;

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek();
        self.pos += usize::from(c.is_some());
        c
    }

    fn err<T>(&self, what: &str) -> PResult<T> {
        Err(format!("{what} at character {}", self.pos + 1))
    }

    fn alternation(&mut self, depth: usize) -> PResult<Node> {
        if depth > 32 {
            return self.err("groups nested too deeply");
        }
        let mut alts = vec![self.concat(depth)?];
        while self.peek() == Some('|') {
            self.pos += 1;
            alts.push(self.concat(depth)?);
        }
        Ok(if alts.len() == 1 { alts.pop().unwrap_or(Node::Empty) } else { Node::Alt(alts) })
    }

    fn concat(&mut self, depth: usize) -> PResult<Node> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom(depth)?;
            items.push(self.quantified(atom)?);
        }
        Ok(match items.len() {
            0 => Node::Empty,
            1 => items.pop().unwrap_or(Node::Empty),
            _ => Node::Concat(items),
        })
    }

    fn atom(&mut self, depth: usize) -> PResult<Node> {
        let Some(c) = self.next() else { return self.err("unexpected end") };
        Ok(match c {
            '.' => Node::Any,
            '^' => Node::LineStart,
            '$' => Node::LineEnd,
            '(' => {
                if self.peek() == Some('?') {
                    self.pos += 1;
                    if self.next() != Some(':') {
                        return self.err("only (?: … ) groups are supported (no lookaround or flags)");
                    }
                }
                let inner = self.alternation(depth + 1)?;
                if self.next() != Some(')') {
                    return self.err("unclosed group");
                }
                inner
            }
            ')' => return self.err("unmatched )"),
            '[' => Node::Class(self.class()?),
            '*' | '+' | '?' => return self.err(&format!("nothing to repeat before {c}")),
            '{' if self.looks_like_repeat() => return self.err("nothing to repeat before {"),
            '\\' => match self.escape(false)? {
                Esc::Lit(c) => Node::Char(c),
                Esc::Class(item) => Node::Class(Class { negated: false, items: vec![item] }),
            },
            c => Node::Char(c),
        })
    }

    /// After a `\`: a literal character or a class like `\d`.
    fn escape(&mut self, in_class: bool) -> PResult<Esc> {
        let Some(c) = self.next() else { return self.err("trailing \\") };
        Ok(match c {
            'd' => Esc::Class(ClassItem::Digit(false)),
            'D' => Esc::Class(ClassItem::Digit(true)),
            'w' => Esc::Class(ClassItem::Word(false)),
            'W' => Esc::Class(ClassItem::Word(true)),
            's' => Esc::Class(ClassItem::Space(false)),
            'S' => Esc::Class(ClassItem::Space(true)),
            'n' => Esc::Lit('\n'),
            't' => Esc::Lit('\t'),
            'r' => Esc::Lit('\r'),
            c if !c.is_alphanumeric() => Esc::Lit(c),
            c => {
                let what = if in_class { "unsupported escape in a class" } else { "unsupported escape (backreferences, \\b and the like are not supported)" };
                return self.err(&format!("{what}: \\{c}"));
            }
        })
    }

    fn class(&mut self) -> PResult<Class> {
        let negated = self.peek() == Some('^');
        self.pos += usize::from(negated);
        let mut items = Vec::new();
        let mut first = true;
        loop {
            let Some(c) = self.next() else { return self.err("unclosed [") };
            if c == ']' && !first {
                break;
            }
            first = false;
            let lo = if c == '\\' {
                match self.escape(true)? {
                    Esc::Class(item) => {
                        items.push(item);
                        continue;
                    }
                    Esc::Lit(ch) => ch,
                }
            } else {
                c
            };
            if self.peek() == Some('-') && self.chars.get(self.pos + 1).is_some_and(|n| *n != ']') {
                self.pos += 1;
                let hi = match self.next() {
                    Some('\\') => match self.escape(true)? {
                        Esc::Lit(ch) => ch,
                        Esc::Class(_) => return self.err("a class like \\d cannot end a range"),
                    },
                    Some(h) => h,
                    None => return self.err("unclosed ["),
                };
                if hi < lo {
                    return self.err("range out of order");
                }
                items.push(ClassItem::Range(lo, hi));
            } else {
                items.push(ClassItem::Range(lo, lo));
            }
        }
        Ok(Class { negated, items })
    }

    fn looks_like_repeat(&self) -> bool {
        self.chars.get(self.pos).is_some_and(char::is_ascii_digit)
    }

    fn number(&mut self) -> PResult<Option<u32>> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        if start == self.pos {
            return Ok(None);
        }
        let s: String = self.chars[start..self.pos].iter().collect();
        match s.parse::<u32>() {
            Ok(n) if n <= REPEAT_MAX => Ok(Some(n)),
            _ => self.err(&format!("repeat counts are at most {REPEAT_MAX}")),
        }
    }

    fn quantified(&mut self, atom: Node) -> PResult<Node> {
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') if self.chars.get(self.pos + 1).is_some_and(char::is_ascii_digit) => {
                self.pos += 1;
                let min = self.number()?.unwrap_or(0);
                let max = if self.peek() == Some(',') {
                    self.pos += 1;
                    self.number()?
                } else {
                    Some(min)
                };
                if self.peek() != Some('}') {
                    return self.err("unclosed {m,n}");
                }
                if max.is_some_and(|m| m < min) {
                    return self.err("{m,n} with n < m");
                }
                (min, max)
            }
            _ => return Ok(atom),
        };
        self.pos += 1;
        if matches!(atom, Node::LineStart | Node::LineEnd | Node::Empty) {
            return self.err("nothing to repeat");
        }
        if matches!(self.peek(), Some('*' | '+' | '?')) {
            return self.err("a quantifier cannot follow a quantifier (lazy and possessive forms are not supported)");
        }
        Ok(Node::Repeat { node: Box::new(atom), min, max })
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Inst {
    Char(char),
    Any,
    Class(usize),
    LineStart,
    LineEnd,
    Split(usize, usize),
    Jmp(usize),
    Match,
}

struct Compiler {
    prog: Vec<Inst>,
    classes: Vec<Class>,
    fold: bool,
}

impl Compiler {
    fn push(&mut self, i: Inst) -> PResult<usize> {
        if self.prog.len() >= PROGRAM_MAX {
            return Err(format!("the pattern is too large (more than {PROGRAM_MAX} steps once repeats are expanded)"));
        }
        self.prog.push(i);
        Ok(self.prog.len() - 1)
    }

    fn node(&mut self, n: &Node) -> PResult<()> {
        match n {
            Node::Empty => {}
            Node::Char(c) => {
                let c = if self.fold { lower(*c) } else { *c };
                self.push(Inst::Char(c))?;
            }
            Node::Any => {
                self.push(Inst::Any)?;
            }
            Node::Class(c) => {
                self.classes.push(c.clone());
                self.push(Inst::Class(self.classes.len() - 1))?;
            }
            Node::LineStart => {
                self.push(Inst::LineStart)?;
            }
            Node::LineEnd => {
                self.push(Inst::LineEnd)?;
            }
            Node::Concat(items) => {
                for i in items {
                    self.node(i)?;
                }
            }
            Node::Alt(alts) => {
                let mut jumps = Vec::new();
                for (k, a) in alts.iter().enumerate() {
                    if k + 1 < alts.len() {
                        let split = self.push(Inst::Split(0, 0))?;
                        self.node(a)?;
                        jumps.push(self.push(Inst::Jmp(0))?);
                        let next = self.prog.len();
                        self.prog[split] = Inst::Split(split + 1, next);
                    } else {
                        self.node(a)?;
                    }
                }
                let end = self.prog.len();
                for j in jumps {
                    self.prog[j] = Inst::Jmp(end);
                }
            }
            Node::Repeat { node, min, max } => {
                for _ in 0..*min {
                    self.node(node)?;
                }
                match max {
                    None => {
                        // L: split body, out; body; jmp L
                        let split = self.push(Inst::Split(0, 0))?;
                        self.node(node)?;
                        self.push(Inst::Jmp(split))?;
                        let out = self.prog.len();
                        self.prog[split] = Inst::Split(split + 1, out);
                    }
                    Some(max) => {
                        let mut splits = Vec::new();
                        for _ in *min..*max {
                            splits.push(self.push(Inst::Split(0, 0))?);
                            self.node(node)?;
                        }
                        let out = self.prog.len();
                        for s in splits {
                            self.prog[s] = Inst::Split(s + 1, out);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct Regex {
    prog: Vec<Inst>,
    classes: Vec<Class>,
    fold: bool,
}

/// Where a match is, in bytes of the text (whole characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// The caller's step budget ran out before the text was scanned to the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfSteps;

impl Regex {
    /// Compiles `pattern`; the error says what is wrong and where (1-based character).
    pub fn new(pattern: &str, case_insensitive: bool) -> std::result::Result<Regex, String> {
        let n = pattern.chars().count();
        if n > PATTERN_MAX_CHARS {
            return Err(format!("longer than {PATTERN_MAX_CHARS} characters"));
        }
        let mut p = Parser { chars: pattern.chars().collect(), pos: 0 };
        let ast = p.alternation(0)?;
        if p.pos < p.chars.len() {
            return p.err("unmatched )");
        }
        let mut c = Compiler { prog: Vec::new(), classes: Vec::new(), fold: case_insensitive };
        c.node(&ast)?;
        c.push(Inst::Match)?;
        Ok(Regex { prog: c.prog, classes: c.classes, fold: case_insensitive })
    }

    /// Instructions in the program (the work per character is at most this).
    pub fn size(&self) -> usize {
        self.prog.len()
    }

    /// The leftmost match (among matches starting there, Perl's priority: greedy repeats,
    /// the first alternative that matches), charging one step per thread
    /// per character to `budget`.
    pub fn find(&self, text: &str, budget: &mut u64) -> std::result::Result<Option<Span>, OutOfSteps> {
        self.find_from(text, 0, budget)
    }

    /// Every non-overlapping match, at most `max` of them.
    pub fn find_all(&self, text: &str, max: usize, budget: &mut u64) -> std::result::Result<Vec<Span>, OutOfSteps> {
        let mut out = Vec::new();
        let mut at = 0;
        while out.len() < max && at <= text.len() {
            let Some(s) = self.find_from(text, at, budget)? else { break };
            out.push(s);
            at = if s.end > s.start { s.end } else { next_boundary(text, s.end) };
        }
        Ok(out)
    }

    fn find_from(&self, text: &str, from: usize, budget: &mut u64) -> std::result::Result<Option<Span>, OutOfSteps> {
        let n = self.prog.len();
        let mut clist: Vec<(usize, usize)> = Vec::with_capacity(n);
        let mut nlist: Vec<(usize, usize)> = Vec::with_capacity(n);
        let mut seen = vec![usize::MAX; n];
        let mut generation = 0usize;
        let mut best: Option<Span> = None;
        let mut prev = text[..from].chars().next_back();
        let mut pos = from;
        let mut iter = text[from..].char_indices().map(|(i, c)| (i + from, c)).peekable();
        loop {
            let cur = iter.peek().map(|(_, c)| *c);
            if best.is_none() {
                self.add(&mut clist, &mut seen, generation, 0, pos, prev, cur);
            }
            if clist.is_empty() && (best.is_some() || cur.is_none()) {
                break;
            }
            *budget = budget.checked_sub(clist.len().max(1) as u64).ok_or(OutOfSteps)?;
            generation += 1;
            let after = pos + cur.map_or(0, char::len_utf8);
            let next_cur = {
                let mut look = iter.clone();
                look.next();
                look.peek().map(|(_, c)| *c)
            };
            for k in 0..clist.len() {
                let (pc, start) = clist[k];
                let ok = match (&self.prog[pc], cur) {
                    (Inst::Match, _) => {
                        let better = match best {
                            None => true,
                            Some(b) => start < b.start || (start == b.start && pos > b.end),
                        };
                        if better {
                            best = Some(Span { start, end: pos });
                        }
                        // lower-priority threads starting later cannot win
                        clist.truncate(k + 1);
                        break;
                    }
                    (_, None) => false,
                    (Inst::Char(ch), Some(c)) => *ch == if self.fold { lower(c) } else { c },
                    (Inst::Any, Some(c)) => c != '\n',
                    (Inst::Class(i), Some(c)) => self.classes[*i].matches(c, self.fold),
                    _ => false,
                };
                if ok {
                    self.add(&mut nlist, &mut seen, generation, pc + 1, start, cur, next_cur);
                }
            }
            if cur.is_none() {
                break;
            }
            std::mem::swap(&mut clist, &mut nlist);
            nlist.clear();
            if let Some(b) = best {
                clist.retain(|(_, s)| *s <= b.start);
            }
            prev = cur;
            pos = after;
            iter.next();
        }
        Ok(best)
    }

    /// Adds the thread at `pc` and everything reachable without reading a character.
    #[allow(clippy::too_many_arguments)]
    fn add(&self, list: &mut Vec<(usize, usize)>, seen: &mut [usize], generation: usize, pc: usize, start: usize, prev: Option<char>, cur: Option<char>) {
        let mut stack = vec![pc];
        while let Some(pc) = stack.pop() {
            if seen[pc] == generation {
                continue;
            }
            seen[pc] = generation;
            match self.prog[pc] {
                Inst::Jmp(t) => stack.push(t),
                Inst::Split(a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                Inst::LineStart => {
                    if prev.is_none() || prev == Some('\n') {
                        stack.push(pc + 1);
                    }
                }
                Inst::LineEnd => {
                    if cur.is_none() || cur == Some('\n') {
                        stack.push(pc + 1);
                    }
                }
                _ => list.push((pc, start)),
            }
        }
    }
}

fn next_boundary(text: &str, at: usize) -> usize {
    text[at..].chars().next().map_or(text.len() + 1, |c| at + c.len_utf8())
}

#[cfg(test)]
mod tests;
