//! ECMAScript regular expressions read as V8 (Node 20) reads them: the grammar of ECMA-262
//! with the `u` flag (Ajv compiles every `pattern` as `new RegExp(source, "u")`), and without
//! it, with Annex B's web-compatibility rules (ajv-formats' `regex` format tries
//! `new RegExp(source)`).
//!
//! [`translate`] checks a `u`-flag pattern and writes an equivalent pattern for Rust's `regex`
//! (or, when it needs look-around or back-references, `fancy-regex`) syntax; a pattern V8
//! refuses is refused with V8's reason (`Invalid escape`, `Nothing to repeat`, …), which Ajv
//! puts in its message. [`is_valid_annex_b`] only answers whether V8 accepts a pattern without
//! the flag.
//!
//! The translation keeps ECMAScript's meaning where the engines differ: `.` stops at the four
//! JavaScript line terminators, `\d`, `\w` and `\b` are ASCII-only, `\s` is JavaScript's set,
//! `[^]` matches anything and `[]` nothing, and an escaped surrogate pair is one code point.
//! Known differences, all rare in schemas: a back-reference to a group that did not take part
//! in the match fails here (it matches the empty string in JavaScript); property names are
//! checked by their form and by what Rust's `regex` knows, not against ECMA-262's exact table;
//! escapes inside group names are refused; quantifier counts too large for Rust's engines
//! (V8 accepts `a{99999999999}`) are refused when the schema compiles.

use std::fmt::Write as _;

/// V8's reasons, as it words them after `Invalid regular expression: /…/u: `.
mod reason {
    pub const AT_END: &str = "\\ at end of pattern";
    pub const DUPLICATE_NAME: &str = "Duplicate capture group name";
    pub const INCOMPLETE_QUANTIFIER: &str = "Incomplete quantifier";
    pub const INVALID_CAPTURE_NAME: &str = "Invalid capture group name";
    pub const INVALID_CLASS: &str = "Invalid character class";
    pub const INVALID_CLASS_ESCAPE: &str = "Invalid class escape";
    pub const INVALID_DECIMAL_ESCAPE: &str = "Invalid decimal escape";
    pub const INVALID_ESCAPE: &str = "Invalid escape";
    pub const INVALID_GROUP: &str = "Invalid group";
    pub const INVALID_NAMED_REFERENCE: &str = "Invalid named reference";
    pub const INVALID_NAMED_CAPTURE_REFERENCED: &str = "Invalid named capture referenced";
    pub const INVALID_PROPERTY_NAME: &str = "Invalid property name";
    pub const INVALID_CLASS_PROPERTY_NAME: &str = "Invalid property name in character class";
    pub const INVALID_QUANTIFIER: &str = "Invalid quantifier";
    pub const INVALID_UNICODE_ESCAPE: &str = "Invalid Unicode escape";
    pub const LONE_QUANTIFIER_BRACKETS: &str = "Lone quantifier brackets";
    pub const NOTHING_TO_REPEAT: &str = "Nothing to repeat";
    pub const OUT_OF_ORDER_QUANTIFIER: &str = "numbers out of order in {} quantifier";
    pub const RANGE_OUT_OF_ORDER: &str = "Range out of order in character class";
    pub const TOO_LARGE: &str = "Regular expression too large";
    pub const UNMATCHED_PAREN: &str = "Unmatched ')'";
    pub const UNTERMINATED_CLASS: &str = "Unterminated character class";
    pub const UNTERMINATED_GROUP: &str = "Unterminated group";
}

/// Deepest group nesting read; deeper patterns are refused as too large (they would only
/// exhaust the stack).
const MAX_NESTING: usize = 256;

/// A `u`-flag pattern in Rust syntax.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Translated {
    /// The pattern for Rust's engines.
    pub rust: String,
    /// Whether it uses look-around or back-references, which only `fancy-regex` runs.
    pub backtracking: bool,
}

