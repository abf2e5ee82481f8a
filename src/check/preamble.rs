//! The file's preamble, before any row: the dialect and encoding told
//! from the first 64 KiB, a BOM, a `sep=` line, the header found and
//! checked, and the format's table chosen; and the same reading for the
//! callers that need only a file's header (`header_names`,
//! `sniff_format`) or its dialect (`read_dialect`, `reads_alike`).

use super::chunk::{Chunk, ChunkReader};
use super::emit::{Emitter, Snippets};
use super::finding::{file_diag, Finding, FixBuilder};
use super::header::{self, Header};
use super::options::Options;
use super::{dialect, encoding, magic, record};
use crate::diagnostic::{Diagnostic, FileReport, Transform};
use crate::error::Error;
use crate::rules;
use crate::scan::Record;
use crate::schema::{self, Detection, Table};
use std::io::Read;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

/// Most header names a file may have: the widest format has 29 columns.
pub const MAX_COLUMNS: usize = 1024;

/// Longest header read ahead of a check to tell a file's format.
pub const MAX_HEADER: u64 = 1 << 20;

/// The names of a CSV text's first record, read from at most
/// [`MAX_HEADER`] bytes of `r` the way the check reads a header (a leading
/// BOM and a `sep=` line skipped, the same tokenizer in the same dialect,
/// names decoded lossily); empty when there is no record. Reads the bytes
/// the dialect is told from, and further only while the first record has
/// not ended: sniffing a large file's format (for the batch, before any
/// file is checked) reads its head, not a MiB of rows.
pub fn header_names(mut r: impl Read) -> std::io::Result<Vec<String>> {
    let mut buf = Vec::new();
    let mut want = dialect::HEAD_LEN as u64;
    loop {
        let have = buf.len() as u64;
        (&mut r).take(want - have).read_to_end(&mut buf)?;
        let ended = (buf.len() as u64) < want;
        // Told from the same prefix as the check tells it.
        let head = &buf[..buf.len().min(dialect::HEAD_LEN)];
        let dialect = dialect::sniff(head, buf.len() < dialect::HEAD_LEN);
        let data = &buf[dialect.skip.min(buf.len())..];
        let mut rec = Record::default();
        let found = dialect.scanner(data, 0, 1).next_record(&mut rec);
        // A record whose content ends before the bytes read do was ended
        // by a line ending: the tokenizer reads in order, so more bytes
        // would not change it.
        if ended || want >= MAX_HEADER || (found && rec.end < data.len()) {
            if !found {
                return Ok(Vec::new());
            }
            return Ok(header::read_header(data, &rec).names);
        }
        want = (want * 4).min(MAX_HEADER);
    }
}

/// The format a CSV file's header fits, read from its first MiB, the way
/// [`check_reader`](crate::check::check_reader) detects it; `None` when it fits none or cannot be read
/// (checking the file then says why). For the batch checks, which need
/// every file's format before any file is checked.
/// `strict`: a file a directory walk found, taken only on strong evidence
/// (see [`Options::strict_detection`]).
pub fn sniff_format(path: &Path, strict: bool) -> Option<&'static str> {
    let names = header_names(std::fs::File::open(path).ok()?).ok()?;
    if names.is_empty() {
        return None;
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let file_name = path.file_name().and_then(|n| n.to_str());
    match schema::detect_format(schema::tables().ok()?, &names, file_name) {
        Detection::Found(name) => {
            let table = schema::table(name).ok()??;
            (!strict || schema::evidence(table, &names, file_name).is_strong())
                .then_some(table.name.as_str())
        }
        _ => None,
    }
}

pub(super) const NO_HEADER_HELP: &str =
    "write the header row first: `bdxlint template FORMAT` prints one";

/// Reads the rest of the input while it holds only whitespace: true when it
/// ends so. A record too long to hold is not known to be whitespace.
pub(super) fn only_whitespace_left<R: Read>(chunks: &mut ChunkReader<R>) -> std::io::Result<bool> {
    while let Some(c) = chunks.next_chunk()? {
        if !c.data.iter().all(u8::is_ascii_whitespace) {
            return Ok(false);
        }
    }
    Ok(chunks.too_long.is_none())
}

/// A record longer than `max_record_bytes`, starting on `line`: reading
/// stopped there.
pub(super) fn runaway_record(span: Range<u64>, line: u64, opts: &Options) -> Diagnostic {
    Finding::new(
        &rules::UNTERMINATED_QUOTE,
        format!(
            "a record starting at byte {} runs past {} MiB; checking stopped there",
            span.start,
            opts.max_record_bytes >> 20
        ),
    )
    .help("a quote is probably never closed: close it, and double quotes inside quoted fields")
    .file_at(span, line, 1)
}

