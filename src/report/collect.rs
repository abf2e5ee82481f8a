//! The formats whose renderers need the whole run (sarif, junit, gitlab,
//! github, rdjsonl), behind the [`Report`] trait: the findings are kept
//! and rendered at `finish`.

use super::{Failure, HumanOptions, OutputFormat, Report, Summary};
use crate::diagnostic::{Diagnostic, FileReport};
use std::io::{self, Write};

pub(super) struct Collect<'w> {
    out: &'w mut dyn Write,
    format: OutputFormat,
    human: HumanOptions,
    reports: Vec<FileReport>,
}

impl<'w> Collect<'w> {
    pub(super) fn new(out: &'w mut dyn Write, format: OutputFormat, human: &HumanOptions) -> Self {
        Collect {
            out,
            format,
            human: human.clone(),
            reports: Vec::new(),
        }
    }
}

impl Report for Collect<'_> {
    fn start_file(&mut self, path: &str, member: Option<&str>) {
        self.reports.push(FileReport {
            path: path.to_owned(),
            format: None,
            records: 0,
            diagnostics: Vec::new(),
            member: member.map(str::to_owned),
        });
    }

    fn diagnostic(&mut self, d: &Diagnostic) -> io::Result<()> {
        if let Some(r) = self.reports.last_mut() {
            r.diagnostics.push(d.clone());
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    // None of these formats shows the format or the record count.
    fn end_file(&mut self, _format: Option<&str>, _records: u64) -> io::Result<()> {
        Ok(())
    }

    fn abandon_file(&mut self) -> io::Result<bool> {
        Ok(self
            .reports
            .last()
            .is_some_and(|r| !r.diagnostics.is_empty()))
    }

    fn finish(&mut self, failures: &[Failure], s: &Summary) -> io::Result<()> {
        super::render(
            self.out,
            self.format,
            &self.reports,
            failures,
            s,
            &self.human,
        )
    }
}
