//! Fixture tests over `testdata/<format>/*.csv`.
//!
//! - `valid*.csv` must produce no diagnostic at all (bar the deprecation
//!   notice of a deprecated format), and its format must be detected from the
//!   header alone.
//! - Any other fixture is named after the rule it exercises
//!   (`<rule-name>.csv` or `<rule-name>.<case>.csv`) and must produce at
//!   least one diagnostic of that rule when checked as its directory's
//!   format. Every diagnostic it produces (code, line, column, message, and
//!   the earlier lines it relates to) is snapshot-tested, so a reviewer reads the exact output in the diff.
//! - `testdata/batch/<case>/` is one run of several formats: every file
//!   checks clean on its own, `clean/` has no batch finding either, and
//!   `failing/` fires each batch rule exactly once (snapshot-tested).
//! - Every rule in the registry has at least one fixture, bar the bundle
//!   rules (tests/it/bundle.rs) and `unknown-format`, which only a directory
//!   walk shows (tests/it/cli.rs).
//! - Every rule's declared fix (none, safe, unsafe or both; always or
//!   sometimes) is what the findings of the fixtures, the batch and the
//!   fix pairs carry.

use bdxlint::check::batch::{self, BatchInput};
use bdxlint::check::{check_path, Options};
use bdxlint::diagnostic::Diagnostic;
use bdxlint::rules;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

/// Every fixture as (format dir, file path), sorted.
fn fixtures() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(testdata()).expect("testdata/ exists") {
        let dir = dir.expect("entry").path();
        if !dir.is_dir() {
            continue;
        }
        let format = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("utf-8")
            .to_owned();
        if bdxlint::schema::format_names().all(|n| n != format) {
            continue;
        }
        for f in std::fs::read_dir(&dir).expect("format dir") {
            let f = f.expect("entry").path();
            if f.extension().is_some_and(|e| e == "csv") {
                out.push((format.clone(), f));
            }
        }
    }
    out.sort();
    out
}

fn stem(path: &Path) -> String {
    let name = path.file_name().and_then(|n| n.to_str()).expect("utf-8");
    name.trim_end_matches(".csv")
        .split('.')
        .next()
        .expect("non-empty")
        .to_owned()
}

/// Diagnostics a valid file may carry: only the notice that its whole format
/// is deprecated.
fn unexpected_in_valid(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| {
            !l.starts_with("    help:")
                && !l.starts_with("    related:")
                && !l.contains(" deprecated-format ")
        })
        .collect()
}

fn render(path: &Path, format: Option<&str>) -> Result<(String, Vec<&'static str>), String> {
    let opts = Options {
        format: format.map(str::to_owned),
        snippets: false,
        ..Options::default()
    };
    let report = check_path(path, &opts).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(render_diags(&report.diagnostics))
}

/// Diagnostics as snapshot text, and the names of their rules.
fn render_diags(diags: &[Diagnostic]) -> (String, Vec<&'static str>) {
    let mut text = String::new();
    let mut codes = Vec::new();
    for d in diags {
        codes.push(d.rule.name);
        text.push_str(&format!(
            "{}:{}: {} {} [{}] {} (column: {}, span: {}..{})\n    help: {}\n",
            d.line,
            d.col,
            d.rule.code,
            d.rule.name,
            d.severity,
            d.message,
            d.column.as_deref().unwrap_or("-"),
            d.span.start,
            d.span.end,
            d.help.as_deref().unwrap_or("-"),
        ));
        for r in &d.related {
            text.push_str(&format!(
                "    related: line {} (column: {}): {}\n",
                r.line,
                r.column.as_deref().unwrap_or("-"),
                r.message
            ));
        }
    }
    (text, codes)
}

#[test]
fn every_format_has_a_valid_fixture_that_checks_clean_and_is_detected() {
    for format in bdxlint::schema::format_names() {
        let path = testdata().join(format).join("valid.csv");
        assert!(path.exists(), "{} is missing", path.display());
        let (text, _) = render(&path, None).unwrap_or_else(|e| panic!("{e}"));
        let unexpected = unexpected_in_valid(&text);
        assert!(
            unexpected.is_empty(),
            "{} is not clean:\n{text}",
            path.display()
        );
        let opts = Options {
            snippets: false,
            ..Options::default()
        };
        let report = check_path(&path, &opts).expect("checks");
        assert_eq!(report.format, Some(format), "{} detected", path.display());
        assert!(report.records > 0, "{} has rows", path.display());
    }
}

