//! What every writer of a report shares, below them all: the [`Report`]
//! trait they implement, the [`OutputFormat`]s, a [`Failure`] and the
//! run's [`Summary`], and the few pieces of text more than one format
//! writes (a finding's location and fix mark, the summary line, a path as
//! a URI). `mod.rs` builds the writers from these and re-exports them;
//! keeping them here, not there, lets each writer use them without its
//! parent module using it back.

use super::fold;
use crate::diagnostic::{FileReport, Severity};
use std::io;

/// Where a run's findings go, file by file, as they arrive: `start_file`,
/// then each `diagnostic`, then `end_file` (or `abandon_file` when reading
/// the file failed part way), and `finish` once at the end with the files
/// that could not be checked and the totals. Every output format has one
/// ([`writer`](super::writer)), and none keeps the findings: `human`, `concise`, `json`,
/// `jsonl` ([`StreamWriter`](super::StreamWriter)), `github`, `rdjsonl` and `gitlab` put each
/// finding out at once; `sarif` and `junit`, whose documents start with
/// what is known only at the end, spill each finding's final text (past
/// the first MiB, to an anonymous temporary file) and copy it out at
/// `finish`. What they hold is per file: SARIF and GitLab an entry per
/// distinct fingerprint hash of the current file (for its occurrence
/// numbers), JUnit the testcase names of the current line. The counting
/// reports ([`Statistics`](super::Statistics)) keep a table per rule.
pub trait Report {
    /// Starts a file (a ZIP member names its archive's path and itself).
    fn start_file(&mut self, path: &str, member: Option<&str>);
    fn diagnostic(&mut self, d: &crate::diagnostic::Diagnostic) -> io::Result<()>;
    /// Pushes buffered output out (before a progress bar redraws).
    fn flush(&mut self) -> io::Result<()>;
    /// The findings of one rule on one column of the current file that
    /// were folded rather than shown (human output only, see [`fold`]):
    /// called before `end_file` (or `abandon_file`), once per group. Other
    /// reports get every finding and ignore it.
    fn folded(&mut self, _f: &fold::Folded) -> io::Result<()> {
        Ok(())
    }
    /// Ends the current file with what is known only at its end.
    fn end_file(&mut self, format: Option<&str>, records: u64) -> io::Result<()>;
    /// Ends the current file if anything of it reached the report (reading
    /// it failed part way), and says whether it did.
    fn abandon_file(&mut self) -> io::Result<bool>;
    /// Ends the run.
    fn finish(&mut self, failures: &[Failure], s: &Summary) -> io::Result<()>;
}

/// The output formats of `--output-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputFormat {
    /// Source snippets with a caret under the offending cell (miette).
    /// `full`, ruff's name, in a config too.
    #[serde(alias = "full")]
    Human,
    /// One line per finding: `path:line:col: CODE [severity] message`.
    Concise,
    /// One JSON document (the stable contract documented in the README).
    Json,
    /// One JSON object per finding per line (the `json` diagnostic plus `path`).
    #[serde(alias = "json-lines")]
    Jsonl,
    /// SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// GitHub Actions `::error` workflow commands (annotations).
    Github,
    /// GitLab Code Quality report (JSON array).
    Gitlab,
    /// JUnit XML: a testsuite per file, a testcase per finding.
    Junit,
    /// reviewdog diagnostic JSON lines (`reviewdog -f=rdjsonl`).
    Rdjsonl,
    /// One self-contained HTML page: counts, charts and samples per rule
    /// and column, for people who do not open a terminal.
    Html,
}

impl OutputFormat {
    /// Every output format, in the order `--help` lists them. Complete by
    /// construction: each format's place in it is an exhaustive match
    /// ([`OutputFormat::position`]) checked when the crate compiles, and a
    /// test holds its length to the variants serde derives.
    pub const ALL: [OutputFormat; 10] = [
        OutputFormat::Human,
        OutputFormat::Concise,
        OutputFormat::Json,
        OutputFormat::Jsonl,
        OutputFormat::Sarif,
        OutputFormat::Github,
        OutputFormat::Gitlab,
        OutputFormat::Junit,
        OutputFormat::Rdjsonl,
        OutputFormat::Html,
    ];

    /// Its index in [`OutputFormat::ALL`]: a new variant does not compile
    /// until it has one, and one past the end does not compile either.
    const fn position(self) -> usize {
        match self {
            OutputFormat::Human => 0,
            OutputFormat::Concise => 1,
            OutputFormat::Json => 2,
            OutputFormat::Jsonl => 3,
            OutputFormat::Sarif => 4,
            OutputFormat::Github => 5,
            OutputFormat::Gitlab => 6,
            OutputFormat::Junit => 7,
            OutputFormat::Rdjsonl => 8,
            OutputFormat::Html => 9,
        }
    }

