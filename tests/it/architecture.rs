//! The layering of ARCHITECTURE.md, held by a test: no library module
//! names (`crate::<module>`) a module of a higher layer, so there is no
//! import cycle between them.

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
    &["config", "filter", "baseline", "files", "fix", "output"],
    &["run"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

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

#[test]
fn no_module_uses_one_of_a_higher_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut problems = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&src).expect("under src");
        let top = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .expect("utf-8")
            .trim_end_matches(".rs")
            .to_owned();
        // The binary, the crate root and test helpers use everything.
        let Some(own) = layer(&top) else { continue };
        let text = std::fs::read_to_string(&f).expect("readable");
        for (at, _) in text.match_indices("crate::") {
            let name: String = text[at + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if let Some(theirs) = layer(&name) {
                if theirs > own {
                    problems.push(format!("{} uses crate::{name}", rel.display()));
                }
            }
        }
    }
    problems.sort();
    problems.dedup();
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
