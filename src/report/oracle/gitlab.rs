//! The pre-streaming `gitlab` renderer, verbatim, as a test oracle.

use crate::diagnostic::FileReport;
use crate::diagnostic::Severity;
use crate::report::{fingerprint, Failure};
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

pub(super) fn render(
    out: &mut dyn Write,
    reports: &[FileReport],
    failures: &[Failure],
) -> io::Result<()> {
    let mut issues = Vec::new();
    for r in reports {
        let prints = fingerprint::numbered(&r.location(), &r.diagnostics);
        for (d, print) in r.diagnostics.iter().zip(prints) {
            issues.push(Issue {
                description: format!("{} ({})", d.message, d.rule.name),
                check_name: d.rule.code,
                // 32 hex digits, the shape GitLab's own analyzers emit.
                fingerprint: format!("{:032x}", xxhash_rust::xxh3::xxh3_128(print.as_bytes())),
                severity: severity(d.severity),
                location: Location {
                    path: crate::report::uri(&r.location()),
                    lines: Lines { begin: d.line },
                },
            });
        }
    }
    for f in failures {
        issues.push(Issue {
            description: f.reason.clone(),
            check_name: "bdxlint",
            fingerprint: format!(
                "{:032x}",
                xxhash_rust::xxh3::xxh3_128(format!("unreadable\u{0}{}", f.path).as_bytes())
            ),
            severity: "critical",
            location: Location {
                path: crate::report::uri(&f.path),
                lines: Lines { begin: 1 },
            },
        });
    }
    serde_json::to_writer_pretty(&mut *out, &issues)?;
    writeln!(out)
}
