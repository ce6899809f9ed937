//! Static analysis: the global variable paths a template reads, as LiquidJS's
//! `globalVariableSegments` reports them.
//!
//! Scoping follows LiquidJS's `analyze`: a tag's arguments are read first, then the names it
//! sets (`assign`, `capture`, `increment`, `decrement`) join the template scope for everything
//! that follows in source order (whatever the branch), then its children are visited; `for`
//! and `tablerow` add their loop variable and `forloop`/`tablerowloop` for their bodies only.

use super::ast::{
    Expr, ExprKind, FilterArg, FilteredValue, LoopHead, Node, PartialFile, PartialRef, PartialTag,
    Prop, lookup_message,
};
use std::fmt;

/// One segment of a variable path.
#[derive(Debug, Clone, PartialEq)]
pub enum Segment {
    /// A property name: `a`, `.b`, `["b"]`.
    Key(String),
    /// A number in brackets: `[0]`.
    Index(f64),
    /// A variable in brackets, `a[b.c]`: the key is that variable's value.
    Variable(Vec<Segment>),
}

impl Segment {
    /// The JSON form LiquidJS's `globalVariableSegments` gives (a nested variable becomes a
    /// nested array).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Segment::Key(k) => serde_json::Value::String(k.clone()),
            Segment::Index(n) => serde_json::Number::from_f64(*n)
                .map(|x| {
                    if n.fract() == 0.0 && n.abs() < 9e15 {
                        serde_json::Value::from(*n as i64)
                    } else {
                        serde_json::Value::Number(x)
                    }
                })
                .unwrap_or(serde_json::Value::Null),
            Segment::Variable(v) => {
                serde_json::Value::Array(v.iter().map(Segment::to_json).collect())
            }
        }
    }
}

/// A variable read: its segments and the byte offset of its token.
#[derive(Debug, Clone, PartialEq)]
pub struct VariableRef {
    segments: Vec<Segment>,
    offset: usize,
}

impl VariableRef {
    /// The path, root first.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Byte offset of the variable's token in the template.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The root name (`None` if the path starts with a number or is empty).
    pub fn root(&self) -> Option<&str> {
        match self.segments.first() {
            Some(Segment::Key(k)) => Some(k),
            _ => None,
        }
    }
}

impl fmt::Display for VariableRef {
    /// LiquidJS's display form: dots where the key is an identifier, brackets otherwise
    /// (`settings["acme.w"].max`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_segments(f, &self.segments)
    }
}

fn is_property(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' || !c.is_ascii() => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || !c.is_ascii())
}

fn write_segments(f: &mut fmt::Formatter<'_>, segs: &[Segment]) -> fmt::Result {
    for (i, s) in segs.iter().enumerate() {
        match s {
            Segment::Key(k) if is_property(k) => {
                if i > 0 {
                    f.write_str(".")?;
                }
                f.write_str(k)?;
            }
            Segment::Key(k) => write!(f, "[{}]", serde_json::to_string(k).unwrap_or_default())?,
            Segment::Index(n) => write!(f, "[{}]", super::value::js_num(*n))?,
            Segment::Variable(v) => {
                f.write_str("[")?;
                write_segments(f, v)?;
                f.write_str("]")?;
            }
        }
    }
    Ok(())
}

/// Why the analysis cannot answer: LiquidJS's analysis reads the partial that `include`,
/// `render` or `layout` names, and a prompt has no template root to read it from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalysisError {
    tag: &'static str,
    offset: usize,
    message: String,
}

impl AnalysisError {
    /// The tag (`include`, `render`, `layout`).
    pub fn tag(&self) -> &'static str {
        self.tag
    }

    /// Byte offset of the tag.
    pub fn offset(&self) -> usize {
        self.offset
    }
}

