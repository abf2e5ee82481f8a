//! Whole-file rewrites, record by record: `--split GOOD BAD` (the rows of a
//! file that carry no error, and the others, as two files with the header
//! in both) and the whole-file fixes of `--fix` ([`Transform`]: line
//! endings, commas, trailing empty columns, Windows-1252 to UTF-8). Rows are
//! copied as bytes (their quoting, line endings and all), read with the
//! checker's own chunk reader and tokenizer, so a row is exactly what the
//! check called a row.
//!
//! A fix rewrites a file only when every record reads unambiguously in the
//! file's dialect ([`Doubt`]): the tokenizer's reading of a stray quote or a
//! ragged row is one guess among several, and a rewrite would write that
//! guess into the file as if it were the data. Each rewrite checks every
//! record as it walks them and stops at the first in doubt, before its
//! output replaces anything.

use super::chunk::{Cancellable, ChunkReader};
use super::dialect;
use super::options::Options;
use super::preamble::read_dialect;
use crate::diagnostic::Transform;
use crate::scan::{LineEnding, QuoteProblemKind, Record};
use std::fmt;
use std::io::{self, Read, Write};
use std::ops::Range;

/// What a split wrote.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Split {
    pub(crate) good: u64,
    pub(crate) bad: u64,
}

/// Why a file cannot be split.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SplitError {
    #[error(
        "the header has errors, so no row would be accepted as it is: fix the header first (`--fix` with the split may)"
    )]
    Header,
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// What a piece of the file [`walk_records`] hands out is.
#[derive(Clone, Copy)]
pub(crate) enum Piece<'r> {
    /// What comes before the header: a BOM, a `sep=` line.
    Prefix,
    /// A record, in the chunk's offsets (blank lines before it included).
    Record(&'r Record),
    /// Bytes after the last record of a chunk (blank lines).
    Tail,
}

/// What [`walk_records`] hands each piece to: the chunk's bytes, the range
/// of them the piece spans, its file offset, and what it is.
pub(crate) type RecordFn<'a> =
    dyn FnMut(&[u8], Range<usize>, u64, Piece<'_>) -> io::Result<()> + 'a;

/// Hands every record of `reader` to `each` as the bytes it spans (from the
/// end of the one before, so a BOM and blank lines travel with the next
/// record; its line ending included), with its file offset and whether it
/// is the header; bytes after the last record go to `each` as well, as a
/// record of no ending. Read with the checker's chunk reader and tokenizer,
/// so a record is exactly what the check calls one.
pub(crate) fn walk_records(
    reader: impl Read,
    opts: &Options,
    each: &mut RecordFn<'_>,
) -> io::Result<()> {
    let reader = Cancellable::new(reader, opts);
    // In the file's own dialect, as the check reads it: its delimiter, and
    // a BOM and a `sep=` line before the header (which travel with it).
    let (dialect, reader) = read_dialect(reader)?;
    let mut chunks = ChunkReader::new(reader, opts.chunk_size, opts.max_record_bytes);
    let mut rec = Record::default();
    let mut line = 1 + dialect.skip_lines;
    while let Some(chunk) = chunks.next_chunk()? {
        let data = chunk.data.as_slice();
        let skip = usize::try_from((dialect.skip as u64).saturating_sub(chunk.base))
            .unwrap_or(0)
            .min(data.len());
        if skip > 0 {
            each(data, 0..skip, chunk.base, Piece::Prefix)?;
        }
        let mut scanner = dialect.scanner(data, skip, line);
        // Bytes of the chunk handed out so far.
        let mut done = skip;
        while scanner.next_record(&mut rec) {
            let end = (rec.end + ending_len(rec.ending)).min(data.len());
            each(
                data,
                done..end,
                chunk.base + done as u64,
                Piece::Record(&rec),
            )?;
            done = end;
        }
        // Chunks end at record boundaries: nothing is left, or blank lines.
        if done < data.len() {
            each(
                data,
                done..data.len(),
                chunk.base + done as u64,
                Piece::Tail,
            )?;
        }
        line = scanner.line();
    }
    // A record longer than the reader holds ends its chunks early: what
    // follows was never handed out, and a rewrite without it would lose it.
    if chunks.too_long.is_some() {
        return Err(io::Error::other(Doubt {
            line,
            what: InDoubt::TooLong(opts.max_record_bytes),
        }));
    }
    Ok(())
}

/// Why a whole-file rewrite was refused: the first record that does not
/// read unambiguously in the file's dialect, or what the rewritten file
/// would be read as. Travels as the [`io::Error`] a rewrite returns (see
/// [`refusal`]), so that it stops the walk over the records where it is
/// found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Doubt {
    /// 1-based line where the record in doubt starts (or the doubtful byte
    /// is).
    pub(crate) line: u64,
    pub(crate) what: InDoubt,
}

