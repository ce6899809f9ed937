//! The syntax tree. Every node keeps the byte offset where its token begins; line and column
//! are computed on demand by [`super::line_col`].

use super::filters::names::Filter;

/// A list that keeps its first element inline: most expressions have one operand and most
/// paths one or two steps, so this saves an allocation per value.
#[derive(Debug, Clone)]
pub(crate) enum OneOrMany<T> {
    Empty,
    One(T),
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    pub(crate) fn push(&mut self, v: T) {
        *self = match std::mem::replace(self, OneOrMany::Empty) {
            OneOrMany::Empty => OneOrMany::One(v),
            OneOrMany::One(a) => OneOrMany::Many(vec![a, v]),
            OneOrMany::Many(mut m) => {
                m.push(v);
                OneOrMany::Many(m)
            }
        };
    }

    pub(crate) fn as_slice(&self) -> &[T] {
        match self {
            OneOrMany::Empty => &[],
            OneOrMany::One(a) => std::slice::from_ref(a),
            OneOrMany::Many(m) => m,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        matches!(self, OneOrMany::Empty)
    }
}

/// A quoted literal's text: a span of the template when it has no escapes (the common
/// case, no allocation), otherwise the decoded string.
#[derive(Debug, Clone)]
pub(crate) enum StrLit {
    Span(usize, usize),
    Owned(String),
}

impl StrLit {
    pub(crate) fn get<'a>(&'a self, src: &'a str) -> &'a str {
        match self {
            StrLit::Span(b, e) => src.get(*b..*e).unwrap_or(""),
            StrLit::Owned(s) => s,
        }
    }
}

/// A binary or unary operator of a condition, with LiquidJS's precedence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Eq,
    Ne,
    Gt,
    Lt,
    Ge,
    Le,
    Contains,
    Not,
    And,
    Or,
}

impl Op {
    /// Comparisons bind tightest, then `not`, then `and`/`or` (which share a level and group
    /// to the right, as in Shopify Liquid).
    pub(crate) fn precedence(self) -> u8 {
        match self {
            Op::Not => 1,
            Op::And | Op::Or => 0,
            _ => 2,
        }
    }
}

/// A value token (or, in a postfix expression, an operator).
#[derive(Debug, Clone)]
pub(crate) struct Expr {
    pub(crate) kind: ExprKind,
    pub(crate) begin: usize,
    pub(crate) end: usize,
}

impl Expr {
    pub(crate) fn new(kind: ExprKind, begin: usize, end: usize) -> Expr {
        Expr { kind, begin, end }
    }
}

#[derive(Debug, Clone)]
pub(crate) enum ExprKind {
    True,
    False,
    Nil,
    Empty,
    Blank,
    Str(StrLit),
    Num(f64),
    Range(Box<Expr>, Box<Expr>),
    /// A property access; `root` is set when it starts with a literal, string, range or
    /// number (`"abc".size`), otherwise the first prop is the variable name.
    Path {
        root: Option<Box<Expr>>,
        props: OneOrMany<Prop>,
    },
    /// Only in postfix expressions.
    Op(Op),
}

/// One step of a property access.
#[derive(Debug, Clone)]
pub(crate) enum Prop {
    /// `a`, `.b`, or an empty `[]`: the name's byte range in the template.
    Ident(usize, usize),
    /// `["b"]`.
    Quoted(StrLit),
    /// `[0]`.
    Num(f64),
    /// `[b.c]`: a nested variable whose value is the key.
    Path(Box<Expr>),
    /// `[nil]`, `[(1..2)]`: evaluated for the key, invisible to the static analysis.
    Other(Box<Expr>),
}

impl Prop {
    /// A key written out (a name, a quoted key, a number), not an expression to evaluate.
    pub(crate) fn is_static(&self) -> bool {
        matches!(self, Prop::Ident(..) | Prop::Quoted(_) | Prop::Num(_))
    }

    pub(crate) fn from_expr(e: Expr) -> Prop {
        match e.kind {
            ExprKind::Str(s) => Prop::Quoted(s),
            ExprKind::Num(n) => Prop::Num(n),
            ExprKind::Path { .. } => Prop::Path(Box::new(e)),
            _ => Prop::Other(Box::new(e)),
        }
    }
}

/// A filter application.
#[derive(Debug, Clone)]
pub(crate) struct FilterCall {
    pub(crate) filter: Filter,
    pub(crate) args: Vec<FilterArg>,
    pub(crate) begin: usize,
    /// Where the filter's own failure is reported: LiquidJS places an error that is not its
    /// own (an assertion, a JavaScript `TypeError`) at the output or tag being rendered,
    /// which the parser sets with [`FilteredValue::reported_at`]; `begin` until then. Kept
    /// here rather than in the value, so that a syntax-tree node does not grow.
    pub(crate) at: usize,
    /// `where_exp` and kin with a quoted item name and expression: the expression, parsed
    /// once (LiquidJS parses it at each call; a syntax error fails the render there too).
    pub(crate) exp: Option<Box<ExpFilter>>,
}

/// The item name and expression of an `*_exp` filter.
#[derive(Debug, Clone)]
pub(crate) struct ExpFilter {
    pub(crate) item: String,
    /// The decoded expression text, which the parsed value's offsets refer to.
    pub(crate) text: String,
    pub(crate) value: Result<FilteredValue, String>,
}

