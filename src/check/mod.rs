//! Checking one file against a schema table.
//!
//! The file is read in chunks that end at record boundaries (found by the
//! quote-parity scan of [`crate::scan::RecordBoundaries`]), so memory stays
//! bounded by the chunk size, whatever the file size. The calling thread
//! reads chunks and keeps a few in flight on rayon, where they are checked
//! with chunk-relative line numbers in any order; it folds the results back
//! in file order, which makes the output identical at any thread count:
//! chunk boundaries depend on bytes only, never on the number of threads.

pub mod batch;
mod cell_edits;
mod cross;
pub mod dates;
pub mod dialect;
pub mod encoding;
mod filter_grammar;
mod finding;
mod fptable;
mod grammar;
pub mod header;
mod record;
pub mod refs;
mod row;
mod row_fixer;
pub mod shapes;
mod sheet;
#[cfg(test)]
mod sniff_tests;
pub mod split;
mod text;

use crate::diagnostic::{Diagnostic, Severity, Snippet};
use crate::error::Error;
use crate::rules::{self, Rule};
use crate::scan::{LineEnding, Record, RecordBoundaries, Scanner};
use crate::schema::{self, Detection};
use std::collections::HashMap;
use std::io::Read;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError};

use crate::diagnostic::Transform;
pub use cross::MAX_DISTINCT_ROWS;
use cross::{CrossPlan, CrossState};
pub(crate) use finding::{file_diag, rebase};
use finding::{Finding, FixBuilder};
pub use row::Plan;
pub use row_fixer::{FixedChunks, RowFixes};

/// What to check and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// The format's name; `None` detects it from the header.
    pub format: Option<String>,
    /// Capture source lines for the human renderer.
    pub snippets: bool,
    /// Capture the text of the offending cell (JSON's `value`).
    pub values: bool,
    /// Report every row of a finding that is otherwise reported once a
    /// file (a column every row would need): `--split` must know each row.
    pub every_row: bool,
    /// Once the caller sets it, findings made from then on capture no
    /// source lines. A human report sets it when it hides a finding past
    /// `--max-diagnostics`: every finding the sink gets after a hidden one
    /// is hidden too, and a finding still being made has not reached it.
    pub snippet_stop: Option<Arc<AtomicBool>>,
    /// Once the caller sets it, chunks checked from then on feed the
    /// cross-row rules nothing: `--fix` sets it when a pass applied a fix,
    /// since that pass's findings are not reported (the fixed copy is
    /// checked again), and the cross-row state is a third of a check.
    pub cross_stop: Option<Arc<AtomicBool>>,
    /// Target bytes per chunk.
    pub chunk_size: usize,
    /// A single record longer than this stops the file: it is almost always
    /// an unterminated quote swallowing the rest, and holding it would make
    /// memory grow with the file.
    pub max_record_bytes: usize,
    /// Distinct rows the duplicate-row check remembers; later new rows are
    /// compared with those but not remembered (one info says so).
    pub max_distinct_rows: usize,
    /// Which cross-row rules run. One that nobody will see keeps no state
    /// (the CLI turns off those its rule filter drops).
    pub cross: CrossRules,
    /// The input's size in bytes, when known (a file's length). The
    /// duplicate-row map is then sized once, from the first chunk's rows
    /// per byte, instead of growing (and rehashing) as it fills.
    pub size_hint: Option<u64>,
    /// Once set (by a caller that stopped wanting the findings), the input
    /// reads as ended: the check finishes at once with an incomplete
    /// report, which the caller discards.
    pub cancel: Option<Arc<AtomicBool>>,
    /// `--fix` inside the check: rows whose fixes apply are fixed as they
    /// are checked and checked again fixed, and every chunk goes to the
    /// output, so the findings are those of the fixed file (see
    /// [`RowFixes`]).
    pub row_fixes: Option<Arc<RowFixes>>,
    /// The order of day and month in each date column, as a check of the
    /// whole file found it: a cell that reads as two dates gets the
    /// reading its column supports from the first row on. Without it the
    /// check learns the orders as it goes and says, in its
    /// [`dates::DateOrders`], whether it must be made again with them
    /// (see [`check_reader_dated`]).
    pub date_orders: Option<Arc<dates::DateOrders>>,
}

/// The cross-row rules to run, by the state they keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrossRules {
    /// `X001`-`X003`: a map entry per distinct identity value.
    pub identity: bool,
    /// `X004`: a map entry per distinct key value.
    pub unique: bool,
    /// `X005`: a map entry per distinct row.
    pub rows: bool,
}

impl Default for CrossRules {
    fn default() -> Self {
        CrossRules {
            identity: true,
            unique: true,
            rows: true,
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            format: None,
            snippets: true,
            values: false,
            every_row: false,
            snippet_stop: None,
            cross_stop: None,
            chunk_size: 1 << 20,
            max_record_bytes: 64 << 20,
            max_distinct_rows: MAX_DISTINCT_ROWS,
            cross: CrossRules::default(),
            size_hint: None,
            cancel: None,
            row_fixes: None,
            date_orders: None,
        }
    }
}

/// A reader that ends when `cancel` is set (see [`Options::cancel`]).
pub(crate) struct Cancellable<R> {
    inner: R,
    cancel: Option<Arc<AtomicBool>>,
}

impl<R> Cancellable<R> {
    pub(crate) fn new(inner: R, opts: &Options) -> Self {
        Cancellable {
            inner,
            cancel: opts.cancel.clone(),
        }
    }
}

impl<R: Read> Read for Cancellable<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            return Ok(0);
        }
        self.inner.read(buf)
    }
}

pub use crate::diagnostic::FileReport;

/// Checks a file on disk. I/O failures are fatal for this file only.
/// A file whose date columns turn out to read otherwise than the check
/// assumed on the way (see [`dates`]) is checked again with their orders.
pub fn check_path(path: &Path, opts: &Options) -> Result<FileReport, Error> {
    let mut opts = opts.clone();
    loop {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let name = path.file_name().and_then(|n| n.to_str());
        opts.size_hint = file.metadata().ok().map(|m| m.len());
        let mut found = Vec::new();
        let (mut report, dates) =
            check_reader_dated(file, &path.display().to_string(), name, &opts, &mut |d| {
                found.push(d)
            })
            .map_err(|e| match e {
                Error::Io { source, .. } => Error::io(path, source),
                other => other,
            })?;
        if dates.late() {
            opts.date_orders = Some(Arc::new(dates));
            continue;
        }
        found.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        report.diagnostics = found;
        return Ok(report);
    }
}

/// Checks CSV bytes from any reader. `display` names the file in findings;
/// `file_name` helps format detection break ties. The findings come back
/// in the report, sorted by position.
pub fn check_reader<R: Read>(
    reader: R,
    display: &str,
    file_name: Option<&str>,
    opts: &Options,
) -> Result<FileReport, Error> {
    let mut found = Vec::new();
    let mut report = check_reader_with(reader, display, file_name, opts, &mut |d| found.push(d))?;
    found.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    report.diagnostics = found;
    Ok(report)
}

/// Like [`check_reader`], but hands each finding to `sink` as soon as the
/// chunk it is in has been folded, so that memory does not grow with the
/// number of findings; the returned report has none. Findings arrive in
/// file order, except those reported once per file with a count of the
/// rows like them (and `unnamed-column-data`, `not-utf8`), which come last
/// (the count is known only at the end).
pub fn check_reader_with<R: Read>(
    reader: R,
    display: &str,
    file_name: Option<&str>,
    opts: &Options,
    sink: &mut dyn FnMut(Diagnostic),
) -> Result<FileReport, Error> {
    check_reader_dated(reader, display, file_name, opts, sink).map(|(report, _)| report)
}

/// [`check_reader_with`], which also gives what the date columns' cells
/// show of the order of day and month. When
/// [`DateOrders::late`](dates::DateOrders::late) says so, cells that read
/// as two dates got a verdict the rest of the file contradicts: a caller
/// that can read the input again checks it again with
/// [`Options::date_orders`] set to these, and its findings (and fixes) are
/// then the whole file's. Given orders up front, they are returned.
pub fn check_reader_dated<R: Read>(
    reader: R,
    display: &str,
    file_name: Option<&str>,
    opts: &Options,
    sink: &mut dyn FnMut(Diagnostic),
) -> Result<(FileReport, dates::DateOrders), Error> {
    let reader = Cancellable::new(reader, opts);
    let (mut report, dates) = check_stream(reader, display, file_name, opts, sink)?;
    // What is left: findings of a file that stopped before its rows.
    drain_sorted(&mut report.diagnostics, sink);
    Ok((report, dates))
}

