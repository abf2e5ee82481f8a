//! The cells of one record, decoded once and read by every check of the
//! row: ranges of the chunk (or of one buffer of unescaped values), with
//! the flags the quick path and the requirement masks read.

use crate::check::record::report_utf8;
use crate::check::shapes;
use crate::check::{emit::Emitter, grammar, sheet};
use crate::json;
use crate::scan::{unescape_into, FieldSpan, Record};
use std::cell::RefCell;
use std::sync::Arc;

/// Decoded cells of the current record, reused across records. A cell is a
/// range of the chunk's text, or of `unescaped` for the few cells whose
/// `""` escapes had to be undone: no per-cell allocation or drop.
pub(crate) struct Cells<'a> {
    data: &'a [u8],
    /// The whole chunk, when it is valid UTF-8 (checked once per chunk).
    text: Option<&'a str>,
    cells: Vec<Cell>,
    /// The record's unescaped values, end to end.
    unescaped: String,
    /// Bit `c` is set when column `c` (below 64) is filled on this record:
    /// row conditions test it without looking at cells.
    pub(super) filled_cols: u64,
    /// Buffers reused by every JSON cell of the chunk.
    pub(super) scratch: RefCell<JsonScratch>,
    /// The chunk holds a NUL byte somewhere (checked once per chunk, as
    /// fast as memory reads: a clean chunk costs no per-record search).
    pub(super) nul: bool,
    /// Not 0 when a filled cell of the record may start like a formula or
    /// a spreadsheet error value (`sheet::suspicious_start`): its text
    /// cells are then looked at closely. Set by `decode`, a table lookup
    /// per cell.
    pub(super) suspicious: u8,
}

#[derive(Clone, Copy, Default)]
struct Cell {
    /// The value's range in the chunk, or in `unescaped` when `UNESCAPED`.
    start: usize,
    end: usize,
    /// `Cell::FILLED` and the others: one byte, so that a cell is written
    /// with three stores.
    flags: u8,
}

impl Cell {
    /// Holds anything but whitespace.
    const FILLED: u8 = 1;
    /// Valid UTF-8; a cell that is not has no value.
    const UTF8: u8 = 2;
    /// The range is in `Cells::unescaped`.
    const UNESCAPED: u8 = 4;
    /// Has `""` escapes that were left in place, since no check reads
    /// the decoded value: it has none to give.
    const ESCAPED: u8 = 8;

    #[inline(always)]
    fn has(self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

#[derive(Default)]
pub(super) struct JsonScratch {
    pub(super) nodes: Vec<json::Node>,
    pub(super) findings: grammar::Findings,
}

impl<'a> Cells<'a> {
    /// Cells for records of `data`, which is validated as UTF-8 once here
    /// rather than cell by cell, 32 bytes a step (simdutf8; std's check
    /// takes 16 and cost 2% of a run). Only whether it is valid matters
    /// here: a chunk that is not is validated cell by cell.
    pub(crate) fn for_chunk(data: &'a [u8]) -> Self {
        Cells {
            data,
            text: simdutf8::basic::from_utf8(data).ok(),
            cells: Vec::new(),
            unescaped: String::new(),
            filled_cols: 0,
            scratch: RefCell::default(),
            nul: memchr::memchr(0, data).is_some(),
            suspicious: 0,
        }
    }

    /// The decoded (unescaped, untrimmed) text of field `i`; `None` when it
    /// is not valid UTF-8.
    // Several calls per row, each a few loads and branches: a call costs
    // as much as the body.
    #[inline(always)]
    pub(crate) fn value(&self, i: usize) -> Option<&str> {
        let c = self.cells.get(i)?;
        debug_assert!(
            !c.has(Cell::ESCAPED),
            "field {i} is read but was not unescaped"
        );
        if c.has(Cell::UNESCAPED) {
            self.unescaped.get(c.start..c.end)
        } else if !c.has(Cell::UTF8) {
            None
        } else {
            match self.text {
                Some(t) => t.get(c.start..c.end),
                None => std::str::from_utf8(&self.data[c.start..c.end]).ok(),
            }
        }
    }

    /// The text of field `f` (number `i`) as it stands in the file, `""`
    /// escapes included; `None` when it is not valid UTF-8.
    // Inlined into the JSON cells' check, as it was before a second
    // caller came.
    #[inline(always)]
    pub(super) fn raw(&self, i: usize, f: &FieldSpan) -> Option<&'a str> {
        let (a, b) = f.content();
        if !self.cells.get(i)?.has(Cell::UTF8) {
            return None;
        }
        match self.text {
            Some(t) => t.get(a..b),
            None => std::str::from_utf8(&self.data[a..b]).ok(),
        }
    }

    /// The decoded bytes of field `i` if it is filled, and whether they are
    /// UTF-8 (else they are the raw content). The cross-row fingerprints
    /// hash bytes, so they skip `value`'s `str` boundary checks.
    #[inline(always)]
    pub(crate) fn filled_bytes(&self, i: usize) -> Option<(&[u8], bool)> {
        let c = self.cells.get(i).filter(|c| c.has(Cell::FILLED))?;
        debug_assert!(
            !c.has(Cell::ESCAPED),
            "field {i} is read but was not unescaped"
        );
        let from = if c.has(Cell::UNESCAPED) {
            self.unescaped.as_bytes()
        } else {
            self.data
        };
        Some((from.get(c.start..c.end)?, c.has(Cell::UTF8)))
    }

    /// The value of field `i` when it is the usual cell: filled, valid
    /// UTF-8, as it stands in the chunk (no escapes), and with visible ASCII
    /// at both ends, so that trimming leaves it as it is. Bytes, which is
    /// all the quick checks read: a `str` would cost boundary checks.
    #[inline(always)]
    pub(super) fn plain(&self, i: usize) -> Option<&'a [u8]> {
        let v = self.as_is(i)?;
        match (v.first(), v.last()) {
            (Some(&f), Some(&l)) if shapes::visible_ascii(f) && shapes::visible_ascii(l) => Some(v),
            _ => None,
        }
    }

