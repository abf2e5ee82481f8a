//! Findings as plain data. Every output format renders from these; nothing
//! here knows about terminals or JSON.

use crate::rules::Rule;
pub use crate::rules::Severity;
use std::ops::Range;
use std::sync::Arc;

/// The physical lines around a finding, captured while the bytes were in
/// memory so the human renderer can show them without holding the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    /// Byte offset in the file of `text`'s first byte.
    pub offset: u64,
    /// 1-based line number of `text`'s first line.
    pub(crate) line: u64,
    /// 1-based column (in characters) of `text`'s first character on its
    /// line: 1, unless a long line was cut to its part around the finding.
    pub(crate) first_col: u64,
    /// The same in bytes (reviewdog counts bytes).
    pub(crate) first_byte_col: u64,
    /// The lines, lossily decoded (invalid bytes become U+FFFD one for one
    /// byte would shift spans, so they are replaced by `?` instead).
    pub text: String,
}

/// Another place a finding refers to (the earlier row of a conflict).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    pub line: u64,
    pub column: Option<Arc<str>>,
    pub message: String,
}

/// Whether a fix may be applied without a person looking at it (ruff's
/// applicability).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Applicability {
    /// A guess a person should review: applied only with `--unsafe-fixes`.
    Unsafe,
    /// Keeps the meaning on every reading of the spec: applied by `--fix`.
    Safe,
}

impl Applicability {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
        }
    }
}

/// One replacement of a byte span of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// Byte span in the file (empty for an insertion).
    pub(crate) span: Range<u64>,
    /// The bytes that replace it, as they go into the file (quoted and
    /// escaped where the cell needs it).
    pub(crate) content: String,
}

/// What would make a finding go away: edits applied together or not at
/// all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    pub applicability: Applicability,
    /// What the fix does, in the imperative ("write `true`").
    pub(crate) message: String,
    /// In file order, none overlapping another.
    pub edits: Vec<Edit>,
    /// A rewrite of the whole file instead of edits (which are then
    /// empty): what it changes is known only once the file is read.
    pub transform: Option<Transform>,
}

/// A fix that rewrites the whole file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transform {
    /// Every record's line ending becomes the file's most common one.
    LineEndings,
    /// Every byte read as Windows-1252 and written as UTF-8.
    Windows1252ToUtf8,
    /// The file, read in its own dialect (`;`, tab or `|`, a `sep=` line),
    /// written with commas.
    ToCommas,
    /// The last N fields of the header and of every row as wide as it,
    /// with the delimiters before them, removed (unnamed columns empty in
    /// every row).
    DropTrailingFields(u32),
}

impl Fix {}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub rule: &'static Rule,
    pub severity: Severity,
    pub message: String,
    /// How to fix it.
    pub help: Option<String>,
    /// 1-based physical line where the offending cell starts.
    pub line: u64,
    /// 1-based character column where the offending cell starts.
    pub col: u64,
    /// Header name of the column, or `None` for file and row findings.
    pub column: Option<Arc<str>>,
    /// Byte span in the file.
    pub span: Range<u64>,
    pub related: Vec<Related>,
    pub snippet: Option<Snippet>,
    /// Report the first of identical findings (same rule and message) in a
    /// file and count the rest, e.g. a column the header lacks that every
    /// row would need.
    pub(crate) once_per_file: bool,
    /// A cross-row finding's identity apart from row order: a hash of what
    /// the rows share (the identity values both hold). Fingerprints use it
    /// instead of the flagged cell, which is whichever row comes second and
    /// so changes when an export is re-sorted.
    pub(crate) shared: Option<u64>,
    /// The edits that would resolve it, where a rule knows them. Boxed: few
    /// findings have one, and every finding carries the field.
    pub fix: Option<Box<Fix>>,
    /// The offending cell's text, where the finding is about a cell and the
    /// output wants it (JSON's `value`).
    pub(crate) value: Option<Box<str>>,
}

impl Diagnostic {
    /// Deterministic order within a file: by position, then rule.
    pub(crate) fn sort_key(&self) -> (u64, u64, u64, &'static str) {
        (self.line, self.col, self.span.start, self.rule.code)
    }
}