/// What is in doubt about a record (see [`Doubt`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InDoubt {
    /// A quote where RFC 4180 has none: readers disagree on where the
    /// field, and often the record, ends.
    Quote(QuoteProblemKind),
    /// A carriage return outside quotes that does not end the line: some
    /// readers (Python's, old Mac files) end the record there, and a
    /// line-ending rewrite could make it one.
    LoneCr,
    /// A record of another number of fields than the header's: its cells
    /// have shifted, or it was written with another delimiter.
    Width { found: usize, header: usize },
    /// A value in a column the rewrite removes (its 1-based field).
    Value(usize),
    /// A record longer than the reader holds (the bytes, at most).
    TooLong(usize),
    /// The rewritten file's first bytes would tell another delimiter.
    Dialect { want: u8, found: u8 },
}

impl fmt::Display for Doubt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = self.line;
        match self.what {
            InDoubt::Quote(QuoteProblemKind::Bare) => write!(
                f,
                "line {line} has a quote inside an unquoted field, which readers split differently; quote the field and double the quote (`\"27\"\" monitor\"`)"
            ),
            InDoubt::Quote(QuoteProblemKind::AfterQuote) => write!(
                f,
                "line {line} has text after the closing quote of a field, which readers split differently; double the quotes inside the field"
            ),
            InDoubt::Quote(QuoteProblemKind::Unterminated) => write!(
                f,
                "line {line} opens a quote that is never closed, so where its record ends is a guess; close the field's quote"
            ),
            InDoubt::LoneCr => write!(
                f,
                "line {line} has a carriage return outside quotes that does not end the line, which some readers take for a line break; remove it, or quote its field"
            ),
            InDoubt::Width { found, header } => write!(
                f,
                "line {line} has {found} field{} where the header has {header}, so which of its cells is which is a guess; give it the header's number of fields",
                if found == 1 { "" } else { "s" }
            ),
            InDoubt::Value(field) => write!(
                f,
                "line {line} has a value in field {field}, a column the fix would remove; name the column, or delete the value"
            ),
            InDoubt::TooLong(max) => write!(
                f,
                "the record at line {line} is longer than bdxlint reads ({max} bytes; an unterminated quote?)"
            ),
            InDoubt::Dialect { want, found } if want == found => write!(
                f,
                "the rewritten file's first line would be read otherwise (as Excel's `sep=` line, or no longer as one)"
            ),
            InDoubt::Dialect { want, found } => write!(
                f,
                "the rewritten file would be read with {} as its delimiter, not {}",
                dialect::delimiter_name(found),
                dialect::delimiter_name(want)
            ),
        }
    }
}

impl std::error::Error for Doubt {}

/// The [`Doubt`] a rewrite was refused for, if `e` is one (otherwise it
/// is a failure to read or write).
pub(crate) fn refusal(e: &io::Error) -> Option<&Doubt> {
    e.get_ref().and_then(|e| e.downcast_ref::<Doubt>())
}

/// Checks that every record a rewrite walks reads unambiguously in the
/// file's dialect: no quoting problem, no carriage return outside quotes
/// but a line ending's, and (when `width` is asked for) the header's number
/// of fields. The first record in doubt ends the walk with its [`Doubt`].
struct Verify {
    /// Hold every record to the header's number of fields.
    width: bool,
    header: Option<usize>,
}

impl Verify {
    fn new(width: bool) -> Self {
        Verify {
            width,
            header: None,
        }
    }

