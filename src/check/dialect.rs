//! How a file is written as CSV, told from its first bytes: the delimiter
//! (spreadsheets in many locales save with `;`, and "Text (Tab delimited)"
//! with tabs) and Excel's `sep=X` first line.
//!
//! The platform reads commas only, so another delimiter is one error for
//! the file; the file is then read with the delimiter it uses, so its other
//! findings are about its cells rather than one bare-quote error per row.
//! Every reader of a file (the check, the references pass, format
//! detection ahead of a run) tells the dialect from the same fixed prefix,
//! [`HEAD_LEN`] bytes, so they agree whatever their chunk sizes.

use crate::scan::{Record, Scanner, UTF8_BOM};
use std::ops::Range;

/// Bytes of the file the dialect is told from.
pub const HEAD_LEN: usize = 64 << 10;

/// Records (the header and the first rows) whose field counts decide.
const SAMPLE: usize = 50;

/// The delimiters bdxlint recognises. The platform's is the first.
pub(crate) const DELIMITERS: [u8; 4] = [b',', b';', b'\t', b'|'];

/// Excel's first line naming the delimiter (`sep=;`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SepLine {
    /// The line, without its line ending, in file offsets.
    pub(crate) span: Range<usize>,
    pub(crate) delim: u8,
}

/// What the head of a file says about how to read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dialect {
    pub(crate) delim: u8,
    /// Where reading starts: past a UTF-8 BOM and a `sep=` line.
    pub(crate) skip: usize,
    /// Lines skipped before `skip` (the `sep=` line).
    pub(crate) skip_lines: u64,
    pub(crate) sep_line: Option<SepLine>,
}

impl Dialect {
    /// A scanner of `buf` in this dialect.
    pub(crate) fn scanner<'a>(&self, buf: &'a [u8], pos: usize, line: u64) -> Scanner<'a> {
        Scanner::with_delimiter(buf, pos, line, self.delim)
    }
}

/// How the delimiter is named in messages.
pub(crate) fn delimiter_name(d: u8) -> &'static str {
    match d {
        b',' => "`,` (comma)",
        b';' => "`;` (semicolon)",
        b'\t' => "TAB",
        b'|' => "`|` (vertical bar)",
        _ => "an unusual byte",
    }
}

/// The dialect of a file whose first bytes are `head` (at most
/// [`HEAD_LEN`] of them are read; `whole` says `head` is the whole file).
pub(crate) fn sniff(head: &[u8], whole: bool) -> Dialect {
    let head = &head[..head.len().min(HEAD_LEN)];
    let whole = whole && head.len() < HEAD_LEN;
    let bom = if head.starts_with(&UTF8_BOM) {
        UTF8_BOM.len()
    } else {
        0
    };
    if let Some((sep, next)) = sep_line(head, bom) {
        return Dialect {
            delim: sep.delim,
            skip: next,
            skip_lines: 1,
            sep_line: Some(sep),
        };
    }
    Dialect {
        delim: delimiter(&head[bom..], whole),
        skip: bom,
        skip_lines: 0,
        sep_line: None,
    }
}

/// Excel's `sep=X` line at `at`, and where the next line starts.
fn sep_line(head: &[u8], at: usize) -> Option<(SepLine, usize)> {
    let rest = &head[at..];
    let key = rest.get(..4)?;
    if !key.eq_ignore_ascii_case(b"sep=") {
        return None;
    }
    let delim = *rest.get(4).filter(|d| DELIMITERS.contains(d))?;
    let end = at + 5;
    let next = match &head[end..] {
        [] => end,
        [b'\n', ..] => end + 1,
        [b'\r', b'\n', ..] => end + 2,
        _ => return None,
    };
    Some((
        SepLine {
            span: at..end,
            delim,
        },
        next,
    ))
}

