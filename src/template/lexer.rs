//! Character classes, the expression cursor and the top-level tokenizer of the LiquidJS
//! dialect.
//!
//! Everything works on byte offsets into the template. Delimiters and operators are ASCII, so
//! byte scanning finds the same boundaries as LiquidJS's UTF-16 scanning; a non-ASCII character
//! is a word character unless it is one of the Unicode blanks LiquidJS lists.

use super::ast::{
    ExpFilter, Expr, ExprKind, FilterArg, FilterCall, FilteredValue, OneOrMany, Op, Prop, StrLit,
};
use super::error::{ParseError, ParseErrorKind};
use super::filters::names::Filter;

const VARIABLE: u8 = 1;
const BLANK: u8 = 4;
const QUOTE: u8 = 8;
const NUMBER: u8 = 32;
const SIGN: u8 = 64;

/// LiquidJS's ASCII character table (`util/character.ts`), rebuilt from its rules.
const fn ascii_types() -> [u8; 128] {
    let mut t = [0u8; 128];
    t[9] = 20;
    t[10] = 4;
    t[11] = 4;
    t[12] = 4;
    t[13] = 20;
    t[32] = 20;
    t[b'!' as usize] = 2;
    t[b'"' as usize] = QUOTE;
    t[b'\'' as usize] = QUOTE;
    t[b'+' as usize] = SIGN;
    t[b'-' as usize] = SIGN | VARIABLE;
    let mut c = b'0';
    while c <= b'9' {
        t[c as usize] = NUMBER | VARIABLE;
        c += 1;
    }
    t[b'<' as usize] = 2;
    t[b'=' as usize] = 2;
    t[b'>' as usize] = 2;
    t[b'?' as usize] = VARIABLE;
    let mut c = b'A';
    while c <= b'Z' {
        t[c as usize] = VARIABLE;
        c += 1;
    }
    t[b'_' as usize] = VARIABLE;
    let mut c = b'a';
    while c <= b'z' {
        t[c as usize] = VARIABLE;
        c += 1;
    }
    t
}

static TYPES: [u8; 128] = ascii_types();

/// The curly double quotes are punctuation in LiquidJS's table: neither blank nor word.
fn is_unicode_punctuation(c: char) -> bool {
    matches!(c as u32, 8220 | 8221)
}

fn is_unicode_blank(c: char) -> bool {
    matches!(
        c as u32,
        160 | 5760 | 6158 | 8192..=8202 | 8232 | 8233 | 8239 | 8287 | 12288
    )
}

/// Type bits of the character starting at byte `p` of `s` (0 past `n`).
#[inline]
fn type_at(s: &str, p: usize, n: usize) -> u8 {
    if p >= n {
        return 0;
    }
    match s.as_bytes().get(p) {
        Some(&b) if b < 128 => TYPES[b as usize],
        Some(_) => match s.get(p..).and_then(|r| r.chars().next()) {
            Some(c) if is_unicode_blank(c) => BLANK,
            _ => 0,
        },
        None => 0,
    }
}

/// Whether the character at byte `p` is a word character (`isWord`).
#[inline]
fn is_word_at(s: &str, p: usize, n: usize) -> bool {
    if p >= n {
        return false;
    }
    match s.as_bytes().get(p) {
        Some(&b) if b < 128 => TYPES[b as usize] & VARIABLE != 0,
        Some(_) => match s.get(p..).and_then(|r| r.chars().next()) {
            Some(c) => !is_unicode_blank(c) && !is_unicode_punctuation(c),
            // a continuation byte: we are inside a word character
            None => true,
        },
        None => false,
    }
}

/// Byte length of the character at `p` (1 for ASCII or past the end).
#[inline]
fn char_len(s: &str, p: usize) -> usize {
    match s.as_bytes().get(p) {
        Some(&b) if b < 0x80 => 1,
        Some(&b) if b >= 0xF0 => 4,
        Some(&b) if b >= 0xE0 => 3,
        Some(&b) if b >= 0xC0 => 2,
        _ => 1,
    }
}

/// Whether byte `p` of `s` is blank (`BLANK` bit).
#[inline]
pub(crate) fn is_blank_at(s: &str, p: usize, n: usize) -> bool {
    type_at(s, p, n) & BLANK != 0
}