    fn record(&mut self, data: &[u8], rec: &Record) -> io::Result<()> {
        let doubt = |line, what| Err(io::Error::other(Doubt { line, what }));
        if let Some(p) = rec.problems.first() {
            return doubt(p.line, InDoubt::Quote(p.kind));
        }
        // A record without quoting problems has well-formed quoted fields;
        // a CR inside one is content.
        if memchr::memchr(b'\r', &data[rec.start..rec.end]).is_some() {
            if let Some(f) = rec
                .fields
                .iter()
                .find(|f| !f.quoted && data[f.start..f.end].contains(&b'\r'))
            {
                return doubt(f.line, InDoubt::LoneCr);
            }
        }
        let header = *self.header.get_or_insert(rec.fields.len());
        if self.width && rec.fields.len() != header {
            return doubt(
                rec.line,
                InDoubt::Width {
                    found: rec.fields.len(),
                    header,
                },
            );
        }
        Ok(())
    }
}

/// Checks that a rewrite's output, which `reader` reads, is read with
/// `want` as its delimiter (and has a `sep=` line only if `sep`): a rewrite
/// changes the bytes the dialect is told from, and a record read with
/// another delimiter has other fields.
pub(crate) fn verify_dialect_of(reader: impl Read, want: u8, sep: bool) -> io::Result<()> {
    let (found, has_sep) = dialect_of(reader)?;
    if found != want || has_sep != sep {
        return Err(io::Error::other(Doubt {
            line: 1,
            what: InDoubt::Dialect { want, found },
        }));
    }
    Ok(())
}

/// The dialect of the file `reader` reads, as the check tells it from its
/// first [`dialect::HEAD_LEN`] bytes: its delimiter and whether it has a
/// `sep=` line.
pub(crate) fn dialect_of(reader: impl Read) -> io::Result<(u8, bool)> {
    let mut head = Vec::new();
    reader
        .take(dialect::HEAD_LEN as u64)
        .read_to_end(&mut head)?;
    let d = dialect::sniff(&head, head.len() < dialect::HEAD_LEN);
    Ok((d.delim, d.sep_line.is_some()))
}

/// The dialect a file read as `source` (its delimiter, a `sep=` line) must
/// still be read in after `t`.
pub(crate) fn dialect_after(t: Transform, source: (u8, bool)) -> (u8, bool) {
    match t {
        Transform::ToCommas => (b',', false),
        _ => source,
    }
}

fn ending_len(e: Option<LineEnding>) -> usize {
    match e {
        Some(LineEnding::Lf) => 1,
        Some(LineEnding::CrLf) => 2,
        _ => 0,
    }
}

/// Copies the records of `reader` to `good` or `bad`: a record holding one
/// of the `errors` (byte offsets in the file, sorted) goes to `bad`. The
/// header, and what comes before it (a BOM, blank lines), goes to both.
pub(crate) fn split_rows(
    reader: impl Read,
    opts: &Options,
    errors: &[u64],
    good: &mut dyn Write,
    bad: &mut dyn Write,
) -> Result<Split, SplitError> {
    let mut header = true;
    let mut next_error = 0;
    let mut out = Split::default();
    let mut header_error = false;
    walk_records(reader, opts, &mut |data, range, from, rec| {
        let bytes = &data[range];
        let to = from + bytes.len() as u64;
        // Errors before this record's end belong to it (or to the blank
        // lines before it, which travel with it).
        let mut holds_error = false;
        while errors.get(next_error).is_some_and(|&e| e < to) {
            holds_error = true;
            next_error += 1;
        }
        match rec {
            // Before the header: with it, in both; an error there is the
            // header's (no row would be free of it).
            Piece::Prefix => {
                if holds_error {
                    header_error = true;
                    return Err(io::Error::other("header"));
                }
                good.write_all(bytes)?;
                return bad.write_all(bytes);
            }
            // What follows the last record stays with the good rows.
            Piece::Tail => return good.write_all(bytes),
            Piece::Record(_) => {}
        }
        if std::mem::take(&mut header) {
            if holds_error {
                header_error = true;
                return Err(io::Error::other("header"));
            }
            good.write_all(bytes)?;
            bad.write_all(bytes)
        } else if holds_error {
            out.bad += 1;
            bad.write_all(bytes)
        } else {
            out.good += 1;
            good.write_all(bytes)
        }
    })
    .map_err(|e| {
        if header_error {
            SplitError::Header
        } else {
            SplitError::Io(e)
        }
    })?;
    good.flush()?;
    bad.flush()?;
    Ok(out)
}

