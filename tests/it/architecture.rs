//! The layering of ARCHITECTURE.md, held by a test. Every import of every
//! file of `src/` is read (`use` trees with their groups, `crate::`,
//! `super::` and `self::` paths, paths through a child module) and resolved
//! to the file that defines it, which gives the graph of which file imports
//! which. On that graph: no library module imports one of a higher layer,
//! no two files import each other (nor go round a longer cycle), and the
//! files inside `src/check/` and `src/run/` are ordered bottom up, each
//! importing only those below it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Bottom up, as ARCHITECTURE.md's table lists them; modules of one layer
/// may use each other.
const LAYERS: &[&[&str]] = &[
    &["rules", "tempfiles"],
    &["diagnostic"],
    &["names"],
    &["swar"],
    &["scan", "json"],
    &["schema"],
    &["check", "error"],
    &["bundle"],
    &["report"],
    &[
        "config",
        "select",
        "baseline",
        "bounded_read",
        "apply",
        "diff",
        "output",
    ],
    &["run"],
];

/// The files of `src/check/` and `src/run/`, bottom up: a file (or folder
/// of files, by its first name below the directory; `mod` is the
/// directory's `mod.rs`) imports only files of its own layer or below.
/// ARCHITECTURE.md tells the same order in words.
const ORDERS: &[(&str, &[&[&str]])] = &[
    (
        "check",
        &[
            // What every stage shares: findings and how they are built,
            // the dialect and encoding a file is read in, the fingerprint
            // table, where fixed chunks go, message text.
            &[
                "dialect",
                "encoding",
                "finding",
                "fixed_chunks",
                "fptable",
                "magic",
                "text",
            ],
            &["dates", "shapes"],
            &["cell_edits", "grammar", "options", "sheet"],
            // Chunks, and placing findings in them.
            &["chunk", "emit", "filter_grammar"],
            &["record"],
            &["header"],
            // The stages: a file's preamble, a row's checks, the fold's
            // cross-row rules, whole-file rewrites.
            &["preamble", "row"],
            &["cross", "sniff_tests", "split"],
            &["refs", "row_fixer"],
            &["batch", "chunk_check"],
            &["fold"],
            &["pipeline"],
            &["mod"],
        ],
    ),
    (
        "run",
        &[
            &["replace", "request"],
            &["copies", "split"],
            &["tally"],
            &["settings"],
            &["expand"],
            &["one_input", "validate"],
            &["passes", "show"],
            &["execute"],
            &["mod"],
        ],
    ),
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

// ---------------------------------------------------------------------
// Reading sources: tokens without comments, strings or characters.

/// Identifiers and punctuation, `::` as one token; comments, string,
/// character and byte literals dropped (a path in a doc comment or a
/// message imports nothing).
fn tokens(src: &str) -> Vec<String> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == 'r' && matches!(c.get(i + 1), Some('"') | Some('#')) && raw_string(&c, i) {
            i = skip_raw(&c, i + 1);
        } else if ch == 'b'
            && c.get(i + 1) == Some(&'r')
            && matches!(c.get(i + 2), Some('"') | Some('#'))
            && raw_string(&c, i + 1)
        {
            i = skip_raw(&c, i + 2);
        } else if ch == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if ch == '\'' {
            // A character literal ('a', '\n', '\u{1b}') or a lifetime ('a).
            if c.get(i + 1) == Some(&'\\') {
                // Past the quote, the backslash and the escaped character.
                i += 3;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(c[start..i].iter().collect());
        } else if ch.is_ascii_digit() {
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push("::".to_owned());
            i += 2;
        } else if ch.is_whitespace() {
            i += 1;
        } else {
            out.push(ch.to_string());
            i += 1;
        }
    }
    out
}

/// Whether `r` at `at` opens a raw string (`r"`, `r#"`), not an identifier.
fn raw_string(c: &[char], at: usize) -> bool {
    let before_ok = at == 0 || !(c[at - 1].is_alphanumeric() || c[at - 1] == '_');
    let mut j = at + 1;
    while c.get(j) == Some(&'#') {
        j += 1;
    }
    before_ok && c.get(j) == Some(&'"')
}