    /// The name `--output-format`, `output-format` in a config and
    /// `BDXLINT_OUTPUT_FORMAT` take (the binary's tests hold its flag's
    /// names to these, and this module's tests serde's).
    pub const fn name(self) -> &'static str {
        match self {
            OutputFormat::Human => "human",
            OutputFormat::Concise => "concise",
            OutputFormat::Json => "json",
            OutputFormat::Jsonl => "jsonl",
            OutputFormat::Sarif => "sarif",
            OutputFormat::Github => "github",
            OutputFormat::Gitlab => "gitlab",
            OutputFormat::Junit => "junit",
            OutputFormat::Rdjsonl => "rdjsonl",
            OutputFormat::Html => "html",
        }
    }

    /// Other names it is known by (ruff's).
    pub const fn aliases(self) -> &'static [&'static str] {
        match self {
            OutputFormat::Human => &["full"],
            OutputFormat::Jsonl => &["json-lines"],
            OutputFormat::Concise
            | OutputFormat::Json
            | OutputFormat::Sarif
            | OutputFormat::Github
            | OutputFormat::Gitlab
            | OutputFormat::Junit
            | OutputFormat::Rdjsonl
            | OutputFormat::Html => &[],
        }
    }

    /// Whether it is plain text for a person (`--quiet` then prints only
    /// the counts).
    pub(crate) fn is_plain_text(self) -> bool {
        match self {
            OutputFormat::Human | OutputFormat::Concise => true,
            OutputFormat::Json
            | OutputFormat::Jsonl
            | OutputFormat::Sarif
            | OutputFormat::Github
            | OutputFormat::Gitlab
            | OutputFormat::Junit
            | OutputFormat::Rdjsonl
            | OutputFormat::Html => false,
        }
    }

    /// Whether each finding carries the offending cell's text (JSON's
    /// `value`).
    pub(crate) fn carries_values(self) -> bool {
        match self {
            OutputFormat::Json | OutputFormat::Jsonl => true,
            OutputFormat::Human
            | OutputFormat::Concise
            | OutputFormat::Sarif
            | OutputFormat::Github
            | OutputFormat::Gitlab
            | OutputFormat::Junit
            | OutputFormat::Rdjsonl
            | OutputFormat::Html => false,
        }
    }

    /// Whether the renderer needs the snippets captured while checking (for
    /// source lines, end columns or fingerprints).
    pub(crate) fn needs_snippets(self) -> bool {
        match self {
            OutputFormat::Concise | OutputFormat::Json | OutputFormat::Jsonl => false,
            OutputFormat::Human
            | OutputFormat::Sarif
            | OutputFormat::Github
            | OutputFormat::Gitlab
            | OutputFormat::Junit
            | OutputFormat::Rdjsonl
            | OutputFormat::Html => true,
        }
    }
}

// `ALL` lists each format at its `position`, so no format is in it twice;
// with the exhaustive match, a format left out has a position no entry
// holds, which the serde test below finds (`ALL`'s length is the count of
// variants).
const _: () = {
    let mut i = 0;
    while i < OutputFormat::ALL.len() {
        assert!(OutputFormat::ALL[i].position() == i);
        i += 1;
    }
};

/// A file that could not be checked at all, and why.
#[derive(Debug)]
pub struct Failure {
    pub(crate) path: String,
    pub(crate) reason: String,
}

/// Totals over a run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    pub failures: usize,
    /// Files checked (and counted above) that `--fix` left as they were:
    /// refused, or their copy not written.
    pub not_fixed: usize,
    /// Findings counted above but not printed (`--max-diagnostics`).
    pub hidden: usize,
    /// Findings left out because the baseline records them (not counted
    /// above).
    pub baselined: usize,
    /// Baseline entries, for the files of this run, that no longer occur.
    pub stale_baseline: usize,
    /// The run applied fixes (`--fix`, `--diff`): the line says how many.
    pub fixing: bool,
    /// Findings fixed (or, with `--diff`, that would be).
    pub fixed: usize,
    /// `--diff`: nothing is written, the fixes are what would be made.
    pub dry_run: bool,
    /// Findings counted above whose fix this run's settings would apply.
    pub fixable: usize,
    /// Findings counted above whose only fix is unsafe, without
    /// `--unsafe-fixes`.
    pub unsafe_fixable: usize,
    /// Fixes left unapplied because their file is a ZIP bundle member.
    pub in_bundles: usize,
    /// The exit status the run ends with, once known (the HTML report
    /// states it); `None` for a collected run replayed without one.
    pub exit_status: Option<u8>,
}

