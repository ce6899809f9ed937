//! Builds the syntax tree from tokens without recursion on nesting: open block tags live on an
//! explicit stack, capped at [`super::limits::MAX_DEPTH`].

use super::ast::{
    Branch, CycleCandidate, Expr, ExprKind, FilteredValue, LoopHead, Node, PartialFile, PartialRef,
    PartialTag, StrLit,
};
use super::error::{ParseError, ParseErrorKind};
use super::lexer::{Cursor, Token, tag_token, tokenize};

type PResult<T> = Result<T, ParseError>;

/// Parses a whole template.
pub(crate) fn parse(s: &str) -> PResult<Vec<Node>> {
    let tokens = tokenize(s)?;
    parse_tokens(s, &tokens, 0)
}

enum CaseTarget {
    Discard,
    When,
    Else,
}

enum Frame {
    If {
        tok: Token,
        unless: bool,
        branches: Vec<Branch>,
        else_body: Vec<Node>,
        in_else: bool,
        /// `unless` only: `else` tags seen; after a second `else` or a late `elsif`, the
        /// body goes nowhere (LiquidJS's `unless` keeps only the first `else` body).
        else_count: u32,
        discard: Vec<Node>,
    },
    Case {
        tok: Token,
        value: FilteredValue,
        whens: Vec<(Vec<Expr>, Vec<Node>)>,
        else_body: Vec<Node>,
        discard: Vec<Node>,
        target: CaseTarget,
        else_count: u32,
    },
    For {
        tok: Token,
        head: LoopHead,
        body: Vec<Node>,
        else_body: Vec<Node>,
        in_else: bool,
    },
    Tablerow {
        tok: Token,
        head: LoopHead,
        body: Vec<Node>,
    },
    Capture {
        tok: Token,
        name: StrLit,
        body: Vec<Node>,
    },
    Block {
        tok: Token,
        body: Vec<Node>,
    },
}

impl Frame {
    fn tok(&self) -> Token {
        match self {
            Frame::If { tok, .. }
            | Frame::Case { tok, .. }
            | Frame::For { tok, .. }
            | Frame::Tablerow { tok, .. }
            | Frame::Capture { tok, .. }
            | Frame::Block { tok, .. } => *tok,
        }
    }

    fn target(&mut self) -> &mut Vec<Node> {
        match self {
            Frame::If {
                branches,
                else_body,
                in_else,
                else_count,
                discard,
                ..
            } => {
                if *else_count > 1 {
                    discard
                } else if *in_else {
                    else_body
                } else {
                    match branches.last_mut() {
                        Some(b) => &mut b.body,
                        // ok: an if frame is created with its first branch
                        None => else_body,
                    }
                }
            }
            Frame::Case {
                whens,
                else_body,
                discard,
                target,
                ..
            } => match target {
                CaseTarget::Discard => discard,
                CaseTarget::Else => else_body,
                CaseTarget::When => match whens.last_mut() {
                    Some(w) => &mut w.1,
                    None => discard,
                },
            },
            Frame::For {
                body,
                else_body,
                in_else,
                ..
            } => {
                if *in_else {
                    else_body
                } else {
                    body
                }
            }
            Frame::Tablerow { body, .. }
            | Frame::Capture { body, .. }
            | Frame::Block { body, .. } => body,
        }
    }

    fn into_node(self) -> Node {
        match self {
            Frame::If {
                unless,
                branches,
                else_body,
                ..
            } => Node::If {
                unless,
                branches,
                else_body,
            },
            Frame::Case {
                value,
                whens,
                else_body,
                ..
            } => Node::Case {
                value: Box::new(value),
                whens,
                else_body,
            },
            Frame::For {
                head,
                body,
                else_body,
                ..
            } => Node::For {
                head: Box::new(head),
                body,
                else_body,
            },
            Frame::Tablerow { head, body, .. } => Node::Tablerow {
                head: Box::new(head),
                body,
            },
            Frame::Capture { name, body, .. } => Node::Capture { name, body },
            Frame::Block { body, .. } => Node::Block(body),
        }
    }
}

enum Handled {
    No,
    Yes,
    Close,
}

fn value_of(s: &str, args: (usize, usize)) -> PResult<FilteredValue> {
    Cursor::new(s, args.0, args.1).read_filtered_value()
}

