//! URI reference resolution (RFC 3986 §5.2) for `$id` and `$ref`, with Ajv's normalisation of
//! identifiers (a trailing `#` or `#/` is dropped).

/// The parts of a URI reference; `None` means the part is absent (not empty).
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct UriRef {
    scheme: Option<String>,
    authority: Option<String>,
    path: String,
    query: Option<String>,
    pub(super) fragment: Option<String>,
}

pub(super) fn parse(s: &str) -> UriRef {
    let mut rest = s;
    let mut out = UriRef::default();
    if let Some(i) = rest.find('#') {
        out.fragment = Some(rest[i + 1..].to_owned());
        rest = &rest[..i];
    }
    if let Some(i) = rest.find('?') {
        out.query = Some(rest[i + 1..].to_owned());
        rest = &rest[..i];
    }
    // A scheme is letters, digits, `+ - .` before the first `:`, starting with a letter.
    if let Some(i) = rest.find(':') {
        let candidate = &rest[..i];
        let mut chars = candidate.chars();
        if chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        {
            out.scheme = Some(candidate.to_ascii_lowercase());
            rest = &rest[i + 1..];
        }
    }
    if let Some(after) = rest.strip_prefix("//") {
        let end = after.find('/').unwrap_or(after.len());
        out.authority = Some(after[..end].to_ascii_lowercase());
        rest = &after[end..];
    }
    out.path = rest.to_owned();
    out
}

pub(super) fn serialize(u: &UriRef) -> String {
    let mut s = String::new();
    if let Some(scheme) = &u.scheme {
        s.push_str(scheme);
        s.push(':');
    }
    if let Some(auth) = &u.authority {
        s.push_str("//");
        s.push_str(auth);
    }
    s.push_str(&u.path);
    if let Some(q) = &u.query {
        s.push('?');
        s.push_str(q);
    }
    if let Some(f) = &u.fragment {
        s.push('#');
        s.push_str(f);
    }
    s
}

fn remove_dot_segments(path: &str) -> String {
    let mut input = path;
    let mut out: Vec<&str> = Vec::new();
    let absolute = input.starts_with('/');
    if absolute {
        input = &input[1..];
    }
    let segments: Vec<&str> = input.split('/').collect();
    let n = segments.len();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == n;
        match *seg {
            "." => {
                if last {
                    out.push("");
                }
            }
            ".." => {
                out.pop();
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let joined = out.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// Resolves `reference` against `base` (RFC 3986 §5.2.2).
pub(super) fn resolve(base: &str, reference: &str) -> String {
    let r = parse(reference);
    let b = parse(base);
    let mut t = UriRef::default();
    if r.scheme.is_some() {
        t.scheme = r.scheme;
        t.authority = r.authority;
        t.path = remove_dot_segments(&r.path);
        t.query = r.query;
    } else {
        if r.authority.is_some() {
            t.authority = r.authority;
            t.path = remove_dot_segments(&r.path);
            t.query = r.query;
        } else {
            if r.path.is_empty() {
                t.path = b.path.clone();
                t.query = if r.query.is_some() {
                    r.query
                } else {
                    b.query.clone()
                };
            } else {
                if r.path.starts_with('/') {
                    t.path = remove_dot_segments(&r.path);
                } else {
                    let merged = if b.authority.is_some() && b.path.is_empty() {
                        format!("/{}", r.path)
                    } else {
                        match b.path.rfind('/') {
                            Some(i) => format!("{}{}", &b.path[..=i], r.path),
                            None => r.path.clone(),
                        }
                    };
                    t.path = remove_dot_segments(&merged);
                }
                t.query = r.query;
            }
            t.authority = b.authority.clone();
        }
        t.scheme = b.scheme.clone();
    }
    t.fragment = r.fragment;
    serialize(&t)
}

/// Ajv's `normalizeId`: drops a trailing `#` or `#/`.
pub(super) fn normalize_id(id: &str) -> String {
    id.strip_suffix("#/")
        .or_else(|| id.strip_suffix('#'))
        .unwrap_or(id)
        .to_owned()
}

/// Ajv's `resolveUrl`: `reference` normalised, then resolved against `base`.
pub(super) fn resolve_url(base: &str, reference: &str) -> String {
    resolve(base, &normalize_id(reference))
}

/// Ajv's `getFullPath`: the identifier without its fragment, followed by `#`.
pub(super) fn full_path(id: &str) -> String {
    let mut u = parse(&normalize_id(id));
    u.fragment = None;
    let mut s = serialize(&u);
    s.push('#');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_like_rfc_3986() {
        let base = "https://example.com/draft2020-12/ref-and-id3/base.json";
        assert_eq!(
            resolve(base, "nested/foo.json"),
            "https://example.com/draft2020-12/ref-and-id3/nested/foo.json"
        );
        assert_eq!(
            resolve("http://example.com/ref/absref.json", "/absref/foobar.json"),
            "http://example.com/absref/foobar.json"
        );
        assert_eq!(resolve("", "#/$defs/a"), "#/$defs/a");
        assert_eq!(
            resolve("urn:uuid:deadbeef", "#/$defs/bar"),
            "urn:uuid:deadbeef#/$defs/bar"
        );
        assert_eq!(resolve("http://a/b/c/d;p?q", "../g"), "http://a/b/g");
        assert_eq!(full_path("http://x/y#frag"), "http://x/y#");
        assert_eq!(full_path(""), "#");
        assert_eq!(normalize_id("a#/"), "a");
    }
}