/// The dialect of what `reader` reads, told from its first
/// [`dialect::HEAD_LEN`] bytes as the check tells it, and a reader of all
/// of it.
pub(crate) fn read_dialect<R: Read>(
    mut reader: R,
) -> std::io::Result<(dialect::Dialect, impl Read)> {
    let mut head = Vec::with_capacity(dialect::HEAD_LEN);
    (&mut reader)
        .take(dialect::HEAD_LEN as u64)
        .read_to_end(&mut head)?;
    let d = dialect::sniff(&head, head.len() < dialect::HEAD_LEN);
    Ok((d, std::io::Cursor::new(head).chain(reader)))
}

/// Offset of a `\r` not followed by `\n`, if any.
pub(super) fn bare_cr(bytes: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'\r', bytes).find(|&i| bytes.get(i + 1) != Some(&b'\n'))
}

pub(super) fn unknown_format(name: &str) -> Error {
    Error::UnknownFormat {
        name: name.to_owned(),
        known: schema::format_names().collect::<Vec<_>>().join(", "),
    }
}

/// Whether files whose first [`dialect::HEAD_LEN`] bytes are `a` and `b`
/// are read alike: the same dialect, the same encoding as far as those
/// bytes tell it. A fix inside the check that changed the head (a row made
/// shorter pulls another into it) must not have changed either, or its
/// findings are not those of the fixed file.
pub fn reads_alike(a: &[u8], b: &[u8]) -> bool {
    let tell = |h: &[u8]| {
        let whole = h.len() < dialect::HEAD_LEN;
        (
            magic::identify(h),
            magic::wide_encoding(h),
            dialect::sniff(h, whole),
            encoding::from_head(h, whole),
        )
    };
    tell(a) == tell(b)
}

/// The header as the preamble read it: the chunk it is in, the record,
/// its names and the table the file is checked against.
pub(super) struct Head {
    /// The chunk that holds the header (and the rows after it).
    pub(super) first: Chunk,
    /// Where the header record starts in `first`.
    pub(super) start: usize,
    pub(super) rec: Record,
    /// Where the rows start in `first`, and on which line.
    pub(super) end: usize,
    pub(super) next_line: u64,
    pub(super) header: Header,
    pub(super) table: &'static Table,
    pub(super) delim: u8,
}

/// Reads the preamble of `reader`: a BOM, a wide encoding, the dialect, a
/// `sep=` line, the header found past blank lines and checked, and the
/// format's table. Its findings go to `report`; `None` when the file ends
/// there or its header is too broken to check rows against (the findings
/// say why). The chunk reader then reads on after the header's chunk.
pub(super) fn read<R: Read>(
    reader: R,
    report: &mut FileReport,
    file_name: Option<&str>,
    opts: &Options,
) -> Result<Option<(Head, ChunkReader<impl Read>)>, Error> {
    let forced = match &opts.format {
        Some(name) => Some(schema::table(name)?.ok_or_else(|| unknown_format(name))?),
        None => None,
    };
    report.format = forced.map(|t| t.name.as_str());
    let io = |e| Error::io(&report.path, e);
    let Some((dialect, mut chunks)) = open(reader, opts, &mut report.diagnostics).map_err(io)?
    else {
        return Ok(None);
    };
    let Some((first, start, line)) =
        find_header(&mut chunks, &dialect, opts, &mut report.diagnostics).map_err(io)?
    else {
        return Ok(None);
    };
    let Some((rec, end, next_line)) = check_header(
        &first,
        start,
        line,
        &dialect,
        &mut chunks,
        opts,
        &mut report.diagnostics,
    )
    .map_err(io)?
    else {
        return Ok(None);
    };
    let header = header::read_header(&first.data, &rec);
    let table = match forced {
        Some(t) => t,
        None => detect(&header, file_name, &report.path, opts.strict_detection)?,
    };
    report.format = Some(table.name.as_str());
    let head = Head {
        first,
        start,
        rec,
        end,
        next_line,
        header,
        table,
        delim: dialect.delim,
    };
    Ok(Some((head, chunks)))
}

