//! GitLab Code Quality: a JSON array of Code Climate issues
//! (`artifacts:reports:codequality`). GitLab needs `description`,
//! `check_name`, a `fingerprint` unique per finding (it tracks issues across
//! pipelines by it, so it must not depend on line numbers), `severity`
//! (`info|minor|major|critical|blocker`) and `location.path` /
//! `location.lines.begin`.
//!
//! The array is pretty-printed, as `serde_json::to_writer_pretty` prints
//! it whole, one issue at a time as findings arrive.

use super::fingerprint::Numbering;
use super::model::{Failure, Report, Summary};
use super::pretty;
use crate::diagnostic::{Diagnostic, Severity};
use serde::Serialize;
use std::io::{self, Write};

#[derive(Serialize)]
struct Issue<'a> {
    description: String,
    check_name: &'a str,
    fingerprint: String,
    severity: &'static str,
    location: Location,
}

#[derive(Serialize)]
struct Location {
    path: String,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: u64,
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Info => "info",
    }
}

/// Where the array's issues sit.
const ISSUE: &str = "  ";

/// 32 hex digits, the shape GitLab's own analyzers emit.
fn hex128(text: &str) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(text.as_bytes()))
}

/// Writes the Code Quality array as findings arrive.
pub(super) struct GitlabWriter<'w> {
    out: &'w mut dyn Write,
    /// Issues written so far (the array opens with the first).
    count: usize,
    /// The current file as reports show it, and as its path here.
    location: String,
    path: String,
    numbering: Numbering,
    in_file: usize,
    /// An issue's text, built here and written in one call.
    buf: Vec<u8>,
}

impl<'w> GitlabWriter<'w> {
    pub(super) fn new(out: &'w mut dyn Write) -> Self {
        GitlabWriter {
            out,
            count: 0,
            location: String::new(),
            path: String::new(),
            numbering: Numbering::default(),
            in_file: 0,
            buf: Vec::new(),
        }
    }

    fn issue(&mut self, issue: &Issue<'_>) -> io::Result<()> {
        self.buf.clear();
        if self.count == 0 {
            self.buf.push(b'[');
        }
        pretty::element(&mut self.buf, self.count == 0, ISSUE);
        pretty::nested(&mut self.buf, issue, ISSUE)?;
        self.out.write_all(&self.buf)?;
        self.count += 1;
        Ok(())
    }
}

impl Report for GitlabWriter<'_> {
    fn start_file(&mut self, path: &str, member: Option<&str>) {
        self.location = super::model::location(path, member);
        self.path = super::model::uri(&self.location);
        self.numbering.clear();
        self.in_file = 0;
    }

    fn diagnostic(&mut self, d: &Diagnostic) -> io::Result<()> {
        let print = self.numbering.fingerprint(&self.location, d);
        let issue = Issue {
            description: format!("{} ({})", d.message, d.rule.name),
            check_name: d.rule.code,
            fingerprint: hex128(&print),
            severity: severity(d.severity),
            location: Location {
                path: self.path.clone(),
                lines: Lines { begin: d.line },
            },
        };
        self.issue(&issue)?;
        self.in_file += 1;
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn end_file(&mut self, _format: Option<&str>, _records: u64) -> io::Result<()> {
        Ok(())
    }

    /// The file's issues are complete as they stand.
    fn abandon_file(&mut self) -> io::Result<bool> {
        Ok(self.in_file > 0)
    }

    fn finish(&mut self, failures: &[Failure], _s: &Summary) -> io::Result<()> {
        for f in failures {
            self.issue(&Issue {
                description: f.reason.clone(),
                check_name: "bdxlint",
                fingerprint: hex128(&format!("unreadable\u{0}{}", f.path)),
                severity: "critical",
                location: Location {
                    path: super::model::uri(&f.path),
                    lines: Lines { begin: 1 },
                },
            })?;
        }
        if self.count == 0 {
            self.out.write_all(b"[]\n")
        } else {
            self.out.write_all(b"\n]\n")
        }
    }
}