/// Runs the innermost open block's handler for tag `name` (`tag:<name>` in a parse stream).
fn handle(frame: &mut Frame, s: &str, name: &str, args: (usize, usize)) -> PResult<Handled> {
    match frame {
        Frame::If {
            tok,
            unless,
            branches,
            in_else,
            else_count,
            ..
        } => {
            let at = tok.begin();
            let has_args = args.1 > args.0;
            match name {
                // `unless` drops what follows an `elsif` after its `else`
                "elsif" if *unless && *else_count > 0 => {
                    *else_count = 2;
                    Ok(Handled::Yes)
                }
                "elsif" if *in_else => Err(syntax("unexpected elsif after else".into(), at)),
                "elsif" => {
                    branches.push(Branch {
                        cond: value_of(s, args)?,
                        body: Vec::new(),
                    });
                    *in_else = false;
                    Ok(Handled::Yes)
                }
                "else" if *unless => {
                    *else_count += 1;
                    *in_else = true;
                    Ok(Handled::Yes)
                }
                "else" if has_args => Err(unexpected_args(s, args, at)),
                "else" if *in_else => Err(syntax("duplicated else".into(), at)),
                "else" => {
                    *in_else = true;
                    Ok(Handled::Yes)
                }
                "endif" if !*unless && has_args => Err(unexpected_args(s, args, at)),
                "endif" if !*unless => Ok(Handled::Close),
                "endunless" if *unless => Ok(Handled::Close),
                _ => Ok(Handled::No),
            }
        }
        Frame::Case {
            whens,
            target,
            else_count,
            ..
        } => match name {
            // LiquidJS ignores a `when` after `else`, unparsed
            "when" if *else_count > 0 => Ok(Handled::Yes),
            "when" => {
                let mut c = Cursor::new(s, args.0, args.1);
                let mut values = Vec::new();
                while !c.end() {
                    values.push(c.read_value_or_throw()?);
                    c.skip_blank();
                    if c.peek() == b',' {
                        c.read_to(b",");
                    } else {
                        c.read_to(b"or");
                    }
                }
                whens.push((values, Vec::new()));
                *target = CaseTarget::When;
                Ok(Handled::Yes)
            }
            "else" => {
                // only the first `else` keeps its body
                *else_count += 1;
                *target = if *else_count == 1 {
                    CaseTarget::Else
                } else {
                    CaseTarget::Discard
                };
                Ok(Handled::Yes)
            }
            "endcase" => Ok(Handled::Close),
            _ => Ok(Handled::No),
        },
        Frame::For { tok, in_else, .. } => match name {
            "else" | "endfor" if args.1 > args.0 => Err(unexpected_args(s, args, tok.begin())),
            "else" => {
                *in_else = true;
                Ok(Handled::Yes)
            }
            "endfor" => Ok(Handled::Close),
            _ => Ok(Handled::No),
        },
        Frame::Tablerow { .. } if name == "endtablerow" => Ok(Handled::Close),
        Frame::Capture { .. } if name == "endcapture" => Ok(Handled::Close),
        Frame::Block { .. } if name == "endblock" => Ok(Handled::Close),
        _ => Ok(Handled::No),
    }
}

/// `parseFilePath`: `none`, a quoted name (a template of its own when it has tags), or a
/// value.
fn partial_file(s: &str, c: &mut Cursor<'_>, depth: usize) -> PResult<PartialFile> {
    let Some(file) = c.read_value()? else {
        return Err(c.error("illegal file path".into(), c.p));
    };
    if s.get(file.begin..file.end) == Some("none") {
        return Ok(PartialFile::None);
    }
    let ExprKind::Str(lit) = &file.kind else {
        return Ok(PartialFile::Value(file));
    };
    let text = lit.get(s).to_string();
    if text.is_empty() {
        // LiquidJS parses `""` to no templates, which render to the empty name.
        return Ok(PartialFile::Template {
            text,
            nodes: Vec::new(),
        });
    }
    if !text.contains('{') {
        return Ok(PartialFile::Name(text));
    }
    if depth + 1 >= super::limits::MAX_DEPTH {
        return Err(ParseError::new(
            ParseErrorKind::TooDeep,
            format!(
                "partial names are nested deeper than {} levels; flatten the template",
                super::limits::MAX_DEPTH
            ),
            file.begin,
        ));
    }
    // errors inside the name are placed at the name (their offsets are in the decoded text),
    // and LiquidJS's message gives their line and column in that text
    let at_name = |mut e: ParseError| {
        e.move_out_of(&text, file.begin);
        e
    };
    let tokens = tokenize(&text).map_err(at_name)?;
    let nodes = parse_tokens(&text, &tokens, depth + 1).map_err(at_name)?;
    if let [Node::Text(b, e)] = nodes.as_slice() {
        let name = text.get(*b..*e).unwrap_or("").to_string();
        return Ok(PartialFile::Name(name));
    }
    Ok(PartialFile::Template { text, nodes })
}

