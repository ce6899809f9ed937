//! Runtime values with JavaScript semantics: LiquidJS renders JS values, so equality,
//! ordering, number formatting and string conversion follow ECMAScript.

use super::ast::LoopHead;
use serde_json::Value;
use std::borrow::Cow;
use std::cell::Cell;
use std::rc::Rc;

/// A `forloop` / `tablerowloop` drop: one per run of a loop, shared by its passes (behind an
/// `Rc`), as LiquidJS keeps one object whose counter the loop advances. A drop kept in a
/// variable reads the pass the loop is on, and after the loop where it stopped; two reads
/// of it are the same object.
#[derive(Debug)]
pub(crate) struct LoopInfo<'a> {
    pub(crate) head: &'a LoopHead,
    /// LiquidJS's `i`: advanced after each pass a `for` does not `break` (after every pass of
    /// a `tablerow`), so it is the length once a loop ran to its end.
    pub(crate) index0: Cell<u32>,
    pub(crate) length: u32,
    /// The columns of a `tablerowloop`; `None` for a `forloop`.
    pub(crate) cols: Option<TableCols<'a>>,
}

impl<'a> LoopInfo<'a> {
    pub(crate) fn new(head: &'a LoopHead, length: u32, cols: Option<TableCols<'a>>) -> Self {
        LoopInfo {
            head,
            index0: Cell::new(0),
            length,
            cols,
        }
    }

    /// LiquidJS's `next()`: on to the next pass.
    pub(crate) fn next(&self) {
        self.index0.set(self.index0.get().saturating_add(1));
    }

    /// `forloop.name`: `<variable>-<collection source>`.
    pub(crate) fn name(&self) -> String {
        format!("{}-{}", self.head.var, self.head.collection_text)
    }
}

/// A `tablerow`'s columns as LiquidJS 10.30.1 keeps them: the `cols` argument's value when it
/// is truthy, else the number of items, used as is in JavaScript arithmetic. So `cols: '2'`
/// counts two columns but no cell is `col_last` (`2 === '2'` is false), and `cols: nil` (0)
/// or `'x'` (NaN) makes every column `NaN` and opens no row.
#[derive(Debug, Clone)]
pub(crate) struct TableCols<'a> {
    /// What `tablerowloop.cols` reads.
    pub(crate) value: Val<'a>,
    /// `value` as a number.
    number: f64,
}

