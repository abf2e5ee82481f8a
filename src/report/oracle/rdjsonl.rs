//! The pre-streaming `rdjsonl` renderer, verbatim, as a test oracle.

use crate::diagnostic::FileReport;
use crate::diagnostic::Severity;
use crate::report::{position, Failure};
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

pub(super) fn render(
    out: &mut dyn Write,
    reports: &[FileReport],
    failures: &[Failure],
) -> io::Result<()> {
    for r in reports {
        for d in &r.diagnostics {
            let g = position::region(d);
            let line = Diagnostic {
                message: &d.message,
                location: Location {
                    path: crate::report::uri(&r.location()),
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
            serde_json::to_writer(&mut *out, &line)?;
            writeln!(out)?;
        }
    }
    for f in failures {
        let line = Diagnostic {
            message: &f.reason,
            location: Location {
                path: crate::report::uri(&f.path),
                range: None,
            },
            severity: "ERROR",
            code: None,
            source: Source { name: "bdxlint" },
        };
        serde_json::to_writer(&mut *out, &line)?;
        writeln!(out)?;
    }
    Ok(())
}
