//! [`CompiledTemplate`]: a template parsed and analysed once, rendered many times.

use super::analysis::{self, AnalysisError, VariableRef};
use super::error::{ParseError, ParseErrorKind, RenderError};
use super::limits::MAX_TEMPLATE_LENGTH;
use super::{ast, parser, render};
use serde_json::Value;

/// A parsed template: the tree, and the static analysis of its variables.
///
/// Holding one means LiquidJS would parse the source. Build it once with
/// [`CompiledTemplate::parse`] and render it any number of times.
#[derive(Debug, Clone)]
pub struct CompiledTemplate {
    pub(super) source: String,
    pub(super) nodes: Vec<ast::Node>,
    pub(super) reads: Vec<VariableRef>,
    pub(super) partials: Vec<analysis::PartialSite>,
    pub(super) unsupported: Vec<(usize, String)>,
    /// Whether a loop reads `continue` (`offset: continue`), so loops record where they stop.
    pub(super) reads_continue: bool,
    /// Whether a render may read a global no path in `reads` names.
    pub(super) opaque: bool,
}

impl CompiledTemplate {
    /// Parses `source` as LiquidJS would (`strictFilters` on).
    ///
    /// # Errors
    ///
    /// A [`ParseError`] for exactly the templates LiquidJS refuses to parse: unclosed tags or
    /// outputs, unknown tags, unknown filters, malformed expressions, and (runstart's own caps)
    /// nesting deeper than [`MAX_DEPTH`](super::MAX_DEPTH) or a source longer than
    /// [`MAX_TEMPLATE_LENGTH`] bytes.
    ///
    /// # Complexity
    ///
    /// Linear in the template's length.
    pub fn parse(source: &str) -> Result<CompiledTemplate, ParseError> {
        if source.len() > MAX_TEMPLATE_LENGTH {
            return Err(ParseError::new(
                ParseErrorKind::TooLong,
                format!(
                    "the template is {} bytes long, over the limit of {MAX_TEMPLATE_LENGTH} bytes; shorten it",
                    source.len()
                ),
                0,
            ));
        }
        let nodes = parser::parse(source)?;
        let a = analysis::analyze(source, &nodes);
        Ok(CompiledTemplate {
            source: source.to_string(),
            nodes,
            reads: a.reads,
            partials: a.partials,
            unsupported: a.unsupported,
            reads_continue: a.reads_continue,
            opaque: a.opaque,
        })
    }

    /// The template text.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The global variable paths the template reads, as LiquidJS's `globalVariableSegments`:
    /// grouped by root (in a JavaScript object's key order: array-index roots such as `"2"`
    /// first, ascending, then the others in order of first appearance), then in source order
    /// with a path before the variables in its brackets, without duplicates.
    ///
    /// # Errors
    ///
    /// An [`AnalysisError`] when the template has `include`, `render` or `layout`: LiquidJS's
    /// analysis would read the named template, and a prompt has no template root.
    pub fn globals(&self) -> Result<Vec<&VariableRef>, AnalysisError> {
        match analysis::partial_error(&self.partials) {
            Some(e) => Err(e),
            None => Ok(analysis::group_globals(&self.reads)),
        }
    }

    /// Every global read in source order, duplicates included (each with its offset), even
    /// when the template has partial tags.
    pub fn global_reads(&self) -> &[VariableRef] {
        &self.reads
    }

    /// What a render can read of the global scope, for a caller that passes a render only
    /// part of a large context: one `(root, keys)` per global read in source order, where
    /// `keys` is the path of string keys below `root` whose value the render reads *whole*
    /// (empty: all of `root`). A render against a context whose every such value equals the
    /// full context's (and whose other roots are the full context's, or absent) renders the
    /// same text and fails the same way.
    ///
    /// A path stops before the first segment whose meaning depends on the value rather than
    /// on a key: an index (`[0]`), a computed key (`[k]`), `size`, `first`, `last`, `length`.
    /// A root the template binds anywhere (`assign`, `capture`, a loop variable, …) is read
    /// whole, since a render may read its global where the analysis scopes it as local (an
    /// `assign` in a branch not taken).
    ///
    /// `None` when a render may read a global no static path names: a computed root
    /// (`{{ [name] }}`), a key inside a range or literal (`a[(1..n)]`), an expression filter
    /// (`where_exp`), or a `render` tag whose file is a value. Then pass the whole context.
    /// Other partial tags read what their arguments name: a render fails at the tag (a prompt
    /// has no template root) or renders a `layout none`'s body.
    ///
    /// # Examples
    ///
    /// ```
    /// use runstart::template::CompiledTemplate;
    ///
    /// let t = CompiledTemplate::parse(
    ///     "{{ customer.name }} {{ orders.size }} {% assign n = customer.tier %}{{ n }}",
    /// )
    /// .unwrap();
    /// assert_eq!(
    ///     t.read_paths().unwrap(),
    ///     vec![("customer", vec!["name"]), ("orders", vec![]), ("customer", vec!["tier"])]
    /// );
    /// assert!(CompiledTemplate::parse("{{ [key] }}").unwrap().read_paths().is_none());
    /// ```
    pub fn read_paths(&self) -> Option<Vec<(&str, Vec<&str>)>> {
        if self.opaque {
            return None;
        }
        let paths = self
            .reads
            .iter()
            .filter_map(|read| {
                let root = read.root()?;
                let mut keys = Vec::new();
                if !analysis::binds(&self.source, &self.nodes, root) {
                    for segment in &read.segments()[1..] {
                        match segment {
                            analysis::Segment::Key(k)
                                if !matches!(k.as_str(), "size" | "first" | "last" | "length") =>
                            {
                                keys.push(k.as_str())
                            }
                            _ => break,
                        }
                    }
                }
                Some((root, keys))
            })
            .collect();
        Some(paths)
    }

    /// Renders with `context` (a JSON object) as the global scope, as LiquidJS's
    /// `parseAndRenderSync` does with `strictVariables` on.
    ///
    /// # Errors
    ///
    /// A [`RenderError`]: an undefined variable (named by its path up to the first undefined
    /// segment), a filter's own failure, or a partial tag.
    pub fn render(&self, context: &Value) -> Result<String, RenderError> {
        let globals = render::Globals {
            object: context.as_object(),
            ..render::Globals::default()
        };
        self.render_globals(globals)
    }

    /// Renders against a borrowed, layered global scope.
    pub(crate) fn render_globals(
        &self,
        globals: render::Globals<'_>,
    ) -> Result<String, RenderError> {
        let mut out = String::with_capacity(self.source.len());
        let mut r = render::Renderer::new(&self.source, globals, self.reads_continue);
        r.render(&self.nodes, &mut out)?;
        Ok(out)
    }
}