impl<'a> TableCols<'a> {
    pub(crate) fn new(value: Val<'a>) -> TableCols<'a> {
        let number = to_number(&value);
        TableCols { value, number }
    }

    /// `Math.floor(index0 / cols) + 1`.
    pub(crate) fn row(&self, index0: f64) -> f64 {
        (index0 / self.number).floor() + 1.0
    }

    /// `index0 % cols` (Rust's `%` on floats is JavaScript's: the sign of the dividend).
    pub(crate) fn col0(&self, index0: f64) -> f64 {
        index0 % self.number
    }

    /// `col0 + 1`.
    pub(crate) fn col(&self, index0: f64) -> f64 {
        self.col0(index0) + 1.0
    }

    /// `col === cols`: a strict equality, so only a number of columns can equal a column.
    fn col_last(&self, index0: f64) -> bool {
        matches!(self.value, Val::Num(cols) if self.col(index0) == cols)
    }
}

/// A value while rendering; borrowed from the context or the template where possible.
#[derive(Debug, Clone)]
pub(crate) enum Val<'a> {
    Undef,
    /// `null` from the context or a filter.
    Nil,
    /// The literal `nil`/`null` (LiquidJS's NullDrop): `null` everywhere except that reading
    /// a property of it is undefined (`{% assign b = nil %}{{ b.c }}` fails).
    NilDrop,
    Bool(bool),
    Num(f64),
    S(&'a str),
    /// An array or object of the render context.
    Json(&'a Value),
    Empty,
    Blank,
    // The variants that own a count come last, so that dropping a value tests one range
    // before it looks at which.
    Str(Rc<str>),
    Arr(Rc<Vec<Val<'a>>>),
    Loop(Rc<LoopInfo<'a>>),
    /// One group of `group_by`: the object `{name, items}`.
    Group(Rc<(Val<'a>, Vec<Val<'a>>)>),
}

impl<'a> Val<'a> {
    pub(crate) fn from_json(v: &'a Value) -> Val<'a> {
        match v {
            Value::Null => Val::Nil,
            Value::Bool(b) => Val::Bool(*b),
            Value::Number(n) => Val::Num(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) => Val::S(s),
            Value::Array(_) | Value::Object(_) => Val::Json(v),
        }
    }

    pub(crate) fn string(s: impl AsRef<str>) -> Val<'a> {
        Val::Str(Rc::from(s.as_ref()))
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Val::S(s) => Some(s),
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn is_array(&self) -> bool {
        matches!(self, Val::Json(Value::Array(_)) | Val::Arr(_))
    }

    /// Elements, if this is an array.
    pub(crate) fn items(&self) -> Option<Vec<Val<'a>>> {
        match self {
            Val::Json(Value::Array(a)) => Some(a.iter().map(Val::from_json).collect()),
            Val::Arr(a) => Some(a.as_ref().clone()),
            _ => None,
        }
    }

    pub(crate) fn items_len(&self) -> Option<usize> {
        match self {
            Val::Json(Value::Array(a)) => Some(a.len()),
            Val::Arr(a) => Some(a.len()),
            _ => None,
        }
    }

    fn item(&self, i: usize) -> Val<'a> {
        match self {
            Val::Json(Value::Array(a)) => a.get(i).map(Val::from_json).unwrap_or(Val::Undef),
            Val::Arr(a) => a.get(i).cloned().unwrap_or(Val::Undef),
            _ => Val::Undef,
        }
    }

    /// Liquid truthiness: only `false`, nil and undefined are falsy.
    pub(crate) fn truthy(&self) -> bool {
        !matches!(
            self,
            Val::Bool(false) | Val::Nil | Val::NilDrop | Val::Undef
        )
    }

    /// JavaScript truthiness (`!!x`).
    pub(crate) fn truthy_js(&self) -> bool {
        match self {
            // The literal `nil` is LiquidJS's NullDrop, an object: truthy in JavaScript.
            Val::Undef | Val::Nil | Val::Bool(false) => false,
            Val::Num(n) => *n != 0.0 && !n.is_nan(),
            Val::S(s) => !s.is_empty(),
            Val::Str(s) => !s.is_empty(),
            _ => true,
        }
    }

    /// `SameValueZero`, as a JS `Set` compares (objects by identity).
    pub(crate) fn same_value_zero(&self, o: &Val<'a>) -> bool {
        match (self, o) {
            (Val::Num(a), Val::Num(b)) => a == b || (a.is_nan() && b.is_nan()),
            (Val::Json(a), Val::Json(b)) => std::ptr::eq(*a, *b),
            (Val::Arr(a), Val::Arr(b)) => Rc::ptr_eq(a, b),
            (Val::Group(a), Val::Group(b)) => Rc::ptr_eq(a, b),
            (Val::Loop(a), Val::Loop(b)) => Rc::ptr_eq(a, b),
            // the one NullDrop object is itself only
            (Val::NilDrop, x) | (x, Val::NilDrop) => matches!(x, Val::NilDrop),
            _ => strict_eq_prim(self, o),
        }
    }

    /// `readProperty`: one step of a property access; `Undef` when absent.
    pub(crate) fn read_property(&self, key: &Val<'_>) -> Val<'a> {
        match self {
            Val::Nil => Val::Nil,
            // the literal `nil` is LiquidJS's NullDrop: a drop without properties
            Val::NilDrop => Val::Undef,
            Val::Undef => Val::Undef,
            Val::Json(Value::Array(_)) | Val::Arr(_) => {
                let len = self.items_len().unwrap_or(0);
                let kn = match key {
                    Val::Num(n) => Some(*n),
                    Val::S(_) | Val::Str(_) => {
                        let s = key.as_str().unwrap_or("");
                        let n = str_to_number(s);
                        // `key < 0` compares numerically; an index must be canonical
                        if n < 0.0 { Some(n) } else { canonical_index(s) }
                    }
                    _ => None,
                };
                if let Some(n) = kn {
                    if n < 0.0 {
                        let i = len as f64 + n;
                        if i >= 0.0 && i.fract() == 0.0 {
                            return self.item(i as usize);
                        }
                        return Val::Undef;
                    }
                    if n.fract() == 0.0 {
                        return self.item(n as usize);
                    }
                    return Val::Undef;
                }
                match key.as_str() {
                    Some("size") | Some("length") => Val::Num(len as f64),
                    Some("first") => self.item(0),
                    Some("last") => {
                        if len == 0 {
                            Val::Undef
                        } else {
                            self.item(len - 1)
                        }
                    }
                    _ => Val::Undef,
                }
            }
            Val::Json(Value::Object(m)) => {
                let k = key_text(key);
                match crate::js::property(m, k.as_ref()) {
                    Some(v) => Val::from_json(v),
                    None if k == "size" => Val::Num(m.len() as f64),
                    None => Val::Undef,
                }
            }
            Val::S(_) | Val::Str(_) => {
                let s = self.as_str().unwrap_or("");
                let k = key_text(key);
                if k == "length" || k == "size" {
                    return Val::Num(s.encode_utf16().count() as f64);
                }
                if let Some(i) = canonical_index(&k) {
                    let units: Vec<u16> = s.encode_utf16().collect();
                    return match units.get(i as usize) {
                        Some(u) => Val::string(String::from_utf16_lossy(&[*u])),
                        None => Val::Undef,
                    };
                }
                Val::Undef
            }
            Val::Group(g) => match key_text(key).as_ref() {
                "name" => g.0.clone(),
                "items" => Val::Arr(Rc::new(g.1.clone())),
                // an object's size is its number of keys
                "size" => Val::Num(2.0),
                _ => Val::Undef,
            },
            Val::Loop(l) => {
                let k = key_text(key);
                // as numbers: past its loop a drop's `i` is its length, and `rindex0` is -1
                let index0 = l.index0.get();
                let (at, n) = (f64::from(index0), f64::from(l.length));
                match (k.as_ref(), l.cols.as_ref()) {
                    // the drop's own counter field, which LiquidJS's methods read
                    ("i", _) => Val::Num(at),
                    ("index", _) => Val::Num(at + 1.0),
                    ("index0", _) => Val::Num(at),
                    ("rindex", _) => Val::Num(n - at),
                    ("rindex0", _) => Val::Num(n - at - 1.0),
                    ("first", _) => Val::Bool(index0 == 0),
                    ("last", _) => Val::Bool(at + 1.0 == n),
                    ("length", _) => Val::Num(n),
                    ("name", _) => Val::string(l.name()),
                    // a method LiquidJS calls like any other: the drop's JSON
                    ("valueOf", _) => Val::string(stringify(self)),
                    ("cols", Some(t)) => t.value.clone(),
                    ("row", Some(t)) => Val::Num(t.row(at)),
                    ("col", Some(t)) => Val::Num(t.col(at)),
                    ("col0", Some(t)) => Val::Num(t.col0(at)),
                    ("col_first", Some(t)) => Val::Bool(t.col0(at) == 0.0),
                    ("col_last", Some(t)) => Val::Bool(t.col_last(at)),
                    _ => Val::Undef,
                }
            }
            _ => Val::Undef,
        }
    }

    /// `_getFromScope(item, "a.b", false)`: a lenient dotted read.
    pub(crate) fn get_path_lenient(&self, path: &str) -> Val<'a> {
        let mut cur = self.clone();
        for seg in path.split('.') {
            cur = cur.read_property(&Val::S(seg));
        }
        cur
    }
}

/// An array index key (`"0"`, `"17"`) as a number; other keys (`"01"`, `"-1"`) are none.
fn canonical_index(s: &str) -> Option<f64> {
    crate::js::array_index(s).map(f64::from)
}

fn strict_eq_prim(a: &Val<'_>, b: &Val<'_>) -> bool {
    match (a, b) {
        // `nil` is LiquidJS's NullDrop, whose `equals` holds for null and undefined alike;
        // between the plain values, `null === undefined` does not
        (Val::NilDrop, Val::Undef | Val::Nil | Val::NilDrop)
        | (Val::Undef | Val::Nil, Val::NilDrop)
        | (Val::Undef, Val::Undef)
        | (Val::Nil, Val::Nil) => true,
        (Val::Bool(x), Val::Bool(y)) => x == y,
        (Val::Num(x), Val::Num(y)) => x == y,
        (Val::Empty, Val::Empty) | (Val::Blank, Val::Blank) => true,
        _ => match (a.as_str(), b.as_str()) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

pub(crate) use crate::js::is_js_space;

/// ECMAScript `StringToNumber`.
pub(crate) fn str_to_number(s: &str) -> f64 {
    let t = s.trim_matches(is_js_space);
    if t.is_empty() {
        return 0.0;
    }
    match t {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    let lower = t.get(..2).map(|p| p.to_ascii_lowercase());
    let radix = match lower.as_deref() {
        Some("0x") => 16,
        Some("0o") => 8,
        Some("0b") => 2,
        _ => 10,
    };
    if radix != 10 {
        let digits = t.get(2..).unwrap_or("");
        if digits.is_empty() {
            return f64::NAN;
        }
        let mut v = 0f64;
        for c in digits.chars() {
            match c.to_digit(radix) {
                Some(d) => v = v * radix as f64 + d as f64,
                None => return f64::NAN,
            }
        }
        return v;
    }
    // decimal literal: [+-] (digits [. digits] | . digits) [e [+-] digits]
    let b = t.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+') | Some(b'-')) {
        i += 1;
    }
    let ds = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - ds;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let fs = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        digits += i - fs;
    }
    if digits == 0 {
        return f64::NAN;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let es = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == es {
            return f64::NAN;
        }
    }
    if i != b.len() {
        return f64::NAN;
    }
    t.parse::<f64>().unwrap_or(f64::NAN)
}

/// ECMAScript `ToNumber`.
pub(crate) fn to_number(v: &Val<'_>) -> f64 {
    match v {
        Val::Undef => f64::NAN,
        Val::Nil | Val::NilDrop => 0.0,
        Val::Bool(b) => f64::from(u8::from(*b)),
        Val::Num(n) => *n,
        Val::S(_) | Val::Str(_) => str_to_number(v.as_str().unwrap_or("")),
        Val::Empty | Val::Blank => 0.0,
        _ if v.is_array() => str_to_number(&js_string(v)),
        _ => f64::NAN,
    }
}

/// `Number.prototype.toString()`.
pub(crate) use crate::js::js_number as js_num;

/// A value as a property name: LiquidJS's `toValue` (a drop's `valueOf`: `""` for `empty`
/// and `blank`, a loop drop's JSON), then `String(key)`; borrowed when the key is already a
/// string (the common case: `customer.name` reads a key without building one).
pub(crate) fn key_text<'k>(key: &'k Val<'_>) -> Cow<'k, str> {
    match key {
        // LiquidJS reads a key's `toValue` first: a drop's `valueOf`
        Val::Empty | Val::Blank | Val::Loop(_) => stringify(key),
        Val::NilDrop => Cow::Borrowed("null"),
        _ => match key.as_str() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(js_string(key)),
        },
    }
}

/// ECMAScript `String(x)`.
pub(crate) fn js_string(v: &Val<'_>) -> String {
    match v {
        Val::Undef => "undefined".into(),
        Val::Nil => "null".into(),
        Val::Bool(b) => b.to_string(),
        Val::Num(n) => js_num(*n),
        Val::S(s) => (*s).to_string(),
        Val::Str(s) => s.to_string(),
        _ if v.is_array() => v
            .items()
            .unwrap_or_default()
            .iter()
            .map(join_part)
            .collect::<Vec<_>>()
            .join(","),
        // objects, the drops (`nil` is LiquidJS's NullDrop) among them
        _ => "[object Object]".into(),
    }
}

/// An item as `Array.prototype.join` writes it: `null` and `undefined` as nothing, anything
/// else (the `nil` drop, an object, included) as `String(item)`.
pub(crate) fn join_part(v: &Val<'_>) -> String {
    match v {
        Val::Nil | Val::Undef => String::new(),
        _ => js_string(v),
    }
}

/// LiquidJS's `stringify`: what an output writes. A string is borrowed, not copied.
pub(crate) fn stringify<'v>(v: &'v Val<'_>) -> Cow<'v, str> {
    match v {
        Val::Undef | Val::Nil | Val::NilDrop | Val::Empty | Val::Blank => Cow::Borrowed(""),
        Val::S(s) => Cow::Borrowed(s),
        Val::Str(s) => Cow::Borrowed(s),
        // a loop drop's `valueOf` is its JSON
        Val::Loop(_) => Cow::Owned(json_stringify(v, &Val::Undef).unwrap_or_default()),
        _ if v.is_array() => Cow::Owned(
            v.items()
                .unwrap_or_default()
                .iter()
                .map(stringify)
                .collect::<String>(),
        ),
        _ => Cow::Owned(js_string(v)),
    }
}

/// Appends `stringify(v)` to `out` without an intermediate string where possible.
pub(crate) fn write_val(out: &mut String, v: &Val<'_>) {
    match v {
        Val::Undef | Val::Nil | Val::NilDrop | Val::Empty | Val::Blank => {}
        Val::S(s) => out.push_str(s),
        Val::Str(s) => out.push_str(s),
        Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Val::Json(Value::Array(a)) => {
            for x in a {
                write_val(out, &Val::from_json(x));
            }
        }
        Val::Arr(a) => {
            for x in a.iter() {
                write_val(out, x);
            }
        }
        Val::Loop(_) => out.push_str(&stringify(v)),
        // written in place: numbers are the most common output after strings
        Val::Num(n) => {
            let _ = crate::js::write_js_number(out, *n);
        }
        _ => out.push_str(&js_string(v)),
    }
}

/// LiquidJS's `equals` (drops compare through their `equals`).
pub(crate) fn js_equals(l: &Val<'_>, r: &Val<'_>) -> bool {
    match (l, r) {
        (Val::Empty, x) | (x, Val::Empty) if !matches!(x, Val::Blank) => empty_equals(x),
        (Val::Blank, x) | (x, Val::Blank) => blank_equals(x),
        (Val::Empty, Val::Empty) => false,
        _ => {
            if l.is_array() {
                if !r.is_array() {
                    return false;
                }
                let (a, b) = (l.items().unwrap_or_default(), r.items().unwrap_or_default());
                return a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| js_equals(x, y));
            }
            match (l, r) {
                // LiquidJS compares a drop by its `valueOf`, a loop drop's JSON text
                (Val::Loop(_), _) => js_equals(&Val::string(stringify(l)), r),
                (_, Val::Loop(_)) => js_equals(l, &Val::string(stringify(r))),
                (Val::Json(a), Val::Json(b)) => std::ptr::eq(*a, *b),
                (Val::Group(a), Val::Group(b)) => Rc::ptr_eq(a, b),
                _ => strict_eq_prim(l, r),
            }
        }
    }
}

fn empty_equals(v: &Val<'_>) -> bool {
    match v {
        Val::Empty | Val::Blank => false,
        Val::S(_) | Val::Str(_) => v.as_str().is_some_and(str::is_empty),
        Val::Json(Value::Object(m)) => m.is_empty(),
        _ => v.items_len() == Some(0),
    }
}

fn blank_equals(v: &Val<'_>) -> bool {
    match v {
        Val::Bool(false) | Val::Nil | Val::NilDrop | Val::Undef => true,
        Val::S(_) | Val::Str(_) => v.as_str().is_some_and(|s| s.chars().all(is_js_space)),
        Val::Blank => false,
        _ => empty_equals(v),
    }
}

/// A value after ECMAScript's `ToPrimitive`: text (borrowed where the value is text already)
/// or a number.
enum Prim<'v> {
    S(Cow<'v, str>),
    N(f64),
}

/// `ToPrimitive`: strings stay, arrays and objects become their `toString`, and LiquidJS's
/// drops their `valueOf` (`''` for `empty` and `blank`, the JSON of a loop drop); everything
/// else is a number.
fn to_prim<'v>(v: &'v Val<'_>) -> Prim<'v> {
    match v {
        Val::S(_) | Val::Str(_) => Prim::S(Cow::Borrowed(v.as_str().unwrap_or(""))),
        Val::Json(_) | Val::Arr(_) | Val::Group(_) => Prim::S(Cow::Owned(js_string(v))),
        Val::Empty | Val::Blank | Val::Loop(_) => Prim::S(stringify(v)),
        Val::Undef | Val::Nil | Val::NilDrop | Val::Bool(_) | Val::Num(_) => Prim::N(to_number(v)),
    }
}

/// JavaScript `l < r` (abstract relational comparison).
pub(crate) fn js_less(l: &Val<'_>, r: &Val<'_>) -> bool {
    js_compare(l, r, |a, b| a.lt(b), |x, y| x < y)
}

/// JavaScript `l <= r`.
pub(crate) fn js_less_eq(l: &Val<'_>, r: &Val<'_>) -> bool {
    js_compare(l, r, |a, b| a.le(b), |x, y| x <= y)
}

/// The abstract relational comparison: two strings compare by UTF-16 units (`strings`),
/// anything else as numbers (`numbers`).
fn js_compare(
    l: &Val<'_>,
    r: &Val<'_>,
    strings: impl FnOnce(std::str::EncodeUtf16<'_>, std::str::EncodeUtf16<'_>) -> bool,
    numbers: impl FnOnce(f64, f64) -> bool,
) -> bool {
    let number = |p: Prim| match p {
        Prim::N(n) => n,
        Prim::S(s) => str_to_number(&s),
    };
    match (to_prim(l), to_prim(r)) {
        (Prim::S(a), Prim::S(b)) => strings(a.encode_utf16(), b.encode_utf16()),
        (a, b) => numbers(number(a), number(b)),
    }
}

/// `JSON.stringify(v, undefined, space)`; `None` for undefined.
pub(crate) fn json_stringify(v: &Val<'_>, space: &Val<'_>) -> Option<String> {
    let gap = json_gap(space);
    let mut out = String::new();
    if !write_json(&mut out, v, gap.as_deref(), 0) {
        return None;
    }
    Some(out)
}

/// `JSON.stringify`'s indent for its `space` argument, `None` for none (one line): a number
/// gives that many spaces (at most 10), a string its first 10 UTF-16 units. V8 breaks lines
/// for any positive number, so one below 1 gives lines without indent (`json: 0.5`).
fn json_gap(space: &Val<'_>) -> Option<String> {
    match space {
        Val::Num(n) if *n > 0.0 => Some(" ".repeat(n.min(10.0) as usize)),
        Val::S(_) | Val::Str(_) => {
            let mut units = 0;
            let gap: String = space
                .as_str()
                .unwrap_or("")
                .chars()
                .take_while(|c| {
                    units += c.len_utf16();
                    units <= 10
                })
                .collect();
            (!gap.is_empty()).then_some(gap)
        }
        _ => None,
    }
}

fn newline(out: &mut String, gap: Option<&str>, level: usize) {
    if let Some(gap) = gap {
        out.push('\n');
        for _ in 0..level {
            out.push_str(gap);
        }
    }
}

fn write_json(out: &mut String, v: &Val<'_>, gap: Option<&str>, level: usize) -> bool {
    match v {
        Val::Undef => return false,
        Val::Nil => out.push_str("null"),
        // The literal `nil` is a drop, an object without own fields (as `empty` and `blank`).
        Val::NilDrop => out.push_str("{}"),
        Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Val::Num(n) => {
            if n.is_finite() {
                let _ = crate::js::write_js_number(out, *n);
            } else {
                out.push_str("null");
            }
        }
        Val::S(_) | Val::Str(_) => {
            out.push_str(&serde_json::to_string(v.as_str().unwrap_or("")).unwrap_or_default())
        }
        Val::Json(Value::Object(m)) => {
            if m.is_empty() {
                out.push_str("{}");
                return true;
            }
            out.push('{');
            let mut first = true;
            for (k, x) in crate::js::entries(m) {
                if !first {
                    out.push(',');
                }
                first = false;
                newline(out, gap, level + 1);
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push(':');
                if gap.is_some() {
                    out.push(' ');
                }
                write_json(out, &Val::from_json(x), gap, level + 1);
            }
            newline(out, gap, level);
            out.push('}');
        }
        Val::Empty | Val::Blank => out.push_str("{}"),
        Val::Group(g) => {
            out.push('{');
            // an `undefined` name is left out, as JSON.stringify does
            if !matches!(g.0, Val::Undef) {
                newline(out, gap, level + 1);
                out.push_str("\"name\":");
                if gap.is_some() {
                    out.push(' ');
                }
                write_json(out, &g.0, gap, level + 1);
                out.push(',');
            }
            newline(out, gap, level + 1);
            out.push_str("\"items\":");
            if gap.is_some() {
                out.push(' ');
            }
            write_json(out, &Val::Arr(Rc::new(g.1.clone())), gap, level + 1);
            newline(out, gap, level);
            out.push('}');
        }
        Val::Loop(l) => {
            // the drop's own fields, in construction order
            let mut cols = String::new();
            if let Some(t) = &l.cols {
                write_json(&mut cols, &t.value, gap, level + 1);
            }
            let fields = [
                ("i", l.index0.get().to_string()),
                ("length", l.length.to_string()),
                ("name", serde_json::to_string(&l.name()).unwrap_or_default()),
                ("cols", cols),
            ];
            // only a `tablerow` drop has `cols`
            let count = if l.cols.is_some() { 4 } else { 3 };
            out.push('{');
            for (at, (k, x)) in fields.iter().take(count).enumerate() {
                if at > 0 {
                    out.push(',');
                }
                newline(out, gap, level + 1);
                out.push_str(&format!("\"{k}\":"));
                if gap.is_some() {
                    out.push(' ');
                }
                out.push_str(x);
            }
            newline(out, gap, level);
            out.push('}');
        }
        _ => {
            let items = v.items().unwrap_or_default();
            if items.is_empty() {
                out.push_str("[]");
                return true;
            }
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, gap, level + 1);
                if !write_json(out, x, gap, level + 1) {
                    out.push_str("null");
                }
            }
            newline(out, gap, level);
            out.push(']');
        }
    }
    true
}

