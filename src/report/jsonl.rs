//! JSON Lines: one finding per line, the `json` format's diagnostic object
//! with its `path` first. Written file by file as the reports arrive, so a
//! consumer can stream it; files that could not be checked are one line
//! each with `path` and `error`.

use super::{Failure, HumanOptions, OutputFormat, StreamWriter, Summary};
use crate::check::FileReport;
use serde::Serialize;
use std::io::{self, Write};

#[derive(Serialize)]
struct FailureLine<'a> {
    path: &'a str,
    error: &'a str,
}

/// Through the streaming writer, as `json` is, so collected and streamed
/// runs give the same lines.
pub(super) fn render(
    out: &mut dyn Write,
    reports: &[FileReport],
    failures: &[Failure],
) -> io::Result<()> {
    let mut w = StreamWriter::new(out, OutputFormat::Jsonl, &HumanOptions::default())?;
    for r in reports {
        w.start_file(&r.path, r.member.as_deref());
        for d in &r.diagnostics {
            w.diagnostic(d)?;
        }
        w.end_file(r.format, r.records)?;
    }
    w.finish(failures, &Summary::default())
}

/// The lines of the files that could not be checked, after the rest.
pub(super) fn failures(out: &mut dyn Write, failures: &[Failure]) -> io::Result<()> {
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