/// `ellipsis(str, 32)` quoted as JSON, the snapshot LiquidJS puts in messages.
pub(crate) fn snapshot(s: &str, begin: usize, end: usize) -> String {
    let text = s.get(begin.min(end)..end).unwrap_or("");
    let units: Vec<u16> = text.encode_utf16().collect();
    let shown = if units.len() > 32 {
        let mut t = String::from_utf16_lossy(&units[..29]);
        t.push_str("...");
        t
    } else {
        text.to_string()
    };
    serde_json::to_string(&shown).unwrap_or_default()
}

/// Byte length of the longest operator at `p`, honouring word boundaries (`matchTrie`).
fn match_operator(s: &str, p: usize, n: usize) -> Option<(usize, Op)> {
    const OPS: [(&str, Op); 10] = [
        ("==", Op::Eq),
        ("!=", Op::Ne),
        (">=", Op::Ge),
        ("<=", Op::Le),
        (">", Op::Gt),
        ("<", Op::Lt),
        ("contains", Op::Contains),
        ("not", Op::Not),
        ("and", Op::And),
        ("or", Op::Or),
    ];
    // most positions start a value, not an operator
    if !matches!(
        s.as_bytes().get(p),
        Some(b'=' | b'!' | b'<' | b'>' | b'c' | b'n' | b'a' | b'o')
    ) {
        return None;
    }
    let rest = s.get(p..n)?;
    let mut best: Option<(usize, Op)> = None;
    for (text, op) in OPS {
        if rest.starts_with(text) && best.is_none_or(|(len, _)| text.len() > len) {
            best = Some((text.len(), op));
        }
    }
    let (len, op) = best?;
    let word_op = matches!(op, Op::Contains | Op::Not | Op::And | Op::Or);
    if word_op && is_word_at(s, p + len, n) {
        return None;
    }
    Some((len, op))
}

/// Decodes a quoted literal the way `parseStringLiteral` does: the first and last characters
/// are dropped whatever they are, and backslash escapes are resolved.
pub(crate) fn parse_string_literal(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    if chars.len() < 2 {
        return out;
    }
    let last = chars.len() - 1;
    let mut i = 1;
    while i < last {
        let c = chars[i];
        if c != '\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let next = chars.get(i + 1).copied();
        match next {
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('v') => out.push('\u{b}'),
            Some('u') => {
                let hex: String = chars.iter().skip(i + 2).take(4).collect();
                if let Some(c) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    out.push(c);
                    i += 6;
                    continue;
                }
                out.push('u');
            }
            Some(c) => out.push(c),
            None => {}
        }
        i += 2;
    }
    out
}

/// A quoted token's value: a span when there is nothing to decode.
fn string_literal(text: &str, begin: usize) -> StrLit {
    let mut chars = text.chars();
    match (chars.next(), chars.next_back()) {
        (Some(first), Some(last)) if !text.contains('\\') => StrLit::Span(
            begin + first.len_utf8(),
            begin + text.len() - last.len_utf8(),
        ),
        _ => StrLit::Owned(parse_string_literal(text)),
    }
}

/// A cursor over `[p, n)` of the template: LiquidJS's `Tokenizer` for tag arguments and
/// output contents.
#[derive(Debug)]
pub(crate) struct Cursor<'s> {
    pub(crate) s: &'s str,
    pub(crate) p: usize,
    pub(crate) n: usize,
    /// Nesting of `readValue` (brackets and ranges), capped so hostile input cannot
    /// exhaust the stack.
    depth: usize,
}

/// Deepest nesting of brackets and ranges inside one value.
const MAX_VALUE_DEPTH: usize = 64;

type PResult<T> = Result<T, ParseError>;

