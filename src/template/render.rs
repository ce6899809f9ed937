//! The strict renderer: LiquidJS semantics with `strictVariables` and `strictFilters`.
//!
//! It walks the tree recursively; the parser caps nesting at [`super::MAX_DEPTH`], so the
//! recursion is bounded.

use super::ast::{
    CycleCandidate, Expr, ExprKind, FilterArg, FilterCall, FilteredValue, LoopHead, Node, Op,
    PartialFile, PartialRef, PartialTag, Prop, lookup_message,
};
use super::error::{RenderError, RenderErrorKind, UNDEFINED_PREFIX};
use super::filters::{self, Filter, FilterError};
use super::lexer::undefined_filter_message;
use super::limits::MAX_RENDER_SIZE;
use super::parameter::PromptParameter;
use super::value::{
    LoopInfo, TableCols, Val, js_equals, js_less, js_less_eq, js_num, js_plus, js_slice_index,
    js_string, key_text, to_enumerable, to_number, write_val,
};
use serde_json::{Map, Value};
use smallvec::{SmallVec, smallvec};
use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::BuildHasherDefault;
use std::rc::Rc;

/// The maps of one render, keyed by the template's own text (cycle groups, loop positions),
/// never by outside data: fixed hash keys spare every render the seeding of a random one.
type RenderMap<K, V> = HashMap<K, V, BuildHasherDefault<DefaultHasher>>;

type RResult<T> = Result<T, RenderError>;

/// One scope's variables, in the order set. A render sets a handful (a loop's drop and item,
/// a few `assign`s), so they are kept inline and a scope costs no allocation.
type Scope<'a> = SmallVec<[(&'a str, Val<'a>); 4]>;

/// `block` inside `{% block %}` when no layout stores blocks: its `super` renders nothing.
static BLOCK_DROP: std::sync::LazyLock<Value> =
    std::sync::LazyLock::new(|| serde_json::json!({"super": ""}));

/// The empty object LiquidJS's `continue` is before its loop has run.
static EMPTY_OBJECT: std::sync::LazyLock<Value> =
    std::sync::LazyLock::new(|| serde_json::json!({}));

/// Largest range `(a..b)` a template may build; LiquidJS has no cap but would exhaust memory.
const MAX_RANGE: f64 = 1_000_000.0;

/// How many cycle groups a render keeps in a list before it keys the rest by fingerprint.
const LISTED_CYCLES: usize = 16;

/// Most steps one render may take: each loop iteration, and each filter or operator call plus
/// the size of its input (array items, string bytes / 64). Nested loops over large ranges
/// would otherwise run for hours; real prompts take a few thousand steps.
const MAX_RENDER_STEPS: u64 = 1_000_000;

/// The render context's global scope, borrowed: named values first (a prompt's
/// auto-variables), then a JSON object (supplied parameters), then parameter defaults. Looking
/// up through layers spares a run from copying every value into one context object.
#[derive(Clone, Copy, Default)]
pub(crate) struct Globals<'a> {
    pub named: &'a [(&'a str, Val<'a>)],
    pub object: Option<&'a Map<String, Value>>,
    pub defaults: &'a [PromptParameter],
}

impl<'a> Globals<'a> {
    fn get(&self, name: &str) -> Val<'a> {
        if let Some((_, v)) = self.named.iter().find(|(k, _)| *k == name) {
            return v.clone();
        }
        if let Some(v) = self.object.and_then(|m| crate::js::property(m, name)) {
            return Val::from_json(v);
        }
        // Defaults enter the context in declaration order, so of two parameters with the same
        // name the later default wins.
        self.defaults
            .iter()
            .rev()
            .filter(|p| p.name() == name)
            .find_map(PromptParameter::default_value)
            .map_or(Val::Undef, Val::from_json)
    }
}

