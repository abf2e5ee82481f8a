//! JSON Lines: one finding per line, the `json` format's diagnostic object
//! with its `path` first (written by `stream.rs`), file by file as the
//! reports arrive, so a consumer can stream it; files that could not be
//! checked are one line each with `path` and `error`, written here.

use super::model::Failure;
use serde::Serialize;
use std::io::{self, Write};

#[derive(Serialize)]
struct FailureLine<'a> {
    path: &'a str,
    error: &'a str,
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
