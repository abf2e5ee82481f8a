//! Where each finding of a run goes: the rule filter, the baseline, the
//! counts, the `--max-diagnostics` cap, then the report.

use crate::baseline::{Matcher, Recorder};
use crate::diagnostic::{Diagnostic, Reports, Severity};
use crate::report::fold::Folder;
use crate::report::{Report, Summary};
use crate::select::RuleFilter;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Counts, filters and caps the findings of a run.
pub(super) struct Tally {
    pub(super) summary: Summary,
    fail_on: Severity,
    /// A finding at or above `fail_on` was counted.
    pub(super) failing: bool,
    max: Option<usize>,
    in_file: usize,
    /// The first write error; later findings are dropped.
    pub(super) error: Option<io::Error>,
    /// The current file's progress bar, if one is shown.
    pub(super) bar: Option<indicatif::ProgressBar>,
    /// Set when a finding of the current streamed file is hidden, so the
    /// checker stops capturing source lines for the rest of it.
    snippet_stop: Option<Arc<AtomicBool>>,
    /// The flag for the next file to start.
    pub(super) snippet_stop_next: Option<Arc<AtomicBool>>,
    /// A file is started and not yet ended.
    open: bool,
    /// The current file, as baselines name it.
    path: String,
    member: Option<String>,
    /// `--baseline`: findings it records are left out.
    pub(super) baseline: Option<Matcher>,
    /// `--write-baseline`: every finding is recorded; without `--baseline`
    /// they are then all left out, as the new baseline records them.
    pub(super) recorder: Option<Recorder>,
    /// `--unsafe-fixes`: unsafe fixes count as applicable.
    pub(super) unsafe_fixes: bool,
    /// `--split`: where the errors of rows are, baselined or not (the
    /// platform refuses those rows either way), and what was found of the
    /// whole file.
    pub(super) split: Option<super::split::Findings>,
    /// The human report's folding of repeated findings, per file.
    pub(super) folder: Option<Folder>,
}

impl Tally {
    pub(super) fn new(
        fail_on: Severity,
        max: Option<usize>,
        baseline: Option<Matcher>,
        recorder: Option<Recorder>,
    ) -> Tally {
        Tally {
            summary: Summary::default(),
            fail_on,
            failing: false,
            max,
            in_file: 0,
            error: None,
            bar: None,
            snippet_stop: None,
            snippet_stop_next: None,
            open: false,
            path: String::new(),
            member: None,
            baseline,
            recorder,
            unsafe_fixes: false,
            split: None,
            folder: None,
        }
    }

    pub(super) fn start_file(&mut self, path: &str, member: Option<&str>) {
        self.in_file = 0;
        self.snippet_stop = self.snippet_stop_next.take();
        // A bundle is one file of the run, however many members it has.
        if member.is_none() {
            self.summary.files += 1;
        }
        self.open = true;
        self.path = path.to_owned();
        self.member = member.map(str::to_owned);
        if let Some(m) = &mut self.baseline {
            m.start_file(path, member);
        }
    }

    pub(super) fn emit(&mut self, w: &mut dyn Report, filter: &RuleFilter, mut d: Diagnostic) {
        let Some(severity) = filter.judge(d.rule, d.severity) else {
            return;
        };
        d.severity = severity;
        if let Some(split) = &mut self.split {
            split.note(&d);
        }
        let member = self.member.as_deref();
        if let Some(r) = &mut self.recorder {
            r.add(&self.path, member, &d);
        }
        let known = match &mut self.baseline {
            Some(m) => m.matches(&self.path, &d),
            None => self.recorder.is_some(),
        };
        if known {
            self.summary.baselined += 1;
            return;
        }
        match severity {
            Severity::Error => self.summary.errors += 1,
            Severity::Warning => self.summary.warnings += 1,
            Severity::Info => self.summary.infos += 1,
        }
        self.failing |= severity >= self.fail_on;
        // A bundle member's fixes are not applied (the archive is not
        // rewritten): counted apart when fixing, not offered otherwise.
        if let Some(f) = &d.fix {
            let applies = crate::apply::applies(f, self.unsafe_fixes);
            match (member.is_some(), applies) {
                (true, true) if self.summary.fixing => self.summary.in_bundles += 1,
                (true, _) => {}
                (false, true) => self.summary.fixable += 1,
                (false, false) => self.summary.unsafe_fixable += 1,
            }
        }
        // A folded finding is counted above and summed up at the end of
        // the file: it neither shows nor counts towards the cap.
        if self.folder.as_mut().is_some_and(|f| f.fold(&d)) {
            return;
        }
        self.in_file += 1;
        if self.max.is_some_and(|m| self.in_file > m) {
            self.summary.hidden += 1;
            if let Some(f) = &mut self.folder {
                f.not_shown();
            }
            if let Some(stop) = &self.snippet_stop {
                stop.store(true, Ordering::Relaxed);
            }
            return;
        }
        if self.error.is_none() {
            let written = match &self.bar {
                // The bar draws on stderr, often the same terminal: clear
                // it while the finding goes out, then draw it again.
                Some(bar) => bar.suspend(|| w.diagnostic(&d).and_then(|()| w.flush())),
                None => w.diagnostic(&d),
            };
            if let Err(e) = written {
                self.error = Some(e);
            }
        }
    }