pub(crate) struct Renderer<'a> {
    src: &'a str,
    globals: Globals<'a>,
    /// The counters `increment` and `decrement` keep (LiquidJS's environments), which shadow
    /// the globals of the same name: numbers only, and none in most renders.
    env_over: Vec<(&'a str, f64)>,
    /// The template's own variables (`assign`, `capture`), below every loop scope; kept
    /// apart so that a render that assigns nothing allocates no scope.
    bottom: Scope<'a>,
    /// Loop and block scopes, innermost last.
    scopes: SmallVec<[Scope<'a>; 3]>,
    brk: bool,
    cont: bool,
    /// The first [`LISTED_CYCLES`] cycle groups' fingerprints and next positions. A render
    /// has a few groups at most, so a short list searched without building the fingerprint
    /// beats a map keyed by it.
    cycles: Vec<(String, usize)>,
    /// The groups past those, by fingerprint, so that a template with thousands of distinct
    /// `cycle` tags stays linear.
    more_cycles: RenderMap<String, usize>,
    /// Where each `for` (by variable and collection text) stopped, for `offset: continue`.
    continues: RenderMap<(&'a str, &'a str), f64>,
    /// Whether loops record where they stopped: only a template whose loops read
    /// `continue` can use it, so others skip the bookkeeping.
    track_continue: bool,
    /// Steps taken so far, against [`MAX_RENDER_STEPS`].
    steps: u64,
}

impl<'a> Renderer<'a> {
    pub(crate) fn new(src: &'a str, globals: Globals<'a>, track_continue: bool) -> Renderer<'a> {
        Renderer {
            src,
            globals,
            env_over: Vec::new(),
            bottom: Scope::new(),
            scopes: SmallVec::new(),
            brk: false,
            cont: false,
            cycles: Vec::new(),
            more_cycles: RenderMap::default(),
            continues: RenderMap::default(),
            track_continue,
            steps: 0,
        }
    }

    /// Counts `n` steps of work at `offset`; an error once the render is over budget.
    fn step(&mut self, n: usize, offset: usize) -> RResult<()> {
        self.steps = self
            .steps
            .saturating_add(u64::try_from(n).unwrap_or(u64::MAX));
        if self.steps > MAX_RENDER_STEPS {
            return Err(RenderError::new(
                RenderErrorKind::Other,
                format!("the template takes more than {MAX_RENDER_STEPS} steps to render"),
                offset,
            ));
        }
        Ok(())
    }

    pub(crate) fn render(&mut self, nodes: &'a [Node], out: &mut String) -> RResult<()> {
        for node in nodes {
            self.node(node, out)?;
            if out.len() > MAX_RENDER_SIZE {
                return Err(RenderError::new(
                    RenderErrorKind::Other,
                    format!("the output is longer than {MAX_RENDER_SIZE} bytes"),
                    0,
                ));
            }
            if self.brk || self.cont {
                break;
            }
        }
        Ok(())
    }

    fn set_bottom(&mut self, name: &'a str, v: Val<'a>) {
        match self.bottom.iter_mut().find(|(k, _)| *k == name) {
            Some(slot) => slot.1 = v,
            None => self.bottom.push((name, v)),
        }
    }

    fn env_number(&self, name: &str) -> f64 {
        match self.env_over.iter().find(|(k, _)| *k == name) {
            Some(&(_, n)) => n,
            None => match self.globals.get(name) {
                Val::Num(n) => n,
                _ => 0.0,
            },
        }
    }

    fn set_env(&mut self, name: &'a str, v: f64) {
        match self.env_over.iter_mut().find(|(k, _)| *k == name) {
            Some(slot) => slot.1 = v,
            None => self.env_over.push((name, v)),
        }
    }

    fn node(&mut self, node: &'a Node, out: &mut String) -> RResult<()> {
        match node {
            Node::Text(b, e) | Node::Raw(b, e) => out.push_str(self.src.get(*b..*e).unwrap_or("")),
            Node::Output(v) | Node::Echo(Some(v)) => {
                let v = self.filtered(v)?;
                write_val(out, &v);
            }
            Node::Echo(None) => {}
            Node::If {
                unless,
                branches,
                else_body,
            } => {
                for (i, b) in branches.iter().enumerate() {
                    let v = self.filtered(&b.cond)?;
                    let hit = if *unless && i == 0 {
                        !v.truthy()
                    } else {
                        v.truthy()
                    };
                    if hit {
                        return self.render(&b.body, out);
                    }
                }
                self.render(else_body, out)?;
            }
            Node::Case {
                value,
                whens,
                else_body,
            } => self.case(value, whens, else_body, out)?,
            Node::For {
                head,
                body,
                else_body,
            } => self.for_loop(head, body, else_body, out)?,
            Node::Tablerow { head, body } => self.tablerow(head, body, out)?,
            Node::Cycle {
                begin,
                group,
                candidates,
                key,
            } => self.cycle(*begin, group.as_deref(), candidates, key, out)?,
            Node::Assign { name, value } => {
                let v = self.filtered(value)?;
                self.set_bottom(name.get(self.src), v);
            }
            Node::Capture { name, body } => {
                let mut buf = String::new();
                self.render(body, &mut buf)?;
                self.set_bottom(name.get(self.src), Val::string(buf));
            }
            Node::Increment(name) => {
                let name = name.get(self.src);
                let v = self.env_number(name);
                self.set_env(name, v + 1.0);
                let _ = crate::js::write_js_number(out, v);
            }
            Node::Decrement(name) => {
                let name = name.get(self.src);
                let v = self.env_number(name) - 1.0;
                self.set_env(name, v);
                let _ = crate::js::write_js_number(out, v);
            }
            Node::Break => self.brk = true,
            Node::Continue => self.cont = true,
            Node::Liquid(nodes) => self.render(nodes, out)?,
            Node::Block(body) => {
                // outside a layout, `block.super` is an empty parent block
                self.scopes
                    .push(smallvec![("block", Val::Json(&BLOCK_DROP))]);
                let r = self.render(body, out);
                self.scopes.pop();
                r?;
            }
            Node::Partial(p) => self.partial(p, out)?,
        }
        Ok(())
    }

    /// A `case` tag: each `when` with a value equal to the target (JavaScript `==`, an empty
    /// or blank target reading as `""`) renders its body, as LiquidJS renders every matching
    /// branch; when none matches, the `else`.
    fn case(
        &mut self,
        value: &'a FilteredValue,
        whens: &'a [(Vec<Expr>, Vec<Node>)],
        else_body: &'a [Node],
        out: &mut String,
    ) -> RResult<()> {
        let target = match self.filtered(value)? {
            Val::Empty | Val::Blank => Val::S(""),
            v => v,
        };
        let mut hit = false;
        for (values, body) in whens {
            for e in values {
                let v = self.expr(e)?;
                if js_equals(&target, &v) {
                    self.render(body, out)?;
                    hit = true;
                    break;
                }
            }
        }
        if !hit {
            self.render(else_body, out)?;
        }
        Ok(())
    }

    /// A `cycle` tag: the next candidate of its group, written when truthy.
    fn cycle(
        &mut self,
        begin: usize,
        group: Option<&'a Expr>,
        candidates: &'a [CycleCandidate],
        key: &str,
        out: &mut String,
    ) -> RResult<()> {
        let group = match group {
            Some(e) => Cow::Owned(js_string(&self.expr(e)?)),
            None => Cow::Borrowed("undefined"),
        };
        // LiquidJS's fingerprint, text and all: two groups whose texts join to the same
        // fingerprint share a position there too.
        let position = self.cycle_position(["cycle:", &group, ":", key]);
        let idx = *position;
        *position = (idx + 1) % candidates.len().max(1);
        if let Some(c) = candidates.get(idx) {
            if let Some(name) = &c.undefined_filter {
                return Err(RenderError::new(
                    RenderErrorKind::Other,
                    undefined_filter_message(name),
                    begin,
                ));
            }
            let v = self.filtered(&c.value)?;
            // a tag's return value is written only when truthy in JS
            // (`html && emitter.write(html)`), so `{% cycle 'a', false %}` writes nothing
            if v.truthy_js() {
                write_val(out, &v);
            }
        }
        Ok(())
    }

    /// The next position of the cycle group whose fingerprint is `parts` joined (0 for a
    /// group not seen before).
    fn cycle_position(&mut self, parts: [&str; 4]) -> &mut usize {
        match self.cycles.iter().position(|(f, _)| is_joined(f, &parts)) {
            Some(at) => &mut self.cycles[at].1,
            None if self.cycles.len() < LISTED_CYCLES => {
                self.cycles.push((parts.concat(), 0));
                let last = self.cycles.len() - 1;
                &mut self.cycles[last].1
            }
            None => self.more_cycles.entry(parts.concat()).or_insert(0),
        }
    }

    /// A partial tag: everything LiquidJS evaluates before it looks the file up (the name,
    /// then for `include` and `render` the hash, `with` and `for`), then the lookup, which
    /// fails (a prompt has no template root). `{% layout none %}` renders its children.
    fn partial(&mut self, p: &'a PartialRef, out: &mut String) -> RResult<()> {
        let other = |m: String| RenderError::new(RenderErrorKind::Other, m, p.offset);
        // The name, or `None` for a value LiquidJS's lookup cannot read as a path: it then
        // fails with `referencedFile.startsWith is not a function`, after the arguments.
        let name: Option<String> = match &p.file {
            PartialFile::None if p.tag == PartialTag::Layout => return self.render(&p.body, out),
            PartialFile::None => return Err(other("illegal file path \"undefined\"".into())),
            PartialFile::Name(n) => Some(n.clone()),
            PartialFile::Value(e) => {
                let v = self.expr(e)?;
                if !v.truthy_js() {
                    return Err(other(format!("illegal file path \"{}\"", js_string(&v))));
                }
                match v {
                    Val::S(_) | Val::Str(_) => Some(js_string(&v)),
                    _ => None,
                }
            }
            // LiquidJS renders the name's templates in the same context; a failure there
            // does not propagate but becomes the "name" (an error object), so the lookup
            // fails on it as on any value that is not a string.
            PartialFile::Template { text, nodes } => self.render_name(text, nodes),
        };
        if name.as_deref() == Some("") {
            return Err(other("illegal file path \"\"".into()));
        }
        if p.tag != PartialTag::Layout {
            for e in p.hash.iter().filter_map(|(_, v)| v.as_ref()) {
                self.expr(e)?;
            }
            if let Some(e) = &p.with {
                self.expr(e)?;
            }
            if let Some(e) = &p.for_each {
                // a partial rendered for each item of nothing is never looked up
                if to_enumerable(&self.expr(e)?).is_empty() {
                    return Ok(());
                }
            }
        }
        match name {
            None => Err(other("referencedFile.startsWith is not a function".into())),
            Some(name) => Err(RenderError::new(
                RenderErrorKind::NoTemplateRoot,
                lookup_message(&name),
                p.offset,
            )),
        }
    }

    /// Renders a templated partial name (`"files/{{ f }}"`), whose nodes' offsets are in
    /// `text`: the name, or `None` when rendering it failed.
    fn render_name(&mut self, text: &'a str, nodes: &'a [Node]) -> Option<String> {
        let outer = std::mem::replace(&mut self.src, text);
        let mut name = String::new();
        let rendered = self.render(nodes, &mut name);
        self.src = outer;
        rendered.ok().map(|()| name)
    }

    fn hash(&mut self, head: &'a LoopHead) -> RResult<Vec<(&'a str, Val<'a>)>> {
        let mut out = Vec::with_capacity(head.hash.len());
        for (k, v) in &head.hash {
            let val = match v {
                Some(e) => self.expr(e)?,
                None => Val::Bool(true),
            };
            match out
                .iter_mut()
                .find(|(name, _): &&mut (&str, Val<'a>)| *name == k)
            {
                Some(slot) => slot.1 = val,
                None => out.push((k.as_str(), val)),
            }
        }
        Ok(out)
    }

    fn for_loop(
        &mut self,
        head: &'a LoopHead,
        body: &'a [Node],
        else_body: &'a [Node],
        out: &mut String,
    ) -> RResult<()> {
        let coll = self.expr(&head.collection)?;
        let mut items = to_enumerable(&coll);
        if items.is_empty() {
            return self.render(else_body, out);
        }
        // `continue` names where the same loop (same variable and collection text) stopped
        // last time, an empty object before
        let key = (head.var.as_str(), head.collection_text.as_str());
        let hash = if head.hash.is_empty() {
            Vec::new()
        } else {
            let cont = match self.continues.get(&key) {
                Some(n) => Val::Num(*n),
                None => Val::Json(&EMPTY_OBJECT),
            };
            self.scopes.push(smallvec![("continue", cont)]);
            let hash = self.hash(head);
            self.scopes.pop();
            hash?
        };
        let get = |k: &str| hash.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone());
        let start = match get("offset") {
            None | Some(Val::Undef) => 0.0,
            Some(v) => to_number(&v),
        };
        if let Some(off) = get("offset").filter(|v| !matches!(v, Val::Undef)) {
            let start = js_slice_index(to_number(&off), items.len());
            items.drain(..start);
        }
        if let Some(lim) = get("limit").filter(|v| !matches!(v, Val::Undef)) {
            let end = js_slice_index(to_number(&lim), items.len());
            items.truncate(end);
        }
        if get("reversed").is_some_and(|v| !matches!(v, Val::Undef)) {
            items.reverse();
        }
        if self.track_continue {
            self.continues.insert(key, start + items.len() as f64);
        }
        let length = u32::try_from(items.len()).unwrap_or(u32::MAX);
        let drop = Rc::new(LoopInfo::new(head, length, None));
        self.scopes.push(Scope::new());
        let mut result = Ok(());
        for item in items {
            result = self.enter_iteration(head, "forloop", &drop, item);
            if result.is_err() {
                break;
            }
            self.brk = false;
            self.cont = false;
            result = self.render(body, out);
            if result.is_err() || self.brk {
                break;
            }
            drop.next();
        }
        self.brk = false;
        self.cont = false;
        self.scopes.pop();
        result
    }

    fn tablerow(&mut self, head: &'a LoopHead, body: &'a [Node], out: &mut String) -> RResult<()> {
        let coll = self.expr(&head.collection)?;
        let mut items = to_enumerable(&coll);
        let hash = self.hash(head)?;
        let get = |k: &str| hash.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone());
        // `collection.slice(offset, offset + limit)` on the arguments as JavaScript values
        // (`args.offset || 0`; a text offset or limit concatenates: `'1' + 2` is `'12'`)
        let offset = get("offset")
            .filter(Val::truthy_js)
            .unwrap_or(Val::Num(0.0));
        let limit = get("limit")
            .filter(|v| !matches!(v, Val::Undef))
            .unwrap_or(Val::Num(items.len() as f64));
        let start = js_slice_index(to_number(&offset), items.len());
        let end = js_slice_index(to_number(&js_plus(&offset, &limit)), items.len());
        items = if start < end {
            items.drain(start..end).collect()
        } else {
            Vec::new()
        };
        // `args.cols || collection.length`, kept as a JavaScript value (see `TableCols`)
        let cols = get("cols")
            .filter(Val::truthy_js)
            .unwrap_or(Val::Num(items.len() as f64));
        let length = u32::try_from(items.len()).unwrap_or(u32::MAX);
        let table = TableCols::new(cols);
        let drop = Rc::new(LoopInfo::new(head, length, Some(table.clone())));
        self.scopes.push(Scope::new());
        let mut result = Ok(());
        for (i, item) in items.into_iter().enumerate() {
            result = self.enter_iteration(head, "tablerowloop", &drop, item);
            if result.is_err() {
                break;
            }
            let at = i as f64;
            if table.col0(at) == 0.0 {
                let row = table.row(at);
                if row != 1.0 {
                    out.push_str("</tr>");
                }
                out.push_str("<tr class=\"row");
                let _ = crate::js::write_js_number(out, row);
                out.push_str("\">");
            }
            out.push_str("<td class=\"col");
            let _ = crate::js::write_js_number(out, table.col(at));
            out.push_str("\">");
            result = self.render(body, out);
            if result.is_err() {
                break;
            }
            out.push_str("</td>");
            drop.next();
        }
        if result.is_ok() && length > 0 {
            out.push_str("</tr>");
        }
        self.scopes.pop();
        result
    }

    /// Starts a pass of a loop: counts the step, then makes the loop's drop (named `name`:
    /// `forloop` or `tablerowloop`) and the item the innermost scope.
    fn enter_iteration(
        &mut self,
        head: &'a LoopHead,
        name: &'static str,
        drop: &Rc<LoopInfo<'a>>,
        item: Val<'a>,
    ) -> RResult<()> {
        self.step(1, head.collection.begin)?;
        if let Some(scope) = self.scopes.last_mut() {
            scope.clear();
            scope.push((name, Val::Loop(Rc::clone(drop))));
            scope.push((head.var.as_str(), item));
        }
        Ok(())
    }

    fn filtered(&mut self, fv: &'a FilteredValue) -> RResult<Val<'a>> {
        let mut v = self.postfix(fv.initial.as_slice())?;
        for f in &fv.filters {
            // Filters take a few arguments: kept inline, they cost no allocation. A keyword
            // argument is the pair `[key, value]` in its place, as LiquidJS passes it.
            let mut args: SmallVec<[Val<'a>; 3]> = SmallVec::new();
            for a in &f.args {
                match a {
                    FilterArg::Positional(e) => args.push(self.expr(e)?),
                    FilterArg::Keyword(k, e) => {
                        let val = match e {
                            Some(e) => self.expr(e)?,
                            None => Val::Undef,
                        };
                        args.push(Val::Arr(Rc::new(vec![Val::S(k.as_str()), val])));
                    }
                }
            }
            let name = f.filter;
            self.step(1 + work_size(&v), f.begin)?;
            if name.is_exp() {
                v = self.exp_filter(f, name, &v)?;
                continue;
            }
            v = filters::apply(name, v, &args).map_err(|e| match e {
                FilterError::Message(m) => RenderError::new(RenderErrorKind::Other, m, f.at),
                // LiquidJS reads `where`'s property with a tokenizer of its own, so the
                // position it reports is line 1, column 1 of the property text
                FilterError::Undefined(p) => RenderError::undefined(&p, f.begin).at_line_col(1, 1),
            })?;
            // Arrays share their items (`a | push: a` doubles the tree each time), so an
            // array's real size is its deep size, walked up to the cap and paid for in steps.
            let deep = deep_size(&v, MAX_RENDER_SIZE);
            self.step(deep / 64, f.begin)?;
            if render_size(&v) > MAX_RENDER_SIZE || deep > MAX_RENDER_SIZE {
                return Err(RenderError::new(
                    RenderErrorKind::Other,
                    format!(
                        "filter {} builds a value larger than {MAX_RENDER_SIZE}",
                        name.name()
                    ),
                    f.begin,
                ));
            }
        }
        Ok(v)
    }

    /// `where_exp`, `reject_exp`, `find_exp`, `find_index_exp`, `has_exp`: the expression is
    /// evaluated with the item in scope under its name. `where_exp` keeps items whose value
    /// is exactly `true`, `reject_exp` those whose value is exactly `false`; the searches
    /// stop at the first JavaScript-truthy value.
    fn exp_filter(&mut self, f: &'a FilterCall, name: Filter, input: &Val<'a>) -> RResult<Val<'a>> {
        let other = |m: String| RenderError::new(RenderErrorKind::Other, m, f.begin);
        let Some(x) = f.exp.as_deref() else {
            return Err(other(format!(
                "filter {} takes a quoted item name and a quoted expression in runstart",
                name.name()
            )));
        };
        let fv = x.value.as_ref().map_err(|m| other(m.clone()))?;
        // `group_by_exp` enumerates (an object gives its entries), the others take arrays
        let items = if name == Filter::GroupByExp {
            to_enumerable(input)
        } else {
            filters::to_array(input)
        };
        let mut groups = filters::Groups::default();
        self.step(items.len(), f.begin)?;
        let mut kept = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            self.scopes.push(smallvec![(x.item.as_str(), item.clone())]);
            let saved = std::mem::replace(&mut self.src, x.text.as_str());
            let r = self.filtered(fv);
            self.src = saved;
            self.scopes.pop();
            // the expression's own positions are in its text: report the filter's
            let v = r.map_err(|e| match e.undefined_path() {
                Some(p) => RenderError::undefined(p, f.begin).at_line_col(1, 1),
                None => other(e.message().to_string()),
            })?;
            match name {
                Filter::WhereExp if matches!(v, Val::Bool(true)) => kept.push(item),
                Filter::RejectExp if matches!(v, Val::Bool(false)) => kept.push(item),
                Filter::FindExp if v.truthy_js() => return Ok(item),
                Filter::FindIndexExp if v.truthy_js() => return Ok(Val::Num(i as f64)),
                Filter::HasExp if v.truthy_js() => return Ok(Val::Bool(true)),
                Filter::GroupByExp => groups.add(v, item),
                _ => {}
            }
        }
        Ok(match name {
            Filter::HasExp => Val::Bool(false),
            Filter::GroupByExp => groups.into_value(),
            Filter::FindExp | Filter::FindIndexExp => Val::Undef,
            _ => Val::Arr(Rc::new(kept)),
        })
    }

    fn postfix(&mut self, list: &'a [Expr]) -> RResult<Val<'a>> {
        if let [single] = list {
            return self.expr(single);
        }
        // each operand remembers whether it is LiquidJS's NullDrop (the literal `nil`, or a
        // variable it was assigned to), which is never greater or less than anything
        // (kept inline: a condition rarely holds more than a few operands at once)
        let mut stack: SmallVec<[(Val<'a>, bool); 6]> = SmallVec::new();
        for e in list {
            if let ExprKind::Op(op) = e.kind {
                let (r, rn) = stack.pop().unwrap_or((Val::Undef, false));
                let res = if op == Op::Not {
                    Val::Bool(!r.truthy())
                } else {
                    let (l, ln) = stack.pop().unwrap_or((Val::Undef, false));
                    // `contains` scans its left side
                    self.step(1 + work_size(&l), e.begin)?;
                    let ordering = matches!(op, Op::Gt | Op::Lt | Op::Ge | Op::Le);
                    // a literal `nil` on the left (a NullDrop, compared through its own
                    // `equals`) never equals `blank`/`empty`; `blank == nil` holds
                    let nil_vs_drop = ln && matches!(r, Val::Empty | Val::Blank);
                    Val::Bool(match op {
                        Op::Eq if nil_vs_drop => false,
                        Op::Ne if nil_vs_drop => true,
                        _ => !(ordering && (ln || rn)) && apply_op(op, &l, &r),
                    })
                };
                stack.push((res, false));
            } else {
                // a NullDrop whether written here or held by a variable (`assign y = nil`)
                let v = self.expr(e)?;
                let is_drop = matches!(v, Val::NilDrop);
                stack.push((v, is_drop));
            }
        }
        Ok(stack.into_iter().next().map_or(Val::Undef, |(v, _)| v))
    }

    pub(crate) fn expr(&mut self, e: &'a Expr) -> RResult<Val<'a>> {
        Ok(match &e.kind {
            ExprKind::True => Val::Bool(true),
            ExprKind::False => Val::Bool(false),
            ExprKind::Nil => Val::NilDrop,
            ExprKind::Empty => Val::Empty,
            ExprKind::Blank => Val::Blank,
            ExprKind::Str(s) => Val::S(s.get(self.src)),
            ExprKind::Num(n) => Val::Num(*n),
            ExprKind::Range(l, r) => {
                let lo = to_number(&self.expr(l)?);
                let hi = to_number(&self.expr(r)?);
                let mut items = Vec::new();
                // LiquidJS counts from `lo` while below `hi + 1` (nothing for NaN); an
                // infinite end never stops it (it runs out of memory), here it is too large.
                if lo < hi + 1.0 {
                    if hi + 1.0 - lo > MAX_RANGE {
                        return Err(RenderError::new(
                            RenderErrorKind::Other,
                            format!("range ({}..{}) is too large", js_num(lo), js_num(hi)),
                            e.begin,
                        ));
                    }
                    let mut x = lo;
                    while x < hi + 1.0 {
                        items.push(Val::Num(x));
                        x += 1.0;
                    }
                }
                Val::Arr(Rc::new(items))
            }
            ExprKind::Path { root, props } => {
                self.path(root.as_deref(), props.as_slice(), e.begin)?
            }
            ExprKind::Op(_) => Val::Undef,
        })
    }

    fn lookup_root(&self, name: &str) -> Val<'a> {
        // innermost scope first, then the template's own variables
        for scope in self.scopes.iter().rev() {
            if let Some((_, v)) = scope.iter().find(|(k, _)| *k == name) {
                return v.clone();
            }
        }
        if let Some((_, v)) = self.bottom.iter().find(|(k, _)| *k == name) {
            return v.clone();
        }
        if let Some(&(_, n)) = self.env_over.iter().find(|(k, _)| *k == name) {
            return Val::Num(n);
        }
        match self.globals.get(name) {
            // LiquidJS reads a name no scope holds from its empty engine globals, and `size`
            // of an empty object is 0 (`first` and `last` of one are undefined)
            Val::Undef if name == "size" => Val::Num(0.0),
            v => v,
        }
    }

    fn path(&mut self, root: Option<&'a Expr>, props: &'a [Prop], pos: usize) -> RResult<Val<'a>> {
        if root.is_none() && props.iter().all(Prop::is_static) {
            return self.static_path(props, pos);
        }
        self.general_path(root, props, pos)
    }

    /// A path of names, quoted keys and numbers (`customer.name`, `orders[0]["id"]`), most
    /// of what a template reads: looked up with no key evaluated and nothing built.
    fn static_path(&self, props: &'a [Prop], pos: usize) -> RResult<Val<'a>> {
        let src = self.src;
        let Some((first, rest)) = props.split_first() else {
            return Ok(Val::Undef);
        };
        let undefined = |upto: usize| {
            undefined_path(props.iter().take(upto + 1).map(|p| static_key(p, src)), pos)
        };
        let mut cur = match static_key(first, src) {
            Val::S(s) => self.lookup_root(s),
            k => self.lookup_root(&js_string(&k)),
        };
        if matches!(cur, Val::Undef) {
            return Err(undefined(0));
        }
        for (i, p) in rest.iter().enumerate() {
            cur = cur.read_property(&static_key(p, src));
            if matches!(cur, Val::Undef) {
                return Err(undefined(i + 1));
            }
        }
        Ok(cur)
    }

    /// Any path: a root expression (`(1..3).first`, `"text".size`) or bracketed expressions
    /// evaluated first, and the undefined-variable error where the path does not resolve.
    fn general_path(
        &mut self,
        root: Option<&'a Expr>,
        props: &'a [Prop],
        pos: usize,
    ) -> RResult<Val<'a>> {
        // LiquidJS evaluates every bracketed key before walking the path, so an undefined
        // variable inside a later bracket wins over an earlier missing segment.
        let src = self.src;
        let mut keys: SmallVec<[Val<'a>; 4]> = SmallVec::with_capacity(props.len());
        for p in props {
            keys.push(match p {
                Prop::Path(e) | Prop::Other(e) => self.expr(e)?,
                p => static_key(p, src),
            });
        }
        let (mut cur, start) = match root {
            Some(r) => (self.expr(r)?, 0),
            None => {
                let Some(first) = keys.first() else {
                    return Ok(Val::Undef);
                };
                let v = match first {
                    Val::S(s) => self.lookup_root(s),
                    k => self.lookup_root(&js_string(k)),
                };
                if matches!(v, Val::Undef) {
                    return Err(undefined_path(keys.iter().take(1).cloned(), pos));
                }
                (v, 1)
            }
        };
        for (i, k) in keys.iter().enumerate().skip(start) {
            cur = cur.read_property(k);
            if matches!(cur, Val::Undef) {
                return Err(undefined_path(keys.iter().take(i + 1).cloned(), pos));
            }
        }
        Ok(cur)
    }
}

/// The key of a static step ([`Prop::is_static`]) as a value; `Undef` for the others.
fn static_key<'a>(p: &'a Prop, src: &'a str) -> Val<'a> {
    match p {
        Prop::Ident(b, e) => Val::S(src.get(*b..*e).unwrap_or("")),
        Prop::Quoted(s) => Val::S(s.get(src)),
        Prop::Num(n) => Val::Num(*n),
        Prop::Path(_) | Prop::Other(_) => Val::Undef,
    }
}

/// LiquidJS's undefined-variable error for a path whose keys, up to the one that is
/// undefined, are `keys`: joined by `.`, a nil or undefined key written as nothing. Two renders
/// in five end here (a strict render's usual failure), so the path is written into one string
/// rather than joined from one string per segment.
fn undefined_path<'v>(keys: impl Iterator<Item = Val<'v>>, pos: usize) -> RenderError {
    let mut message = String::with_capacity(UNDEFINED_PREFIX.len() + 32);
    message.push_str(UNDEFINED_PREFIX);
    for (i, k) in keys.enumerate() {
        if i > 0 {
            message.push('.');
        }
        match k {
            Val::Nil | Val::NilDrop | Val::Undef => {}
            Val::S(s) => message.push_str(s),
            k => message.push_str(&key_text(&k)),
        }
    }
    RenderError::undefined_message(message, pos)
}

/// Is `text` the concatenation of `parts`?
fn is_joined(text: &str, parts: &[&str]) -> bool {
    let mut rest = text;
    for part in parts {
        match rest.strip_prefix(part) {
            Some(tail) => rest = tail,
            None => return false,
        }
    }
    rest.is_empty()
}

/// The size a value counts for against the render caps: a string's bytes, an array's items.
fn render_size(v: &Val<'_>) -> usize {
    match v {
        Val::S(s) => s.len(),
        Val::Str(s) => s.len(),
        Val::Arr(a) => a.len(),
        Val::Json(Value::Array(a)) => a.len(),
        Val::Json(Value::Object(m)) => m.len(),
        _ => 0,
    }
}

/// The deep size of an array built by filters (items at every level, plus string bytes), or
/// 0 for anything else; the walk stops once it passes `cap`.
fn deep_size(v: &Val<'_>, cap: usize) -> usize {
    if !matches!(v, Val::Arr(_)) {
        return 0;
    }
    let mut total = 0usize;
    let mut stack: Vec<Val<'_>> = vec![v.clone()];
    let mut json: Vec<&Value> = Vec::new();
    while total <= cap {
        if let Some(j) = json.pop() {
            total += 1;
            match j {
                Value::String(s) => total = total.saturating_add(s.len()),
                Value::Array(a) => json.extend(a.iter()),
                Value::Object(m) => json.extend(m.values()),
                _ => {}
            }
            continue;
        }
        let Some(item) = stack.pop() else {
            break;
        };
        total += 1;
        match item {
            Val::Arr(a) => stack.extend(a.iter().cloned()),
            // `group_by` groups share their items too
            Val::Group(g) => {
                stack.push(g.0.clone());
                stack.extend(g.1.iter().cloned());
            }
            Val::S(s) => total = total.saturating_add(s.len()),
            Val::Str(s) => total = total.saturating_add(s.len()),
            Val::Json(j) => json.push(j),
            _ => {}
        }
    }
    total
}

/// The steps a filter or operator costs on `v`: an array's items, a string's bytes / 64 (a
/// prompt may carry a long document through a few filters; a loop may not repeat that).
fn work_size(v: &Val<'_>) -> usize {
    match v {
        Val::S(_) | Val::Str(_) => render_size(v) / 64,
        _ => render_size(v),
    }
}

fn apply_op(op: Op, l: &Val<'_>, r: &Val<'_>) -> bool {
    let drop = |v: &Val<'_>| matches!(v, Val::Empty | Val::Blank);
    match op {
        Op::Eq => js_equals(l, r),
        Op::Ne => !js_equals(l, r),
        Op::Gt => !drop(l) && !drop(r) && js_less(r, l),
        Op::Lt => !drop(l) && !drop(r) && js_less(l, r),
        Op::Ge => !drop(l) && !drop(r) && js_less_eq(r, l),
        Op::Le => !drop(l) && !drop(r) && js_less_eq(l, r),
        Op::Contains => {
            let l = match l {
                Val::Empty | Val::Blank => Val::S(""),
                l => l.clone(),
            };
            if let Some(items) = l.items() {
                items.iter().any(|i| js_equals(i, r))
            } else if let Some(s) = l.as_str() {
                // `indexOf` of the right side's value: a drop's `valueOf` (`''` for empty and
                // blank, `null` for nil, which `indexOf` reads as the text "null")
                let needle = match r {
                    Val::Empty | Val::Blank => String::new(),
                    Val::NilDrop => "null".to_owned(),
                    r => js_string(r),
                };
                s.contains(needle.as_str())
            } else {
                false
            }
        }
        Op::And => l.truthy() && r.truthy(),
        Op::Or => l.truthy() || r.truthy(),
        Op::Not => !r.truthy(),
    }
}

#[cfg(test)]
mod tests {
    use super::is_joined;

    #[test]
    fn a_fingerprint_is_matched_part_by_part() {
        assert!(is_joined("cycle:a:b", &["cycle:", "a", ":", "b"]));
        // LiquidJS keys by the joined text, so different parts with the same join match
        assert!(is_joined("cycle:a:b:c", &["cycle:", "a:b", ":", "c"]));
        assert!(is_joined("cycle:a:b:c", &["cycle:", "a", ":", "b:c"]));
        assert!(!is_joined("cycle:a:b", &["cycle:", "a", ":", "bc"]));
        assert!(!is_joined("cycle:a:bc", &["cycle:", "a", ":", "b"]));
        assert!(is_joined("", &[]));
        assert!(!is_joined("x", &[]));
    }
}