    /// The bytes of field `i` when it is filled, valid UTF-8 and as it
    /// stands in the chunk (no escapes).
    #[inline(always)]
    pub(super) fn as_is(&self, i: usize) -> Option<&'a [u8]> {
        let c = self.cells.get(i)?;
        if c.flags != Cell::UTF8 | Cell::FILLED {
            return None;
        }
        self.data.get(c.start..c.end)
    }

    /// The text of field `i`: decoded, or as it stands in the file (`""`
    /// escapes included) when no check asked for it decoded.
    pub(super) fn text(&self, i: usize, f: &FieldSpan) -> Option<&str> {
        if self.cells.get(i)?.has(Cell::ESCAPED) {
            self.raw(i, f)
        } else {
            self.value(i)
        }
    }

    /// Whether field `i` holds anything but whitespace.
    pub(crate) fn is_filled(&self, i: usize) -> bool {
        self.cells.get(i).is_some_and(|c| c.has(Cell::FILLED))
    }

    /// Decodes the cells of a well-formed record, reporting bytes that are
    /// not UTF-8. `field_bits[i]` is the `filled_cols` bit of field `i`.
    ///
    /// Out of line: inlined into `check_record`, how the compiler laid out
    /// this loop over every cell followed whatever else was inlined there,
    /// and changes to the date checks and to `--fix` once cost 110
    /// instructions a row here (callgrind, issue 30).
    #[inline(never)]
    pub(super) fn decode(
        &mut self,
        rec: &Record,
        field_bits: &[u64],
        reads_value: &[bool],
        names: &[Arc<str>],
        emit: &mut Emitter<'_>,
    ) {
        let Cells {
            data,
            text,
            cells,
            unescaped,
            ..
        } = self;
        let (data, text) = (*data, *text);
        unescaped.clear();
        // Records of a file have the same length: the cells are overwritten
        // in place, with no push (a length and a capacity test per cell).
        if cells.len() != rec.fields.len() {
            cells.resize(rec.fields.len(), Cell::default());
        }
        // One bit per field: `check_record` decodes only records of the
        // header's width, which is the plan's.
        debug_assert_eq!(field_bits.len(), rec.fields.len());
        debug_assert!(rec.escapes || rec.fields.iter().all(|f| !f.escapes));
        let mut filled_cols = 0;
        let mut suspicious = 0;
        let fields = rec.fields.iter().zip(cells.iter_mut()).zip(field_bits);
        match text {
            // The usual record: no escapes in any field, so its loop does
            // not test each field for them.
            Some(text) if !rec.escapes => {
                for ((f, cell), &bit) in fields {
                    let (filled, start) = plain_cell(data, text, f, cell);
                    filled_cols |= bit & u64::from(filled).wrapping_neg();
                    suspicious |= start;
                }
            }
            _ => {
                for (i, ((f, cell), &bit)) in fields.enumerate() {
                    let start = match text {
                        Some(text) if !f.escapes => plain_cell(data, text, f, cell).1,
                        _ => {
                            *cell =
                                decode_other(data, text, unescaped, i, f, reads_value, names, emit);
                            // The first byte of the content as in
                            // `plain_cell`: a `""` escape first is a
                            // quote, which starts nothing.
                            let first = data.get(f.content().0).copied().unwrap_or(b',');
                            sheet::suspicious_start(first) & (cell.flags & Cell::FILLED)
                        }
                    };
                    filled_cols |= bit & u64::from(cell.flags & Cell::FILLED).wrapping_neg();
                    suspicious |= start;
                }
            }
        }
        self.filled_cols = filled_cols;
        self.suspicious = suspicious;
    }
}

