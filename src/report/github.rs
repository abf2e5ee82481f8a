//! GitHub Actions workflow commands: one `::error`/`::warning`/`::notice`
//! line per finding, which the runner turns into annotations on the diff.
//!
//! Escaping follows `@actions/core` (`escapeData`, `escapeProperty`):
//! `%`, CR and LF in the message; those plus `:` and `,` in properties.
//! GitHub shows only the first 10 errors and 10 warnings of a step (50 per
//! job), so large runs should upload SARIF instead.

use super::model::{Failure, Report, Summary};
use super::position;
use crate::diagnostic::{Diagnostic, Severity};
use std::io::{self, Write};

/// A message as `escapeData` writes it; then every other control character
/// (ESC, BEL, C1) shown escaped (`\x1b`), as the runner would print it raw
/// into the log and onto the terminal of whoever reads it.
fn escape_data(s: &str) -> String {
    let s = s
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    super::safe::printable(&s).into_owned()
}

/// A property (`file=`, `title=`) as `escapeProperty` writes it, and other
/// control characters escaped as in [`escape_data`].
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

/// Writes one workflow command per finding as it arrives; the files that
/// could not be checked at the end.
pub(super) struct GithubWriter<'w> {
    out: &'w mut dyn Write,
    /// The current file, as a property.
    file: String,
    in_file: usize,
}

impl<'w> GithubWriter<'w> {
    pub(super) fn new(out: &'w mut dyn Write) -> Self {
        GithubWriter {
            out,
            file: String::new(),
            in_file: 0,
        }
    }
}

impl Report for GithubWriter<'_> {
    fn start_file(&mut self, path: &str, member: Option<&str>) {
        self.file = escape_property(&super::model::uri(&super::model::location(path, member)));
        self.in_file = 0;
    }

    fn diagnostic(&mut self, d: &Diagnostic) -> io::Result<()> {
        let g = position::region(d);
        let mut props = format!("file={},line={}", self.file, g.start_line);
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
            self.out,
            "::{} {props},title={title}::{}",
            command(d.severity),
            escape_data(&message)
        )?;
        self.in_file += 1;
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn end_file(&mut self, _format: Option<&str>, _records: u64) -> io::Result<()> {
        Ok(())
    }

    /// Each annotation stands alone: nothing to close.
    fn abandon_file(&mut self) -> io::Result<bool> {
        Ok(self.in_file > 0)
    }

    fn finish(&mut self, failures: &[Failure], _s: &Summary) -> io::Result<()> {
        for f in failures {
            writeln!(
                self.out,
                "::error file={},title=bdxlint::{}",
                escape_property(&super::model::uri(&f.path)),
                escape_data(&f.reason)
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_the_actions_toolkit() {
        assert_eq!(escape_data("100%\r\na:b,c"), "100%25%0D%0Aa:b,c");
        assert_eq!(escape_property("100%\r\na:b,c"), "100%25%0D%0Aa%3Ab%2Cc");
    }

    #[test]
    fn other_control_characters_are_escaped_in_properties_and_messages() {
        let name = "a\u{1b}]0;x\u{7}\r\n::error::b.csv";
        let p = escape_property(name);
        assert_eq!(p, "a\\x1b]0;x\\x07%0D%0A%3A%3Aerror%3A%3Ab.csv");
        assert!(!p.chars().any(char::is_control), "{p}");
        assert_eq!(escape_data("x\u{9b}y\u{7f}"), "x\\u{9b}y\\x7f");

        let mut out = Vec::new();
        {
            let mut w = GithubWriter::new(&mut out);
            w.start_file(name, None);
            w.finish(
                &[Failure {
                    path: name.to_owned(),
                    reason: format!("{name}: \u{1b}[2J gone"),
                }],
                &Summary::default(),
            )
            .expect("writes");
        }
        let text = String::from_utf8(out).expect("UTF-8");
        assert!(
            !text.trim_end_matches('\n').chars().any(char::is_control),
            "{text:?}"
        );
        assert_eq!(text.lines().count(), 1, "{text:?}");
    }
}