#[test]
fn failing_fixtures_fire_their_rule_and_match_snapshots() {
    let mut failures = Vec::new();
    for (format, path) in fixtures() {
        let rule = stem(&path);
        if rule == "valid" {
            let text = match render(&path, None) {
                Ok((text, _)) => text,
                Err(e) => {
                    failures.push(e);
                    continue;
                }
            };
            if !unexpected_in_valid(&text).is_empty() {
                failures.push(format!("{} is not clean:\n{text}", path.display()));
            }
            continue;
        }
        if rules::lookup(&rule).is_none() {
            failures.push(format!(
                "{}: fixture is not named after a rule",
                path.display()
            ));
            continue;
        }
        let (text, codes) = match render(&path, Some(&format)) {
            Ok(r) => r,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        if !codes.contains(&rule.as_str()) {
            failures.push(format!("{}: no {rule} in\n{text}", path.display()));
        }
        let name = path
            .strip_prefix(testdata())
            .expect("under testdata")
            .to_string_lossy()
            .replace(['/', '\\'], "__");
        insta::with_settings!({
            snapshot_path => "snapshots/fixtures",
            prepend_module_to_snapshot => false,
            omit_expression => true,
            description => path.strip_prefix(env!("CARGO_MANIFEST_DIR")).expect("in repo").display().to_string(),
        }, {
            insta::assert_snapshot!(name, text);
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A batch directory, as the CLI runs it: every file checked on its own
/// (which must be clean), then the batch checks over all of them. Returns
/// the batch findings rendered per file, and their rule names. Paths are
/// relative to the package root (the tests' working directory), as the
/// messages quote them.
fn run_batch(case: &str) -> (String, Vec<&'static str>) {
    let dir = Path::new("testdata/batch").join(case);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("batch dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    paths.sort();
    let opts = Options {
        snippets: false,
        ..Options::default()
    };
    let formats: Vec<&'static str> = paths
        .iter()
        .map(|p| {
            let report = check_path(p, &opts).unwrap_or_else(|e| panic!("{e}"));
            let (text, _) = render_diags(&report.diagnostics);
            assert!(
                text.is_empty(),
                "{} alone is not clean:\n{text}",
                p.display()
            );
            report.format.expect("detected")
        })
        .collect();
    let inputs: Vec<BatchInput<'_>> = paths
        .iter()
        .zip(&formats)
        .enumerate()
        .map(|(index, (path, format))| BatchInput {
            index,
            path,
            format,
        })
        .collect();
    let found = batch::check_batch(&inputs, &opts).expect("batch reads");
    let mut text = String::new();
    let mut codes = Vec::new();
    for (index, diags) in found {
        let (t, c) = render_diags(&diags);
        text.push_str(&format!("{}\n{t}", paths[index].display()));
        codes.extend(c);
    }
    (text, codes)
}

#[test]
fn the_clean_batch_is_silent_and_the_failing_batch_fires_each_rule_once() {
    let (text, _) = run_batch("clean");
    assert!(text.is_empty(), "clean batch:\n{text}");
    let (text, codes) = run_batch("failing");
    for r in batch::RULES {
        let n = codes.iter().filter(|c| **c == r.name).count();
        assert_eq!(n, 1, "{} fired {n} times in\n{text}", r.name);
    }
    assert_eq!(codes.len(), batch::RULES.len(), "{text}");
    insta::with_settings!({
        snapshot_path => "snapshots/fixtures",
        prepend_module_to_snapshot => false,
        omit_expression => true,
        description => "testdata/batch/failing",
    }, {
        insta::assert_snapshot!("batch__failing", text);
    });
}

/// Issue 30: a reference that differs from a defined key only in case or
/// spaces says which key it probably means (`near-miss/`); the same
/// references written as the keys are (`clean/`) say nothing.
#[test]
fn a_reference_that_differs_only_in_case_or_spaces_says_which_key_it_means() {
    let (text, codes) = run_batch("near-miss");
    assert_eq!(codes, ["undefined-filter", "undefined-filter"], "{text}");
    assert_eq!(
        text.matches("did you mean the `ID` of").count(),
        2,
        "{text}"
    );
    insta::with_settings!({
        snapshot_path => "snapshots/fixtures",
        prepend_module_to_snapshot => false,
        omit_expression => true,
        description => "testdata/batch/near-miss",
    }, {
        insta::assert_snapshot!("batch__near-miss", text);
    });
}

#[test]
fn every_rule_has_a_failing_fixture() {
    let mut named: BTreeSet<String> = fixtures().iter().map(|(_, p)| stem(p)).collect();
    named.extend(run_batch("failing").1.iter().map(|n| n.to_string()));
    let missing: Vec<&str> = rules::ALL
        .iter()
        // The bundle rules are asserted by tests/it/bundle.rs, whose fixtures
        // are archives built by the test itself.
        .filter(|r| !r.code.starts_with('B') || batch::RULES.contains(r))
        // `unknown-format` fires only for a file a directory walk found, so
        // no single file checked as its directory's format can show it:
        // tests/it/cli.rs walks a directory for it
        // (`a_walked_csv_of_no_format_is_a_warning_and_a_named_one_exit_2`).
        .filter(|r| r.code != rules::UNKNOWN_FORMAT.code)
        .map(|r| r.name)
        .filter(|n| !named.contains(*n))
        .collect();
    assert!(missing.is_empty(), "rules without a fixture: {missing:?}");
}

/// Every finding of the fixtures, the failing batch and the damaged files
/// of the fix pairs (`testdata/fixes/<format>/`), each checked as its
/// directory's format.
fn every_finding() -> Vec<Diagnostic> {
    let opts = |format: &str| Options {
        format: Some(format.to_owned()),
        snippets: false,
        ..Options::default()
    };
    let mut files = fixtures();
    for dir in std::fs::read_dir(testdata().join("fixes")).expect("testdata/fixes") {
        let dir = dir.expect("entry").path();
        let format = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("utf-8")
            .to_owned();
        for f in std::fs::read_dir(&dir).expect("format dir") {
            let f = f.expect("entry").path();
            let name = f.file_name().and_then(|n| n.to_str()).expect("utf-8");
            if name.ends_with(".csv") && !name.ends_with(".fixed.csv") {
                files.push((format.clone(), f));
            }
        }
    }
    let mut out = Vec::new();
    for (format, path) in files {
        let report =
            check_path(&path, &opts(&format)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        out.extend(report.diagnostics);
    }
    let dir = Path::new("testdata/batch/failing");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("batch dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    paths.sort();
    let plain = Options {
        snippets: false,
        ..Options::default()
    };
    let formats: Vec<&'static str> = paths
        .iter()
        .map(|p| {
            let report = check_path(p, &plain).unwrap_or_else(|e| panic!("{e}"));
            out.extend(report.diagnostics);
            report.format.expect("detected")
        })
        .collect();
    let inputs: Vec<BatchInput<'_>> = paths
        .iter()
        .zip(&formats)
        .enumerate()
        .map(|(index, (path, format))| BatchInput {
            index,
            path,
            format,
        })
        .collect();
    for (_, diags) in batch::check_batch(&inputs, &plain).expect("batch reads") {
        out.extend(diags);
    }
    out
}

/// Issue 28: `spreadsheet-date` applied unsafe fixes while `rules`,
/// `explain`, the rules JSON and the README said it had none. A rule's
/// declared fix is held to what its findings carry, both ways: a rule
/// without one has no finding with a fix; one declared safe (unsafe) has
/// findings with safe (unsafe) fixes and none with the other, `both` has
/// findings with each; one always available has no finding without it.
#[test]
fn every_rule_declares_the_fixes_its_findings_carry() {
    use bdxlint::diagnostic::Applicability;
    use bdxlint::rules::{FixAvailability, FixSafety};
    use std::collections::BTreeMap;
    // Per rule: the applicabilities seen, and whether a finding had none.
    let mut seen: BTreeMap<&'static str, (BTreeSet<Applicability>, bool)> = BTreeMap::new();
    for d in every_finding() {
        let e = seen.entry(d.rule.code).or_default();
        match &d.fix {
            Some(f) => {
                e.0.insert(f.applicability);
            }
            None => e.1 = true,
        }
    }
    let mut wrong = Vec::new();
    for r in rules::ALL {
        let (applies, without) = seen.get(r.code).cloned().unwrap_or_default();
        let has = |a| applies.contains(&a);
        let (safe, unsafe_) = (has(Applicability::Safe), has(Applicability::Unsafe));
        match &r.fix {
            None if safe || unsafe_ => wrong.push(format!(
                "{} declares no fix; its findings carry {applies:?}",
                r.code
            )),
            None => {}
            Some(doc) => {
                let want = match doc.safety {
                    FixSafety::Safe => (true, false),
                    FixSafety::Unsafe => (false, true),
                    FixSafety::Both => (true, true),
                };
                if (safe, unsafe_) != want {
                    wrong.push(format!(
                        "{} declares {} fixes; the fixtures' findings carry {applies:?}",
                        r.code,
                        doc.safety.as_str()
                    ));
                }
                if doc.availability == FixAvailability::Always && without {
                    wrong.push(format!(
                        "{} declares a fix always available; a finding has none",
                        r.code
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