impl fmt::Display for AnalysisError {
    /// LiquidJS's message: `ENOENT: Failed to lookup "<name>" in "."`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for AnalysisError {}

struct Analyzer<'s> {
    src: &'s str,
    /// Names set by `assign`, `capture`, `increment`, `decrement` so far.
    template_scope: Vec<&'s str>,
    /// Loop scopes of the enclosing `for` / `tablerow` tags.
    blocks: Vec<[&'s str; 2]>,
    globals: Vec<VariableRef>,
    partials: Vec<PartialSite>,
    unsupported: Vec<(usize, String)>,
    /// Whether a `for` reads `continue` in its arguments (`offset: continue`).
    reads_continue: bool,
    /// Whether a render may read a global no reported path names (see [`Analysis::opaque`]).
    opaque: bool,
}

impl<'s> Analyzer<'s> {
    fn in_scope(&self, name: &str) -> bool {
        self.template_scope.contains(&name) || self.blocks.iter().any(|b| b.contains(&name))
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Range(l, r) => {
                self.expr(l);
                self.expr(r);
            }
            ExprKind::Path { .. } => self.path(e, e.begin),
            _ => {}
        }
    }

    /// A property-access expression read at `offset`, then (as LiquidJS orders them) the
    /// variables in its brackets, each a read of its own. The segments are built only for a
    /// global, the one kind of read the analysis reports: a read of a name in scope is only
    /// walked for its brackets.
    fn path(&mut self, e: &Expr, offset: usize) {
        let (root, props) = path_parts(e);
        let local = matches!(first_segment(self.src, props), FirstSegment::Key(name) if self.in_scope(name));
        if !local {
            let segments = path_segments(self.src, props);
            match segments.first() {
                Some(Segment::Key(_)) => self.globals.push(VariableRef { segments, offset }),
                // `[0].y`, `[nil][k]`: the global is named by a value
                Some(_) => self.opaque = true,
                None => {}
            }
        }
        self.brackets(root, props, offset);
    }

    /// The variables in a path's brackets, read at `offset`. A path led by a bracketed
    /// variable is read as that variable's path (LiquidJS flattens it), so the leading one is
    /// not a read of its own, but the variables in its brackets are.
    fn brackets(&mut self, root: Option<&Expr>, props: &[Prop], offset: usize) {
        self.opaque |= hides_a_read(root, props);
        for (i, p) in props.iter().enumerate() {
            match p {
                Prop::Path(inner) if i == 0 => {
                    let (root, props) = path_parts(inner);
                    self.brackets(root, props, offset);
                }
                Prop::Path(inner) => self.path(inner, offset),
                _ => {}
            }
        }
    }

    fn filtered(&mut self, v: &'s FilteredValue) {
        for e in v.initial.as_slice() {
            self.expr(e);
        }
        for f in &v.filters {
            if let Some(why) = unsupported_filter(f) {
                self.unsupported.push((f.begin, why));
            }
            // `where_exp: 'x', 'x.a == b'` reads `b` from a string
            self.opaque |= f.filter.is_exp();
            for a in &f.args {
                match a {
                    FilterArg::Positional(e) | FilterArg::Keyword(_, Some(e)) => self.expr(e),
                    FilterArg::Keyword(_, None) => {}
                }
            }
        }
    }

    fn nodes(&mut self, nodes: &'s [Node]) {
        for n in nodes {
            self.node(n);
        }
    }