/// Skips a raw string whose hashes start at `at`; returns the index after it.
fn skip_raw(c: &[char], mut at: usize) -> usize {
    let mut hashes = 0;
    while c.get(at) == Some(&'#') {
        hashes += 1;
        at += 1;
    }
    at += 1;
    while at < c.len() {
        if c[at] == '"' && (1..=hashes).all(|k| c.get(at + k) == Some(&'#')) {
            return at + 1 + hashes;
        }
        at += 1;
    }
    at
}

/// The paths a `use` tree names, its groups expanded (`a::{b, c::{d, e}}`
/// is `a::b`, `a::c::d`, `a::c::e`); `self` in a group is its prefix, a
/// glob its prefix, an `as` rename dropped.
fn use_paths(tree: &[String]) -> Vec<Vec<String>> {
    fn walk(t: &[String], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut path = prefix.to_vec();
        // `self` in a group, or a glob: the prefix itself is named.
        let mut whole = false;
        while *i < t.len() {
            match t[*i].as_str() {
                "::" => *i += 1,
                "{" => {
                    *i += 1;
                    loop {
                        walk(t, i, &path, out);
                        match t.get(*i).map(String::as_str) {
                            Some(",") => {
                                *i += 1;
                                if t.get(*i).map(String::as_str) == Some("}") {
                                    *i += 1;
                                    return;
                                }
                            }
                            Some("}") => {
                                *i += 1;
                                return;
                            }
                            _ => return,
                        }
                    }
                }
                "," | "}" => break,
                "*" => {
                    whole = true;
                    *i += 1;
                }
                "as" => *i += 2,
                "self" if !path.is_empty() => {
                    whole = true;
                    *i += 1;
                }
                seg => {
                    path.push(seg.to_owned());
                    *i += 1;
                }
            }
        }
        if !path.is_empty() && (whole || path.as_slice() != prefix) {
            out.push(path);
        }
    }
    let mut out = Vec::new();
    let mut i = 0;
    // Leading `::` (an external crate) and visibility are gone by now.
    walk(tree, &mut i, &[], &mut out);
    out
}

/// What one file says: the modules it declares (`mod x;` and inline
/// `mod x { .. }`, by their path below the file's module) and every path
/// it names that may be ours, each with the module it is named in.
#[derive(Default)]
struct Said {
    file_mods: Vec<Vec<String>>,
    inline_mods: Vec<Vec<String>>,
    /// (module path below the file's, the path as written)
    paths: Vec<(Vec<String>, Vec<String>)>,
}