/// Hands `found` to `sink` in position order, leaving it empty.
fn drain_sorted(found: &mut Vec<Diagnostic>, sink: &mut dyn FnMut(Diagnostic)) {
    found.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    for d in found.drain(..) {
        sink(d);
    }
}

fn check_stream<R: Read>(
    reader: R,
    display: &str,
    file_name: Option<&str>,
    opts: &Options,
    sink: &mut dyn FnMut(Diagnostic),
) -> Result<(FileReport, dates::DateOrders), Error> {
    let known = || {
        opts.date_orders
            .as_deref()
            .map(dates::DateOrders::as_known)
            .unwrap_or_default()
    };
    let mut report = FileReport {
        path: display.to_owned(),
        format: None,
        records: 0,
        diagnostics: Vec::new(),
        member: None,
    };
    let forced = match &opts.format {
        Some(name) => Some(schema::table(name)?.ok_or_else(|| unknown_format(name))?),
        None => None,
    };
    report.format = forced.map(|t| t.name.as_str());
    let io = |e| Error::io(display, e);
    // The encoding and the dialect are told from the same bytes whatever
    // the chunk size: a fixed prefix, read before any chunk. (From the
    // first chunk, a file whose first record is short was sniffed from that
    // record alone.)
    let mut reader = reader;
    let mut head = Vec::with_capacity(dialect::HEAD_LEN);
    (&mut reader)
        .take(dialect::HEAD_LEN as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    if head.starts_with(&crate::scan::UTF8_BOM) {
        report.diagnostics.push(
            Finding::new(
                &rules::UTF8_BOM,
                "the file starts with a UTF-8 byte-order mark",
            )
            .help("bdxlint skips it; save without BOM if the upload rejects the first column")
            .fix(FixBuilder::safe("remove the byte-order mark").edit(0..3u64, ""))
            .file(0..3),
        );
    } else if let Some(enc) = wide_encoding(&head) {
        report.diagnostics.push(file_diag(
            &rules::UNSUPPORTED_ENCODING,
            0..head.len().min(4) as u64,
            format!("the file is {enc}, not UTF-8"),
            "save the file as CSV UTF-8",
        ));
        return Ok((report, known()));
    }
    let dialect = dialect::sniff(&head, head.len() < dialect::HEAD_LEN);
    if let Some(sep) = &dialect.sep_line {
        // `sep=,`: the line goes. Another delimiter: the whole file is
        // rewritten with commas, which leaves the line out too.
        let fix = FixBuilder::safe("delete the `sep=` line");
        let fix = if sep.delim == b',' {
            fix.edit(sep.span.start..dialect.skip, "")
        } else {
            fix.transform(Transform::ToCommas)
        };
        report.diagnostics.push(
            Finding::new(
                &rules::SEP_LINE,
                format!(
                    "the first line `{}` is Excel's delimiter hint, not the header; the platform reads it as the header",
                    String::from_utf8_lossy(&head[sep.span.clone()])
                ),
            )
            .help("delete the first line, so that the header row comes first (bdxlint skipped it)")
            .fix(fix)
            .file(sep.span.start as u64..sep.span.end as u64),
        );
    }
    let mut start = dialect.skip;
    let encoding = encoding::from_head(&head, head.len() < dialect::HEAD_LEN);
    let reader = std::io::Cursor::new(head).chain(reader);
    let mut chunks = ChunkReader::new(reader, opts.chunk_size, opts.max_record_bytes);
    chunks.encoding = Some(encoding);
    // The header is the first record: blank lines before it are skipped
    // exactly as the tokenizer skips them between rows (empty, or a lone
    // CRLF), whether they fill whole chunks or share one with the header,
    // and are counted so line numbers stay right.
    let mut line = 1 + dialect.skip_lines;
    // Bytes of blank lines (and a BOM, a `sep=` line) read before any record.
    let mut blank = 0;
    let (first, header_start) = loop {
        let Some(chunk) = chunks.next_chunk().map_err(io)? else {
            if let Some(span) = chunks.too_long.take() {
                report.diagnostics.push(runaway_record(span, line, opts));
            } else {
                let message = if blank > 0 {
                    "the file has no header row, only blank lines"
                } else {
                    "the file has no header row"
                };
                report.diagnostics.push(file_diag(
                    &rules::EMPTY_FILE,
                    0..blank,
                    message.into(),
                    NO_HEADER_HELP,
                ));
            }
            return Ok((report, known()));
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
            line = rec.line;
            break (chunk, rec.start);
        }
        line = probe.line();
        start = 0;
    };
    let data = first.data.as_slice();

    let mut scanner = dialect.scanner(data, header_start, line);
    let mut rec = Record::default();
    // The loop above stopped at a chunk with a record there.
    scanner.next_record(&mut rec);
    if dialect.delim != b',' {
        // On the header's first delimiter: the one a comma should be.
        let at = rec.fields.first().map_or(rec.start, |f| f.end);
        let col = 1 + String::from_utf8_lossy(&data[rec.start..at])
            .chars()
            .count() as u64;
        let name = dialect::delimiter_name(dialect.delim);
        report.diagnostics.push(
            Finding::new(
                &rules::DELIMITER,
                format!("the file uses {name} as its delimiter; the platform reads commas"),
            )
            .help(format!(
                "save the file as comma-separated CSV (Excel: Save As, \"CSV UTF-8 (Comma delimited)\"); bdxlint read it with {name} to check the rest"
            ))
            // The dialect was told from the header and rows alike (exactly
            // one delimiter fits): reading it so and writing commas keeps
            // every cell.
            .fix(FixBuilder::safe("rewrite the file with commas").transform(Transform::ToCommas))
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
            && only_whitespace_left(&mut chunks).map_err(io)?;
        let d = if rest {
            file_diag(
                &rules::EMPTY_FILE,
                0..chunks.base,
                "the file has no header row, only blank lines".into(),
                NO_HEADER_HELP,
            )
        } else {
            let mut d = file_diag(
                &rules::EMPTY_FILE,
                first.file_offset(rec.start)..first.file_offset(rec.end),
                format!(
                    "the file has no header row: line {} holds only whitespace",
                    rec.line
                ),
                "delete the line, so that the header row comes first",
            );
            d.line = rec.line;
            d
        };
        report.diagnostics.push(d);
        return Ok((report, known()));
    }
    let header = header::read_header(data, &rec);
    let snippets = Snippets::of(opts);
    let mut emit = Emitter::new(data, snippets.clone());
    if let Some(at) = bare_cr(&data[rec.start..rec.end]) {
        let at = rec.start + at;
        emit.report_at(
            at..at + 1,
            rec.line,
            rec.start,
            Finding::new(
                &rules::CR_LINE_ENDINGS,
                "lines end with a lone CR (classic Mac OS line endings)",
            )
            .help("save the file with LF or CRLF line endings"),
        );
    }
    if !rec.problems.is_empty() {
        // A header whose quoting is broken has no trustworthy names.
        let names: Vec<Arc<str>> = header.names.iter().map(|n| Arc::from(n.as_str())).collect();
        record::report_quoting(data, &rec, &names, &mut emit);
    }
    if !emit.diags.is_empty() {
        report
            .diagnostics
            .extend(emit.diags.into_iter().map(|d| first.rebase(d)));
        return Ok((report, known()));
    }
    // A header far wider than any format: one finding, and no check that
    // would grow with its width (a finding per name, per row).
    if rec.fields.len() > MAX_COLUMNS {
        let span = rec.start as u64..rec.end as u64;
        report.diagnostics.push(first.rebase(
            file_diag(
                &rules::TOO_MANY_COLUMNS,
                span,
                format!(
                    "the header has {} columns, more than the {MAX_COLUMNS} bdxlint reads; the file was not checked",
                    rec.fields.len()
                ),
                "write the format's header (`bdxlint template FORMAT`)",
            ),
        ));
        return Ok((report, known()));
    }
    let table = match forced {
        Some(t) => t,
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
    report.format = Some(table.name.as_str());

    let mut plan = Plan::new(table, &header, data, &rec, &mut emit);
    plan.set_date_orders(opts.date_orders.clone());
    let cross = CrossPlan::new(table, &plan, opts.cross, dialect.delim);
    if let Some(text) = &table.deprecated {
        emit.report_row(
            &rec,
            Finding::new(
                &rules::DEPRECATED_FORMAT,
                format!("the {} format is deprecated", table.name),
            )
            .help(text.clone()),
        );
    }
    // The unnamed header fields: their `unknown-column` warnings wait for
    // the end of the file, when it is known whether some row has data
    // there (then it is `unnamed-column-data`, an error).
    let unnamed: Vec<usize> = (0..header.names.len())
        .filter(|&i| header::normalize_name(&header.names[i]).is_empty())
        .collect();
    let mut unnamed_held = Vec::new();
    emit.diags.retain(|d| {
        let field = (d.rule.code == rules::UNKNOWN_COLUMN.code && d.column.is_none())
            .then(|| {
                unnamed
                    .iter()
                    .position(|&i| rec.fields[i].start as u64 == d.span.start)
            })
            .flatten();
        match field {
            Some(k) => {
                unnamed_held.push((k, first.rebase(d.clone())));
                false
            }
            None => true,
        }
    });
    let rows = Rows {
        width: rec.fields.len(),
        unnamed,
        max_record: opts.max_record_bytes,
    };
    let header_ending = rec.ending;
    let mut fold = Fold::new(
        header_ending,
        scanner.line(),
        CrossState::new(opts.max_distinct_rows, snippets.clone()),
        opts.size_hint,
    );
    fold.every_row = opts.every_row;
    report
        .diagnostics
        .extend(emit.diags.into_iter().map(|d| first.rebase(d)));
    // Header findings come before any row's.
    drain_sorted(&mut report.diagnostics, sink);

    // The rest of the first chunk, then every later chunk, in parallel
    // batches. Each chunk is checked with lines counted from 1 and fixed up
    // in the fold.
    let first_rest = first.split_off(scanner.position());
    fold.legacy_bytes(&first, header_start..scanner.position(), rec.line);
    drop(first);
    let fixes = opts.row_fixes.as_deref();
    if rayon::current_num_threads() <= 1 {
        // One thread: check and fold each chunk in turn, here.
        let mut next = Some(first_rest);
        while let Some(c) = next {
            let r = check_chunk(&plan, &cross, &rows, &c, snippets.clone(), fixes);
            let mut folded = fold_chunk(&mut fold, c, r, &cross);
            chunks.adapt(folded.data.len(), folded.ready.len());
            folded.write(fixes);
            folded.ready.into_iter().for_each(&mut *sink);
            chunks.recycle(folded.data);
            next = chunks.next_chunk().map_err(io)?;
        }
    } else {
        // A pipeline. This thread reads chunks (the boundary scan is
        // sequential) and writes findings out. The pool checks chunks as
        // they come, and whichever worker has the chunk next in file order
        // folds it (and any waiting behind it) into the cross-row state, so
        // the fold stays sequential and in file order and the output is the
        // same at any thread count. The fold used to run on this thread:
        // on two cores it was a third busy thread holding ~40% of the work,
        // and the scheduler gave it a third of the machine. A few chunks
        // per worker are in flight, so memory stays bounded and no worker
        // waits for reading.
        let in_flight = rayon::current_num_threads() * 2 + 2;
        let (tx, rx) = std::sync::mpsc::channel::<std::thread::Result<Folded>>();
        let pipeline = Stage {
            waiting: Mutex::new(std::collections::BTreeMap::new()),
            fold: Mutex::new((fold, 0)),
        };
        let (plan, cross, rows, stage) = (&plan, &cross, &rows, &pipeline);
        // With `--fix`, a thread of its own writes the chunks out (in file
        // order, as they come), so that this one goes on reading while a
        // chunk is written; the buffers come back to be read into again.
        // Two chunks waiting at most: the writer's queue adds little to
        // the chunks in flight that bound memory.
        let (to_writer, writing) = std::sync::mpsc::sync_channel::<Folded>(2);
        let (give_back, written) = std::sync::mpsc::channel::<Vec<u8>>();
        std::thread::scope(|ts| -> Result<(), Error> {
            if let Some(fixes) = fixes {
                ts.spawn(move || {
                    for mut f in writing {
                        f.write(Some(fixes));
                        if give_back.send(f.data).is_err() {
                            break;
                        }
                    }
                });
            } else {
                drop((writing, give_back));
            }
            let to_writer = fixes.map(|_| to_writer);
            rayon::in_place_scope_fifo(|s| -> Result<(), Error> {
                let (mut sent, mut done) = (0u64, 0u64);
                let mut next = Some(first_rest);
                loop {
                    while sent - done < in_flight as u64 {
                        let Some(c) = next.take() else { break };
                        let tx = tx.clone();
                        let snippets = snippets.clone();
                        let n = sent;
                        s.spawn_fifo(move |_| {
                            // A panic (a bug) must reach this thread, which would
                            // otherwise wait for the result forever.
                            let run =
                                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                    let r = check_chunk(plan, cross, rows, &c, snippets, fixes);
                                    stage.offer(n, c, r, cross, &tx);
                                }));
                            if let Err(panic) = run {
                                // The receiver outlives the scope; a send fails
                                // only if this file already failed.
                                let _ = tx.send(Err(panic));
                            }
                        });
                        sent += 1;
                        next = chunks.next_chunk().map_err(io)?;
                    }
                    if done == sent {
                        return Ok(());
                    }
                    let mut folded =
                        receive(&rx).unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                    chunks.adapt(folded.data.len(), folded.ready.len());
                    std::mem::take(&mut folded.ready)
                        .into_iter()
                        .for_each(&mut *sink);
                    match &to_writer {
                        // The writer ends only when this side hangs up.
                        Some(w) => {
                            let _ = w.send(folded);
                            while let Ok(b) = written.try_recv() {
                                chunks.recycle(b);
                            }
                        }
                        None => chunks.recycle(folded.data),
                    }
                    done += 1;
                }
            })?;
            drop(to_writer);
            Ok(())
        })?;
        fold = pipeline
            .fold
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
            .0;
    }
    if let Some(span) = chunks.too_long.take() {
        // The runaway record starts right after the last chunk checked
        // (which fixed rows may have moved).
        let span = span.start.saturating_add_signed(fold.delta)
            ..span.end.saturating_add_signed(fold.delta);
        sink(runaway_record(span, fold.next_line, opts));
    }
    report.records += fold.records;
    // Unnamed columns empty in every row that end the header (a trailing
    // comma or two, as spreadsheets save a formatted column): removing them
    // from every row keeps every value.
    let empty = |k: usize| fold.unnamed.get(k).copied().unwrap_or(0) == 0;
    let trailing = (0..rows.width)
        .rev()
        .take_while(|&i| rows.unnamed.iter().position(|&u| u == i).is_some_and(empty))
        .count();
    for (k, mut d) in unnamed_held {
        let n = fold.unnamed.get(k).copied().unwrap_or(0);
        if n == 0
            && trailing > 0
            && trailing < rows.width
            && rows.unnamed[k] >= rows.width - trailing
        {
            let fix = FixBuilder::safe(format!(
                "remove the {} empty column{} at the end of every row",
                trailing,
                if trailing == 1 { "" } else { "s" }
            ))
            .transform(Transform::DropTrailingFields(
                u32::try_from(trailing).unwrap_or(u32::MAX),
            ));
            d.fix = Some(Box::new(fix.build()));
        }
        if n > 0 {
            d.rule = &rules::UNNAMED_COLUMN_DATA;
            d.severity = rules::UNNAMED_COLUMN_DATA.severity;
            d.message = format!(
                "header field {} has no name, but {} {} data in it",
                rows.unnamed[k] + 1,
                cross::thousands(n as usize),
                if n == 1 { "row has" } else { "rows have" }
            );
            d.help = Some("name the column (the platform reads a cell by its column's name, so these values are lost), or delete the values".into());
        }
        sink(d);
    }
    let dates = match &opts.date_orders {
        Some(known) => known.as_known(),
        None => {
            let mut learned = std::mem::take(&mut fold.dates);
            learned.settle(|c| {
                table.columns.get(c).is_some_and(|col| {
                    col.shape == schema::Shape::Date(schema::shape::DateShape::Mdy)
                })
            });
            learned
        }
    };
    fold.finish(sink);
    Ok((report, dates))
}

