//! A report that writes no finding: `--statistics` counts findings per
//! rule and severity, `--quiet` only their totals. Both take findings as they
//! arrive, so their memory does not grow with the number of findings (a
//! table of at most one entry per rule and severity).

use super::model::{Failure, Report, Summary};
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{self, Rule};
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::Arc;

/// Findings per (rule, severity) and column (`None`: a finding on a file
/// or a row): one entry per column name a header gave, so bounded by the
/// headers.
type ByColumn = BTreeMap<(&'static str, Severity), BTreeMap<Option<Arc<str>>, usize>>;

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

/// What a counting report prints at the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shows {
    /// Findings per rule, as a table or JSON (`--statistics`).
    Table { json: bool },
    /// The summary line alone, when there is something to say (`--quiet`).
    Summary,
}

/// `--statistics`: a table of findings per rule (most frequent first) and
/// the summary line, or a JSON array with `--output-format json`. Also
/// `--quiet` with `human` or `concise` ([`Statistics::quiet`]): only the
/// summary line, and nothing when there is no finding and no failure.
pub(crate) struct Statistics<'w> {
    out: &'w mut dyn Write,
    shows: Shows,
    counts: Counts,
    columns: ByColumn,
    /// Whether anything of the current file has reached the report: the
    /// writers' bookkeeping, so that a file that fails part way counts
    /// alike whatever the report.
    open: bool,
}

impl<'w> Statistics<'w> {
    pub(crate) fn new(out: &'w mut dyn Write, json: bool) -> Self {
        Self::showing(out, Shows::Table { json })
    }

    pub(crate) fn quiet(out: &'w mut dyn Write) -> Self {
        Self::showing(out, Shows::Summary)
    }

    fn showing(out: &'w mut dyn Write, shows: Shows) -> Self {
        Statistics {
            out,
            shows,
            counts: Counts::new(),
            columns: ByColumn::new(),
            open: false,
        }
    }
}

impl Report for Statistics<'_> {
    fn start_file(&mut self, _path: &str, _member: Option<&str>) {
        self.open = false;
    }

    fn diagnostic(&mut self, d: &Diagnostic) -> io::Result<()> {
        self.open = true;
        self.counts
            .entry((d.rule.code, d.severity))
            .or_insert((d.rule, 0))
            .1 += 1;
        if self.shows != Shows::Summary {
            *self
                .columns
                .entry((d.rule.code, d.severity))
                .or_default()
                .entry(d.column.clone())
                .or_insert(0) += 1;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn end_file(&mut self, _format: Option<&str>, _records: u64) -> io::Result<()> {
        self.open = true;
        Ok(())
    }

    fn abandon_file(&mut self) -> io::Result<bool> {
        Ok(self.open)
    }

    fn finish(&mut self, _failures: &[Failure], s: &Summary) -> io::Result<()> {
        let json = match self.shows {
            Shows::Summary => {
                // What was fixed is news too (`--fix-only`, `--fix -q`).
                if s.errors + s.warnings + s.infos + s.failures + s.fixed > 0 {
                    writeln!(self.out, "{}", super::model::summary_line(s))?;
                }
                return Ok(());
            }
            Shows::Table { json } => json,
        };
        let stats = ranked(std::mem::take(&mut self.counts));
        let columns = std::mem::take(&mut self.columns);
        // A rule's columns, most findings first, then by name.
        let columns_of = |code: &'static str, sev: Severity| -> Vec<(Option<Arc<str>>, usize)> {
            let mut v: Vec<_> = columns
                .get(&(code, sev))
                .map(|m| m.iter().map(|(c, n)| (c.clone(), *n)).collect())
                .unwrap_or_default();
            v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            v
        };
        if json {
            let list: Vec<serde_json::Value> = stats
                .iter()
                .map(|(r, sev, n)| {
                    let by: Vec<serde_json::Value> = columns_of(r.code, *sev)
                        .into_iter()
                        .map(|(c, n)| serde_json::json!({"column": c.as_deref(), "count": n}))
                        .collect();
                    serde_json::json!({"code": r.code, "name": r.name, "severity": sev, "count": n, "columns": by})
                })
                .collect();
            serde_json::to_writer(&mut *self.out, &list)?;
            return writeln!(self.out);
        }
        let width = rules::ALL.iter().map(|r| r.name.len()).max().unwrap_or(0);
        for (r, sev, n) in &stats {
            writeln!(self.out, "{n:>6}  {:<5} {:<width$} {sev}", r.code, r.name)?;
            // Per column, when the rule's findings name any: the rows of
            // a rule that hit a million cells of one column say which.
            let by = columns_of(r.code, *sev);
            if by.iter().any(|(c, _)| c.is_some()) {
                for (c, n) in by {
                    match c {
                        Some(c) => {
                            writeln!(self.out, "{n:>6}        `{}`", super::safe::printable(&c))?
                        }
                        None => writeln!(self.out, "{n:>6}        (no column)")?,
                    }
                }
            }
        }
        writeln!(self.out, "{}", super::model::summary_line(s))
    }
}
