//! The renderers of `sarif`, `github`, `gitlab`, `junit` and `rdjsonl` as
//! they were before they became streaming `Report`s, kept only while the
//! writers are proven to print the same bytes on every fixture.

mod github;
mod gitlab;
mod junit;
mod rdjsonl;
mod sarif;

use super::spill::Spill;
use super::{Failure, HumanOptions, OutputFormat, Report, Summary};
use crate::check::batch::{self, BatchInput};
use crate::check::{check_path, Options};
use crate::diagnostic::{Diagnostic, FileReport};
use std::path::{Path, PathBuf};

const FORMATS: [OutputFormat; 5] = [
    OutputFormat::Sarif,
    OutputFormat::Github,
    OutputFormat::Gitlab,
    OutputFormat::Junit,
    OutputFormat::Rdjsonl,
];

pub(super) fn old(format: OutputFormat, reports: &[FileReport], failures: &[Failure]) -> Vec<u8> {
    let mut out = Vec::new();
    match format {
        OutputFormat::Sarif => sarif::render(&mut out, reports, failures),
        OutputFormat::Github => github::render(&mut out, reports, failures),
        OutputFormat::Gitlab => gitlab::render(&mut out, reports, failures),
        OutputFormat::Junit => junit::render(&mut out, reports, failures),
        OutputFormat::Rdjsonl => rdjsonl::render(&mut out, reports, failures),
        OutputFormat::Human | OutputFormat::Concise | OutputFormat::Json | OutputFormat::Jsonl => {
            unreachable!("not an old renderer")
        }
    }
    .expect("renders");
    out
}

/// Through `report::render`, spills in memory.
fn rendered(format: OutputFormat, reports: &[FileReport], failures: &[Failure]) -> Vec<u8> {
    let mut out = Vec::new();
    let s = Summary::of(reports, failures);
    super::render(
        &mut out,
        format,
        reports,
        failures,
        &s,
        &HumanOptions::default(),
    )
    .expect("renders");
    out
}

/// Through the writer with every spill on disk.
fn on_disk(format: OutputFormat, reports: &[FileReport], failures: &[Failure]) -> Vec<u8> {
    let mut out = Vec::new();
    let s = Summary::of(reports, failures);
    {
        let mut w: Box<dyn Report + '_> = match format {
            OutputFormat::Sarif => Box::new(super::sarif::SarifWriter::spilling(
                &mut out,
                Spill::with_limit(0),
            )),
            OutputFormat::Junit => Box::new(super::junit::JunitWriter::spilling(
                &mut out,
                Spill::with_limit(0),
                Spill::with_limit(0),
            )),
            OutputFormat::Github
            | OutputFormat::Gitlab
            | OutputFormat::Rdjsonl
            | OutputFormat::Human
            | OutputFormat::Concise
            | OutputFormat::Json
            | OutputFormat::Jsonl => {
                super::writer(&mut out, format, &HumanOptions::default()).expect("writer")
            }
        };
        super::replay(&mut *w, reports, failures, &s).expect("renders");
    }
    out
}

fn same(what: &str, reports: &[FileReport], failures: &[Failure]) {
    for format in FORMATS {
        let want = old(format, reports, failures);
        for (how, got) in [
            ("render", rendered(format, reports, failures)),
            ("on disk", on_disk(format, reports, failures)),
        ] {
            if got != want {
                let (w, g) = (
                    String::from_utf8_lossy(&want),
                    String::from_utf8_lossy(&got),
                );
                let at = w
                    .bytes()
                    .zip(g.bytes())
                    .position(|(a, b)| a != b)
                    .unwrap_or(w.len().min(g.len()));
                panic!(
                    "{what}, {format:?} ({how}) differs at byte {at}:\nold: {:?}\nnew: {:?}",
                    &w[at.saturating_sub(200)..(at + 200).min(w.len())],
                    &g[at.saturating_sub(200)..(at + 200).min(g.len())],
                );
            }
        }
    }
}

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

fn csv_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("readable") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            csv_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "csv") {
            out.push(p);
        }
    }
}

/// Every CSV under testdata/, checked as its directory's format when the
/// directory is named after one (as tests/fixtures.rs does), with paths
/// relative to the package root as the binary prints them.
fn fixtures() -> (Vec<FileReport>, Vec<Failure>) {
    let mut paths = Vec::new();
    csv_files(&testdata(), &mut paths);
    paths.sort();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut reports = Vec::new();
    let mut failures = Vec::new();
    for p in paths {
        let dir = p
            .parent()
            .and_then(Path::file_name)
            .and_then(|n| n.to_str())
            .expect("utf-8");
        let format = crate::schema::format_names()
            .any(|n| n == dir)
            .then(|| dir.to_owned());
        let opts = Options {
            format,
            ..Options::default()
        };
        let rel = p.strip_prefix(root).expect("under the root");
        match check_path(&p, &opts) {
            Ok(mut r) => {
                r.path = rel.display().to_string();
                reports.push(r);
            }
            Err(e) => failures.push(Failure {
                path: rel.display().to_string(),
                reason: e.to_string(),
            }),
        }
    }
    (reports, failures)
}