/// A folded chunk, as a worker hands it back to the reading thread: its
/// buffer, for reuse, and its findings in order.
struct Folded {
    data: Vec<u8>,
    ready: Vec<Diagnostic>,
    /// The chunk's file offset.
    base: u64,
    /// Its rows fixed (see [`RowFixes`]), if any were.
    fixed: Option<Vec<u8>>,
    /// A decoded chunk's bytes as they are in the file.
    raw: Option<Vec<u8>>,
    applied: Vec<(&'static Rule, u32)>,
    unsettling: bool,
}

impl Folded {
    /// Sends the chunk's bytes in the output to `fixes`, if the check
    /// fixes rows.
    fn write(&mut self, fixes: Option<&RowFixes>) {
        let Some(fixes) = fixes else { return };
        let raw = self.raw.as_deref().unwrap_or(&self.data);
        let bytes = self.fixed.as_deref().unwrap_or(raw);
        lock(&fixes.out).chunk(
            self.base,
            raw.len() as u64,
            bytes,
            self.fixed.is_some(),
            &self.applied,
            self.unsettling,
        );
        if let Some(b) = self.fixed.take() {
            fixes.give_back(b);
        }
    }
}

/// Folds chunk `c`, checked into `r`, the next in file order: its rows
/// fixed, if any were, in place of those read.
fn fold_chunk(fold: &mut Fold, mut c: Chunk, mut r: ChunkResult, cross: &CrossPlan) -> Folded {
    let applied = std::mem::take(&mut r.applied);
    let unsettling = r.unsettling;
    let read = r.fixed.take().map(|f| std::mem::replace(&mut c.data, f));
    let mut ready = Vec::new();
    fold.add(r, &mut c, cross, &mut ready);
    let (data, fixed) = match read {
        Some(read) => (read, Some(c.data)),
        None => (c.data, None),
    };
    Folded {
        data,
        ready,
        base: c.base,
        fixed,
        raw: c.decoded.map(|d| d.original),
        applied,
        unsettling,
    }
}

/// The fold, shared by the pool's workers: checked chunks wait in
/// `waiting` until the one before them is folded; `fold` holds the state
/// and the number of the next chunk to fold.
struct Stage {
    waiting: Mutex<std::collections::BTreeMap<u64, (Chunk, ChunkResult)>>,
    fold: Mutex<(Fold, u64)>,
}

/// A lock that a panicking holder poisoned is still taken: the panic itself
/// reaches the reading thread and ends the check.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Stage {
    /// Hands over checked chunk `n`, and folds it and every chunk waiting
    /// behind it unless another worker is folding already (which then
    /// folds this one too). Each folded chunk goes to `tx` in file order.
    fn offer(
        &self,
        n: u64,
        c: Chunk,
        r: ChunkResult,
        cross: &CrossPlan,
        tx: &std::sync::mpsc::Sender<std::thread::Result<Folded>>,
    ) {
        lock(&self.waiting).insert(n, (c, r));
        loop {
            let mut guard = match self.fold.try_lock() {
                Ok(g) => g,
                Err(TryLockError::Poisoned(p)) => p.into_inner(),
                Err(TryLockError::WouldBlock) => return,
            };
            let (fold, next) = &mut *guard;
            loop {
                let Some((c, r)) = lock(&self.waiting).remove(next) else {
                    break;
                };
                let folded = fold_chunk(fold, c, r, cross);
                *next += 1;
                let _ = tx.send(Ok(folded));
            }
            let next = *next;
            drop(guard);
            // A chunk may have come in after the last look and before the
            // unlock, from a worker that found the fold busy and left it
            // here: look again, or it would wait forever.
            if !lock(&self.waiting).contains_key(&next) {
                return;
            }
        }
    }
}

