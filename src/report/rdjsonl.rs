//! reviewdog's rdjsonl: one Diagnostic per line
//! (`bdxlint check --output-format rdjsonl . | reviewdog -f=rdjsonl ...`).
//! reviewdog counts columns in UTF-8 bytes, so the byte columns of
//! [`super::position::Region`] are used here. A finding with a safe fix
//! carries its edits as `suggestions` (as ruff's rdjson does), which
//! reviewdog posts as suggested changes; an unsafe fix is a guess a person
//! should make, so it is not suggested.

use super::model::{Failure, Report, Summary};
use super::position;
use crate::diagnostic::{Applicability, Severity};
use serde::Serialize;
use std::io::{self, Write};

#[derive(Serialize)]
struct Diagnostic<'a> {
    message: &'a str,
    location: Location,
    severity: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<Code<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suggestions: Vec<Suggestion<'a>>,
    source: Source,
}

/// One edit of a fix: the text that replaces the range (empty for an
/// insertion), as it goes into the file.
#[derive(Serialize)]
struct Suggestion<'a> {
    range: Range,
    text: &'a str,
}

#[derive(Serialize)]
struct Location {
    path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    range: Option<Range>,
}

#[derive(Serialize)]
struct Range {
    start: Position,
    end: Position,
}

#[derive(Serialize)]
struct Position {
    line: u64,
    column: u64,
}

#[derive(Serialize)]
struct Code<'a> {
    value: &'a str,
}

#[derive(Serialize)]
struct Source {
    name: &'static str,
}

/// A safe fix's edits as suggestions, placed by the snippet the finding
/// carries (its line and byte columns): none when it is unsafe, rewrites
/// the whole file, or has an edit the snippet does not cover (a fix is
/// suggested whole or not at all).
fn suggestions(d: &crate::diagnostic::Diagnostic) -> Vec<Suggestion<'_>> {
    let Some(fix) = d.fix.as_deref() else {
        return Vec::new();
    };
    if fix.applicability != Applicability::Safe || fix.transform.is_some() {
        return Vec::new();
    }
    let placed: Option<Vec<Suggestion<'_>>> = fix
        .edits
        .iter()
        .map(|e| {
            Some(Suggestion {
                range: Range {
                    start: place(d, e.span.start)?,
                    end: place(d, e.span.end)?,
                },
                text: &e.content,
            })
        })
        .collect();
    placed.unwrap_or_default()
}

/// The line and byte column (1-based) of the file's byte `at`, when the
/// finding's snippet covers it.
fn place(d: &crate::diagnostic::Diagnostic, at: u64) -> Option<Position> {
    let s = d.snippet.as_ref()?;
    let rel = usize::try_from(at.checked_sub(s.offset)?).ok()?;
    let before = s.text.get(..rel)?;
    let line = s.line + before.matches('\n').count() as u64;
    let column = match before.rfind('\n') {
        Some(nl) => (rel - nl) as u64,
        None => s.first_byte_col + rel as u64,
    };
    Some(Position { line, column })
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "ERROR",
        Severity::Warning => "WARNING",
        Severity::Info => "INFO",
    }
}

/// Writes one line per finding as it arrives; the files that could not be
/// checked at the end.
pub(super) struct RdjsonlWriter<'w> {
    out: &'w mut dyn Write,
    /// The current file's path as reviewdog reads it.
    path: String,
    in_file: usize,
    /// A line, built here and written in one call.
    buf: Vec<u8>,
}

impl<'w> RdjsonlWriter<'w> {
    pub(super) fn new(out: &'w mut dyn Write) -> Self {
        RdjsonlWriter {
            out,
            path: String::new(),
            in_file: 0,
            buf: Vec::new(),
        }
    }

    fn line(&mut self, line: &Diagnostic<'_>) -> io::Result<()> {
        self.buf.clear();
        serde_json::to_writer(&mut self.buf, line)?;
        self.buf.push(b'\n');
        self.out.write_all(&self.buf)
    }
}

impl Report for RdjsonlWriter<'_> {
    fn start_file(&mut self, path: &str, member: Option<&str>) {
        self.path = super::model::uri(&super::model::location(path, member));
        self.in_file = 0;
    }

    fn diagnostic(&mut self, d: &crate::diagnostic::Diagnostic) -> io::Result<()> {
        let g = position::region(d);
        let line = Diagnostic {
            message: &d.message,
            location: Location {
                path: self.path.clone(),
                range: Some(Range {
                    start: Position {
                        line: g.start_line,
                        column: g.start_byte_col,
                    },
                    end: Position {
                        line: g.end_line,
                        column: g.end_byte_col,
                    },
                }),
            },
            severity: severity(d.severity),
            code: Some(Code { value: d.rule.code }),
            suggestions: suggestions(d),
            source: Source { name: "bdxlint" },
        };
        self.line(&line)?;
        self.in_file += 1;
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn end_file(&mut self, _format: Option<&str>, _records: u64) -> io::Result<()> {
        Ok(())
    }

    /// Each line stands alone: nothing to close.
    fn abandon_file(&mut self) -> io::Result<bool> {
        Ok(self.in_file > 0)
    }

    fn finish(&mut self, failures: &[Failure], _s: &Summary) -> io::Result<()> {
        for f in failures {
            self.line(&Diagnostic {
                message: &f.reason,
                location: Location {
                    path: super::model::uri(&f.path),
                    range: None,
                },
                severity: "ERROR",
                code: None,
                suggestions: Vec::new(),
                source: Source { name: "bdxlint" },
            })?;
        }
        Ok(())
    }
}