/// Why [`translate`] refused a pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// V8 refuses it, for this reason.
    Invalid(&'static str),
    /// V8 accepts it, but Rust's engines would give it another meaning.
    Unsupported(&'static str),
}

/// What runstart cannot run the way JavaScript does: JavaScript matches a look-behind from
/// right to left, so what it holds sees the text on its other side.
const UNSUPPORTED_IN_LOOK_BEHIND: &str =
    "a look-behind holding a look-around, a word boundary or a back-reference";

/// Reads `source` as `new RegExp(source, "u")` does and writes it for Rust's engines.
///
/// # Errors
///
/// [`Refusal::Invalid`] with V8's reason for refusing the pattern (`Invalid escape` for `\_`);
/// [`Refusal::Unsupported`] for a pattern V8 accepts that runstart's engines would read
/// differently.
pub(crate) fn translate(source: &str) -> Result<Translated, Refusal> {
    let mut parser = Parser::new(source, true);
    parser.pattern().map_err(Refusal::Invalid)?;
    if parser.inside_look_behind_unsupported {
        return Err(Refusal::Unsupported(UNSUPPORTED_IN_LOOK_BEHIND));
    }
    Ok(Translated {
        rust: parser.out,
        backtracking: parser.shape.backtracking,
    })
}

/// Whether `new RegExp(source)` (no flags, Annex B grammar) accepts `source`.
pub(crate) fn is_valid_annex_b(source: &str) -> bool {
    Parser::new(source, false).pattern().is_ok()
}

/// RegExp flags in the order V8 writes them back (`/x/gi` for `"ig"`).
const FLAGS: &str = "dgimsuvy";

/// The error `new RegExp(source, flags)` throws for `flags` alone in V8 (Node 20): `Invalid
/// flags supplied to RegExp constructor 'gg'` for a flag that is unknown or repeated, or `u`
/// with `v`; `None` when the flags are fine.
pub(crate) fn flags_error(flags: &str) -> Option<String> {
    let mut seen = [false; FLAGS.len()];
    let ok = flags.chars().all(|c| match FLAGS.find(c) {
        Some(i) if !seen[i] => {
            seen[i] = true;
            true
        }
        _ => false,
    }) && !(flags.contains('u') && flags.contains('v'));
    (!ok).then(|| format!("Invalid flags supplied to RegExp constructor '{flags}'"))
}

/// The error `new RegExp(source, flags)` throws in V8 (Node 20), or `None` when it compiles:
/// [`flags_error`] first, else `Invalid regular expression: /(/g: Unterminated group` (the
/// flags in V8's order). The `u` and `v` flags select the Unicode grammar (`v`'s class-set
/// syntax is read as `u`'s, an approximation: no `v`-only construct is accepted), any other
/// flags Annex B's.
pub(crate) fn constructor_error(source: &str, flags: &str) -> Option<String> {
    if let Some(why) = flags_error(flags) {
        return Some(why);
    }
    let shown: String = FLAGS.chars().filter(|c| flags.contains(*c)).collect();
    let unicode = flags.contains('u') || flags.contains('v');
    Parser::new(source, unicode)
        .pattern()
        .err()
        .map(|why| format!("Invalid regular expression: /{source}/{shown}: {why}"))
}

type R<T> = Result<T, &'static str>;

/// What a first scan finds out about the whole pattern, which the grammar needs before it
/// reaches the place (`\2` is a back-reference only if the pattern has two groups, wherever
/// they are).
#[derive(Debug, Default)]
struct Shape {
    /// Capturing groups, named ones included.
    captures: usize,
    /// Group names in order, each with its capture number.
    names: Vec<(String, usize)>,
    /// Look-around or back-references anywhere.
    backtracking: bool,
}

impl Shape {
    fn scan(chars: &[char]) -> Shape {
        let mut shape = Shape::default();
        let mut i = 0;
        let mut in_class = false;
        while i < chars.len() {
            match chars[i] {
                '\\' => {
                    if let Some(&next) = chars.get(i + 1)
                        && !in_class
                        && (next.is_ascii_digit() && next != '0' || next == 'k')
                    {
                        shape.backtracking = true;
                    }
                    i += 1;
                }
                '[' => in_class = true,
                ']' => in_class = false,
                '(' if !in_class => match (chars.get(i + 1), chars.get(i + 2)) {
                    (Some('?'), Some('=' | '!')) => shape.backtracking = true,
                    (Some('?'), Some('<')) => match chars.get(i + 3) {
                        Some('=' | '!') => shape.backtracking = true,
                        _ => {
                            shape.captures += 1;
                            let name: String =
                                chars[i + 3..].iter().take_while(|&&c| c != '>').collect();
                            shape.names.push((name, shape.captures));
                        }
                    },
                    (Some('?'), _) => {}
                    _ => shape.captures += 1,
                },
                _ => {}
            }
            i += 1;
        }
        shape
    }
}

/// Whether an atom may take a quantifier, and which error one gets if not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quantifiable {
    Yes,
    /// `^`, `$`, `\b`, `\B`.
    Assertion,
    /// `(?=…)`, `(?!…)`: quantifiable without the `u` flag only.
    LookAhead,
    /// `(?<=…)`, `(?<!…)`.
    LookBehind,
}

/// A class atom: one code point, or a set (`\d`, `\p{L}`) in Rust class syntax.
enum ClassAtom {
    Char(u32),
    Set(String),
}

const DOT: &str = r"[^\n\r\x{2028}\x{2029}]";
const ANY: &str = r"[\x{0}-\x{10FFFF}]";
const NOTHING: &str = r"[^\x{0}-\x{10FFFF}]";
const WORD: &str = "A-Za-z0-9_";
const DIGIT: &str = "0-9";
/// JavaScript's `WhiteSpace` and `LineTerminator`, in class syntax.
const SPACE: &str = r"\t\n\x{B}\x{C}\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";