/// The next result from the chunk checks. On a pool thread, waiting means
/// running pool work (perhaps the very check waited for), so a pool of one
/// cannot deadlock; elsewhere it blocks.
fn receive<T>(rx: &std::sync::mpsc::Receiver<T>) -> T {
    use std::sync::mpsc::TryRecvError;
    loop {
        match rx.try_recv() {
            Ok(v) => return v,
            Err(TryRecvError::Disconnected) => unreachable!("the sender is held by the caller"),
            Err(TryRecvError::Empty) => {}
        }
        match rayon::yield_now() {
            None => return rx.recv().expect("the sender is held by the caller"),
            Some(rayon::Yield::Executed) => {}
            Some(rayon::Yield::Idle) => std::thread::yield_now(),
        }
    }
}

/// The filter grammar's findings on a Filters `Value` text (every `"`
/// doubled if `doubled`, as the row checker reads a quoted cell) for a row
/// of filter type `ty`: the rule code and span of each, or the offset of
/// the syntax error. The grammar is private to the checker; the fuzz
/// targets (`fuzz/`) and their replay test reach it through this.
#[doc(hidden)]
pub fn filter_findings(
    text: &str,
    doubled: bool,
    ty: Option<&str>,
) -> Result<Vec<(&'static str, Range<usize>)>, usize> {
    let doc = crate::json::Doc::parse_as(text, doubled, Vec::new()).map_err(|(e, _)| e.offset)?;
    let mut out = grammar::Findings::default();
    if let Ok(g) = schema::json::grammars() {
        filter_grammar::check(&doc, "Value", ty, &g.filter, &mut out);
    }
    Ok(out
        .list
        .into_iter()
        .map(|f| (f.rule.code, f.span))
        .collect())
}

/// The filter types the grammar lists fields for, for [`filter_findings`].
#[doc(hidden)]
pub fn filter_types() -> Vec<&'static str> {
    schema::json::grammars()
        .map(|g| g.filter.fields.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

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
/// [`check_reader`] detects it; `None` when it fits none or cannot be read
/// (checking the file then says why). For the batch checks, which need
/// every file's format before any file is checked.
pub fn sniff_format(path: &Path) -> Option<&'static str> {
    let names = header_names(std::fs::File::open(path).ok()?).ok()?;
    if names.is_empty() {
        return None;
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let file_name = path.file_name().and_then(|n| n.to_str());
    match schema::detect_format(schema::tables().ok()?, &names, file_name) {
        Detection::Found(name) => Some(schema::table(name).ok()??.name.as_str()),
        _ => None,
    }
}

const NO_HEADER_HELP: &str = "write the header row first: `bdxlint template FORMAT` prints one";

/// Reads the rest of the input while it holds only whitespace: true when it
/// ends so. A record too long to hold is not known to be whitespace.
fn only_whitespace_left<R: Read>(chunks: &mut ChunkReader<R>) -> std::io::Result<bool> {
    while let Some(c) = chunks.next_chunk()? {
        if !c.data.iter().all(u8::is_ascii_whitespace) {
            return Ok(false);
        }
    }
    Ok(chunks.too_long.is_none())
}

/// A record longer than `max_record_bytes`, starting on `line`: reading
/// stopped there.
fn runaway_record(span: Range<u64>, line: u64, opts: &Options) -> Diagnostic {
    let mut d = file_diag(
        &rules::UNTERMINATED_QUOTE,
        span.clone(),
        format!(
            "a record starting at byte {} runs past {} MiB; checking stopped there",
            span.start,
            opts.max_record_bytes >> 20
        ),
        "a quote is probably never closed: close it, and double quotes inside quoted fields",
    );
    d.line = line;
    d
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
fn bare_cr(bytes: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'\r', bytes).find(|&i| bytes.get(i + 1) != Some(&b'\n'))
}

fn unknown_format(name: &str) -> Error {
    Error::UnknownFormat {
        name: name.to_owned(),
        known: schema::format_names().collect::<Vec<_>>().join(", "),
    }
}

fn wide_encoding(data: &[u8]) -> Option<&'static str> {
    if data.starts_with(&[0xFF, 0xFE, 0, 0]) || data.starts_with(&[0, 0, 0xFE, 0xFF]) {
        return Some("UTF-32");
    }
    if data.starts_with(&[0xFF, 0xFE]) || data.starts_with(&[0xFE, 0xFF]) {
        return Some("UTF-16");
    }
    // Without a byte-order mark, ASCII text in UTF-16 has a NUL in every
    // other byte; a CSV header has none.
    let head = &data[..data.len().min(64)];
    let nuls = head.iter().filter(|b| **b == 0).count();
    if head.len() >= 8 && nuls * 3 >= head.len() {
        return Some("UTF-16 (without a byte-order mark)");
    }
    None
}

/// Bytes of whole records and their offset in the file.
struct Chunk {
    base: u64,
    data: Vec<u8>,
    /// For a chunk of a legacy-encoded file: `data` is decoded, and this
    /// maps it back to the file's bytes.
    decoded: Option<Box<encoding::Decoded>>,
    /// The file's encoding was told before this chunk: no change to this
    /// chunk's bytes beyond the first [`dialect::HEAD_LEN`] of the file
    /// could change how the file is read.
    settled: bool,
}

impl Chunk {
    /// The file offset of chunk offset `o`.
    fn file_offset(&self, o: usize) -> u64 {
        let o = match &self.decoded {
            None => o,
            Some(d) => d.original_offset(o),
        };
        self.base + o as u64
    }