fn read(src: &str) -> Said {
    let t = tokens(src);
    let mut said = Said::default();
    // Inline modules open here: (its path below the file's, brace depth
    // inside it).
    let mut inline: Vec<(Vec<String>, usize)> = Vec::new();
    let mut depth = 0usize;
    let here = |inline: &Vec<(Vec<String>, usize)>| -> Vec<String> {
        inline.last().map(|(p, _)| p.clone()).unwrap_or_default()
    };
    let mut i = 0;
    while i < t.len() {
        match t[i].as_str() {
            "{" => depth += 1,
            "}" => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            "mod" if i + 2 < t.len() => {
                let mut path = here(&inline);
                path.push(t[i + 1].clone());
                match t[i + 2].as_str() {
                    ";" => said.file_mods.push(path),
                    "{" => {
                        said.inline_mods.push(path.clone());
                        depth += 1;
                        inline.push((path, depth));
                        i += 3;
                        continue;
                    }
                    _ => {}
                }
            }
            "use" => {
                let end = t[i..]
                    .iter()
                    .position(|s| s == ";")
                    .map_or(t.len(), |e| i + e);
                let mut tree = &t[i + 1..end];
                if tree.first().map(String::as_str) == Some("::") {
                    tree = &[];
                }
                for p in use_paths(tree) {
                    said.paths.push((here(&inline), p));
                }
                i = end + 1;
                continue;
            }
            _ if t.get(i + 1).map(String::as_str) == Some("::")
                && (i == 0 || t[i - 1] != "::")
                && is_ident(&t[i]) =>
            {
                let mut path = vec![t[i].clone()];
                let mut j = i + 1;
                while t.get(j).map(String::as_str) == Some("::")
                    && t.get(j + 1).is_some_and(|s| is_ident(s))
                {
                    path.push(t[j + 1].clone());
                    j += 2;
                }
                // `f::<T>` names no module.
                if path.len() > 1 {
                    said.paths.push((here(&inline), path));
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    said
}

fn is_ident(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

// ---------------------------------------------------------------------
// The graph.

/// Which file imports which: `from -> to -> a path as written`, over the
/// library (rooted at `src/lib.rs`) and the binary (`src/main.rs`).
#[derive(Default)]
struct Graph {
    edges: BTreeMap<String, BTreeMap<String, String>>,
    /// Every file of the crates' module trees.
    files: BTreeSet<String>,
}

impl Graph {
    /// Builds the graph of the sources in `files` (path like
    /// `src/check/mod.rs` to text).
    fn of(files: &BTreeMap<String, String>) -> Graph {
        let mut g = Graph::default();
        for root in ["src/lib.rs", "src/main.rs"] {
            if files.contains_key(root) {
                g.add_crate(files, root);
            }
        }
        g
    }

    fn add_crate(&mut self, files: &BTreeMap<String, String>, root: &str) {
        // Module path -> the file that holds it, from the root down.
        let mut modules: BTreeMap<Vec<String>, String> = BTreeMap::new();
        let mut said: BTreeMap<String, (Vec<String>, Said)> = BTreeMap::new();
        let mut todo = vec![(Vec::<String>::new(), root.to_owned())];
        while let Some((module, file)) = todo.pop() {
            let Some(text) = files.get(&file) else {
                continue;
            };
            let s = read(text);
            modules.insert(module.clone(), file.clone());
            for m in &s.inline_mods {
                modules.insert([&module[..], m].concat(), file.clone());
            }
            for m in &s.file_mods {
                let full = [&module[..], m].concat();
                let dir = format!("src/{}", full.join("/"));
                let file = [format!("{dir}.rs"), format!("{dir}/mod.rs")]
                    .into_iter()
                    .find(|f| files.contains_key(f));
                if let Some(f) = file {
                    todo.push((full, f));
                }
            }
            self.files.insert(file.clone());
            said.insert(file, (module, s));
        }
        for (file, (module, s)) in &said {
            for (below, path) in &s.paths {
                let at = [&module[..], below].concat();
                let Some(target) = resolve(&modules, &at, path) else {
                    continue;
                };
                if &target != file {
                    self.edges
                        .entry(file.clone())
                        .or_default()
                        .entry(target)
                        .or_insert_with(|| path.join("::"));
                }
            }
        }
    }

    fn imports(&self, from: &str, to: &str) -> Option<&String> {
        self.edges.get(from).and_then(|m| m.get(to))
    }

    /// Every pair of files that import each other, as a line each.
    fn mutual(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (a, tos) in &self.edges {
            for (b, why) in tos {
                if a < b {
                    if let Some(back) = self.imports(b, a) {
                        let how = if parent_of(a, b) || parent_of(b, a) {
                            "a parent and its child"
                        } else {
                            "two files"
                        };
                        out.push(format!("{a} <-> {b}, {how} ({a}: {why}; {b}: {back})"));
                    }
                }
            }
        }
        out
    }

    /// The files reachable from `from`.
    fn reach(&self, from: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_owned()];
        while let Some(f) = todo.pop() {
            for to in self.edges.get(&f).into_iter().flat_map(|m| m.keys()) {
                if seen.insert(to.clone()) {
                    todo.push(to.clone());
                }
            }
        }
        seen
    }

    /// Groups of three files or more that import each other round a cycle
    /// (two are [`Graph::mutual`]'s).
    fn cycles(&self) -> Vec<String> {
        let reach: BTreeMap<&String, BTreeSet<String>> =
            self.edges.keys().map(|f| (f, self.reach(f))).collect();
        let mut done = BTreeSet::new();
        let mut out = Vec::new();
        for (f, r) in &reach {
            if done.contains(*f) {
                continue;
            }
            let group: Vec<&String> = reach
                .iter()
                .filter(|(g, gr)| gr.contains(*f) && r.contains(**g))
                .map(|(g, _)| *g)
                .collect();
            done.extend(group.iter().map(|g| (*g).clone()));
            if group.len() > 2 {
                let names: Vec<&str> = group.iter().map(|s| s.as_str()).collect();
                out.push(format!("a cycle through {}", names.join(", ")));
            }
        }
        out
    }

    /// Imports from a library module to one of a higher layer of `layers`
    /// (by the first name under `src/`; files of no layer are skipped).
    fn upward(&self, layers: &[&[&str]]) -> Vec<String> {
        let top = |f: &str| -> Option<usize> {
            let name = f.strip_prefix("src/")?.split('/').next()?;
            let name = name.strip_suffix(".rs").unwrap_or(name);
            layers.iter().position(|l| l.contains(&name))
        };
        let mut out = Vec::new();
        for (a, tos) in &self.edges {
            for (b, why) in tos {
                if let (Some(la), Some(lb)) = (top(a), top(b)) {
                    if lb > la {
                        out.push(format!("{a} uses {why} ({b}, a higher layer)"));
                    }
                }
            }
        }
        out
    }

    /// Inside `src/<dir>/`: imports from a file to one of a higher layer of
    /// `order` (files by their first name below `dir`, `mod` for its
    /// `mod.rs`), and the files `order` does not list.
    fn misordered(&self, dir: &str, order: &[&[&str]]) -> Vec<String> {
        let mut out = Vec::new();
        let members = self.members(dir);
        for m in &members {
            if !order.iter().any(|l| l.contains(&m.as_str())) {
                out.push(format!("src/{dir}/{m}: not in the order of src/{dir}/"));
            }
        }
        let rank = |m: &str| order.iter().position(|l| l.contains(&m));
        for (a, tos) in &self.edges {
            for (b, why) in tos {
                let (Some(ma), Some(mb)) = (member(dir, a), member(dir, b)) else {
                    continue;
                };
                if let (Some(ra), Some(rb)) = (rank(&ma), rank(&mb)) {
                    if rb > ra {
                        out.push(format!("{a} uses {why} ({b}, above it in src/{dir}/)"));
                    }
                }
            }
        }
        out
    }

    /// The members of `src/<dir>/`.
    fn members(&self, dir: &str) -> BTreeSet<String> {
        self.files.iter().filter_map(|f| member(dir, f)).collect()
    }

    /// A bottom-up order of `src/<dir>/`'s members that today's imports
    /// allow, or the members left in cycles.
    fn suggest(&self, dir: &str) -> String {
        let mut left = self.members(dir);
        let deps = |m: &String| -> BTreeSet<String> {
            self.edges
                .iter()
                .filter(|(a, _)| member(dir, a).as_ref() == Some(m))
                .flat_map(|(_, tos)| tos.keys())
                .filter_map(|b| member(dir, b))
                .filter(|b| b != m)
                .collect()
        };
        let mut layers = Vec::new();
        while !left.is_empty() {
            let ready: Vec<String> = left
                .iter()
                .filter(|m| deps(m).iter().all(|d| !left.contains(d)))
                .cloned()
                .collect();
            if ready.is_empty() {
                let rest: Vec<String> = left.into_iter().collect();
                layers.push(format!("in or above a cycle: {}", rest.join(", ")));
                break;
            }
            for m in &ready {
                left.remove(m);
            }
            layers.push(ready.join(", "));
        }
        layers.join(" | ")
    }
}

/// Whether `parent` is the `mod.rs` (or crate root) whose module holds `child`.
fn parent_of(parent: &str, child: &str) -> bool {
    let dir = parent
        .strip_suffix("mod.rs")
        .or_else(|| parent.strip_suffix("lib.rs"))
        .or_else(|| parent.strip_suffix("main.rs"));
    dir.and_then(|d| child.strip_prefix(d))
        .is_some_and(|rest| !rest.trim_end_matches("/mod.rs").contains('/'))
}

/// The first name of `file` below `src/<dir>/` (`mod` for its `mod.rs`).
fn member(dir: &str, file: &str) -> Option<String> {
    let rest = file.strip_prefix(&format!("src/{dir}/"))?;
    let first = rest.split('/').next()?;
    Some(first.strip_suffix(".rs").unwrap_or(first).to_owned())
}

/// The file a path written in module `at` names, if it is one of ours.
fn resolve(
    modules: &BTreeMap<Vec<String>, String>,
    at: &[String],
    path: &[String],
) -> Option<String> {
    let mut abs: Vec<String> = Vec::new();
    let mut rest = path;
    match path.first()?.as_str() {
        "crate" => rest = &path[1..],
        "self" => {
            abs = at.to_vec();
            rest = &path[1..];
        }
        "super" => {
            abs = at.to_vec();
            while rest.first().map(String::as_str) == Some("super") {
                abs.pop()?;
                rest = &rest[1..];
            }
        }
        first => {
            // A child module of the module it is named in (2018 paths);
            // anything else is an external crate, a type or a local.
            let child = [at, &[first.to_owned()]].concat();
            if !modules.contains_key(&child) {
                return None;
            }
            abs = at.to_vec();
        }
    }
    abs.extend(rest.iter().cloned());
    (0..=abs.len())
        .rev()
        .find_map(|n| modules.get(&abs[..n]))
        .cloned()
}

// ---------------------------------------------------------------------
// The real tree.

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src is readable") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn tree() -> Graph {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    sources(&root.join("src"), &mut paths);
    let files: BTreeMap<String, String> = paths
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root).expect("under the package");
            let name = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            (name, std::fs::read_to_string(&p).expect("readable"))
        })
        .collect();
    Graph::of(&files)
}

