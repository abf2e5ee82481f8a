//! GitLab Code Quality: a JSON array of Code Climate issues
//! (`artifacts:reports:codequality`). GitLab needs `description`,
//! `check_name`, a `fingerprint` unique per finding (it tracks issues across
//! pipelines by it, so it must not depend on line numbers), `severity`
//! (`info|minor|major|critical|blocker`) and `location.path` /
//! `location.lines.begin`.

use super::{fingerprint, Failure};
use crate::diagnostic::FileReport;
use crate::diagnostic::Severity;
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
                    path: super::sarif::uri(&r.location()),
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
                path: super::sarif::uri(&f.path),
                lines: Lines { begin: 1 },
            },
        });
    }
    serde_json::to_writer_pretty(&mut *out, &issues)?;
    writeln!(out)
}
