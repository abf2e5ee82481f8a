//! Renderers: one file per output format, all reading the same
//! [`crate::diagnostic::Diagnostic`]s. The library never prints; renderers
//! write into any `io::Write` the binary hands them.

mod concise;
mod human;
mod json;

use crate::check::FileReport;
use crate::diagnostic::Severity;
use std::io::{self, Write};

pub use human::HumanOptions;

/// The output formats of `--output-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Source snippets with a caret under the offending cell (miette).
    Human,
    /// One line per finding: `path:line:col: CODE [severity] message`.
    Concise,
    /// One JSON document (the stable contract documented in the README).
    Json,
}

/// A file that could not be checked at all, and why.
#[derive(Debug)]
pub struct Failure {
    pub path: String,
    pub reason: String,
}

/// Totals over a run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    pub failures: usize,
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

/// Renders a whole run. `failures` are also reported on stderr by the
/// binary; machine formats carry them so a consumer sees every file.
pub fn render(
    out: &mut dyn Write,
    format: OutputFormat,
    reports: &[FileReport],
    failures: &[Failure],
    human: &HumanOptions,
) -> io::Result<()> {
    match format {
        OutputFormat::Human => human::render(out, reports, failures, human),
        OutputFormat::Concise => concise::render(out, reports),
        OutputFormat::Json => json::render(out, reports, failures),
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}
