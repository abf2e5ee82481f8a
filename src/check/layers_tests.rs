//! The folder's layering, held by a test: no file of `check/` uses an item
//! of `mod.rs` (through `super::` or `crate::check::`), and the files'
//! uses of each other make no cycle, so each has a place in a bottom-up
//! order. Test code (a `#[cfg(test)]` module at the bottom of a file) may
//! use anything.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The first path segments a text names after `super::` or
/// `crate::check::`, grouped imports (`super::{a, b::C}`) read whole.
fn named(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for prefix in ["super::", "crate::check::"] {
        for (at, _) in code.match_indices(prefix) {
            let rest = &code[at + prefix.len()..];
            let group = match rest.strip_prefix('{') {
                Some(inner) => inner[..inner.find('}').unwrap_or(inner.len())].to_owned(),
                None => rest.to_owned(),
            };
            let items: Vec<&str> = if rest.starts_with('{') {
                group.split(',').collect()
            } else {
                vec![group.as_str()]
            };
            for item in items {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != "self" {
                    out.push(name);
                }
            }
        }
    }
    out
}

/// A file's code without its test module and comments.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod ").next().unwrap_or(text);
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn no_file_uses_mod_rs_and_no_uses_make_a_cycle() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/check");
    let mut files = BTreeMap::new();
    for e in std::fs::read_dir(&dir).expect("src/check is readable") {
        let p = e.expect("an entry").path();
        let (name, file) = if p.is_dir() {
            (p.file_name(), p.join("mod.rs"))
        } else {
            (p.file_stem(), p.clone())
        };
        let name = name.and_then(|n| n.to_str()).expect("UTF-8").to_owned();
        if name == "mod" || name.ends_with("_tests") || !file.is_file() {
            continue;
        }
        files.insert(name, std::fs::read_to_string(&file).expect("readable"));
    }
    let mut uses: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut problems = Vec::new();
    for (name, text) in &files {
        let deps = uses.entry(name.as_str()).or_default();
        for n in named(&code(text)) {
            match files.get_key_value(&n) {
                Some((k, _)) if k != name => {
                    deps.insert(k.as_str());
                }
                Some(_) => {}
                None => problems.push(format!("{name}.rs uses `{n}` of check/mod.rs")),
            }
        }
    }
    // Depth first: a file met again while still open closes a cycle.
    fn visit<'a>(
        n: &'a str,
        uses: &BTreeMap<&'a str, BTreeSet<&'a str>>,
        open: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
        problems: &mut Vec<String>,
    ) {
        if done.contains(n) {
            return;
        }
        if let Some(at) = open.iter().position(|o| *o == n) {
            problems.push(format!("a cycle: {} -> {n}", open[at..].join(" -> ")));
            return;
        }
        open.push(n);
        for d in uses.get(n).into_iter().flatten() {
            visit(d, uses, open, done, problems);
        }
        open.pop();
        done.insert(n);
    }
    let mut done = BTreeSet::new();
    for n in uses.keys() {
        visit(n, &uses, &mut Vec::new(), &mut done, &mut problems);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn grouped_and_parent_imports_are_read() {
    assert_eq!(
        named("use super::{emit::Emitter, finding};\nuse crate::check::Options;"),
        ["emit", "finding", "Options"]
    );
}