/// Rewrites `reader` to `out` with every record's line ending the file's
/// most common one (CRLF or LF; a tie keeps the header's). Line breaks
/// inside quoted cells are cell content and stay. `counts` are the record
/// endings of the same file, `(lf, crlf)`, from [`count_endings`]. Refused
/// (a [`Doubt`]) at a record with a quoting problem or a carriage return
/// outside quotes: which breaks end records is then in doubt.
pub(crate) fn normalise_endings(
    reader: impl Read,
    opts: &Options,
    counts: (u64, u64),
    header: Option<LineEnding>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let crlf = counts.1 > counts.0 || (counts.1 == counts.0 && header == Some(LineEnding::CrLf));
    let mut verify = Verify::new(false);
    walk_records(reader, opts, &mut |data, range, _, rec| {
        let bytes = &data[range];
        if let Piece::Record(r) = rec {
            verify.record(data, r)?;
        }
        match rec {
            Piece::Record(Record {
                ending: Some(e @ (LineEnding::Lf | LineEnding::CrLf)),
                ..
            }) => {
                let e = *e;
                let body = &bytes[..bytes.len() - ending_len(Some(e))];
                out.write_all(body)?;
                out.write_all(if crlf { b"\r\n" } else { b"\n" })
            }
            _ => out.write_all(bytes),
        }
    })?;
    out.flush()
}

/// Rewrites `reader`, read in its own dialect (a `;`, tab or `|`
/// delimiter, a `sep=` line), with commas: a field is copied as its bytes,
/// quoted if it was or if it holds a comma now meaningful, and a `sep=`
/// line is left out (a BOM stays). Line endings stay. Refused (a [`Doubt`])
/// at a record with a quoting problem, a carriage return outside quotes, or
/// another number of fields than the header's: the delimiter was told from
/// records that all have the header's, and one that does not may not be
/// written with it.
pub(crate) fn to_commas(reader: impl Read, opts: &Options, out: &mut dyn Write) -> io::Result<()> {
    let mut verify = Verify::new(true);
    walk_records(reader, opts, &mut |data, range, from, piece| {
        let rec = match piece {
            // Before the header a BOM stays, a `sep=` line goes.
            Piece::Prefix => {
                let bytes = &data[range];
                if from == 0 && bytes.starts_with(&crate::scan::UTF8_BOM) {
                    out.write_all(&crate::scan::UTF8_BOM)?;
                }
                return Ok(());
            }
            Piece::Tail => return out.write_all(&data[range]),
            Piece::Record(rec) => rec,
        };
        verify.record(data, rec)?;
        out.write_all(&data[range.start..rec.start.max(range.start)])?;
        for (k, f) in rec.fields.iter().enumerate() {
            if k > 0 {
                out.write_all(b",")?;
            }
            let raw = &data[f.start..f.end];
            if f.quoted || !raw.contains(&b',') {
                out.write_all(raw)?;
            } else {
                // An unquoted field holds no quote (that would be a quoting
                // problem): quoting it is all it needs.
                out.write_all(b"\"")?;
                out.write_all(raw)?;
                out.write_all(b"\"")?;
            }
        }
        out.write_all(&data[rec.end..range.end])
    })?;
    out.flush()
}