/// Reads the head of the input, which tells the encoding and the dialect,
/// and reports a BOM, a `sep=` line, or a file that is not CSV text (a
/// wide encoding, a workbook, an archive: that stops the check, `None`); then a chunk reader of the whole input.
fn open<R: Read>(
    mut reader: R,
    opts: &Options,
    found: &mut Vec<Diagnostic>,
) -> std::io::Result<Option<(dialect::Dialect, ChunkReader<impl Read>)>> {
    // The encoding and the dialect are told from the same bytes whatever
    // the chunk size: a fixed prefix, read before any chunk. (From the
    // first chunk, a file whose first record is short was sniffed from that
    // record alone.)
    let mut head = Vec::with_capacity(dialect::HEAD_LEN);
    (&mut reader)
        .take(dialect::HEAD_LEN as u64)
        .read_to_end(&mut head)?;
    if head.starts_with(&crate::scan::UTF8_BOM) {
        found.push(
            Finding::from_template(&rules::UTF8_BOM, &[])
                .fix(FixBuilder::safe("remove the byte-order mark").edit(0..3u64, ""))
                .file(0..3),
        );
    } else if let Some(d) = magic::not_csv(&head) {
        // A workbook, an archive, UTF-16 text: one finding says what it
        // is, and nothing is read as rows.
        found.push(d);
        return Ok(None);
    }
    let dialect = dialect::sniff(&head, head.len() < dialect::HEAD_LEN);
    if let Some(sep) = &dialect.sep_line {
        // `sep=,`: the line goes. Another delimiter: the whole file is
        // rewritten with commas, which leaves the line out too.
        let fix = FixBuilder::safe("delete the `sep=` line");
        // Without the line, the rest is read with the delimiter the
        // sniffer picks from it: deleting the line must not change it.
        let rest = (sep.delim == b',')
            .then(|| dialect::delimiter(&head[dialect.skip..], head.len() < dialect::HEAD_LEN));
        let (fix, why) = match rest {
            None => (Some(fix.transform(Transform::ToCommas)), None),
            Some(b',') => (Some(fix.edit(sep.span.start..dialect.skip, "")), None),
            Some(d) => (
                None,
                Some(format!(
                    "not fixed: without this line the rows would be read split at {}, not at commas; rewrite them with commas as the delimiter, quoting any field that holds a comma, then delete the line",
                    dialect::delimiter_name(d)
                )),
            ),
        };
        let line = String::from_utf8_lossy(&head[sep.span.clone()]);
        let finding = Finding::from_template(&rules::SEP_LINE, &[("line", &line)]);
        let finding = match (fix, why) {
            (Some(fix), _) => finding.fix(fix),
            (None, Some(why)) => finding.help(why),
            (None, None) => finding,
        };
        found.push(finding.file(sep.span.start as u64..sep.span.end as u64));
    }
    let encoding = encoding::from_head(&head, head.len() < dialect::HEAD_LEN);
    let reader = std::io::Cursor::new(head).chain(reader);
    let mut chunks = ChunkReader::new(reader, opts.chunk_size, opts.max_record_bytes);
    chunks.encoding = Some(encoding);
    Ok(Some((dialect, chunks)))
}

/// Finds the header, the first record: the chunk it is in, where it starts
/// there, and its line. Blank lines before it are skipped exactly as the
/// tokenizer skips them between rows (empty, or a lone CRLF), whether they
/// fill whole chunks or share one with the header, and are counted so line
/// numbers stay right. `None` (and the finding that says so) when the file
/// has no record.
fn find_header<R: Read>(
    chunks: &mut ChunkReader<R>,
    dialect: &dialect::Dialect,
    opts: &Options,
    found: &mut Vec<Diagnostic>,
) -> std::io::Result<Option<(Chunk, usize, u64)>> {
    let mut start = dialect.skip;
    let mut line = 1 + dialect.skip_lines;
    // Bytes of blank lines (and a BOM, a `sep=` line) read before any record.
    let mut blank = 0;
    loop {
        let Some(chunk) = chunks.next_chunk()? else {
            if let Some(span) = chunks.too_long.take() {
                found.push(runaway_record(span, line, opts));
            } else {
                let message = if blank > 0 {
                    "the file has no header row, only blank lines"
                } else {
                    "the file has no header row"
                };
                found.push(file_diag(
                    &rules::EMPTY_FILE,
                    0..blank,
                    message.into(),
                    NO_HEADER_HELP,
                ));
            }
            return Ok(None);
        };
        blank = chunk.file_offset(chunk.data.len());
        // A skipped `sep=` line may fill a chunk of its own.
        if start >= chunk.data.len() {
            start -= chunk.data.len();
            continue;
        }
        let mut probe = dialect.scanner(&chunk.data, start, line);
        let mut rec = Record::default();
        if probe.next_record(&mut rec) {
            return Ok(Some((chunk, rec.start, rec.line)));
        }
        line = probe.line();
        start = 0;
    }
}

