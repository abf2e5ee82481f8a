//! `--split GOOD BAD`: the rows of a file that carry no error, and the
//! others, as two files with the header in both. Rows are copied as bytes
//! (their quoting, line endings and all), read with the checker's own chunk
//! reader and tokenizer, so a row is exactly what the check called a row.

use super::{ChunkReader, Options};
use crate::scan::{LineEnding, Record, Scanner};
use std::io::{self, Read, Write};

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
        "the header has errors, so no row would be accepted as it is: fix the header first (`--fix` may)"
    )]
    Header,
    #[error(transparent)]
    Io(#[from] io::Error),
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
    let reader = super::Cancellable::new(reader, opts);
    let mut chunks = ChunkReader::new(reader, opts.chunk_size, opts.max_record_bytes);
    let mut rec = Record::default();
    let mut line = 1;
    let mut header = true;
    let mut next_error = 0;
    let mut out = Split::default();
    while let Some(chunk) = chunks.next_chunk()? {
        let data = chunk.data.as_slice();
        let start = if chunk.base == 0 {
            data.len() - crate::scan::strip_bom(data).len()
        } else {
            0
        };
        let mut scanner = Scanner::new(data, start, line);
        // Bytes of the chunk written so far.
        let mut done = 0;
        while scanner.next_record(&mut rec) {
            let end = rec.end
                + match rec.ending {
                    Some(LineEnding::Lf) => 1,
                    Some(LineEnding::CrLf) => 2,
                    _ => 0,
                };
            let end = end.min(data.len());
            let bytes = &data[done..end];
            let (from, to) = (chunk.base + done as u64, chunk.base + end as u64);
            // Errors before this record's end belong to it (or to the
            // blank lines before it, which travel with it).
            let mut holds_error = false;
            while errors.get(next_error).is_some_and(|&e| e < to) {
                holds_error |= errors[next_error] >= from || header;
                next_error += 1;
            }
            if header {
                if holds_error {
                    return Err(SplitError::Header);
                }
                good.write_all(bytes)?;
                bad.write_all(bytes)?;
                header = false;
            } else if holds_error {
                bad.write_all(bytes)?;
                out.bad += 1;
            } else {
                good.write_all(bytes)?;
                out.good += 1;
            }
            done = end;
        }
        // Chunks end at record boundaries; anything after the last record
        // (nothing, or blank lines) stays with the good rows.
        good.write_all(&data[done..])?;
        line = scanner.line();
    }
    good.flush()?;
    bad.flush()?;
    Ok(out)
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
    }
}