    fn node(&mut self, n: &'s Node) {
        match n {
            Node::Text(..) | Node::Raw(..) | Node::Break | Node::Continue | Node::Echo(None) => {}
            Node::Output(v) | Node::Echo(Some(v)) => self.filtered(v),
            Node::If {
                branches,
                else_body,
                ..
            } => {
                for b in branches {
                    self.filtered(&b.cond);
                }
                for b in branches {
                    self.nodes(&b.body);
                }
                self.nodes(else_body);
            }
            Node::Case {
                value,
                whens,
                else_body,
            } => {
                self.filtered(value);
                for (values, _) in whens {
                    for e in values {
                        self.expr(e);
                    }
                }
                for (_, body) in whens {
                    self.nodes(body);
                }
                self.nodes(else_body);
            }
            Node::For {
                head,
                body,
                else_body,
            } => self.for_loop(head, body, else_body),
            Node::Tablerow { head, body } => {
                self.expr(&head.collection);
                for (_, v) in &head.hash {
                    if let Some(e) = v {
                        self.expr(e);
                    }
                }
                self.blocks.push([head.var.as_str(), "tablerowloop"]);
                self.nodes(body);
                self.blocks.pop();
            }
            Node::Cycle {
                group, candidates, ..
            } => {
                for c in candidates {
                    self.filtered(&c.value);
                }
                if let Some(g) = group {
                    self.expr(g);
                }
            }
            Node::Assign { name, value } => {
                self.filtered(value);
                self.template_scope.push(name.get(self.src));
            }
            Node::Capture { name, body } => {
                self.template_scope.push(name.get(self.src));
                self.nodes(body);
            }
            Node::Increment(name) | Node::Decrement(name) => {
                self.template_scope.push(name.get(self.src));
            }
            Node::Liquid(nodes) => self.nodes(nodes),
            Node::Block(body) => {
                // `block.super` is the parent block, a local
                self.blocks.push(["block", "block"]);
                self.nodes(body);
                self.blocks.pop();
            }
            Node::Partial(p) => self.partial(p),
        }
    }

    /// A `for` tag: its collection and parameters, then its body with the loop variable and
    /// `forloop` in scope.
    fn for_loop(&mut self, head: &'s LoopHead, body: &'s [Node], else_body: &'s [Node]) {
        self.expr(&head.collection);
        for (_, v) in &head.hash {
            if let Some(e) = v {
                self.expr(e);
                self.reads_continue |= self
                    .src
                    .get(e.begin..e.end)
                    .is_some_and(|t| t.contains("continue"));
            }
        }
        self.blocks.push([head.var.as_str(), "forloop"]);
        self.nodes(body);
        self.nodes(else_body);
        self.blocks.pop();
    }

    /// An `include`, `render` or `layout` tag.
    fn partial(&mut self, p: &'s PartialRef) {
        // A render never loads a partial (a prompt has no template root): it fails at
        // the tag, after evaluating what is recorded below, or renders a `layout
        // none`'s body. The one value it reads that LiquidJS's analysis leaves out is
        // a `render` tag's file given as a value.
        if matches!(
            (&p.file, p.tag),
            (PartialFile::Value(_), PartialTag::Render)
        ) {
            self.opaque = true;
        }
        // LiquidJS's `arguments()`: hash values, then (include, layout) the file when
        // it is a value, then `with` / `for`; a `render` never yields its file
        for e in p.hash.iter().filter_map(|(_, v)| v.as_ref()) {
            self.expr(e);
        }
        if let (PartialFile::Value(e), PartialTag::Include | PartialTag::Layout) = (&p.file, p.tag)
        {
            self.expr(e);
        }
        for e in p.with.iter().chain(p.for_each.iter()) {
            self.expr(e);
        }
        self.partials.push(PartialSite {
            tag: p.tag,
            offset: p.offset,
            lookup: match &p.file {
                PartialFile::Name(n) => Some(n.clone()),
                _ => None,
            },
        });
        self.nodes(&p.body);
    }
}

/// A path's root value (a literal, string, number or range it starts from) and its
/// properties; none for another expression.
fn path_parts(e: &Expr) -> (Option<&Expr>, &[Prop]) {
    match &e.kind {
        ExprKind::Path { root, props } => (root.as_deref(), props.as_slice()),
        _ => (None, &[]),
    }
}

/// The segments of a path, as LiquidJS's `extractPropertyAccessVariable` builds them from its
/// properties: a root value gives none (`"a".b` reads `b`), nor does a bracketed literal or
/// range (`a[nil].b` reads `a.b`); a bracketed variable leading the path gives its own
/// segments (`[k.m].y` reads `k.m.y`), one further on a nested variable (`a[k.m]`).
fn path_segments(src: &str, props: &[Prop]) -> Vec<Segment> {
    let mut segs = Vec::with_capacity(props.len());
    for (i, p) in props.iter().enumerate() {
        match p {
            Prop::Ident(b, e) => segs.push(Segment::Key(src.get(*b..*e).unwrap_or("").to_string())),
            Prop::Quoted(s) => segs.push(Segment::Key(s.get(src).to_string())),
            Prop::Num(n) => segs.push(Segment::Index(*n)),
            Prop::Path(inner) if i == 0 => segs.extend(path_segments(src, path_parts(inner).1)),
            Prop::Path(inner) => {
                segs.push(Segment::Variable(path_segments(src, path_parts(inner).1)))
            }
            Prop::Other(_) => {}
        }
    }
    segs
}

