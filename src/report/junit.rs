//! JUnit XML, for CI test-report views (GitLab `artifacts:reports:junit`,
//! Jenkins, Azure). A `<testsuite>` per file; a failing `<testcase>` per
//! finding; one passing testcase for a clean file; an `<error>` for a file
//! that could not be checked. Hand-written with XML escaping: the document
//! is small and fixed.
//!
//! A testcase is named by rule, column and the finding's fingerprint
//! (`C003 Work Email 1fc8ae050b544589:1`), never its line: the views track
//! a test's history by its name, and exports re-sort rows. Fingerprints
//! are unique within a file (an occurrence number follows the hash), as
//! the views need (GitLab keeps only the first of equal names); the line
//! is in the failure's text.
//!
//! The run's totals open the document and each suite's counts open the
//! suite, so the testcases are spilled ([`super::spill`]) as they arrive:
//! a file's into one spill, copied after its suite's opening into a second
//! at the end of the file, which follows the totals at the end of the run.

use super::fingerprint::Numbering;
use super::model::{Failure, Report, Summary};
use super::spill::Spill;
use crate::diagnostic::Diagnostic;
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
            // Shown as the terminal outputs show them (`\x1b`), so what
            // was in the file stays visible.
            c if (c as u32) < 0x20 => o.push_str(&format!("\\x{:02x}", c as u32)),
            c if c == '\u{FFFE}' || c == '\u{FFFF}' => {
                o.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => o.push(c),
        }
    }
    o
}

/// Writes the JUnit document as findings arrive.
pub(super) struct JunitWriter<'w> {
    out: &'w mut dyn Write,
    /// The current file's testcases.
    cases: Spill,
    /// The suites of the files ended so far.
    suites: Spill,
    /// Findings and testcases of the files ended so far.
    findings: usize,
    tests: usize,
    /// The current file as reports show it, and escaped.
    location: String,
    path: String,
    in_file: usize,
    /// The current file's fingerprints, numbered (a table entry per
    /// distinct hash, as SARIF keeps).
    numbering: Numbering,
}

impl<'w> JunitWriter<'w> {
    pub(super) fn new(out: &'w mut dyn Write) -> Self {
        Self::spilling(out, Spill::new(), Spill::new())
    }

    pub(super) fn spilling(out: &'w mut dyn Write, cases: Spill, suites: Spill) -> Self {
        JunitWriter {
            out,
            cases,
            suites,
            findings: 0,
            tests: 0,
            location: String::new(),
            path: String::new(),
            in_file: 0,
            numbering: Numbering::default(),
        }
    }
}

