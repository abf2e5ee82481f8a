//! Emitting findings inside a buffer: the [`Emitter`] turns buffer
//! offsets into lines, columns, snippets and cell values while the bytes
//! are at hand, and [`Snippets`] says whether to capture them.

use super::dates;
use super::finding::Finding;
use super::options::Options;
use crate::diagnostic::{Diagnostic, Snippet};
use crate::scan::Record;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Whether an emitter captures source lines: asked, and not yet told to
/// stop (see [`Options::snippet_stop`]).
#[derive(Debug, Clone)]
pub(crate) struct Snippets {
    pub(super) on: bool,
    pub(super) stop: Option<Arc<AtomicBool>>,
    /// [`Options::cross_stop`], which chunks read as they start.
    pub(super) cross_stop: Option<Arc<AtomicBool>>,
    /// Capture cell values too.
    pub(super) values: bool,
}

impl Snippets {
    pub(crate) fn of(opts: &Options) -> Self {
        Snippets {
            on: opts.snippets,
            stop: opts.snippet_stop.clone(),
            cross_stop: opts.cross_stop.clone(),
            values: opts.values,
        }
    }

    pub(super) fn wanted(&self) -> bool {
        // Relaxed: the switch orders nothing else, and a finding that reads
        // it late only captures a snippet that is not shown.
        self.on
            && !self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

impl From<bool> for Snippets {
    fn from(on: bool) -> Self {
        Snippets {
            on,
            stop: None,
            cross_stop: None,
            values: false,
        }
    }
}

/// Collects diagnostics for one buffer, turning buffer offsets into lines,
/// columns and snippets while the bytes are at hand.
pub(crate) struct Emitter<'a> {
    pub(super) data: &'a [u8],
    pub(super) snippets: Snippets,
    pub(crate) diags: Vec<Diagnostic>,
    /// The last (line start, offset, column) computed: findings on one line
    /// come in offset order, so counting resumes there instead of from the
    /// line start (a cell with 200,000 bad list elements stays linear).
    pub(super) col_memo: (usize, usize, u64),
    /// What the date cells checked show of their columns' order.
    pub(crate) dates: dates::DateOrders,
}

/// The text of `span` inside field `f`, as the cell means it: without the
/// quotes around a whole quoted field, `""` read as `"`, invalid UTF-8
/// replaced, cut after MAX_SNIPPET bytes (on a character boundary).
pub(super) fn cell_value(data: &[u8], span: &Range<usize>, f: &crate::scan::FieldSpan) -> Box<str> {
    let mut span = span.start.min(data.len())..span.end.min(data.len());
    if f.quoted && span.start == f.start && span.end == f.end && span.len() >= 2 {
        span = span.start + 1..span.end - 1;
    }
    let bytes = &data[span.clone()];
    let bytes = &bytes[..bytes.len().min(MAX_SNIPPET)];
    let text = String::from_utf8_lossy(bytes);
    // A cut through a character leaves one replacement character at the
    // end, which is kept: the value was longer.
    if f.escapes {
        text.replace("\"\"", "\"").into()
    } else {
        text.into()
    }
}

/// Longest snippet kept per diagnostic, so a huge cell does not balloon the
/// report.
pub(super) const MAX_SNIPPET: usize = 4096;

impl<'a> Emitter<'a> {
    pub(crate) fn new(data: &'a [u8], snippets: impl Into<Snippets>) -> Self {
        Emitter {
            data,
            snippets: snippets.into(),
            diags: Vec::new(),
            col_memo: (usize::MAX, 0, 1),
            dates: dates::DateOrders::default(),
        }
    }

    /// Reports `finding` on `span` (buffer offsets) of the line that
    /// starts at `line_start`.
    #[inline]
    pub(crate) fn report_at(
        &mut self,
        span: Range<usize>,
        line: u64,
        line_start: usize,
        finding: Finding,
    ) {
        let (memo_line, memo_at, memo_col) = self.col_memo;
        let (from, col0) = if memo_line == line_start && memo_at <= span.start {
            (memo_at, memo_col)
        } else {
            (line_start, 1)
        };
        let col = col0
            + self.data[from..span.start]
                .iter()
                .filter(|b| (**b & 0xC0) != 0x80)
                .count() as u64;
        self.col_memo = (line_start, span.start, col);
        let snippet = self
            .snippets
            .wanted()
            .then(|| self.snippet(line, line_start, &span, col));
        self.diags
            .push(finding.located(span.start as u64..span.end as u64, line, col, snippet));
    }

    /// Reports `finding` on `span`, which lies inside field `f` (on its
    /// first line or, for a quoted cell holding newlines, a later one).
    /// A finding that names its column captures the cell's value when
    /// values are asked for.
    #[inline]
    pub(crate) fn report_in(
        &mut self,
        span: Range<usize>,
        f: &crate::scan::FieldSpan,
        finding: Finding,
    ) {
        let before = &self.data[f.start..span.start];
        let (line, line_start) = match memchr::memrchr(b'\n', before) {
            None => (f.line, f.line_start),
            Some(last) => (
                f.line + memchr::memchr_iter(b'\n', before).count() as u64,
                f.start + last + 1,
            ),
        };
        let value = (self.snippets.values && finding.column.is_some())
            .then(|| cell_value(self.data, &span, f));
        self.report_at(span, line, line_start, finding);
        if let (Some(v), Some(d)) = (value, self.diags.last_mut()) {
            d.value = Some(v);
        }
    }

    /// Reports `finding` about the whole record `rec`.
    #[inline]
    pub(crate) fn report_row(&mut self, rec: &Record, finding: Finding) {
        self.report_at(rec.start..rec.end, rec.line, rec.start, finding);
    }

    /// The lines around `span`, whose first character is at column `col`.
    pub(super) fn snippet(
        &self,
        line: u64,
        line_start: usize,
        span: &Range<usize>,
        col: u64,
    ) -> Snippet {
        let data = self.data;
        let from = line_start.max(span.start.saturating_sub(MAX_SNIPPET / 2));
        let from = if from == line_start {
            from
        } else {
            // Start on a character boundary.
            (from..span.start)
                .find(|&i| (data[i] & 0xC0) != 0x80)
                .unwrap_or(span.start)
        };
        let upto = memchr::memchr(b'\n', &data[span.end.min(data.len())..])
            .map_or(data.len(), |i| span.end + i);
        // The span itself may be huge (an 8 MB cell): cap the whole snippet,
        // ending on a character boundary.
        let upto = upto.min(from + MAX_SNIPPET).min(data.len());
        let upto = (upto..data.len())
            .find(|&i| (data[i] & 0xC0) != 0x80)
            .unwrap_or(data.len());
        let text = lossy_same_length(&data[from..upto]);
        // A long line is cut to start near the finding: where the cut falls
        // on the line, so the human report shows the finding's own column.
        let skipped = data[from..span.start]
            .iter()
            .filter(|b| (**b & 0xC0) != 0x80)
            .count() as u64;
        Snippet {
            offset: from as u64,
            line,
            first_col: col.saturating_sub(skipped).max(1),
            first_byte_col: (from - line_start) as u64 + 1,
            text,
        }
    }
}

/// Decodes bytes keeping every byte offset: invalid bytes become `?`
/// (U+FFFD would take three bytes and shift later spans).
pub(super) fn lossy_same_length(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        out.extend(std::iter::repeat_n('?', chunk.invalid().len()));
    }
    out
}
