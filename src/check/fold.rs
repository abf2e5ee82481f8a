//! The sequential fold: chunk results folded in file order into the
//! file's line numbers, the once-a-file findings, the line-ending
//! convention, a legacy encoding's bytes and the cross-row state, so the
//! output is the same at any thread count.

use super::chunk::Chunk;
use super::chunk_check::ChunkResult;
use super::cross::{self, CrossPlan, CrossState};
use super::dates;
use super::encoding;
use super::finding::{self, Finding, FixBuilder};
use super::fixed_chunks::{lock, RowFixes};
use crate::diagnostic::{Diagnostic, Transform};
use crate::rules::{self, Rule};
use crate::scan::LineEnding;
use std::collections::HashMap;
use std::ops::Range;

/// A folded chunk, as a worker hands it back to the reading thread: its
/// buffer, for reuse, and its findings in order.
pub(super) struct Folded {
    pub(super) data: Vec<u8>,
    pub(super) ready: Vec<Diagnostic>,
    /// The chunk's file offset.
    pub(super) base: u64,
    /// Its rows fixed (see [`RowFixes`]), if any were.
    pub(super) fixed: Option<Vec<u8>>,
    /// A decoded chunk's bytes as they are in the file.
    pub(super) raw: Option<Vec<u8>>,
    pub(super) applied: Vec<(&'static Rule, u32)>,
    pub(super) unsettling: bool,
}

impl Folded {
    /// Sends the chunk's bytes in the output to `fixes`, if the check
    /// fixes rows.
    pub(super) fn write(&mut self, fixes: Option<&RowFixes>) {
        let Some(fixes) = fixes else { return };
        let raw = self.raw.as_deref().unwrap_or(&self.data);
        let bytes = self.fixed.as_deref().unwrap_or(raw);
        lock(&fixes.out).chunk(
            self.base,
            raw.len() as u64,
            bytes,
            self.fixed.is_some(),
            &self.applied,
            self.unsettling,
        );
        if let Some(b) = self.fixed.take() {
            fixes.give_back(b);
        }
    }
}

/// Folds chunk `c`, checked into `r`, the next in file order: its rows
/// fixed, if any were, in place of those read.
pub(super) fn fold_chunk(
    fold: &mut Fold,
    mut c: Chunk,
    mut r: ChunkResult,
    cross: &CrossPlan,
) -> Folded {
    let applied = std::mem::take(&mut r.applied);
    let unsettling = r.unsettling;
    let read = r.fixed.take().map(|f| std::mem::replace(&mut c.data, f));
    let mut ready = Vec::new();
    fold.add(r, &mut c, cross, &mut ready);
    let (data, fixed) = match read {
        Some(read) => (read, Some(c.data)),
        None => (c.data, None),
    };
    Folded {
        data,
        ready,
        base: c.base,
        fixed,
        raw: c.decoded.map(|d| d.original),
        applied,
        unsettling,
    }
}

/// Folds chunk results in file order.
pub(super) struct Fold {
    /// Line number of the next chunk's first line.
    pub(super) next_line: u64,
    /// Records folded so far.
    pub(super) records: u64,
    /// Once-per-file findings: (rule, message) -> the first one, held back
    /// until the end, and how many more were dropped.
    pub(super) once: HashMap<(&'static str, String), (Diagnostic, u64)>,
    /// Report once-a-file findings on every row ([`Options::every_row`](super::options::Options::every_row)).
    pub(super) every_row: bool,
    /// The line ending the file uses, from its first terminated record.
    pub(super) convention: Option<LineEnding>,
    pub(super) mixed: bool,
    /// What the cross-row rules remember of earlier rows.
    pub(super) cross: CrossState,
    /// One chunk's findings, sorted before they go out; reused.
    pub(super) out: Vec<Diagnostic>,
    /// The input's size, until the first chunk has been folded.
    pub(super) size_hint: Option<u64>,
    /// A legacy-encoded file's bytes that are not UTF-8, so far.
    pub(super) legacy: Option<Legacy>,
    /// By unnamed header field (see [`Rows::unnamed`](super::chunk_check::Rows::unnamed)): the rows that hold
    /// data in it.
    pub(super) unnamed: Vec<u64>,
    /// Bytes that fixed rows added before the next chunk (see
    /// [`RowFixes`]): its offsets in the output are its file offsets plus
    /// this.
    pub(super) delta: i64,
    /// What the date cells so far show of their columns' order.
    pub(super) dates: dates::DateOrders,
}

/// The bytes of a legacy-encoded file that are not UTF-8, for its one
/// `not-utf8` finding.
#[derive(Debug, Default)]
pub(super) struct Legacy {
    pub(super) bytes: u64,
    pub(super) lines: u64,
    /// Bytes 0x80-0x9F.
    pub(super) c1: u64,
    /// (line, column, file offset) of the first on each of the first
    /// few lines.
    pub(super) first: Vec<(u64, u64, u64)>,
}

/// Positions a `not-utf8` finding names.
pub(super) const LEGACY_SHOWN: usize = 3;

impl Fold {
    pub(super) fn new(
        header_ending: Option<LineEnding>,
        next_line: u64,
        cross: CrossState,
        size_hint: Option<u64>,
    ) -> Self {
        Fold {
            size_hint,
            next_line,
            records: 0,
            once: HashMap::new(),
            every_row: false,
            convention: header_ending.filter(|e| *e != LineEnding::Eof),
            mixed: false,
            cross,
            out: Vec::new(),
            legacy: None,
            unnamed: Vec::new(),
            delta: 0,
            dates: dates::DateOrders::default(),
        }
    }