struct Parser {
    chars: Vec<char>,
    pos: usize,
    unicode: bool,
    shape: Shape,
    /// Names seen so far, to refuse a duplicate.
    names_seen: Vec<String>,
    /// Whether a name was given twice: refused once the whole pattern has been read, as V8
    /// reports syntax errors first.
    duplicate_name: bool,
    /// Names referred to by `\k<…>`, checked once every group is known.
    references: Vec<String>,
    depth: usize,
    /// How many look-behinds the cursor is in.
    look_behinds: usize,
    /// Whether a look-behind holds what Rust's engines match differently (see
    /// [`UNSUPPORTED_IN_LOOK_BEHIND`]).
    inside_look_behind_unsupported: bool,
    out: String,
}

impl Parser {
    fn new(source: &str, unicode: bool) -> Parser {
        let chars: Vec<char> = source.chars().collect();
        let shape = Shape::scan(&chars);
        Parser {
            out: String::with_capacity(source.len() + 16),
            chars,
            pos: 0,
            unicode,
            shape,
            names_seen: Vec::new(),
            duplicate_name: false,
            references: Vec::new(),
            depth: 0,
            look_behinds: 0,
            inside_look_behind_unsupported: false,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    fn eat(&mut self, c: char) -> bool {
        let hit = self.peek() == Some(c);
        if hit {
            self.pos += 1;
        }
        hit
    }

    fn pattern(&mut self) -> R<()> {
        self.disjunction()?;
        if self.pos < self.chars.len() {
            return Err(reason::UNMATCHED_PAREN);
        }
        if self.duplicate_name {
            return Err(reason::DUPLICATE_NAME);
        }
        let has_names = !self.shape.names.is_empty();
        if (self.unicode || has_names)
            && self
                .references
                .iter()
                .any(|r| !self.names_seen.iter().any(|n| n == r))
        {
            return Err(reason::INVALID_NAMED_CAPTURE_REFERENCED);
        }
        Ok(())
    }

    fn disjunction(&mut self) -> R<()> {
        self.alternative()?;
        while self.eat('|') {
            self.out.push('|');
            self.alternative()?;
        }
        Ok(())
    }

    fn alternative(&mut self) -> R<()> {
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            self.term()?;
        }
        Ok(())
    }

    fn term(&mut self) -> R<()> {
        let Some(c) = self.bump() else {
            return Ok(());
        };
        let quantifiable = match c {
            '^' | '$' => {
                self.out.push(c);
                Quantifiable::Assertion
            }
            '\\' if matches!(self.peek(), Some('b' | 'B')) => {
                let negated = self.bump() == Some('B');
                self.word_boundary(negated);
                Quantifiable::Assertion
            }
            '(' => self.group()?,
            '[' => {
                self.class()?;
                Quantifiable::Yes
            }
            '.' => {
                self.out.push_str(DOT);
                Quantifiable::Yes
            }
            '*' | '+' | '?' => return Err(reason::NOTHING_TO_REPEAT),
            '{' => {
                self.pos -= 1;
                if self.braced_quantifier().is_some() {
                    return Err(reason::NOTHING_TO_REPEAT);
                }
                self.pos += 1;
                if self.unicode {
                    return Err(reason::LONE_QUANTIFIER_BRACKETS);
                }
                self.literal(u32::from(c));
                Quantifiable::Yes
            }
            '}' | ']' if self.unicode => return Err(reason::LONE_QUANTIFIER_BRACKETS),
            '\\' => {
                self.atom_escape()?;
                Quantifiable::Yes
            }
            _ => {
                self.literal(u32::from(c));
                Quantifiable::Yes
            }
        };
        self.quantifier(quantifiable)
    }

    /// `{n}`, `{n,}` or `{n,m}` at the cursor: consumed and returned when well formed, else
    /// the cursor stays. Counts saturate, as V8's do.
    fn braced_quantifier(&mut self) -> Option<(u64, Option<u64>)> {
        let start = self.pos;
        let parsed = (|| {
            if !self.eat('{') {
                return None;
            }
            let min = self.decimal()?;
            let max = if self.eat(',') {
                if self.peek() == Some('}') {
                    None
                } else {
                    Some(self.decimal()?)
                }
            } else {
                Some(min)
            };
            self.eat('}').then_some((min, max))
        })();
        if parsed.is_none() {
            self.pos = start;
        }
        parsed
    }

    /// One or more decimal digits, saturating.
    fn decimal(&mut self) -> Option<u64> {
        let mut value: Option<u64> = None;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            self.pos += 1;
            value = Some(
                value
                    .unwrap_or(0)
                    .saturating_mul(10)
                    .saturating_add(u64::from(d)),
            );
        }
        value
    }

