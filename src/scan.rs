//! A CSV tokenizer that keeps every field's raw byte span.
//!
//! Why not `csv::ByteRecord`: its `range()` indexes the *unescaped* data, so
//! a cell after a quoted field with `""` or an embedded newline cannot be
//! mapped back to the file, and it silently accepts broken quoting that the
//! platform rejects. This scanner is RFC 4180 with one deliberate rule: a
//! `"` *always* toggles quoted mode, wherever it appears. That makes the
//! quote state at any byte equal to the parity of the quotes before it in
//! the record, so a parallel reader can cut the file at record boundaries
//! with a plain quote-parity scan ([`RecordBoundaries`]) and agree exactly
//! with this tokenizer on every input, well-formed or not. Quotes in odd
//! places are reported as problems ([`QuoteProblem`]), never guessed around.

use memchr::memchr3;

/// The UTF-8 byte-order mark, which some writers (Excel's "CSV UTF-8") put
/// before the header.
pub(crate) const UTF8_BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

use crate::swar::{equal_bytes, gather};

/// One bit per byte of `block` (at most 64 bytes): set for the delimiter
/// `delim`, `\n`, `"`. The scanner asks for the next structural byte about
/// once per cell, and most cells are a few bytes long, where a search's
/// setup would cost more than the search: one mask serves the next several
/// cells.
#[inline]
pub(crate) fn structural_mask(block: &[u8], delim: u8) -> u64 {
    byte_mask(block, [delim, b'\n', b'"'])
}

/// One bit per byte of `block` (at most 64 bytes): set for the bytes equal
/// to one of `needles`.
#[inline]
fn byte_mask<const N: usize>(block: &[u8], needles: [u8; N]) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if let Ok(block) = <&[u8; 64]>::try_from(block) {
        return sse2_mask(block, needles);
    }
    swar_mask(block, needles)
}

/// [`byte_mask`] of a whole block, 16 bytes per step with SSE2 (every
/// x86_64 CPU has it): a fifth of the instructions of [`swar_mask`].
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
fn sse2_mask<const N: usize>(block: &[u8; 64], needles: [u8; N]) -> u64 {
    use safe_arch::{
        bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i,
        set_splat_i8_m128i, zeroed_m128i,
    };
    let needles = needles.map(|b| set_splat_i8_m128i(i8::from_ne_bytes([b])));
    let mut mask = 0;
    for (k, part) in block.chunks_exact(16).enumerate() {
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(part);
        let v = load_unaligned_m128i(&bytes);
        let hits = needles.iter().fold(zeroed_m128i(), |acc, &n| {
            bitor_m128i(acc, cmp_eq_mask_i8_m128i(v, n))
        });
        // One bit per lane, in the low 16 bits.
        mask |= u64::from(move_mask_i8_m128i(hits) as u16) << (16 * k);
    }
    mask
}

/// One mask per needle, as [`byte_mask`] gives for each alone, from one
/// pass over `block`.
#[inline]
fn byte_masks<const N: usize>(block: &[u8], needles: [u8; N]) -> [u64; N] {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if let Ok(block) = <&[u8; 64]>::try_from(block) {
        return sse2_masks(block, needles);
    }
    needles.map(|n| swar_mask(block, [n]))
}

/// [`byte_masks`] of a whole block with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
fn sse2_masks<const N: usize>(block: &[u8; 64], needles: [u8; N]) -> [u64; N] {
    use safe_arch::{
        cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i, set_splat_i8_m128i,
    };
    let splats = needles.map(|b| set_splat_i8_m128i(i8::from_ne_bytes([b])));
    let mut masks = [0u64; N];
    for (k, part) in block.chunks_exact(16).enumerate() {
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(part);
        let v = load_unaligned_m128i(&bytes);
        for (m, &n) in masks.iter_mut().zip(&splats) {
            *m |= u64::from(move_mask_i8_m128i(cmp_eq_mask_i8_m128i(v, n)) as u16) << (16 * k);
        }
    }
    masks
}

/// [`byte_mask`] eight bytes at a time (SWAR), safe and portable: for a
/// short block, and on CPUs without SSE2.
#[inline]
fn swar_mask<const N: usize>(block: &[u8], needles: [u8; N]) -> u64 {
    let word_mask = |word: u64| gather(needles.iter().fold(0, |m, &n| m | equal_bytes(word, n)));
    let mut mask = 0;
    let mut words = block.chunks_exact(8);
    let mut k = 0;
    for w in &mut words {
        let mut le = [0u8; 8];
        le.copy_from_slice(w);
        mask |= word_mask(u64::from_le_bytes(le)) << k;
        k += 8;
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        // Zero padding matches no needle (no needle is 0).
        let mut le = [0u8; 8];
        for (d, s) in le.iter_mut().zip(rest) {
            *d = *s;
        }
        mask |= word_mask(u64::from_le_bytes(le)) << k;
    }
    mask
}

/// Where a field's bytes are, relative to the scanned buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSpan {
    /// First byte of the field (the opening quote for quoted fields).
    pub start: usize,
    /// One past the last byte, before the delimiter or line ending.
    pub end: usize,
    /// 1-based line of `start`.
    pub(crate) line: u64,
    /// Offset of the first byte of `line`.
    pub(crate) line_start: usize,
    /// The field is one well-formed quoted string: `"..."`.
    pub(crate) quoted: bool,
    /// The quoted content holds `""` escapes.
    pub escapes: bool,
}

