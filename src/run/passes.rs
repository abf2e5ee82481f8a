//! `--fix` and `--diff`: each input is checked with its rows' fixes
//! applied inside the check (`check::RowFixes`: a fixed row is checked
//! again where it is, so the check's findings are the fixed file's), and
//! its head's (a BOM, a `sep=,` line, the header's names) before any row,
//! its chunks written as they are folded into a temporary file beside it.
//! A fix that is neither (a whole-file rewrite, a removed row) takes a pass
//! of its own: its findings are applied as they are found
//! (`apply::Applier`), and the result is checked again, until a pass leaves
//! nothing to fix; the last pass's findings are the report. The file is
//! opened once and every pass reads that descriptor; it is replaced only at
//! the end, by renaming the temporary file over it with its own metadata,
//! and only if it is still the file that was read (`replace.rs`), so a
//! failure at any point leaves it as it was. The replacement comes before
//! the report: a file that could not be replaced is reported as it is,
//! with the reason. `--diff` shows the change instead, and standard input
//! is fixed to standard output.
//!
//! A pass keeps its findings (up to a budget, as files checked ahead do)
//! because they are the report if nothing is left to fix: a file whose
//! fixes are all in its rows and head is read once, fixed or not.
//!
//! The passes are named steps (`in_check_pass`, `own_pass`, then
//! `finish_fixing`), each saying which comes next ([`Step`]). Named
//! `passes.rs` for them (it was `fix.rs`, one of five files about fixing):
//! applying edits is `apply.rs`, the diff `diff.rs`.

use super::copies::{rewrite, ChunkWriter, Counts, Shared, IO_BUFFER};
use super::expand;
use super::one_input::{failure, Run, STREAM_ABOVE};
use super::replace::{At, Original};
use super::request::{FixRequest, Input};
use super::tally::{Streamer, Tally};
use crate::apply::{self, Applier};
use crate::check::dates::DateOrders;
use crate::check::{self, split, Options};
use crate::diagnostic::{Collector, Diagnostic, Relearn, Reports, Severity, Transform};
use crate::error::Error;
use crate::report::{Failure, Report};
use crate::rules::Rule;
use crate::select::RuleFilter;
use crate::tempfiles::{self, Temp};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Passes with fixes before the findings are reported as they stand.
/// Fixes of one cell never overlap, so a second pass is rare and a third
/// rarer (a row removed after its cells were fixed).
const MAX_PASSES: usize = 8;

/// Bytes of findings a pass keeps for its report.
const KEEP_BYTES: usize = 32 << 20;

/// What a fixing run carries from file to file.
pub(super) struct Fixing<'o> {
    pub(super) req: FixRequest,
    /// Where diffs and fixed standard input go.
    pub(super) out: &'o mut dyn Write,
    /// Escape control characters in diffs (they go to a terminal).
    pub(super) escape: bool,
    /// `--show-fixes`: per file, the rules fixed and how often.
    pub(super) shown: Vec<(String, Vec<(&'static Rule, usize)>)>,
    /// `--split`: where the fixed copy is made (GOOD's directory, which
    /// the split writes anyway: the input's may be read-only). The copy is
    /// then kept in `kept` for the split, and the input is not replaced.
    pub(super) split_dir: Option<PathBuf>,
    /// `--split`: the fixed copy, if a fix was applied.
    pub(super) kept: Option<Temp>,
    /// Files checked but left as they were, and why: the report lists
    /// them with their findings, the run's messages say why, and the run
    /// exits 2.
    pub(super) not_fixed: Vec<Failure>,
}

impl<'o> Fixing<'o> {
    /// A fixing run as `req` asks, its diffs and fixed standard input to
    /// `out`; with `--split`, the fixed copy made in `split_dir`.
    pub(super) fn new(req: FixRequest, out: &'o mut dyn Write, split_dir: Option<PathBuf>) -> Self {
        Fixing {
            req,
            out,
            escape: req.escape,
            shown: Vec::new(),
            split_dir,
            kept: None,
            not_fixed: Vec::new(),
        }
    }
}

/// One pass over one file: findings whose fix applies go to the applier
/// (and out of the report), the others are kept.
struct Pass<'a> {
    source: &'a File,
    /// Where the fixed copy is made: beside the original, so the rename
    /// that replaces it stays on one file system.
    dir: &'a Path,
    unsafe_fixes: bool,
    filter: &'a RuleFilter,
    applier: Option<Applier<BufReader<At<'a>>, BufWriter<Temp>>>,
    keep: Collector,
    fixed: BTreeMap<&'static str, (&'static Rule, usize)>,
    error: Option<io::Error>,
    /// Raised once a fix is applied: this pass's findings will not be the
    /// report (the fixed copy is checked again), so the check stops
    /// capturing source lines for them, and they are no longer kept.
    stop: Arc<AtomicBool>,
    /// A rewrite of the whole file a finding asked for.
    transform: Option<Transform>,
    /// The findings that asked for it, by rule: counted as fixed only once
    /// the rewrite is made (it may be refused).
    transform_fixed: Counts,
    /// Rewrites refused earlier in this file's run: their findings keep
    /// their fix out of every later pass.
    refused: &'a [Refused],
    /// The check fixes rows itself ([`check::RowFixes`]); this sink only
    /// notes a fix that is left (`leftover`): it needs a pass of its own.
    fused: bool,
    leftover: bool,
    /// A pass after the first: `day-first-date`'s swaps are not applied
    /// ([`DateOrders::after_first`]).
    later: bool,
}

