//! Checking one file against a schema table.
//!
//! The file is read in chunks that end at record boundaries (found by the
//! quote-parity scan of [`crate::scan::RecordBoundaries`]), so memory stays
//! bounded by the chunk size, whatever the file size. Chunks are checked in
//! parallel on rayon with chunk-relative line numbers, then folded back in
//! file order, which makes the output identical at any thread count: chunk
//! boundaries depend on bytes only, never on the number of threads.

pub mod header;
mod row;
pub mod shapes;

use crate::diagnostic::{Diagnostic, Severity, Snippet};
use crate::error::Error;
use crate::rules::{self, Rule};
use crate::scan::{LineEnding, Record, RecordBoundaries, Scanner};
use crate::schema::{self, Detection, Table};
use rayon::prelude::*;
use std::io::Read;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

pub use row::Plan;

/// What to check and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// The format's name; `None` detects it from the header.
    pub format: Option<String>,
    /// Capture source lines for the human renderer.
    pub snippets: bool,
    /// Target bytes per chunk.
    pub chunk_size: usize,
    /// A single record longer than this stops the file: it is almost always
    /// an unterminated quote swallowing the rest, and holding it would make
    /// memory grow with the file.
    pub max_record_bytes: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            format: None,
            snippets: true,
            chunk_size: 1 << 20,
            max_record_bytes: 64 << 20,
        }
    }
}

/// The outcome of checking one file.
#[derive(Debug)]
pub struct FileReport {
    /// The path as given by the user (or `-`).
    pub path: String,
    /// The format it was checked as, if one was found.
    pub format: Option<&'static str>,
    /// Data records (rows after the header).
    pub records: u64,
    pub diagnostics: Vec<Diagnostic>,
}

impl FileReport {
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }
}

/// Checks a file on disk. I/O failures are fatal for this file only.
pub fn check_path(path: &Path, opts: &Options) -> Result<FileReport, Error> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let name = path.file_name().and_then(|n| n.to_str());
    check_reader(file, &path.display().to_string(), name, opts).map_err(|e| match e {
        Error::Io { source, .. } => Error::io(path, source),
        other => other,
    })
}

/// Checks CSV bytes from any reader. `display` names the file in findings;
/// `file_name` helps format detection break ties.
pub fn check_reader<R: Read>(
    reader: R,
    display: &str,
    file_name: Option<&str>,
    opts: &Options,
) -> Result<FileReport, Error> {
    let mut report = FileReport {
        path: display.to_owned(),
        format: None,
        records: 0,
        diagnostics: Vec::new(),
    };
    let mut chunks = ChunkReader::new(reader, opts.chunk_size, opts.max_record_bytes);
    let io = |e| Error::io(display, e);
    let Some(first) = chunks.next_chunk().map_err(io)? else {
        if let Some(span) = chunks.too_long.take() {
            report.diagnostics.push(runaway_record(span, opts));
            return Ok(report);
        }
        report.diagnostics.push(file_diag(
            &rules::EMPTY_FILE,
            0..0,
            "the file is empty".into(),
            "write the header row first: `bdxlint template FORMAT` prints one",
        ));
        return Ok(report);
    };
    let data = first.data.as_slice();
    let mut start = 0;
    if data.starts_with(&[0xEF, 0xBB, 0xBF]) {
        start = 3;
        report.diagnostics.push(file_diag(
            &rules::UTF8_BOM,
            0..3,
            "the file starts with a UTF-8 byte-order mark".into(),
            "bdxlint skips it; save without BOM if the upload rejects the first column",
        ));
    } else if let Some(enc) = wide_encoding(data) {
        report.diagnostics.push(file_diag(
            &rules::UNSUPPORTED_ENCODING,
            0..2,
            format!("the file is {enc}, not UTF-8"),
            "save the file as CSV UTF-8",
        ));
        return Ok(report);
    }
    if chunks.eof && data[start..].iter().all(u8::is_ascii_whitespace) {
        report.diagnostics.push(file_diag(
            &rules::EMPTY_FILE,
            0..data.len() as u64,
            "the file has no header row".into(),
            "write the header row first: `bdxlint template FORMAT` prints one",
        ));
        return Ok(report);
    }

    let mut scanner = Scanner::new(data, start, 1);
    let mut rec = Record::default();
    // A non-blank file has at least one record in its first chunk.
    scanner.next_record(&mut rec);
    let header = header::read_header(data, &rec);
    let table = match &opts.format {
        Some(name) => schema::table(name)?.ok_or_else(|| unknown_format(name))?,
        None => {
            let names: Vec<&str> = header.names.iter().map(|n| n.as_str()).collect();
            match schema::detect_format(schema::tables()?, &names, file_name) {
                Detection::Found(name) => {
                    schema::table(name)?.ok_or_else(|| unknown_format(name))?
                }
                Detection::Ambiguous(c) => {
                    return Err(Error::Detect {
                        path: display.into(),
                        candidates: format!("it fits {}", c.join(", ")),
                    })
                }
                Detection::NoMatch => {
                    return Err(Error::Detect {
                        path: display.into(),
                        candidates: "it fits no known format".into(),
                    })
                }
            }
        }
    };
    report.format = Some(leak_name(table));

    let mut emit = Emitter::new(data, opts.snippets);
    let plan = Plan::new(table, &header, data, &rec, &mut emit);
    if let Some(text) = &table.deprecated {
        emit.row(
            &rules::DEPRECATED_FORMAT,
            None,
            &rec,
            format!("the {} format is deprecated", table.name),
            Some(text.clone()),
        );
    }
    let header_ending = rec.ending;
    let mut fold = Fold::new(header_ending, scanner.line());
    report.diagnostics.append(&mut emit.diags);

    // The rest of the first chunk, then every later chunk, in parallel
    // batches. Each chunk is checked with lines counted from 1 and fixed up
    // in the fold.
    let first_rest = Chunk {
        base: first.base + scanner.position() as u64,
        data: first.data[scanner.position()..].to_vec(),
    };
    drop(first);
    let batch_len = rayon::current_num_threads().max(1) * 2;
    let mut batch = vec![first_rest];
    loop {
        while batch.len() < batch_len {
            match chunks.next_chunk().map_err(io)? {
                Some(c) => batch.push(c),
                None => break,
            }
        }
        if batch.is_empty() {
            break;
        }
        let results: Vec<ChunkResult> = batch
            .par_iter()
            .map(|c| check_chunk(&plan, c, opts.snippets))
            .collect();
        for r in results {
            fold.add(r, &mut report);
        }
        batch.clear();
        if chunks.eof && chunks.buf.is_empty() {
            break;
        }
    }
    if let Some(span) = chunks.too_long.take() {
        report.diagnostics.push(runaway_record(span, opts));
    }
    fold.finish(&mut report);
    Ok(report)
}