impl<'s> Cursor<'s> {
    pub(crate) fn new(s: &'s str, p: usize, n: usize) -> Cursor<'s> {
        Cursor { s, p, n, depth: 0 }
    }

    pub(crate) fn end(&self) -> bool {
        self.p >= self.n
    }

    pub(crate) fn peek(&self) -> u8 {
        if self.p >= self.n {
            0
        } else {
            self.s.as_bytes().get(self.p).copied().unwrap_or(0)
        }
    }

    fn peek_at(&self, k: usize) -> u8 {
        if self.p + k >= self.n {
            0
        } else {
            self.s.as_bytes().get(self.p + k).copied().unwrap_or(0)
        }
    }

    /// Skips blanks. Called before nearly every read, so the common case (no blank at the
    /// cursor) is one table lookup, inlined.
    #[inline]
    pub(crate) fn skip_blank(&mut self) {
        match self.s.as_bytes().get(self.p) {
            Some(&c) if c < 0x80 && TYPES[c as usize] & BLANK == 0 => {}
            None => {}
            Some(_) => self.skip_blank_slow(),
        }
    }

    fn skip_blank_slow(&mut self) {
        let b = self.s.as_bytes();
        while self.p < self.n {
            match b.get(self.p) {
                Some(b' ' | b'\t' | b'\n' | b'\r' | 11 | 12) => self.p += 1,
                Some(&c) if c >= 0x80 && type_at(self.s, self.p, self.n) & BLANK != 0 => {
                    self.p += char_len(self.s, self.p);
                }
                _ => break,
            }
        }
    }

    pub(crate) fn error(&self, msg: String, pos: usize) -> ParseError {
        ParseError::new(ParseErrorKind::Syntax, msg, pos)
    }

    pub(crate) fn snapshot(&self) -> String {
        snapshot(self.s, self.p, self.n)
    }

    /// `readIdentifier`: blanks, then word characters. Returns the byte range.
    pub(crate) fn read_identifier(&mut self) -> (usize, usize) {
        self.skip_blank();
        let begin = self.p;
        let b = self.s.as_bytes();
        while self.p < self.n {
            match b.get(self.p) {
                Some(&c) if c < 0x80 => {
                    if TYPES[c as usize] & VARIABLE == 0 {
                        break;
                    }
                    self.p += 1;
                }
                Some(_) if is_word_at(self.s, self.p, self.n) => {
                    self.p += char_len(self.s, self.p);
                }
                _ => break,
            }
        }
        (begin, self.p)
    }

    pub(crate) fn text(&self, r: (usize, usize)) -> &'s str {
        self.s.get(r.0..r.1).unwrap_or("")
    }

    /// `readTagName`: `#` or an identifier.
    pub(crate) fn read_tag_name(&mut self) -> (usize, usize) {
        self.skip_blank();
        if self.peek() == b'#' {
            self.p += 1;
            return (self.p - 1, self.p);
        }
        self.read_identifier()
    }

    /// `readTo`: advances past the next occurrence of `pat`; `None` (at the end) if absent.
    pub(crate) fn read_to(&mut self, pat: &[u8]) -> Option<usize> {
        while self.p < self.n {
            self.p += 1;
            if self.rmatch(pat) {
                return Some(self.p);
            }
        }
        None
    }

    fn rmatch(&self, pat: &[u8]) -> bool {
        self.p >= pat.len()
            && self
                .s
                .as_bytes()
                .get(self.p - pat.len()..self.p)
                .is_some_and(|b| b == pat)
    }

    fn read_operator(&mut self) -> Option<Op> {
        self.skip_blank();
        let (len, op) = match_operator(self.s, self.p, self.n)?;
        self.p += len;
        Some(op)
    }

    /// `readExpressionTokens` + `toPostfix`.
    pub(crate) fn read_expression(&mut self) -> PResult<OneOrMany<Expr>> {
        let mut out: OneOrMany<Expr> = OneOrMany::Empty;
        let mut ops: Vec<(Op, usize)> = Vec::new();
        while self.p < self.n {
            let at = {
                self.skip_blank();
                self.p
            };
            if let Some(op) = self.read_operator() {
                while let Some(&(top, pos)) = ops.last() {
                    if top.precedence() > op.precedence() {
                        ops.pop();
                        out.push(Expr::new(ExprKind::Op(top), pos, pos));
                    } else {
                        break;
                    }
                }
                ops.push((op, at));
                continue;
            }
            match self.read_value()? {
                Some(v) => out.push(v),
                None => break,
            }
        }
        while let Some((op, pos)) = ops.pop() {
            out.push(Expr::new(ExprKind::Op(op), pos, pos));
        }
        Ok(out)
    }