impl<'a> Pass<'a> {
    /// A pass over `source`, its copy made in `dir`; `stop` is raised once
    /// it applies a fix.
    fn new(
        (source, dir): (&'a File, &'a Path),
        unsafe_fixes: bool,
        filter: &'a RuleFilter,
        refused: &'a [Refused],
        stop: Arc<AtomicBool>,
    ) -> Self {
        let mut keep = Collector::with_budget(KEEP_BYTES);
        // Keeping fewer findings must not end the check: every fix is
        // wanted.
        keep.cancel = None;
        Pass {
            stop,
            transform: None,
            transform_fixed: BTreeMap::new(),
            refused,
            source,
            dir,
            unsafe_fixes,
            filter,
            applier: None,
            keep,
            fixed: BTreeMap::new(),
            error: None,
            fused: false,
            leftover: false,
            later: false,
        }
    }

    fn offer(&mut self, d: &Diagnostic) -> io::Result<bool> {
        let Some(f) = &d.fix else {
            return Ok(false);
        };
        if !apply::applies(f, self.unsafe_fixes)
            || self.filter.judge(d.rule, d.severity).is_none()
            || held(d, self.later, self.filter)
        {
            return Ok(false);
        }
        if let Some(t) = f.transform {
            if was_refused(self.refused, t).is_some() {
                return Ok(false);
            }
            // Applied to the whole file once this pass's edits are made;
            // one a pass (another waits for the next).
            return Ok(match self.transform {
                None => {
                    self.transform = Some(t);
                    true
                }
                Some(pending) => pending == t,
            });
        }
        let applier = match &mut self.applier {
            Some(a) => a,
            None => {
                // Large buffers: the copy between fixes is most of the
                // bytes, and 8 KiB ones cost a system call each.
                let src = BufReader::with_capacity(IO_BUFFER, At::new(self.source));
                let out = tempfiles::beside(self.dir, ".bdxlint-fix-")?;
                self.applier
                    .insert(Applier::new(src, BufWriter::with_capacity(IO_BUFFER, out)))
            }
        };
        applier.offer(f, d.span.start)
    }

    /// The fixed copy, if any fix was applied.
    fn finish(self) -> io::Result<Option<Temp>> {
        match self.applier {
            Some(a) if a.applied > 0 => {
                let out = a.finish()?;
                out.into_inner().map(Some).map_err(|e| e.into_error())
            }
            _ => Ok(None),
        }
    }
}

impl Reports for Pass<'_> {
    fn start_file(&mut self, path: &str, member: Option<&str>, _sort: bool) {
        // In the order found: whether the report is sorted, as `check`
        // sorts a file it checks ahead, is known only at the end.
        self.keep.start_file(path, member, false);
    }

    fn diagnostic(&mut self, d: Diagnostic) {
        if self.fused {
            self.leftover |= d.fix.as_ref().is_some_and(|f| {
                apply::applies(f, self.unsafe_fixes)
                    && match f.transform {
                        Some(t) => was_refused(self.refused, t).is_none(),
                        None => !f.edits.is_empty(),
                    }
                    && self.filter.judge(d.rule, d.severity).is_some()
                    && !held(&d, self.later, self.filter)
            });
            self.keep.diagnostic(d);
            return;
        }
        if self.error.is_none() {
            match self.offer(&d) {
                Ok(true) => {
                    let counts = match d.fix.as_ref().and_then(|f| f.transform) {
                        Some(_) => &mut self.transform_fixed,
                        None => &mut self.fixed,
                    };
                    counts.entry(d.rule.code).or_insert((d.rule, 0)).1 += 1;
                    self.stop.store(true, Ordering::Relaxed);
                    return;
                }
                Ok(false) => {}
                Err(e) => self.error = Some(e),
            }
        }
        if !self.stop.load(Ordering::Relaxed) {
            self.keep.diagnostic(d);
        }
    }

    fn end_file(&mut self, format: Option<&'static str>, records: u64) {
        self.keep.end_file(format, records);
    }

    /// The pass's copy holds the fixes of the verdicts made on the way:
    /// `fix_passes` makes it again.
    fn relearn(&mut self) -> Relearn {
        Relearn::Caller
    }
}