    /// Moves a diagnostic from chunk offsets to file offsets. A decoded
    /// chunk's snippet is the file's bytes (one `?` for each byte above
    /// ASCII), so that spans index it as they index the file.
    fn rebase(&self, mut d: Diagnostic) -> Diagnostic {
        let Some(dec) = &self.decoded else {
            return rebase(d, self.base);
        };
        let span = (d.span.start as usize, d.span.end as usize);
        d.span = self.file_offset(span.0)..self.file_offset(span.1);
        // Edits land on the file's bytes: mapped back like the span. One
        // that would write non-ASCII text into a legacy-encoded file would
        // mix two encodings in it, so such a fix is dropped (re-encoding
        // the whole file is `not-utf8`'s fix).
        if let Some(f) = &mut d.fix {
            if f.edits.iter().all(|e| e.content.is_ascii()) {
                for e in &mut f.edits {
                    e.span = self.file_offset(e.span.start as usize)
                        ..self.file_offset(e.span.end as usize);
                }
            } else {
                d.fix = None;
            }
        }
        if let Some(s) = &mut d.snippet {
            let from = s.offset as usize;
            let (a, b) = (
                dec.original_offset(from),
                dec.original_offset(from + s.text.len()),
            );
            s.offset = self.base + a as u64;
            s.text = dec.original[a..b.max(a)]
                .iter()
                .map(|&c| if c.is_ascii() { char::from(c) } else { '?' })
                .collect();
            // One byte a character in the file.
            s.first_byte_col = s.first_col;
        }
        d
    }

    /// The chunk from offset `at` on.
    fn split_off(&self, at: usize) -> Chunk {
        Chunk {
            base: self.file_offset(at),
            data: self.data[at..].to_vec(),
            decoded: self.decoded.as_ref().map(|d| Box::new(d.split_off(at))),
            settled: self.settled,
        }
    }
}

/// The first chunk's size at most: the chunks before the first fold are
/// sized blind (see [`ChunkReader::adapt`]).
const FIRST_CHUNK: usize = 64 << 10;
/// Findings a chunk should hold at most, when chunks shrink.
const CHUNK_FINDINGS: usize = 16 << 10;
/// Chunks shrink no smaller.
const MIN_CHUNK: usize = 16 << 10;

/// Reads a stream into chunks of about `chunk_size` bytes that end at
/// record boundaries.
struct ChunkReader<R> {
    r: R,
    /// `buf[..filled]` is read input; the rest is stale bytes that reads
    /// overwrite. Keeping the length lets reads go to memory that is already
    /// initialised: `read_to_end` zeroes its spare capacity before each
    /// read, a memset of the whole chunk.
    buf: Vec<u8>,
    filled: usize,
    /// How much of `buf` the boundary scan has seen.
    scanned: usize,
    last_boundary: Option<usize>,
    bounds: RecordBoundaries,
    base: u64,
    eof: bool,
    /// The size of the next chunk: it starts small and grows to
    /// `max_chunk` while chunks have few findings (see [`ChunkReader::adapt`]).
    chunk_size: usize,
    max_chunk: usize,
    max_record: usize,
    /// Set when a record exceeded `max_record`; reading stopped.
    too_long: Option<Range<u64>>,
    /// Buffers of folded chunks, reused: a fresh megabyte costs page
    /// faults on every page.
    spare: Vec<Vec<u8>>,
    /// The file's encoding as far as read, when the reader decodes a
    /// legacy-encoded file (see [`encoding`]); `None` reads bytes as they
    /// are.
    encoding: Option<encoding::State>,
}

impl<R: Read> ChunkReader<R> {
    fn new(r: R, chunk_size: usize, max_record: usize) -> Self {
        ChunkReader {
            r,
            buf: Vec::new(),
            filled: 0,
            scanned: 0,
            last_boundary: None,
            bounds: RecordBoundaries::default(),
            base: 0,
            eof: false,
            chunk_size: chunk_size.clamp(1, FIRST_CHUNK),
            max_chunk: chunk_size.max(1),
            max_record,
            too_long: None,
            spare: Vec::new(),
            encoding: None,
        }
    }

    /// `chunk`, decoded when the file is in a legacy encoding (which the
    /// first non-ASCII line decides).
    fn decode(&mut self, mut chunk: Chunk) -> Chunk {
        use encoding::State;
        match self.encoding {
            None | Some(State::Utf8) => return chunk,
            Some(State::Undecided) => {
                let Some(first) = encoding::first_high(&chunk.data) else {
                    return chunk;
                };
                let rest = &chunk.data[first..];
                let line = memchr::memchr(b'\n', rest).map_or(rest, |end| &rest[..end]);
                if !encoding::looks_legacy(line) {
                    self.encoding = Some(State::Utf8);
                    return chunk;
                }
                self.encoding = Some(State::Legacy);
            }
            Some(State::Legacy) => {}
        }
        let (data, decoded) = encoding::decode(std::mem::take(&mut chunk.data));
        chunk.data = data;
        chunk.decoded = Some(Box::new(decoded));
        chunk
    }

    /// Sizes the next chunks from one just folded (`bytes` long, with
    /// `findings`): findings are held until their chunk is folded, and a
    /// few chunks are in flight, so a file with findings on every few
    /// bytes would hold hundreds of megabytes in 1 MiB chunks. Chunks
    /// shrink to about [`CHUNK_FINDINGS`] findings (no smaller than
    /// [`MIN_CHUNK`]) and grow back, doubling, on clean data. The output
    /// is the same at any chunk size.
    fn adapt(&mut self, bytes: usize, findings: usize) {
        let fits = match findings {
            0 => usize::MAX,
            n => bytes.saturating_mul(CHUNK_FINDINGS) / n,
        };
        self.chunk_size = fits
            .min(self.chunk_size.saturating_mul(2))
            .clamp(MIN_CHUNK.min(self.max_chunk), self.max_chunk);
    }

    /// Takes back a chunk's buffer once its chunk is folded. A few are kept
    /// (as many as can be in flight is plenty); the rest are freed.
    fn recycle(&mut self, buf: Vec<u8>) {
        // Not cleared: its bytes are stale but initialised, so reads can
        // reuse them without zeroing.
        if self.spare.len() < 16 && buf.capacity() <= 4 * self.max_chunk {
            self.spare.push(buf);
        }
    }