    /// `readFilteredValue`: an expression and its filters. An unknown filter fails it
    /// (`strictFilters`: LiquidJS builds the filters with the tag or output).
    pub(crate) fn read_filtered_value(&mut self) -> PResult<FilteredValue> {
        let (value, unknown) = self.read_filtered_value_tokens()?;
        match unknown {
            Some((begin, end)) => Err(ParseError::new(
                ParseErrorKind::UndefinedFilter,
                undefined_filter_message(self.text((begin, end))),
                begin,
            )),
            None => Ok(value),
        }
    }

    /// `readFilteredValue` as tokens only, as a `cycle` candidate is kept until a render picks
    /// it: the value, and the first unknown filter name's range (its call is a
    /// [`Filter::Raw`]).
    pub(crate) fn read_filtered_value_tokens(
        &mut self,
    ) -> PResult<(FilteredValue, Option<(usize, usize)>)> {
        let initial = self.read_expression()?;
        if initial.is_empty() {
            return Err(self.error(
                format!("invalid value expression: {}", self.snapshot()),
                self.p,
            ));
        }
        let mut filters = Vec::new();
        // strictFilters: an unknown filter is a parse error, reported once the value is read
        let mut unknown = None;
        while let Some(f) = self.read_filter(&mut unknown)? {
            filters.push(f);
        }
        Ok((FilteredValue { initial, filters }, unknown))
    }

    /// One `| name: args`; an unknown name is recorded in `unknown` (the first one wins) and
    /// its call dropped.
    fn read_filter(&mut self, unknown: &mut Option<(usize, usize)>) -> PResult<Option<FilterCall>> {
        self.skip_blank();
        if self.end() {
            return Ok(None);
        }
        let c = self.peek();
        // LiquidJS 10.30.1 ends the filter chain at `)` or `,`; what follows is not read
        // (`{{ s, n }}` outputs `s`)
        if c == b')' || c == b',' {
            return Ok(None);
        }
        self.p += 1;
        if c != b'|' {
            return Err(self.error("expected \"|\" before filter".into(), self.p));
        }
        let name = self.read_identifier();
        if name.0 == name.1 {
            if !self.end() {
                return Err(self.error("expected filter name".into(), self.p));
            }
            return Ok(None);
        }
        let mut args = Vec::new();
        self.skip_blank();
        if self.peek() == b':' {
            loop {
                self.p += 1;
                if let Some(arg) = self.read_filter_arg()? {
                    args.push(arg);
                }
                self.skip_blank();
                let c = self.peek();
                if !(self.end() || c == b',' || c == b'|' || c == b')') {
                    return Err(
                        self.error(format!("unexpected character {}", self.snapshot()), self.p)
                    );
                }
                if self.peek() != b',' {
                    break;
                }
            }
        } else if !(matches!(self.peek(), b'|' | b')' | b',') || self.end()) {
            return Err(self.error("expected \":\" after filter name".into(), self.p));
        }
        let Some(filter) = Filter::from_name(self.text(name)) else {
            unknown.get_or_insert(name);
            return Ok(Some(FilterCall {
                filter: Filter::Raw,
                args,
                begin: name.0,
                at: name.0,
                exp: None,
            }));
        };
        let exp = match (args.first(), args.get(1)) {
            (Some(FilterArg::Positional(item)), Some(FilterArg::Positional(e)))
                if filter.is_exp() =>
            {
                self.exp_filter(item, e)
            }
            _ => None,
        };
        Ok(Some(FilterCall {
            filter,
            args,
            begin: name.0,
            at: name.0,
            exp,
        }))
    }

    /// An `*_exp` filter's quoted item name and expression, the expression parsed once.
    fn exp_filter(&self, item: &Expr, e: &Expr) -> Option<Box<ExpFilter>> {
        let (ExprKind::Str(item), ExprKind::Str(e)) = (&item.kind, &e.kind) else {
            return None;
        };
        let text = e.get(self.s).to_string();
        let value = Cursor::new(&text, 0, text.len())
            .read_filtered_value()
            .map_err(|e| e.message().to_string());
        Some(Box::new(ExpFilter {
            item: item.get(self.s).to_string(),
            text,
            value,
        }))
    }

