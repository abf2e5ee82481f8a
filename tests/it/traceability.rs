//! Traceability: every check of every table in `rules/` quotes the spec
//! words it enforces, each quote is found in the spec, and a check that
//! only warns names the clause of the severity principle that makes it
//! soft (top of `rules/README.md`). An error-level check names no clause:
//! the spec's words reject what it flags.

use bdxlint::schema::{normalize_quote, tables};
use std::path::Path;

/// The spec the tables transcribe, as the repository carries it.
fn spec() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/spec/bulk-data-exchange-api.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_check_quotes_the_spec_and_every_warning_names_its_clause() {
    let spec = normalize_quote(&spec());
    let mut problems = Vec::new();
    for t in tables().expect("tables parse") {
        for c in t.checks() {
            let at = format!("rules/{}.toml, {}", t.name, c.what);
            let fragments: Vec<&str> = c.trace.fragments().collect();
            if fragments.is_empty() {
                problems.push(format!("{at}: no `spec` quote"));
            }
            for f in fragments {
                if !spec.contains(&normalize_quote(f)) {
                    problems.push(format!("{at}: quote {f:?} is not in the spec"));
                }
            }
            match (c.warns, c.trace.clause) {
                (true, None) => problems.push(format!(
                    "{at}: warns, but names no `clause` (soft, silent, contradiction, platform-state)"
                )),
                (false, Some(k)) => problems.push(format!(
                    "{at}: every finding is an error, yet it names clause {:?}",
                    k.name()
                )),
                _ => {}
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The repository's copy of the spec is the shared one, where a checkout
/// sits beside it (a clean clone in CI does not: then there is nothing to
/// compare).
#[test]
fn the_vendored_spec_is_the_shared_spec() {
    let shared =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/spec/bulk-data-exchange-api.md");
    if let Ok(text) = std::fs::read_to_string(shared) {
        assert_eq!(
            text,
            spec(),
            "docs/spec is out of date: copy the shared spec"
        );
    }
}
