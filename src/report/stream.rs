//! The writer of the formats that are a plain sequence of findings
//! (`human`, `json`, `jsonl`, `concise`): each finding goes out as it
//! arrives, so memory stays flat however many findings a file has. The
//! other formats have writers of their own (see [`super::writer`]).

use super::human::HumanOptions;
use super::json::write_diag;
use super::model::{Failure, OutputFormat, Report, Summary};
use crate::diagnostic::Diagnostic;
use serde::Serialize;
use std::io::{self, Write};

/// Writes one run, file by file and finding by finding.
pub struct StreamWriter<'w> {
    out: &'w mut dyn Write,
    format: OutputFormat,
    /// Files written so far (for the JSON separators).
    files: usize,
    /// Findings written for the current file.
    in_file: usize,
    /// The current file: its path, and where it is shown (`archive:member`).
    path: String,
    location: String,
    member: Option<String>,
    /// Whether the current file's opening is written.
    open: bool,
    handler: Option<miette::GraphicalReportHandler>,
    /// A finding's JSON, built here and written out in one call.
    buf: Vec<u8>,
}

impl<'w> StreamWriter<'w> {
    /// Whether `format` is one this writer writes (the others have writers
    /// of their own, see [`super::writer`]).
    pub(crate) fn streams(format: OutputFormat) -> bool {
        match format {
            OutputFormat::Json
            | OutputFormat::Jsonl
            | OutputFormat::Concise
            | OutputFormat::Human => true,
            OutputFormat::Sarif
            | OutputFormat::Github
            | OutputFormat::Gitlab
            | OutputFormat::Junit
            | OutputFormat::Rdjsonl
            | OutputFormat::Html => false,
        }
    }

    /// A writer for `format`, which must be one that [`streams`]; another
    /// is an error (it has a writer of its own, see [`super::writer`]).
    ///
    /// [`streams`]: StreamWriter::streams
    pub(crate) fn new(
        out: &'w mut dyn Write,
        format: OutputFormat,
        human: &HumanOptions,
    ) -> io::Result<Self> {
        if !Self::streams(format) {
            return Err(io::Error::other(format!(
                "{format:?} output cannot be streamed"
            )));
        }
        if format == OutputFormat::Json {
            out.write_all(b"{\"version\":1,\"files\":[")?;
        }
        Ok(StreamWriter {
            out,
            format,
            files: 0,
            in_file: 0,
            path: String::new(),
            location: String::new(),
            member: None,
            open: false,
            handler: (format == OutputFormat::Human).then(|| super::human::handler(human)),
            buf: Vec::new(),
        })
    }

    /// Starts a file; its findings follow, then [`StreamWriter::end_file`].
    /// Nothing is written until the first finding or the end, so a file
    /// that turns out unreadable leaves no trace here (it is a failure).
    pub(crate) fn start_file(&mut self, path: &str, member: Option<&str>) {
        self.path = path.to_owned();
        self.member = member.map(str::to_owned);
        self.location = match member {
            Some(m) => format!("{path}:{m}"),
            None => path.to_owned(),
        };
        self.in_file = 0;
        self.open = false;
    }

    fn open(&mut self) -> io::Result<()> {
        if self.open {
            return Ok(());
        }
        self.open = true;
        if self.format == OutputFormat::Json {
            if self.files > 0 {
                self.out.write_all(b",")?;
            }
            self.out.write_all(b"{\"path\":")?;
            serde_json::to_writer(&mut *self.out, &self.path)?;
            if let Some(m) = &self.member {
                self.out.write_all(b",\"member\":")?;
                serde_json::to_writer(&mut *self.out, m)?;
            }
            self.out.write_all(b",\"diagnostics\":[")?;
        }
        self.files += 1;
        Ok(())
    }