    fn read_filter_arg(&mut self) -> PResult<Option<FilterArg>> {
        let Some(key) = self.read_value()? else {
            return Ok(None);
        };
        self.skip_blank();
        if self.peek() != b':' {
            return Ok(Some(FilterArg::Positional(key)));
        }
        self.p += 1;
        let value = self.read_value()?;
        let name = self.s.get(key.begin..key.end).unwrap_or("").to_string();
        Ok(Some(FilterArg::Keyword(name, value)))
    }

    /// `readHashes`: `name: value` pairs (a name alone has no value).
    pub(crate) fn read_hashes(&mut self) -> PResult<Vec<(String, Option<Expr>)>> {
        let mut out = Vec::new();
        loop {
            self.skip_blank();
            if self.peek() == b',' {
                self.p += 1;
            }
            let name = self.read_identifier();
            if name.0 == name.1 {
                return Ok(out);
            }
            self.skip_blank();
            let mut value = None;
            if self.peek() == b':' {
                self.p += 1;
                value = self.read_value()?;
            }
            out.push((self.text(name).to_string(), value));
        }
    }

    /// `readValue`: a literal, quoted string, range or number, then property accesses.
    pub(crate) fn read_value(&mut self) -> PResult<Option<Expr>> {
        if self.depth >= MAX_VALUE_DEPTH {
            return Err(self.error(
                format!("a value nests brackets or ranges deeper than {MAX_VALUE_DEPTH} levels"),
                self.p,
            ));
        }
        self.depth += 1;
        let r = self.read_value_inner();
        self.depth -= 1;
        r
    }

    fn read_value_inner(&mut self) -> PResult<Option<Expr>> {
        self.skip_blank();
        let begin = self.p;
        let mut variable = self.read_literal();
        if variable.is_none() {
            variable = self.read_quoted();
        }
        if variable.is_none() {
            variable = self.read_range()?;
        }
        if variable.is_none() {
            variable = self.read_number();
        }
        let props = self.read_properties(variable.is_none())?;
        if props.is_empty() {
            return Ok(variable);
        }
        Ok(Some(Expr::new(
            ExprKind::Path {
                root: variable.map(Box::new),
                props,
            },
            begin,
            self.p,
        )))
    }

    pub(crate) fn read_value_or_throw(&mut self) -> PResult<Expr> {
        match self.read_value()? {
            Some(v) => Ok(v),
            None => Err(self.error(
                format!("unexpected token {}, value expected", self.snapshot()),
                self.p,
            )),
        }
    }

    pub(crate) fn read_properties(&mut self, is_begin: bool) -> PResult<OneOrMany<Prop>> {
        let mut props = OneOrMany::Empty;
        loop {
            if self.peek() == b'[' {
                self.p += 1;
                let prop = match self.read_value()? {
                    Some(v) => Prop::from_expr(v),
                    None => Prop::Ident(self.p, self.p),
                };
                if self.read_to(b"]").is_none() {
                    return Err(self.error("[ not closed".into(), self.p));
                }
                props.push(prop);
                continue;
            }
            if is_begin && props.is_empty() {
                let id = self.read_identifier();
                if id.0 != id.1 {
                    props.push(Prop::Ident(id.0, id.1));
                    continue;
                }
            }
            if self.peek() == b'.' && self.peek_at(1) != b'.' {
                self.p += 1;
                let id = self.read_identifier();
                if id.0 == id.1 {
                    break;
                }
                props.push(Prop::Ident(id.0, id.1));
                continue;
            }
            break;
        }
        Ok(props)
    }

    fn read_number(&mut self) -> Option<Expr> {
        self.skip_blank();
        let mut decimal = false;
        let mut digit = false;
        let mut k = 0;
        if type_at(self.s, self.p, self.n) & SIGN != 0 {
            k += 1;
        }
        while self.p + k <= self.n {
            let t = type_at(self.s, self.p + k, self.n);
            if t & NUMBER != 0 {
                digit = true;
                k += 1;
            } else if self.peek_at(k) == b'.' && self.peek_at(k + 1) != b'.' {
                if decimal || !digit {
                    return None;
                }
                decimal = true;
                k += 1;
            } else {
                break;
            }
        }
        if digit && !is_word_at(self.s, self.p + k, self.n) {
            let begin = self.p;
            self.p += k;
            let text = self.s.get(begin..self.p).unwrap_or("0");
            let v = text
                .trim_end_matches('.')
                .parse::<f64>()
                .unwrap_or(f64::NAN);
            return Some(Expr::new(ExprKind::Num(v), begin, self.p));
        }
        None
    }