impl Summary {
    pub fn of(reports: &[FileReport], failures: &[Failure]) -> Summary {
        let mut s = Summary {
            files: reports.len() + failures.len(),
            failures: failures.len(),
            ..Summary::default()
        };
        for d in reports.iter().flat_map(|r| &r.diagnostics) {
            match d.severity {
                Severity::Error => s.errors += 1,
                Severity::Warning => s.warnings += 1,
                Severity::Info => s.infos += 1,
            }
        }
        s
    }
}

/// `path`, or `archive.zip:member.csv` for a bundle member (as
/// [`FileReport::location`]).
pub(crate) fn location(path: &str, member: Option<&str>) -> String {
    match member {
        Some(m) => format!("{path}:{m}"),
        None => path.to_owned(),
    }
}

/// The one-line summary the human report ends with (also printed alone by
/// `--quiet`).
pub fn summary_line(s: &Summary) -> String {
    let checked = s.files - s.failures;
    let mut line = String::new();
    if s.fixing {
        let remaining = s.errors + s.warnings + s.infos;
        let verb = if s.dry_run { "would fix" } else { "fixed" };
        line.push_str(&format!("{verb} {} ({remaining} remaining", s.fixed));
        if s.unsafe_fixable > 0 {
            line.push_str(&format!(
                "; {} more fixable with --unsafe-fixes",
                s.unsafe_fixable
            ));
        }
        line.push_str("); ");
    }
    line.push_str(&format!(
        "{}, {}, {} in {}",
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        plural(s.infos, "info"),
        plural(checked, "file"),
    ));
    if !s.fixing && s.fixable > 0 {
        line.push_str(&format!("; {} fixable with --fix", s.fixable));
        if s.unsafe_fixable > 0 {
            line.push_str(&format!(
                " ({} more with --fix --unsafe-fixes)",
                s.unsafe_fixable
            ));
        }
    } else if !s.fixing && s.unsafe_fixable > 0 {
        line.push_str(&format!(
            "; {} fixable with --fix --unsafe-fixes",
            s.unsafe_fixable
        ));
    }
    if s.in_bundles > 0 {
        line.push_str(&format!(
            "; {} in ZIP bundles not applied (bundles are not rewritten)",
            if s.in_bundles == 1 {
                "1 fix".to_owned()
            } else {
                format!("{} fixes", s.in_bundles)
            }
        ));
    }
    if s.failures > 0 {
        line.push_str(&format!("; {} not checked", plural(s.failures, "file")));
    }
    if s.not_fixed > 0 {
        line.push_str(&format!("; {} not fixed", plural(s.not_fixed, "file")));
    }
    if s.hidden > 0 {
        line.push_str(&format!(
            "; {} not shown (--max-diagnostics)",
            plural(s.hidden, "finding")
        ));
    }
    if s.baselined > 0 {
        line.push_str(&format!(
            "; {} in the baseline",
            plural(s.baselined, "finding")
        ));
    }
    if s.stale_baseline > 0 {
        line.push_str("; ");
        line.push_str(&stale_baseline_note(s.stale_baseline));
    }
    line
}

/// "N baseline entries no longer match (...)", for the summary line and,
/// with machine formats, for stderr.
pub fn stale_baseline_note(n: usize) -> String {
    if n == 1 {
        "1 baseline entry no longer matches (rewrite it with --write-baseline)".to_owned()
    } else {
        format!("{n} baseline entries no longer match (rewrite it with --write-baseline)")
    }
}

/// ` [*]` after a finding a safe fix resolves (`bdxlint check --fix`), as
/// ruff marks them; nothing otherwise.
pub(crate) fn fix_mark(d: &crate::diagnostic::Diagnostic) -> &'static str {
    match &d.fix {
        Some(f) if f.applicability == crate::diagnostic::Applicability::Safe => " [*]",
        _ => "",
    }
}

pub(crate) fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// A path as a relative URI: forward slashes, no leading `./`. GitHub
/// resolves it against the repository root, so run bdxlint from there.
pub fn uri(path: &str) -> String {
    let p = path.replace('\\', "/");
    let mut p = p.as_str();
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    p.to_owned()
}
