//! The JSON document: a stable contract, documented in the README.
//!
//! `{"version":1,"files":[{"path","diagnostics":[...],"format","records"}],
//! "summary":{"files","errors","warnings","infos"}}`. Fields are only ever
//! added, never renamed or removed, without bumping `version`.

use super::{Failure, Summary};
use crate::check::FileReport;
use crate::diagnostic::Diagnostic;
use serde::Serialize;
use std::io::{self, Write};

#[derive(Serialize)]
struct Doc<'a> {
    version: u32,
    files: Vec<File<'a>>,
    summary: JsonSummary,
}

#[derive(Serialize)]
struct File<'a> {
    path: &'a str,
    /// The ZIP member this report is about (`path` is the archive); absent
    /// outside bundles. Without it a clean member would be unnamed.
    #[serde(skip_serializing_if = "Option::is_none")]
    member: Option<&'a str>,
    // Before `format` and `records`, which a streamed file knows only at
    // its end (see stream.rs): both writers give the same bytes.
    diagnostics: Vec<Diag<'a>>,
    format: Option<&'a str>,
    records: u64,
    /// Why the file could not be checked; absent when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
}

#[derive(Serialize)]
pub(super) struct Diag<'a> {
    code: &'a str,
    name: &'a str,
    severity: &'a str,
    message: &'a str,
    help: Option<&'a str>,
    line: u64,
    col: u64,
    column: Option<&'a str>,
    span: Span,
    /// The member of a ZIP bundle the finding is in; absent outside bundles.
    #[serde(skip_serializing_if = "Option::is_none")]
    member: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related: Vec<Related<'a>>,
}

#[derive(Serialize)]
struct Span {
    start: u64,
    end: u64,
}

#[derive(Serialize)]
struct Related<'a> {
    line: u64,
    column: Option<&'a str>,
    message: &'a str,
}

#[derive(Serialize)]
pub(super) struct JsonSummary {
    files: usize,
    errors: usize,
    warnings: usize,
    infos: usize,
    /// Files that could not be checked (I/O or detection failures).
    unreadable: usize,
    /// Findings counted but not listed (`--max-diagnostics`); absent when 0.
    #[serde(skip_serializing_if = "is_zero")]
    hidden: usize,
    /// Findings left out because the baseline records them; absent when 0.
    #[serde(skip_serializing_if = "is_zero")]
    baselined: usize,
    /// Baseline entries that no longer occur; absent when 0.
    #[serde(skip_serializing_if = "is_zero")]
    stale_baseline: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

pub(super) fn summary(s: &Summary) -> JsonSummary {
    JsonSummary {
        files: s.files,
        errors: s.errors,
        warnings: s.warnings,
        infos: s.infos,
        unreadable: s.failures,
        hidden: s.hidden,
        baselined: s.baselined,
        stale_baseline: s.stale_baseline,
    }
}

pub(super) fn diag<'a>(d: &'a Diagnostic, member: Option<&'a str>) -> Diag<'a> {
    Diag {
        code: d.rule.code,
        name: d.rule.name,
        severity: d.severity.as_str(),
        message: &d.message,
        help: d.help.as_deref(),
        line: d.line,
        col: d.col,
        column: d.column.as_deref(),
        span: Span {
            start: d.span.start,
            end: d.span.end,
        },
        member,
        related: d
            .related
            .iter()
            .map(|r| Related {
                line: r.line,
                column: r.column.as_deref(),
                message: &r.message,
            })
            .collect(),
    }
}

pub(super) fn render(
    out: &mut dyn Write,
    reports: &[FileReport],
    failures: &[Failure],
    s: &Summary,
) -> io::Result<()> {
    let mut files: Vec<File<'_>> = reports
        .iter()
        .map(|r| File {
            path: &r.path,
            member: r.member.as_deref(),
            format: r.format,
            records: r.records,
            diagnostics: r
                .diagnostics
                .iter()
                .map(|d| diag(d, r.member.as_deref()))
                .collect(),
            error: None,
        })
        .collect();
    files.extend(failures.iter().map(|f| File {
        path: &f.path,
        member: None,
        format: None,
        records: 0,
        diagnostics: Vec::new(),
        error: Some(&f.reason),
    }));
    let doc = Doc {
        version: 1,
        files,
        summary: summary(s),
    };
    serde_json::to_writer(&mut *out, &doc)?;
    writeln!(out)
}