/// After a pass that wrote a copy, whose later passes offer no swap; if it
/// holds `day-first-date` fixes, they wrote every
/// valid date of a day-first column that reads as two dates month first,
/// so the later passes (and the check of the result) must not read those
/// cells day first again, or they would undo them.
fn valid_dates_fixed(opts: &mut Options, counts: &Counts) {
    if let Some(o) = &mut opts.date_orders {
        let o = Arc::make_mut(o);
        if counts.contains_key(crate::rules::DAY_FIRST_DATE.code) {
            o.valid_fixed();
        }
        // The next pass reads cells a fix may have written month first
        // (`invalid-date`'s `2024-03-07` as `03/07/2024`): a swap there
        // would change the date.
        o.first_pass_done();
    }
}

/// A check read only for the date orders it learns: its findings go
/// nowhere, and what it learns late is the caller's.
struct Orders;

impl Reports for Orders {
    fn start_file(&mut self, _: &str, _: Option<&str>, _: bool) {}
    fn diagnostic(&mut self, _: Diagnostic) {}
    fn end_file(&mut self, _: Option<&'static str>, _: u64) {}
    fn relearn(&mut self) -> Relearn {
        Relearn::Caller
    }
}

/// Whether `opts` are a pass's after the first ([`DateOrders::after_first`]).
fn after_first(opts: &Options) -> bool {
    opts.date_orders.as_ref().is_some_and(|o| o.after_first())
}

/// Whether `d`'s fix is held back: a `day-first-date` swap
/// - in a `later` pass, where it may swap a date a fix wrote month first;
/// - where `filter` drops `invalid-date` or `spreadsheet-date`, whose
///   unsafe fixes write the column's day-first cells month first with the
///   swaps. Made without them, the swaps leave a column that still reads
///   day first, and the next run would swap them back.
fn held(d: &Diagnostic, later: bool, filter: &RuleFilter) -> bool {
    use crate::rules::{DAY_FIRST_DATE, INVALID_DATE, SPREADSHEET_DATE};
    d.rule.code == DAY_FIRST_DATE.code
        && (later
            || [&INVALID_DATE, &SPREADSHEET_DATE]
                .into_iter()
                .any(|r| filter.judge(r, Severity::Error).is_none()))
}

/// Why fixing a file stopped short.
enum Stop {
    /// The file could not be checked: none of its findings stand.
    Unchecked(Error),
    /// The file was checked but is not fixed (the copy could not be
    /// written, or must not replace it): its findings as it is are
    /// reported, and this reason (one line, naming it) beside them.
    NotFixed(String),
}

/// What a fixing run reads: a file, opened once, or standard input, read
/// once into a temporary file.
enum Source {
    File(Box<Original>),
    Stdin(Temp),
}

impl Source {
    fn file(&self) -> &File {
        match self {
            Source::File(o) => &o.file,
            Source::Stdin(t) => t.as_file(),
        }
    }