    /// Counts the bytes that are not UTF-8 in `range` of a decoded chunk,
    /// whose first byte is on `line`.
    pub(super) fn legacy_bytes(&mut self, chunk: &Chunk, range: Range<usize>, line: u64) {
        let Some(dec) = &chunk.decoded else { return };
        let legacy = self.legacy.get_or_insert_with(Legacy::default);
        legacy.c1 += dec.c1;
        let data = chunk.data.as_slice();
        let (mut at, mut line, mut last_line) = (range.start, line, 0);
        let from = dec.bad.partition_point(|&b| b < range.start);
        for &b in dec.bad[from..].iter().take_while(|&&b| b < range.end) {
            line += bytecount::count(&data[at..b], b'\n') as u64;
            at = b;
            legacy.bytes += 1;
            if line == last_line {
                continue;
            }
            legacy.lines += 1;
            last_line = line;
            if legacy.first.len() < LEGACY_SHOWN {
                let line_start = memchr::memrchr(b'\n', &data[..b]).map_or(0, |i| i + 1);
                let col = 1 + String::from_utf8_lossy(&data[line_start..b])
                    .chars()
                    .count() as u64;
                legacy.first.push((line, col, chunk.file_offset(b)));
            }
        }
    }

    /// Folds the result of `chunk`, the next chunk in file order, and adds
    /// its findings to `ready` in order.
    pub(super) fn add(
        &mut self,
        r: ChunkResult,
        chunk: &mut Chunk,
        plan: &CrossPlan,
        ready: &mut Vec<Diagnostic>,
    ) {
        // The chunk as it lies in the output, for the cross-row findings;
        // its own findings are at its file offsets.
        let before = self.delta;
        let file_base = chunk.base;
        chunk.base = file_base.saturating_add_signed(before);
        self.delta += r.delta;
        self.add_at(r, chunk, plan, ready, before);
        chunk.base = file_base;
    }

