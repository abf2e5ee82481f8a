//! The pre-streaming `github` renderer, verbatim, as a test oracle.

use crate::diagnostic::FileReport;
use crate::diagnostic::Severity;
use crate::report::{position, Failure};
use std::io::{self, Write};

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn command(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    }
}

pub(super) fn render(
    out: &mut dyn Write,
    reports: &[FileReport],
    failures: &[Failure],
) -> io::Result<()> {
    for r in reports {
        let file = escape_property(&crate::report::uri(&r.location()));
        for d in &r.diagnostics {
            let g = position::region(d);
            let mut props = format!("file={file},line={}", g.start_line);
            if g.end_line != g.start_line {
                props.push_str(&format!(",endLine={}", g.end_line));
            }
            props.push_str(&format!(",col={}", g.start_col));
            // GitHub reads `endColumn` only on single-line annotations.
            if g.end_line == g.start_line && g.end_col > g.start_col {
                props.push_str(&format!(",endColumn={}", g.end_col));
            }
            let title = escape_property(&format!("{} {}", d.rule.code, d.rule.name));
            let mut message = d.message.clone();
            if let Some(h) = &d.help {
                message.push_str("\nhelp: ");
                message.push_str(h);
            }
            writeln!(
                out,
                "::{} {props},title={title}::{}",
                command(d.severity),
                escape_data(&message)
            )?;
        }
    }
    for f in failures {
        writeln!(
            out,
            "::error file={},title=bdxlint::{}",
            escape_property(&crate::report::uri(&f.path)),
            escape_data(&f.reason)
        )?;
    }
    Ok(())
}
