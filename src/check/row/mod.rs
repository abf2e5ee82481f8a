//! The per-record checker: quoting, field count, UTF-8, required cells,
//! shapes and the conditions between cells of a row, compiled once per file
//! from the table and the header ([`Plan`]).

use super::dates::{DateOrders, Kind, Order};
use super::filter;
use super::fixes;
use super::grammar;
use super::header::{map_columns, Header, Mapping};
use super::record::{report_nuls, report_quoting, report_utf8};
use super::shapes::{self, DateError};
use super::sheet;
use super::text::{describe_around, name_invisible, quote, quote_bare};
use super::Emitter;
use crate::diagnostic::{Applicability, Severity};
use crate::json::{self, Doc};
use crate::rules;
use crate::scan::{raw_offset, unescape_into, FieldSpan, Record};
use crate::schema::shape::{DateShape, JsonKind};
use crate::schema::{Braces, ColumnId, Condition, Grammar, Requirement, Shape, Table};
use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::Arc;

/// Everything resolved once per file.
pub struct Plan {
    table: &'static Table,
    width: usize,
    map: Mapping,
    /// The fields whose cells need checking on their own, with their
    /// columns and quick checks: not the unknown columns nor optional free
    /// text, which any value fits. A list of those alone, since most fields
    /// are neither.
    checked: Vec<(usize, ColumnId, QuickCell)>,
    /// By field: its column's bit in `Cells::filled_cols` (0 for none).
    field_bits: Vec<u64>,
    /// By field: whether any check reads its decoded value. A cell nobody
    /// reads (JSON, which is parsed as it stands in the file; free text;
    /// an unknown column) keeps its `""` escapes: no unescaped copy.
    reads_value: Vec<bool>,
    /// The fields of free-text columns, with their columns: checked for
    /// what a spreadsheet leaves (`check_text_cells`) when a record's
    /// `Cells::suspicious` says one may start like a formula or an error
    /// value.
    text_fields: Vec<(usize, ColumnId)>,
    /// Those of identifier columns, whose every cell is looked at for an
    /// exponent (`5.83231E+11`).
    id_fields: Vec<usize>,
    /// By requirement: how to tell cheaply that a row meets it.
    quick: Vec<Quick>,
    /// All of `quick` at once, when the masks allow it.
    quick_all: Option<QuickTable>,
    /// [`super::Options::date_orders`]: the order of day and month in
    /// each date column, when the whole file is known.
    date_orders: Option<Arc<DateOrders>>,
}

/// A column's cell check for the usual cell, resolved once per file: a
/// filled cell that stands as is in the chunk (no escapes to undo, nothing
/// to trim) is clean when this says so, and [`Plan::check_cell`] runs only
/// on the rest. Each arm is the test by which `check_cell` finds nothing.
#[derive(Clone, Copy)]
enum QuickCell {
    /// Any filled value fits (required free text).
    Filled,
    Bool(crate::schema::shape::BoolSpelling),
    Email,
    Date(crate::schema::shape::DateShape),
    Enum(&'static [String]),
    List(Option<&'static [String]>, Braces),
    /// No quick check: the full one, always.
    Full,
}

impl QuickCell {
    fn of(shape: &'static Shape) -> QuickCell {
        match shape {
            Shape::Text => QuickCell::Filled,
            Shape::Bool(spelling) => QuickCell::Bool(*spelling),
            Shape::Email => QuickCell::Email,
            Shape::Date(d) => QuickCell::Date(*d),
            Shape::Enum(values) => QuickCell::Enum(values),
            Shape::List { values, braces } => QuickCell::List(values.as_deref(), *braces),
            Shape::Integer { .. }
            | Shape::IntegrationRef
            | Shape::Json(_)
            | Shape::Brn
            | Shape::Url => QuickCell::Full,
        }
    }

    /// Whether field `i` of `cells` surely draws no finding from
    /// [`Plan::check_cell`] (false: run it).
    #[inline(always)]
    fn passes(self, cells: &Cells<'_>, i: usize) -> bool {
        match self {
            // Free text draws no finding once it is filled, whatever its
            // bytes: not even for spaces around it.
            QuickCell::Filled => cells.is_filled(i),
            // A word of the spelling has nothing to trim: the cell's bytes
            // as they stand are enough. The words are constants once
            // `words` is inlined: a compare of a few bytes in place, not a
            // call to `bcmp`.
            QuickCell::Bool(spelling) => cells.as_is(i).is_some_and(|v| {
                let (t, f) = spelling.words();
                v == t.as_bytes() || v == f.as_bytes()
            }),
            QuickCell::Email => cells.plain(i).is_some_and(shapes::is_email_bytes),
            QuickCell::Date(d) => cells
                .plain(i)
                .is_some_and(|v| shapes::check_date_bytes(d, v).is_ok()),
            QuickCell::Enum(values) => cells
                .plain(i)
                .is_some_and(|v| values.iter().any(|x| x.as_bytes() == v)),
            // A list holds no `#` first: a spreadsheet's error value
            // (`#N/A`) is a one-element list to `list_is_clean`.
            QuickCell::List(values, braces) => cells
                .plain(i)
                .is_some_and(|v| v[0] != b'#' && list_is_clean(v, values, braces)),
            QuickCell::Full => false,
        }
    }
}

/// Whether a row meets every requirement, looked up by the filled bits the
/// requirements read, when those lie within a few columns of each other
/// (as in every format). It replaces a walk over the masks of each
/// requirement, about ten instructions each, with a shift and a bit test.
struct QuickTable {
    shift: u32,
    /// The bits of the index, after the shift.
    mask: u64,
    /// Bit `k`: every requirement is met when the filled bits are `k`.
    met: Vec<u64>,
}

impl QuickTable {
    /// Widest span of columns tabled: 2^12 rows in 512 bytes.
    const MAX_SPAN: u32 = 12;

    fn new(quick: &[Quick]) -> Option<QuickTable> {
        let mut read = 0u64;
        for q in quick {
            match *q {
                Quick::Skip => {}
                Quick::Slow => return None,
                Quick::Masks {
                    present,
                    empty,
                    all,
                    any,
                } => read |= present | empty | all | any,
            }
        }
        let shift = if read == 0 { 0 } else { read.trailing_zeros() };
        let span = 64 - shift - read.leading_zeros();
        if span > Self::MAX_SPAN {
            return None;
        }
        let mask = (1u64 << span) - 1;
        // `met` reads no bit outside `read`, so the index settles it.
        let mut met = vec![0u64; (1usize << span).div_ceil(64)];
        for k in 0..=mask {
            if quick.iter().all(|q| q.met(k << shift)) {
                met[(k / 64) as usize] |= 1 << (k % 64);
            }
        }
        Some(QuickTable { shift, mask, met })
    }

    #[inline]
    fn all_met(&self, filled: u64) -> bool {
        let k = (filled >> self.shift) & self.mask;
        self.met
            .get((k / 64) as usize)
            .is_some_and(|w| w >> (k % 64) & 1 == 1)
    }
}

/// A row requirement compiled to bit masks over `Cells::filled_cols`, so
/// that a row meeting it (nearly every row) costs a few instructions.
#[derive(Clone, Copy)]
enum Quick {
    /// Settled on the header: never checked on rows.
    Skip,
    /// Needs the cells (a condition on a value, or a column past 63).
    Slow,
    Masks {
        /// The condition holds when these are all filled...
        present: u64,
        /// ...and these are all empty.
        empty: u64,
        /// Then it needs all of these filled...
        all: u64,
        /// ...or, when not 0, any of these.
        any: u64,
    },
}

impl Quick {
    fn compile(r: &crate::schema::Requires, settled: bool) -> Quick {
        if settled {
            return Quick::Skip;
        }
        let mask = |cols: &[ColumnId]| {
            cols.iter().try_fold(0u64, |m, &c| match column_bit(c) {
                0 => None,
                bit => Some(m | bit),
            })
        };
        let (present, empty) = match &r.when {
            Condition::Always => (Some(0), Some(0)),
            Condition::Present(c) => (mask(&[*c]), Some(0)),
            Condition::Empty(c) => (Some(0), mask(&[*c])),
            Condition::In(..) => (None, None),
        };
        match (present, empty, mask(&r.all), mask(&r.any)) {
            (Some(present), Some(empty), Some(all), Some(any)) => Quick::Masks {
                present,
                empty,
                all,
                any,
            },
            _ => Quick::Slow,
        }
    }

    /// Whether a row with these filled columns surely meets the
    /// requirement (false: look closer).
    #[inline]
    fn met(self, filled: u64) -> bool {
        match self {
            Quick::Skip => true,
            Quick::Slow => false,
            Quick::Masks {
                present,
                empty,
                all,
                any,
            } => {
                let holds = filled & present == present && filled & empty == 0;
                !holds
                    || if any != 0 {
                        filled & any != 0
                    } else {
                        filled & all == all
                    }
            }
        }
    }
}

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
    filled_cols: u64,
    /// Buffers reused by every JSON cell of the chunk.
    scratch: RefCell<JsonScratch>,
    /// The chunk holds a NUL byte somewhere (checked once per chunk, as
    /// fast as memory reads: a clean chunk costs no per-record search).
    nul: bool,
    /// Not 0 when a filled cell of the record may start like a formula or
    /// a spreadsheet error value (`sheet::suspicious_start`): its text
    /// cells are then looked at closely. Set by `decode`, a table lookup
    /// per cell.
    suspicious: u8,
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
struct JsonScratch {
    nodes: Vec<json::Node>,
    findings: grammar::Findings,
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
    fn raw(&self, i: usize, f: &FieldSpan) -> Option<&'a str> {
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
    #[inline]
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
    fn plain(&self, i: usize) -> Option<&'a [u8]> {
        let v = self.as_is(i)?;
        match (v.first(), v.last()) {
            (Some(&f), Some(&l)) if shapes::visible_ascii(f) && shapes::visible_ascii(l) => Some(v),
            _ => None,
        }
    }

    /// The bytes of field `i` when it is filled, valid UTF-8 and as it
    /// stands in the chunk (no escapes).
    #[inline(always)]
    fn as_is(&self, i: usize) -> Option<&'a [u8]> {
        let c = self.cells.get(i)?;
        if c.flags != Cell::UTF8 | Cell::FILLED {
            return None;
        }
        self.data.get(c.start..c.end)
    }