fn syntax(message: String, at: usize) -> ParseError {
    ParseError::new(ParseErrorKind::Syntax, message, at)
}

/// `assertEmpty(tag.args)`: arguments where a tag takes none, quoted as JSON.
fn unexpected_args(s: &str, args: (usize, usize), at: usize) -> ParseError {
    let text = s.get(args.0..args.1).unwrap_or("");
    syntax(
        format!(
            "unexpected {}",
            serde_json::to_string(text).unwrap_or_default()
        ),
        at,
    )
}

fn loop_head(s: &str, tok: Token, args: (usize, usize), is_for: bool) -> PResult<LoopHead> {
    let mut c = Cursor::new(s, args.0, args.1);
    let var = c.read_identifier();
    c.skip_blank();
    let in_kw = c.read_identifier();
    let collection = c.read_value()?;
    let illegal = || {
        ParseError::new(
            ParseErrorKind::Syntax,
            format!(
                "illegal tag: {}",
                s.get(tok.begin()..tok.end()).unwrap_or("")
            ),
            tok.begin(),
        )
    };
    if (is_for && var.0 == var.1) || c.text(in_kw) != "in" {
        return Err(illegal());
    }
    let Some(collection) = collection else {
        return Err(illegal());
    };
    let hash = c.read_hashes()?;
    Ok(LoopHead {
        var: c.text(var).to_string(),
        collection_text: s
            .get(collection.begin..collection.end)
            .unwrap_or("")
            .to_string(),
        collection,
        hash,
    })
}

/// Parses a token list (the template, or the lines of a `{% liquid %}` tag).
fn parse_tokens(s: &str, tokens: &[Token], base_depth: usize) -> PResult<Vec<Node>> {
    let mut root: Vec<Node> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    macro_rules! push {
        ($node:expr) => {{
            let node = $node;
            match stack.last_mut() {
                Some(f) => f.target().push(node),
                None => root.push(node),
            }
        }};
    }
    while i < tokens.len() {
        let tok = tokens[i];
        i += 1;
        let (name, args) = match tok {
            Token::Html { begin, end } => {
                if end > begin {
                    push!(Node::Text(begin, end));
                }
                continue;
            }
            Token::Output { content, .. } => {
                let v = value_of(s, content).map_err(|e| relocate(e, tok))?;
                push!(Node::Output(v.reported_at(tok.begin())));
                continue;
            }
            Token::Tag { name, args, .. } => (s.get(name.0..name.1).unwrap_or(""), args),
        };
        if let Some(frame) = stack.last_mut() {
            match handle(frame, s, name, args).map_err(|e| relocate(e, tok))? {
                Handled::Yes => continue,
                Handled::Close => {
                    if let Some(f) = stack.pop() {
                        push!(f.into_node());
                    }
                    continue;
                }
                Handled::No => {}
            }
        }
        let depth = base_depth + stack.len();
        check_depth(name, depth, tok)?;
        match name {
            "if" | "unless" | "case" | "for" | "tablerow" | "capture" | "block" => {
                stack.push(open_block(s, name, tok, args)?);
            }
            "comment" => i = skip_comment(s, tokens, i, tok)?,
            "raw" => {
                let (raw, next) = raw_text(s, tokens, i, tok)?;
                i = next;
                if let Some(node) = raw {
                    push!(node);
                }
            }
            "#" => check_inline_comment(s, args, tok.begin())?,
            "assign" => push!(assign(s, tok, args)?),
            "increment" | "decrement" => push!(counter(s, name, args)),
            "echo" => push!(echo(s, tok, args)?),
            "cycle" => push!(cycle(s, tok, args)?),
            "break" => push!(Node::Break),
            "continue" => push!(Node::Continue),
            "liquid" => push!(liquid(s, args, depth)?),
            "include" | "render" | "layout" => {
                let tag = match name {
                    "include" => PartialTag::Include,
                    "render" => PartialTag::Render,
                    _ => PartialTag::Layout,
                };
                let mut node = partial(s, tag, tok, args, depth)?;
                // a layout's children are the rest of the template
                if tag == PartialTag::Layout {
                    let rest = tokens.get(i..).unwrap_or(&[]);
                    i = tokens.len();
                    node.body = parse_tokens(s, rest, depth + 1)?;
                }
                push!(Node::Partial(node));
            }
            _ => {
                return Err(ParseError::new(
                    ParseErrorKind::UnknownTag,
                    format!("tag \"{name}\" not found"),
                    tok.begin(),
                ));
            }
        }
    }
    if let Some(f) = stack.last() {
        return Err(not_closed(s, f.tok()));
    }
    Ok(root)
}