    /// Where fixed copies are made.
    fn dir(&self) -> PathBuf {
        match self {
            Source::File(o) => o.dir.clone(),
            Source::Stdin(_) => std::env::temp_dir(),
        }
    }
}

impl Run<'_> {
    /// Fixes one input (or shows its diff), then reports what is left.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fix_input(
        &self,
        input: &Input,
        per: &(Option<&str>, RuleFilter),
        more: Vec<Diagnostic>,
        fixing: &mut Fixing<'_>,
        failures: &mut Vec<Failure>,
        w: &mut dyn Report,
        t: &mut Tally,
    ) {
        // A bundle is checked as always: its members' fixes are reported,
        // not applied (the archive is not rewritten).
        if matches!(input, Input::File(_)) && self.is_bundle(input, per.0) {
            self.stream_input(input, per, more, failures, w, t);
            return;
        }
        let source = match input {
            // A link named on the command line is fixed through (its
            // target); a walked path is never followed.
            Input::File(p) => Original::open(p, !expand::walked(&self.req.paths, p))
                .map(|o| Source::File(Box::new(o))),
            Input::Stdin => {
                let stdin = Path::new("-");
                tempfiles::anywhere(".bdxlint-stdin-")
                    .and_then(|mut spill| {
                        io::copy(&mut io::stdin().lock(), spill.as_file_mut())?;
                        Ok(spill)
                    })
                    .map(Source::Stdin)
                    .map_err(|e| Error::io(stdin, e))
            }
        };
        let source = match source {
            Ok(s) => s,
            Err(e) => {
                failures.push(failure(e));
                return;
            }
        };
        let again = more.clone();
        // A file that may not be replaced (read-only, hard-linked) is told
        // so before any work: its copy would be thrown away.
        let refused = match &source {
            Source::File(o) if !fixing.req.diff && fixing.split_dir.is_none() => o.refusal(),
            _ => None,
        };
        let result = match refused {
            Some(why) => Err(Stop::NotFixed(why.to_string())),
            None => self.fix_passes(input, &source, per, more, fixing, w, t),
        };
        match result {
            Ok(()) => {}
            Err(Stop::Unchecked(e)) => {
                t.abandon_file(w);
                failures.push(failure(e));
            }
            Err(Stop::NotFixed(reason)) => {
                let (format, filter) = per;
                let opts = self.opts_for(*format, filter);
                match self.report(input, source.file(), per, &opts, again, None, &[], t, w) {
                    Ok(()) => fixing.not_fixed.push(Failure {
                        path: shown(input),
                        reason,
                    }),
                    Err(e) => {
                        t.abandon_file(w);
                        failures.push(failure(e));
                    }
                }
            }
        }
    }

    /// Reports the findings of `from`, read as `input`: those `kept` (a
    /// pass's, if they fit its budget) or of a check now, in the order
    /// `check` gives them: a regular file it would check ahead has its
    /// findings sorted by position (a relations file's references among
    /// its own), a larger one or a stream has them as found.
    #[allow(clippy::too_many_arguments)]
    fn report(
        &self,
        input: &Input,
        from: &File,
        (format, filter): &(Option<&str>, RuleFilter),
        opts: &Options,
        more: Vec<Diagnostic>,
        kept: Option<Collector>,
        refused: &[Refused],
        t: &mut Tally,
        w: &mut dyn Report,
    ) -> Result<(), Error> {
        let sorted = matches!(input, Input::File(_))
            && from
                .metadata()
                .is_ok_and(|m| m.is_file() && m.len() <= STREAM_ABOVE);
        let kept = match kept {
            Some(c) if !c.overflowed => Some(c),
            // Checked once more: kept to be sorted, if it fits.
            _ if sorted => {
                let mut c = Collector::with_budget(KEEP_BYTES);
                let opts = Options {
                    cancel: c.cancel.clone(),
                    ..opts.clone()
                };
                self.check_from(
                    input,
                    Some(from),
                    *format,
                    &opts,
                    more.clone(),
                    None,
                    &mut c,
                )?;
                (!c.overflowed).then_some(c)
            }
            _ => None,
        };
        // A finding whose rewrite was refused says so on its way.
        let mut s = Noting {
            inner: Streamer {
                tally: t,
                report: w,
                filter,
            },
            refused,
        };
        match kept {
            Some(c) => {
                for mut rep in c.reports {
                    if sorted {
                        rep.diagnostics
                            .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
                    }
                    s.start_file(&rep.path, rep.member.as_deref(), false);
                    for d in rep.diagnostics {
                        s.diagnostic(d);
                    }
                    s.end_file(rep.format, rep.records);
                }
                Ok(())
            }
            None => self
                .check_from(input, Some(from), *format, opts, more, None, &mut s)
                .map(drop),
        }
    }

    /// The passes over one file: rows fixed inside the check, then, while
    /// a fix is left that the check cannot make (a whole-file rewrite, a
    /// removed row), a pass of its own whose copy is
    /// checked (and fixed) again; at most [`MAX_PASSES`]. Then the copy
    /// replaces the file, and the report is made ([`Self::finish_fixing`]).
    #[allow(clippy::too_many_arguments)]
    fn fix_passes(
        &self,
        input: &Input,
        src: &Source,
        per: &(Option<&str>, RuleFilter),
        more: Vec<Diagnostic>,
        fixing: &mut Fixing<'_>,
        w: &mut dyn Report,
        t: &mut Tally,
    ) -> Result<(), Stop> {
        let (format, filter) = per;
        let mut file = FileFix {
            original: src.file(),
            // With `--split` the copy is made in GOOD's directory, which
            // the split writes anyway (the input's may be read-only).
            dir: fixing.split_dir.clone().unwrap_or_else(|| src.dir()),
            shown: shown(input),
            opts: self.opts_for(*format, filter),
            current: None,
            fixed: BTreeMap::new(),
            refused: Vec::new(),
        };
        // Rows are fixed inside the check, which then reports the fixed
        // file (one read).
        let mut step = Step::InCheck;
        for _ in 0..MAX_PASSES {
            step = match step {
                Step::InCheck => self.in_check_pass(input, per, &more, fixing, &mut file)?,
                Step::OwnPass => self.own_pass(input, per, &more, fixing, &mut file)?,
                Step::Done(_) => break,
            };
        }
        // Past the last pass allowed, the findings are checked once more.
        let report_from = match step {
            Step::Done(keep) => keep,
            Step::InCheck | Step::OwnPass => None,
        };
        self.finish_fixing(input, src, per, more, fixing, file, report_from, (w, t))
    }

    /// A pass that fixes rows inside the check ([`Self::fix_in_check`]),
    /// and what comes after it.
    fn in_check_pass(
        &self,
        input: &Input,
        (format, filter): &(Option<&str>, RuleFilter),
        more: &[Diagnostic],
        fixing: &Fixing<'_>,
        file: &mut FileFix<'_>,
    ) -> Result<Step, Stop> {
        let InCheck {
            keep,
            leftover,
            edited,
            counts,
            unsettled,
            dates,
        } = self.fix_in_check(
            input,
            (file.source(), &file.dir),
            (*format, filter),
            &file.opts,
            more,
            (fixing, &file.refused),
            &|e| file.check_failed(e),
            &|e| file.not_fixed(e),
        )?;
        // The order of day and month in the date columns is the
        // original's, for every pass: a fix must not change how a cell
        // that reads as two dates is read. The first pass learns it; if it
        // learned it too late for cells it had fixed (or not), its copy is
        // dropped and the pass made again knowing it (rare: see
        // `check::dates`).
        if file.opts.date_orders.is_none() {
            let late = dates.late();
            file.opts.date_orders = Some(Arc::new(dates));
            if late {
                return Ok(Step::InCheck);
            }
        }
        let wrote = edited.is_some();
        if let Some(copy) = edited {
            file.took(copy, counts);
        }
        if wrote && unsettled && !leftover {
            // The copy may read otherwise (the first non-ASCII bytes were
            // no-break spaces around a value, a shorter row pulled another
            // into the 64 KiB that tell the delimiter): it is checked, and
            // fixed, anew.
            return Ok(Step::InCheck);
        }
        if leftover {
            return Ok(Step::OwnPass);
        }
        // A relations file's references are read from the file after its
        // check: the original's, so the fixed copy is checked again for
        // them.
        let refs_after = keep
            .reports
            .last()
            .and_then(|r| r.format)
            .is_some_and(crate::check::refs::checked_after);
        Ok(Step::Done((!(wrote && refs_after)).then_some(keep)))
    }

    /// A pass of its own for the fixes the check leaves: its findings go
    /// to an [`Applier`] as they come, and a whole-file rewrite one of
    /// them asked for is made of the result ([`rewrite`]), or refused.
    fn own_pass(
        &self,
        input: &Input,
        (format, filter): &(Option<&str>, RuleFilter),
        more: &[Diagnostic],
        fixing: &Fixing<'_>,
        file: &mut FileFix<'_>,
    ) -> Result<Step, Stop> {
        let source = file.source();
        let stop = Arc::new(AtomicBool::new(false));
        let pass_opts = Options {
            snippet_stop: Some(Arc::clone(&stop)),
            // Unsafe fixes remove repeated rows, which the cross-row
            // state finds: it runs to the end then.
            cross_stop: (!fixing.req.unsafe_fixes).then(|| Arc::clone(&stop)),
            ..file.opts.clone()
        };
        let mut pass = Pass::new(
            (source, &file.dir),
            fixing.req.unsafe_fixes,
            filter,
            &file.refused,
            stop,
        );
        pass.later = after_first(&file.opts);
        self.check_from(
            input,
            Some(source),
            *format,
            &pass_opts,
            more.to_vec(),
            None,
            &mut pass,
        )
        .map_err(|e| file.check_failed(e))?;
        if let Some(e) = pass.error.take() {
            return Err(file.not_fixed(e));
        }
        let mut counts = std::mem::take(&mut pass.fixed);
        let transform_counts = std::mem::take(&mut pass.transform_fixed);
        let keep = std::mem::take(&mut pass.keep);
        let transform = pass.transform.take();
        let edited = pass.finish().map_err(|e| file.not_fixed(e))?;
        let next = match transform {
            None => edited,
            Some(t) => {
                let from = edited.as_ref().map_or(source, |e| e.as_file());
                match rewrite(t, from, &file.dir, &file.opts) {
                    Ok(out) => {
                        add_counts(&mut counts, transform_counts);
                        Some(out)
                    }
                    Err(e) => {
                        let Some(doubt) = split::refusal(&e) else {
                            return Err(file.not_fixed(e));
                        };
                        // The pass's other fixes stand: they edit cells
                        // and lines, not how records split.
                        file.refused.push(Refused {
                            transform: t,
                            doubt: doubt.clone(),
                        });
                        if edited.is_none() {
                            // This pass stopped keeping its findings when
                            // it took the rewrite: the file is checked
                            // again, the rewrite left out.
                            return Ok(Step::InCheck);
                        }
                        edited
                    }
                }
            }
        };
        match next {
            None => Ok(Step::Done(Some(keep))),
            Some(copy) => {
                file.took(copy, counts);
                Ok(Step::InCheck)
            }
        }
    }

    /// After the passes: the copy replaces the file (or is kept for
    /// `--split`), before the report is written: the findings of a fixed
    /// copy that then did not replace it would describe a file that does
    /// not exist. Then the report (the last pass's findings, `kept`, or
    /// a check now), the counts, and the diff or fixed standard input.
    #[allow(clippy::too_many_arguments)]
    fn finish_fixing(
        &self,
        input: &Input,
        src: &Source,
        per: &(Option<&str>, RuleFilter),
        more: Vec<Diagnostic>,
        fixing: &mut Fixing<'_>,
        file: FileFix<'_>,
        kept: Option<Collector>,
        (w, t): (&mut dyn Report, &mut Tally),
    ) -> Result<(), Stop> {
        let FileFix {
            original,
            shown: shown_path,
            opts,
            mut current,
            fixed,
            refused,
            ..
        } = file;
        let replaced = match (src, current.take()) {
            (Source::File(o), Some(copy)) if !fixing.req.diff && fixing.split_dir.is_none() => {
                Some(o.replace(copy).map_err(|e| Stop::NotFixed(e.to_string()))?)
            }
            (_, copy) => {
                current = copy;
                None
            }
        };
        let result: &File = match (&replaced, &current) {
            (Some(f), _) => f,
            (None, Some(c)) => c.as_file(),
            (None, None) => original,
        };
        // The passes read dates by the original file's orders, so that a
        // fix never changes how another date is read. The fixed file may
        // read otherwise: a fix wrote a month-first date into a day-first
        // column, or the unsafe fixes wrote the column month first. Where
        // the original had a day-first column (or one written both ways)
        // and a copy was written, the report is a check of the result as
        // it reads by itself, as a check of it would be.
        let reread = (replaced.is_some() || current.is_some())
            && opts
                .date_orders
                .as_ref()
                .is_some_and(|o| o.late_columns().next().is_some());
        let (opts, kept) = if reread {
            // Its orders learned first, by a check whose findings go
            // nowhere: then even a report streamed (standard input, a file
            // over 8 MiB), which cannot be made again, reads each date the
            // result's way.
            let learn = Options {
                date_orders: None,
                ..opts.clone()
            };
            let own = self
                .check_from(
                    input,
                    Some(result),
                    per.0,
                    &learn,
                    Vec::new(),
                    None,
                    &mut Orders,
                )
                .map_err(Stop::Unchecked)?;
            let own = Options {
                date_orders: Some(Arc::new(own.as_known())),
                ..opts
            };
            (own, None)
        } else {
            (opts, kept)
        };
        // The report: the last pass's findings, kept or (past the budget,
        // after the last pass allowed still fixed something, or read by
        // the result's own date orders) checked once more.
        self.report(input, result, per, &opts, more, kept, &refused, t, w)
            .map_err(Stop::Unchecked)?;
        let n: usize = fixed.values().map(|(_, n)| n).sum();
        t.summary.fixed += n;
        if n > 0 {
            fixing
                .shown
                .push((shown_path.clone(), fixed.into_values().collect()));
        }
        let out_err = |e| Stop::Unchecked(Error::io(Path::new(&shown_path), e));
        if fixing.req.diff {
            if let Some(c) = &current {
                let old = BufReader::new(At::new(original));
                let new = BufReader::new(At::new(c.as_file()));
                crate::diff::unified_diff(
                    old,
                    new,
                    &shown_path,
                    &shown_path,
                    fixing.escape,
                    &mut *fixing.out,
                )
                .map_err(out_err)?;
            }
        } else if matches!(input, Input::Stdin) {
            io::copy(&mut At::new(result), &mut *fixing.out).map_err(out_err)?;
            fixing.out.flush().map_err(out_err)?;
        } else if fixing.split_dir.is_some() {
            // `--split` makes its two files of the fixed copy; the input
            // is only read (its rows' fixes land in GOOD and BAD).
            fixing.kept = current;
        }
        Ok(())
    }
}