/// A record longer than `max_record_bytes`: reading stopped there.
fn runaway_record(span: Range<u64>, opts: &Options) -> Diagnostic {
    file_diag(
        &rules::UNTERMINATED_QUOTE,
        span.clone(),
        format!(
            "a record starting at byte {} runs past {} MiB; checking stopped there",
            span.start,
            opts.max_record_bytes >> 20
        ),
        "a quote is probably never closed: close it, and double quotes inside quoted fields",
    )
}

fn unknown_format(name: &str) -> Error {
    Error::UnknownFormat {
        name: name.to_owned(),
        known: schema::format_names().collect::<Vec<_>>().join(", "),
    }
}

/// Tables live for the whole program; their names can be `'static`.
fn leak_name(table: &'static Table) -> &'static str {
    table.name.as_str()
}

fn wide_encoding(data: &[u8]) -> Option<&'static str> {
    if data.starts_with(&[0xFF, 0xFE, 0, 0]) || data.starts_with(&[0, 0, 0xFE, 0xFF]) {
        Some("UTF-32")
    } else if data.starts_with(&[0xFF, 0xFE]) || data.starts_with(&[0xFE, 0xFF]) {
        Some("UTF-16")
    } else {
        None
    }
}

fn file_diag(rule: &'static Rule, span: Range<u64>, message: String, help: &str) -> Diagnostic {
    Diagnostic {
        rule,
        severity: rule.severity,
        message,
        help: Some(help.to_owned()),
        line: 1,
        col: 1,
        column: None,
        span,
        related: Vec::new(),
        snippet: None,
    }
}

/// Bytes of whole records and their offset in the file.
struct Chunk {
    base: u64,
    data: Vec<u8>,
}

/// Reads a stream into chunks of about `chunk_size` bytes that end at
/// record boundaries.
struct ChunkReader<R> {
    r: R,
    buf: Vec<u8>,
    /// How much of `buf` the boundary scan has seen.
    scanned: usize,
    last_boundary: Option<usize>,
    bounds: RecordBoundaries,
    base: u64,
    eof: bool,
    chunk_size: usize,
    max_record: usize,
    /// Set when a record exceeded `max_record`; reading stopped.
    too_long: Option<Range<u64>>,
}

