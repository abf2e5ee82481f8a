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

use super::chunk::{Chunk, ChunkReader};
use super::cross::{self, CrossPlan, Events};
use super::emit::{Emitter, Snippets};
use super::finding::shift;
use super::fixed_chunks::RowFixes;
use super::record::empty_row;
use super::row::{Cells, Plan};
use crate::diagnostic::{Diagnostic, Edit};
use crate::rules::{self, Rule};
use crate::scan::{LineEnding, Record, Scanner};
use std::ops::Range;

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
    /// [`Chunk::settled`](super::chunk::Chunk::settled).
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
        ev_mark: cross::Mark,
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
            fields = rec2.fields.iter().map(|f| f.start..f.end).collect();
            event = Events::default();
            if self.plan.check_record(&row, &rec2, &mut cells, &mut emit) && self.track {
                self.cross.event(&row, &rec2, &cells, &mut event);
            }
            found = emit.diags;
            // A date a fix wrote month first, read day first by
            // `day-first-date` as the original file's column reads. Where
            // this run applies that rule's fixes, it also writes the
            // column's day-first cells month first (`invalid-date`'s unsafe
            // fixes; the swaps are held where that rule is off), so the
            // fixed file shows no day-first order and a check of it has no
            // such finding; and applying it would undo the fix, round after
            // round: dropped. Where the run does not apply it, the
            // day-first cells stay, and so does the finding, as a check of
            // the fixed file gives it.
            found.retain(|d| {
                d.rule.code != rules::DAY_FIRST_DATE.code
                    || !(self.fixes.applies)(d)
                    || !written.iter().any(|&i| {
                        fields.get(i).is_some_and(|f| {
                            f.start as u64 <= d.span.start && d.span.end <= f.end as u64
                        })
                    })
            });
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

/// The file's head with its fixes made: the bytes before the first row
/// (`len` of them in the file) as the fix writes them, and the fixes made,
/// by rule.
pub(super) struct FixedHead {
    pub(super) len: u64,
    pub(super) bytes: Vec<u8>,
    pub(super) applied: Vec<(&'static Rule, u32)>,
}

impl FixedHead {
    /// Bytes the head's fixes added (negative: removed).
    pub(super) fn delta(&self) -> i64 {
        self.bytes.len() as i64 - self.len as i64
    }

    /// The input as the fix writes it, before any row is fixed: the fixed
    /// head, then what the reader holds of the input after it (the first
    /// chunk's rows, the bytes read past that chunk), then the rest of the
    /// input. Read from the start, it is checked as the fixed file.
    pub(super) fn input<R: std::io::Read>(
        &self,
        first: &Chunk,
        rows: usize,
        chunks: ChunkReader<R>,
    ) -> impl std::io::Read {
        let pending = &chunks.buf[..chunks.filled];
        let mut start =
            Vec::with_capacity(self.bytes.len() + first.data.len() - rows + pending.len());
        start.extend_from_slice(&self.bytes);
        start.extend_from_slice(&first.data[rows..]);
        start.extend_from_slice(pending);
        std::io::Read::chain(std::io::Cursor::new(start), chunks.r)
    }
}

/// The fixes of the file's head among `found` (the findings on it, at file
/// offsets) that apply, made on `first.data[..rows]` (the bytes before the
/// first row), each whole or not at all; `None` when none applies, or when
/// the head is not wholly in `first` as the file's bytes (a chunk before
/// it, a decoded one) or the reader stopped at a record too long to hold,
/// and the run's passes fix it.
pub(super) fn fix_head<R>(
    fixes: &RowFixes,
    first: &Chunk,
    rows: usize,
    chunks: &ChunkReader<R>,
    found: &[Diagnostic],
) -> Option<FixedHead> {
    if first.base != 0 || first.decoded.is_some() || chunks.too_long.is_some() {
        return None;
    }
    let mut wanted: Vec<&Diagnostic> = found
        .iter()
        .filter(|d| {
            d.fix.as_ref().is_some_and(|f| {
                f.transform.is_none()
                    && !f.edits.is_empty()
                    && f.edits
                        .iter()
                        .all(|e| e.span.start <= e.span.end && e.span.end <= rows as u64)
            }) && (fixes.applies)(d)
        })
        .collect();
    if wanted.is_empty() {
        return None;
    }
    wanted.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let wanted: Vec<(&'static Rule, Vec<Edit>)> = wanted
        .into_iter()
        .filter_map(|d| Some((d.rule, d.fix.as_ref()?.edits.clone())))
        .collect();
    let mut applied = Vec::new();
    let bytes = apply(
        &first.data[..rows],
        &wanted,
        &mut applied,
        &mut false,
        &mut Vec::new(),
    );
    Some(FixedHead {
        len: rows as u64,
        bytes,
        applied,
    })
}
