//! JSON Lines: one finding per line, the `json` format's diagnostic object
//! with its `path` first. Written file by file as the reports arrive, so a
//! consumer can stream it; files that could not be checked are one line
//! each with `path` and `error`.

use super::json::{diag, Diag};
use super::Failure;
use crate::check::FileReport;
use serde::Serialize;
use std::io::{self, Write};

#[derive(Serialize)]
pub(super) struct Line<'a> {
    pub(super) path: &'a str,
    #[serde(flatten)]
    pub(super) diag: Diag<'a>,
}

#[derive(Serialize)]
struct FailureLine<'a> {
    path: &'a str,
    error: &'a str,
}

pub(super) fn render(
    out: &mut dyn Write,
    reports: &[FileReport],
    failures: &[Failure],
) -> io::Result<()> {
    for r in reports {
        for d in &r.diagnostics {
            serde_json::to_writer(
                &mut *out,
                &Line {
                    path: &r.path,
                    diag: diag(d, r.member.as_deref()),
                },
            )?;
            writeln!(out)?;
        }
    }
    for f in failures {
        serde_json::to_writer(
            &mut *out,
            &FailureLine {
                path: &f.path,
                error: &f.reason,
            },
        )?;
        writeln!(out)?;
    }
    Ok(())
}