/// Sets `cell` to field `f`, which has no escapes, in a chunk that is valid
/// UTF-8 as a whole (`text`), and says whether it is filled and whether it
/// may start like a formula (`sheet::suspicious_start`). Its cells are
/// valid too (they are cut at ASCII bytes), so it needs no `str` here: a
/// visible first byte settles "filled", and only a cell starting with a
/// space or a non-ASCII character is trimmed the Unicode way (an NBSP-only
/// cell is empty). The flag is returned as well as stored, so that the
/// caller's filled bits do not wait on reading it back.
#[inline(always)]
fn plain_cell(data: &[u8], text: &str, f: &FieldSpan, cell: &mut Cell) -> (bool, u8) {
    // The content of a quoted field without a branch.
    let q = usize::from(f.quoted);
    let (a, b) = (f.start + q, f.end - q);
    // Only a filled cell's first byte is looked up. A cell that starts
    // with a space or a non-ASCII character (rare) is flagged whenever it
    // is filled: `check_text_cells` then looks at it closely.
    let (filled, start) = if a >= b {
        (false, 0)
    } else {
        match data.get(a) {
            Some(&c) if shapes::visible_ascii(c) => (true, sheet::suspicious_start(c)),
            _ => {
                let filled = text.get(a..b).is_some_and(shapes::is_filled);
                (filled, u8::from(filled))
            }
        }
    };
    // Field by field: a whole `Cell` value went through the stack.
    cell.start = a;
    cell.end = b;
    cell.flags = Cell::UTF8 | u8::from(filled);
    (filled, start)
}

/// [`Cells::decode`] for a cell with `""` escapes, or in a chunk that is not
/// valid UTF-8: out of line, so that the usual loop stays small.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn decode_other(
    data: &[u8],
    text: Option<&str>,
    unescaped: &mut String,
    i: usize,
    f: &FieldSpan,
    reads_value: &[bool],
    names: &[Arc<str>],
    emit: &mut Emitter<'_>,
) -> Cell {
    let (a, b) = f.content();
    let s = match text {
        Some(t) => t.get(a..b),
        None => std::str::from_utf8(&data[a..b]).ok(),
    };
    let plain = |flags| Cell {
        start: a,
        end: b,
        flags,
    };
    match s {
        // "Empty" means what trimming means everywhere else: no character
        // but (Unicode) whitespace. A `""` escape is a quote, which fills a
        // cell.
        Some(_) if f.escapes && !reads_value.get(i).copied().unwrap_or(true) => {
            plain(Cell::ESCAPED | Cell::UTF8 | Cell::FILLED)
        }
        Some(s) if f.escapes => {
            let start = unescaped.len();
            unescape_into(s, unescaped);
            Cell {
                start,
                end: unescaped.len(),
                flags: Cell::UNESCAPED | Cell::UTF8 | Cell::FILLED,
            }
        }
        Some(s) => plain(Cell::UTF8 | u8::from(shapes::is_filled(s))),
        None => {
            report_utf8(data, a, b, f, names.get(i).cloned(), emit);
            plain(Cell::FILLED)
        }
    }
}
