//! reviewdog's rdjsonl: one Diagnostic per line
//! (`bdxlint check --output-format rdjsonl . | reviewdog -f=rdjsonl ...`).
//! reviewdog counts columns in UTF-8 bytes, so the byte columns of
//! [`super::position::Region`] are used here.

use super::model::{Failure, Report, Summary};
use super::position;
use crate::diagnostic::Severity;
use serde::Serialize;
use std::io::{self, Write};

#[derive(Serialize)]
struct Diagnostic<'a> {
    message: &'a str,
    location: Location,
    severity: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<Code<'a>>,
    source: Source,
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
                source: Source { name: "bdxlint" },
            })?;
        }
        Ok(())
    }
}