    fn next_chunk(&mut self) -> std::io::Result<Option<Chunk>> {
        loop {
            if self.scanned < self.filled {
                if let Some(b) = self
                    .bounds
                    .last_boundary(&self.buf[self.scanned..self.filled])
                {
                    self.last_boundary = Some(self.scanned + b);
                }
                self.scanned = self.filled;
            }
            if self.eof || (self.filled >= self.chunk_size && self.last_boundary.is_some()) {
                break;
            }
            let pending = self.filled - self.last_boundary.unwrap_or(0);
            if pending > self.max_record {
                let start = self.base + self.last_boundary.unwrap_or(0) as u64;
                self.too_long = Some(start..start + pending as u64);
                // Stop reading; what is before the record is still checked.
                self.eof = true;
                self.filled = self.last_boundary.unwrap_or(0);
                break;
            }
            let want = self.chunk_size.max(self.filled / 2);
            if self.read_up_to(want)? == 0 {
                self.eof = true;
            }
        }
        if self.filled == 0 {
            return Ok(None);
        }
        let cut = if self.eof {
            self.filled
        } else {
            self.last_boundary
                .expect("loop exits with a boundary unless at eof")
        };
        let tail = &self.buf[cut..self.filled];
        let mut rest = self
            .spare
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(self.chunk_size.max(tail.len())));
        if rest.len() < tail.len() {
            rest.resize(tail.len(), 0);
        }
        rest[..tail.len()].copy_from_slice(tail);
        self.filled = tail.len();
        let mut data = std::mem::replace(&mut self.buf, rest);
        data.truncate(cut);
        let chunk = Chunk {
            base: self.base,
            data,
            decoded: None,
            settled: matches!(
                self.encoding,
                Some(encoding::State::Utf8 | encoding::State::Legacy)
            ),
        };
        self.base += cut as u64;
        self.scanned = self.filled;
        self.last_boundary = None;
        Ok(Some(self.decode(chunk)))
    }

    /// Reads until `want` more bytes are in or the input ends, like
    /// `take(want).read_to_end`, and returns how many came. Only the part
    /// of `buf` never used before is zeroed, once.
    fn read_up_to(&mut self, want: usize) -> std::io::Result<usize> {
        let goal = self.filled + want;
        if self.buf.len() < goal {
            self.buf.resize(goal, 0);
        }
        let from = self.filled;
        while self.filled < goal {
            match self.r.read(&mut self.buf[self.filled..goal]) {
                Ok(0) => break,
                Ok(n) => self.filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(self.filled - from)
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
    /// Fingerprints of the decoded rows, for the cross-row rules.
    events: cross::Events,
    /// By unnamed header field: the rows with data in it.
    unnamed: Vec<u64>,
    /// The chunk with its rows fixed, if a row was (see [`RowFixes`]):
    /// the offsets of `diags` and `events` are this buffer's.
    fixed: Option<Vec<u8>>,
    /// Bytes the fixes added to the chunk (negative: removed).
    delta: i64,
    /// Fixes applied in the chunk, by rule.
    applied: Vec<(&'static Rule, u32)>,
    /// A fix changed bytes that tell how the file is read (see
    /// [`FixedChunks::chunk`]).
    unsettling: bool,
    /// What the chunk's date cells show of their columns' order (lines
    /// relative to the chunk).
    dates: dates::DateOrders,
}

/// What the reading of rows needs from the header, beside the plan.
struct Rows {
    /// The header's field count.
    width: usize,
    /// The header fields that have no name: a row's value there is
    /// counted (`unnamed-column-data`).
    unnamed: Vec<usize>,
    /// [`Options::max_record_bytes`].
    max_record: usize,
}

/// Whether a field's content is empty or only spaces and tabs.
fn blank(cell: &[u8]) -> bool {
    cell.iter().all(|&b| b == b' ' || b == b'\t')
}

/// Whether `rec` is an empty row: only delimiters (and spaces), as a
/// spreadsheet writes a formatted but empty line. Quoted empty cells
/// count as empty; a row with quoting problems is not one.
fn empty_row(data: &[u8], rec: &Record) -> bool {
    rec.problems.is_empty()
        && rec.fields.iter().all(|f| {
            let (a, b) = f.content();
            blank(&data[a..b])
        })
}

fn check_chunk(
    plan: &Plan,
    cross: &CrossPlan,
    rows: &Rows,
    chunk: &Chunk,
    snippets: Snippets,
    fixes: Option<&RowFixes>,
) -> ChunkResult {
    let data = chunk.data.as_slice();
    // Rows need events only if some cross-row rule runs (and was not told
    // to stop).
    let track = !cross.is_empty()
        && !snippets
            .cross_stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed));
    // A decoded chunk's edits land on the file's bytes, not these: its
    // fixes are left to the run's passes.
    let fixer = fixes
        .filter(|_| chunk.decoded.is_none())
        .map(|fixes| row_fixer::RowFixer {
            plan,
            cross,
            fixes,
            snippets: snippets.clone(),
            track,
            settled: chunk.settled,
            max_record: rows.max_record,
        });
    let mut emit = Emitter::new(data, snippets);
    let mut scanner = Scanner::with_delimiter(data, 0, 1, cross.delim);
    let mut rec = Record::default();
    let mut records = 0;
    let mut endings = Endings::default();
    let mut cells = row::Cells::for_chunk(data);
    let mut events = cross::Events::default();
    let mut unnamed = vec![0; rows.unnamed.len()];
    let delim = cross.delim;
    // The fixed chunk, once a row is fixed: the bytes up to `copied` of
    // `data`, with fixed rows in their places; later offsets move by
    // `delta`.
    let mut fixed: Vec<u8> = Vec::new();
    let (mut copied, mut delta) = (0usize, 0i64);
    let mut applied = Vec::new();
    let mut unsettling = false;
    while scanner.next_record(&mut rec) {
        records += 1;
        let (mark, ev_mark) = (emit.diags.len(), events.mark());
        'row: {
            // The usual row starts with a value: its first byte settles it.
            let first = data.get(rec.start).copied().unwrap_or(delim);
            if matches!(first, b' ' | b'\t' | b'"' | b'\r' | b'\n') | (first == delim)
                && empty_row(data, &rec)
            {
                let spaces = data[rec.start..rec.end]
                    .iter()
                    .any(|&b| b == b' ' || b == b'\t');
                emit.report_row(
                    &rec,
                    Finding::new(
                        &rules::EMPTY_ROW,
                        format!(
                            "this row is empty: it holds only delimiters{}",
                            if spaces { " and spaces" } else { "" }
                        ),
                    )
                    .help("delete the row (a spreadsheet writes one for each formatted but empty line below the data)"),
                );
                break 'row;
            }
            if !unnamed.is_empty() && rec.fields.len() == rows.width && rec.problems.is_empty() {
                for (n, &i) in unnamed.iter_mut().zip(&rows.unnamed) {
                    let (a, b) = rec.fields[i].content();
                    if !blank(&data[a..b]) {
                        *n += 1;
                    }
                }
            }
            if plan.check_record(data, &rec, &mut cells, &mut emit) && track {
                cross.event(data, &rec, &cells, &mut events);
            }
        }
        let at = rec.start.saturating_add_signed(delta as isize);
        // Only a row with findings has fixes.
        let row = fixer
            .as_ref()
            .filter(|_| emit.diags.len() > mark)
            .and_then(|f| {
                f.fix(
                    data,
                    &rec,
                    &mut emit.diags,
                    mark,
                    &mut events,
                    ev_mark,
                    at,
                    (&mut applied, &mut unsettling),
                )
            });
        if let Some(row) = row {
            let end = rec.end + row_fixer::ending_len(rec.ending);
            if let (0, Some(f)) = (fixed.capacity(), &fixer) {
                // Room for fixes that lengthen rows, without growing.
                fixed = f.fixes.buffer(data.len() + data.len() / 16 + row.len());
            }
            fixed.extend_from_slice(&data[copied..rec.start]);
            fixed.extend_from_slice(&row);
            copied = end;
            delta += row.len() as i64 - (end - rec.start) as i64;
        } else if delta != 0 {
            for d in &mut emit.diags[mark..] {
                finding::shift(d, delta);
            }
            events.shift_from(ev_mark, delta);
        }
        // Where the record lies in the output (the file, or the fixed
        // chunk): its start moved by the rows fixed before it, its end by
        // those and itself.
        let span = || {
            chunk.file_offset(at)..chunk.file_offset(rec.end.saturating_add_signed(delta as isize))
        };
        match rec.ending {
            Some(LineEnding::Lf) if endings.first_lf.is_none() => {
                endings.first_lf = Some((rec.line, span()))
            }
            Some(LineEnding::CrLf) if endings.first_crlf.is_none() => {
                endings.first_crlf = Some((rec.line, span()))
            }
            _ => {}
        }
    }
    let fixed = (!applied.is_empty()).then(|| {
        fixed.extend_from_slice(&data[copied..]);
        fixed
    });
    let dates = std::mem::take(&mut emit.dates);
    ChunkResult {
        dates,
        diags: emit.diags.into_iter().map(|d| chunk.rebase(d)).collect(),
        records,
        lines: scanner.line() - 1,
        endings,
        events,
        unnamed,
        fixed,
        delta,
        applied,
        unsettling,
    }
}

/// Folds chunk results in file order.
struct Fold {
    /// Line number of the next chunk's first line.
    next_line: u64,
    /// Records folded so far.
    records: u64,
    /// Once-per-file findings: (rule, message) -> the first one, held back
    /// until the end, and how many more were dropped.
    once: HashMap<(&'static str, String), (Diagnostic, u64)>,
    /// Report once-a-file findings on every row ([`Options::every_row`]).
    every_row: bool,
    /// The line ending the file uses, from its first terminated record.
    convention: Option<LineEnding>,
    mixed: bool,
    /// What the cross-row rules remember of earlier rows.
    cross: CrossState,
    /// One chunk's findings, sorted before they go out; reused.
    out: Vec<Diagnostic>,
    /// The input's size, until the first chunk has been folded.
    size_hint: Option<u64>,
    /// A legacy-encoded file's bytes that are not UTF-8, so far.
    legacy: Option<Legacy>,
    /// By unnamed header field (see [`Rows::unnamed`]): the rows that hold
    /// data in it.
    unnamed: Vec<u64>,
    /// Bytes that fixed rows added before the next chunk (see
    /// [`RowFixes`]): its offsets in the output are its file offsets plus
    /// this.
    delta: i64,
    /// What the date cells so far show of their columns' order.
    dates: dates::DateOrders,
}

/// The bytes of a legacy-encoded file that are not UTF-8, for its one
/// `not-utf8` finding.
#[derive(Debug, Default)]
struct Legacy {
    bytes: u64,
    lines: u64,
    /// Bytes 0x80-0x9F.
    c1: u64,
    /// (line, column, file offset) of the first on each of the first
    /// few lines.
    first: Vec<(u64, u64, u64)>,
}

/// Positions a `not-utf8` finding names.
const LEGACY_SHOWN: usize = 3;

impl Fold {
    fn new(
        header_ending: Option<LineEnding>,
        next_line: u64,
        cross: CrossState,
        size_hint: Option<u64>,
    ) -> Self {
        Fold {
            size_hint,
            next_line,
            records: 0,
            once: HashMap::new(),
            every_row: false,
            convention: header_ending.filter(|e| *e != LineEnding::Eof),
            mixed: false,
            cross,
            out: Vec::new(),
            legacy: None,
            unnamed: Vec::new(),
            delta: 0,
            dates: dates::DateOrders::default(),
        }
    }