#[test]
fn no_module_uses_one_of_a_higher_layer() {
    let problems = tree().upward(LAYERS);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_library_module_has_a_layer() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("lib.rs");
    for line in lib.lines() {
        if let Some(m) = line.strip_prefix("pub mod ") {
            let m = m.trim_end_matches(';');
            assert!(
                layer(m).is_some(),
                "src/{m}: add it to ARCHITECTURE.md and LAYERS"
            );
        }
    }
}

/// The graph of the real tree is read: a few imports known to exist are
/// in it, so the tests below do not pass on an empty graph.
#[test]
fn the_real_graph_has_known_imports() {
    let g = tree();
    assert!(g.imports("src/main.rs", "src/cli.rs").is_some());
    assert!(g.imports("src/run/mod.rs", "src/run/tally.rs").is_some());
    assert!(g.edges.len() > 40, "{} files import", g.edges.len());
}

#[test]
fn no_two_files_import_each_other() {
    let g = tree();
    let mut problems = g.mutual();
    problems.extend(g.cycles());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn files_inside_check_and_run_are_ordered() {
    let g = tree();
    let mut problems = Vec::new();
    for (dir, order) in ORDERS {
        let found = g.misordered(dir, order);
        if !found.is_empty() {
            problems.extend(found);
            problems.push(format!(
                "an order of src/{dir}/ today's imports allow, bottom up: {}",
                g.suggest(dir)
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---------------------------------------------------------------------
// The machinery, on synthetic sources.

fn graph(files: &[(&str, &str)]) -> Graph {
    Graph::of(
        &files
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect(),
    )
}

fn paths(src: &str) -> Vec<String> {
    read(src).paths.iter().map(|(_, p)| p.join("::")).collect()
}

#[test]
fn use_trees_are_read_with_nested_groups_self_and_renames() {
    let got = paths(
        "pub(crate) use crate::{a::B, c::{self, d::{E as F, *}}, g};\nuse super::h::I;\nuse self::j;\nuse std::io;",
    );
    assert_eq!(
        got,
        [
            "crate::a::B",
            "crate::c",
            "crate::c::d::E",
            "crate::c::d",
            "crate::g",
            "super::h::I",
            "self::j",
            "std::io"
        ]
    );
}

#[test]
fn comments_strings_and_characters_import_nothing() {
    let got = paths(
        "/// see [`crate::a::B`]\n// crate::b\n/* crate::c /* nested */ crate::d */\nfn f() { let _ = \"crate::e\"; let _ = r#\"crate::f\"#; let _ = '\"'; let _ = '\\''; g::<'static>(); crate::h::i(); }",
    );
    assert_eq!(got, ["crate::h::i"]);
}

#[test]
fn a_grouped_import_breaking_the_layering_is_detected() {
    let g = graph(&[
        ("src/lib.rs", "pub mod low;\npub mod high;"),
        ("src/low.rs", "use crate::{high::Thing, low::Own};"),
        ("src/high.rs", "use crate::low::Own;"),
    ]);
    let found = g.upward(&[&["low"], &["high"]]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("src/low.rs uses crate::high::Thing"),
        "{found:?}"
    );
}

#[test]
fn a_super_import_of_a_parent_that_imports_the_child_back_is_detected() {
    let g = graph(&[
        ("src/lib.rs", "pub mod check;"),
        (
            "src/check/mod.rs",
            "mod row;\npub fn run() { row::check(); }\npub struct Emitter;",
        ),
        ("src/check/row.rs", "use super::Emitter;\npub fn check() {}"),
    ]);
    assert_eq!(
        g.mutual(),
        ["src/check/mod.rs <-> src/check/row.rs, a parent and its child (src/check/mod.rs: row::check; src/check/row.rs: super::Emitter)"]
    );
    // The parent at the top of the order: the child's import is upward.
    let found = g.misordered("check", &[&["row"], &["mod"]]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("super::Emitter"), "{found:?}");
}

#[test]
fn a_mutual_import_between_siblings_is_detected_through_any_path_form() {
    let g = graph(&[
        ("src/lib.rs", "pub mod run;"),
        ("src/run/mod.rs", "mod files;\nmod fix;"),
        ("src/run/files.rs", "use super::{fix::{self, Pass}};"),
        ("src/run/fix.rs", "fn f() { crate::run::files::go(); }"),
    ]);
    assert_eq!(g.mutual().len(), 1, "{:?}", g.mutual());
    assert!(g.mutual()[0].starts_with("src/run/files.rs <-> src/run/fix.rs"));
    let order: &[&[&str]] = &[&["fix"], &["files"], &["mod"]];
    let found = g.misordered("run", order);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("src/run/fix.rs uses crate::run::files::go"),
        "{found:?}"
    );
}

#[test]
fn longer_cycles_are_detected() {
    let g = graph(&[
        ("src/lib.rs", "pub mod a;\npub mod b;\npub mod c;"),
        ("src/a.rs", "use crate::b::X;"),
        ("src/b.rs", "use crate::c::Y;"),
        ("src/c.rs", "use crate::a::Z;"),
    ]);
    assert!(g.mutual().is_empty());
    assert_eq!(g.cycles(), ["a cycle through src/a.rs, src/b.rs, src/c.rs"]);
}

#[test]
fn inline_test_modules_and_nested_files_resolve_to_their_files() {
    let g = graph(&[
        ("src/lib.rs", "pub mod check;"),
        (
            "src/check/mod.rs",
            "mod row;\npub struct Options;\n#[cfg(test)]\nmod tests { use super::*; use super::row::Plan; }",
        ),
        ("src/check/row/mod.rs", "mod quick;\nuse self::quick::Fast;\npub struct Plan;"),
        ("src/check/row/quick.rs", "use super::super::Options;\npub struct Fast;"),
    ]);
    // `super` in the tests module is check/mod.rs itself: no edge.
    assert!(g
        .imports("src/check/mod.rs", "src/check/row/mod.rs")
        .is_some());
    assert!(g
        .imports("src/check/row/mod.rs", "src/check/row/quick.rs")
        .is_some());
    assert!(g
        .imports("src/check/row/quick.rs", "src/check/mod.rs")
        .is_some());
    // A folder counts as one member of its directory's order.
    assert_eq!(g.suggest("check"), "in or above a cycle: mod, row");
    let unlisted = g.misordered("check", &[&["mod"]]);
    assert_eq!(unlisted, ["src/check/row: not in the order of src/check/"]);
}

#[test]
fn a_clean_order_is_suggested_bottom_up() {
    let g = graph(&[
        ("src/lib.rs", "pub mod check;"),
        ("src/check/mod.rs", "mod emit;\nmod row;\nuse row::Plan;"),
        ("src/check/emit.rs", "pub struct Emitter;"),
        (
            "src/check/row.rs",
            "use super::emit::Emitter;\npub struct Plan;",
        ),
    ]);
    assert_eq!(g.suggest("check"), "emit | row | mod");
    assert!(g
        .misordered("check", &[&["emit"], &["row"], &["mod"]])
        .is_empty());
}