/// What comes after a pass.
enum Step {
    /// A pass that fixes rows inside the check.
    InCheck,
    /// A pass of its own, for the fixes the check leaves.
    OwnPass,
    /// Nothing left to fix: the findings kept, if they are the report.
    Done(Option<Collector>),
}

/// What a file's passes carry from one to the next.
struct FileFix<'s> {
    /// The file as it was opened (or standard input, spilled).
    original: &'s File,
    /// Where the copies are made.
    dir: PathBuf,
    /// The file as its messages name it.
    shown: String,
    /// The options of every pass (the date orders learned by the first).
    opts: Options,
    /// The latest fixed copy, if a pass made one.
    current: Option<Temp>,
    /// Fixes applied, by rule.
    fixed: Counts,
    /// Whole-file rewrites refused for this file: their findings are
    /// reported without their fix, saying why.
    refused: Vec<Refused>,
}

impl FileFix<'_> {
    /// What the next pass reads: the latest copy, or the original.
    fn source(&self) -> &File {
        self.current.as_ref().map_or(self.original, |c| c.as_file())
    }

    /// A check of the input that fails is the input's failure; of a copy,
    /// a failure to fix it.
    fn check_failed(&self, e: Error) -> Stop {
        if self.current.is_some() {
            Stop::NotFixed(format!("{e}; not fixed, left as it was"))
        } else {
            Stop::Unchecked(e)
        }
    }

    /// The copy could not be made, or must not replace the file.
    fn not_fixed(&self, e: io::Error) -> Stop {
        Stop::NotFixed(format!("{}: {e}; not fixed, left as it was", self.shown))
    }

    /// A pass's copy, which the next pass reads, and the fixes it holds.
    fn took(&mut self, copy: Temp, counts: Counts) {
        valid_dates_fixed(&mut self.opts, &counts);
        add_counts(&mut self.fixed, counts);
        self.current = Some(copy);
    }
}