#[derive(Debug, Clone)]
pub(crate) enum FilterArg {
    Positional(Expr),
    Keyword(String, Option<Expr>),
}

/// An expression (postfix) followed by filters.
#[derive(Debug, Clone)]
pub(crate) struct FilteredValue {
    pub(crate) initial: OneOrMany<Expr>,
    pub(crate) filters: Vec<FilterCall>,
}

impl FilteredValue {
    /// The value, its filters' failures reported at `offset` (the enclosing output or tag;
    /// see [`FilterCall::at`]).
    pub(crate) fn reported_at(mut self, offset: usize) -> FilteredValue {
        for f in &mut self.filters {
            f.at = offset;
        }
        self
    }
}

/// A tag that reads another template; parsed, but a prompt has no template root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PartialTag {
    Include,
    Render,
    Layout,
}

impl PartialTag {
    pub(crate) fn name(self) -> &'static str {
        match self {
            PartialTag::Include => "include",
            PartialTag::Render => "render",
            PartialTag::Layout => "layout",
        }
    }
}

/// The file a partial tag names, as LiquidJS's `parseFilePath` reads it (with
/// `dynamicPartials`, the default).
#[derive(Debug, Clone)]
pub(crate) enum PartialFile {
    /// `none` (a layout without a parent).
    None,
    /// A quoted name without tags: LiquidJS reads that template, also in its analysis.
    Name(String),
    /// A quoted name with tags (`"files/{{ f }}"`), or the empty name `""`: a template of
    /// its own (so its errors are parse errors), rendered for the name; `nodes`' offsets are
    /// in `text`, the name as decoded.
    Template { text: String, nodes: Vec<Node> },
    /// Anything else (`child.html`, `page`, `1`): a value, evaluated for the name.
    Value(Expr),
}

/// An `include`/`render`/`layout` tag: what it evaluates before looking up its file.
#[derive(Debug, Clone)]
pub(crate) struct PartialRef {
    pub(crate) tag: PartialTag,
    pub(crate) offset: usize,
    pub(crate) file: PartialFile,
    /// `key: value` arguments, later keys replacing earlier ones (a JS object).
    pub(crate) hash: Vec<(String, Option<Expr>)>,
    /// `with <value>` (`include`, `render`).
    pub(crate) with: Option<Expr>,
    /// `for <value>` (`render`).
    pub(crate) for_each: Option<Expr>,
    /// `layout`: the rest of the template, its children.
    pub(crate) body: Vec<Node>,
}

/// LiquidJS's message when a partial lookup fails (there is no template root).
pub(crate) fn lookup_message(name: &str) -> String {
    format!(
        "ENOENT: Failed to lookup {} in \".\"",
        serde_json::to_string(name).unwrap_or_default()
    )
}

/// A `cycle` candidate. LiquidJS keeps a candidate as tokens and builds its filters when a
/// render picks it, so an unknown filter fails that render, not the parse.
#[derive(Debug, Clone)]
pub(crate) struct CycleCandidate {
    pub(crate) value: FilteredValue,
    /// The first filter name LiquidJS does not know (its call is a [`Filter::Raw`]).
    pub(crate) undefined_filter: Option<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct Branch {
    pub(crate) cond: FilteredValue,
    pub(crate) body: Vec<Node>,
}

#[derive(Debug, Clone)]
pub(crate) struct LoopHead {
    pub(crate) var: String,
    pub(crate) collection: Expr,
    /// The collection's source text (LiquidJS names the loop after it).
    pub(crate) collection_text: String,
    pub(crate) hash: Vec<(String, Option<Expr>)>,
}

/// A template node.
#[derive(Debug, Clone)]
pub(crate) enum Node {
    Text(usize, usize),
    Output(FilteredValue),
    If {
        unless: bool,
        branches: Vec<Branch>,
        else_body: Vec<Node>,
    },
    // The rarer tags keep their large parts boxed, so that a node (and every body's
    // `Vec<Node>`) stays small: a parse copies less as bodies grow, a render strides less.
    Case {
        value: Box<FilteredValue>,
        whens: Vec<(Vec<Expr>, Vec<Node>)>,
        else_body: Vec<Node>,
    },
    For {
        head: Box<LoopHead>,
        body: Vec<Node>,
        else_body: Vec<Node>,
    },
    Tablerow {
        head: Box<LoopHead>,
        body: Vec<Node>,
    },
    Cycle {
        /// The tag's byte offset, where a render that picks a candidate with an unknown
        /// filter fails.
        begin: usize,
        group: Option<Box<Expr>>,
        candidates: Vec<CycleCandidate>,
        /// Candidates' source text, blanks included, joined by `,` (the cycle's identity).
        key: String,
    },
    Assign {
        name: StrLit,
        value: FilteredValue,
    },
    Capture {
        name: StrLit,
        body: Vec<Node>,
    },
    Increment(StrLit),
    Decrement(StrLit),
    Echo(Option<FilteredValue>),
    Raw(usize, usize),
    Break,
    Continue,
    /// `{% liquid %}`: its lines, parsed as tags.
    Liquid(Vec<Node>),
    Partial(Box<PartialRef>),
    /// `{% block %}`: its body, with `block` (the parent block) in scope.
    Block(Vec<Node>),
}