#[test]
fn every_fixture_alone_renders_as_before() {
    let (reports, failures) = fixtures();
    assert!(reports.len() > 300, "{}", reports.len());
    for r in &reports {
        same(&r.path, std::slice::from_ref(r), &[]);
    }
    for f in &failures {
        same(&f.path, &[], std::slice::from_ref(f));
    }
}

#[test]
fn all_fixtures_as_one_run_render_as_before() {
    let (mut reports, mut failures) = fixtures();
    failures.push(Failure {
        path: "missing dir/nope.csv".into(),
        reason: "cannot read \"missing dir/nope.csv\": No such file <&>\n".into(),
    });
    same("all", &reports, &failures);
    same("all, no failures", &reports, &[]);
    // As ZIP members: the location is `archive:member`, escaped in URIs.
    for (i, r) in reports.iter_mut().enumerate() {
        r.member = Some(format!("dir {i}/m:{}", r.path));
        r.path = "./b%1 & <x>.zip".into();
    }
    same("members", &reports, &failures);
}

#[test]
fn empty_runs_render_as_before() {
    same("nothing", &[], &[]);
    let clean = FileReport {
        path: "a.csv".into(),
        format: Some("employees"),
        records: 3,
        diagnostics: Vec::new(),
        member: None,
    };
    same("clean", std::slice::from_ref(&clean), &[]);
    let f = Failure {
        path: "b.csv".into(),
        reason: "gone".into(),
    };
    same("failure only", &[], std::slice::from_ref(&f));
    same("clean and failure", &[clean], &[f]);
}

/// The batch fixtures as the run layer merges them: each file's own
/// findings and its batch findings, sorted together.
#[test]
fn batch_runs_render_as_before() {
    for case in ["clean", "failing"] {
        let dir = testdata().join("batch").join(case);
        let mut paths = Vec::new();
        csv_files(&dir, &mut paths);
        paths.sort();
        let opts = Options::default();
        let mut reports: Vec<FileReport> = paths
            .iter()
            .map(|p| check_path(p, &opts).expect("checks"))
            .collect();
        let inputs: Vec<BatchInput<'_>> = paths
            .iter()
            .zip(&reports)
            .enumerate()
            .map(|(index, (path, r))| BatchInput {
                index,
                path,
                format: r.format.expect("detected"),
            })
            .collect();
        for (index, diags) in batch::check_batch(&inputs, &opts).expect("batch") {
            let r = &mut reports[index];
            r.diagnostics.extend(diags);
            r.diagnostics
                .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        }
        same(case, &reports, &[]);
    }
}

/// Testcase names repeat when findings share rule, line, column and
/// header: in position order, and in a second sorted block of other rules
/// appended as a streamed run appends reference and batch findings.
#[test]
fn repeated_testcase_names_render_as_before() {
    let (reports, _) = fixtures();
    let all: Vec<&Diagnostic> = reports.iter().flat_map(|r| &r.diagnostics).collect();
    let pick = |code: &str| -> Diagnostic {
        (*all.iter().find(|d| d.rule.code == code).expect(code)).clone()
    };
    let some: Vec<&str> = {
        let mut codes: Vec<&str> = all.iter().map(|d| d.rule.code).collect();
        codes.sort();
        codes.dedup();
        codes
    };
    assert!(some.len() > 4);
    let at = |mut d: Diagnostic, line: u64, col: u64, column: Option<&str>| {
        d.line = line;
        d.col = col;
        d.column = column.map(Into::into);
        d
    };
    let (a, b, c) = (pick(some[0]), pick(some[1]), pick(some[2]));
    let mut first = vec![
        at(a.clone(), 2, 1, Some("x")),
        at(a.clone(), 2, 1, Some("x")),
        at(b.clone(), 2, 1, Some("x")),
        at(a.clone(), 2, 1, Some("x")),
        at(a.clone(), 2, 5, None),
        at(a.clone(), 2, 5, None),
        at(a.clone(), 3, 1, Some("x")),
        at(b.clone(), 3, 1, Some("x")),
        at(b.clone(), 3, 1, Some("x")),
        at(a.clone(), 4, 1, Some("x")),
    ];
    // The second block: another rule, back on earlier lines.
    first.extend([
        at(c.clone(), 2, 1, Some("x")),
        at(c.clone(), 2, 1, Some("x")),
        at(c.clone(), 4, 1, Some("x")),
        at(c.clone(), 4, 1, Some("x")),
        at(c.clone(), 4, 1, Some("x")),
    ]);
    let report = FileReport {
        path: "dup.csv".into(),
        format: None,
        records: 4,
        diagnostics: first,
        member: None,
    };
    let other = FileReport {
        path: "dup2.csv".into(),
        diagnostics: vec![at(a.clone(), 2, 1, Some("x")), at(a, 2, 1, Some("x"))],
        ..report.clone_shallow()
    };
    let old_junit =
        String::from_utf8(old(OutputFormat::Junit, &[report.clone_shallow()], &[])).expect("utf-8");
    assert!(old_junit.contains(" #3\""), "{old_junit}");
    same("duplicates", &[report, other], &[]);
}

impl FileReport {
    fn clone_shallow(&self) -> FileReport {
        FileReport {
            path: self.path.clone(),
            format: self.format,
            records: self.records,
            diagnostics: self.diagnostics.clone(),
            member: self.member.clone(),
        }
    }
}
