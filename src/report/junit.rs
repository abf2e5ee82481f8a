//! JUnit XML, for CI test-report views (GitLab `artifacts:reports:junit`,
//! Jenkins, Azure). A `<testsuite>` per file; a failing `<testcase>` per
//! finding, named uniquely within the file (GitLab keeps only the first of
//! equal names); one passing testcase for a clean file; an `<error>` for a
//! file that could not be checked. Hand-written with XML escaping: the
//! document is small and fixed.
//!
//! The run's totals open the document and each suite's counts open the
//! suite, so the testcases are spilled ([`super::spill`]) as they arrive:
//! a file's into one spill, copied after its suite's opening into a second
//! at the end of the file, which follows the totals at the end of the run.

use super::spill::Spill;
use super::{Failure, Report, Summary};
use crate::diagnostic::Diagnostic;
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
    /// How often each testcase name has occurred on the current finding's
    /// line. Names are made unique by numbering repeats (`#2`); a name
    /// holds the finding's line, so only findings of one line can share
    /// one. Findings come in position order, then possibly a second block,
    /// also in order, of reference and batch findings whose rules never
    /// occur in the first: equal names are thus always on one run of
    /// consecutive findings of one line, and the table can forget
    /// everything when the line changes instead of holding a name per
    /// finding of the file.
    names: HashMap<String, u32>,
    line: Option<u64>,
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
            names: HashMap::new(),
            line: None,
        }
    }
}