/// Rewrites `reader` without the last `n` fields of the header and of
/// every record, each with the delimiter before it. Refused (a [`Doubt`])
/// at a record with a quoting problem, a carriage return outside quotes,
/// another number of fields than the header's (its cells have shifted: its
/// last fields may not be the empty columns), or a value in a field that
/// goes.
pub(crate) fn drop_trailing_fields(
    reader: impl Read,
    opts: &Options,
    n: usize,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut verify = Verify::new(true);
    walk_records(reader, opts, &mut |data, range, _, piece| {
        let Piece::Record(rec) = piece else {
            return out.write_all(&data[range]);
        };
        verify.record(data, rec)?;
        let width = rec.fields.len();
        if n == 0 || n >= width {
            return out.write_all(&data[range]);
        }
        for (k, f) in rec.fields.iter().enumerate().skip(width - n) {
            let (a, b) = f.content();
            if a < b {
                return Err(io::Error::other(Doubt {
                    line: f.line,
                    what: InDoubt::Value(k + 1),
                }));
            }
        }
        // Up to the end of the last field kept: the delimiter after it and
        // the fields dropped go, the line ending stays.
        let keep = rec.fields[width - n - 1].end;
        out.write_all(&data[range.start..keep])?;
        out.write_all(&data[rec.end..range.end])
    })?;
    out.flush()
}

/// Rewrites `reader` with every byte read as Windows-1252 (the five bytes
/// it leaves undefined as the C1 controls Latin-1 gives them) and written
/// as UTF-8: the re-encoding `not-utf8`'s fix makes. ASCII bytes, quoting
/// and line endings stay, so records split where they did; refused (a
/// [`Doubt`]) all the same at a record with a quoting problem or a carriage
/// return outside quotes, as every whole-file rewrite is.
pub(crate) fn cp1252_to_utf8(
    reader: impl Read,
    opts: &Options,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut verify = Verify::new(false);
    let mut text = String::new();
    walk_records(reader, opts, &mut |data, range, _, piece| {
        if let Piece::Record(rec) = piece {
            verify.record(data, rec)?;
        }
        text.clear();
        text.extend(data[range].iter().map(|&b| super::encoding::cp1252(b)));
        out.write_all(text.as_bytes())
    })?;
    out.flush()
}