    /// The text of field `i`: decoded, or as it stands in the file (`""`
    /// escapes included) when no check asked for it decoded.
    fn text(&self, i: usize, f: &FieldSpan) -> Option<&str> {
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
    fn decode(
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
                            super::sheet::suspicious_start(first) & (cell.flags & Cell::FILLED)
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
            Some(&c) if shapes::visible_ascii(c) => (true, super::sheet::suspicious_start(c)),
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

/// The elements of one list cell seen so far. Lists are short: up to
/// `SMALL` elements are compared linearly without allocating; longer lists
/// move to a hash set, so a 200,000-element cell stays linear.
// `Option` so that a fresh array is zeroed memory (a few vector stores)
// rather than sixteen `""` written field by field, on every list cell.
#[derive(Default)]
struct Seen<'a> {
    small: [Option<&'a str>; Seen::SMALL],
    n: usize,
    big: Option<HashSet<&'a str>>,
}

impl<'a> Seen<'a> {
    const SMALL: usize = 16;

    /// Whether `el` is new.
    fn insert(&mut self, el: &'a str) -> bool {
        if let Some(big) = &mut self.big {
            return big.insert(el);
        }
        if self.small[..self.n].contains(&Some(el)) {
            return false;
        }
        if self.n < Self::SMALL {
            self.small[self.n] = Some(el);
            self.n += 1;
        } else {
            let mut big: HashSet<&str> = self.small.iter().flatten().copied().collect();
            big.insert(el);
            self.big = Some(big);
        }
        true
    }
}

/// By column: whether a check other than the column's own cell check
/// reads its decoded value (conditions on values, equal and ordered pairs,
/// the filter type, identity and unique keys). Conditions on being filled
/// only need `Cells::is_filled`.
fn value_readers(table: &Table) -> Vec<bool> {
    let mut read = vec![false; table.columns.len()];
    let mut mark = |c: ColumnId| {
        if let Some(r) = read.get_mut(c) {
            *r = true;
        }
    };
    for cond in table
        .requires
        .iter()
        .map(|r| &r.when)
        .chain(table.json.iter().flat_map(|j| &j.when))
    {
        if let Condition::In(c, _) = cond {
            mark(*c);
        }
    }
    for j in &table.json {
        if let Grammar::Filter { type_column } = j.grammar {
            mark(type_column);
        }
    }
    for e in &table.equal {
        mark(e.column);
        mark(e.to);
    }
    for o in &table.order {
        mark(o.earlier);
        mark(o.later);
    }
    for c in table.identity.iter().flat_map(|id| id.columns) {
        mark(c);
    }
    for c in table.unique.iter().flat_map(|u| u.columns.iter().copied()) {
        mark(c);
    }
    read
}

/// Column `c`'s bit in `Cells::filled_cols`; columns past 63 have none,
/// and the conditions on them take the slow path.
fn column_bit(c: ColumnId) -> u64 {
    1u64.checked_shl(c as u32).unwrap_or(0)
}

/// `s.split(',')`, but with [`find_comma`]: list elements are a few bytes
/// long, where `split`'s searcher costs more than the search.
fn comma_separated(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(s);
    std::iter::from_fn(move || {
        let r = rest?;
        match find_comma(r.as_bytes()) {
            Some(at) => {
                rest = Some(&r[at + 1..]);
                Some(&r[..at])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

/// The high bit of each byte of `w` that is a comma; the add cannot carry
/// across bytes, so no other byte is marked.
#[inline]
fn commas(w: &[u8; 8]) -> u64 {
    crate::swar::equal_bytes(u64::from_le_bytes(*w), b',')
}

/// The first comma of `b`, eight bytes a step (a list cell is mostly
/// element bytes, and a byte loop costs five instructions a byte).
#[inline]
fn find_comma(b: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(w) = b.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        let m = commas(w);
        if m != 0 {
            return Some(at + (m.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = b.len() - at;
    if rest == 0 {
        return None;
    }
    match b.last_chunk::<8>() {
        // The last eight bytes, less the ones already searched: one more
        // word rather than a byte loop over the tail.
        Some(w) => {
            let m = commas(w) & (u64::MAX << (8 * (8 - rest)));
            (m != 0).then(|| b.len() - 8 + (m.trailing_zeros() / 8) as usize)
        }
        None => b.iter().position(|&c| c == b','),
    }
}

/// Whether list cell `b` certainly draws no finding from
/// [`Plan::check_list`]: braces as `braces` allows, at most
/// [`CLEAN_LIST_MAX`] elements, each non-empty, distinct and (with
/// `values`) allowed. `false` means unsure, not bad: the full check decides,
/// so this only has to be right when it says `true`.
#[inline]
fn list_is_clean(b: &[u8], values: Option<&[String]>, braces: Braces) -> bool {
    let inner = match (b.first(), b.last(), braces) {
        (Some(b'{'), Some(b'}'), Braces::Required | Braces::Optional) if b.len() >= 2 => {
            &b[1..b.len() - 1]
        }
        (Some(&f), Some(&l), Braces::Optional | Braces::Forbidden) if f != b'{' && l != b'}' => b,
        _ => return false,
    };
    let Some(mut commas) = comma_bits(inner) else {
        return false;
    };
    // Where the elements seen so far lie in `inner` (which `comma_bits`
    // keeps under 256 bytes): zeroing sixteen bytes is one store, where
    // eight slices took sixteen.
    let mut seen = [(0u8, 0u8); CLEAN_LIST_MAX];
    let mut n = 0;
    let mut start = 0;
    loop {
        let end = if commas == 0 {
            inner.len()
        } else {
            commas.trailing_zeros() as usize
        };
        let Some(raw) = inner.get(start..end) else {
            return false;
        };
        // Spaces are the usual padding; with them gone and visible ASCII at
        // both ends, the element is what `shapes::trim` makes of it.
        // Anything else (tabs, NBSP, blanks) is left to the full check.
        let mut from = start;
        let mut el = raw;
        while let [b' ', rest @ ..] = el {
            el = rest;
            from += 1;
        }
        while let [rest @ .., b' '] = el {
            el = rest;
        }
        let (Some(&first), Some(&last)) = (el.first(), el.last()) else {
            return false;
        };
        if !shapes::visible_ascii(first) || !shapes::visible_ascii(last) || n == CLEAN_LIST_MAX {
            return false;
        }
        for &(s, e) in &seen[..n] {
            if inner.get(usize::from(s)..usize::from(e)) == Some(el) {
                return false;
            }
        }
        if values.is_some_and(|values| !values.iter().any(|x| x.as_bytes() == el)) {
            return false;
        }
        // In range: `inner` is under 256 bytes.
        seen[n] = (from as u8, (from + el.len()) as u8);
        n += 1;
        if commas == 0 {
            return true;
        }
        commas &= commas - 1;
        start = end + 1;
    }
}

/// Bit `k` set where `b[k]` is a comma, for `b` of at most 64 bytes: a
/// list cell splits in a few word operations rather than a byte loop.
#[inline]
fn comma_bits(b: &[u8]) -> Option<u64> {
    // One bit per byte: the high bit of each comma byte, gathered into the
    // low eight bits by a multiply whose partial products do not overlap.
    let bits = |w: &[u8; 8]| (commas(w) >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56;
    if b.len() > 64 {
        return None;
    }
    let Some(last) = b.last_chunk::<8>() else {
        return Some(
            b.iter()
                .enumerate()
                .fold(0, |m, (k, &c)| m | u64::from(c == b',') << k),
        );
    };
    let mut m = 0;
    for (k, w) in b.chunks_exact(8).enumerate() {
        if let Some(w) = w.first_chunk::<8>() {
            m |= bits(w) << (8 * k);
        }
    }
    // The last eight bytes again, overlapping the whole words: the bytes
    // seen twice give the same bits.
    Some(m | bits(last) << (b.len() - 8))
}

/// Most elements [`list_is_clean`] compares pairwise; longer lists (and
/// cells over 64 bytes) take the full check.
const CLEAN_LIST_MAX: usize = 8;

/// Notes a valid `MM/DD/YYYY` cell `v` of column `c` whose day is over 12:
/// it reads only month first, which is evidence of the column's order.
#[inline(always)]
fn month_first_evidence(c: ColumnId, v: &[u8], line: u64, emit: &mut Emitter<'_>) {
    if let [_, _, _, d0, d1, ..] = *v {
        if d0 > b'1' || (d0 == b'1' && d1 > b'2') {
            note_month_first(c, v, line, emit);
        }
    }
}

#[inline(never)]
fn note_month_first(c: ColumnId, v: &[u8], line: u64, emit: &mut Emitter<'_>) {
    emit.dates
        .note(c, Kind::MonthFirst, line, &String::from_utf8_lossy(v));
}

/// A valid `MM/DD/YYYY` value `v` read month first, as the platform reads
/// it, and day first, where that is another date (both numbers 12 or less
/// and not equal).
fn two_way(v: &str) -> Option<(chrono::NaiveDate, chrono::NaiveDate)> {
    let b = v.as_bytes();
    if b.len() != 10 || b[2] != b'/' || b[5] != b'/' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| v.get(r)?.parse::<u32>().ok();
    let (m, d, y) = (num(0..2)?, num(3..5)?, num(6..10)?);
    if m == d || d > 12 {
        return None;
    }
    let y = i32::try_from(y).ok()?;
    Some((
        chrono::NaiveDate::from_ymd_opt(y, m, d)?,
        chrono::NaiveDate::from_ymd_opt(y, d, m)?,
    ))
}

/// Findings reported per list cell before the rest are only counted.
const MAX_LIST_FINDINGS: usize = 10;

impl Plan {
    pub(crate) fn new(
        table: &'static Table,
        header: &Header,
        data: &[u8],
        rec: &Record,
        emit: &mut Emitter<'_>,
    ) -> Plan {
        let map = map_columns(table, header, data, rec, emit);
        // Requirements the header already fails for every row are reported
        // once on the header and skipped on rows.
        let settled: Vec<bool> = table
            .requires
            .iter()
            .map(|r| {
                let hopeless = matches!(r.when, Condition::Always)
                    && !r.any.is_empty()
                    && r.any.iter().all(|c| map.col_field[*c].is_none());
                if hopeless {
                    let list = column_list(table, &r.any);
                    emit.row(
                        &rules::MISSING_ONE_OF,
                        r.severity,
                        rec,
                        format!("the header has none of {list}: {}", r.reason),
                        Some(format!(
                            "add at least one of {list} and fill it on every row"
                        )),
                    );
                }
                hopeless
            })
            .collect();
        let checked = map
            .field_col
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                c.filter(|&c| {
                    let col = &table.columns[c];
                    col.shape != Shape::Text || col.requirement != Requirement::Optional
                })
                .map(|c| (i, c, QuickCell::of(&table.columns[c].shape)))
            })
            .collect();
        let text_fields: Vec<(usize, ColumnId)> = map
            .field_col
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                c.filter(|&c| table.columns[c].shape == Shape::Text)
                    .map(|c| (i, c))
            })
            .collect();
        let id_fields = text_fields
            .iter()
            .filter(|&&(_, c)| table.columns[c].identifier)
            .map(|&(i, _)| i)
            .collect();
        let field_bits = map
            .field_col
            .iter()
            .map(|c| c.map_or(0, column_bit))
            .collect();
        let quick: Vec<Quick> = table
            .requires
            .iter()
            .zip(&settled)
            .map(|(r, &settled)| Quick::compile(r, settled))
            .collect();
        let quick_all = QuickTable::new(&quick);
        let read = value_readers(table);
        let reads_value = map
            .field_col
            .iter()
            .map(|c| {
                c.is_some_and(|c| {
                    let shape = &table.columns[c].shape;
                    read[c] || !matches!(shape, Shape::Text | Shape::Json(_))
                })
            })
            .collect();
        Plan {
            table,
            width: header.names.len(),
            map,
            checked,
            text_fields,
            id_fields,
            field_bits,
            reads_value,
            quick,
            quick_all,
            date_orders: None,
        }
    }

    pub fn table(&self) -> &'static Table {
        self.table
    }

    /// Gives the plan the order of day and month in each date column,
    /// known up front ([`super::Options::date_orders`]). An `MM/DD/YYYY`
    /// column whose valid cells that read as two dates are read by its
    /// order (`day-first-date`) takes the full check on every cell, where such
    /// a cell is looked at: only a file with day-first cells pays for it.
    pub(crate) fn set_date_orders(&mut self, orders: Option<Arc<DateOrders>>) {
        if let Some(o) = &orders {
            for (_, c, quick) in &mut self.checked {
                if matches!(quick, QuickCell::Date(DateShape::Mdy)) && o.reads_valid(*c).is_some() {
                    *quick = QuickCell::Full;
                }
            }
        }
        self.date_orders = orders;
    }

    fn name(&self, field: usize) -> Option<Arc<str>> {
        Some(self.map.names[field].clone())
    }

    /// Checks one record. Returns whether its cells were decoded into
    /// `cells` (false for a row with broken quoting or the wrong field count,
    /// whose cells mean nothing and which cross-row rules skip).
    pub(crate) fn check_record<'a>(
        &self,
        data: &'a [u8],
        rec: &Record,
        cells: &mut Cells<'a>,
        emit: &mut Emitter<'_>,
    ) -> bool {
        if cells.nul {
            report_nuls(data, rec, &self.map.names, emit);
        }
        let broken = !rec.problems.is_empty() || rec.fields.len() != self.width;
        if broken {
            // The cells are not checked, but bad bytes are still bad bytes.
            for (i, f) in rec.fields.iter().enumerate() {
                let (a, b) = f.content();
                report_utf8(data, a, b, f, self.map.names.get(i).cloned(), emit);
            }
        }
        if !rec.problems.is_empty() {
            report_quoting(data, rec, &self.map.names, emit);
            return false;
        }
        if rec.fields.len() != self.width {
            let (got, want) = (rec.fields.len(), self.width);
            emit.row(
                &rules::FIELD_COUNT,
                None,
                rec,
                format!("this row has {got} fields but the header has {want}"),
                Some(if got > want {
                    "quote values that contain commas, or remove the extra fields; the row's cells were not checked".into()
                } else {
                    "add the missing fields (empty ones are fine: `a,,c`); the row's cells were not checked".into()
                }),
            );
            return false;
        }
        cells.decode(
            rec,
            &self.field_bits,
            &self.reads_value,
            &self.map.names,
            emit,
        );
        for &(i, c, quick) in &self.checked {
            if !quick.passes(cells, i) {
                self.check_cell(data, &rec.fields[i], i, c, cells, emit);
            } else if let QuickCell::Date(DateShape::Mdy) = quick {
                if let Some(v) = cells.plain(i) {
                    // The cell's own line, as `check_cell` names it.
                    month_first_evidence(c, v, rec.fields[i].line, emit);
                }
            }
        }
        if cells.suspicious != 0
            || self
                .id_fields
                .iter()
                .any(|&i| cells.as_is(i).is_some_and(super::sheet::maybe_exponent))
        {
            self.check_text_cells(rec, cells, emit);
        }
        // The usual row meets every requirement, and most formats have no
        // equal, grouped or ordered columns: settled here, so that the
        // checks that report stay out of line.
        let t = self.table;
        if !self.all_met(cells.filled_cols) || !t.equal.is_empty() || !t.one_or_all.is_empty() {
            self.check_conditions(rec, cells, emit);
        }
        if !t.order.is_empty() {
            self.check_order(rec, cells, emit);
        }
        true
    }

    /// What a spreadsheet leaves in free-text cells: error values, IDs in
    /// scientific notation, formulas. Out of line: few records get here.
    #[inline(never)]
    fn check_text_cells(&self, rec: &Record, cells: &Cells<'_>, emit: &mut Emitter<'_>) {
        for &(i, c) in &self.text_fields {
            let f = &rec.fields[i];
            // A cell nobody else reads keeps its `""` escapes; none of what
            // is looked for here starts with or holds a quote.
            let Some(v) = cells.text(i, f).filter(|_| cells.is_filled(i)) else {
                continue;
            };
            let col = &self.table.columns[c];
            // As it stands, unv: what the quick tests of
            // `check_record` see (the first byte, the last ones), so that
            // a record's findings do not depend on the way it was decoded.
            if sheet::is_error_value(v) {
                self.report_error_value(f, i, &col.name, v, emit);
            } else if let Some(sci) = col.identifier.then(|| sheet::scientific(v)).flatten() {
                let (message, help) = match (sci.exact, sci.digits) {
                    (Some(exact), _) => (
                        format!(
                            "{} is the ID `{exact}` written as a number in scientific notation by a spreadsheet",
                            quote(v)
                        ),
                        format!("write `{exact}`; format the column as text in the spreadsheet so that it keeps IDs as they are"),
                    ),
                    (None, Some(digits)) => (
                        format!(
                            "{}: a spreadsheet turned this ID into a number; the digits after {} significant places are lost (the ID had {digits} digits)",
                            quote(v),
                            sci.kept
                        ),
                        "export the IDs again from their source, and format the column as text before the file goes through a spreadsheet".into(),
                    ),
                    (None, None) => (
                        format!(
                            "{}: a spreadsheet turned this ID into a number in scientific notation",
                            quote(v)
                        ),
                        "export the IDs again from their source, and format the column as text before the file goes through a spreadsheet".into(),
                    ),
                };
                emit.in_field(
                    &rules::SCIENTIFIC_NOTATION_ID,
                    None,
                    f.start..f.end,
                    f,
                    self.name(i),
                    message,
                    Some(help),
                );
            } else if sheet::is_formula_like(v) {
                let first = match v.as_bytes()[0] {
                    b'\t' => "a TAB".to_owned(),
                    b'\r' => "a CARRIAGE RETURN".to_owned(),
                    b => format!("`{}`", char::from(b)),
                };
                emit.in_field(
                    &rules::FORMULA_LIKE_CELL,
                    None,
                    f.start..f.end,
                    f,
                    self.name(i),
                    format!(
                        "{} starts with {first}: a spreadsheet that opens the file runs it as a formula",
                        quote(v)
                    ),
                    Some("remove the leading character if it is not meant; if it is, start the cell with a single quote (`'`), which spreadsheets show as text".into()),
                );
            }
        }
    }

    /// A spreadsheet's error value in cell `i`, whatever its column.
    fn report_error_value(
        &self,
        f: &FieldSpan,
        i: usize,
        column: &str,
        v: &str,
        emit: &mut Emitter<'_>,
    ) {
        emit.in_field(
            &rules::SPREADSHEET_ERROR,
            None,
            f.start..f.end,
            f,
            self.name(i),
            format!(
                "{} is a spreadsheet's error value, not a value of `{column}`: the formula that should have filled the cell failed",
                quote(v)
            ),
            Some("correct the formula, or write the value itself, and export again; the value this row needs is not in the file".into()),
        );
    }

    /// Whether a row with these filled columns surely meets every
    /// requirement (false: look closer).
    #[inline(always)]
    fn all_met(&self, filled: u64) -> bool {
        match &self.quick_all {
            Some(table) => table.all_met(filled),
            None => self.quick.iter().all(|q| q.met(filled)),
        }
    }

    /// Date pairs that must not be in reverse order. Cells that are empty
    /// or not dates are left to their own findings.
    // Out of line, like `check_conditions`: most formats have no ordered
    // columns, and `check_record` stays small without it.
    #[inline(never)]
    fn check_order(&self, rec: &Record, cells: &Cells<'_>, emit: &mut Emitter<'_>) {
        for o in &self.table.order {
            let (Some(ei), Some(li)) = (self.map.col_field[o.earlier], self.map.col_field[o.later])
            else {
                continue;
            };
            let Shape::Date(shape) = self.table.columns[o.earlier].shape else {
                continue;
            };
            let (Some(a), Some(b)) = (self.value(cells, o.earlier), self.value(cells, o.later))
            else {
                continue;
            };
            let ok = |v: &str| shapes::check_date(shape, v).is_ok();
            if a.is_empty() || b.is_empty() || !ok(a) || !ok(b) {
                continue;
            }
            let (Some(x), Some(y)) = (shapes::instant(shape, a), shapes::instant(shape, b)) else {
                continue;
            };
            if x > y {
                let (ename, lname) = (
                    &self.table.columns[o.earlier].name,
                    &self.table.columns[o.later].name,
                );
                let f = &rec.fields[ei];
                emit.in_field(
                    &rules::DATE_ORDER,
                    o.severity,
                    f.start..f.end,
                    f,
                    self.name(ei),
                    format!(
                        "`{ename}` {} is after `{lname}` {}: {}",
                        quote(a),
                        quote(b),
                        o.reason
                    ),
                    Some(format!("swap the dates, or correct `{ename}` or `{lname}`")),
                );
                let lf = &rec.fields[li];
                if let Some(d) = emit.diags.last_mut() {
                    d.related.push(crate::diagnostic::Related {
                        line: lf.line,
                        column: Some(self.map.names[li].clone()),
                        message: format!("`{lname}` is {}", quote(b)),
                    });
                }
            }
        }
    }

    /// The field that holds column `c`, if the header names it.
    pub(crate) fn field_of(&self, c: ColumnId) -> Option<usize> {
        self.map.col_field[c]
    }

    /// Header names by field, as diagnostics name them.
    pub(crate) fn field_names(&self) -> &[Arc<str>] {
        &self.map.names
    }

    /// Reads `v`, a cell of date column `c` (of `shape`) on `line` that
    /// does not have its shape: notes what it shows of the column's order
    /// in `emit`, and gives the fix the column's order allows and what to
    /// add to the message where that order decided it. Only the plain date
    /// shapes are read.
    fn read_date(
        &self,
        shape: DateShape,
        c: ColumnId,
        v: &str,
        line: u64,
        emit: &mut Emitter<'_>,
    ) -> (Option<(String, Applicability)>, String) {
        if !matches!(shape, DateShape::Mdy | DateShape::Ymd) {
            return (None, String::new());
        }
        let Some(read) = fixes::DateReadings::of(v) else {
            return (None, String::new());
        };
        let kind = read.kind();
        if let Some(k) = kind {
            emit.dates.note(c, k, line, v);
        }
        let known = self.date_orders.as_deref().and_then(|o| o.column(c));
        let order = known.map_or(Order::Unknown, |e| e.order());
        // Cells that read as two dates are read by this one's order: those
        // that fail the shape, and in an `MM/DD/YYYY` column the valid ones
        // too (`day-first-date`; not counted, so presumed).
        let valid_read = shape == DateShape::Mdy
            && self
                .date_orders
                .as_deref()
                .is_some_and(|o| o.reads_valid(c).is_some());
        let needed = known.is_some_and(|e| {
            (e.ambiguous.count > 0 || valid_read) && matches!(order, Order::DayFirst | Order::Mixed)
        });
        let name = &self.table.columns[c].name;
        let at = |s: &super::dates::Seen| format!("line {}: {}", s.line, quote(&s.value));
        let why = match (kind, known) {
            (Some(Kind::MonthFirst | Kind::DayFirst), Some(e)) if needed => format!(
                "; {} by the order this one shows, so its fix {}",
                if e.ambiguous.count > 0 {
                    format!(
                        "other cells of `{name}` read as two dates (line {}) and are read",
                        e.ambiguous.line
                    )
                } else {
                    // Valid cells are not counted (see `DateOrders::settle`).
                    format!("valid cells of `{name}` that read as two dates (both numbers 12 or less), if it has any, are read")
                },
                if order == Order::Mixed {
                    "is left to a person (the column is written both ways)"
                } else {
                    "is unsafe, made with theirs"
                }
            ),
            (Some(Kind::Ambiguous), Some(e)) => {
                match order {
                    Order::DayFirst => format!(
                        "; other cells of `{name}` are day-first ({})",
                        at(&e.day_first)
                    ),
                    Order::Mixed => format!(
                        "; it reads as two dates, and cells of `{name}` are written both month first ({}) and day first ({})",
                        at(&e.month_first),
                        at(&e.day_first)
                    ),
                    Order::Unknown | Order::MonthFirst => String::new(),
                }
            }
            _ => String::new(),
        };
        let mut fix = read.fix(shape, v, order, needed);
        let mut why = why;
        // `2024-03-07` written `03/07/2024` in a column whose valid cells
        // that read as two dates are read day first: the fixed file would
        // hold a date `day-first-date` (and whoever reads the column) takes
        // for 3 July. Made with their fixes, which write the column month
        // first throughout.
        if let (Some((text, a)), Some(e)) = (
            &mut fix,
            self.date_orders.as_deref().and_then(|o| o.reads_valid(c)),
        ) {
            if shape == DateShape::Mdy && *a == Applicability::Safe && two_way(text).is_some() {
                *a = Applicability::Unsafe;
                why.push_str(&format!(
                    "; written {}, it would read as two dates in a column whose cells are {}, so its fix is unsafe",
                    quote(text),
                    super::dates::shown(e)
                ));
            }
        }
        (fix, why)
    }

    /// A valid `MM/DD/YYYY` cell `v` of column `c`, whose valid cells that
    /// read as two dates are read by what `e` shows (`day-first-date`): the
    /// message, help and (in a day-first column) the day-first reading to
    /// write, if `v` reads as two dates.
    fn day_first_date(
        &self,
        c: ColumnId,
        v: &str,
        e: &super::dates::Evidence,
    ) -> Option<(String, String, Option<String>)> {
        let (as_read, meant) = two_way(v)?;
        let long = |d: chrono::NaiveDate| d.format("%B %-d, %Y").to_string();
        let swapped = meant.format("%m/%d/%Y").to_string();
        let name = &self.table.columns[c].name;
        let shown = super::dates::shown(e);
        Some(if e.order() == Order::DayFirst {
            (
                format!(
                    "{} is read month first, as {}, but other cells of `{name}` are {shown}: it most likely means {}",
                    quote(v),
                    long(as_read),
                    long(meant)
                ),
                format!(
                    "if it means {}, write `{swapped}`; if it means {}, leave it, and write the day-first cells month first",
                    long(meant),
                    long(as_read)
                ),
                Some(swapped),
            )
        } else {
            (
                format!(
                    "{} is read month first, as {}, but cells of `{name}` are {shown}: it may mean {}",
                    quote(v),
                    long(as_read),
                    long(meant)
                ),
                format!(
                    "find out which order the column's source writes: write `{swapped}` if it means {}; leave it if it means {}",
                    long(meant),
                    long(as_read)
                ),
                None,
            )
        })
    }

    /// Reads `v`, a cell of date column `c` (of `shape`) on `line` that a
    /// spreadsheet wrote (`s`), as `read_date` reads other dates: notes
    /// what it shows of the column's order, and reads a value both orders
    /// read as two dates as the column is written (day first in a
    /// day-first column, not at all in one written both ways). Gives the
    /// message, the help and the value to write.
    fn read_sheet_date(
        &self,
        shape: DateShape,
        c: ColumnId,
        v: &str,
        line: u64,
        s: sheet::SheetDate,
        emit: &mut Emitter<'_>,
    ) -> (String, String, Option<String>) {
        if let Some(k) = s.kind {
            emit.dates.note(c, k, line, v);
        }
        let known = self.date_orders.as_deref().and_then(|o| o.column(c));
        let order = known.map_or(Order::Unknown, |e| e.order());
        let name = &self.table.columns[c].name;
        let keep =
            "format the column as text in the spreadsheet before exporting, so that it keeps dates as typed";
        let (meant, note) = match (s.kind, order, known, s.day_first) {
            (Some(Kind::Ambiguous), Order::DayFirst, Some(e), Some((day_first, offset))) => {
                let why = format!(
                    "read day first, as other cells of `{name}` are (line {}: {}){}",
                    e.day_first.line,
                    quote(&e.day_first.value),
                    offset.map(|o| format!("; {o}")).unwrap_or_default()
                );
                (day_first, Some(why))
            }
            (Some(Kind::Ambiguous), Order::Mixed, Some(e), Some((day_first, _))) => {
                return (
                    format!(
                        "{} is {}, not {}; it reads as two dates, `{}` or `{day_first}`, and cells of `{name}` are {}",
                        quote(v),
                        s.what,
                        shape.describe(),
                        s.meant,
                        super::dates::shown(e)
                    ),
                    format!(
                        "write the date it stands for as {}; {keep}",
                        shape.describe()
                    ),
                    None,
                );
            }
            // A cell only one order reads is what the column's cells that
            // read as two dates are read by: in a column written both ways,
            // fixed alone it would leave the fixed file without it (as
            // `read_date` does for `invalid-date`).
            (Some(Kind::MonthFirst | Kind::DayFirst), Order::Mixed, Some(e), _)
                if e.ambiguous.count > 0 || shape == DateShape::Mdy =>
            {
                return (
                    format!(
                        "{} is {}, not {}; it most likely stands for `{}`, but other cells of `{name}` read as two dates and are read by the order this one shows, so its fix is left to a person (the column is {})",
                        quote(v),
                        s.what,
                        shape.describe(),
                        s.meant,
                        super::dates::shown(e)
                    ),
                    format!("write `{}`; {keep}", s.meant),
                    None,
                );
            }
            _ => (s.meant, s.note.map(str::to_owned)),
        };
        let note = note.map(|n| format!(" ({n})")).unwrap_or_default();
        (
            format!(
                "{} is {}, not {}; it most likely stands for `{meant}`",
                quote(v),
                s.what,
                shape.describe(),
            ),
            format!("write `{meant}`{note}; {keep}"),
            Some(meant),
        )
    }

    fn check_cell(
        &self,
        data: &[u8],
        f: &FieldSpan,
        i: usize,
        c: ColumnId,
        cells: &Cells<'_>,
        emit: &mut Emitter<'_>,
    ) {
        let col = &self.table.columns[c];
        let span = f.start..f.end;
        let at = |emit: &mut Emitter<'_>,
                  rule: &'static rules::Rule,
                  sev: Option<Severity>,
                  msg: String,
                  help: String| {
            emit.in_field(rule, sev, span.clone(), f, self.name(i), msg, Some(help))
        };
        if !cells.is_filled(i) {
            match col.requirement {
                Requirement::Required => at(
                    emit,
                    &rules::EMPTY_REQUIRED_CELL,
                    None,
                    format!("`{}` is required but empty", col.name),
                    fill_help(col),
                ),
                // Tables never mark cells `recommended` (see Table::parse).
                Requirement::Recommended | Requirement::Optional => {}
            }
            return;
        }
        // A spreadsheet's error value takes the place of the shape's own
        // finding (free text is looked at in `check_text_cells`).
        if col.shape != Shape::Text {
            let whole = match col.shape {
                Shape::Json(_) => cells.raw(i, f),
                _ => cells.value(i),
            };
            if let Some(v) = whole.map(shapes::trim).filter(|v| sheet::is_error_value(v)) {
                self.report_error_value(f, i, &col.name, v, emit);
                return;
            }
        }
        if let Shape::Json(kind) = col.shape {
            // Parsed as it stands in the file, `""` escapes and all: no
            // unescaped copy, and its offsets are the file's.
            if let Some(raw) = cells.raw(i, f) {
                self.check_json(f, i, raw, kind, col.severity, cells, emit);
            }
            return;
        }
        if col.shape == Shape::Text {
            return;
        }
        let Some(value) = cells.value(i) else {
            return;
        };
        let sev = col.severity;
        let trimmed = shapes::trim(value);
        // Where `trimmed` starts within the unescaped value.
        let lead = if trimmed.len() == value.len() {
            0
        } else {
            value.len() - value.trim_start().len()
        };
        // JSON (checked above) ignores whitespace around values; every other
        // shape is read as the exact text.
        let parts = fixes::CellParts::of(f, value, trimmed);
        if trimmed.len() != value.len() {
            // Plain spaces are quoted as they stand; anything else is
            // named, since a TAB or a NBSP looks like a space, or like
            // nothing.
            let around = describe_around(value, trimmed);
            let (message, help) = if around == "spaces around it" {
                (
                    format!("{} has spaces around it", quote(value)),
                    format!("write {} without the spaces", quote(trimmed)),
                )
            } else {
                (
                    format!("{} has {around}", quote(trimmed)),
                    format!("write {} without them", quote(trimmed)),
                )
            };
            at(emit, &rules::SURROUNDING_WHITESPACE, None, message, help);
            emit.fix_last(
                Applicability::Safe,
                "remove the spaces around the value".into(),
                parts.trim_edits(),
            );
        }
        // The corrected value replaces the value between the spaces, so it
        // does not overlap the fix above.
        let fix_value = |emit: &mut Emitter<'_>, new: &str, applicability: Applicability| {
            if let Some(edit) = parts.replace(new) {
                emit.fix_last(applicability, format!("write {}", quote(new)), vec![edit]);
            }
        };
        let v = trimmed;
        match &col.shape {
            Shape::Text => {}
            Shape::Email => {
                if !shapes::is_email(v) {
                    let invisible = name_invisible(v);
                    let (message, help) = if invisible.is_empty() {
                        (
                            format!("{} is not an e-mail address", quote(v)),
                            format!(
                                "write `{}` as a full address, like name@example.com",
                                col.name
                            ),
                        )
                    } else {
                        (
                            format!(
                                "{} is not an e-mail address: it holds {invisible}",
                                quote_bare(v)
                            ),
                            "retype the address: the invisible character makes it another address, which no mail server knows".into(),
                        )
                    };
                    at(emit, &rules::INVALID_EMAIL, sev, message, help);
                }
            }
            Shape::Date(d) => match shapes::check_date(*d, v) {
                Ok(()) => {
                    if *d == DateShape::Mdy {
                        month_first_evidence(c, v.as_bytes(), f.line, emit);
                        let read = self.date_orders.as_deref().and_then(|o| o.reads_valid(c));
                        if let Some(e) = read.filter(|_| !emit.written.contains(&i)) {
                            if let Some((message, help, fix)) = self.day_first_date(c, v, e) {
                                at(emit, &rules::DAY_FIRST_DATE, None, message, help);
                                if let Some(new) = fix {
                                    // Likely, not certain: a person decides.
                                    fix_value(emit, &new, Applicability::Unsafe);
                                }
                            }
                        }
                    }
                }
                Err(DateError::Shape) => match sheet::spreadsheet_date(*d, v) {
                    Some(s) => {
                        let (message, help, meant) = self.read_sheet_date(*d, c, v, f.line, s, emit);
                        at(emit, &rules::SPREADSHEET_DATE, sev, message, help);
                        if let Some(meant) = meant {
                            // Most likely, not surely: a person should look.
                            fix_value(emit, &meant, Applicability::Unsafe);
                        }
                    }
                    None => {
                        let (fix, why) = self.read_date(*d, c, v, f.line, emit);
                        at(
                            emit,
                            &rules::INVALID_DATE,
                            sev,
                            format!("{} is not {}{why}", quote(v), d.describe()),
                            format!("write `{}` as {}", col.name, d.describe()),
                        );
                        if let Some((new, applicability)) = fix {
                            fix_value(emit, &new, applicability);
                        }
                    }
                },
                Err(DateError::NotReal(why)) => {
                    // `25/03/2024` in `MM/DD/YYYY`: day first, zeros and all.
                    let (fix, order) = self.read_date(*d, c, v, f.line, emit);
                    at(
                        emit,
                        &rules::INVALID_DATE,
                        sev,
                        format!("{}: {why}{order}", quote(v)),
                        format!("write a real date, as {}", d.describe()),
                    );
                    if let Some((new, applicability)) = fix {
                        fix_value(emit, &new, applicability);
                    }
                }
            },
            Shape::Bool(spelling) => {
                let (t, fa) = spelling.words();
                if v == t || v == fa {
                } else if let Some(right) = shapes::bool_case_variant(v, *spelling) {
                    at(
                        emit,
                        &rules::BOOLEAN_CASE,
                        None,
                        format!(
                            "{} is spelt `{right}` in the {} format",
                            quote(v),
                            self.table.name
                        ),
                        format!("write `{right}`"),
                    );
                    fix_value(emit, right, Applicability::Safe);
                } else {
                    at(
                        emit,
                        &rules::INVALID_BOOLEAN,
                        sev,
                        format!("{} is not `{t}` or `{fa}`", quote(v)),
                        format!("write `{t}` or `{fa}`"),
                    );
                }
            }
            Shape::Integer { min, max } => match shapes::parse_integer(v) {
                Err(shapes::IntError::NotInteger) => at(
                    emit,
                    &rules::INVALID_INTEGER,
                    sev,
                    format!("{} is not an integer", quote(v)),
                    format!("write `{}` as an {}", col.name, col.shape.describe()),
                ),
                Err(shapes::IntError::TooLarge) => at(
                    emit,
                    &rules::INVALID_INTEGER,
                    col.range_severity.or(sev),
                    format!("{} is out of range for `{}`", quote(v), col.name),
                    format!("write an {}", col.shape.describe()),
                ),
                Ok(n) if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) => at(
                    emit,
                    &rules::INVALID_INTEGER,
                    col.range_severity.or(sev),
                    format!("{n} is out of range for `{}`", col.name),
                    format!("write an {}", col.shape.describe()),
                ),
                Ok(_) => {}
            },
            Shape::Enum(values) => {
                if !values.iter().any(|x| x == v) {
                    at(
                        emit,
                        &rules::INVALID_ENUM,
                        sev,
                        format!("{} is not a value of `{}`", quote(v), col.name),
                        enum_help(v, values),
                    );
                    if let Some((new, applicability)) = enum_fix(v, values) {
                        fix_value(emit, new, applicability);
                    }
                }
            }
            Shape::List { values, braces } => {
                // Nearly every list cell is clean, and `check_list` costs
                // ~60 instructions of set-up before it looks at a byte.
                if !list_is_clean(v.as_bytes(), values.as_deref(), *braces) {
                    self.check_list(data, f, i, col, v, lead, values.as_deref(), *braces, emit);
                }
            }
            Shape::IntegrationRef => {
                if let Some(why) = shapes::integration_ref_problem(v) {
                    at(
                        emit,
                        &rules::INVALID_INTEGRATION_REF,
                        sev,
                        format!("{} is not shaped `<app>/<integration_id>`: {why}", quote(v)),
                        "write the app and the integration ID separated by one `/`, e.g. `okta/0b6c1e2a`".into(),
                    );
                }
            }
            Shape::Brn => {
                if let Some(why) = shapes::brn_problem(v) {
                    at(
                        emit,
                        &rules::INVALID_BRN,
                        sev,
                        format!("{} is not a resource name: {why}", quote(v)),
                        "keep the BRN exactly as the download wrote it".into(),
                    );
                }
            }
            Shape::Url => match shapes::url_problem(v) {
                None => {}
                Some(shapes::UrlProblem::NotUrl) => at(
                    emit,
                    &rules::INVALID_URL,
                    sev,
                    format!("{} is not a URL", quote(v)),
                    "write an absolute URL, e.g. `https://playbooks.example.com/run`".into(),
                ),
                // The spec says "URL", not which scheme: another scheme is
                // a URL, and only probably not what the platform calls
                // (clause 4 of the severity principle, rules/README.md).
                Some(shapes::UrlProblem::NotHttp(n)) => at(
                    emit,
                    &rules::INVALID_URL,
                    Some(Severity::Warning),
                    format!("{} has the scheme `{}`, not http(s)", quote(v), &v[..n]),
                    "the platform most likely calls the playbook over HTTP: write an `https://` URL unless you know it takes this scheme".into(),
                ),
            },
            // Checked above, on the raw cell.
            Shape::Json(_) => {}
        }
    }

    /// File span of bytes `[from, to)` of a cell's unescaped value.
    fn inner_span(data: &[u8], f: &FieldSpan, from: usize, to: usize) -> std::ops::Range<usize> {
        let (a, b) = f.content();
        let raw = &data[a..b];
        a + raw_offset(raw, f.escapes, from)..a + raw_offset(raw, f.escapes, to)
    }

    #[allow(clippy::too_many_arguments)]
    fn check_list(
        &self,
        data: &[u8],
        f: &FieldSpan,
        i: usize,
        col: &crate::schema::Column,
        v: &str,
        lead: usize,
        values: Option<&[String]>,
        braces: Braces,
        emit: &mut Emitter<'_>,
    ) {
        let sev = col.severity;
        let part = |emit: &mut Emitter<'_>,
                    rule: &'static rules::Rule,
                    sev: Option<Severity>,
                    from: usize,
                    to: usize,
                    msg: String,
                    help: String| {
            let span = Self::inner_span(data, f, lead + from, lead + to);
            emit.in_field(rule, sev, span, f, self.name(i), msg, Some(help));
        };
        if v.starts_with('{') != v.ends_with('}') {
            part(
                emit,
                &rules::INVALID_LIST,
                sev,
                0,
                v.len(),
                format!("{} has an unbalanced brace", quote(v)),
                "write the list inside `{...}` or without braces".into(),
            );
            return;
        }
        let has_braces = v.starts_with('{') && v.len() >= 2;
        let (inner, offset) = if has_braces {
            (&v[1..v.len() - 1], 1)
        } else {
            (v, 0)
        };
        match (braces, has_braces) {
            (Braces::Required, false) => part(
                emit,
                &rules::INVALID_LIST,
                sev,
                0,
                v.len(),
                format!("{} must be written inside braces", quote(v)),
                format!("write `{{{v}}}`"),
            ),
            (Braces::Forbidden, true) => part(
                emit,
                &rules::INVALID_LIST,
                sev,
                0,
                v.len(),
                format!("{} is written inside braces", quote(v)),
                format!("write `{inner}`"),
            ),
            _ => {}
        }
        if has_braces && inner.trim().is_empty() {
            part(
                emit,
                &rules::INVALID_LIST,
                sev,
                0,
                v.len(),
                format!("{} holds no elements", quote(v)),
                "list at least one element inside the braces, or leave the cell empty".into(),
            );
            return;
        }
        let mut seen = Seen::default();
        let mut pos = offset;
        let mut reported = 0usize;
        let mut hidden = 0usize;
        let mut part = |emit: &mut Emitter<'_>,
                        rule: &'static rules::Rule,
                        sev: Option<Severity>,
                        from: usize,
                        to: usize,
                        msg: String,
                        help: String| {
            if reported < MAX_LIST_FINDINGS {
                reported += 1;
                part(emit, rule, sev, from, to, msg, help);
            } else {
                hidden += 1;
            }
        };
        for (k, raw_el) in comma_separated(inner).enumerate() {
            let el = shapes::trim(raw_el);
            // `trim` returns a part of `raw_el`, so where it starts is where
            // it lies in memory: no second, Unicode-aware `trim_start` pass.
            // An empty element keeps the old reckoning (a blank `raw_el`
            // trims to its start, and `trim_start` to its end).
            let el_start = if el.len() == raw_el.len() {
                pos
            } else if el.is_empty() {
                pos + (raw_el.len() - raw_el.trim_start().len())
            } else {
                pos + (el.as_ptr() as usize - raw_el.as_ptr() as usize)
            };
            let el_end = el_start + el.len();
            pos += raw_el.len() + 1;
            if el.is_empty() {
                part(
                    emit,
                    &rules::INVALID_LIST,
                    sev,
                    el_start,
                    el_start,
                    format!("element {} of `{}` is empty", k + 1, col.name),
                    "remove the extra comma".into(),
                );
                continue;
            }
            if !seen.insert(el) {
                part(
                    emit,
                    &rules::INVALID_LIST,
                    col.repeat_severity.or(sev),
                    el_start,
                    el_end,
                    format!("{} appears twice in `{}`", quote(el), col.name),
                    "remove the repeated element".into(),
                );
                continue;
            }
            if let Some(values) = values {
                if !values.iter().any(|x| x == el) {
                    let before = emit.diags.len();
                    part(
                        emit,
                        &rules::INVALID_ENUM,
                        col.values_severity.or(sev),
                        el_start,
                        el_end,
                        format!("{} is not a value of `{}`", quote(el), col.name),
                        enum_help(el, values),
                    );
                    // Past the cap of list findings none was made to fix.
                    let made = emit.diags.len() > before;
                    // A value with a comma would split the element.
                    if let Some((new, applicability)) =
                        enum_fix(el, values).filter(|(n, _)| made && !n.contains([',', '"']))
                    {
                        let span = Self::inner_span(data, f, lead + el_start, lead + el_end);
                        emit.fix_last(
                            applicability,
                            format!("write {}", quote(new)),
                            vec![(span, new.to_owned())],
                        );
                    }
                }
            }
        }
        if hidden > 0 {
            emit.in_field(
                &rules::INVALID_LIST,
                sev,
                f.start..f.end,
                f,
                self.name(i),
                format!("`{}` has {hidden} more list problems, not shown", col.name),
                Some("fix the ones above, then check again".into()),
            );
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn check_json(
        &self,
        f: &FieldSpan,
        i: usize,
        raw: &str,
        kind: JsonKind,
        sev: Option<Severity>,
        cells: &Cells<'_>,
        emit: &mut Emitter<'_>,
    ) {
        let c = self.map.field_col[i].expect("mapped");
        if !self.json_is_clean(raw, f.escapes, kind, c, cells) {
            self.report_json(f, i, c, raw, kind, sev, cells, emit);
        }
    }

    /// The findings of JSON cell `raw` of column `c`, from a parse and a
    /// walk of every grammar that applies.
    // Out of line, and rare: the record loop, with the usual cell checks
    // inlined, stays small.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn report_json(
        &self,
        f: &FieldSpan,
        i: usize,
        c: ColumnId,
        raw: &str,
        kind: JsonKind,
        sev: Option<Severity>,
        cells: &Cells<'_>,
        emit: &mut Emitter<'_>,
    ) {
        let col = &self.table.columns[c];
        let mut scratch = cells.scratch.borrow_mut();
        let JsonScratch { nodes, findings } = &mut *scratch;
        // Offsets in `raw` are offsets in the file from here.
        let base = f.content().0;
        let doc = match Doc::parse_as(raw, f.escapes, std::mem::take(nodes)) {
            Ok(doc) => doc,
            Err((e, storage)) => {
                *nodes = storage;
                let at = e.offset.min(raw.len());
                // A quote is two bytes in the file when the cell escapes it.
                let width = if f.escapes && raw.as_bytes().get(at) == Some(&b'"') {
                    2
                } else {
                    1
                };
                let span = base + at..base + (at + width).min(raw.len());
                emit.in_field(
                    &rules::INVALID_JSON,
                    sev,
                    span,
                    f,
                    self.name(i),
                    format!("`{}` is not valid JSON: {}", col.name, e.message),
                    Some(
                        "write JSON with double quotes; in CSV, quote the whole cell and double every quote inside it: \"{\"\"key\"\":\"\"value\"\"}\"".into(),
                    ),
                );
                let text = if f.escapes {
                    std::borrow::Cow::Owned(raw.replace("\"\"", "\""))
                } else {
                    std::borrow::Cow::Borrowed(raw)
                };
                if let Some(fixed) = fixes::json(&text, kind) {
                    emit.fix_last(
                        Applicability::Unsafe,
                        "rewrite the cell as the JSON it most likely means".into(),
                        vec![(f.start..f.end, fixes::csv_field(&fixed))],
                    );
                }
                return;
            }
        };
        let root = doc.kind(doc.root());
        let want = match kind {
            JsonKind::Any => None,
            JsonKind::Object => (root != json::Kind::Object).then_some(("an object", "{...}")),
            JsonKind::Array => (root != json::Kind::Array).then_some(("an array", "[...]")),
        };
        if let Some((want, example)) = want {
            let span = doc.node(doc.root()).span();
            emit.in_field(
                &rules::JSON_WRONG_TYPE,
                sev,
                base + span.start..base + span.end,
                f,
                self.name(i),
                format!(
                    "`{}` must be a JSON {}, not {}",
                    col.name,
                    &want[want.find(' ').map_or(0, |p| p + 1)..],
                    root.name()
                ),
                Some(format!("write {want}: {example}")),
            );
        } else {
            findings.clear();
            for rule in self.table.json.iter().filter(|r| r.column == c) {
                if !rule.when.iter().all(|w| self.holds(cells, w)) {
                    continue;
                }
                match &rule.grammar {
                    Grammar::Schema(spec) => grammar::check(&doc, &col.name, spec, findings),
                    Grammar::Filter { type_column } => {
                        if let Ok(g) = crate::schema::json::grammars() {
                            let ty = self.value(cells, *type_column);
                            filter::check(&doc, &col.name, ty, &g.filter, findings);
                        }
                    }
                }
            }
            let last = findings.list.len().saturating_sub(1);
            for (n, x) in findings.list.drain(..).enumerate() {
                let mut message = x.message;
                if n == last && findings.hidden > 0 {
                    message.push_str(&format!(
                        " (and {} more problems in this cell, not shown)",
                        findings.hidden
                    ));
                }
                emit.in_field(
                    x.rule,
                    x.severity,
                    base + x.span.start..base + x.span.end,
                    f,
                    self.name(i),
                    message,
                    x.help,
                );
            }
        }
        *nodes = doc.into_nodes();
    }

    /// Whether the JSON cell `raw` of column `c` is one on which the full
    /// check below would report nothing, as [`grammar::clean`] settles in
    /// one pass; `false` when it cannot tell, and the full check runs.
    fn json_is_clean(
        &self,
        raw: &str,
        doubled: bool,
        kind: JsonKind,
        c: ColumnId,
        cells: &Cells<'_>,
    ) -> bool {
        let root_fits = |root: json::Kind| match kind {
            JsonKind::Any => true,
            JsonKind::Object => root == json::Kind::Object,
            JsonKind::Array => root == json::Kind::Array,
        };
        let mut checked = false;
        for rule in self.table.json.iter().filter(|r| r.column == c) {
            if !rule.when.iter().all(|w| self.holds(cells, w)) {
                continue;
            }
            // The filter grammar has no quick check.
            let Grammar::Schema(spec) = &rule.grammar else {
                return false;
            };
            if !grammar::clean(raw, doubled, Some(spec)).is_some_and(root_fits) {
                return false;
            }
            checked = true;
        }
        checked || grammar::clean(raw, doubled, None).is_some_and(root_fits)
    }

    /// Whether a row condition holds.
    fn holds(&self, cells: &Cells<'_>, cond: &Condition) -> bool {
        match cond {
            Condition::Always => true,
            Condition::Present(c) => self.filled(cells, *c),
            Condition::Empty(c) => !self.filled(cells, *c),
            Condition::In(c, vals) => self
                .value(cells, *c)
                .is_some_and(|v| vals.iter().any(|x| x == v)),
        }
    }

    fn filled(&self, cells: &Cells<'_>, c: ColumnId) -> bool {
        self.map.col_field[c].is_some_and(|i| cells.is_filled(i))
    }

    fn value<'c>(&self, cells: &'c Cells<'_>, c: ColumnId) -> Option<&'c str> {
        let i = self.map.col_field[c]?;
        cells.value(i).map(str::trim)
    }

    // Out of line: `check_record` calls it only for a row that may fail a
    // requirement, or a format with equal or grouped columns.
    #[inline(never)]
    fn check_conditions(&self, rec: &Record, cells: &Cells<'_>, emit: &mut Emitter<'_>) {
        let t = self.table;
        let cname = |c: ColumnId| t.columns[c].name.as_str();
        let filled = cells.filled_cols;
        // Nearly every row meets every requirement: one pass over the masks
        // alone, without walking the requirements beside them.
        let requires = if self.all_met(filled) {
            &t.requires[..0]
        } else {
            &t.requires[..]
        };
        for (r, quick) in requires.iter().zip(&self.quick) {
            if quick.met(filled) {
                continue;
            }
            // Most rows pass: decide first, and only format the reason
            // (which allocates) for a row that has a finding.
            let holds = match &r.when {
                Condition::Always => true,
                Condition::Present(c) => self.filled(cells, *c),
                Condition::Empty(c) => !self.filled(cells, *c),
                Condition::In(c, vals) => self
                    .value(cells, *c)
                    .is_some_and(|v| vals.iter().any(|x| x == v)),
            };
            if !holds {
                continue;
            }
            let because_text = || match &r.when {
                Condition::Always => String::new(),
                Condition::Present(c) => format!(" although `{}` is filled", cname(*c)),
                Condition::Empty(c) => format!(" although `{}` is empty", cname(*c)),
                Condition::In(c, _) => format!(
                    " although `{}` is `{}`",
                    cname(*c),
                    self.value(cells, *c).unwrap_or_default()
                ),
            };
            if !r.any.is_empty() {
                if !r.any.iter().any(|c| self.filled(cells, *c)) {
                    let list = column_list(t, &r.any);
                    emit.row(
                        &rules::MISSING_ONE_OF,
                        r.severity,
                        rec,
                        format!("none of {list} is filled{}: {}", because_text(), r.reason),
                        Some(format!("fill at least one of {list}")),
                    );
                }
                continue;
            }
            let mut absent = Vec::new();
            for &c in &r.all {
                if self.filled(cells, c) {
                    continue;
                }
                match self.map.col_field[c] {
                    Some(i) => {
                        let f = &rec.fields[i];
                        emit.in_field(
                            &rules::MISSING_DEPENDENT_VALUE,
                            r.severity,
                            f.start..f.end,
                            f,
                            self.name(i),
                            format!("`{}` is empty{}: {}", cname(c), because_text(), r.reason),
                            Some(format!("fill in `{}`", cname(c))),
                        );
                    }
                    None => absent.push(format!("`{}`", cname(c))),
                }
            }
            if !absent.is_empty() {
                let list = absent.join(", ");
                emit.row_once(
                    &rules::MISSING_DEPENDENT_VALUE,
                    r.severity,
                    rec,
                    format!(
                        "this row needs {list}{}, but the header has no such column: {}",
                        because_text(),
                        r.reason
                    ),
                    Some(format!(
                        "add {list} to the header and fill them on this row"
                    )),
                );
            }
        }
        for e in &t.equal {
            let (Some(a), Some(b)) = (self.value(cells, e.column), self.value(cells, e.to)) else {
                continue;
            };
            if a.is_empty() || b.is_empty() {
                continue;
            }
            let same = if e.ignore_case {
                a.chars()
                    .flat_map(char::to_lowercase)
                    .eq(b.chars().flat_map(char::to_lowercase))
            } else {
                a == b
            };
            if !same {
                let i = self.map.col_field[e.column].expect("value() found it");
                let f = &rec.fields[i];
                emit.in_field(
                    &rules::MISMATCHED_VALUES,
                    e.severity,
                    f.start..f.end,
                    f,
                    self.name(i),
                    format!(
                        "`{}` is {} but `{}` is {}: {}",
                        cname(e.column),
                        quote(a),
                        cname(e.to),
                        quote(b),
                        e.reason
                    ),
                    Some(format!(
                        "make `{}` equal to `{}`",
                        cname(e.column),
                        cname(e.to)
                    )),
                );
            }
        }
        for g in &t.one_or_all {
            let n = g.columns.iter().filter(|c| self.filled(cells, **c)).count();
            if n > 1 && n < g.columns.len() {
                let list = column_list(t, &g.columns);
                emit.row(
                    &rules::PARTIAL_COLUMN_GROUP,
                    g.severity,
                    rec,
                    format!("{n} of {list} are filled: {}", g.reason),
                    Some(format!("fill exactly one of {list}, or all of them")),
                );
            }
        }
    }
}

fn fill_help(col: &crate::schema::Column) -> String {
    if col.shape == Shape::Text {
        format!("fill in `{}`", col.name)
    } else {
        format!("fill in `{}` with {}", col.name, col.shape.describe())
    }
}

/// `` `A`, `B`, `C` `` for messages.
fn column_list(table: &Table, cols: &[ColumnId]) -> String {
    cols.iter()
        .map(|c| format!("`{}`", table.columns[*c].name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The value `v` most likely means: the one value it matches up to case
/// (safe), or the suggestion of a near miss (unsafe: a guess).
fn enum_fix<'v>(v: &str, values: &'v [String]) -> Option<(&'v str, Applicability)> {
    let mut same_case = values.iter().filter(|x| x.eq_ignore_ascii_case(v));
    match (same_case.next(), same_case.next()) {
        (Some(one), None) => return Some((one, Applicability::Safe)),
        (Some(_), Some(_)) => return None,
        _ => {}
    }
    crate::names::suggest(v, values).map(|s| (s, Applicability::Unsafe))
}

fn enum_help(v: &str, values: &[String]) -> String {
    let list = values
        .iter()
        .map(|x| format!("`{x}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match crate::names::suggest(v, values) {
        Some(s) => format!("did you mean `{s}`? allowed values: {list}"),
        None => format!("allowed values: {list}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::Scanner;

    #[test]
    fn comma_separated_splits_like_split() {
        for s in ["", ",", "a", "a,b", ",a,", "a,,b", " é , ü ,", "a,b,c,d,e"] {
            assert_eq!(
                comma_separated(s).collect::<Vec<_>>(),
                s.split(',').collect::<Vec<_>>(),
                "{s:?}"
            );
        }
    }

    #[test]
    fn comma_bits_mark_the_commas() {
        let mut next = crate::testutil::xorshift(0x9e37_79b9_7f4a_7c15u64);
        for len in 0..=70 {
            for _ in 0..200 {
                let b: Vec<u8> = (0..len)
                    .map(|_| [b',', b'a', b' ', 0xac, 0x2d, 0xff][(next() % 6) as usize])
                    .collect();
                let want = (len <= 64).then(|| {
                    b.iter()
                        .enumerate()
                        .filter(|(_, &c)| c == b',')
                        .fold(0u64, |m, (k, _)| m | 1 << k)
                });
                assert_eq!(comma_bits(&b), want, "{b:?}");
            }
        }
    }

    #[test]
    fn find_comma_agrees_with_position() {
        let mut s = String::new();
        for n in 0..40 {
            for at in 0..=n {
                s.clear();
                for k in 0..n {
                    s.push(if k == at {
                        ','
                    } else {
                        (b'a' + (k % 26) as u8) as char
                    });
                }
                let b = s.as_bytes();
                assert_eq!(find_comma(b), b.iter().position(|&c| c == b','), "{s:?}");
                for from in 0..=n {
                    let b = &b[from..];
                    assert_eq!(find_comma(b), b.iter().position(|&c| c == b','), "{s:?}");
                }
            }
        }
        for s in [
            "é,ü",
            "\u{2c}x",
            ",,,,,,,,,",
            "abcdefgh,",
            "abcdefghi,j",
            "\x2c\u{ac}\u{12c}",
        ] {
            let b = s.as_bytes();
            assert_eq!(find_comma(b), b.iter().position(|&c| c == b','), "{s:?}");
        }
    }

    #[test]
    fn quick_requirements_agree_with_the_conditions() {
        use crate::schema::Requires;
        let req = |when, all: Vec<ColumnId>, any: Vec<ColumnId>| Requires {
            when,
            all,
            any,
            severity: None,
            reason: String::new(),
            trace: Default::default(),
        };
        // Filled columns as bits; the slow rule decided by hand.
        let slow = |r: &Requires, filled: u64| {
            let f = |c: ColumnId| filled >> c & 1 == 1;
            let holds = match &r.when {
                Condition::Always => true,
                Condition::Present(c) => f(*c),
                Condition::Empty(c) => !f(*c),
                Condition::In(..) => unreachable!(),
            };
            !holds
                || if r.any.is_empty() {
                    r.all.iter().all(|c| f(*c))
                } else {
                    r.any.iter().any(|c| f(*c))
                }
        };
        let cases = [
            req(Condition::Always, vec![], vec![0, 1, 2]),
            req(Condition::Present(0), vec![1], vec![]),
            req(Condition::Present(3), vec![0, 1, 2], vec![]),
            req(Condition::Empty(2), vec![0, 1], vec![]),
            req(Condition::Empty(1), vec![], vec![0, 3]),
        ];
        for r in &cases {
            let quick = Quick::compile(r, false);
            assert!(matches!(quick, Quick::Masks { .. }));
            for filled in 0..16u64 {
                assert_eq!(quick.met(filled), slow(r, filled), "{r:?} {filled:04b}");
            }
        }
        let wide = req(Condition::Present(70), vec![1], vec![]);
        assert!(matches!(Quick::compile(&wide, false), Quick::Slow));
        let value = req(Condition::In(0, vec!["x".into()]), vec![1], vec![]);
        assert!(!Quick::compile(&value, false).met(0));
        assert!(Quick::compile(&value, true).met(0));
    }

    #[test]
    fn the_requirement_table_agrees_with_the_masks() {
        use crate::schema::Requires;
        let mut next = crate::testutil::xorshift(0x1405_7b7e_f767_814fu64);
        // Requirement sets over columns `lo..lo + span`: spans that fit the
        // table and spans that do not.
        let mut sets: Vec<Vec<Requires>> = Vec::new();
        for (lo, span) in [
            (0, 1),
            (0, 4),
            (3, 10),
            (7, 12),
            (50, 14),
            (52, 12),
            (0, 30),
        ] {
            for _ in 0..40 {
                let mut col = || (lo + next() % span) as ColumnId;
                let reqs = (0..6)
                    .map(|k| {
                        let c = col();
                        let when = match k % 3 {
                            0 => Condition::Always,
                            1 => Condition::Present(c),
                            _ => Condition::Empty(c),
                        };
                        let cols: Vec<ColumnId> = (0..=k % 3).map(|_| col()).collect();
                        let (all, any) = if k % 2 == 0 {
                            (cols, vec![])
                        } else {
                            (vec![], cols)
                        };
                        Requires {
                            when,
                            all,
                            any,
                            severity: None,
                            reason: String::new(),
                            trace: Default::default(),
                        }
                    })
                    .collect();
                sets.push(reqs);
            }
        }
        let tables = crate::schema::tables().expect("rules/ parses");
        let mut tabled = 0;
        let mut check = |reqs: &[Requires], settled: &dyn Fn(usize) -> bool| {
            let quick: Vec<Quick> = reqs
                .iter()
                .enumerate()
                .map(|(k, r)| Quick::compile(r, settled(k)))
                .collect();
            let Some(table) = QuickTable::new(&quick) else {
                return;
            };
            tabled += 1;
            for _ in 0..2_000 {
                // Dense and sparse rows, and bits outside the table's span.
                let filled = match next() % 3 {
                    0 => next(),
                    1 => next() & next(),
                    _ => !(next() & next()),
                };
                let want = quick.iter().all(|q| q.met(filled));
                assert_eq!(table.all_met(filled), want, "{reqs:?} {filled:#x}");
            }
        };
        for reqs in &sets {
            check(reqs, &|_| false);
            check(reqs, &|k| k % 2 == 0);
        }
        for t in tables {
            check(&t.requires, &|_| false);
        }
        assert!(tabled > 300, "only {tabled} requirement sets were tabled");
    }

    #[test]
    fn quick_cells_draw_no_finding() {
        // Every column of every format with a quick check: values near its
        // example, and values made of pieces that its shapes care about.
        let pieces = [
            "a", "Z", "0", "9", "@", ".", "-", "/", ":", "T", "+", " ", ",", "{", "}", "\"",
            "\u{a0}", "\t", "é", "true", "TRUE", "false", "2024", "12", "31", "02", "29", "00:00",
            "+0000", "Z", "e@x.io",
        ];
        let mut next = crate::testutil::xorshift(0x6a09_e667_f3bc_c909u64);
        let (mut quick_clean, mut full_found) = (0, 0);
        for table in crate::schema::tables().expect("rules/ parses") {
            for col in &table.columns {
                let head = format!("\"{}\"", col.name.replace('"', "\"\""));
                let mut scanner = Scanner::new(head.as_bytes(), 0, 1);
                let mut rec = Record::default();
                assert!(scanner.next_record(&mut rec));
                let header = Header {
                    names: vec![col.name.as_str().into()],
                };
                let mut sink = Emitter::new(head.as_bytes(), false);
                let plan = Plan::new(table, &header, head.as_bytes(), &rec, &mut sink);
                let Some(&(i, c, quick)) = plan.checked.first() else {
                    continue;
                };
                if matches!(quick, QuickCell::Full) {
                    continue;
                }
                let mut values: Vec<String> = Vec::new();
                let seeds: Vec<String> = col
                    .example
                    .iter()
                    .cloned()
                    .chain(match &col.shape {
                        Shape::Enum(v) => v.clone(),
                        Shape::List {
                            values: Some(v), ..
                        } => v.clone(),
                        _ => vec![],
                    })
                    .collect();
                for _ in 0..3_000 {
                    let mut v = if !seeds.is_empty() && next() & 1 == 0 {
                        seeds[(next() % seeds.len() as u64) as usize].clone()
                    } else {
                        (0..next() % 12)
                            .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                            .collect()
                    };
                    // A few edits: a byte changed, dropped or doubled.
                    for _ in 0..next() % 3 {
                        let b = v.as_bytes();
                        if b.is_empty() {
                            break;
                        }
                        let at = (next() % b.len() as u64) as usize;
                        let mut b = b.to_vec();
                        match next() % 3 {
                            0 => b[at] = pieces[(next() % 8) as usize].as_bytes()[0],
                            1 => {
                                b.remove(at);
                            }
                            _ => b.insert(at, b[at]),
                        }
                        v = String::from_utf8(b).unwrap_or_default();
                    }
                    values.push(v);
                }
                for (k, v) in values.iter().enumerate() {
                    // Quoted and not, in a chunk of valid UTF-8, in one
                    // with a bad byte on a later line, and with a bad byte
                    // in the cell.
                    let quote = k % 2 == 0
                        || v.is_empty()
                        || v.bytes().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'));
                    let mut data = if quote {
                        format!("\"{}\"", v.replace('"', "\"\""))
                    } else {
                        v.clone()
                    }
                    .into_bytes();
                    if k % 3 == 0 {
                        data.extend_from_slice(b"\n\xff");
                    }
                    if k % 5 == 1 {
                        data.insert(usize::from(quote), 0xff);
                    }
                    let data = data.as_slice();
                    let mut rec = Record::default();
                    assert!(Scanner::new(data, 0, 1).next_record(&mut rec));
                    let mut cells = Cells::for_chunk(data);
                    let mut emit = Emitter::new(data, false);
                    cells.decode(
                        &rec,
                        &plan.field_bits,
                        &plan.reads_value,
                        &plan.map.names,
                        &mut emit,
                    );
                    let clean = quick.passes(&cells, i);
                    // Only what the cell check finds: decode reports bad
                    // bytes whichever way the cell is checked.
                    emit.diags.clear();
                    plan.check_cell(data, &rec.fields[i], i, c, &cells, &mut emit);
                    if clean {
                        quick_clean += 1;
                        assert!(
                            emit.diags.is_empty(),
                            "{}/{}: {v:?} passed the quick check but drew {:?}",
                            table.name,
                            col.name,
                            emit.diags.iter().map(|d| &d.message).collect::<Vec<_>>()
                        );
                    } else if !emit.diags.is_empty() {
                        full_found += 1;
                    }
                }
            }
        }
        assert!(
            quick_clean > 20_000,
            "only {quick_clean} cells passed quickly"
        );
        assert!(full_found > 20_000, "only {full_found} cells drew findings");
    }

    #[test]
    fn spreadsheet_findings_do_not_depend_on_how_a_record_is_decoded() {
        // The quick flags of `check_record` (a cell's first byte, an
        // identifier's last ones) decide whether text cells are looked at:
        // they must find what the slow way, taken by any record with a
        // `""` escape, finds.
        let table = crate::schema::table("entitlements")
            .expect("rules/ parses")
            .expect("entitlements is a format");
        let head = "User ID,Name,Username";
        let mut hrec = Record::default();
        assert!(Scanner::new(head.as_bytes(), 0, 1).next_record(&mut hrec));
        let header = Header {
            names: head.split(',').map(str::to_owned).collect(),
        };
        let plan = Plan::new(
            table,
            &header,
            head.as_bytes(),
            &hrec,
            &mut Emitter::new(head.as_bytes(), false),
        );
        let pieces = [
            "5", "8", ".", "E", "e", "+", "-", "=", "@", "#", "N/A", "#N/A", "#REF!", "\t", " ",
            "a", "1E+5", "11",
        ];
        let mut next = crate::testutil::xorshift(0x9e37_79b9_7f4a_7c15u64);
        let mut found = 0;
        for _ in 0..20_000 {
            let mut cell = || -> String {
                (0..next() % 6)
                    .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                    .collect()
            };
            let (id, name) = (cell(), cell());
            let q = |v: &str| format!("\"{v}\"");
            let findings = |third: &str| {
                let line = format!("{},{},{third}\n", q(&id), q(&name));
                let data = line.as_bytes();
                let mut rec = Record::default();
                assert!(Scanner::new(data, 0, 1).next_record(&mut rec));
                let mut cells = Cells::for_chunk(data);
                let mut emit = Emitter::new(data, false);
                plan.check_record(data, &rec, &mut cells, &mut emit);
                emit.diags
                    .iter()
                    .filter(|d| matches!(d.rule.code, "C016" | "C017" | "C019"))
                    .filter(|d| d.column.as_deref() != Some("Username"))
                    .map(|d| (d.rule.code, d.span.clone(), d.message.clone()))
                    .collect::<Vec<_>>()
            };
            let quick = findings("ada");
            let slow = findings("\"a\"\"b\"");
            assert_eq!(quick, slow, "{id:?} {name:?}");
            found += usize::from(!quick.is_empty());
        }
        assert!(found > 2_000, "only {found} records drew a finding");
    }

    #[test]
    fn clean_lists_draw_no_finding() {
        // The full check on one unquoted cell of `Platform Roles`, with the
        // values and braces of each case passed in.
        let table = crate::schema::table("employees")
            .expect("rules/ parses")
            .expect("employees is a format");
        let head = b"Platform Roles";
        let span = |len| FieldSpan {
            start: 0,
            end: len,
            line: 1,
            line_start: 0,
            quoted: false,
            escapes: false,
        };
        let rec = Record {
            end: head.len(),
            line: 1,
            fields: vec![span(head.len())],
            ..Record::default()
        };
        let header = Header {
            names: vec!["Platform Roles".into()],
        };
        let plan = Plan::new(table, &header, head, &rec, &mut Emitter::new(head, false));
        let col = &table.columns[plan.map.field_col[0].expect("the header's one column is known")];
        let findings = |v: &str, values: Option<&[String]>, braces: Braces| {
            let mut emit = Emitter::new(v.as_bytes(), false);
            plan.check_list(
                v.as_bytes(),
                &span(v.len()),
                0,
                col,
                v,
                0,
                values,
                braces,
                &mut emit,
            );
            emit.diags.len()
        };
        let pieces = [
            "a", "b", "ab", "a", ",", ",", ",", " ", " ", "\u{a0}", "{", "}", "\t", "\x0b", "é",
            "b ", "{a", "b}",
        ];
        let lists: [Option<Vec<String>>; 3] = [
            None,
            Some(vec!["a".into(), "b".into(), "ab".into()]),
            Some(vec!["a".into(), "é".into()]),
        ];
        let mut next = crate::testutil::xorshift(0x2545_f491_4f6c_dd1du64);
        let mut clean = 0;
        for k in 0..60_000 {
            let v: String = (0..next() % 24)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect();
            // Many cells wrapped in braces, so that both brace cases are common.
            let v = if k % 3 == 0 { format!("{{{v}}}") } else { v };
            for values in &lists {
                for braces in [Braces::Required, Braces::Optional, Braces::Forbidden] {
                    if list_is_clean(v.as_bytes(), values.as_deref(), braces) {
                        assert_eq!(
                            findings(&v, values.as_deref(), braces),
                            0,
                            "{v:?} {values:?} {braces:?}"
                        );
                        clean += 1;
                    }
                }
            }
        }
        assert!(clean > 5_000, "only {clean} clean cells were tried");
        for v in ["a", "a, b", "{a,b}", " ab ,a ", "a,b,ab,c,d,e,f,g"] {
            assert!(list_is_clean(v.as_bytes(), None, Braces::Optional), "{v:?}");
        }
    }
}