    fn read_literal(&mut self) -> Option<Expr> {
        self.skip_blank();
        const LITS: [(&str, ExprKind); 6] = [
            ("true", ExprKind::True),
            ("false", ExprKind::False),
            ("nil", ExprKind::Nil),
            ("null", ExprKind::Nil),
            ("empty", ExprKind::Empty),
            ("blank", ExprKind::Blank),
        ];
        if !matches!(
            self.s.as_bytes().get(self.p),
            Some(b't' | b'f' | b'n' | b'e' | b'b')
        ) || self.p >= self.n
        {
            return None;
        }
        let rest = self.s.get(self.p..self.n)?;
        for (text, kind) in LITS {
            if rest.starts_with(text) && !is_word_at(self.s, self.p + text.len(), self.n) {
                let begin = self.p;
                self.p += text.len();
                return Some(Expr::new(kind, begin, self.p));
            }
        }
        None
    }

    fn read_range(&mut self) -> PResult<Option<Expr>> {
        self.skip_blank();
        let begin = self.p;
        if self.peek() != b'(' {
            return Ok(None);
        }
        self.p += 1;
        let lhs = self.read_value_or_throw()?;
        self.skip_blank();
        // Without `..` LiquidJS 10.30 fails where it stands; the `)` is read (consumed) first.
        if !(self.peek() == b'.' && self.peek_at(1) == b'.') {
            return Err(self.error("invalid range syntax".into(), self.p));
        }
        self.p += 2;
        let rhs = self.read_value_or_throw()?;
        self.skip_blank();
        let ok = self.peek() == b')';
        self.p += 1;
        if !ok {
            return Err(self.error("invalid range syntax".into(), self.p));
        }
        Ok(Some(Expr::new(
            ExprKind::Range(Box::new(lhs), Box::new(rhs)),
            begin,
            self.p,
        )))
    }

    /// `readQuoted`; the token runs to the matching unescaped quote or to the end.
    pub(crate) fn read_quoted(&mut self) -> Option<Expr> {
        self.skip_blank();
        let begin = self.p;
        if type_at(self.s, self.p, self.n) & QUOTE == 0 {
            return None;
        }
        let q = self.peek();
        self.p += 1;
        let mut escaped = false;
        while self.p < self.n {
            let c = self.s.as_bytes().get(self.p).copied().unwrap_or(0);
            self.p += 1;
            if c == q && !escaped {
                break;
            }
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            }
        }
        // a quote is ASCII, but the scan may stop inside a multi-byte character at the end
        while self.p < self.n && !self.s.is_char_boundary(self.p) {
            self.p += 1;
        }
        let text = self.s.get(begin..self.p).unwrap_or("");
        Some(Expr::new(
            ExprKind::Str(string_literal(text, begin)),
            begin,
            self.p,
        ))
    }
}

/// LiquidJS's `strictFilters` message for a filter it does not know.
pub(crate) fn undefined_filter_message(name: &str) -> String {
    format!("undefined filter: {name}")
}

/// A top-level token.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Token {
    /// Literal text, `[begin, end)` after whitespace control.
    Html { begin: usize, end: usize },
    /// `{% name args %}`.
    Tag {
        begin: usize,
        end: usize,
        name: (usize, usize),
        args: (usize, usize),
        trim_left: bool,
        trim_right: bool,
    },
    /// `{{ content }}`.
    Output {
        begin: usize,
        end: usize,
        content: (usize, usize),
        trim_left: bool,
        trim_right: bool,
    },
}

impl Token {
    pub(crate) fn begin(&self) -> usize {
        match *self {
            Token::Html { begin, .. } | Token::Tag { begin, .. } | Token::Output { begin, .. } => {
                begin
            }
        }
    }
    pub(crate) fn end(&self) -> usize {
        match *self {
            Token::Html { end, .. } | Token::Tag { end, .. } | Token::Output { end, .. } => end,
        }
    }
}