/// The first of a path's segments, found as [`path_segments`] builds them.
enum FirstSegment<'a> {
    Key(&'a str),
    /// A number or a nested variable.
    Other,
    None,
}

fn first_segment<'a>(src: &'a str, props: &'a [Prop]) -> FirstSegment<'a> {
    for (i, p) in props.iter().enumerate() {
        match p {
            Prop::Ident(b, e) => return FirstSegment::Key(src.get(*b..*e).unwrap_or("")),
            Prop::Quoted(s) => return FirstSegment::Key(s.get(src)),
            // a leading variable's segments, when it has some, lead
            Prop::Path(inner) if i == 0 => match first_segment(src, path_parts(inner).1) {
                FirstSegment::None => {}
                first => return first,
            },
            Prop::Num(_) | Prop::Path(_) => return FirstSegment::Other,
            Prop::Other(_) => {}
        }
    }
    FirstSegment::None
}

/// Whether this level of a path hides from its segments a read the render makes, so that no
/// static list of paths covers the render: a range it starts from (`(1..n).size`), a
/// bracketed literal or range (`a[(1..n)]`), or a bracketed variable leading it (`[k].y`
/// reads the global `k` names, `nil[k]` reads `k` whole).
fn hides_a_read(root: Option<&Expr>, props: &[Prop]) -> bool {
    matches!(root.map(|r| &r.kind), Some(ExprKind::Range(..)))
        || matches!(props.first(), Some(Prop::Path(_)))
        || props.iter().any(|p| matches!(p, Prop::Other(_)))
}

/// Why runstart cannot render filter call `f` as LiquidJS does, if it cannot: the deploy
/// check refuses these, so they never render differently at run time.
fn unsupported_filter(f: &super::ast::FilterCall) -> Option<String> {
    (f.filter.is_exp() && f.exp.is_none()).then(|| {
        format!(
            "the filter {} needs a quoted item name and a quoted expression in runstart",
            f.filter.name()
        )
    })
}

/// A partial tag met by the analysis.
#[derive(Debug, Clone)]
pub(crate) struct PartialSite {
    pub(crate) tag: PartialTag,
    pub(crate) offset: usize,
    /// The template LiquidJS's analysis reads (a quoted name without tags).
    pub(crate) lookup: Option<String>,
}

/// Every global read in source order, and the partial tags met.
pub(crate) struct Analysis {
    pub(crate) reads: Vec<VariableRef>,
    pub(crate) partials: Vec<PartialSite>,
    /// Filter calls runstart cannot render as LiquidJS does: offset and reason.
    pub(crate) unsupported: Vec<(usize, String)>,
    /// Whether a `for` reads `continue` (so loops must record where they stopped).
    pub(crate) reads_continue: bool,
    /// Whether a render may read a global that no reported path names: a computed root
    /// (`[k]`), a key the analysis cannot see (`a[(1..n)]`), an expression filter, a partial.
    pub(crate) opaque: bool,
}