    fn quantifier(&mut self, quantifiable: Quantifiable) -> R<()> {
        let (min, max) = match self.peek() {
            Some(c @ ('*' | '+' | '?')) => {
                self.pos += 1;
                match c {
                    '*' => (0, None),
                    '+' => (1, None),
                    _ => (0, Some(1)),
                }
            }
            Some('{') => match self.braced_quantifier() {
                Some(bounds) => bounds,
                // After an assertion V8 reads no quantifier: the `{` is the next atom's.
                None if self.unicode && quantifiable != Quantifiable::Assertion => {
                    return Err(reason::INCOMPLETE_QUANTIFIER);
                }
                None => return Ok(()),
            },
            _ => return Ok(()),
        };
        match quantifiable {
            Quantifiable::Assertion => return Err(reason::NOTHING_TO_REPEAT),
            Quantifiable::LookBehind => return Err(reason::INVALID_QUANTIFIER),
            Quantifiable::LookAhead if self.unicode => return Err(reason::INVALID_QUANTIFIER),
            Quantifiable::LookAhead | Quantifiable::Yes => {}
        }
        if max.is_some_and(|max| max < min) {
            return Err(reason::OUT_OF_ORDER_QUANTIFIER);
        }
        // Laziness changes which match is found, never whether there is one.
        self.eat('?');
        let _ = match max {
            Some(0) if min == 0 => write!(self.out, "{{0}}"),
            Some(1) if min == 0 => write!(self.out, "?"),
            None if min == 0 => write!(self.out, "*"),
            None if min == 1 => write!(self.out, "+"),
            Some(max) if max == min => write!(self.out, "{{{min}}}"),
            Some(max) => write!(self.out, "{{{min},{max}}}"),
            None => write!(self.out, "{{{min},}}"),
        };
        Ok(())
    }

