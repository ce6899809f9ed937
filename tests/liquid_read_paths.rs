//! `CompiledTemplate::read_paths` against the renderer: for every Liquid conformance template
//! (`templates.jsonl`, and `realworld.jsonl` with its own contexts too), a render against the
//! context pruned to the read paths answers exactly as a render against the whole context —
//! the same text, or the same error message. The Node binding sends only these parts of a
//! large context, so a path the analysis misses would render differently there.

mod util;

use runstart::template::CompiledTemplate;
use serde_json::{Map, Value};

/// `full` pruned to what `paths` read: each root's value at every path, with the objects on
/// the way holding only the keys on some path.
fn pruned(full: &Map<String, Value>, paths: &[(&str, Vec<&str>)]) -> Map<String, Value> {
    let mut out = Map::new();
    // Roots no path names stay whole: the binding sends them whole (it finds them in the text).
    for (k, v) in full {
        if !paths.iter().any(|(root, _)| root == k) {
            out.insert(k.clone(), v.clone());
        }
    }
    for (root, keys) in paths {
        let Some(value) = full.get(*root) else {
            continue;
        };
        let slot = out.entry(root.to_string()).or_insert_with(|| shell(value));
        copy_path(value, keys, slot);
    }
    out
}

/// An object's empty copy, or a copy of any other value.
fn shell(value: &Value) -> Value {
    match value {
        Value::Object(_) => Value::Object(Map::new()),
        other => other.clone(),
    }
}

/// Copies `value` at `keys` (below `from`) into `to`, which mirrors `from` pruned.
fn copy_path(from: &Value, keys: &[&str], to: &mut Value) {
    let Value::Object(object) = from else {
        *to = from.clone();
        return;
    };
    let Some((first, rest)) = keys.split_first() else {
        *to = from.clone();
        return;
    };
    let Some(next) = object.get(*first) else {
        return;
    };
    let Value::Object(target) = to else { return }; // already whole
    let slot = target
        .entry(first.to_string())
        .or_insert_with(|| shell(next));
    copy_path(next, rest, slot);
}

fn answer(t: &CompiledTemplate, context: &Value) -> Result<String, String> {
    t.render(context).map_err(|e| e.to_string())
}

/// (templates parsed, templates whose paths were used, renders compared).
fn check(rows: &str, base: &Value) -> (usize, usize, usize) {
    let (mut parsed, mut pruned_templates, mut renders) = (0, 0, 0);
    for line in rows.lines().filter(|l| !l.trim().is_empty()) {
        let row: Value = serde_json::from_str(line).expect("a JSON row");
        let Ok(t) = CompiledTemplate::parse(row["template"].as_str().expect("template")) else {
            continue;
        };
        parsed += 1;
        let Some(paths) = t.read_paths() else {
            continue;
        };
        pruned_templates += 1;
        let mut contexts = vec![base.clone()];
        if let Some(c) = row.get("renderSynth").and_then(|r| r.get("context")) {
            contexts.push(c.clone());
        }
        for full in contexts {
            let Some(object) = full.as_object() else {
                continue;
            };
            let slim = Value::Object(pruned(object, &paths));
            assert_eq!(
                answer(&t, &slim),
                answer(&t, &full),
                "template {:?}\npaths {paths:?}\npruned {slim}",
                row["template"]
            );
            renders += 1;
        }
    }
    (parsed, pruned_templates, renders)
}

#[test]
fn a_render_reads_nothing_outside_its_read_paths() {
    let (Some(generated), Some(realworld), Some(ctx)) = (
        util::shared_file("conformance/liquid/templates.jsonl"),
        util::shared_file("conformance/liquid/realworld.jsonl"),
        util::shared_file("conformance/liquid/render-context.json"),
    ) else {
        return;
    };
    let ctx: Value = serde_json::from_str(&ctx).expect("render-context.json is JSON");
    let (parsed, used, renders) = check(&generated, &ctx);
    eprintln!("templates.jsonl: {used}/{parsed} templates with read paths, {renders} renders");
    assert!(parsed > 3000 && used > 2500, "{used}/{parsed}");
    let (parsed, used, renders) = check(&realworld, &ctx);
    eprintln!("realworld.jsonl: {used}/{parsed} templates with read paths, {renders} renders");
    assert!(parsed > 1000 && used > 900, "{used}/{parsed}");
}

#[test]
fn read_paths_stop_where_the_value_decides() {
    let paths = |src: &str| {
        CompiledTemplate::parse(src).unwrap().read_paths().map(|p| {
            p.into_iter()
                .map(|(r, k)| format!("{r}:{}", k.join(".")))
                .collect::<Vec<_>>()
        })
    };
    assert_eq!(
        paths("{{ a.b.c }}{{ a.tags.size }}{{ o[0].id }}{{ s['x.y'].max }}{{ a[k].z }}"),
        Some(
            vec!["a:b.c", "a:tags", "o:", "s:x.y.max", "a:", "k:"]
                .into_iter()
                .map(String::from)
                .collect()
        )
    );
    // a name bound anywhere is read whole, even where the analysis says it is a global read
    assert_eq!(
        paths("{{ x.a }}{% if false %}{% assign x = 1 %}{% endif %}{{ y.first }}"),
        Some(vec!["x:".to_string(), "y:".to_string()])
    );
    assert_eq!(
        paths("{% for i in list %}{% else %}{{ i.name }}{% endfor %}"),
        Some(vec!["list:".to_string()])
    );
    for opaque in [
        "{{ [k] }}",
        "{{ a[(1..n)].b }}",
        "{{ (1..n.m).size }}",
        "{{ list | where_exp: 'i', 'i.a == b.c' }}",
        "{% render k %}",
    ] {
        assert_eq!(paths(opaque), None, "{opaque}");
    }
    // A render fails at any other partial tag, after evaluating its arguments.
    assert_eq!(paths("{% include 'x' %}"), Some(Vec::new()));
    assert_eq!(
        paths("{{ a.b }}{% include f, k: v.w %}"),
        Some(vec!["a:b".to_string(), "v:w".to_string(), "f:".to_string()])
    );
}