/// `Array.prototype.slice`'s reading of an end: truncated toward zero (NaN as 0), counted
/// from the end when negative, and clamped to `0..=len`.
pub(crate) fn js_slice_index(n: f64, len: usize) -> usize {
    if n.is_nan() {
        return 0;
    }
    let n = n.trunc();
    if n < 0.0 {
        let v = len as f64 + n;
        if v < 0.0 { 0 } else { v as usize }
    } else if n > len as f64 {
        len
    } else {
        n as usize
    }
}

/// JavaScript's `a + b` on Liquid values: concatenation when either is text after
/// `ToPrimitive` ([`to_prim`]), else numeric addition.
pub(crate) fn js_plus<'a>(a: &Val<'a>, b: &Val<'a>) -> Val<'a> {
    match (to_prim(a), to_prim(b)) {
        (Prim::N(x), Prim::N(y)) => Val::Num(x + y),
        (pa, pb) => {
            // a number's side is written as `String(x)`: `null`, `undefined`, `true`, …
            let text = |p: Prim<'_>, v: &Val<'_>| match p {
                Prim::S(s) => s.into_owned(),
                Prim::N(_) => js_string(v),
            };
            Val::string(text(pa, a) + &text(pb, b))
        }
    }
}

/// `toEnumerable`: an array's items, a non-empty string alone, an object's `[key, value]`
/// entries; anything else is empty.
pub(crate) fn to_enumerable<'a>(v: &Val<'a>) -> Vec<Val<'a>> {
    if let Some(items) = v.items() {
        return items;
    }
    match v {
        Val::S(_) | Val::Str(_) => {
            if v.as_str().is_some_and(|s| !s.is_empty()) {
                vec![v.clone()]
            } else {
                Vec::new()
            }
        }
        Val::Json(Value::Object(m)) => crate::js::entries(m)
            .map(|(k, x)| Val::Arr(Rc::new(vec![Val::S(k), Val::from_json(x)])))
            .collect(),
        Val::Loop(_) => vec![v.clone()],
        Val::Group(g) => vec![
            Val::Arr(Rc::new(vec![Val::S("name"), g.0.clone()])),
            Val::Arr(Rc::new(vec![
                Val::S("items"),
                Val::Arr(Rc::new(g.1.clone())),
            ])),
        ],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_like_javascript() {
        assert_eq!(js_num(12.5), "12.5");
        assert_eq!(js_num(3.0), "3");
        assert_eq!(js_num(1e21), "1e+21");
        assert_eq!(js_num(1e-7), "1e-7");
        assert_eq!(js_num(0.000001), "0.000001");
        assert_eq!(js_num(-2.5), "-2.5");
        assert_eq!(js_num(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(js_num(123456789012345680000.0), "123456789012345680000");
    }

    #[test]
    fn strings_convert_like_javascript() {
        assert_eq!(str_to_number(" 12 "), 12.0);
        assert_eq!(str_to_number(""), 0.0);
        assert!(str_to_number("gold").is_nan());
        assert!(str_to_number("inf").is_nan());
        assert_eq!(str_to_number("0x10"), 16.0);
        assert_eq!(str_to_number("1e3"), 1000.0);
        assert_eq!(str_to_number(".5"), 0.5);
    }
}
