//! Checking one input of a run into the report: what every input is
//! checked with ([`Run`]: the options, the limits, the keys references
//! need), the options for one input, and its check, streamed or into a
//! collector, with its batch findings and references after it. The bottom
//! of the run's checking: `execute.rs` (every input in order) and
//! `passes.rs` (`--fix`) both build on it, and it imports neither.

use super::expand;
use super::replace::At;
use super::request::{Input, Request};
use super::tally::{progress_bar, Progress, Streamer, Tally};
use crate::bundle::{self, Kind, Limits};
use crate::check::dates::DateOrders;
use crate::check::refs::{self, Keys, RefSources};
use crate::check::{self, Options};
use crate::diagnostic::{Diagnostic, Relearn, Reports};
use crate::error::Error;
use crate::report::{Failure, Report};
use crate::rules;
use crate::select::RuleFilter;
use std::io;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Regular files up to this size (and ZIP bundles) are checked ahead, in
/// parallel with their neighbours; larger ones and streams are checked in
/// turn, their findings written while they are read.
pub(super) const STREAM_ABOVE: u64 = 8 << 20;

/// The inputs of one run and the config overrides of each (a format, and
/// the rule filter).
pub(super) type PerInput<'s> = [(Option<&'s str>, RuleFilter)];

/// What every input of one `check` run is checked with.
pub(super) struct Run<'a> {
    pub(super) req: &'a Request,
    /// Show a progress bar for large files: stderr is a terminal and the
    /// output is for a person.
    pub(super) progress: bool,
    pub(super) opts: &'a Options,
    pub(super) limits: &'a Limits,
    pub(super) external: Option<&'a Keys>,
    /// The keys of the run's CSV files that the references checked after
    /// each file read (the Work Emails of its employees files); `None` when
    /// nothing in the run reads them.
    pub(super) run_keys: Option<&'a Keys>,
    /// [`Run::csv_formats`], by input index, once known.
    pub(super) sniffed: std::sync::OnceLock<Vec<(usize, &'static str)>>,
}