impl<R: Read> ChunkReader<R> {
    fn new(r: R, chunk_size: usize, max_record: usize) -> Self {
        ChunkReader {
            r,
            buf: Vec::new(),
            scanned: 0,
            last_boundary: None,
            bounds: RecordBoundaries::default(),
            base: 0,
            eof: false,
            chunk_size: chunk_size.max(1),
            max_record,
            too_long: None,
        }
    }

    fn next_chunk(&mut self) -> std::io::Result<Option<Chunk>> {
        loop {
            if self.scanned < self.buf.len() {
                if let Some(b) = self.bounds.last_boundary(&self.buf[self.scanned..]) {
                    self.last_boundary = Some(self.scanned + b);
                }
                self.scanned = self.buf.len();
            }
            if self.eof || (self.buf.len() >= self.chunk_size && self.last_boundary.is_some()) {
                break;
            }
            let pending = self.buf.len() - self.last_boundary.unwrap_or(0);
            if pending > self.max_record {
                let start = self.base + self.last_boundary.unwrap_or(0) as u64;
                self.too_long = Some(start..start + pending as u64);
                // Stop reading; what is before the record is still checked.
                self.eof = true;
                self.buf.truncate(self.last_boundary.unwrap_or(0));
                break;
            }
            let want = self.chunk_size.max(self.buf.len() / 2) as u64;
            let n = (&mut self.r).take(want).read_to_end(&mut self.buf)?;
            if n == 0 {
                self.eof = true;
            }
        }
        if self.buf.is_empty() {
            return Ok(None);
        }
        let cut = if self.eof {
            self.buf.len()
        } else {
            self.last_boundary
                .expect("loop exits with a boundary unless at eof")
        };
        let mut rest = Vec::with_capacity(self.chunk_size.max(self.buf.len() - cut));
        rest.extend_from_slice(&self.buf[cut..]);
        let mut data = std::mem::replace(&mut self.buf, rest);
        data.truncate(cut);
        let chunk = Chunk {
            base: self.base,
            data,
        };
        self.base += cut as u64;
        self.scanned = self.buf.len();
        self.last_boundary = None;
        Ok(Some(chunk))
    }
}

/// Line endings seen in a chunk, for `mixed-line-endings`.
#[derive(Debug, Default, Clone)]
struct Endings {
    /// (relative line, file span of the record) of the first of each kind.
    first_lf: Option<(u64, Range<u64>)>,
    first_crlf: Option<(u64, Range<u64>)>,
}

struct ChunkResult {
    diags: Vec<Diagnostic>,
    records: u64,
    /// Newlines in the chunk: the next chunk starts this many lines later.
    lines: u64,
    endings: Endings,
}

fn check_chunk(plan: &Plan, chunk: &Chunk, snippets: bool) -> ChunkResult {
    let data = chunk.data.as_slice();
    let mut emit = Emitter::new(data, snippets);
    let mut scanner = Scanner::new(data, 0, 1);
    let mut rec = Record::default();
    let mut records = 0;
    let mut endings = Endings::default();
    let mut cells = row::Cells::default();
    while scanner.next_record(&mut rec) {
        records += 1;
        let span = chunk.base + rec.start as u64..chunk.base + rec.end as u64;
        match rec.ending {
            Some(LineEnding::Lf) if endings.first_lf.is_none() => {
                endings.first_lf = Some((rec.line, span))
            }
            Some(LineEnding::CrLf) if endings.first_crlf.is_none() => {
                endings.first_crlf = Some((rec.line, span))
            }
            _ => {}
        }
        plan.check_record(data, &rec, &mut cells, &mut emit);
    }
    let mut diags = emit.diags;
    for d in &mut diags {
        d.span.start += chunk.base;
        d.span.end += chunk.base;
        if let Some(s) = &mut d.snippet {
            s.offset += chunk.base;
        }
    }
    ChunkResult {
        diags,
        records,
        lines: scanner.line() - 1,
        endings,
    }
}

/// Folds chunk results in file order.
struct Fold {
    /// Line number of the next chunk's first line.
    next_line: u64,
    /// The line ending the file uses, from its first terminated record.
    convention: Option<LineEnding>,
    mixed: Option<(u64, Range<u64>, LineEnding)>,
}

impl Fold {
    fn new(header_ending: Option<LineEnding>, next_line: u64) -> Self {
        Fold {
            next_line,
            convention: header_ending.filter(|e| *e != LineEnding::Eof),
            mixed: None,
        }
    }