    pub(crate) fn diagnostic(&mut self, d: &Diagnostic) -> io::Result<()> {
        self.open()?;
        let member = self.member.as_deref();
        match self.format {
            OutputFormat::Json => {
                self.buf.clear();
                if self.in_file > 0 {
                    self.buf.push(b',');
                }
                write_diag(&mut self.buf, d, None, member);
                self.out.write_all(&self.buf)?;
            }
            OutputFormat::Jsonl => {
                self.buf.clear();
                write_diag(&mut self.buf, d, Some(&self.path), member);
                self.buf.push(b'\n');
                self.out.write_all(&self.buf)?;
            }
            OutputFormat::Human => {
                if let Some(h) = &self.handler {
                    // `--fix` leaves bundle members as they are: no `[*]`.
                    if self.member.is_some() && d.fix.is_some() {
                        let mut d = d.clone();
                        d.fix = None;
                        super::human::write_one(&mut *self.out, h, &self.location, &d)?;
                    } else {
                        super::human::write_one(&mut *self.out, h, &self.location, d)?;
                    }
                }
            }
            OutputFormat::Concise => writeln!(
                self.out,
                "{}:{}:{}: {} [{}] {}{}",
                super::safe::display_name(&self.location),
                d.line,
                d.col,
                d.rule.code,
                d.severity,
                if super::model::fix_mark(d).is_empty() || self.member.is_some() {
                    ""
                } else {
                    "[*] "
                },
                super::safe::printable(&d.message)
            )?,
            // `new` refuses them.
            OutputFormat::Sarif
            | OutputFormat::Github
            | OutputFormat::Gitlab
            | OutputFormat::Junit
            | OutputFormat::Rdjsonl
            | OutputFormat::Html => {}
        }
        self.in_file += 1;
        Ok(())
    }

    /// One line for the findings of one rule on one column that were
    /// folded (human output; the other formats get every finding).
    pub(crate) fn folded(&mut self, f: &super::fold::Folded) -> io::Result<()> {
        if self.format != OutputFormat::Human {
            return Ok(());
        }
        self.open()?;
        use super::fold::{thousands, Count, SHOWN};
        use super::safe::printable;
        let column = match &f.column {
            Some(c) => format!(" in `{}`", printable(c)),
            None => String::new(),
        };
        // How many of the first few the report printed: fewer when the
        // file's `--max-diagnostics` hid some.
        let shown = match f.shown {
            n if n == SHOWN as u64 => format!("the first {SHOWN} shown above"),
            0 => "none shown above (--max-diagnostics)".to_owned(),
            n => format!("the first {n} shown above (--max-diagnostics)"),
        };
        let mut line = format!(
            "{}: {}({}) {}{column}: {} findings, {shown}",
            super::safe::display_name(&self.location),
            f.severity,
            f.rule.code,
            f.rule.name,
            thousands(f.total),
        );
        // Each count is exact or says it is a bound: a value counted only
        // from when it took a place in the table is seen at least that often.
        let values: Vec<String> = f
            .values
            .iter()
            .map(|(v, n)| match n {
                Count::Exact(n) => format!("{} × `{}`", thousands(*n), printable(v)),
                Count::AtLeast(n) => {
                    format!("at least {} × `{}`", thousands(*n), printable(v))
                }
            })
            .collect();
        match (f.overflowed, values.is_empty()) {
            (false, true) => {}
            (false, false) => {
                line.push_str("; most common: ");
                line.push_str(&values.join(", "));
            }
            (true, false) => {
                line.push_str(&format!(
                    "; most common of more than {} distinct values: ",
                    super::fold::SLOTS
                ));
                line.push_str(&values.join(", "));
            }
            (true, true) => line.push_str(&format!(
                "; more than {} distinct values, none known to stand out",
                super::fold::SLOTS
            )),
        }
        writeln!(self.out, "{line}\n")
    }

    /// Pushes buffered output out (before a progress bar redraws).
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Ends the current file with what is known only at its end.
    pub(crate) fn end_file(&mut self, format: Option<&str>, records: u64) -> io::Result<()> {
        self.open()?;
        if self.format == OutputFormat::Json {
            self.out.write_all(b"],\"format\":")?;
            serde_json::to_writer(&mut *self.out, &format)?;
            write!(self.out, ",\"records\":{records}}}")?;
        }
        Ok(())
    }

    /// Ends the current file if anything of it was written (reading it
    /// failed part way) and says so; otherwise leaves no trace of it.
    pub(crate) fn abandon_file(&mut self) -> io::Result<bool> {
        if !self.open {
            return Ok(false);
        }
        self.end_file(None, 0)?;
        Ok(true)
    }