impl Run<'_> {
    /// The format an input is checked as: `--format`, else a config
    /// override's; a bundle kind is not a CSV format.
    fn format_of<'f>(&'f self, format: Option<&'f str>) -> Option<&'f str> {
        self.req.format.as_deref().or(format)
    }

    /// The options for one input: a config override may name its format
    /// (`--format` still wins), and cross-row rules its filter drops keep
    /// no state.
    pub(super) fn opts_for(&self, format: Option<&str>, filter: &RuleFilter) -> Options {
        let mut opts = self.opts.clone();
        if let Some(f) = self.format_of(format) {
            if self.req.format.is_none() && Kind::from_name(f).is_none() {
                opts.format = Some(f.to_owned());
            }
        }
        let on = |r: &rules::Rule| filter.judge(r, r.severity).is_some();
        opts.cross = check::CrossRules {
            identity: [
                &rules::IDENTITY_CONFLICT,
                &rules::IDENTITY_COMBINATION,
                &rules::IDENTITY_PARTNER_MISMATCH,
                &rules::IDENTITY_EMAIL_CASE,
            ]
            .into_iter()
            .any(on),
            unique: on(&rules::DUPLICATE_VALUE),
            rows: on(&rules::DUPLICATE_ROW),
        };
        opts
    }

    pub(super) fn is_bundle(&self, input: &Input, format: Option<&str>) -> bool {
        matches!(input, Input::File(p) if bundle::is_bundle_path(p, self.format_of(format)))
    }

    /// Checks one input into `out`. `more` are its batch findings; `bar`
    /// a progress bar for its reading.
    pub(super) fn check_into(
        &self,
        input: &Input,
        format: Option<&str>,
        opts: &Options,
        more: Vec<Diagnostic>,
        bar: Option<indicatif::ProgressBar>,
        out: &mut dyn Reports,
    ) -> Result<(), Error> {
        self.check_from(input, None, format, opts, more, bar, out)
            .map(drop)
    }

    /// [`check_into`](Self::check_into), reading a regular file's bytes
    /// from `source` when given (the descriptor `--fix` opened, or its
    /// fixed copy; read at offsets of its own, so it may be shared) while
    /// naming it by the input's own path. Returns what the file's date
    /// columns show of the order of day and month (see [`check::dates`]):
    /// when the check learned it too late for findings it had made, `out`
    /// decides ([`Reports::relearn`]) whether the file is checked again
    /// knowing it, gets a note, or whether the caller (a fixing pass) sees
    /// to it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check_from(
        &self,
        input: &Input,
        source: Option<&std::fs::File>,
        format: Option<&str>,
        opts: &Options,
        more: Vec<Diagnostic>,
        bar: Option<indicatif::ProgressBar>,
        out: &mut dyn Reports,
    ) -> Result<DateOrders, Error> {
        let kind = self.format_of(format).and_then(Kind::from_name);
        let path = match input {
            Input::File(p) if self.is_bundle(input, format) => {
                return bundle::check_zip_into(
                    p,
                    kind,
                    opts,
                    self.limits,
                    self.external,
                    self.run_keys,
                    out,
                )
                .map(|()| DateOrders::default());
            }
            Input::File(p) => p,
            Input::Stdin if source.is_some() => self.req.stdin_path(),
            Input::Stdin => {
                let display = self.req.stdin_path().display().to_string();
                out.start_file(&display, None, true);
                let name = self.req.stdin_path().file_name().and_then(|n| n.to_str());
                let (rep, dates) = check::check_reader_dated(
                    io::stdin().lock(),
                    &display,
                    name,
                    opts,
                    &mut |d| out.diagnostic(d),
                )?;
                // Read once: what was learned late can only be said.
                if dates.late() && out.relearn() != Relearn::Caller {
                    for d in check::dates::late_notes(&dates, rep.format) {
                        out.diagnostic(d);
                    }
                }
                out.end_file(rep.format, rep.records);
                return Ok(dates);
            }
        };
        let display = path.display().to_string();
        out.start_file(&display, None, true);
        // Standard input's `--stdin-filename` tells its format as a
        // file's name does; `-` tells nothing.
        let name = match (input, &self.req.stdin_filename) {
            (Input::Stdin, None) => None,
            _ => path.file_name().and_then(|n| n.to_str()),
        };
        let mut opts = opts.clone();
        // A walk meets CSV files that are not uploads: one is taken as a
        // format only on strong evidence, else it is `unknown-format`.
        opts.strict_detection = matches!(input, Input::File(_)) && expand::strict(self.req, path);
        let mut bar = bar;
        let (rep, dates) = loop {
            let opened;
            let (file, reader): (_, Box<dyn io::Read + '_>) = match source {
                Some(f) => (f, Box::new(At::new(f))),
                None => {
                    // Read as a stream (a FIFO has no offsets).
                    opened = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
                    (&opened, Box::new(&opened))
                }
            };
            opts.size_hint = file.metadata().ok().map(|m| m.len());
            let file = Progress {
                inner: reader,
                bar: bar.take(),
                lines: 0,
            };
            let (rep, dates) =
                match check::check_reader_dated(file, &display, name, &opts, &mut |d| {
                    out.diagnostic(d)
                }) {
                    // A stray CSV met by a walk is not an upload to fail the run on.
                    Err(Error::Detect { candidates, .. }) if opts.strict_detection => {
                        out.diagnostic(expand::unknown_format(&candidates));
                        out.end_file(None, 0);
                        return Ok(DateOrders::default());
                    }
                    r => r.map_err(|e| match e {
                        Error::Io { source, .. } => Error::io(path, source),
                        other => other,
                    })?,
                };
            if !dates.late() {
                break (rep, dates);
            }
            // Rare: a date column with cells that read as two dates turned
            // out day-first, or written both ways, after those cells were
            // read.
            match out.relearn() {
                Relearn::Again => opts.date_orders = Some(Arc::new(dates)),
                Relearn::Note => {
                    for d in check::dates::late_notes(&dates, rep.format) {
                        out.diagnostic(d);
                    }
                    break (rep, dates);
                }
                Relearn::Caller => break (rep, dates),
            }
        };
        let opts = &opts;
        // What other passes say about the file follows its own findings.
        let mut more = more;
        more.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        for d in more {
            out.diagnostic(d);
        }
        if let Some(format) = rep.format {
            self.references(path, source, format, opts, out)?;
        }
        out.end_file(rep.format, rep.records);
        Ok(dates)
    }

    /// The second pass of a file whose format has its references checked
    /// after it (relations): against `--entities` and the run's CSV files
    /// (or one info on what went unchecked). Nothing for other formats.
    /// `source`: the descriptor to read instead of opening `path` again.
    fn references(
        &self,
        path: &Path,
        source: Option<&std::fs::File>,
        format: &str,
        opts: &Options,
        out: &mut dyn Reports,
    ) -> Result<(), Error> {
        if !refs::checked_after(format) {
            return Ok(());
        }
        let file: Box<dyn io::Read + '_> = match source {
            Some(f) => Box::new(At::new(f)),
            None => Box::new(std::fs::File::open(path).map_err(|e| Error::io(path, e))?),
        };
        let sources = RefSources {
            bundle: None,
            entities: self.external,
            run: self.run_keys,
        };
        refs::check_references_into(file, opts, format, sources, &mut |d| out.diagnostic(d))
            .map_err(|e| Error::io(path, e))
    }

    /// Checks one input in its turn, writing its findings as each chunk is
    /// folded; its batch findings and references follow.
    pub(super) fn stream_input(
        &self,
        input: &Input,
        (format, filter): &(Option<&str>, RuleFilter),
        more: Vec<Diagnostic>,
        failures: &mut Vec<Failure>,
        w: &mut dyn Report,
        t: &mut Tally,
    ) {
        let mut opts = self.opts_for(*format, filter);
        // Past --max-diagnostics every later finding of the file is
        // hidden, and its source lines need not be captured.
        if opts.snippets && t.caps() && !self.is_bundle(input, *format) {
            let stop = Arc::new(AtomicBool::new(false));
            opts.snippet_stop = Some(Arc::clone(&stop));
            t.snippet_stop_next = Some(stop);
        }
        let bar = match input {
            Input::File(p) if self.progress && !self.is_bundle(input, *format) => {
                std::fs::metadata(p)
                    .ok()
                    .filter(|m| m.is_file())
                    .map(|m| progress_bar(p, m.len()))
            }
            _ => None,
        };
        t.bar = bar.clone();
        let mut s = Streamer {
            tally: t,
            report: w,
            filter,
        };
        let res = self.check_into(input, *format, &opts, more, bar, &mut s);
        if let Some(bar) = t.bar.take() {
            bar.finish_and_clear();
        }
        if let Err(e) = res {
            // A file that failed after some of its findings went out
            // still ends well-formed; the failure is listed as well.
            t.abandon_file(w);
            failures.push(failure(e));
        }
    }
}

/// A file that could not be checked, named by the path in its error.
pub(super) fn failure(e: Error) -> Failure {
    let path = match &e {
        Error::Io { path, .. } | Error::Detect { path, .. } => path.display().to_string(),
        _ => String::new(),
    };
    Failure {
        path,
        reason: e.to_string(),
    }
}