    /// Counts the bytes that are not UTF-8 in `range` of a decoded chunk,
    /// whose first byte is on `line`.
    fn legacy_bytes(&mut self, chunk: &Chunk, range: Range<usize>, line: u64) {
        let Some(dec) = &chunk.decoded else { return };
        let legacy = self.legacy.get_or_insert_with(Legacy::default);
        legacy.c1 += dec.c1;
        let data = chunk.data.as_slice();
        let (mut at, mut line, mut last_line) = (range.start, line, 0);
        let from = dec.bad.partition_point(|&b| b < range.start);
        for &b in dec.bad[from..].iter().take_while(|&&b| b < range.end) {
            line += bytecount::count(&data[at..b], b'\n') as u64;
            at = b;
            legacy.bytes += 1;
            if line == last_line {
                continue;
            }
            legacy.lines += 1;
            last_line = line;
            if legacy.first.len() < LEGACY_SHOWN {
                let line_start = memchr::memrchr(b'\n', &data[..b]).map_or(0, |i| i + 1);
                let col = 1 + String::from_utf8_lossy(&data[line_start..b])
                    .chars()
                    .count() as u64;
                legacy.first.push((line, col, chunk.file_offset(b)));
            }
        }
    }

    /// Folds the result of `chunk`, the next chunk in file order, and adds
    /// its findings to `ready` in order.
    fn add(
        &mut self,
        r: ChunkResult,
        chunk: &mut Chunk,
        plan: &CrossPlan,
        ready: &mut Vec<Diagnostic>,
    ) {
        // The chunk as it lies in the output, for the cross-row findings;
        // its own findings are at its file offsets.
        let before = self.delta;
        let file_base = chunk.base;
        chunk.base = file_base.saturating_add_signed(before);
        self.delta += r.delta;
        self.add_at(r, chunk, plan, ready, before);
        chunk.base = file_base;
    }

    fn add_at(
        &mut self,
        r: ChunkResult,
        chunk: &Chunk,
        plan: &CrossPlan,
        ready: &mut Vec<Diagnostic>,
        before: i64,
    ) {
        let shift = self.next_line - 1;
        self.legacy_bytes(chunk, 0..chunk.data.len(), self.next_line);
        if self.unnamed.len() < r.unnamed.len() {
            self.unnamed.resize(r.unnamed.len(), 0);
        }
        for (n, m) in self.unnamed.iter_mut().zip(&r.unnamed) {
            *n += m;
        }
        if let Some(size) = self.size_hint.take() {
            // The rows the whole input will have, at this chunk's density.
            let bytes = chunk.data.len().max(1) as u64;
            let rows = size.saturating_mul(r.records) / bytes;
            self.cross
                .expect_rows(plan, usize::try_from(rows).unwrap_or(usize::MAX));
        }
        self.dates.add(&r.dates, shift);
        let out = &mut self.out;
        self.cross.fold(plan, &r.events, chunk, shift, out);
        let abs = |line: u64| line + shift;
        for mut d in r.diags {
            if before != 0 {
                finding::shift(&mut d, before);
            }
            d.line = abs(d.line);
            if let Some(s) = &mut d.snippet {
                s.line = abs(s.line);
            }
            for rel in &mut d.related {
                rel.line = abs(rel.line);
            }
            if d.once_per_file && !self.every_row {
                let key = (d.rule.code, d.message.clone());
                match self.once.get_mut(&key) {
                    Some((_, dropped)) => *dropped += 1,
                    None => {
                        self.once.insert(key, (d, 0));
                    }
                }
                continue;
            }
            out.push(d);
        }
        self.records += r.records;
        if !self.mixed {
            let at = |s: Range<u64>| {
                s.start.saturating_add_signed(before)..s.end.saturating_add_signed(before)
            };
            let lf = r
                .endings
                .first_lf
                .map(|(l, s)| (abs(l), at(s), LineEnding::Lf));
            let crlf = r
                .endings
                .first_crlf
                .map(|(l, s)| (abs(l), at(s), LineEnding::CrLf));
            if self.convention.is_none() {
                self.convention = [&lf, &crlf]
                    .into_iter()
                    .flatten()
                    .min_by_key(|e| e.0)
                    .map(|e| e.2);
            }
            let odd = match self.convention {
                Some(LineEnding::Lf) => crlf,
                Some(LineEnding::CrLf) => lf,
                _ => None,
            };
            if let Some((line, span, kind)) = odd {
                self.mixed = true;
                let (found, want) = match kind {
                    LineEnding::CrLf => ("CRLF", "LF"),
                    _ => ("LF", "CRLF"),
                };
                // Which ending most rows have is known only at the end of
                // the file: the fix is a rewrite of it, not edits.
                let fix = FixBuilder::safe("end every row with the file's most common line ending")
                    .transform(Transform::LineEndings);
                out.push(
                    Finding::new(
                        &rules::MIXED_LINE_ENDINGS,
                        format!("line {line} ends with {found}; earlier lines end with {want}"),
                    )
                    .help(format!("use {want} line endings throughout"))
                    .fix(fix)
                    .file_at(span, line, 1),
                );
            }
        }
        self.next_line += r.lines;
        out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        ready.append(out);
    }

    /// The `not-utf8` finding of a legacy-encoded file.
    fn legacy_finding(&self) -> Option<Diagnostic> {
        let legacy = self.legacy.as_ref()?;
        let &(line, col, at) = legacy.first.first()?;
        let name = encoding::likely_name(legacy.c1);
        let firsts: Vec<String> = legacy
            .first
            .iter()
            .map(|(l, c, _)| format!("line {l} column {c}"))
            .collect();
        let finding = Finding::new(
            &rules::NOT_UTF8,
            format!(
                "the file is not UTF-8 but most likely {name}: {} {} not UTF-8, on {} {} (first at {})",
                cross::thousands(legacy.bytes as usize),
                if legacy.bytes == 1 { "byte is" } else { "bytes are" },
                cross::thousands(legacy.lines as usize),
                if legacy.lines == 1 { "line" } else { "lines" },
                firsts.join(", ")
            ),
        )
        .help(format!(
            "save the file as \"CSV UTF-8\", or convert it (`iconv -f WINDOWS-1252 -t UTF-8 FILE`); bdxlint read it as {name} to check the rest"
        ))
        // The encoding is a guess from byte statistics: a person should
        // look at the result.
        .fix(
            FixBuilder::unsafe_(format!("re-encode the file from {name} to UTF-8"))
                .transform(Transform::Windows1252ToUtf8),
        );
        Some(finding.file_at(at..at + 1, line, col))
    }

    fn finish(self, sink: &mut dyn FnMut(Diagnostic)) {
        if let Some(d) = self.legacy_finding() {
            sink(d);
        }
        let mut held: Vec<Diagnostic> = self
            .once
            .into_values()
            .map(|(mut d, dropped)| {
                if dropped > 0 {
                    d.message
                        .push_str(&format!(" (and {dropped} more rows like this one)"));
                }
                d
            })
            .collect();
        // Several can share a position (one row missing a column that
        // three filled cells each need), and the map hands them out in a
        // random order: the message settles the tie, or the output would
        // change from run to run.
        held.sort_by(|a, b| (a.sort_key(), &a.message).cmp(&(b.sort_key(), &b.message)));
        for d in held {
            sink(d);
        }
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
            wide_encoding(h),
            dialect::sniff(h, whole),
            encoding::from_head(h, whole),
        )
    };
    tell(a) == tell(b)
}

/// Whether an emitter captures source lines: asked, and not yet told to
/// stop (see [`Options::snippet_stop`]).
#[derive(Debug, Clone)]
pub(crate) struct Snippets {
    on: bool,
    stop: Option<Arc<AtomicBool>>,
    /// [`Options::cross_stop`], which chunks read as they start.
    cross_stop: Option<Arc<AtomicBool>>,
    /// Capture cell values too.
    values: bool,
}

impl Snippets {
    pub(crate) fn of(opts: &Options) -> Self {
        Snippets {
            on: opts.snippets,
            stop: opts.snippet_stop.clone(),
            cross_stop: opts.cross_stop.clone(),
            values: opts.values,
        }
    }

