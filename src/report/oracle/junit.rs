//! The pre-streaming `junit` renderer, verbatim, as a test oracle.

use crate::diagnostic::FileReport;
use crate::report::Failure;
use std::collections::HashMap;
use std::io::{self, Write};

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            '\n' => o.push_str("&#10;"),
            '\r' => o.push_str("&#13;"),
            '\t' => o.push_str("&#9;"),
            // Other control characters, and the noncharacters U+FFFE and
            // U+FFFF, are not allowed in XML 1.0 at all: the report would
            // not parse, and the CI would lose all of it.
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => o.push('?'),
            c => o.push(c),
        }
    }
    o
}

pub(super) fn render(
    out: &mut dyn Write,
    reports: &[FileReport],
    failures: &[Failure],
) -> io::Result<()> {
    let findings: usize = reports.iter().map(|r| r.diagnostics.len()).sum();
    let tests: usize = reports
        .iter()
        .map(|r| r.diagnostics.len().max(1))
        .sum::<usize>()
        + failures.len();
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<testsuites name="bdxlint" tests="{tests}" failures="{findings}" errors="{}">"#,
        failures.len()
    )?;
    for r in reports {
        let path = esc(&r.location());
        let n = r.diagnostics.len();
        writeln!(
            out,
            r#"  <testsuite name="{path}" tests="{}" failures="{n}" errors="0" skipped="0">"#,
            n.max(1)
        )?;
        if n == 0 {
            writeln!(out, r#"    <testcase classname="{path}" name="bdxlint"/>"#)?;
        }
        let mut names: HashMap<String, u32> = HashMap::new();
        for d in &r.diagnostics {
            let mut name = format!("{} line {} col {}", d.rule.code, d.line, d.col);
            if let Some(c) = &d.column {
                name.push_str(&format!(" ({c})"));
            }
            let k = names.entry(name.clone()).or_insert(0);
            *k += 1;
            if *k > 1 {
                name.push_str(&format!(" #{k}"));
            }
            let mut body = format!(
                "{}:{}:{}: {} [{}]",
                r.location(),
                d.line,
                d.col,
                d.rule.name,
                d.severity
            );
            if let Some(h) = &d.help {
                body.push_str(&format!("\nhelp: {h}"));
            }
            writeln!(
                out,
                r#"    <testcase classname="{path}" name="{}">"#,
                esc(&name)
            )?;
            writeln!(
                out,
                r#"      <failure type="{}" message="{}">{}</failure>"#,
                d.rule.code,
                esc(&d.message),
                esc(&body)
            )?;
            writeln!(out, "    </testcase>")?;
        }
        writeln!(out, "  </testsuite>")?;
    }
    for f in failures {
        let path = esc(&f.path);
        writeln!(
            out,
            r#"  <testsuite name="{path}" tests="1" failures="0" errors="1" skipped="0">"#
        )?;
        writeln!(out, r#"    <testcase classname="{path}" name="read">"#)?;
        writeln!(
            out,
            r#"      <error type="io" message="{}"/>"#,
            esc(&f.reason)
        )?;
        writeln!(out, "    </testcase>")?;
        writeln!(out, "  </testsuite>")?;
    }
    writeln!(out, "</testsuites>")
}