/// Reads the header record at `start` of `first` and reports what stops
/// rows from being read against it: another delimiter (which does not
/// stop them), a header of whitespace, a lone CR, broken quoting, too many
/// columns. The record, where the rows start and on which line; `None`
/// when the header is too broken to check rows against.
fn check_header<R: Read>(
    first: &Chunk,
    start: usize,
    line: u64,
    dialect: &dialect::Dialect,
    chunks: &mut ChunkReader<R>,
    opts: &Options,
    found: &mut Vec<Diagnostic>,
) -> std::io::Result<Option<(Record, usize, u64)>> {
    let data = first.data.as_slice();
    let mut scanner = dialect.scanner(data, start, line);
    let mut rec = Record::default();
    // `find_header` stopped at a chunk with a record there.
    scanner.next_record(&mut rec);
    if dialect.delim != b',' {
        // On the header's first delimiter: the one a comma should be.
        let at = rec.fields.first().map_or(rec.start, |f| f.end);
        let col = 1 + String::from_utf8_lossy(&data[rec.start..at])
            .chars()
            .count() as u64;
        let name = dialect::delimiter_name(dialect.delim);
        found.push(
            Finding::from_template(&rules::DELIMITER, &[("delimiter", name)])
                // The dialect was told from the header and rows alike (exactly
                // one delimiter fits): reading it so and writing commas keeps
                // every cell.
                .fix(
                    FixBuilder::safe("rewrite the file with commas").transform(Transform::ToCommas),
                )
                .file_at(
                    first.file_offset(at)..first.file_offset(at) + 1,
                    rec.line,
                    col,
                ),
        );
    }
    // A first record of spaces and tabs is not skipped: a CSV reader takes
    // it as the header, which names no column. It is one finding, not a
    // finding per missing column.
    if data[rec.start..rec.end].iter().all(u8::is_ascii_whitespace) {
        let rest = data[scanner.position()..]
            .iter()
            .all(u8::is_ascii_whitespace)
            && only_whitespace_left(chunks)?;
        found.push(if rest {
            file_diag(
                &rules::EMPTY_FILE,
                0..chunks.base,
                "the file has no header row, only blank lines".into(),
                NO_HEADER_HELP,
            )
        } else {
            Finding::new(
                &rules::EMPTY_FILE,
                format!(
                    "the file has no header row: line {} holds only whitespace",
                    rec.line
                ),
            )
            .help("delete the line, so that the header row comes first")
            .file_at(
                first.file_offset(rec.start)..first.file_offset(rec.end),
                rec.line,
                1,
            )
        });
        return Ok(None);
    }
    let mut emit = Emitter::new(data, Snippets::of(opts));
    if let Some(at) = bare_cr(&data[rec.start..rec.end]) {
        let at = rec.start + at;
        emit.report_at(
            at..at + 1,
            rec.line,
            rec.start,
            Finding::from_template(&rules::CR_LINE_ENDINGS, &[]),
        );
    }
    if !rec.problems.is_empty() {
        // A header whose quoting is broken has no trustworthy names.
        let names: Vec<Arc<str>> = header::read_header(data, &rec)
            .names
            .iter()
            .map(|n| Arc::from(n.as_str()))
            .collect();
        record::report_quoting(data, &rec, &names, &mut emit);
    }
    if !emit.diags.is_empty() {
        found.extend(emit.diags.into_iter().map(|d| first.rebase(d)));
        return Ok(None);
    }
    // A header far wider than any format: one finding, and no check that
    // would grow with its width (a finding per name, per row).
    if rec.fields.len() > MAX_COLUMNS {
        let span = rec.start as u64..rec.end as u64;
        let count = rec.fields.len().to_string();
        let max = MAX_COLUMNS.to_string();
        found.push(
            first.rebase(
                Finding::from_template(
                    &rules::TOO_MANY_COLUMNS,
                    &[("count", &count), ("max", &max)],
                )
                .file(span),
            ),
        );
        return Ok(None);
    }
    let (end, next_line) = (scanner.position(), scanner.line());
    Ok(Some((rec, end, next_line)))
}

/// The format the header's names fit, or the error that says why none or
/// several do; `strict` (a walked file): or why the one they fit is not
/// evidence enough.
fn detect(
    header: &Header,
    file_name: Option<&str>,
    display: &str,
    strict: bool,
) -> Result<&'static Table, Error> {
    let names: Vec<&str> = header.names.iter().map(|n| n.as_str()).collect();
    match schema::detect_format(schema::tables()?, &names, file_name) {
        Detection::Found(name) => {
            let table = schema::table(name)?.ok_or_else(|| unknown_format(name))?;
            if strict {
                let ev = schema::evidence(table, &names, file_name);
                if !ev.is_strong() {
                    return Err(Error::Detect {
                        path: display.into(),
                        candidates: ev.describe(name),
                    });
                }
            }
            Ok(table)
        }
        Detection::Ambiguous(c) => Err(Error::Detect {
            path: display.into(),
            candidates: format!("it fits {}", c.join(", ")),
        }),
        Detection::NoMatch => Err(Error::Detect {
            path: display.into(),
            candidates: "it fits no known format".into(),
        }),
    }
}
