//! `--fix` inside the check: a row's fixes applied where the row is
//! checked, on the worker, and the fixed row checked again there.
//!
//! A fix that edits cells of one row changes nothing the check knows of
//! other rows except through the cross-row events, and those are made from
//! the fixed row here. So a chunk whose rows are fixed this way, folded in
//! the fixed rows' place, gives exactly the findings a check of the fixed
//! file would: the pass that fixes the rows is also the check that reports
//! them, and the file is read once instead of twice.
//!
//! The row is fixed only where that equality is plain to see: its fixed
//! bytes read as one record with no quoting problem, the same line ending
//! and the same number of lines, and are not an empty row. Anything else
//! (a fix of the header, a whole-file rewrite, a removed row, a row whose
//! fixes keep coming back) is left to the run's passes, which apply it to
//! the file and check the result again.

use super::cross::{CrossPlan, Events};
use super::finding::shift;
use super::row::{Cells, Plan};
use super::{empty_row, Emitter, Snippets};
use crate::diagnostic::{Diagnostic, Edit};
use crate::rules::Rule;
use crate::scan::{LineEnding, Record, Scanner};
use std::fmt;
use std::ops::Range;
use std::sync::Mutex;

/// Where a fixing check sends each chunk's bytes, in file order: the
/// fixed rows in their places, the others as they were read.
pub trait FixedChunks: Send {
    /// The chunk at file offset `base`, `len` bytes in the file; `bytes`
    /// is what the output holds in its place (the file's own bytes unless
    /// `changed`); `applied` counts the fixes applied in it by rule.
    /// `unsettling`: a fix removed or wrote a byte above ASCII before the
    /// file's encoding was told (from the first line that holds one, when
    /// the first 64 KiB hold none), so a check of the output may read it
    /// otherwise: only such a check knows what it finds. (What the first
    /// 64 KiB tell, the caller compares: see [`super::reads_alike`].)
    fn chunk(
        &mut self,
        base: u64,
        len: u64,
        bytes: &[u8],
        changed: bool,
        applied: &[(&'static Rule, u32)],
        unsettling: bool,
    );
}

/// `--fix` in the check: which fixes apply, and where the chunks go.
pub struct RowFixes {
    /// Whether a finding's fix is to be applied (its applicability, the
    /// rule filter). Only fixes with edits are asked about.
    pub applies: Box<dyn Fn(&Diagnostic) -> bool + Send + Sync>,
    pub out: Mutex<Box<dyn FixedChunks>>,
    /// Buffers of fixed chunks, once written: reused, since a new one per
    /// chunk is a megabyte of fresh pages the kernel zeroes each time.
    spare: Mutex<Vec<Vec<u8>>>,
}

/// Buffers of fixed chunks kept for reuse: as many as chunks in flight,
/// and none larger than a few chunks (a chunk holding one huge record is
/// not kept, or a file of such records would pin that much memory).
const SPARE: usize = 16;
const SPARE_BYTES: usize = 4 << 20;

impl RowFixes {
    pub fn new(
        applies: Box<dyn Fn(&Diagnostic) -> bool + Send + Sync>,
        out: Box<dyn FixedChunks>,
    ) -> Self {
        RowFixes {
            applies,
            out: Mutex::new(out),
            spare: Mutex::new(Vec::new()),
        }
    }

    /// An empty buffer with room for `n` bytes.
    pub(super) fn buffer(&self, n: usize) -> Vec<u8> {
        let mut b = super::lock(&self.spare).pop().unwrap_or_default();
        b.clear();
        b.reserve(n);
        b
    }

    /// Takes back a buffer [`RowFixes::buffer`] gave.
    pub(super) fn give_back(&self, b: Vec<u8>) {
        let mut spare = super::lock(&self.spare);
        if spare.len() < SPARE && b.capacity() <= SPARE_BYTES {
            spare.push(b);
        }
    }
}

impl fmt::Debug for RowFixes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RowFixes")
    }
}

/// Rounds of fixing one row: a fix that overlapped another waits for the
/// next round, as it would for the next pass.
const ROUNDS: usize = 8;

/// What a row's fixing needs of its chunk's check.
pub(super) struct RowFixer<'a> {
    pub(super) plan: &'a Plan,
    pub(super) cross: &'a CrossPlan,
    pub(super) fixes: &'a RowFixes,
    pub(super) snippets: Snippets,
    /// Whether rows make cross-row events.
    pub(super) track: bool,
    /// [`super::Chunk::settled`].
    pub(super) settled: bool,
    /// [`super::Options::max_record_bytes`].
    pub(super) max_record: usize,
}

pub(super) fn ending_len(e: Option<LineEnding>) -> usize {
    match e {
        Some(LineEnding::Lf) => 1,
        Some(LineEnding::CrLf) => 2,
        _ => 0,
    }
}