impl Report for JunitWriter<'_> {
    fn start_file(&mut self, path: &str, member: Option<&str>) {
        self.location = super::model::location(path, member);
        self.path = esc(&self.location);
        self.in_file = 0;
        self.numbering.clear();
    }

    fn diagnostic(&mut self, d: &Diagnostic) -> io::Result<()> {
        let name = format!(
            "{} {} {}",
            d.rule.code,
            d.column.as_deref().unwrap_or("(row)"),
            self.numbering.fingerprint(&self.location, d)
        );
        // GitLab's test report shows only the failure's text, not its
        // `message` attribute: the text says it all again, as concise does.
        let mut body = format!(
            "{}:{}:{}: {} {} [{}] {}",
            self.location, d.line, d.col, d.rule.code, d.rule.name, d.severity, d.message
        );
        if let Some(h) = &d.help {
            body.push_str(&format!("\nhelp: {h}"));
        }
        let path = &self.path;
        writeln!(
            self.cases,
            r#"    <testcase classname="{path}" name="{}">"#,
            esc(&name)
        )?;
        writeln!(
            self.cases,
            r#"      <failure type="{}" message="{}">{}</failure>"#,
            d.rule.code,
            esc(&d.message),
            esc(&body)
        )?;
        writeln!(self.cases, "    </testcase>")?;
        self.in_file += 1;
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn end_file(&mut self, _format: Option<&str>, _records: u64) -> io::Result<()> {
        let (path, n) = (&self.path, self.in_file);
        writeln!(
            self.suites,
            r#"  <testsuite name="{path}" tests="{}" failures="{n}" errors="0" skipped="0">"#,
            n.max(1)
        )?;
        if n == 0 {
            writeln!(
                self.suites,
                r#"    <testcase classname="{path}" name="bdxlint"/>"#
            )?;
        }
        self.cases.drain_into(&mut self.suites)?;
        writeln!(self.suites, "  </testsuite>")?;
        self.findings += n;
        self.tests += n.max(1);
        Ok(())
    }

    /// A file some of whose findings arrived becomes a suite of those; one
    /// with none leaves no trace (it is listed as a failure).
    fn abandon_file(&mut self) -> io::Result<bool> {
        if self.in_file == 0 {
            return Ok(false);
        }
        self.end_file(None, 0)?;
        Ok(true)
    }

    fn finish(&mut self, failures: &[Failure], _s: &Summary) -> io::Result<()> {
        let out = &mut *self.out;
        writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
        writeln!(
            out,
            r#"<testsuites name="bdxlint" tests="{}" failures="{}" errors="{}">"#,
            self.tests + failures.len(),
            self.findings,
            failures.len()
        )?;
        self.suites.drain_into(out)?;
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::FileReport;

    /// A collected run through this writer, as `report::render` would
    /// feed it (which this file cannot call: its parent uses it).
    fn write_run(w: &mut dyn Report, reports: &[FileReport], s: &Summary) {
        for r in reports {
            w.start_file(&r.path, r.member.as_deref());
            for d in &r.diagnostics {
                w.diagnostic(d).expect("writes");
            }
            w.end_file(r.format, r.records).expect("writes");
        }
        w.finish(&[], s).expect("renders");
    }

    fn finding(code: &str, line: u64, col: u64, column: Option<&str>) -> Diagnostic {
        Diagnostic {
            help: (line == 2).then(|| "fix & retry".to_owned()),
            col,
            column: column.map(Into::into),
            ..crate::testutil::finding(code, line, format!("{code} <message>"))
        }
    }

    /// Testcases are named by rule, column and fingerprint: unique within
    /// a file (equal findings are numbered), and the same when the rows
    /// move, as the CI views track a test by its name.
    #[test]
    fn names_are_unique_and_survive_moved_rows() {
        let names = |lines: [u64; 3]| {
            let report = FileReport {
                path: "a.csv".into(),
                format: Some("employees"),
                records: 3,
                diagnostics: vec![
                    finding("C001", lines[0], 1, Some("Email")),
                    finding("C001", lines[1], 1, Some("Email")),
                    finding("C015", lines[2], 4, None),
                ],
                member: None,
            };
            let mut out = Vec::new();
            let reports = [report];
            let s = Summary::of(&reports, &[]);
            write_run(&mut JunitWriter::new(&mut out), &reports, &s);
            let xml = String::from_utf8(out).expect("UTF-8");
            let mut names: Vec<String> = xml
                .lines()
                .filter(|l| l.contains("<testcase "))
                .filter_map(|l| l.split(" name=\"").nth(1))
                .filter_map(|l| l.split('"').next())
                .filter(|n| *n != "bdxlint")
                .map(str::to_owned)
                .collect();
            names.sort();
            names
        };
        let before = names([2, 3, 3]);
        assert_eq!(before.len(), 3);
        assert!(
            before[0].starts_with("C001 Email ") && before[0].ends_with(":1"),
            "{before:?}"
        );
        assert!(
            before[1].starts_with("C001 Email ") && before[1].ends_with(":2"),
            "{before:?}"
        );
        assert!(before[2].starts_with("C015 (row) "), "{before:?}");
        assert_eq!(names([7, 5, 2]), before);
    }
}