/// Refuses a tag that opens a block (or parses a nested template) at `depth` when that
/// reaches [`super::limits::MAX_DEPTH`].
fn check_depth(name: &str, depth: usize, tok: Token) -> PResult<()> {
    let opens_block = matches!(
        name,
        "if" | "unless"
            | "case"
            | "for"
            | "tablerow"
            | "capture"
            | "block"
            | "liquid"
            | "layout"
            | "include"
            | "render"
    );
    if opens_block && depth >= super::limits::MAX_DEPTH {
        return Err(ParseError::new(
            ParseErrorKind::TooDeep,
            format!(
                "tags are nested deeper than {} levels; flatten the template",
                super::limits::MAX_DEPTH
            ),
            tok.begin(),
        ));
    }
    Ok(())
}

/// The frame of a block tag (`if`, `unless`, `case`, `for`, `tablerow`, `capture`, `block`),
/// with its head parsed and its bodies empty.
fn open_block(s: &str, name: &str, tok: Token, args: (usize, usize)) -> PResult<Frame> {
    Ok(match name {
        "if" | "unless" => {
            let cond = value_of(s, args).map_err(|e| relocate(e, tok))?;
            Frame::If {
                tok,
                unless: name == "unless",
                branches: vec![Branch {
                    cond,
                    body: Vec::new(),
                }],
                else_body: Vec::new(),
                in_else: false,
                else_count: 0,
                discard: Vec::new(),
            }
        }
        "case" => {
            let value = value_of(s, args).map_err(|e| relocate(e, tok))?;
            Frame::Case {
                tok,
                value,
                whens: Vec::new(),
                else_body: Vec::new(),
                discard: Vec::new(),
                target: CaseTarget::Discard,
                else_count: 0,
            }
        }
        "for" => Frame::For {
            tok,
            head: loop_head(s, tok, args, true)?,
            body: Vec::new(),
            else_body: Vec::new(),
            in_else: false,
        },
        "tablerow" => Frame::Tablerow {
            tok,
            head: loop_head(s, tok, args, false)?,
            body: Vec::new(),
        },
        "capture" => {
            let mut c = Cursor::new(s, args.0, args.1);
            let id = c.read_identifier();
            let name = if id.0 != id.1 {
                StrLit::Span(id.0, id.1)
            } else if let Some(q) = c.read_quoted() {
                match q.kind {
                    ExprKind::Str(v) => v,
                    _ => StrLit::Span(id.0, id.0),
                }
            } else {
                return Err(c.error("invalid capture name".into(), c.p));
            };
            Frame::Capture {
                tok,
                name,
                body: Vec::new(),
            }
        }
        _ => Frame::Block {
            tok,
            body: Vec::new(),
        },
    })
}

/// Skips a `{% comment %}` body from `tokens[i]`; returns the index past `endcomment`.
fn skip_comment(s: &str, tokens: &[Token], mut i: usize, tok: Token) -> PResult<usize> {
    while i < tokens.len() {
        let t = tokens[i];
        i += 1;
        if let Token::Tag { name, .. } = t
            && s.get(name.0..name.1) == Some("endcomment")
        {
            return Ok(i);
        }
    }
    Err(not_closed(s, tok))
}