impl RowFixer<'_> {
    /// The fixes among `found` (a row's findings, offsets of a buffer where
    /// the row spans `row`) to apply, in the order their findings are
    /// reported: the edits of each, moved to offsets in the row.
    fn wanted(&self, found: &[Diagnostic], row: Range<usize>) -> Vec<(&'static Rule, Vec<Edit>)> {
        let mut w: Vec<&Diagnostic> = found
            .iter()
            .filter(|d| {
                d.fix.as_ref().is_some_and(|f| {
                    f.transform.is_none()
                        && !f.edits.is_empty()
                        && f.edits.iter().all(|e| {
                            e.span.start <= e.span.end
                                && e.span.start >= row.start as u64
                                && e.span.end <= row.end as u64
                        })
                }) && (self.fixes.applies)(d)
            })
            .collect();
        w.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        w.into_iter()
            .filter_map(|d| {
                let f = d.fix.as_ref()?;
                let edits = f
                    .edits
                    .iter()
                    .map(|e| Edit {
                        span: e.span.start - row.start as u64..e.span.end - row.start as u64,
                        content: e.content.clone(),
                    })
                    .collect();
                Some((d.rule, edits))
            })
            .collect()
    }

    /// Fixes the row `rec` of `data` whose findings are `diags[mark..]` and
    /// whose events are `events[ev_mark..]`, if one of them has a fix that
    /// applies and the fixed row reads as one like it. Then its findings
    /// and events are replaced by the fixed row's, at offset `at` of the
    /// output chunk, `applied` counts the fixes, and the fixed bytes (with
    /// the line ending) are returned.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fix(
        &self,
        data: &[u8],
        rec: &Record,
        diags: &mut Vec<Diagnostic>,
        mark: usize,
        events: &mut Events,
        ev_mark: (usize, usize),
        at: usize,
        (applied, unsettling): (&mut Vec<(&'static Rule, u32)>, &mut bool),
    ) -> Option<Vec<u8>> {
        let end = rec.end + ending_len(rec.ending);
        let mut wanted = self.wanted(&diags[mark..], rec.start..rec.end);
        if wanted.is_empty() || end > data.len() {
            return None;
        }
        let original = &data[rec.start..end];
        let lines = bytecount::count(original, b'\n');
        let mut row = original.to_vec();
        let mut counts: Vec<(&'static Rule, u32)> = Vec::new();
        let mut found = Vec::new();
        let mut event = Events::default();
        let mut high = false;
        // The fields (row offsets) of the record each round fixes, and
        // those an edit wrote so far.
        let mut fields: Vec<Range<usize>> = rec
            .fields
            .iter()
            .map(|f| f.start - rec.start..f.end - rec.start)
            .collect();
        let mut written: Vec<usize> = Vec::new();
        for _ in 0..ROUNDS {
            if wanted.is_empty() {
                break;
            }
            let mut edited = Vec::new();
            row = apply(&row, &wanted, &mut counts, &mut high, &mut edited);
            for e in edited {
                let i = fields
                    .iter()
                    .position(|f| f.start <= e.start && e.end <= f.end);
                if let Some(i) = i.filter(|i| !written.contains(i)) {
                    written.push(i);
                }
            }
            // The fixed row, checked as the file's check would check it.
            let mut scanner = Scanner::with_delimiter(&row, 0, rec.line, self.cross.delim);
            let mut rec2 = Record::default();
            if !scanner.next_record(&mut rec2)
                || rec2.start != 0
                || rec2.end + ending_len(rec2.ending) != row.len()
                || rec2.ending != rec.ending
                || !rec2.problems.is_empty()
                || bytecount::count(&row, b'\n') != lines
                || empty_row(&row, &rec2)
            {
                return None;
            }
            let mut cells = Cells::for_chunk(&row);
            let mut emit = Emitter::new(&row, self.snippets.clone());
            emit.written.clone_from(&written);
            fields = rec2.fields.iter().map(|f| f.start..f.end).collect();
            event = Events::default();
            if self.plan.check_record(&row, &rec2, &mut cells, &mut emit) && self.track {
                self.cross.event(&row, &rec2, &cells, &mut event);
            }
            found = emit.diags;
            wanted = self.wanted(&found, 0..rec2.end);
        }
        // A row grown near the longest record the reader holds might not be
        // read back as one: the file's own passes fix it, and check it.
        if row == original || (row.len() > original.len() && row.len() > self.max_record / 2) {
            return None;
        }
        *unsettling |= high && !self.settled;
        for d in &mut found {
            shift(d, at as i64);
        }
        diags.truncate(mark);
        diags.append(&mut found);
        events.truncate(ev_mark);
        events.append_shifted(&event, at);
        for (rule, n) in counts {
            match applied.iter_mut().find(|(r, _)| r.code == rule.code) {
                Some((_, m)) => *m += n,
                None => applied.push((rule, n)),
            }
        }
        Some(row)
    }
}

/// `row` with `fixes` applied in order, each whole or not at all: one
/// that overlaps an edit accepted before (or starts where one does) waits
/// for the next round. Counts the applied ones by rule, notes in `high`
/// whether an edit removed or wrote a byte above ASCII, and the spans of
/// `row` the edits replaced in `edited`.
fn apply(
    row: &[u8],
    fixes: &[(&'static Rule, Vec<Edit>)],
    counts: &mut Vec<(&'static Rule, u32)>,
    high: &mut bool,
    edited: &mut Vec<Range<usize>>,
) -> Vec<u8> {
    let mut accepted: Vec<&Edit> = Vec::new();
    for (rule, edits) in fixes {
        let ordered = edits.windows(2).all(|w| w[0].span.end <= w[1].span.start);
        let clash = edits.iter().any(|e| {
            accepted.iter().any(|a| {
                (e.span.start < a.span.end && a.span.start < e.span.end)
                    || e.span.start == a.span.start
            })
        });
        if !ordered || clash {
            continue;
        }
        accepted.extend(edits.iter());
        match counts.iter_mut().find(|(r, _)| r.code == rule.code) {
            Some((_, n)) => *n += 1,
            None => counts.push((rule, 1)),
        }
    }
    accepted.sort_by_key(|e| e.span.start);
    let mut out = Vec::with_capacity(row.len() + 16);
    let mut pos = 0;
    for e in accepted {
        let (a, b) = (e.span.start as usize, e.span.end as usize);
        edited.push(a..b);
        *high |= !row[a..b].is_ascii() || !e.content.is_ascii();
        out.extend_from_slice(&row[pos..a]);
        out.extend_from_slice(e.content.as_bytes());
        pos = b;
    }
    out.extend_from_slice(&row[pos..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check_reader, lock, Options};
    use crate::diagnostic::Applicability;
    use std::sync::Arc;

    /// Counts the chunks that changed.
    struct Changed(Arc<Mutex<usize>>);

    impl FixedChunks for Changed {
        fn chunk(
            &mut self,
            _: u64,
            _: u64,
            _: &[u8],
            changed: bool,
            _: &[(&'static Rule, u32)],
            _: bool,
        ) {
            if changed {
                *self.0.lock().expect("not poisoned") += 1;
            }
        }
    }

    /// The findings of a fixing check of `file` with records of at most
    /// `max_record` bytes, and how many chunks it changed.
    fn fixing(file: &[u8], max_record: usize) -> (Vec<&'static str>, usize) {
        let changed = Arc::new(Mutex::new(0));
        let opts = Options {
            format: Some("employees".into()),
            max_record_bytes: max_record,
            row_fixes: Some(Arc::new(RowFixes::new(
                Box::new(|d: &Diagnostic| {
                    d.fix
                        .as_ref()
                        .is_some_and(|f| f.applicability == Applicability::Safe)
                }),
                Box::new(Changed(Arc::clone(&changed))),
            ))),
            ..Options::default()
        };
        let r = check_reader(file, "e.csv", None, &opts).expect("checks");
        let codes = r.diagnostics.iter().map(|d| d.rule.code).collect();
        let n = *changed.lock().expect("not poisoned");
        (codes, n)
    }

    #[test]
    fn a_row_is_fixed_in_the_check_unless_it_would_grow_near_the_longest_record() {
        let file = b"Full Name,Work Email,Start Date\nAda,a@x.com,3/7/2024\n";
        // Fixed where it is checked: the finding is gone, the chunk changed.
        assert_eq!(fixing(file, 64 << 20), (vec![], 1));
        // `03/07/2024` would make the 20-byte row 22, past half of 40: the
        // row is left to the file's own passes, its finding still there.
        assert_eq!(fixing(file, 40), (vec!["C004"], 0));
    }

    #[test]
    fn only_chunk_sized_buffers_are_kept_for_reuse() {
        let fixes = RowFixes::new(
            Box::new(|_: &Diagnostic| true),
            Box::new(Changed(Arc::default())),
        );
        fixes.give_back(Vec::with_capacity(SPARE_BYTES + 1));
        assert!(lock(&fixes.spare).is_empty());
        fixes.give_back(Vec::with_capacity(1 << 20));
        assert_eq!(lock(&fixes.spare).len(), 1);
        for _ in 0..2 * SPARE {
            fixes.give_back(Vec::with_capacity(16));
        }
        assert_eq!(lock(&fixes.spare).len(), SPARE);
    }
}