/// The record endings of `reader`: `(lf, crlf, the header's)`.
pub(crate) fn count_endings(
    reader: impl Read,
    opts: &Options,
) -> io::Result<(u64, u64, Option<LineEnding>)> {
    let (mut lf, mut crlf, mut header) = (0, 0, None);
    let mut first = true;
    walk_records(reader, opts, &mut |_, _, _, rec| {
        if let Piece::Record(r) = rec {
            if std::mem::take(&mut first) {
                header = r.ending;
            }
            match r.ending {
                Some(LineEnding::Lf) => lf += 1,
                Some(LineEnding::CrLf) => crlf += 1,
                _ => {}
            }
        }
        Ok(())
    })?;
    Ok((lf, crlf, header))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str, errors: &[u64]) -> Result<(String, String, Split), SplitError> {
        let (mut g, mut b) = (Vec::new(), Vec::new());
        let opts = Options {
            chunk_size: 16,
            ..Options::default()
        };
        let s = split_rows(text.as_bytes(), &opts, errors, &mut g, &mut b)?;
        Ok((
            String::from_utf8(g).expect("utf-8"),
            String::from_utf8(b).expect("utf-8"),
            s,
        ))
    }

    #[test]
    fn rows_go_whole_to_one_side_and_the_header_to_both() {
        let text = "\u{feff}A,B\r\n1,\"x\ny\"\r\n2,z\r\n3,w";
        let row1 = text.find("1,").expect("row") as u64;
        let row3 = text.find("3,").expect("row") as u64;
        let (g, b, s) = split(text, &[row1 + 3, row3]).expect("splits");
        assert_eq!(g, "\u{feff}A,B\r\n2,z\r\n");
        assert_eq!(b, "\u{feff}A,B\r\n1,\"x\ny\"\r\n3,w");
        assert_eq!(s, Split { good: 1, bad: 2 });
        assert!(matches!(split(text, &[4]), Err(SplitError::Header)));
        let (g, b, _) = split(text, &[]).expect("splits");
        assert_eq!(g, text);
        assert_eq!(b, "\u{feff}A,B\r\n");
        // In the file's dialect: a `sep=;` line goes with the header, and
        // a comma is only a character.
        let text = "sep=;\nA;B\n1;x,y\n2;z\n";
        let row2 = text.find("2;").expect("row") as u64;
        let (g, b, s) = split(text, &[row2 + 2]).expect("splits");
        assert_eq!(g, "sep=;\nA;B\n1;x,y\n");
        assert_eq!(b, "sep=;\nA;B\n2;z\n");
        assert_eq!(s, Split { good: 1, bad: 1 });
    }

    #[test]
    fn another_delimiter_becomes_commas_with_quotes_where_commas_are_now_text() {
        let opts = Options {
            chunk_size: 16,
            ..Options::default()
        };
        let mut out = Vec::new();
        let text = "\u{feff}sep=;\r\nA;B;C\r\n1;x,y;\"q;\"\"r\"\r\n2;z;\n";
        to_commas(text.as_bytes(), &opts, &mut out).expect("writes");
        assert_eq!(
            String::from_utf8_lossy(&out),
            "\u{feff}A,B,C\r\n1,\"x,y\",\"q;\"\"r\"\r\n2,z,\n"
        );
        let mut out = Vec::new();
        to_commas("A\tB\n1\tb,c\n".as_bytes(), &opts, &mut out).expect("writes");
        assert_eq!(String::from_utf8_lossy(&out), "A,B\n1,\"b,c\"\n");
    }

    #[test]
    fn trailing_fields_go_from_every_row_and_a_ragged_row_refuses_it() {
        let opts = Options {
            chunk_size: 16,
            ..Options::default()
        };
        let mut out = Vec::new();
        let text = "A,B,,\r\n1,\"x,y\",,\r\n3,z,\"\",\n";
        drop_trailing_fields(text.as_bytes(), &opts, 2, &mut out).expect("writes");
        assert_eq!(String::from_utf8_lossy(&out), "A,B\r\n1,\"x,y\"\r\n3,z\n");
        // A row of another width: which of its fields are the empty
        // columns is a guess.
        let text = "A,B,,\n1,x,,\n2\n3,z,,\n";
        assert_eq!(
            refused(drop_trailing_fields(
                text.as_bytes(),
                &opts,
                2,
                &mut Vec::new()
            )),
            Some((
                3,
                InDoubt::Width {
                    found: 1,
                    header: 4
                }
            ))
        );
        // A value in a column that goes.
        let text = "A,B,,\n1,x,,\n3,z,,w\n";
        assert_eq!(
            refused(drop_trailing_fields(
                text.as_bytes(),
                &opts,
                2,
                &mut Vec::new()
            )),
            Some((3, InDoubt::Value(4)))
        );
    }

    fn refused(r: io::Result<()>) -> Option<(u64, InDoubt)> {
        match r {
            Ok(()) => None,
            Err(e) => {
                let d = refusal(&e).expect("a refusal, not a failure");
                Some((d.line, d.what))
            }
        }
    }

    #[test]
    fn every_rewrite_refuses_a_record_that_reads_two_ways() {
        let opts = Options {
            chunk_size: 16,
            ..Options::default()
        };
        type Rewrite = fn(&[u8], &Options) -> io::Result<()>;
        let rewrites: [(&str, Rewrite); 4] = [
            ("commas", |t, o| to_commas(t, o, &mut Vec::new())),
            ("trailing", |t, o| {
                drop_trailing_fields(t, o, 1, &mut Vec::new())
            }),
            ("endings", |t, o| {
                normalise_endings(t, o, (1, 1), None, &mut Vec::new())
            }),
            ("encoding", |t, o| cp1252_to_utf8(t, o, &mut Vec::new())),
        ];
        let bare = "A\tB\t\n1\t27\" monitor\t\n2\tx\t\n3\ty\" z\t\n";
        let after = "A|B|\n1|\"x\"y|\n";
        let open = "sep=;\nA;B;\n1;x;\n2;\"y;\n";
        let cr = "A,B,\n1,x\ry,\n";
        for (name, f) in rewrites {
            let quote = |k| Some(InDoubt::Quote(k));
            assert_eq!(
                refused(f(bare.as_bytes(), &opts)).map(|d| d.1),
                quote(QuoteProblemKind::Bare),
                "{name}"
            );
            assert_eq!(
                refused(f(bare.as_bytes(), &opts)).map(|d| d.0),
                Some(2),
                "{name}"
            );
            assert_eq!(
                refused(f(after.as_bytes(), &opts)),
                Some((2, InDoubt::Quote(QuoteProblemKind::AfterQuote))),
                "{name}"
            );
            assert_eq!(
                refused(f(open.as_bytes(), &opts)),
                Some((4, InDoubt::Quote(QuoteProblemKind::Unterminated))),
                "{name}"
            );
            assert_eq!(
                refused(f(cr.as_bytes(), &opts)),
                Some((2, InDoubt::LoneCr)),
                "{name}"
            );
            // A CR in a quoted field is its content.
            assert_eq!(
                refused(f("A,B,\n1,\"x\ry\",\n".as_bytes(), &opts)),
                None,
                "{name}"
            );
        }
        // Only the rewrites that depend on fields hold rows to the header's
        // width.
        let ragged = "sep=;\nA;B;C\n1;2;3\n4;5\n";
        assert_eq!(
            refused(to_commas(ragged.as_bytes(), &opts, &mut Vec::new())),
            Some((
                4,
                InDoubt::Width {
                    found: 2,
                    header: 3
                }
            ))
        );
        assert_eq!(
            refused(normalise_endings(
                ragged.as_bytes(),
                &opts,
                (3, 0),
                None,
                &mut Vec::new()
            )),
            None
        );
    }

    #[test]
    fn a_crlf_rewritten_to_lf_cannot_swallow_a_carriage_return() {
        let opts = Options::default();
        // `x\r` then CRLF: written with LF it would end with CRLF, its CR
        // gone from the cell.
        let text = "A,B\n1,x\r\r\n2,y\n";
        assert_eq!(
            refused(normalise_endings(
                text.as_bytes(),
                &opts,
                (2, 1),
                None,
                &mut Vec::new()
            )),
            Some((2, InDoubt::LoneCr))
        );
    }

    #[test]
    fn a_rewrite_whose_output_tells_another_dialect_is_refused() {
        assert!(verify_dialect_of("A,B\n1,2\n".as_bytes(), b',', false).is_ok());
        let e = verify_dialect_of("A\tB\n1\t2\n".as_bytes(), b',', false).expect_err("tab");
        assert_eq!(
            refusal(&e).map(|d| d.what),
            Some(InDoubt::Dialect {
                want: b',',
                found: b'\t'
            })
        );
        assert!(verify_dialect_of("sep=;\nA;B\n".as_bytes(), b';', false).is_err());
    }

    #[test]
    fn a_record_too_long_to_read_stops_a_rewrite_instead_of_cutting_it() {
        let opts = Options {
            chunk_size: 16,
            max_record_bytes: 64,
            ..Options::default()
        };
        let text = format!("A;B\n1;\"{}\n2;x\n", "y".repeat(200));
        let mut out = Vec::new();
        assert_eq!(
            refused(to_commas(text.as_bytes(), &opts, &mut out)),
            Some((2, InDoubt::TooLong(64)))
        );
        let (mut g, mut b) = (Vec::new(), Vec::new());
        assert!(split_rows(text.as_bytes(), &opts, &[], &mut g, &mut b).is_err());
    }

    #[test]
    fn line_endings_go_to_the_majority_and_quoted_breaks_stay() {
        let opts = Options {
            chunk_size: 16,
            ..Options::default()
        };
        let text = "A,B\r\n1,\"x\r\ny\"\n2,z\n3,w";
        let counts = count_endings(text.as_bytes(), &opts).expect("reads");
        assert_eq!(counts, (2, 1, Some(LineEnding::CrLf)));
        let mut out = Vec::new();
        normalise_endings(
            text.as_bytes(),
            &opts,
            (counts.0, counts.1),
            counts.2,
            &mut out,
        )
        .expect("writes");
        assert_eq!(String::from_utf8_lossy(&out), "A,B\n1,\"x\r\ny\"\n2,z\n3,w");
        // A tie keeps the header's.
        let text = "A,B\r\n1,2\n";
        let mut out = Vec::new();
        normalise_endings(
            text.as_bytes(),
            &opts,
            (1, 1),
            Some(LineEnding::CrLf),
            &mut out,
        )
        .expect("writes");
        assert_eq!(String::from_utf8_lossy(&out), "A,B\r\n1,2\r\n");
    }
}