    /// Writes the current file's folded groups, before it ends.
    fn write_folded(&mut self, w: &mut dyn Report) {
        let Some(folder) = &mut self.folder else {
            return;
        };
        for f in folder.finish() {
            if self.error.is_none() {
                if let Err(e) = w.folded(&f) {
                    self.error = Some(e);
                }
            }
        }
    }

    /// Whether findings are capped per file (`--max-diagnostics`).
    pub(super) fn caps(&self) -> bool {
        self.max.is_some()
    }

    /// Ends a file whose check failed part way: it is counted as the
    /// failure it is, unless some of it already reached the report.
    pub(super) fn abandon_file(&mut self, w: &mut dyn Report) {
        if !std::mem::take(&mut self.open) {
            return;
        }
        self.write_folded(w);
        match w.abandon_file() {
            Ok(false) => self.summary.files -= 1,
            Ok(true) => {}
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
    }
}

/// One input's reports, streamed through a [`Tally`] to a [`Report`].
pub(super) struct Streamer<'a, 'w> {
    pub(super) tally: &'a mut Tally,
    pub(super) report: &'a mut (dyn Report + 'w),
    pub(super) filter: &'a RuleFilter,
}

impl Reports for Streamer<'_, '_> {
    fn start_file(&mut self, path: &str, member: Option<&str>, _sort: bool) {
        self.report.start_file(path, member);
        self.tally.start_file(path, member);
    }

    fn diagnostic(&mut self, d: Diagnostic) {
        self.tally.emit(self.report, self.filter, d);
    }

    fn end_file(&mut self, format: Option<&'static str>, records: u64) {
        self.tally.open = false;
        self.tally.write_folded(self.report);
        if let Err(e) = self.report.end_file(format, records) {
            self.tally.error.get_or_insert(e);
        }
    }
}

/// The progress bar of a large file: bytes, rows per second, time left.
pub(super) fn progress_bar(path: &std::path::Path, len: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(len),
        indicatif::ProgressDrawTarget::stderr_with_hz(8),
    );
    let style = indicatif::ProgressStyle::with_template(
        "{prefix} [{bar:30}] {bytes}/{total_bytes} {msg} ETA {eta}",
    )
    .map(|s| s.progress_chars("=> "));
    if let Ok(style) = style {
        bar.set_style(style);
    }
    // Redrawn many times a second on the terminal: a name's escape
    // sequences would be played each time.
    bar.set_prefix(crate::report::display_path(path));
    bar
}

/// Counts what the checker reads, for the progress bar.
pub(super) struct Progress<R> {
    pub(super) inner: R,
    pub(super) bar: Option<indicatif::ProgressBar>,
    pub(super) lines: u64,
}

impl<R: io::Read> io::Read for Progress<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(bar) = &self.bar {
            self.lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
            bar.inc(n as u64);
            let secs = bar.elapsed().as_secs_f64().max(1e-3);
            bar.set_message(format!("{:.0} rows/s", self.lines as f64 / secs));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fold::Folded;
    use crate::report::Failure;

    #[test]
    fn the_progress_bar_shows_a_name_escaped() {
        let bar = progress_bar(
            std::path::Path::new("a\u{1b}]0;x\u{7}\r\n::error::b.csv"),
            10,
        );
        assert_eq!(bar.prefix(), "a\\x1b]0;x\\x07\\r\\n::error::b.csv");
        bar.finish_and_clear();
    }

    /// What a report was given: the findings shown and the folded groups.
    #[derive(Default)]
    struct Seen {
        shown: usize,
        folded: Vec<Folded>,
    }

    impl Report for Seen {
        fn start_file(&mut self, _: &str, _: Option<&str>) {}
        fn diagnostic(&mut self, _: &Diagnostic) -> io::Result<()> {
            self.shown += 1;
            Ok(())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
        fn folded(&mut self, f: &Folded) -> io::Result<()> {
            self.folded.push(f.clone());
            Ok(())
        }
        fn end_file(&mut self, _: Option<&str>, _: u64) -> io::Result<()> {
            Ok(())
        }
        fn abandon_file(&mut self) -> io::Result<bool> {
            Ok(true)
        }
        fn finish(&mut self, _: &[Failure], _: &Summary) -> io::Result<()> {
            Ok(())
        }
    }

    /// The human report's "the first 5 shown above" counts what it
    /// printed: the cap of findings a file may hide some of the first 5.
    #[test]
    fn a_folded_group_counts_only_the_findings_the_cap_let_through() {
        let mut t = Tally::new(Severity::Error, Some(7), None, None);
        t.folder = Some(Folder::default());
        let mut w = Seen::default();
        let filter = RuleFilter::default();
        let mut s = Streamer {
            tally: &mut t,
            report: &mut w,
            filter: &filter,
        };
        s.start_file("f.csv", None, false);
        for (col, n) in [("A", 6), ("B", 9)] {
            for line in 0..n {
                let mut d = crate::testutil::finding("C006", 2 + line, "TRUE".into());
                d.column = Some(std::sync::Arc::from(col));
                s.diagnostic(d);
            }
        }
        s.end_file(Some("employees"), 10);
        // A: 5 shown, 1 folded; B: 2 shown before the cap of 7, 3 hidden.
        assert_eq!(w.shown, 7);
        assert_eq!(t.summary.hidden, 3);
        let groups: Vec<(u64, u64, u64)> = w
            .folded
            .iter()
            .map(|f| (f.total, f.folded, f.shown))
            .collect();
        assert_eq!(groups, [(6, 1, 5), (9, 4, 2)]);
    }
}
