//! The per-chunk row checks, on a worker: each record of a chunk checked
//! against the plan (with chunk-relative line numbers), reduced to its
//! cross-row events, and fixed in place when the check fixes rows.

use super::chunk::{Chunk, Endings};
use super::cross::{self, CrossPlan};
use super::dates;
use super::emit::{Emitter, Snippets};
use super::finding::{shift, Finding};
use super::fixed_chunks::RowFixes;
use super::record::{blank, empty_row};
use super::row::{self, Plan};
use super::row_fixer::{self, RowFixer};
use crate::diagnostic::Diagnostic;
use crate::rules::{self, Rule};
use crate::scan::{LineEnding, Record, Scanner};
use std::sync::atomic::Ordering;

pub(super) struct ChunkResult {
    pub(super) diags: Vec<Diagnostic>,
    pub(super) records: u64,
    /// Newlines in the chunk: the next chunk starts this many lines later.
    pub(super) lines: u64,
    pub(super) endings: Endings,
    /// Fingerprints of the decoded rows, for the cross-row rules.
    pub(super) events: cross::Events,
    /// By unnamed header field: the rows with data in it.
    pub(super) unnamed: Vec<u64>,
    /// The chunk with its rows fixed, if a row was (see [`RowFixes`]):
    /// the offsets of `diags` and `events` are this buffer's.
    pub(super) fixed: Option<Vec<u8>>,
    /// Bytes the fixes added to the chunk (negative: removed).
    pub(super) delta: i64,
    /// Fixes applied in the chunk, by rule.
    pub(super) applied: Vec<(&'static Rule, u32)>,
    /// A fix changed bytes that tell how the file is read (see
    /// [`FixedChunks::chunk`](super::fixed_chunks::FixedChunks::chunk)).
    pub(super) unsettling: bool,
    /// What the chunk's date cells show of their columns' order (lines
    /// relative to the chunk).
    pub(super) dates: dates::DateOrders,
}

/// What the reading of rows needs from the header, beside the plan.
pub(super) struct Rows {
    /// The table compiled against the header, for each row.
    pub(super) plan: Plan,
    /// The cross-row rules' plan: what a row's events hold.
    pub(super) cross: CrossPlan,
    /// The header's field count.
    pub(super) width: usize,
    /// The header fields that have no name: a row's value there is
    /// counted (`unnamed-column-data`).
    pub(super) unnamed: Vec<usize>,
    /// `Options::max_record_bytes`.
    pub(super) max_record: usize,
}

/// Checks the rows of `chunk` (lines counted from 1), fixing those whose
/// fixes apply when the check fixes rows.
pub(super) fn check_chunk(
    rows: &Rows,
    chunk: &Chunk,
    snippets: Snippets,
    fixes: Option<&RowFixes>,
) -> ChunkResult {
    let (plan, cross) = (&rows.plan, &rows.cross);
    let data = chunk.data.as_slice();
    // Rows need events only if some cross-row rule runs (and was not told
    // to stop).
    let track = !cross.is_empty()
        && !snippets
            .cross_stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed));
    // A decoded chunk's edits land on the file's bytes, not these: its
    // fixes are left to the run's passes.
    let fixer = fixes
        .filter(|_| chunk.decoded.is_none())
        .map(|fixes| RowFixer {
            plan,
            cross,
            fixes,
            snippets: snippets.clone(),
            track,
            settled: chunk.settled,
            max_record: rows.max_record,
        });
    let mut emit = Emitter::new(data, snippets);
    let mut scanner = Scanner::with_delimiter(data, 0, 1, cross.delim);
    let mut rec = Record::default();
    let mut records = 0;
    let mut endings = Endings::default();
    let mut cells = row::Cells::for_chunk(data);
    let mut events = cross::Events::default();
    let mut unnamed = vec![0; rows.unnamed.len()];
    let delim = cross.delim;
    // The fixed chunk, once a row is fixed: the bytes up to `copied` of
    // `data`, with fixed rows in their places; later offsets move by
    // `delta`.
    let mut fixed: Vec<u8> = Vec::new();
    let (mut copied, mut delta) = (0usize, 0i64);
    let mut applied = Vec::new();
    let mut unsettling = false;
    while scanner.next_record(&mut rec) {
        records += 1;
        let (mark, ev_mark) = (emit.diags.len(), events.mark());
        'row: {
            // The usual row starts with a value: its first byte settles it.
            let first = data.get(rec.start).copied().unwrap_or(delim);
            if matches!(first, b' ' | b'\t' | b'"' | b'\r' | b'\n') | (first == delim)
                && empty_row(data, &rec)
            {
                let spaces = data[rec.start..rec.end]
                    .iter()
                    .any(|&b| b == b' ' || b == b'\t');
                emit.report_row(
                    &rec,
                    Finding::new(
                        &rules::EMPTY_ROW,
                        format!(
                            "this row is empty: it holds only delimiters{}",
                            if spaces { " and spaces" } else { "" }
                        ),
                    )
                    .help("delete the row (a spreadsheet writes one for each formatted but empty line below the data)"),
                );
                break 'row;
            }
            if !unnamed.is_empty() && rec.fields.len() == rows.width && rec.problems.is_empty() {
                for (n, &i) in unnamed.iter_mut().zip(&rows.unnamed) {
                    let (a, b) = rec.fields[i].content();
                    if !blank(&data[a..b]) {
                        *n += 1;
                    }
                }
            }
            if plan.check_record(data, &rec, &mut cells, &mut emit) && track {
                cross.event(data, &rec, &cells, &mut events);
            }
        }
        let at = rec.start.saturating_add_signed(delta as isize);
        // Only a row with findings has fixes.
        let row = fixer
            .as_ref()
            .filter(|_| emit.diags.len() > mark)
            .and_then(|f| {
                f.fix(
                    data,
                    &rec,
                    &mut emit.diags,
                    mark,
                    &mut events,
                    ev_mark,
                    at,
                    (&mut applied, &mut unsettling),
                )
            });
        if let Some(row) = row {
            let end = rec.end + row_fixer::ending_len(rec.ending);
            if let (0, Some(f)) = (fixed.capacity(), &fixer) {
                // The chunk with this row fixed, and room for fixes that
                // lengthen later rows, without growing (a chunk of one
                // 8 MiB record gets 8 MiB and a little, not twice that).
                let with_row = data.len() - (end - rec.start) + row.len();
                fixed = f.fixes.buffer(with_row + data.len() / 16);
            }
            fixed.extend_from_slice(&data[copied..rec.start]);
            fixed.extend_from_slice(&row);
            copied = end;
            delta += row.len() as i64 - (end - rec.start) as i64;
        } else if delta != 0 {
            for d in &mut emit.diags[mark..] {
                shift(d, delta);
            }
            events.shift_from(ev_mark, delta);
        }
        // Where the record lies in the output (the file, or the fixed
        // chunk): its start moved by the rows fixed before it, its end by
        // those and itself.
        let span = || {
            chunk.file_offset(at)..chunk.file_offset(rec.end.saturating_add_signed(delta as isize))
        };
        match rec.ending {
            Some(LineEnding::Lf) if endings.first_lf.is_none() => {
                endings.first_lf = Some((rec.line, span()))
            }
            Some(LineEnding::CrLf) if endings.first_crlf.is_none() => {
                endings.first_crlf = Some((rec.line, span()))
            }
            _ => {}
        }
    }
    let fixed = (!applied.is_empty()).then(|| {
        fixed.extend_from_slice(&data[copied..]);
        fixed
    });
    let dates = std::mem::take(&mut emit.dates);
    ChunkResult {
        dates,
        diags: emit.diags.into_iter().map(|d| chunk.rebase(d)).collect(),
        records,
        lines: scanner.line() - 1,
        endings,
        events,
        unnamed,
        fixed,
        delta,
        applied,
        unsettling,
    }
}
