//! Reports that write no finding: `--statistics` counts findings per rule
//! and severity, `--quiet` only their totals. Both take findings as they
//! arrive, so their memory does not grow with the number of findings (a
//! table of at most one entry per rule and severity).

use super::{Failure, Report, Summary};
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{self, Rule};
use std::collections::BTreeMap;
use std::io::{self, Write};

/// Findings per (rule, severity), in code order.
pub(super) type Counts = BTreeMap<(&'static str, Severity), (&'static Rule, usize)>;

/// `counts` most frequent first, then by code (the order `--statistics`
/// prints).
pub(super) fn ranked(counts: Counts) -> Vec<(&'static Rule, Severity, usize)> {
    let mut v: Vec<_> = counts
        .into_iter()
        .map(|((_, sev), (rule, n))| (rule, sev, n))
        .collect();
    v.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.code.cmp(b.0.code)));
    v
}

/// Whether anything of the current file has reached the report: the same
/// bookkeeping as the writers', so that a file that fails part way counts
/// alike whatever the report.
#[derive(Debug, Default)]
struct FileState {
    open: bool,
}

/// `--statistics`: a table of findings per rule (most frequent first) and
/// the summary line, or a JSON array with `--output-format json`.
pub struct Statistics<'w> {
    out: &'w mut dyn Write,
    json: bool,
    counts: Counts,
    file: FileState,
}

impl<'w> Statistics<'w> {
    pub fn new(out: &'w mut dyn Write, json: bool) -> Self {
        Statistics {
            out,
            json,
            counts: Counts::new(),
            file: FileState::default(),
        }
    }
}

impl Report for Statistics<'_> {
    fn start_file(&mut self, _path: &str, _member: Option<&str>) {
        self.file.open = false;
    }

    fn diagnostic(&mut self, d: &Diagnostic) -> io::Result<()> {
        self.file.open = true;
        self.counts
            .entry((d.rule.code, d.severity))
            .or_insert((d.rule, 0))
            .1 += 1;
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn end_file(&mut self, _format: Option<&str>, _records: u64) -> io::Result<()> {
        self.file.open = true;
        Ok(())
    }

    fn abandon_file(&mut self) -> io::Result<bool> {
        Ok(self.file.open)
    }

    fn finish(&mut self, _failures: &[Failure], s: &Summary) -> io::Result<()> {
        let stats = ranked(std::mem::take(&mut self.counts));
        if self.json {
            let list: Vec<serde_json::Value> = stats
                .iter()
                .map(|(r, sev, n)| {
                    serde_json::json!({"code": r.code, "name": r.name, "severity": sev, "count": n})
                })
                .collect();
            serde_json::to_writer(&mut *self.out, &list)?;
            return writeln!(self.out);
        }
        let width = rules::ALL.iter().map(|r| r.name.len()).max().unwrap_or(0);
        for (r, sev, n) in &stats {
            writeln!(self.out, "{n:>6}  {:<5} {:<width$} {sev}", r.code, r.name)?;
        }
        writeln!(self.out, "{}", super::summary_line(s))
    }
}

/// `--quiet` with `human` or `concise`: only the summary line, and nothing
/// when there is no finding and no failure.
pub struct Quiet<'w> {
    out: &'w mut dyn Write,
    file: FileState,
}

impl<'w> Quiet<'w> {
    pub fn new(out: &'w mut dyn Write) -> Self {
        Quiet {
            out,
            file: FileState::default(),
        }
    }
}

impl Report for Quiet<'_> {
    fn start_file(&mut self, _path: &str, _member: Option<&str>) {
        self.file.open = false;
    }

    fn diagnostic(&mut self, _d: &Diagnostic) -> io::Result<()> {
        self.file.open = true;
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn end_file(&mut self, _format: Option<&str>, _records: u64) -> io::Result<()> {
        self.file.open = true;
        Ok(())
    }

    fn abandon_file(&mut self) -> io::Result<bool> {
        Ok(self.file.open)
    }

    fn finish(&mut self, _failures: &[Failure], s: &Summary) -> io::Result<()> {
        if s.errors + s.warnings + s.infos + s.failures > 0 {
            writeln!(self.out, "{}", super::summary_line(s))?;
        }
        Ok(())
    }
}