/// Adds the counts of a pass to `to`.
fn add_counts(to: &mut Counts, counts: Counts) {
    for (code, (rule, n)) in counts {
        to.entry(code).or_insert((rule, 0)).1 += n;
    }
}

/// An input as its messages name it.
fn shown(input: &Input) -> String {
    match input {
        Input::File(p) => p.display().to_string(),
        Input::Stdin => "-".to_owned(),
    }
}

/// A whole-file rewrite refused, and why.
struct Refused {
    transform: Transform,
    doubt: split::Doubt,
}

/// Why rewrites like `t` were refused, if they were (whatever the number of
/// trailing columns: a later pass asks again for the same rewrite).
fn was_refused(refused: &[Refused], t: Transform) -> Option<&split::Doubt> {
    refused
        .iter()
        .find(|r| std::mem::discriminant(&r.transform) == std::mem::discriminant(&t))
        .map(|r| &r.doubt)
}

/// A finding whose rewrite was refused is reported without its fix (it was
/// not made, and `--fix` will not make it while the doubt stands), its help
/// saying why and what to do.
fn note_refusal(refused: &[Refused], d: &mut Diagnostic) {
    let Some(t) = d.fix.as_ref().and_then(|f| f.transform) else {
        return;
    };
    let Some(doubt) = was_refused(refused, t) else {
        return;
    };
    d.fix = None;
    let note = format!("--fix did not rewrite the file: {doubt}; then run --fix again");
    d.help = Some(match d.help.take() {
        Some(h) => format!("{h}. {note}"),
        None => note,
    });
}