    /// After `(`.
    fn group(&mut self) -> R<Quantifiable> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(reason::TOO_LARGE);
        }
        let kind = if self.eat('?') {
            match self.bump() {
                Some(':') => {
                    self.out.push_str("(?:");
                    Quantifiable::Yes
                }
                Some(c @ ('=' | '!')) => {
                    self.inside_look_behind_unsupported |= self.look_behinds > 0;
                    self.out.push_str(if c == '=' { "(?=" } else { "(?!" });
                    Quantifiable::LookAhead
                }
                Some('<') if matches!(self.peek(), Some('=' | '!')) => {
                    let positive = self.bump() == Some('=');
                    self.inside_look_behind_unsupported |= self.look_behinds > 0;
                    self.look_behinds += 1;
                    self.out.push_str(if positive { "(?<=" } else { "(?<!" });
                    Quantifiable::LookBehind
                }
                Some('<') => {
                    let name = self.group_name()?;
                    self.duplicate_name |= self.names_seen.contains(&name);
                    self.names_seen.push(name);
                    self.out.push('(');
                    Quantifiable::Yes
                }
                _ => return Err(reason::INVALID_GROUP),
            }
        } else {
            self.out.push('(');
            Quantifiable::Yes
        };
        self.disjunction()?;
        if !self.eat(')') {
            return Err(reason::UNTERMINATED_GROUP);
        }
        self.out.push(')');
        self.depth -= 1;
        if kind == Quantifiable::LookBehind {
            self.look_behinds -= 1;
        }
        Ok(kind)
    }

    /// A group name up to and including its `>`: an identifier (`$` and `_` allowed).
    fn group_name(&mut self) -> R<String> {
        let mut name = String::new();
        loop {
            match self.bump() {
                Some('>') if !name.is_empty() => return Ok(name),
                Some(c)
                    if (name.is_empty()
                        && (unicode_ident::is_xid_start(c) || c == '$' || c == '_'))
                        || (!name.is_empty()
                            && (unicode_ident::is_xid_continue(c)
                                || c == '$'
                                || c == '\u{200C}'
                                || c == '\u{200D}')) =>
                {
                    name.push(c);
                }
                _ => return Err(reason::INVALID_CAPTURE_NAME),
            }
        }
    }

    /// `\b` or `\B`, ASCII-only as in JavaScript. `fancy-regex` cannot switch Unicode off
    /// inline, so there the boundary is spelled with look-around.
    fn word_boundary(&mut self, negated: bool) {
        self.inside_look_behind_unsupported |= self.look_behinds > 0;
        let text = match (self.shape.backtracking, negated) {
            (false, false) => r"(?-u:\b)".to_owned(),
            (false, true) => r"(?-u:\B)".to_owned(),
            (true, false) => format!("(?:(?<=[{WORD}])(?![{WORD}])|(?<![{WORD}])(?=[{WORD}]))"),
            (true, true) => format!("(?:(?<=[{WORD}])(?=[{WORD}])|(?<![{WORD}])(?![{WORD}]))"),
        };
        self.out.push_str(&text);
    }

    /// After a `\` outside a class (`\b` and `\B` are taken before).
    fn atom_escape(&mut self) -> R<()> {
        let Some(c) = self.bump() else {
            return Err(reason::AT_END);
        };
        match c {
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => {
                let set = class_escape(c);
                self.out.push_str(&set);
            }
            'p' | 'P' if self.unicode => {
                let set = self.property(c == 'P')?;
                self.out.push_str(&set);
            }
            '1'..='9' => {
                self.pos -= 1;
                let start = self.pos;
                let n = self.decimal().unwrap_or(0);
                if n >= 1 && n <= self.shape.captures as u64 {
                    self.back_reference(n);
                } else if self.unicode {
                    return Err(reason::INVALID_ESCAPE);
                } else {
                    // Annex B: a legacy octal escape, or `\8` and `\9` as themselves.
                    self.pos = start;
                    let value = self.legacy_octal();
                    self.literal(value);
                }
            }
            'k' if self.unicode || !self.shape.names.is_empty() => {
                if !self.eat('<') {
                    return Err(reason::INVALID_NAMED_REFERENCE);
                }
                let name = self.group_name()?;
                let number = self
                    .shape
                    .names
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map_or(0, |&(_, number)| number);
                self.references.push(name);
                self.back_reference(number as u64);
            }
            _ => {
                let value = self.character_escape(c, false)?;
                self.literal(value);
            }
        }
        Ok(())
    }

    /// A back-reference to group `n`. JavaScript matches one to a group that has not taken
    /// part (yet) as the empty string, where `fancy-regex` would fail; its conditional says
    /// the same as JavaScript. Group 0 (a name that does not exist) is refused later.
    fn back_reference(&mut self, n: u64) {
        self.inside_look_behind_unsupported |= self.look_behinds > 0;
        let _ = write!(self.out, r"(?({n})\{n}|)");
    }

    /// Annex B's legacy octal escape at the cursor (up to `\377`), or `8`/`9` as themselves.
    fn legacy_octal(&mut self) -> u32 {
        let Some(first) = self.bump() else {
            return 0;
        };
        let Some(mut value) = first.to_digit(8) else {
            return u32::from(first);
        };
        let max_digits = if value <= 3 { 3 } else { 2 };
        for _ in 1..max_digits {
            match self.peek().and_then(|c| c.to_digit(8)) {
                Some(d) => {
                    value = value * 8 + d;
                    self.pos += 1;
                }
                None => break,
            }
        }
        value
    }

    /// A `CharacterEscape` after its `\`: the code point it stands for. `in_class` allows
    /// what only a class allows (`\-`, and without the `u` flag `\c` with a digit or `_`).
    fn character_escape(&mut self, c: char, in_class: bool) -> R<u32> {
        Ok(match c {
            't' => 9,
            'n' => 10,
            'v' => 11,
            'f' => 12,
            'r' => 13,
            '0' if !self.peek().is_some_and(|d| d.is_ascii_digit()) => 0,
            '0' if self.unicode => {
                return Err(if in_class {
                    reason::INVALID_CLASS_ESCAPE
                } else {
                    reason::INVALID_DECIMAL_ESCAPE
                });
            }
            '0' => {
                self.pos -= 1;
                self.legacy_octal()
            }
            'c' => match self.peek() {
                Some(l) if l.is_ascii_alphabetic() => {
                    self.pos += 1;
                    u32::from(l) % 32
                }
                Some(l) if in_class && !self.unicode && (l.is_ascii_digit() || l == '_') => {
                    self.pos += 1;
                    u32::from(l) % 32
                }
                _ if self.unicode => return Err(reason::INVALID_UNICODE_ESCAPE),
                // Annex B: the backslash stands for itself and `c` is read next.
                _ => {
                    self.pos -= 1;
                    u32::from('\\')
                }
            },
            'x' => match self.hex_digits(2) {
                Some(v) => v,
                None if self.unicode => return Err(reason::INVALID_ESCAPE),
                None => u32::from('x'),
            },
            'u' => match self.unicode_escape()? {
                Some(v) => v,
                None if self.unicode => return Err(reason::INVALID_UNICODE_ESCAPE),
                None => u32::from('u'),
            },
            '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|'
            | '/' => u32::from(c),
            '-' if in_class && self.unicode => u32::from(c),
            _ if self.unicode => return Err(reason::INVALID_ESCAPE),
            _ => u32::from(c),
        })
    }

    /// Exactly `n` hex digits at the cursor, consumed; else the cursor stays.
    fn hex_digits(&mut self, n: usize) -> Option<u32> {
        let digits: Option<Vec<u32>> = (0..n)
            .map(|k| self.peek_at(k).and_then(|c| c.to_digit(16)))
            .collect();
        let value = digits?.into_iter().fold(0, |acc, d| acc * 16 + d);
        self.pos += n;
        Some(value)
    }

    /// After `\u`: `\uXXXX` (with the `u` flag, a surrogate pair written as two escapes is
    /// one code point) or, with the flag, `\u{X…}`. `None` when neither form is there.
    fn unicode_escape(&mut self) -> R<Option<u32>> {
        if self.unicode && self.peek() == Some('{') {
            let start = self.pos;
            self.pos += 1;
            let mut value: u32 = 0;
            let mut digits = 0;
            while let Some(d) = self.peek().and_then(|c| c.to_digit(16)) {
                self.pos += 1;
                digits += 1;
                value = value.saturating_mul(16).saturating_add(d);
            }
            if digits == 0 || value > 0x10FFFF || !self.eat('}') {
                self.pos = start;
                return Err(reason::INVALID_UNICODE_ESCAPE);
            }
            return Ok(Some(value));
        }
        let Some(value) = self.hex_digits(4) else {
            return Ok(None);
        };
        if self.unicode
            && (0xD800..0xDC00).contains(&value)
            && self.peek() == Some('\\')
            && self.peek_at(1) == Some('u')
        {
            let start = self.pos;
            self.pos += 2;
            match self.hex_digits(4) {
                Some(low @ 0xDC00..0xE000) => {
                    return Ok(Some(0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)));
                }
                _ => self.pos = start,
            }
        }
        Ok(Some(value))
    }

    /// After `\p` or `\P`: `{Name}` or `{Name=Value}`, as a Rust class.
    fn property(&mut self, negated: bool) -> R<String> {
        if !self.eat('{') {
            return Err(reason::INVALID_PROPERTY_NAME);
        }
        let mut body = String::new();
        loop {
            match self.bump() {
                Some('}') => break,
                Some(c) if c.is_ascii_alphanumeric() || c == '_' || c == '=' => body.push(c),
                _ => return Err(reason::INVALID_PROPERTY_NAME),
            }
        }
        if !is_property_name(&body) {
            return Err(reason::INVALID_PROPERTY_NAME);
        }
        Ok(format!(r"\{}{{{body}}}", if negated { 'P' } else { 'p' }))
    }

    /// After `[`.
    fn class(&mut self) -> R<()> {
        let negated = self.eat('^');
        let mut items = String::new();
        loop {
            let Some(c) = self.bump() else {
                return Err(reason::UNTERMINATED_CLASS);
            };
            if c == ']' {
                break;
            }
            let first = self.class_atom(c)?;
            let is_range = self.peek() == Some('-') && !matches!(self.peek_at(1), None | Some(']'));
            if !is_range {
                push_class_atom(&mut items, first);
                continue;
            }
            self.pos += 1;
            let second_char = self.bump().ok_or(reason::UNTERMINATED_CLASS)?;
            let second = self.class_atom(second_char)?;
            match (first, second) {
                (ClassAtom::Char(lo), ClassAtom::Char(hi)) => {
                    if lo > hi {
                        return Err(reason::RANGE_OUT_OF_ORDER);
                    }
                    push_range(&mut items, lo, hi);
                }
                _ if self.unicode => return Err(reason::INVALID_CLASS),
                (first, second) => {
                    push_class_atom(&mut items, first);
                    push_range(&mut items, u32::from('-'), u32::from('-'));
                    push_class_atom(&mut items, second);
                }
            }
        }
        let text = match (items.is_empty(), negated) {
            (true, false) => NOTHING.to_owned(),
            (true, true) => ANY.to_owned(),
            (false, false) => format!("[{items}]"),
            (false, true) => format!("[^{items}]"),
        };
        self.out.push_str(&text);
        Ok(())
    }

    /// One class atom whose first character `c` was just read.
    fn class_atom(&mut self, c: char) -> R<ClassAtom> {
        if c != '\\' {
            return Ok(ClassAtom::Char(u32::from(c)));
        }
        let Some(e) = self.bump() else {
            return Err(reason::AT_END);
        };
        Ok(match e {
            'b' => ClassAtom::Char(8),
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => ClassAtom::Set(class_escape(e)),
            'p' | 'P' if self.unicode => ClassAtom::Set(
                self.property(e == 'P')
                    .map_err(|_| reason::INVALID_CLASS_PROPERTY_NAME)?,
            ),
            '8' | '9' if self.unicode => return Err(reason::INVALID_ESCAPE),
            '1'..='7' if self.unicode => return Err(reason::INVALID_CLASS_ESCAPE),
            '1'..='9' => {
                self.pos -= 1;
                ClassAtom::Char(self.legacy_octal())
            }
            _ => ClassAtom::Char(self.character_escape(e, true)?),
        })
    }

    /// One code point, matched literally. A lone surrogate can be in no Rust string, so it
    /// matches nothing.
    fn literal(&mut self, cp: u32) {
        match char::from_u32(cp) {
            Some(c) if c.is_ascii_alphanumeric() => self.out.push(c),
            Some(_) => {
                let _ = write!(self.out, r"\x{{{cp:X}}}");
            }
            None => self.out.push_str(NOTHING),
        }
    }
}