    fn wanted(&self) -> bool {
        // Relaxed: the switch orders nothing else, and a finding that reads
        // it late only captures a snippet that is not shown.
        self.on
            && !self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

impl From<bool> for Snippets {
    fn from(on: bool) -> Self {
        Snippets {
            on,
            stop: None,
            cross_stop: None,
            values: false,
        }
    }
}

/// Collects diagnostics for one buffer, turning buffer offsets into lines,
/// columns and snippets while the bytes are at hand.
pub(crate) struct Emitter<'a> {
    data: &'a [u8],
    snippets: Snippets,
    pub(crate) diags: Vec<Diagnostic>,
    /// The last (line start, offset, column) computed: findings on one line
    /// come in offset order, so counting resumes there instead of from the
    /// line start (a cell with 200,000 bad list elements stays linear).
    col_memo: (usize, usize, u64),
    /// What the date cells checked show of their columns' order.
    pub(crate) dates: dates::DateOrders,
    /// The fields of the row a fix wrote, when a row fixed in the check is
    /// checked again (`row_fixer.rs`): a date a fix wrote month first is not
    /// read day first by `day-first-date` (its fix would undo it, round after
    /// round). Empty otherwise.
    pub(crate) written: Vec<usize>,
}

/// The text of `span` inside field `f`, as the cell means it: without the
/// quotes around a whole quoted field, `""` read as `"`, invalid UTF-8
/// replaced, cut after MAX_SNIPPET bytes (on a character boundary).
fn cell_value(data: &[u8], span: &Range<usize>, f: &crate::scan::FieldSpan) -> Box<str> {
    let mut span = span.start.min(data.len())..span.end.min(data.len());
    if f.quoted && span.start == f.start && span.end == f.end && span.len() >= 2 {
        span = span.start + 1..span.end - 1;
    }
    let bytes = &data[span.clone()];
    let bytes = &bytes[..bytes.len().min(MAX_SNIPPET)];
    let text = String::from_utf8_lossy(bytes);
    // A cut through a character leaves one replacement character at the
    // end, which is kept: the value was longer.
    if f.escapes {
        text.replace("\"\"", "\"").into()
    } else {
        text.into()
    }
}

/// Longest snippet kept per diagnostic, so a huge cell does not balloon the
/// report.
const MAX_SNIPPET: usize = 4096;

impl<'a> Emitter<'a> {
    pub(crate) fn new(data: &'a [u8], snippets: impl Into<Snippets>) -> Self {
        Emitter {
            data,
            snippets: snippets.into(),
            diags: Vec::new(),
            col_memo: (usize::MAX, 0, 1),
            dates: dates::DateOrders::default(),
            written: Vec::new(),
        }
    }

    /// Reports `finding` on `span` (buffer offsets) of the line that
    /// starts at `line_start`.
    #[inline]
    pub(crate) fn report_at(
        &mut self,
        span: Range<usize>,
        line: u64,
        line_start: usize,
        finding: Finding,
    ) {
        let (memo_line, memo_at, memo_col) = self.col_memo;
        let (from, col0) = if memo_line == line_start && memo_at <= span.start {
            (memo_at, memo_col)
        } else {
            (line_start, 1)
        };
        let col = col0
            + self.data[from..span.start]
                .iter()
                .filter(|b| (**b & 0xC0) != 0x80)
                .count() as u64;
        self.col_memo = (line_start, span.start, col);
        let snippet = self
            .snippets
            .wanted()
            .then(|| self.snippet(line, line_start, &span, col));
        self.diags
            .push(finding.located(span.start as u64..span.end as u64, line, col, snippet));
    }

    /// Reports `finding` on `span`, which lies inside field `f` (on its
    /// first line or, for a quoted cell holding newlines, a later one).
    /// A finding that names its column captures the cell's value when
    /// values are asked for.
    #[inline]
    pub(crate) fn report_in(
        &mut self,
        span: Range<usize>,
        f: &crate::scan::FieldSpan,
        finding: Finding,
    ) {
        let before = &self.data[f.start..span.start];
        let (line, line_start) = match memchr::memrchr(b'\n', before) {
            None => (f.line, f.line_start),
            Some(last) => (
                f.line + memchr::memchr_iter(b'\n', before).count() as u64,
                f.start + last + 1,
            ),
        };
        let value = (self.snippets.values && finding.column.is_some())
            .then(|| cell_value(self.data, &span, f));
        self.report_at(span, line, line_start, finding);
        if let (Some(v), Some(d)) = (value, self.diags.last_mut()) {
            d.value = Some(v);
        }
    }

    /// Reports `finding` about the whole record `rec`.
    #[inline]
    pub(crate) fn report_row(&mut self, rec: &Record, finding: Finding) {
        self.report_at(rec.start..rec.end, rec.line, rec.start, finding);
    }

    /// A finding on `span` (buffer offsets) whose line starts at `line_start`.
    /// (Positional: [`Emitter::report_at`] with a [`Finding`] replaces it.)
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
        self.report_at(
            span,
            line,
            line_start,
            Finding::new(rule, message)
                .severity(severity)
                .column(column)
                .help_if(help),
        );
    }

    /// A finding on `span`, which lies inside field `f` (on its first line or,
    /// for a quoted cell holding newlines, a later one). (Positional:
    /// [`Emitter::report_in`] with a [`Finding`] replaces it.)
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
        self.report_in(
            span,
            f,
            Finding::new(rule, message)
                .severity(severity)
                .column(column)
                .help_if(help),
        );
    }

    /// Gives the last finding a fix; `edits` are buffer offsets, in order.
    /// (Positional: [`Finding::fix`] replaces it.)
    pub(crate) fn fix_last(
        &mut self,
        applicability: crate::diagnostic::Applicability,
        message: String,
        edits: Vec<(Range<usize>, String)>,
    ) {
        if let Some(d) = self.diags.last_mut() {
            d.fix = Some(Box::new(
                FixBuilder::new(applicability, message).edits(edits).build(),
            ));
        }
    }

    /// A finding about a whole record. (Positional: [`Emitter::report_row`]
    /// replaces it.)
    pub(crate) fn row(
        &mut self,
        rule: &'static Rule,
        severity: Option<Severity>,
        rec: &Record,
        message: String,
        help: Option<String>,
    ) {
        self.report_row(
            rec,
            Finding::new(rule, message).severity(severity).help_if(help),
        );
    }

    /// The lines around `span`, whose first character is at column `col`.
    fn snippet(&self, line: u64, line_start: usize, span: &Range<usize>, col: u64) -> Snippet {
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
        // A long line is cut to start near the finding: where the cut falls
        // on the line, so the human report shows the finding's own column.
        let skipped = data[from..span.start]
            .iter()
            .filter(|b| (**b & 0xC0) != 0x80)
            .count() as u64;
        Snippet {
            offset: from as u64,
            line,
            first_col: col.saturating_sub(skipped).max(1),
            first_byte_col: (from - line_start) as u64 + 1,
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

#[cfg(test)]
mod chunk_reader_tests {
    use super::*;

    /// Hands out a few bytes per read, so reads end anywhere.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            self.step = self.step % 7 + 1;
            let n = self.step.min(out.len()).min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    /// Recycled buffers keep stale bytes; none may leak into a chunk, and
    /// chunks must still tile the input at record boundaries.
    #[test]
    fn chunks_from_recycled_buffers_tile_the_input() {
        let mut input = Vec::new();
        for i in 0..300 {
            match i % 4 {
                0 => input.extend_from_slice(b"a,b,c\n"),
                1 => input.extend_from_slice(format!("\"x\ny\"\"{i}\",z\r\n").as_bytes()),
                2 => input.extend_from_slice(&vec![b'q'; i % 90]),
                _ => input.extend_from_slice(b"\n"),
            }
        }
        for chunk_size in [1, 5, 64, 1000] {
            for held in [0, 1, 3] {
                let mut r = ChunkReader::new(
                    Trickle {
                        data: &input,
                        step: 0,
                    },
                    chunk_size,
                    1 << 20,
                );
                let mut pending = std::collections::VecDeque::new();
                let mut out = Vec::new();
                while let Some(c) = r.next_chunk().expect("in-memory reads do not fail") {
                    assert_eq!(c.base, out.len() as u64);
                    out.extend_from_slice(&c.data);
                    if out.len() < input.len() {
                        assert_eq!(c.data.last(), Some(&b'\n'), "cut inside a line");
                        let quotes = bytecount::count(&out, b'"');
                        assert_eq!(quotes % 2, 0, "cut inside quotes");
                    }
                    pending.push_back(c.data);
                    while pending.len() > held {
                        if let Some(b) = pending.pop_front() {
                            r.recycle(b);
                        }
                    }
                }
                assert_eq!(out, input, "chunk size {chunk_size}, {held} held");
            }
        }
    }
}