/// The field counts of the first records of `body` read with `delim`,
/// leaving out a last record the head may have cut.
fn counts(body: &[u8], delim: u8, whole: bool) -> Vec<usize> {
    let mut s = Scanner::with_delimiter(body, 0, 1, delim);
    let mut rec = Record::default();
    let mut out = Vec::new();
    while out.len() < SAMPLE && s.next_record(&mut rec) {
        let cut = s.position() >= body.len() && !whole;
        if cut && !out.is_empty() {
            break;
        }
        out.push(rec.fields.len());
    }
    out
}

/// The delimiter that explains `body`: commas whenever their header has
/// two fields or more and every sampled row has as many; otherwise the one
/// other delimiter that does so with more fields than commas give. A comma
/// file whose cells hold `;` (lists, JSON, prose) keeps commas: its comma
/// fields are consistent, or its `;` fields are not.
pub(crate) fn delimiter(body: &[u8], whole: bool) -> u8 {
    let consistent = |c: &[usize]| {
        c.first()
            .is_some_and(|&h| h >= 2 && c.iter().all(|&n| n == h))
    };
    let comma = counts(body, b',', whole);
    if consistent(&comma) {
        return b',';
    }
    let header = comma.first().copied().unwrap_or(0);
    let mut fits = DELIMITERS[1..].iter().copied().filter(|&d| {
        let c = counts(body, d, whole);
        consistent(&c) && c[0] > header
    });
    match (fits.next(), fits.next()) {
        (Some(d), None) => d,
        _ => b',',
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delim(text: &str) -> u8 {
        sniff(text.as_bytes(), true).delim
    }

    #[test]
    fn semicolons_tabs_and_bars_are_told_apart_from_commas() {
        assert_eq!(delim("a;b;c\n1;2;3\n4;5;6\n"), b';');
        assert_eq!(delim("a\tb\tc\n1\t2\t3\n"), b'\t');
        assert_eq!(delim("a|b\n1|2\n"), b'|');
        assert_eq!(delim("a,b,c\n1,2,3\n"), b',');
        // Decimal commas in a `;` file.
        assert_eq!(delim("a;b;c\n1,5;2;3\n4;5,25;6\n"), b';');
        // A header alone.
        assert_eq!(delim("Employee ID;Work Email;First Name\n"), b';');
    }

    #[test]
    fn a_comma_file_whose_cells_hold_semicolons_keeps_commas() {
        assert_eq!(delim("a,b\nx;y,z\n1,2;3;4\n"), b',');
        assert_eq!(delim("Name,Roles\nada,a;b\nbob,c;d\n"), b',');
        // Ragged comma rows, but `;` explains nothing better.
        assert_eq!(delim("a,b,c\n1,2\nx;y,z;w,v\n"), b',');
        // One column: nothing to tell.
        assert_eq!(delim("a\nb\n"), b',');
        // Two other delimiters fit equally: not a guess.
        assert_eq!(delim("a;b|c\n1;2|3\n"), b',');
    }

    #[test]
    fn excel_sep_lines_are_read_and_skipped() {
        let d = sniff(b"sep=;\r\na;b\n1;2\n", true);
        assert_eq!((d.delim, d.skip, d.skip_lines), (b';', 7, 1));
        assert_eq!(d.sep_line.map(|s| s.span), Some(0..5));
        let d = sniff(b"\xEF\xBB\xBFSEP=,\na,b\n", true);
        assert_eq!((d.delim, d.skip), (b',', 9));
        assert!(sniff(b"sep=;x\n", true).sep_line.is_none());
        assert!(sniff(b"sep=\"\n", true).sep_line.is_none());
        assert_eq!(sniff(b"\xEF\xBB\xBFa,b\n", true).skip, 3);
    }

    #[test]
    fn a_cut_last_record_does_not_count() {
        // The head ends inside the third record, whose count would differ.
        assert_eq!(sniff(b"a;b;c\n1;2;3\n4;5", false).delim, b';');
    }
}
