//! `path:line:col: CODE [severity] message`, one finding per line.

use super::safe::printable;
use crate::diagnostic::FileReport;
use std::io::{self, Write};

pub(super) fn render(out: &mut dyn Write, reports: &[FileReport]) -> io::Result<()> {
    for r in reports {
        for d in &r.diagnostics {
            writeln!(
                out,
                "{}:{}:{}: {} [{}] {}",
                printable(&r.location()),
                d.line,
                d.col,
                d.rule.code,
                d.severity,
                printable(&d.message)
            )?;
        }
    }
    Ok(())
}