/// The report of a file with refused rewrites, as the check streams it:
/// each finding noted ([`note_refusal`]) on its way.
struct Noting<'r, R> {
    inner: R,
    refused: &'r [Refused],
}

impl<R: Reports> Reports for Noting<'_, R> {
    fn start_file(&mut self, path: &str, member: Option<&str>, sort: bool) {
        self.inner.start_file(path, member, sort);
    }

    fn diagnostic(&mut self, mut d: Diagnostic) {
        note_refusal(self.refused, &mut d);
        self.inner.diagnostic(d);
    }

    fn end_file(&mut self, format: Option<&'static str>, records: u64) {
        self.inner.end_file(format, records);
    }
}

/// What a pass that fixes rows inside the check leaves.
struct InCheck {
    /// Its findings: the fixed copy's, if one was made.
    keep: Collector,
    /// A fix it could not apply (a whole-file rewrite, a removed row): it needs a pass of its own.
    leftover: bool,
    /// The fixed copy, if a row was fixed.
    edited: Option<Temp>,
    counts: Counts,
    /// A fix may change how the copy is read: its findings are known only
    /// by checking it.
    unsettled: bool,
    /// What the date columns show (see [`Run::check_from`]).
    dates: DateOrders,
}

impl Run<'_> {
    /// A pass that fixes rows inside the check ([`check::RowFixes`]) of
    /// `source`, its fixed copy made in `dir`; the rewrites `refused` are
    /// not fixes left for a pass of their own. A failure of the check is
    /// `check_failed`'s, of the copy `not_fixed`'s.
    #[allow(clippy::too_many_arguments)]
    fn fix_in_check(
        &self,
        input: &Input,
        (source, dir): (&File, &Path),
        (format, filter): (Option<&str>, &RuleFilter),
        opts: &Options,
        more: &[Diagnostic],
        (fixing, refused): (&Fixing<'_>, &[Refused]),
        check_failed: &dyn Fn(Error) -> Stop,
        not_fixed: &dyn Fn(io::Error) -> Stop,
    ) -> Result<InCheck, Stop> {
        let writer = Arc::new(Mutex::new(ChunkWriter::new(
            // The writer lives on the check's threads: a handle of its own
            // to the same open file, read at its own offsets.
            source.try_clone().map_err(not_fixed)?,
            dir,
            // `--diff` reads the original again, and `--split` keeps it;
            // otherwise the copy replaces it, and its cached pages are of
            // no more use.
            !fixing.req.diff && fixing.split_dir.is_none(),
        )));
        let unsafe_fixes = fixing.req.unsafe_fixes;
        let judge = filter.clone();
        let later = after_first(opts);
        let row_fixes = check::RowFixes::new(
            Box::new(move |d: &Diagnostic| {
                d.fix
                    .as_ref()
                    .is_some_and(|f| apply::applies(f, unsafe_fixes))
                    && judge.judge(d.rule, d.severity).is_some()
                    && !held(d, later, &judge)
            }),
            Box::new(Shared(Arc::clone(&writer))),
        );
        let pass_opts = Options {
            row_fixes: Some(Arc::new(row_fixes)),
            ..opts.clone()
        };
        let mut pass = Pass::new((source, dir), unsafe_fixes, filter, refused, Arc::default());
        pass.fused = true;
        pass.later = later;
        let dates = self
            .check_from(
                input,
                Some(source),
                format,
                &pass_opts,
                more.to_vec(),
                None,
                &mut pass,
            )
            .map_err(check_failed)?;
        drop(pass_opts);
        let mut w = writer.lock().unwrap_or_else(PoisonError::into_inner);
        let counts = std::mem::take(&mut w.applied);
        let edited = w.finish().map_err(not_fixed)?;
        // What the first 64 KiB tell (the dialect, the encoding) must be
        // what they told of the source, or the copy reads otherwise.
        let moved = match &edited {
            Some(e) => {
                let mut copy = Vec::new();
                At::new(e.as_file())
                    .take(check::dialect::HEAD_LEN as u64)
                    .read_to_end(&mut copy)
                    .map_err(not_fixed)?;
                !check::reads_alike(&w.read_head().map_err(not_fixed)?, &copy)
            }
            None => false,
        };
        Ok(InCheck {
            keep: std::mem::take(&mut pass.keep),
            leftover: pass.leftover,
            edited,
            counts,
            unsettled: w.unsettled || moved,
            dates,
        })
    }
}