/// Trims the `-` markers and blanks around delimited content (`DelimitedToken`).
fn content_range(s: &str, cb: usize, ce: usize) -> (usize, usize, bool, bool) {
    if ce <= cb {
        return (cb, cb, false, false);
    }
    let b = s.as_bytes();
    let tl = b.get(cb) == Some(&b'-');
    let tr = b.get(ce - 1) == Some(&b'-');
    let mut l = if tl { cb + 1 } else { cb };
    let mut r = if tr { ce - 1 } else { ce };
    while l < r && is_blank_at(s, l, r) {
        l += char_len(s, l);
    }
    while r > l {
        // step back one character
        let mut q = r - 1;
        while q > l && !s.is_char_boundary(q) {
            q -= 1;
        }
        if is_blank_at(s, q, r) {
            r = q;
        } else {
            break;
        }
    }
    (l, r, tl, tr)
}

/// Builds a tag token over `[begin, end)` whose content is `[cb, ce)`.
pub(crate) fn tag_token(
    s: &str,
    begin: usize,
    end: usize,
    cb: usize,
    ce: usize,
    liquid_line: bool,
) -> Result<Token, ParseError> {
    let (l, r, tl, tr) = content_range(s, cb, ce);
    let mut c = Cursor::new(s, l, r);
    let name = c.read_tag_name();
    if name.0 == name.1 {
        let msg = if liquid_line {
            "illegal liquid tag syntax"
        } else {
            "illegal tag syntax, tag name expected"
        };
        return Err(c.error(msg.into(), c.p));
    }
    c.skip_blank();
    Ok(Token::Tag {
        begin,
        end,
        name,
        args: (c.p, r),
        trim_left: tl,
        trim_right: tr,
    })
}

/// Inside `{% raw %}` (opened at `rb`), from `p`: the next token, where the text goes on, and
/// whether the token is the `endraw` tag that closes the raw block. Text up to `endraw` is
/// one HTML token, whatever tags it holds.
#[cold]
fn raw_token(s: &str, p: usize, n: usize, rb: usize) -> Result<(Token, usize, bool), ParseError> {
    let mut c = Cursor::new(s, p, n);
    let begin = p;
    let mut left = c.read_to(b"{%").map(|x| x - 2);
    while c.p < c.n {
        let id = c.read_identifier();
        if c.text(id) != "endraw" {
            left = c.read_to(b"{%").map(|x| x - 2);
            continue;
        }
        while c.p <= c.n {
            if c.rmatch(b"%}") {
                let end = c.p;
                if Some(begin) == left {
                    let t = tag_token(s, begin, end, begin + 2, end - 2, false)?;
                    return Ok((t, end, true));
                }
                let l = left.unwrap_or(begin);
                return Ok((Token::Html { begin, end: l }, l, false));
            }
            if c.rmatch(b"{%") {
                break;
            }
            c.p += 1;
        }
    }
    Err(ParseError::new(
        ParseErrorKind::Syntax,
        format!("raw {} not closed", snapshot(s, rb, n)),
        begin,
    ))
}