    /// Ends the run: files that could not be checked, then the summary.
    pub(crate) fn finish(&mut self, failures: &[Failure], s: &Summary) -> io::Result<()> {
        match self.format {
            OutputFormat::Json => {
                #[derive(Serialize)]
                struct Unreadable<'a> {
                    path: &'a str,
                    diagnostics: [(); 0],
                    format: Option<&'a str>,
                    records: u64,
                    error: &'a str,
                }
                for (i, f) in failures.iter().enumerate() {
                    if self.files + i > 0 {
                        self.out.write_all(b",")?;
                    }
                    serde_json::to_writer(
                        &mut *self.out,
                        &Unreadable {
                            path: &f.path,
                            diagnostics: [],
                            format: None,
                            records: 0,
                            error: &f.reason,
                        },
                    )?;
                }
                self.out.write_all(b"],\"summary\":")?;
                serde_json::to_writer(&mut *self.out, &super::json::summary(s))?;
                self.out.write_all(b"}\n")
            }
            OutputFormat::Jsonl => super::jsonl::failures(self.out, failures),
            OutputFormat::Human => writeln!(self.out, "{}", super::model::summary_line(s)),
            OutputFormat::Concise => Ok(()),
            // `new` refuses them.
            OutputFormat::Sarif
            | OutputFormat::Github
            | OutputFormat::Gitlab
            | OutputFormat::Junit
            | OutputFormat::Rdjsonl
            | OutputFormat::Html => Ok(()),
        }
    }
}

impl Report for StreamWriter<'_> {
    fn start_file(&mut self, path: &str, member: Option<&str>) {
        StreamWriter::start_file(self, path, member)
    }

    fn diagnostic(&mut self, d: &Diagnostic) -> io::Result<()> {
        StreamWriter::diagnostic(self, d)
    }

    fn flush(&mut self) -> io::Result<()> {
        StreamWriter::flush(self)
    }

    fn folded(&mut self, f: &super::fold::Folded) -> io::Result<()> {
        StreamWriter::folded(self, f)
    }

    fn end_file(&mut self, format: Option<&str>, records: u64) -> io::Result<()> {
        StreamWriter::end_file(self, format, records)
    }

    fn abandon_file(&mut self) -> io::Result<bool> {
        StreamWriter::abandon_file(self)
    }

    fn finish(&mut self, failures: &[Failure], s: &Summary) -> io::Result<()> {
        StreamWriter::finish(self, failures, s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fold::{Count, Folded};

    fn line(f: &Folded) -> String {
        let mut out = Vec::new();
        let mut w = StreamWriter::new(&mut out, OutputFormat::Human, &HumanOptions::default())
            .expect("human streams");
        w.start_file("f.csv", None);
        w.folded(f).expect("writes");
        drop(w);
        String::from_utf8(out).expect("UTF-8")
    }

    /// Every count of a folded line is exact or says it is a bound, and
    /// "shown above" counts what the cap let through.
    #[test]
    fn a_folded_line_marks_bounds_and_counts_what_was_shown() {
        let rule = crate::rules::lookup("C016").expect("rule");
        let f = Folded {
            rule,
            severity: rule.severity,
            column: Some("User ID".into()),
            total: 200_000,
            folded: 199_995,
            shown: 5,
            values: vec![
                ("TRUE".into(), Count::Exact(100_000)),
                ("1.30816E+11".into(), Count::AtLeast(2_000)),
            ],
            overflowed: true,
        };
        assert_eq!(
            line(&f),
            "f.csv: error(C016) scientific-notation-id in `User ID`: 200,000 findings, the first 5 shown above; most common of more than 8 distinct values: 100,000 × `TRUE`, at least 2,000 × `1.30816E+11`\n\n"
        );
        let f = Folded {
            shown: 2,
            values: Vec::new(),
            ..f
        };
        assert_eq!(
            line(&f),
            "f.csv: error(C016) scientific-notation-id in `User ID`: 200,000 findings, the first 2 shown above (--max-diagnostics); more than 8 distinct values, none known to stand out\n\n"
        );
        let f = Folded {
            shown: 0,
            values: vec![("#N/A".into(), Count::Exact(200_000))],
            overflowed: false,
            ..f
        };
        assert_eq!(
            line(&f),
            "f.csv: error(C016) scientific-notation-id in `User ID`: 200,000 findings, none shown above (--max-diagnostics); most common: 200,000 × `#N/A`\n\n"
        );
    }
}