/// A `{% raw %}` body from `tokens[i]` as one text node (none when empty), and the index past
/// `endraw`.
fn raw_text(s: &str, tokens: &[Token], mut i: usize, tok: Token) -> PResult<(Option<Node>, usize)> {
    let mut closed = false;
    let (mut rb, mut re) = (usize::MAX, 0);
    while i < tokens.len() {
        let t = tokens[i];
        i += 1;
        if let Token::Tag { name, .. } = t
            && s.get(name.0..name.1) == Some("endraw")
        {
            closed = true;
            break;
        }
        if let Token::Html { begin, end } = t {
            rb = rb.min(begin);
            re = re.max(end);
        }
    }
    if !closed {
        return Err(not_closed(s, tok));
    }
    Ok(((re > rb).then_some(Node::Raw(rb, re)), i))
}

/// `{% # ... %}`: every line after the first must start with `#`.
fn check_inline_comment(s: &str, args: (usize, usize), begin: usize) -> PResult<()> {
    let text = s.get(args.0..args.1).unwrap_or("");
    let mut lines = text.split('\n');
    lines.next();
    for line in lines {
        if let Some(c) = line.trim_start().chars().next()
            && c != '#'
        {
            return Err(ParseError::new(
                ParseErrorKind::Syntax,
                "every line of an inline comment must start with a '#' character".into(),
                begin,
            ));
        }
    }
    Ok(())
}

/// `{% assign name = value | filters %}`.
fn assign(s: &str, tok: Token, args: (usize, usize)) -> PResult<Node> {
    let mut c = Cursor::new(s, args.0, args.1);
    let id = c.read_identifier();
    if id.0 == id.1 {
        return Err(c.error("expected variable name".into(), c.p));
    }
    c.skip_blank();
    if c.peek() != b'=' {
        return Err(c.error("expected \"=\"".into(), c.p));
    }
    c.p += 1;
    let value = c.read_filtered_value().map_err(|e| relocate(e, tok))?;
    Ok(Node::Assign {
        name: StrLit::Span(id.0, id.1),
        value: value.reported_at(tok.begin()),
    })
}

/// `{% increment name %}` or `{% decrement name %}`.
fn counter(s: &str, name: &str, args: (usize, usize)) -> Node {
    let mut c = Cursor::new(s, args.0, args.1);
    let id = c.read_identifier();
    let v = StrLit::Span(id.0, id.1);
    if name == "increment" {
        Node::Increment(v)
    } else {
        Node::Decrement(v)
    }
}

/// `{% echo value | filters %}` (the value may be absent).
fn echo(s: &str, tok: Token, args: (usize, usize)) -> PResult<Node> {
    let mut c = Cursor::new(s, args.0, args.1);
    c.skip_blank();
    let v = if c.end() {
        None
    } else {
        Some(
            c.read_filtered_value()
                .map_err(|e| relocate(e, tok))?
                .reported_at(tok.begin()),
        )
    };
    Ok(Node::Echo(v))
}

/// `{% cycle [group:] a, b, ... %}`.
fn cycle(s: &str, tok: Token, args: (usize, usize)) -> PResult<Node> {
    // LiquidJS 10.30.1: an optional `group:`, then candidates, each a whole filtered value up
    // to the next `,`; the cycle's identity is each candidate's text as written, blanks too.
    let mut c = Cursor::new(s, args.0, args.1);
    let mut group = None;
    let begin = c.p;
    let first = c.read_value()?;
    c.skip_blank();
    match first {
        Some(v) if c.peek() == b':' => {
            group = Some(v);
            c.p += 1;
        }
        Some(_) => c.p = begin,
        // nothing read, but what the attempt went past stays read (`{% cycle. 'a' %}`)
        None => {}
    }
    let mut candidates = Vec::new();
    let mut texts = Vec::new();
    while !c.end() {
        let from = c.p;
        let (value, unknown) = c.read_filtered_value_tokens()?;
        candidates.push(CycleCandidate {
            value: value.reported_at(tok.begin()),
            undefined_filter: unknown.map(|name| c.text(name).to_string()),
        });
        texts.push(s.get(from..c.p).unwrap_or(""));
        c.read_to(b",");
    }
    if candidates.is_empty() {
        return Err(ParseError::new(
            ParseErrorKind::Syntax,
            format!(
                "empty candidates: \"{}\"",
                s.get(tok.begin()..tok.end()).unwrap_or("")
            ),
            // LiquidJS asserts on its tokenizer, so the error stands where reading stopped
            c.p,
        ));
    }
    let key = texts.join(",");
    Ok(Node::Cycle {
        begin: tok.begin(),
        group: group.map(Box::new),
        candidates,
        key,
    })
}