/// The top-level tokenizer (`readTopLevelTokens`) including whitespace control.
pub(crate) fn tokenize(s: &str) -> Result<Vec<Token>, ParseError> {
    let n = s.len();
    let bytes = s.as_bytes();
    let mut p = 0usize;
    let mut tokens = Vec::with_capacity(n / 24 + 1);
    let mut raw_begin: Option<usize> = None;
    let starts = |p: usize, pat: &[u8]| bytes.get(p..p + pat.len()) == Some(pat);
    while p < n {
        if let Some(rb) = raw_begin {
            let (t, np, closes) = raw_token(s, p, n, rb)?;
            tokens.push(t);
            p = np;
            if closes {
                raw_begin = None;
            }
            continue;
        }
        if starts(p, b"{%") {
            let begin = p;
            let Some(end) = read_to_delimiter(s, p, n, b"%}", false) else {
                return Err(ParseError::new(
                    ParseErrorKind::Syntax,
                    format!("tag {} not closed", snapshot(s, begin, n)),
                    begin,
                ));
            };
            let t = tag_token(s, begin, end, begin + 2, end.saturating_sub(2), false)?;
            if let Token::Tag { name, .. } = t
                && s.get(name.0..name.1) == Some("raw")
            {
                raw_begin = Some(begin);
            }
            tokens.push(t);
            p = end;
        } else if starts(p, b"{{") {
            let begin = p;
            let Some(end) = read_to_delimiter(s, p, n, b"}}", true) else {
                return Err(ParseError::new(
                    ParseErrorKind::Syntax,
                    format!("output {} not closed", snapshot(s, begin, n)),
                    begin,
                ));
            };
            let (l, r, tl, tr) = content_range(s, begin + 2, end.saturating_sub(2));
            tokens.push(Token::Output {
                begin,
                end,
                content: (l, r),
                trim_left: tl,
                trim_right: tr,
            });
            p = end;
        } else {
            let begin = p;
            // text runs to the next `{%` or `{{`; `str::find` with an ASCII char is a memchr
            p += char_len(s, p);
            loop {
                match s.get(p..n).and_then(|r| r.find('{')) {
                    None => {
                        p = n;
                        break;
                    }
                    Some(i) => {
                        p += i;
                        if starts(p, b"{%") || starts(p, b"{{") {
                            break;
                        }
                        p += 1;
                    }
                }
            }
            tokens.push(Token::Html { begin, end: p });
        }
    }
    whitespace_control(s, &mut tokens);
    Ok(tokens)
}

/// `readToDelimiter`: the end offset just past `delim`, skipping quoted strings if asked.
/// `p` is at the opening `{`, so LiquidJS's leading blank skip is a no-op here.
fn read_to_delimiter(s: &str, p: usize, n: usize, delim: &[u8; 2], quoted: bool) -> Option<usize> {
    let b = s.as_bytes();
    if !quoted {
        let mut q = p;
        loop {
            let i = b.get(q..n)?.iter().position(|&c| c == delim[0])?;
            q += i + 1;
            if b.get(q) == Some(&delim[1]) && q < n {
                return Some(q + 1);
            }
        }
    }
    let mut q = p;
    while q < n {
        let c = *b.get(q)?;
        if c == b'"' || c == b'\'' {
            // `readQuoted`: to the matching unescaped quote, or to the end
            let mut escaped = false;
            q += 1;
            while q < n {
                let x = *b.get(q)?;
                q += 1;
                if x == c && !escaped {
                    break;
                }
                if escaped {
                    escaped = false;
                } else if x == b'\\' {
                    escaped = true;
                }
            }
            continue;
        }
        if c == delim[0] && q + 1 < n && b.get(q + 1) == Some(&delim[1]) {
            return Some(q + 2);
        }
        q += 1;
    }
    None
}

/// Greedy whitespace control (`whiteSpaceCtrl`), applied to neighbouring text tokens.
fn whitespace_control(s: &str, tokens: &mut [Token]) {
    let mut in_raw = false;
    for i in 0..tokens.len() {
        let (tl, tr, name) = match tokens[i] {
            Token::Tag {
                trim_left,
                trim_right,
                name,
                ..
            } => (trim_left, trim_right, s.get(name.0..name.1)),
            Token::Output {
                trim_left,
                trim_right,
                ..
            } => (trim_left, trim_right, None),
            Token::Html { .. } => continue,
        };
        if !in_raw
            && tl
            && i > 0
            && let Some(Token::Html { begin, end }) = tokens.get_mut(i - 1)
        {
            while *end > *begin {
                let mut q = *end - 1;
                while q > *begin && !s.is_char_boundary(q) {
                    q -= 1;
                }
                if is_blank_at(s, q, *end) {
                    *end = q;
                } else {
                    break;
                }
            }
        }
        match name {
            Some("raw") => in_raw = true,
            Some("endraw") => in_raw = false,
            _ => {}
        }
        if !in_raw
            && tr
            && let Some(Token::Html { begin, end }) = tokens.get_mut(i + 1)
        {
            while *begin < *end && is_blank_at(s, *begin, *end) {
                *begin += char_len(s, *begin);
            }
        }
    }
}