/// Whether the template binds `name` anywhere: an `assign`, `capture`, `increment` or
/// `decrement` of it, a loop variable of that name, or `forloop`, `tablerowloop`, `block`
/// where those exist. The analysis scopes such names as LiquidJS's does, which a render need
/// not follow (an `assign` in a branch not taken, a loop's `else`), so a read the analysis
/// takes as local may read the global; [`super::CompiledTemplate::read_paths`] reads these
/// roots whole. Walked on demand: parsing does not pay for it.
pub(crate) fn binds(src: &str, nodes: &[Node], name: &str) -> bool {
    nodes.iter().any(|n| match n {
        Node::Assign { name: bound, .. } | Node::Increment(bound) | Node::Decrement(bound) => {
            bound.get(src) == name
        }
        Node::Capture { name: bound, body } => bound.get(src) == name || binds(src, body, name),
        Node::For {
            head,
            body,
            else_body,
        } => {
            head.var == name
                || name == "forloop"
                || binds(src, body, name)
                || binds(src, else_body, name)
        }
        Node::Tablerow { head, body } => {
            head.var == name || name == "tablerowloop" || binds(src, body, name)
        }
        Node::If {
            branches,
            else_body,
            ..
        } => branches.iter().any(|b| binds(src, &b.body, name)) || binds(src, else_body, name),
        Node::Case {
            whens, else_body, ..
        } => whens.iter().any(|(_, body)| binds(src, body, name)) || binds(src, else_body, name),
        Node::Liquid(body) => binds(src, body, name),
        Node::Block(body) => name == "block" || binds(src, body, name),
        Node::Partial(p) => binds(src, &p.body, name),
        _ => false,
    })
}

pub(crate) fn analyze<'s>(src: &'s str, nodes: &'s [Node]) -> Analysis {
    let mut a = Analyzer {
        src,
        template_scope: Vec::new(),
        blocks: Vec::new(),
        globals: Vec::with_capacity(8),
        partials: Vec::new(),
        unsupported: Vec::new(),
        reads_continue: false,
        opaque: false,
    };
    a.nodes(nodes);
    Analysis {
        reads: a.globals,
        partials: a.partials,
        unsupported: a.unsupported,
        reads_continue: a.reads_continue,
        opaque: a.opaque,
    }
}

/// Global reads in LiquidJS's order: grouped by root, then in source order; exact duplicates
/// removed. LiquidJS groups them in a JavaScript object keyed by root, so the roots come in
/// that object's key order: array indices (`"0"`, `"2"`) first, ascending, then the other
/// names in order of first appearance.
pub(crate) fn group_globals(reads: &[VariableRef]) -> Vec<&VariableRef> {
    // Each read with its root's rank, sorted by it (stable, so source order within a root);
    // a duplicate can only sit in its own root's run.
    let mut roots: Vec<&str> = Vec::new();
    let mut ranked: Vec<(usize, &VariableRef)> = reads
        .iter()
        .filter_map(|g| {
            let root = g.root()?;
            let seen = roots.iter().position(|&r| r == root).unwrap_or_else(|| {
                roots.push(root);
                roots.len() - 1
            });
            Some((seen, g))
        })
        .collect();
    // Array-index roots are rare: only with one are the roots reordered.
    if roots.iter().any(|r| crate::js::array_index(r).is_some()) {
        let mut order: Vec<usize> = (0..roots.len()).collect();
        order.sort_by_key(|&seen| match crate::js::array_index(roots[seen]) {
            Some(index) => (false, index, 0),
            None => (true, 0, seen),
        });
        let mut rank = vec![0; roots.len()];
        for (r, &seen) in order.iter().enumerate() {
            rank[seen] = r;
        }
        for read in &mut ranked {
            read.0 = rank[read.0];
        }
    }
    ranked.sort_by_key(|&(rank, _)| rank);
    let mut globals: Vec<&VariableRef> = Vec::with_capacity(ranked.len());
    let mut run_start = 0;
    let mut run_rank = 0;
    for (rank, g) in ranked {
        if rank != run_rank {
            run_rank = rank;
            run_start = globals.len();
        }
        if !globals[run_start..]
            .iter()
            .any(|x| x.segments == g.segments)
        {
            globals.push(g);
        }
    }
    globals
}

/// The first partial LiquidJS's analysis would fail to read.
pub(crate) fn partial_error(p: &[PartialSite]) -> Option<AnalysisError> {
    p.iter().find_map(|p| {
        p.lookup.as_ref().map(|name| AnalysisError {
            tag: p.tag.name(),
            offset: p.offset,
            message: lookup_message(name),
        })
    })
}