/// `{% liquid %}`: each non-blank line is a tag, parsed one level deeper.
fn liquid(s: &str, args: (usize, usize), depth: usize) -> PResult<Node> {
    let mut c = Cursor::new(s, args.0, args.1);
    let mut sub = Vec::new();
    loop {
        c.skip_blank();
        if c.end() {
            break;
        }
        let lb = c.p;
        let le = match c.read_to(b"\n") {
            Some(e) => e,
            None => c.n,
        };
        sub.push(tag_token(s, lb, le, lb, le, true)?);
    }
    let nodes = parse_tokens(s, &sub, depth + 1)?;
    Ok(Node::Liquid(nodes))
}

/// The head of `{% include %}`, `{% render %}` or `{% layout %}`: the file, `with`/`for`
/// values and the hash. The body (a layout's children) is left empty for the caller.
fn partial(
    s: &str,
    tag: PartialTag,
    tok: Token,
    args: (usize, usize),
    depth: usize,
) -> PResult<Box<PartialRef>> {
    let mut c = Cursor::new(s, args.0, args.1);
    let file = partial_file(s, &mut c, depth)?;
    let (mut with, mut for_each) = (None, None);
    match tag {
        PartialTag::Include => with = include_with(&mut c)?,
        PartialTag::Render => (with, for_each) = render_with_for(&mut c)?,
        PartialTag::Layout => {}
    }
    let mut hash: Vec<(String, Option<Expr>)> = Vec::new();
    for (k, v) in c.read_hashes()? {
        match hash.iter_mut().find(|(n, _)| *n == k) {
            Some(slot) => slot.1 = v,
            None => hash.push((k, v)),
        }
    }
    Ok(Box::new(PartialRef {
        tag,
        offset: tok.begin(),
        file,
        hash,
        with,
        for_each,
        body: Vec::new(),
    }))
}

/// `include`'s optional `with <value>` (not a hash key `with: ...`).
fn include_with(c: &mut Cursor<'_>) -> PResult<Option<Expr>> {
    let before = c.p;
    let kw = c.read_identifier();
    c.skip_blank();
    if c.text(kw) == "with" && c.peek() != b':' {
        c.read_value()
    } else {
        c.p = before;
        Ok(None)
    }
}

/// `render`'s `with <value> [as alias]` and `for <value> [as alias]`, in any order, each
/// optionally followed by a comma; the last of each kind wins.
fn render_with_for(c: &mut Cursor<'_>) -> PResult<(Option<Expr>, Option<Expr>)> {
    let (mut with, mut for_each) = (None, None);
    loop {
        c.skip_blank();
        let before = c.p;
        let kw = c.read_identifier();
        let kw = c.text(kw);
        c.skip_blank();
        if (kw == "with" || kw == "for")
            && c.peek() != b':'
            && let Some(v) = c.read_value()?
        {
            // `as <alias>` names the value inside the partial
            let before_as = c.p;
            let as_kw = c.read_identifier();
            if c.text(as_kw) == "as" {
                c.read_identifier();
            } else {
                c.p = before_as;
            }
            if kw == "with" {
                with = Some(v);
            } else {
                for_each = Some(v);
            }
            c.skip_blank();
            if c.peek() == b',' {
                c.p += 1;
            }
            continue;
        }
        c.p = before;
        return Ok((with, for_each));
    }
}

/// An unknown filter is an assertion inside the tag's constructor, which LiquidJS reports at
/// the tag (or output) rather than at the filter.
fn relocate(mut e: ParseError, tok: Token) -> ParseError {
    if e.kind() == ParseErrorKind::UndefinedFilter {
        e.set_offset(tok.begin());
    }
    e
}

fn not_closed(s: &str, tok: Token) -> ParseError {
    ParseError::new(
        ParseErrorKind::NotClosed,
        format!(
            "tag {} not closed",
            s.get(tok.begin()..tok.end()).unwrap_or("")
        ),
        tok.begin(),
    )
}