    pub(super) fn add_at(
        &mut self,
        r: ChunkResult,
        chunk: &Chunk,
        plan: &CrossPlan,
        ready: &mut Vec<Diagnostic>,
        before: i64,
    ) {
        let shift = self.next_line - 1;
        self.legacy_bytes(chunk, 0..chunk.data.len(), self.next_line);
        if self.unnamed.len() < r.unnamed.len() {
            self.unnamed.resize(r.unnamed.len(), 0);
        }
        for (n, m) in self.unnamed.iter_mut().zip(&r.unnamed) {
            *n += m;
        }
        if let Some(size) = self.size_hint.take() {
            // The rows the whole input will have, at this chunk's density.
            let bytes = chunk.data.len().max(1) as u64;
            let rows = size.saturating_mul(r.records) / bytes;
            self.cross
                .expect_rows(plan, usize::try_from(rows).unwrap_or(usize::MAX));
        }
        self.dates.add(&r.dates, shift);
        let out = &mut self.out;
        self.cross.fold(plan, &r.events, chunk, shift, out);
        let abs = |line: u64| line + shift;
        for mut d in r.diags {
            if before != 0 {
                finding::shift(&mut d, before);
            }
            d.line = abs(d.line);
            if let Some(s) = &mut d.snippet {
                s.line = abs(s.line);
            }
            for rel in &mut d.related {
                rel.line = abs(rel.line);
            }
            if d.once_per_file && !self.every_row {
                let key = (d.rule.code, d.message.clone());
                match self.once.get_mut(&key) {
                    Some((_, dropped)) => *dropped += 1,
                    None => {
                        self.once.insert(key, (d, 0));
                    }
                }
                continue;
            }
            out.push(d);
        }
        self.records += r.records;
        if !self.mixed {
            let at = |s: Range<u64>| {
                s.start.saturating_add_signed(before)..s.end.saturating_add_signed(before)
            };
            let lf = r
                .endings
                .first_lf
                .map(|(l, s)| (abs(l), at(s), LineEnding::Lf));
            let crlf = r
                .endings
                .first_crlf
                .map(|(l, s)| (abs(l), at(s), LineEnding::CrLf));
            if self.convention.is_none() {
                self.convention = [&lf, &crlf]
                    .into_iter()
                    .flatten()
                    .min_by_key(|e| e.0)
                    .map(|e| e.2);
            }
            let odd = match self.convention {
                Some(LineEnding::Lf) => crlf,
                Some(LineEnding::CrLf) => lf,
                _ => None,
            };
            if let Some((line, span, kind)) = odd {
                self.mixed = true;
                let (found, want) = match kind {
                    LineEnding::CrLf => ("CRLF", "LF"),
                    _ => ("LF", "CRLF"),
                };
                // Which ending most rows have is known only at the end of
                // the file: the fix is a rewrite of it, not edits.
                let fix = FixBuilder::safe("end every row with the file's most common line ending")
                    .transform(Transform::LineEndings);
                out.push(
                    Finding::from_template(
                        &rules::MIXED_LINE_ENDINGS,
                        &[
                            ("line", &line.to_string()),
                            ("found", found),
                            ("want", want),
                        ],
                    )
                    .fix(fix)
                    .file_at(span, line, 1),
                );
            }
        }
        self.next_line += r.lines;
        out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        ready.append(out);
    }

    /// The `not-utf8` finding of a legacy-encoded file.
    pub(super) fn legacy_finding(&self) -> Option<Diagnostic> {
        let legacy = self.legacy.as_ref()?;
        let &(line, col, at) = legacy.first.first()?;
        let name = encoding::likely_name(legacy.c1);
        let firsts: Vec<String> = legacy
            .first
            .iter()
            .map(|(l, c, _)| format!("line {l} column {c}"))
            .collect();
        let finding = Finding::new(
            &rules::NOT_UTF8,
            format!(
                "the file is not UTF-8 but most likely {name}: {} {} not UTF-8, on {} {} (first at {})",
                cross::thousands(legacy.bytes as usize),
                if legacy.bytes == 1 { "byte is" } else { "bytes are" },
                cross::thousands(legacy.lines as usize),
                if legacy.lines == 1 { "line" } else { "lines" },
                firsts.join(", ")
            ),
        )
        .help(format!(
            "save the file as \"CSV UTF-8\", or convert it (`iconv -f WINDOWS-1252 -t UTF-8 FILE`); bdxlint read it as {name} to check the rest"
        ))
        // The encoding is a guess from byte statistics: a person should
        // look at the result.
        .fix(
            FixBuilder::unsafe_(format!("re-encode the file from {name} to UTF-8"))
                .transform(Transform::Windows1252ToUtf8),
        );
        Some(finding.file_at(at..at + 1, line, col))
    }

    pub(super) fn finish(self, sink: &mut dyn FnMut(Diagnostic)) {
        if let Some(d) = self.legacy_finding() {
            sink(d);
        }
        let mut held: Vec<Diagnostic> = self
            .once
            .into_values()
            .map(|(mut d, dropped)| {
                if dropped > 0 {
                    d.message
                        .push_str(&format!(" (and {dropped} more rows like this one)"));
                }
                d
            })
            .collect();
        // Several can share a position (one row missing a column that
        // three filled cells each need), and the map hands them out in a
        // random order: the message settles the tie, or the output would
        // change from run to run.
        held.sort_by(|a, b| (a.sort_key(), &a.message).cmp(&(b.sort_key(), &b.message)));
        for d in held {
            sink(d);
        }
    }
}
