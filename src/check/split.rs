//! Whole-file rewrites, record by record: `--split GOOD BAD` (the rows of a
//! file that carry no error, and the others, as two files with the header
//! in both) and the line-ending fix of `--fix`. Rows are copied as bytes
//! (their quoting, line endings and all), read with the checker's own chunk
//! reader and tokenizer, so a row is exactly what the check called a row.

use super::{ChunkReader, Options};
use crate::scan::{LineEnding, Record};
use std::io::{self, Read, Write};
use std::ops::Range;

/// What a split wrote.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    pub good: u64,
    pub bad: u64,
}

/// Why a file cannot be split.
#[derive(Debug, thiserror::Error)]
pub enum SplitError {
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
    let reader = super::Cancellable::new(reader, opts);
    // In the file's own dialect, as the check reads it: its delimiter, and
    // a BOM and a `sep=` line before the header (which travel with it).
    let (dialect, reader) = super::read_dialect(reader)?;
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
    if let Some(span) = chunks.too_long {
        return Err(io::Error::other(format!(
            "a record at byte {} is longer than bdxlint reads ({} bytes; an unterminated quote?): the file is left as it is",
            span.start, opts.max_record_bytes
        )));
    }
    Ok(())
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
pub fn split_rows(
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
/// endings of the same file, `(lf, crlf)`, from [`count_endings`].
pub fn normalise_endings(
    reader: impl Read,
    opts: &Options,
    counts: (u64, u64),
    header: Option<LineEnding>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let crlf = counts.1 > counts.0 || (counts.1 == counts.0 && header == Some(LineEnding::CrLf));
    walk_records(reader, opts, &mut |data, range, _, rec| {
        let bytes = &data[range];
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
/// line is left out (a BOM stays). Line endings stay.
pub fn to_commas(reader: impl Read, opts: &Options, out: &mut dyn Write) -> io::Result<()> {
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
        out.write_all(&data[range.start..rec.start.max(range.start)])?;
        for (k, f) in rec.fields.iter().enumerate() {
            if k > 0 {
                out.write_all(b",")?;
            }
            let raw = &data[f.start..f.end];
            if f.quoted || !raw.contains(&b',') {
                out.write_all(raw)?;
            } else {
                out.write_all(b"\"")?;
                for part in raw.split_inclusive(|&b| b == b'"') {
                    out.write_all(part)?;
                    if part.ends_with(b"\"") {
                        out.write_all(b"\"")?;
                    }
                }
                out.write_all(b"\"")?;
            }
        }
        out.write_all(&data[rec.end..range.end])
    })?;
    out.flush()
}

/// Rewrites `reader` without the last `n` fields of the header and of
/// every record as wide as the header (each with the delimiter before it).
/// A record of another width is copied as it is: its cells have shifted,
/// and the check reports its field count.
pub fn drop_trailing_fields(
    reader: impl Read,
    opts: &Options,
    n: usize,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut width = None;
    walk_records(reader, opts, &mut |data, range, _, piece| {
        let Piece::Record(rec) = piece else {
            return out.write_all(&data[range]);
        };
        let width = *width.get_or_insert(rec.fields.len());
        if rec.fields.len() != width || n == 0 || n >= width {
            return out.write_all(&data[range]);
        }
        // Up to the end of the last field kept: the delimiter after it and
        // the fields dropped go, the line ending stays.
        let keep = rec.fields[width - n - 1].end;
        out.write_all(&data[range.start..keep])?;
        out.write_all(&data[rec.end..range.end])
    })?;
    out.flush()
}

/// The record endings of `reader`: `(lf, crlf, the header's)`.
pub fn count_endings(
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
    fn trailing_fields_go_from_rows_as_wide_as_the_header_only() {
        let opts = Options {
            chunk_size: 16,
            ..Options::default()
        };
        let mut out = Vec::new();
        let text = "A,B,,\r\n1,\"x,y\",,\r\n2\n3,z,,\n";
        drop_trailing_fields(text.as_bytes(), &opts, 2, &mut out).expect("writes");
        assert_eq!(
            String::from_utf8_lossy(&out),
            "A,B\r\n1,\"x,y\"\r\n2\n3,z\n"
        );
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
        assert!(to_commas(text.as_bytes(), &opts, &mut out).is_err());
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