    fn add(&mut self, r: ChunkResult, report: &mut FileReport) {
        let shift = self.next_line - 1;
        let abs = |line: u64| line + shift;
        report.diagnostics.extend(r.diags.into_iter().map(|mut d| {
            d.line = abs(d.line);
            if let Some(s) = &mut d.snippet {
                s.line = abs(s.line);
            }
            for rel in &mut d.related {
                rel.line = abs(rel.line);
            }
            d
        }));
        report.records += r.records;
        if self.mixed.is_none() {
            let lf = r.endings.first_lf.map(|(l, s)| (abs(l), s, LineEnding::Lf));
            let crlf = r
                .endings
                .first_crlf
                .map(|(l, s)| (abs(l), s, LineEnding::CrLf));
            if self.convention.is_none() {
                self.convention = [&lf, &crlf]
                    .into_iter()
                    .flatten()
                    .min_by_key(|e| e.0)
                    .map(|e| e.2);
            }
            self.mixed = match self.convention {
                Some(LineEnding::Lf) => crlf,
                Some(LineEnding::CrLf) => lf,
                _ => None,
            };
        }
        self.next_line += r.lines;
    }

    fn finish(self, report: &mut FileReport) {
        if let Some((line, span, kind)) = self.mixed {
            let (found, want) = match kind {
                LineEnding::CrLf => ("CRLF", "LF"),
                _ => ("LF", "CRLF"),
            };
            report.diagnostics.push(Diagnostic {
                rule: &rules::MIXED_LINE_ENDINGS,
                severity: rules::MIXED_LINE_ENDINGS.severity,
                message: format!("line {line} ends with {found}; earlier lines end with {want}"),
                help: Some(format!("use {want} line endings throughout")),
                line,
                col: 1,
                column: None,
                span,
                related: Vec::new(),
                snippet: None,
            });
        }
        report
            .diagnostics
            .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    }
}

/// Collects diagnostics for one buffer, turning buffer offsets into lines,
/// columns and snippets while the bytes are at hand.
pub(crate) struct Emitter<'a> {
    data: &'a [u8],
    snippets: bool,
    pub(crate) diags: Vec<Diagnostic>,
}

/// Longest snippet kept per diagnostic, so a huge cell does not balloon the
/// report.
const MAX_SNIPPET: usize = 4096;

impl<'a> Emitter<'a> {
    pub(crate) fn new(data: &'a [u8], snippets: bool) -> Self {
        Emitter {
            data,
            snippets,
            diags: Vec::new(),
        }
    }

    /// A finding on `span` (buffer offsets) whose line starts at `line_start`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn at(
        &mut self,
        rule: &'static Rule,
        severity: Option<Severity>,
        span: Range<usize>,
        line: u64,
        line_start: usize,
        column: Option<Arc<str>>,
        message: String,
        help: Option<String>,
    ) {
        let col = 1 + self.data[line_start..span.start]
            .iter()
            .filter(|b| (**b & 0xC0) != 0x80)
            .count() as u64;
        let snippet = self.snippets.then(|| self.snippet(line, line_start, &span));
        self.diags.push(Diagnostic {
            rule,
            severity: severity.unwrap_or(rule.severity),
            message,
            help,
            line,
            col,
            column,
            span: span.start as u64..span.end as u64,
            related: Vec::new(),
            snippet,
        });
    }

    /// A finding on `span`, which lies inside field `f` (on its first line or,
    /// for a quoted cell holding newlines, a later one).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn in_field(
        &mut self,
        rule: &'static Rule,
        severity: Option<Severity>,
        span: Range<usize>,
        f: &crate::scan::FieldSpan,
        column: Option<Arc<str>>,
        message: String,
        help: Option<String>,
    ) {
        let before = &self.data[f.start..span.start];
        let (line, line_start) = match memchr::memrchr(b'\n', before) {
            None => (f.line, f.line_start),
            Some(last) => (
                f.line + memchr::memchr_iter(b'\n', before).count() as u64,
                f.start + last + 1,
            ),
        };
        self.at(
            rule, severity, span, line, line_start, column, message, help,
        );
    }

    /// A finding about a whole record.
    pub(crate) fn row(
        &mut self,
        rule: &'static Rule,
        severity: Option<Severity>,
        rec: &Record,
        message: String,
        help: Option<String>,
    ) {
        self.at(
            rule,
            severity,
            rec.start..rec.end,
            rec.line,
            rec.start,
            None,
            message,
            help,
        );
    }

    fn snippet(&self, line: u64, line_start: usize, span: &Range<usize>) -> Snippet {
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
        Snippet {
            offset: from as u64,
            line,
            text,
        }
    }
}

/// Decodes bytes keeping every byte offset: invalid bytes become `?`
/// (U+FFFD would take three bytes and shift later spans).
fn lossy_same_length(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        out.extend(std::iter::repeat_n('?', chunk.invalid().len()));
    }
    out
}