/// The outcome of checking one file.
#[derive(Debug)]
pub struct FileReport {
    /// The path as given by the user (or `-`).
    pub(crate) path: String,
    /// The format it was checked as, if one was found.
    pub format: Option<&'static str>,
    /// Data records (rows after the header).
    pub records: u64,
    pub diagnostics: Vec<Diagnostic>,
    /// The member's name inside a ZIP bundle (`path` is then the archive).
    pub member: Option<String>,
}

impl FileReport {}

/// Where the reports of one input go as they are made: a CSV file is one
/// report, a ZIP bundle its archive's and then one per member. A run
/// streams them to its output; [`Collector`] keeps them.
pub(crate) trait Reports {
    /// Starts a file. `sort`: its findings belong in position order, which
    /// a collector restores at the end (a streamed check sends them in file
    /// order with per-file summaries and references last); an archive's own
    /// findings keep the order they are given in.
    fn start_file(&mut self, path: &str, member: Option<&str>, sort: bool);
    fn diagnostic(&mut self, d: Diagnostic);
    /// Ends the current file.
    fn end_file(&mut self, format: Option<&'static str>, records: u64);
    /// The check of the current file learned, at its end, what the
    /// findings it already sent did not know (the order of day and month
    /// in a date column): what becomes of them. By default they stand, and
    /// a note says so.
    fn relearn(&mut self) -> Relearn {
        Relearn::Note
    }
}

/// What [`Reports::relearn`] does with a file's findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Relearn {
    /// They are dropped: the file is checked again, knowing.
    Again,
    /// They stand, followed by a note of what was learned late.
    Note,
    /// They stand, and the caller of the check decides (a pass of `--fix`
    /// makes its copy again).
    Caller,
}

/// Keeps the reports of one input, up to a budget of bytes of findings.
/// Past the budget it keeps nothing more and raises `cancel`, which a
/// check given the same flag reads as the end of its input: the caller
/// then checks the input again, streamed.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    pub(crate) reports: Vec<FileReport>,
    sort: bool,
    budget: Option<usize>,
    used: usize,
    /// Set once the budget was passed: `reports` is incomplete.
    pub(crate) overflowed: bool,
    pub(crate) cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Collector {
    /// A collector that keeps about `bytes` of findings at most.
    pub(crate) fn with_budget(bytes: usize) -> Collector {
        Collector {
            budget: Some(bytes),
            cancel: Some(Default::default()),
            ..Collector::default()
        }
    }
}

/// About what a finding holds in memory, for budgets.
fn weight(d: &Diagnostic) -> usize {
    std::mem::size_of::<Diagnostic>()
        + d.message.len()
        + d.help.as_ref().map_or(0, String::len)
        + d.snippet.as_ref().map_or(0, |s| s.text.len())
        + d.value.as_ref().map_or(0, |v| v.len())
        + d.fix.as_ref().map_or(0, |f| {
            64 + f.message.len() + f.edits.iter().map(|e| 32 + e.content.len()).sum::<usize>()
        })
        + d.related
            .iter()
            .map(|r| r.message.len() + 64)
            .sum::<usize>()
}

impl Reports for Collector {
    fn start_file(&mut self, path: &str, member: Option<&str>, sort: bool) {
        self.sort = sort;
        self.reports.push(FileReport {
            path: path.to_owned(),
            format: None,
            records: 0,
            diagnostics: Vec::new(),
            member: member.map(str::to_owned),
        });
    }

    fn diagnostic(&mut self, d: Diagnostic) {
        if self.overflowed {
            return;
        }
        self.used += weight(&d);
        if self.budget.is_some_and(|b| self.used > b) {
            self.overflowed = true;
            if let Some(c) = &self.cancel {
                c.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            return;
        }
        if let Some(r) = self.reports.last_mut() {
            r.diagnostics.push(d);
        }
    }

    /// Kept findings are dropped for the file's check again; past the
    /// budget nothing is kept and the caller streams the file anew.
    fn relearn(&mut self) -> Relearn {
        if self.overflowed {
            return Relearn::Note;
        }
        if let Some(r) = self.reports.last_mut() {
            self.used = self
                .used
                .saturating_sub(r.diagnostics.iter().map(weight).sum::<usize>());
            r.diagnostics.clear();
        }
        Relearn::Again
    }

    fn end_file(&mut self, format: Option<&'static str>, records: u64) {
        if let Some(r) = self.reports.last_mut() {
            r.format = format;
            r.records = records;
            if self.sort {
                r.diagnostics
                    .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
            }
        }
    }
}
