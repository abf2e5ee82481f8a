//! Findings about a record as CSV text, whatever its columns mean: broken
//! quoting, bytes that are not UTF-8 and NUL bytes. The header and the rows report
//! them alike, so they live here rather than in either.

use super::emit::Emitter;
use super::finding::Finding;
use crate::rules;
use crate::scan::{FieldSpan, QuoteProblemKind, Record};
use std::sync::Arc;

/// Reports a record's quoting problems.
pub(crate) fn report_quoting(
    data: &[u8],
    rec: &Record,
    names: &[Arc<str>],
    emit: &mut Emitter<'_>,
) {
    for p in &rec.problems {
        let column = names.get(p.field).cloned();
        let (rule, msg, help) = match p.kind {
            QuoteProblemKind::Unterminated => (
                &rules::UNTERMINATED_QUOTE,
                "this quote is never closed: the rest of the file is read as one cell",
                "close the quoted field, and double every quote inside it (`\"\"`)",
            ),
            QuoteProblemKind::Bare => (
                &rules::BARE_QUOTE,
                "a quote inside an unquoted field",
                "quote the whole field and double the quotes inside it: `\"say \"\"hi\"\"\"`",
            ),
            QuoteProblemKind::AfterQuote => (
                &rules::TEXT_AFTER_QUOTE,
                "text after the closing quote of a field",
                "double the quotes inside the field (`\"\"`), or move the text inside the quotes",
            ),
        };
        let end = (p.at + 1).min(data.len());
        emit.report_at(
            p.at..end,
            p.line,
            p.line_start,
            Finding::new(rule, msg).help(help).column(column),
        );
    }
}

/// Reports the first invalid UTF-8 sequence in `data[a..b]`.
pub(crate) fn report_utf8(
    data: &[u8],
    a: usize,
    b: usize,
    f: &FieldSpan,
    column: Option<Arc<str>>,
    emit: &mut Emitter<'_>,
) {
    let Err(e) = std::str::from_utf8(&data[a..b]) else {
        return;
    };
    let at = a + e.valid_up_to();
    let len = e.error_len().unwrap_or(b - at).max(1);
    let bytes: Vec<String> = data[at..at + len]
        .iter()
        .map(|x| format!("0x{x:02X}"))
        .collect();
    emit.report_in(
        at..at + len,
        f,
        Finding::new(
            &rules::INVALID_UTF8,
            format!("byte {} is not valid UTF-8", bytes.join(" ")),
        )
        .help("save the file as UTF-8 (it looks like Latin-1 or Windows-1252)")
        .column(column),
    );
}

/// Reports the NUL bytes of field `f` (its whole span, quotes included):
/// one finding for the cell, on the first.
pub(crate) fn report_nul(
    data: &[u8],
    f: &FieldSpan,
    column: Option<Arc<str>>,
    emit: &mut Emitter<'_>,
) {
    let cell = &data[f.start..f.end];
    let Some(first) = memchr::memchr(0, cell) else {
        return;
    };
    let at = f.start + first;
    let message = match bytecount::count(cell, 0) {
        1 => "a NUL byte (0x00) in this cell".to_owned(),
        n => format!("{n} NUL bytes (0x00) in this cell, the first here"),
    };
    emit.report_in(
        at..at + 1,
        f,
        Finding::new(&rules::NUL_BYTE, message)
            .help("delete the NUL bytes; one after every character means UTF-16: save the file as CSV UTF-8")
            .column(column),
    );
}

/// Reports the NUL bytes of each field of `rec`: the usual record has
/// none, and one search of the whole record settles that.
pub(crate) fn report_nuls(data: &[u8], rec: &Record, names: &[Arc<str>], emit: &mut Emitter<'_>) {
    if memchr::memchr(0, &data[rec.start..rec.end]).is_none() {
        return;
    }
    for (i, f) in rec.fields.iter().enumerate() {
        report_nul(data, f, names.get(i).cloned(), emit);
    }
}

/// Whether a field's content is empty or only spaces and tabs.
pub(super) fn blank(cell: &[u8]) -> bool {
    cell.iter().all(|&b| b == b' ' || b == b'\t')
}

/// Whether `rec` is an empty row: only delimiters (and spaces), as a
/// spreadsheet writes a formatted but empty line. Quoted empty cells
/// count as empty; a row with quoting problems is not one.
pub(super) fn empty_row(data: &[u8], rec: &Record) -> bool {
    rec.problems.is_empty()
        && rec.fields.iter().all(|f| {
            let (a, b) = f.content();
            blank(&data[a..b])
        })
}