impl FieldSpan {
    /// The span of the content: inside the quotes for quoted fields.
    pub fn content(&self) -> (usize, usize) {
        if self.quoted {
            (self.start + 1, self.end - 1)
        } else {
            (self.start, self.end)
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum QuoteProblemKind {
    /// A quoted field runs to the end of the input.
    Unterminated,
    /// A `"` inside a field that did not start with one.
    Bare,
    /// Text between a closing `"` and the next delimiter.
    AfterQuote,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuoteProblem {
    pub(crate) kind: QuoteProblemKind,
    /// Offset of the offending byte.
    pub(crate) at: usize,
    /// Index of the field it is in.
    pub(crate) field: usize,
    pub(crate) line: u64,
    pub line_start: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnding {
    Lf,
    CrLf,
    /// The record ends the input without a line ending.
    Eof,
}

/// One record, reused across calls to avoid allocation per row.
#[derive(Debug, Default)]
pub struct Record {
    pub(crate) start: usize,
    /// End of the record's content, before its line ending.
    pub(crate) end: usize,
    pub(crate) line: u64,
    pub fields: Vec<FieldSpan>,
    pub problems: Vec<QuoteProblem>,
    pub ending: Option<LineEnding>,
    /// Some field has `""` escapes: a record without them has every cell
    /// as it stands in the input.
    pub(crate) escapes: bool,
}

/// The structural bytes of a window not yet read, kept by the record loop
/// in registers: with `next_special`, the window's mask and bounds were
/// reloaded from the scanner after every field, since `fill`, a call, may
/// change them.
#[derive(Clone, Copy)]
struct Ahead {
    window: usize,
    /// Bit `k`: `window + k` is a structural byte not yet read.
    bits: u64,
}

/// Tokenizes a buffer that starts at a record boundary.
pub struct Scanner<'a> {
    buf: &'a [u8],
    pos: usize,
    line: u64,
    line_start: usize,
    /// The structural bytes of `buf[window..window + window_len]`, one bit
    /// per byte ([`structural_mask`]).
    mask: u64,
    window: usize,
    window_len: usize,
    /// The field delimiter: `,` but for a file read in another dialect
    /// (see the dialect sniffing of the checks).
    delim: u8,
}

impl<'a> Scanner<'a> {
    /// `pos` must be at a record boundary; `line` is its 1-based line number,
    /// and `pos` is assumed to start that line.
    pub fn new(buf: &'a [u8], pos: usize, line: u64) -> Self {
        Self::with_delimiter(buf, pos, line, b',')
    }

    /// [`Scanner::new`] for fields separated by `delim` (`;`, tab or `|`)
    /// instead of commas; any other byte reads commas.
    pub(crate) fn with_delimiter(buf: &'a [u8], pos: usize, line: u64, delim: u8) -> Self {
        let delim = match delim {
            b';' | b'\t' | b'|' => delim,
            _ => b',',
        };
        Scanner {
            buf,
            pos,
            line,
            line_start: pos,
            mask: 0,
            window: 0,
            window_len: 0,
            delim,
        }
    }

    /// The first delimiter, `\n` or `"` at or after `from`.
    #[inline(always)]
    fn next_special<const D: u8>(&mut self, mut from: usize) -> Option<usize> {
        loop {
            let off = from.wrapping_sub(self.window);
            if off < self.window_len {
                let m = self.mask >> off;
                if m != 0 {
                    return Some(from + m.trailing_zeros() as usize);
                }
                from = self.window + self.window_len;
            }
            from = self.fill::<D>(from)?;
        }
    }

    /// Loads the window at `from`, or at the next structural byte when the
    /// 64 bytes from `from` hold none (a long cell: memchr jumps it).
    /// Returns the window's start; `None` when no structural byte is left.
    /// Kept out of line so that the common path of `next_special` stays a
    /// few instructions inside its callers.
    #[inline(never)]
    fn fill<const D: u8>(&mut self, from: usize) -> Option<usize> {
        // The usual case, a whole block with a structural byte, apart from
        // the rest: that needs registers, which every call would save and
        // restore.
        if let Some(block) = self.buf.get(from..).and_then(<[u8]>::first_chunk::<64>) {
            let mask = structural_mask(block, D);
            if mask != 0 {
                self.window = from;
                self.window_len = 64;
                self.mask = mask;
                return Some(from);
            }
        }
        self.fill_other::<D>(from)
    }

    /// [`Scanner::fill`] for a short block at the end of the buffer or a
    /// block without structural bytes.
    #[inline(never)]
    fn fill_other<const D: u8>(&mut self, from: usize) -> Option<usize> {
        let buf = self.buf;
        if from >= buf.len() {
            return None;
        }
        let mut start = from;
        let mut end = buf.len().min(from + 64);
        let mut mask = structural_mask(&buf[start..end], D);
        if mask == 0 {
            start = end + memchr3(D, b'\n', b'"', &buf[end..])?;
            end = buf.len().min(start + 64);
            mask = structural_mask(&buf[start..end], D);
        }
        self.window = start;
        self.window_len = end - start;
        self.mask = mask;
        Some(start)
    }

    /// Offset of the next unread byte.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The line number of the next unread byte.
    pub(crate) fn line(&self) -> u64 {
        self.line
    }

    /// Reads the next non-blank record into `rec`. Blank lines (empty, or a
    /// lone `\r\n`) are skipped, as every common reader does. Returns false
    /// at the end of the buffer.
    #[inline]
    pub fn next_record(&mut self, rec: &mut Record) -> bool {
        // One copy of the loop per delimiter, each with its delimiter a
        // constant: the comma's is the loop as it was before dialects, to
        // the instruction.
        match self.delim {
            b';' => self.read_record::<b';'>(rec),
            b'\t' => self.read_record::<b'\t'>(rec),
            b'|' => self.read_record::<b'|'>(rec),
            _ => self.read_record::<b','>(rec),
        }
    }

    /// Kept whole, one function per delimiter: inlined four times into
    /// `next_record` it read the comma's rows in more instructions.
    #[inline(never)]
    fn read_record<const D: u8>(&mut self, rec: &mut Record) -> bool {
        let buf = self.buf;
        // Skip blank lines.
        loop {
            match buf.get(self.pos) {
                None => return false,
                Some(b'\n') => self.newline(self.pos),
                Some(b'\r') if buf.get(self.pos + 1) == Some(&b'\n') => self.newline(self.pos + 1),
                _ => break,
            }
        }
        rec.start = self.pos;
        rec.line = self.line;
        rec.fields.clear();
        rec.problems.clear();
        rec.escapes = false;
        let delim = D;
        loop {
            // The usual field: unquoted and ended by `,` or `\n`. It needs
            // none of `scan_field`'s bookkeeping for quotes, which is most
            // of the cost of a short cell. Its position and line stay in
            // locals: `fill`, a call, would make the compiler store and
            // reload them through `self` for every field.
            let mut p = self.pos;
            let (line, line_start) = (self.line, self.line_start);
            // A field that opens with a quote needs no test of its own: its
            // first structural byte is that quote.
            let mut ahead = self.ahead(p);
            while let Some(at) = self.next_ahead::<D>(&mut ahead, p) {
                let c = buf[at];
                if c == b'"' {
                    // The usual quoted cell (quoted for a comma) in line:
                    // `scan_field` and `scan_quoted`, two calls with their
                    // bookkeeping for escapes, line breaks and problems,
                    // cost several times as much.
                    let Some(close) = self.simple_quoted::<D>(p, at, &mut ahead) else {
                        break;
                    };
                    rec.fields.push(FieldSpan {
                        start: p,
                        end: close + 1,
                        line,
                        line_start,
                        quoted: true,
                        escapes: false,
                    });
                    if buf[close + 1] != delim {
                        self.end_line(rec, close + 1);
                        return true;
                    }
                    // The comma is the next structural byte, in the window
                    // unless the window ends at the closing quote.
                    ahead.bits &= ahead.bits.wrapping_sub(1);
                    p = close + 2;
                    continue;
                }
                rec.fields.push(FieldSpan {
                    start: p,
                    end: at,
                    line,
                    line_start,
                    quoted: false,
                    escapes: false,
                });
                if c != delim {
                    self.end_line(rec, at);
                    return true;
                }
                p = at + 1;
            }
            self.pos = p;
            let (field_end, terminator) = self.scan_field::<D>(rec);
            match terminator {
                Some(d) if d == delim => {
                    self.pos = field_end + 1;
                }
                Some(_) => {
                    self.end_line(rec, field_end);
                    return true;
                }
                None => {
                    rec.end = field_end;
                    rec.ending = Some(LineEnding::Eof);
                    self.pos = field_end;
                    return true;
                }
            }
        }
    }

    /// The structural bytes of the loaded window at or after `from`.
    #[inline(always)]
    fn ahead(&self, from: usize) -> Ahead {
        let off = from.wrapping_sub(self.window);
        Ahead {
            window: self.window,
            bits: if off < self.window_len {
                self.mask >> off << off
            } else {
                0
            },
        }
    }

    /// The next structural byte of `ahead`, whose bits are those at or
    /// after `from`; when they run out, the next window is loaded (and
    /// `ahead` moved to it) from `from` or the end of the window.
    #[inline(always)]
    fn next_ahead<const D: u8>(&mut self, ahead: &mut Ahead, from: usize) -> Option<usize> {
        while ahead.bits == 0 {
            let next = if from.wrapping_sub(self.window) < self.window_len {
                self.window + self.window_len
            } else {
                from
            };
            ahead.window = self.fill::<D>(next)?;
            ahead.bits = self.mask;
        }
        let at = ahead.window + ahead.bits.trailing_zeros() as usize;
        ahead.bits &= ahead.bits - 1;
        Some(at)
    }

    /// The closing quote of the field at `p` when it is a simple quoted
    /// one: opened by the quote at `open` (so `open == p`), closed by the
    /// next quote, with no `""` escape and no line break inside, and a `,`
    /// or `\n` right after. `None` for anything else, which `scan_field`
    /// reads; the scanner's position and line are left as they were.
    /// `ahead` is past `open` on the way in, and past the closing quote
    /// when it returns one.
    #[inline(always)]
    fn simple_quoted<const D: u8>(
        &mut self,
        p: usize,
        open: usize,
        ahead: &mut Ahead,
    ) -> Option<usize> {
        if open != p {
            return None;
        }
        let mut q = open + 1;
        loop {
            let at = self.next_ahead::<D>(ahead, q)?;
            match self.buf[at] {
                c if c == D => q = at + 1,
                b'"' => {
                    return matches!(self.buf.get(at + 1), Some(&c) if c == D || c == b'\n')
                        .then_some(at);
                }
                _ => return None,
            }
        }
    }

    /// Ends `rec` at the `\n` at `at`; a `\r` before it belongs to the
    /// ending, not to the last field.
    #[inline]
    fn end_line(&mut self, rec: &mut Record, at: usize) {
        let crlf = at > rec.start && self.buf[at - 1] == b'\r';
        if crlf {
            if let Some(last) = rec.fields.last_mut() {
                if last.end == at {
                    last.end -= 1;
                }
            }
        }
        rec.end = if crlf { at - 1 } else { at };
        rec.ending = Some(if crlf {
            LineEnding::CrLf
        } else {
            LineEnding::Lf
        });
        self.newline(at);
    }

    fn newline(&mut self, at: usize) {
        self.line += 1;
        self.pos = at + 1;
        self.line_start = at + 1;
    }

    /// Scans one field starting at `self.pos`, pushes it (and any quote
    /// problems) into `rec`, and returns the offset of the byte that ended
    /// it and that byte (`,` or `\n`), or `None` at the end of input.
    fn scan_field<const D: u8>(&mut self, rec: &mut Record) -> (usize, Option<u8>) {
        let buf = self.buf;
        let start = self.pos;
        let index = rec.fields.len();
        let (line, line_start) = (self.line, self.line_start);
        let starts_quoted = buf.get(start) == Some(&b'"');
        let mut well_formed = starts_quoted;
        let mut escapes = false;
        let mut p = start;
        if starts_quoted {
            match self.scan_quoted::<D>(p + 1, rec, index, start) {
                Some((close, esc)) => {
                    escapes = esc;
                    p = close + 1;
                }
                None => {
                    rec.fields.push(FieldSpan {
                        start,
                        end: buf.len(),
                        line,
                        line_start,
                        quoted: false,
                        escapes: false,
                    });
                    return (buf.len(), None);
                }
            }
        }
        // Unquoted text (or text after a closing quote) up to `,` or `\n`.
        // A field gets at most one quote problem: the first explains the rest.
        let mut reported = false;
        loop {
            match self.next_special::<D>(p).map(|at| at - p) {
                None => {
                    if p < buf.len() && starts_quoted && !reported {
                        self.after_quote(rec, index, p);
                    }
                    p = buf.len();
                    break;
                }
                Some(i) => {
                    let at = p + i;
                    if starts_quoted && well_formed {
                        // Right after the closing quote only `,`, `\n` or `\r\n` may follow.
                        let clean = (at == p && buf[at] != b'"')
                            || (at == p + 1 && buf[p] == b'\r' && buf[at] == b'\n');
                        if !clean {
                            self.after_quote(rec, index, p);
                            reported = true;
                        }
                        well_formed = clean;
                    }
                    if buf[at] != b'"' {
                        p = at;
                        break;
                    }
                    if !reported {
                        rec.problems.push(QuoteProblem {
                            kind: QuoteProblemKind::Bare,
                            at,
                            field: index,
                            line: self.line,
                            line_start: self.line_start,
                        });
                        reported = true;
                    }
                    well_formed = false;
                    match self.scan_quoted::<D>(at + 1, rec, index, at) {
                        Some((close, _)) => p = close + 1,
                        None => {
                            p = buf.len();
                            break;
                        }
                    }
                }
            }
        }
        rec.escapes |= escapes && well_formed;
        rec.fields.push(FieldSpan {
            start,
            end: p,
            line,
            line_start,
            quoted: starts_quoted && well_formed,
            escapes: escapes && well_formed,
        });
        (p, buf.get(p).copied())
    }

    fn after_quote(&self, rec: &mut Record, field: usize, at: usize) {
        rec.problems.push(QuoteProblem {
            kind: QuoteProblemKind::AfterQuote,
            at,
            field,
            line: self.line,
            line_start: self.line_start,
        });
    }

    /// Scans quoted content from `p` (just after an opening quote at
    /// `open`). Returns the offset of the closing quote and whether `""`
    /// escapes occurred, or `None` (after recording the problem) when the
    /// input ends first.
    fn scan_quoted<const D: u8>(
        &mut self,
        mut p: usize,
        rec: &mut Record,
        field: usize,
        open: usize,
    ) -> Option<(usize, bool)> {
        let buf = self.buf;
        let (open_line, open_line_start) = (self.line, self.line_start);
        let close = loop {
            let Some(at) = self.next_special::<D>(p) else {
                break None;
            };
            if buf[at] == D {
                p = at + 1;
            } else if buf[at] == b'\n' {
                self.line += 1;
                self.line_start = at + 1;
                p = at + 1;
            } else if buf.get(at + 1) == Some(&b'"') {
                // A field with one escape is most likely JSON, with dozens
                // more and commas between them: `scan_escaped` skips over
                // all of those in bulk rather than one stop each.
                break self.scan_escaped(at).map(|close| (close, true));
            } else {
                break Some((at, false));
            }
        };
        if close.is_none() {
            rec.problems.push(QuoteProblem {
                kind: QuoteProblemKind::Unterminated,
                at: open,
                field,
                line: open_line,
                line_start: open_line_start,
            });
            // Lines were counted to the end, so later positions stay right.
            self.pos = buf.len();
        }
        close
    }

    /// The rest of a quoted field from `from`, a quote with another right
    /// after it. Returns the closing quote, or `None` at the end of input;
    /// counts the newlines passed either way.
    ///
    /// The rule is the pairwise one (`""` is an escape, a lone `"` closes),
    /// applied to whole runs of quotes: a run of even length is all escapes,
    /// and the first of odd length closes the field at its last quote. The
    /// runs of a 64-byte block are told apart with a few bit operations on
    /// its quote mask, so a JSON cell costs a step per block rather than one
    /// per `""` and per comma.
    fn scan_escaped(&mut self, mut from: usize) -> Option<usize> {
        /// The bits at even positions.
        const EVEN: u64 = 0x5555_5555_5555_5555;
        let buf = self.buf;
        while from < buf.len() {
            // Every block starts outside any run, so its runs are whole
            // except one that reaches its last byte.
            let end = buf.len().min(from + 64);
            let [quotes, newlines] = byte_masks(&buf[from..end], [b'"', b'\n']);
            let starts = quotes & !(quotes << 1);
            // Adding a run's first bit carries to the bit just past it; a
            // run that reaches bit 63 carries out and is handled below.
            let past = |starts: u64| quotes.wrapping_add(starts) & !quotes;
            // A run from position `s` of odd length ends just before a
            // position of the other parity.
            let odd_runs_end = (past(starts & EVEN) & !EVEN) | (past(starts & !EVEN) & EVEN);
            if odd_runs_end != 0 {
                let close = odd_runs_end.trailing_zeros() as usize - 1;
                self.count_lines(from, newlines & ((1 << close) - 1));
                return Some(from + close);
            }
            // No newline is at or after the run checked next, if any.
            self.count_lines(from, newlines);
            if quotes >> 63 == 0 {
                from = end;
                continue;
            }
            // A run that reaches the end of the block: it may go on.
            let first = end - quotes.leading_ones() as usize;
            let mut past_run = end;
            while buf.get(past_run) == Some(&b'"') {
                past_run += 1;
            }
            if (past_run - first) % 2 == 1 {
                return Some(past_run - 1);
            }
            from = past_run;
        }
        None
    }

    /// Counts the newlines of a mask of the block at `base`.
    #[inline]
    fn count_lines(&mut self, base: usize, newlines: u64) {
        if newlines != 0 {
            self.line += u64::from(newlines.count_ones());
            self.line_start = base + 64 - newlines.leading_zeros() as usize;
        }
    }
}

/// Finds record boundaries with a quote-parity scan, in agreement with
/// [`Scanner`] on every input. Feed it bytes in order; it remembers the
/// quote state between calls.
#[derive(Debug, Default, Clone)]
pub struct RecordBoundaries {
    in_quotes: bool,
}

impl RecordBoundaries {
    /// Scans `buf` (the continuation of everything scanned before) and
    /// returns the offset just past the last `\n` that ends a record, if any.
    pub fn last_boundary(&mut self, buf: &[u8]) -> Option<usize> {
        // Every quote toggles the state, so the state at any point is the
        // parity of the quotes before it. Counting quotes is a vector loop
        // with no per-quote cost (JSON cells are full of `""`); then the
        // newlines are tried from the end, usually only the last one.
        let odd = |bytes: &[u8]| bytecount::count(bytes, b'"') % 2 == 1;
        let at_end = self.in_quotes ^ odd(buf);
        self.in_quotes = at_end;
        let (mut state, mut hi) = (at_end, buf.len());
        while let Some(nl) = memchr::memrchr(b'\n', &buf[..hi]) {
            // The state at the newline: the state after it, undone by the
            // quotes between it and `hi`.
            state ^= odd(&buf[nl + 1..hi]);
            if !state {
                return Some(nl + 1);
            }
            hi = nl;
        }
        None
    }
}

/// Decodes a well-formed field's content, undoing `""` escapes. Borrowed when
/// there is nothing to undo.
#[inline]
pub fn unescape(content: &str, escapes: bool) -> std::borrow::Cow<'_, str> {
    if escapes {
        // Sized once: `str::replace` grows its string as it goes, and JSON
        // cells (all `""`) are long.
        let mut out = String::with_capacity(content.len());
        unescape_into(content, &mut out);
        std::borrow::Cow::Owned(out)
    } else {
        std::borrow::Cow::Borrowed(content)
    }
}

/// Appends `content` to `out` with its `""` escapes undone.
pub(crate) fn unescape_into(content: &str, out: &mut String) {
    let b = content.as_bytes();
    // Built as bytes, with no char-boundary checks per run: the runs
    // between quotes in a JSON cell are a few bytes long.
    let mut bytes = Vec::with_capacity(b.len());
    // The quotes come from 64-byte masks: JSON cells have one every few
    // bytes, where a search per quote costs more than the copying.
    let mut from = 0;
    for (n, block) in b.chunks(64).enumerate() {
        let mut m = byte_mask(block, [b'"']);
        while m != 0 {
            let q = n * 64 + m.trailing_zeros() as usize;
            m &= m - 1;
            // The second quote of a pair, already dropped.
            if q < from {
                continue;
            }
            bytes.extend_from_slice(&b[from..=q]);
            // The second quote of a pair is dropped; a lone one (not in a
            // well-formed field) is kept, as `str::replace` would.
            from = if b.get(q + 1) == Some(&b'"') {
                q + 2
            } else {
                q + 1
            };
        }
    }
    bytes.extend_from_slice(&b[from..]);
    // Dropping ASCII quotes from UTF-8 leaves UTF-8.
    match std::str::from_utf8(&bytes) {
        Ok(s) => out.push_str(s),
        Err(_) => out.push_str(&content.replace("\"\"", "\"")),
    }
}

/// Maps an offset in a field's unescaped content back to an offset in its
/// raw content (each `""` in the raw bytes is one byte unescaped).
pub fn raw_offset(raw_content: &[u8], escapes: bool, unescaped: usize) -> usize {
    if !escapes {
        return unescaped.min(raw_content.len());
    }
    let (mut raw, mut un) = (0, 0);
    while un < unescaped && raw < raw_content.len() {
        raw += if raw_content[raw] == b'"' { 2 } else { 1 };
        un += 1;
    }
    raw.min(raw_content.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(input: &[u8]) -> Vec<(u64, Vec<String>, Vec<QuoteProblemKind>)> {
        let mut s = Scanner::new(input, 0, 1);
        let mut rec = Record::default();
        let mut out = Vec::new();
        while s.next_record(&mut rec) {
            let fields = rec
                .fields
                .iter()
                .map(|f| String::from_utf8_lossy(&input[f.start..f.end]).into_owned())
                .collect();
            out.push((
                rec.line,
                fields,
                rec.problems.iter().map(|p| p.kind).collect(),
            ));
        }
        out
    }

    /// Every record, as spans and problems, read with delimiter `delim`.
    fn spans(input: &[u8], delim: u8) -> Vec<(Record, usize)> {
        let mut s = Scanner::with_delimiter(input, 0, 1, delim);
        let mut out = Vec::new();
        loop {
            let mut rec = Record::default();
            if !s.next_record(&mut rec) {
                return out;
            }
            out.push((rec, s.position()));
        }
    }

    /// A file read with another delimiter is the same file with that
    /// delimiter and the comma swapped, read with commas: same spans, same
    /// problems, same lines.
    #[test]
    fn other_delimiters_read_as_commas_do_when_swapped() {
        let mut next = crate::testutil::xorshift(0x1f83_d9ab_fb41_bd6bu64);
        for delim in [b';', b'\t', b'|'] {
            let alphabet = [b'a', b',', delim, b'"', b'\n', b'\r', b' '];
            for _ in 0..3000 {
                let len = (next() % 300) as usize;
                let input: Vec<u8> = (0..len)
                    .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                    .collect();
                let swapped: Vec<u8> = input
                    .iter()
                    .map(|&c| match c {
                        b',' => delim,
                        c if c == delim => b',',
                        c => c,
                    })
                    .collect();
                let got = spans(&input, delim);
                let want = spans(&swapped, b',');
                assert_eq!(
                    got.len(),
                    want.len(),
                    "{:?}",
                    String::from_utf8_lossy(&input)
                );
                for ((g, gp), (w, wp)) in got.iter().zip(&want) {
                    assert_eq!(
                        (&g.fields, &g.problems, g.line, g.start, g.end, g.ending, gp),
                        (&w.fields, &w.problems, w.line, w.start, w.end, w.ending, wp),
                        "{:?}",
                        String::from_utf8_lossy(&input)
                    );
                }
            }
        }
    }

    #[test]
    fn plain_crlf_and_blank_lines() {
        let r = records(b"a,b\r\n\r\n1,2\n\n3,\n");
        assert_eq!(
            r,
            vec![
                (1, vec!["a".into(), "b".into()], vec![]),
                (3, vec!["1".into(), "2".into()], vec![]),
                (5, vec!["3".into(), "".into()], vec![]),
            ]
        );
    }

    #[test]
    fn quoted_fields_keep_raw_spans_and_lines() {
        let input = b"a,\"x\"\"y\nz\",c\nd,e,f";
        let mut s = Scanner::new(input, 0, 1);
        let mut rec = Record::default();
        assert!(s.next_record(&mut rec));
        let f = rec.fields[1];
        assert_eq!(&input[f.start..f.end], b"\"x\"\"y\nz\"");
        assert!(f.quoted && f.escapes);
        let c = rec.fields[2];
        assert_eq!((c.line, c.start - c.line_start), (2, 3));
        assert!(s.next_record(&mut rec));
        assert_eq!(rec.line, 3);
        assert_eq!(rec.ending, Some(LineEnding::Eof));
    }

    #[test]
    fn quote_problems() {
        assert_eq!(
            records(b"a\"b\"c,d\n")[0].2,
            vec![QuoteProblemKind::Bare],
            "balanced bare quotes"
        );
        // A lone bare quote opens a quoted run that never closes.
        assert_eq!(
            records(b"a\"b,c\n")[0].2,
            vec![QuoteProblemKind::Bare, QuoteProblemKind::Unterminated]
        );
        assert_eq!(
            records(b"\"a\"b,c\n")[0].2,
            vec![QuoteProblemKind::AfterQuote]
        );
        assert_eq!(
            records(b"x,\"abc\n")[0].2,
            vec![QuoteProblemKind::Unterminated]
        );
        assert_eq!(records(b"\"a\"\r\n")[0].2, vec![]);
        assert_eq!(
            records(b"\"a\"\rb\n")[0].2,
            vec![QuoteProblemKind::AfterQuote]
        );
    }

    /// The plain scan the counting version must agree with.
    fn boundaries_oracle(in_quotes: &mut bool, buf: &[u8]) -> Option<usize> {
        let mut last = None;
        for (i, &c) in buf.iter().enumerate() {
            match c {
                b'"' => *in_quotes = !*in_quotes,
                b'\n' if !*in_quotes => last = Some(i + 1),
                _ => {}
            }
        }
        last
    }

    #[test]
    fn boundaries_agree_with_a_plain_scan_across_calls() {
        let alphabet = b"a,\"\n\r";
        let mut next = crate::testutil::xorshift(0x2545_f491_4f6c_dd1du64);
        for _ in 0..2000 {
            let len = (next() % 200) as usize;
            let input: Vec<u8> = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let cut = if len == 0 { 0 } else { (next() as usize) % len };
            let (mut fast, mut plain) = (RecordBoundaries::default(), false);
            for part in [&input[..cut], &input[cut..]] {
                assert_eq!(
                    fast.last_boundary(part),
                    boundaries_oracle(&mut plain, part),
                    "{:?} cut at {cut}",
                    String::from_utf8_lossy(&input)
                );
                assert_eq!(fast.in_quotes, plain);
            }
        }
    }

    #[test]
    fn unescape_undoes_doubled_quotes_like_replace() {
        for s in [
            "",
            "a",
            "\"\"",
            "a\"\"b",
            "\"\"\"",
            "\"\"\"\"x\"\"",
            "{\"\"k\"\":1}",
        ] {
            assert_eq!(unescape(s, true), s.replace("\"\"", "\""), "{s}");
        }
        // Pairs across the 64-byte blocks the quotes are found in.
        for len in 60..140 {
            for at in [0, 1, 62, 63, 64, 65, 127, 128] {
                let mut s = "é".repeat(len / 2);
                if at <= s.len() && s.is_char_boundary(at) {
                    s.insert_str(at, "\"\"\"");
                    s.push_str("\"\"");
                    assert_eq!(unescape(&s, true), s.replace("\"\"", "\""), "{s}");
                }
            }
        }
    }

    #[test]
    fn boundaries_agree_with_scanner() {
        let input = b"a,\"b\nc\"\nd,\"e\"\"\"\nf\"g\n,h\"\ni\n";
        let mut s = Scanner::new(input, 0, 1);
        let mut rec = Record::default();
        let mut ends = Vec::new();
        while s.next_record(&mut rec) {
            ends.push(s.position());
        }
        let mut b = RecordBoundaries::default();
        assert_eq!(b.last_boundary(input), ends.last().copied());
    }

    #[test]
    fn structural_masks_are_exact() {
        let all: Vec<u8> = (0..=255u8).chain(0..=255).collect();
        for start in 0..all.len() {
            let block = &all[start..all.len().min(start + 64)];
            let want = block
                .iter()
                .enumerate()
                .filter(|(_, b)| matches!(b, b',' | b'\n' | b'"'))
                .fold(0u64, |m, (i, _)| m | 1 << i);
            assert_eq!(structural_mask(block, b','), want, "at {start}");
        }
        let dense = [b','; 64];
        assert_eq!(structural_mask(&dense, b','), u64::MAX);
        for start in 0..all.len() - 64 {
            let block = &all[start..start + 64];
            let needles = [b',', b'\n', b'"'];
            assert_eq!(
                swar_mask(block, needles),
                structural_mask(block, b','),
                "at {start}"
            );
            assert_eq!(
                swar_mask(block, [0x80]),
                byte_mask(block, [0x80]),
                "at {start}"
            );
            assert_eq!(
                byte_masks(block, [b'"', b'\n']),
                [swar_mask(block, [b'"']), swar_mask(block, [b'\n'])],
                "at {start}"
            );
        }
    }

    /// The quoted-field rule stated one byte at a time: from `p`, `""` is
    /// an escape, a lone `"` closes, a newline starts a line. Returns the
    /// closing quote and whether escapes occurred, and the line and line
    /// start after it.
    fn quoted_oracle(buf: &[u8], mut p: usize) -> (Option<(usize, bool)>, u64, usize) {
        let (mut line, mut line_start, mut escapes) = (1, 0, false);
        while p < buf.len() {
            match buf[p] {
                b'\n' => {
                    line += 1;
                    line_start = p + 1;
                    p += 1;
                }
                b'"' if buf.get(p + 1) == Some(&b'"') => {
                    escapes = true;
                    p += 2;
                }
                b'"' => return (Some((p, escapes)), line, line_start),
                _ => p += 1,
            }
        }
        (None, line, line_start)
    }

    /// `scan_quoted` (window masks, then runs of quotes a block at a time)
    /// against the byte-by-byte rule, for the field opening at `open`,
    /// with the scanner's window first left empty and then loaded at each
    /// offset before the field.
    fn check_quoted(buf: &[u8], open: usize) {
        let (want, line, line_start) = quoted_oracle(buf, open + 1);
        for prime in std::iter::once(None).chain((open.saturating_sub(70)..=open).map(Some)) {
            let mut s = Scanner::new(buf, 0, 1);
            if let Some(at) = prime {
                s.next_special::<b','>(at);
            }
            let mut rec = Record::default();
            let got = s.scan_quoted::<b','>(open + 1, &mut rec, 0, open);
            let what = || {
                format!(
                    "{:?} open {open} primed {prime:?}",
                    String::from_utf8_lossy(buf)
                )
            };
            assert_eq!(got, want, "{}", what());
            assert_eq!((s.line, s.line_start), (line, line_start), "{}", what());
            let problems: Vec<_> = rec.problems.iter().map(|p| (p.kind, p.at)).collect();
            if want.is_none() {
                assert_eq!(
                    problems,
                    [(QuoteProblemKind::Unterminated, open)],
                    "{}",
                    what()
                );
                assert_eq!(s.pos, buf.len(), "{}", what());
            } else {
                assert!(problems.is_empty(), "{}", what());
            }
        }
    }

    #[test]
    fn quoted_runs_agree_with_the_byte_rule() {
        // A run of 1..6 quotes at every offset around the first two block
        // ends (blocks start at the first `""`), followed by text, a line
        // ending, a quote or nothing.
        for lead in ["", "\"\"", "a\"\"", "\"\"\r\n"] {
            for gap in 0..135 {
                for run in 1..=6 {
                    for tail in ["", "b", "\"", "\n\"", "\r\n\"\"", "\"\"\""] {
                        let mut buf = b"x,\"".to_vec();
                        buf.extend_from_slice(lead.as_bytes());
                        buf.extend((0..gap).map(|i| if i % 9 == 8 { b'\n' } else { b'a' }));
                        buf.extend(std::iter::repeat_n(b'"', run));
                        buf.extend_from_slice(tail.as_bytes());
                        check_quoted(&buf, 2);
                    }
                }
            }
        }
        // Random fields of quote runs, commas, CRLF and newlines.
        let mut next = crate::testutil::xorshift(0x9e37_79b9_7f4a_7c15u64);
        for _ in 0..3000 {
            let mut buf = vec![b'y'; (next() % 70) as usize];
            let open = buf.len();
            buf.push(b'"');
            let parts = next() % 60;
            for _ in 0..parts {
                match next() % 6 {
                    0 => buf.extend(std::iter::repeat_n(b'"', 1 + (next() % 6) as usize)),
                    1 => buf.extend_from_slice(b"\"\""),
                    2 => buf.extend_from_slice(b","),
                    3 => buf.extend_from_slice(if next().is_multiple_of(2) {
                        b"\r\n"
                    } else {
                        b"\n"
                    }),
                    _ => buf.extend(std::iter::repeat_n(b'k', (next() % 20) as usize)),
                }
            }
            check_quoted(&buf, open);
        }
        // 64 quotes and more: runs longer than a block.
        for run in 60..=130 {
            let mut buf = b"\"\"".to_vec();
            buf.extend(std::iter::repeat_n(b'"', run));
            buf.extend_from_slice(b"z\n");
            check_quoted(&buf, 0);
        }
    }

    /// `simple_quoted` says a field is simple only when `scan_field` reads
    /// it as one quoted field without escapes or problems, ending right
    /// after its closing quote at a `,` or `\n`, and neither moves the
    /// line count.
    #[test]
    fn simple_quoted_fields_agree_with_scan_field() {
        let mut next = crate::testutil::xorshift(0x3c6e_f372_fe94_f82bu64);
        let pieces: [&[u8]; 9] = [
            b"\"", b"\"\"", b",", b"\n", b"\r\n", b"ab", b"c", b"\"x\",", b"\r",
        ];
        let mut simple = 0;
        for _ in 0..4000 {
            let mut buf = vec![b'y'; (next() % 70) as usize];
            for _ in 0..next() % 40 {
                if next().is_multiple_of(4) {
                    buf.extend(std::iter::repeat_n(b'k', (next() % 70) as usize));
                }
                buf.extend_from_slice(pieces[(next() % pieces.len() as u64) as usize]);
            }
            for open in (0..buf.len()).filter(|&k| buf[k] == b'"') {
                // The window left empty, or loaded somewhere before the field.
                let prime = (!next().is_multiple_of(3))
                    .then(|| open.saturating_sub((next() % 80) as usize));
                let mut quick = Scanner::new(&buf, open, 1);
                if let Some(at) = prime {
                    quick.next_special::<b','>(at);
                }
                let mut ahead = quick.ahead(open + 1);
                // A quote inside a field does not open a quoted one.
                assert_eq!(
                    quick.simple_quoted::<b','>(open + 1, open, &mut ahead),
                    None
                );
                if open > 0 {
                    assert_eq!(
                        quick.simple_quoted::<b','>(open - 1, open, &mut ahead),
                        None
                    );
                }
                let Some(close) = quick.simple_quoted::<b','>(open, open, &mut ahead) else {
                    continue;
                };
                simple += 1;
                assert_eq!((quick.pos, quick.line, quick.line_start), (open, 1, open));
                // Read up to the closing quote: next is the byte after it.
                assert_eq!(
                    quick.next_ahead::<b','>(&mut ahead, close + 1),
                    Some(close + 1)
                );
                let mut full = Scanner::new(&buf, open, 1);
                let mut rec = Record::default();
                let (end, terminator) = full.scan_field::<b','>(&mut rec);
                let what = String::from_utf8_lossy(&buf[open..]);
                assert_eq!(end, close + 1, "{what:?}");
                assert!(matches!(terminator, Some(b',' | b'\n')), "{what:?}");
                assert!(rec.problems.is_empty(), "{what:?}");
                let f = rec.fields[0];
                assert_eq!((f.start, f.end), (open, close + 1), "{what:?}");
                assert!(f.quoted && !f.escapes, "{what:?}");
                assert_eq!((full.line, full.line_start), (1, open), "{what:?}");
            }
        }
        assert!(simple > 3_000, "only {simple} simple fields were tried");
    }

    /// Well-formed records written with known spans (plain, quoted, with
    /// escapes or line breaks, short and longer than a window, LF, CRLF,
    /// blank lines, no final line ending) read back as written.
    #[test]
    fn records_read_back_as_written() {
        let mut next = crate::testutil::xorshift(0xa54f_f53a_5f1d_36f1u64);
        let mut pick = |n: u64| (next() % n) as usize;
        for _ in 0..1500 {
            let mut buf = Vec::new();
            let (mut line, mut line_start) = (1u64, 0usize);
            let mut want = Vec::new();
            let records = pick(12);
            for r in 0..records {
                if pick(6) == 0 {
                    buf.extend_from_slice(if pick(2) == 0 { b"\n" } else { b"\r\n" });
                    line += 1;
                    line_start = buf.len();
                }
                let (rec_start, rec_line) = (buf.len(), line);
                let mut fields = Vec::new();
                let n = 1 + pick(6);
                for k in 0..n {
                    if k > 0 {
                        buf.push(b',');
                    }
                    let (start, at) = (buf.len(), (line, line_start));
                    // Long cells now and then, past a window or several.
                    let len = if pick(5) == 0 { pick(200) } else { pick(12) };
                    let kind = pick(4);
                    if kind > 0 {
                        buf.push(b'"');
                    }
                    let mut escapes = false;
                    for j in 0..len {
                        let c = match (kind, pick(6)) {
                            (0, _) | (_, 0..=2) => b"abcxyz 09"[pick(9)],
                            (1, _) => b',',
                            (2, _) => {
                                escapes = true;
                                buf.push(b'"');
                                b'"'
                            }
                            _ if j > 0 => {
                                line += 1;
                                line_start = buf.len() + 1;
                                b'\n'
                            }
                            _ => b',',
                        };
                        buf.push(c);
                    }
                    if kind == 0 && n == 1 && len == 0 {
                        // A lone empty field is a blank line.
                        buf.push(b'q');
                    }
                    if kind > 0 {
                        buf.push(b'"');
                    }
                    fields.push((start, buf.len(), kind > 0, escapes, at));
                }
                let rec_end = buf.len();
                let escapes = fields.iter().any(|f| f.3);
                let ending = match pick(3) {
                    _ if r + 1 == records && pick(3) == 0 => LineEnding::Eof,
                    0 => LineEnding::CrLf,
                    _ => LineEnding::Lf,
                };
                match ending {
                    LineEnding::CrLf => buf.extend_from_slice(b"\r\n"),
                    LineEnding::Lf => buf.push(b'\n'),
                    LineEnding::Eof => {}
                }
                if ending != LineEnding::Eof {
                    line += 1;
                    line_start = buf.len();
                }
                want.push((rec_line, rec_start, rec_end, ending, escapes, fields));
            }
            let mut s = Scanner::new(&buf, 0, 1);
            let mut rec = Record::default();
            let mut got = Vec::new();
            while s.next_record(&mut rec) {
                assert!(
                    rec.problems.is_empty(),
                    "{:?}",
                    String::from_utf8_lossy(&buf)
                );
                let fields = rec
                    .fields
                    .iter()
                    .map(|f| (f.start, f.end, f.quoted, f.escapes, (f.line, f.line_start)))
                    .collect::<Vec<_>>();
                got.push((
                    rec.line,
                    rec.start,
                    rec.end,
                    rec.ending.expect("ended"),
                    rec.escapes,
                    fields,
                ));
            }
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(&buf));
            assert_eq!(s.line(), line, "{:?}", String::from_utf8_lossy(&buf));
        }
    }

    #[test]
    fn raw_offsets_through_escapes() {
        let raw = br#"{""a"":1}"#;
        // unescaped: {"a":1}  -> offset of `1` is 5 unescaped, 7 raw
        assert_eq!(raw_offset(raw, true, 5), 7);
        assert_eq!(raw_offset(raw, false, 5), 5);
    }
}