/// `\d`, `\D`, `\w`, `\W`, `\s`, `\S` as a Rust class.
fn class_escape(c: char) -> String {
    match c {
        'd' => format!("[{DIGIT}]"),
        'D' => format!("[^{DIGIT}]"),
        'w' => format!("[{WORD}]"),
        'W' => format!("[^{WORD}]"),
        's' => format!("[{SPACE}]"),
        _ => format!("[^{SPACE}]"),
    }
}

fn push_class_atom(items: &mut String, atom: ClassAtom) {
    match atom {
        ClassAtom::Char(cp) => push_range(items, cp, cp),
        ClassAtom::Set(set) => items.push_str(&set),
    }
}

/// `lo-hi` in a Rust class, without the surrogates no Rust string holds.
fn push_range(items: &mut String, lo: u32, hi: u32) {
    let pieces = [(lo, hi.min(0xD7FF)), (lo.max(0xE000), hi)];
    for (lo, hi) in pieces {
        if lo > hi {
            continue;
        }
        if lo == hi {
            let _ = write!(items, r"\x{{{lo:X}}}");
        } else {
            let _ = write!(items, r"\x{{{lo:X}}}-\x{{{hi:X}}}");
        }
    }
}

/// Whether `body` (`Name` or `Name=Value`, ASCII word characters) names a Unicode property
/// ECMAScript knows. ECMA-262's names are exact and case-sensitive: every canonical name and
/// alias starts with a capital or is one of a few lower-case aliases; the rest is left to
/// Rust's `regex`, which knows the same properties but matches names loosely.
fn is_property_name(body: &str) -> bool {
    const LOWER_ALIASES: [&str; 4] = ["space", "punct", "digit", "cntrl"];
    let (name, value) = match body.split_once('=') {
        Some((name, value)) => {
            if !matches!(
                name,
                "General_Category" | "gc" | "Script" | "sc" | "Script_Extensions" | "scx"
            ) {
                return false;
            }
            (Some(name), value)
        }
        None => (None, body),
    };
    let well_formed = !value.is_empty()
        && !value.contains('=')
        && (value.starts_with(|c: char| c.is_ascii_uppercase())
            || (name.is_none_or(|n| matches!(n, "General_Category" | "gc"))
                && LOWER_ALIASES.contains(&value)));
    well_formed
        && regex_syntax::Parser::new()
            .parse(&format!(r"\p{{{body}}}"))
            .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rust(source: &str) -> String {
        translate(source).expect("valid").rust
    }

    #[test]
    fn v8_refusals_carry_v8_reasons() {
        for (source, why) in [
            (r"\_", "Invalid escape"),
            (r"\-", "Invalid escape"),
            (r"[\_]", "Invalid escape"),
            (r"a\Z", "Invalid escape"),
            (r"\8", "Invalid escape"),
            (r"(a)\2", "Invalid escape"),
            (r"\x1", "Invalid escape"),
            ("(", "Unterminated group"),
            ("(?<a>", "Unterminated group"),
            ("a)", "Unmatched ')'"),
            ("[a", "Unterminated character class"),
            ("*", "Nothing to repeat"),
            ("{1}", "Nothing to repeat"),
            ("a{1}{2}", "Nothing to repeat"),
            (r"\b*", "Nothing to repeat"),
            ("{1", "Lone quantifier brackets"),
            ("[]]", "Lone quantifier brackets"),
            ("x{1", "Incomplete quantifier"),
            ("x{,5}", "Incomplete quantifier"),
            ("a{2,1}", "numbers out of order in {} quantifier"),
            ("${2,1}", "Nothing to repeat"),
            ("${", "Lone quantifier brackets"),
            ("(?<m>(?<m>", "Unterminated group"),
            (r"[\8]", "Invalid escape"),
            (r"[\p{letter}]", "Invalid property name in character class"),
            ("(?=a)*", "Invalid quantifier"),
            ("(?<=a)*", "Invalid quantifier"),
            (r"\00", "Invalid decimal escape"),
            (r"[\00]", "Invalid class escape"),
            (r"[\1]", "Invalid class escape"),
            (r"[\d-a]", "Invalid character class"),
            (r"[b-a]", "Range out of order in character class"),
            (r"\c", "Invalid Unicode escape"),
            (r"\u12", "Invalid Unicode escape"),
            (r"\u{110000}", "Invalid Unicode escape"),
            (r"\p{letter}", "Invalid property name"),
            (r"\p{Foo}", "Invalid property name"),
            (r"\p{L", "Invalid property name"),
            (r"\k", "Invalid named reference"),
            (r"\k<a>", "Invalid named capture referenced"),
            (r"\k<a", "Invalid capture group name"),
            ("(?<1a>x)", "Invalid capture group name"),
            ("(?<a>x)|(?<a>y)", "Duplicate capture group name"),
            ("(?i:a)", "Invalid group"),
            ("\\", "\\ at end of pattern"),
        ] {
            assert_eq!(translate(source), Err(Refusal::Invalid(why)), "{source}");
        }
    }

    #[test]
    fn v8_acceptances_translate() {
        assert_eq!(rust(r"\0"), r"\x{0}");
        assert_eq!(rust("[^]"), ANY);
        assert_eq!(rust("[]"), NOTHING);
        assert_eq!(
            rust(r"[\uD83D\uDE00-\uD83D\uDE4F]"),
            r"[\x{1F600}-\x{1F64F}]"
        );
        assert_eq!(rust(r"[\-]"), r"[\x{2D}]");
        assert_eq!(rust(r"\/"), r"\x{2F}");
        assert_eq!(rust(r"\b"), r"(?-u:\b)");
        assert_eq!(rust(r"a{2,}?b{1,}c{0,1}d{3,3}"), "a{2,}b+c?d{3}");
        assert!(translate(r"\p{Script=Latin}\p{sc=Latn}\p{gc=L}\p{Lu}\p{Any}").is_ok());
        assert!(translate(r"(?<$a>x)\k<$a>").is_ok());
        let forward = translate(r"\k<a>(?<a>x)").expect("forward reference");
        assert!(forward.backtracking);
        assert_eq!(forward.rust, r"(?(1)\1|)(x)");
        assert!(translate(r"(?<=a+)b").expect("look-behind").backtracking);
        for differs in [r"(?<=(a)\1)", r"(?<!\b)a", r"(?<=(?=a)a)", r"(?<=(?<=a)b)"] {
            assert_eq!(
                translate(differs),
                Err(Refusal::Unsupported(UNSUPPORTED_IN_LOOK_BEHIND)),
                "{differs}"
            );
        }
        assert!(translate(r"(?<=a)\b(?=(a)\1)").is_ok());
    }

    #[test]
    fn translations_keep_javascript_meaning() {
        let re = |s: &str| regex::Regex::new(&rust(s)).expect("compiles");
        assert!(!re(r"^\w+$").is_match("é"));
        assert!(!re(r"^\d$").is_match("٣"));
        assert!(re(r"^\s$").is_match("\u{FEFF}"));
        assert!(!re(r"^\s$").is_match("\u{85}"));
        assert!(!re("^.$").is_match("\u{2028}"));
        assert!(re("^.$").is_match("\u{85}"));
        assert!(!re(r"\bé").is_match("é"), "é is no word character");
        assert!(re("^[^]$").is_match("\n"));
        assert!(!re("[]").is_match("a"));
        assert!(re(r"^\u{1F600}$").is_match("😀"));
        let fancy = |s: &str| {
            let t = translate(s).expect("valid");
            assert!(t.backtracking);
            fancy_regex::Regex::new(&t.rust).expect("compiles")
        };
        assert!(fancy(r"(?=a)\bab").is_match("ab").unwrap_or(false));
        assert!(!fancy(r"(?=é)\bé").is_match("é").unwrap_or(true));
        assert!(fancy(r"(?<q>['])x\k<q>").is_match("'x'").unwrap_or(false));
    }

    #[test]
    fn constructor_errors_are_v8s() {
        // Each answer is Node 20's `new RegExp(source, flags)`.
        let cases = [
            (
                "(",
                "",
                Some("Invalid regular expression: /(/: Unterminated group"),
            ),
            (
                "(/",
                "g",
                Some("Invalid regular expression: /(//g: Unterminated group"),
            ),
            (
                "a",
                "gg",
                Some("Invalid flags supplied to RegExp constructor 'gg'"),
            ),
            (
                "a",
                "uv",
                Some("Invalid flags supplied to RegExp constructor 'uv'"),
            ),
            (
                "a",
                "x",
                Some("Invalid flags supplied to RegExp constructor 'x'"),
            ),
            (
                r"\_",
                "u",
                Some(r"Invalid regular expression: /\_/u: Invalid escape"),
            ),
            (r"\_", "", None),
            (
                "[b-a]",
                "",
                Some("Invalid regular expression: /[b-a]/: Range out of order in character class"),
            ),
            (
                "x{2,1}",
                "v",
                Some(
                    "Invalid regular expression: /x{2,1}/v: numbers out of order in {} quantifier",
                ),
            ),
            (
                "a**",
                "i",
                Some("Invalid regular expression: /a**/i: Nothing to repeat"),
            ),
            (
                "(",
                "ig",
                Some("Invalid regular expression: /(/gi: Unterminated group"),
            ),
            (
                "(",
                "yvd",
                Some("Invalid regular expression: /(/dvy: Unterminated group"),
            ),
            (r"\k<x>", "", None),
            (r"\[[^\]]+\]", "g", None),
        ];
        for (source, flags, want) in cases {
            assert_eq!(
                constructor_error(source, flags).as_deref(),
                want,
                "/{source}/{flags}"
            );
        }
    }

    #[test]
    fn annex_b_is_permissive_where_v8_is() {
        for ok in [
            r"\_", "{1", "x{,5}", "]", "[]]", r"\00", r"[\1]", r"[\d-a]", r"\c1", r"[\c1]", r"\x1",
            r"\u12", r"\p{Foo}", r"\k", r"\k<a>", r"\8", "(?=a)*", r"a\Z",
        ] {
            assert!(is_valid_annex_b(ok), "{ok}");
        }
        for bad in [
            "(",
            "a)",
            "[a",
            "*",
            "{1}",
            "a{2,1}",
            "[b-a]",
            "(?<=a)*",
            r"[\p{L}-z]",
            r"(?<a>x)\k",
            r"(?<a>x)\k<b>",
            "(?<a>x)(?<a>y)",
            "(?x)",
            "\\",
        ] {
            assert!(!is_valid_annex_b(bad), "{bad}");
        }
    }
}