impl Report for JunitWriter<'_> {
    fn start_file(&mut self, path: &str, member: Option<&str>) {
        self.location = super::location(path, member);
        self.path = esc(&self.location);
        self.in_file = 0;
        self.names.clear();
        self.line = None;
    }

    fn diagnostic(&mut self, d: &Diagnostic) -> io::Result<()> {
        if self.line != Some(d.line) {
            self.names.clear();
            self.line = Some(d.line);
        }
        let mut name = format!("{} line {} col {}", d.rule.code, d.line, d.col);
        if let Some(c) = &d.column {
            name.push_str(&format!(" ({c})"));
        }
        let k = self.names.entry(name.clone()).or_insert(0);
        *k += 1;
        if *k > 1 {
            name.push_str(&format!(" #{k}"));
        }
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

    fn finding(code: &str, line: u64, col: u64, column: Option<&str>) -> Diagnostic {
        let rule = crate::rules::lookup(code).expect("a rule");
        Diagnostic {
            rule,
            severity: rule.severity,
            message: format!("{code} <{line}>"),
            help: (line == 2).then(|| "fix & retry".to_owned()),
            line,
            col,
            column: column.map(Into::into),
            span: 0..0,
            related: Vec::new(),
            snippet: None,
            once_per_file: false,
            shared: None,
        }
    }

    /// Equal testcase names get `#2`, `#3`: within a file's position order
    /// (C001 twice at 2:1, then C015 between C001s on one line), and in the
    /// block of reference and batch findings a streamed run appends after
    /// it (B006, back on line 2 and again on 4), whose rules the first
    /// block never has. The bytes are those of the renderer that kept every
    /// name of a file.
    #[test]
    fn repeated_names_are_numbered_as_when_every_name_was_kept() {
        let dup = FileReport {
            path: "a.csv".into(),
            format: Some("employees"),
            records: 3,
            diagnostics: vec![
                finding("C001", 2, 1, Some("Email")),
                finding("C001", 2, 1, Some("Email")),
                finding("C015", 2, 1, Some("Email")),
                finding("C001", 2, 1, Some("Email")),
                finding("C001", 2, 7, None),
                finding("C001", 3, 1, Some("Email")),
                finding("B006", 2, 1, Some("Email")),
                finding("B006", 2, 1, Some("Email")),
                finding("B006", 4, 1, None),
                finding("B006", 4, 1, None),
            ],
            member: None,
        };
        let clean = FileReport {
            path: "b.csv".into(),
            format: Some("employees"),
            records: 1,
            diagnostics: Vec::new(),
            member: Some("m.csv".into()),
        };
        let failures = [Failure {
            path: "c.csv".into(),
            reason: "gone".into(),
        }];
        let mut out = Vec::new();
        let reports = [dup, clean];
        let s = crate::report::Summary::of(&reports, &failures);
        let h = crate::report::HumanOptions::default();
        crate::report::render(
            &mut out,
            crate::report::OutputFormat::Junit,
            &reports,
            &failures,
            &s,
            &h,
        )
        .expect("renders");
        let got = String::from_utf8(out).expect("UTF-8");
        assert_eq!(got, EXPECTED);
    }

    const EXPECTED: &str = r##"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="bdxlint" tests="12" failures="10" errors="1">
  <testsuite name="a.csv" tests="10" failures="10" errors="0" skipped="0">
    <testcase classname="a.csv" name="C001 line 2 col 1 (Email)">
      <failure type="C001" message="C001 &lt;2&gt;">a.csv:2:1: C001 empty-required-cell [error] C001 &lt;2&gt;&#10;help: fix &amp; retry</failure>
    </testcase>
    <testcase classname="a.csv" name="C001 line 2 col 1 (Email) #2">
      <failure type="C001" message="C001 &lt;2&gt;">a.csv:2:1: C001 empty-required-cell [error] C001 &lt;2&gt;&#10;help: fix &amp; retry</failure>
    </testcase>
    <testcase classname="a.csv" name="C015 line 2 col 1 (Email)">
      <failure type="C015" message="C015 &lt;2&gt;">a.csv:2:1: C015 surrounding-whitespace [warning] C015 &lt;2&gt;&#10;help: fix &amp; retry</failure>
    </testcase>
    <testcase classname="a.csv" name="C001 line 2 col 1 (Email) #3">
      <failure type="C001" message="C001 &lt;2&gt;">a.csv:2:1: C001 empty-required-cell [error] C001 &lt;2&gt;&#10;help: fix &amp; retry</failure>
    </testcase>
    <testcase classname="a.csv" name="C001 line 2 col 7">
      <failure type="C001" message="C001 &lt;2&gt;">a.csv:2:7: C001 empty-required-cell [error] C001 &lt;2&gt;&#10;help: fix &amp; retry</failure>
    </testcase>
    <testcase classname="a.csv" name="C001 line 3 col 1 (Email)">
      <failure type="C001" message="C001 &lt;3&gt;">a.csv:3:1: C001 empty-required-cell [error] C001 &lt;3&gt;</failure>
    </testcase>
    <testcase classname="a.csv" name="B006 line 2 col 1 (Email)">
      <failure type="B006" message="B006 &lt;2&gt;">a.csv:2:1: B006 dangling-reference [error] B006 &lt;2&gt;&#10;help: fix &amp; retry</failure>
    </testcase>
    <testcase classname="a.csv" name="B006 line 2 col 1 (Email) #2">
      <failure type="B006" message="B006 &lt;2&gt;">a.csv:2:1: B006 dangling-reference [error] B006 &lt;2&gt;&#10;help: fix &amp; retry</failure>
    </testcase>
    <testcase classname="a.csv" name="B006 line 4 col 1">
      <failure type="B006" message="B006 &lt;4&gt;">a.csv:4:1: B006 dangling-reference [error] B006 &lt;4&gt;</failure>
    </testcase>
    <testcase classname="a.csv" name="B006 line 4 col 1 #2">
      <failure type="B006" message="B006 &lt;4&gt;">a.csv:4:1: B006 dangling-reference [error] B006 &lt;4&gt;</failure>
    </testcase>
  </testsuite>
  <testsuite name="b.csv:m.csv" tests="1" failures="0" errors="0" skipped="0">
    <testcase classname="b.csv:m.csv" name="bdxlint"/>
  </testsuite>
  <testsuite name="c.csv" tests="1" failures="0" errors="1" skipped="0">
    <testcase classname="c.csv" name="read">
      <error type="io" message="gone"/>
    </testcase>
  </testsuite>
</testsuites>
"##;
}
