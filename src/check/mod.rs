//! Checking one file against a schema table.
//!
//! The file is read in chunks that end at record boundaries (found by the
//! quote-parity scan of [`crate::scan::RecordBoundaries`]), so memory stays
//! bounded by the chunk size, whatever the file size. The calling thread
//! reads chunks and keeps a few in flight on rayon, where they are checked
//! with chunk-relative line numbers in any order; it folds the results back
//! in file order, which makes the output identical at any thread count:
//! chunk boundaries depend on bytes only, never on the number of threads.

//!
//! The folder is layered, bottom up; a file uses only files below it:
//! - findings and chunks: `finding.rs` (the finding builder, offset
//!   moves), `options.rs`, `fixed_chunks.rs`, `emit.rs` (the `Emitter`),
//!   `chunk.rs` (`Chunk`, `ChunkReader`), with the leaves they use (`text`,
//!   `dialect`, `encoding`, `dates`, `cell_edits`, `shapes`, `grammar`,
//!   `filter_grammar`, `fptable`, `sheet`);
//! - what a record and a row are checked for: `record`, `header`, `row`,
//!   `cross`, `row_fixer`;
//! - the stages: `preamble.rs` (dialect, encoding, header, table),
//!   `chunk_check.rs` (a chunk's rows, on a worker), `fold.rs` (the
//!   sequential fold), `pipeline.rs` (the stages run on one or N threads);
//! - across files: `refs`, `batch`, `split`;
//! - this file: the entry points, and the public face of the rest.

pub mod batch;
mod cell_edits;
mod chunk;
mod chunk_check;
mod cross;
pub mod dates;
pub mod dialect;
mod emit;
pub(crate) mod encoding;
mod filter_grammar;
mod finding;
mod fixed_chunks;
mod fold;
mod fptable;
mod grammar;
pub(crate) mod header;
mod magic;
mod options;
mod pipeline;
mod preamble;
mod record;
pub mod refs;
mod row;
mod row_fixer;
pub(crate) mod shapes;
mod sheet;
#[cfg(test)]
mod sniff_tests;
pub(crate) mod split;
mod text;

use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::schema;
use chunk::Cancellable;
use finding::drain_sorted;
use std::io::Read;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

pub use crate::diagnostic::FileReport;
pub(crate) use finding::file_diag;
pub use fixed_chunks::{FixedChunks, RowFixes};
pub use options::{CrossRules, Options, MAX_DISTINCT_ROWS};
pub use preamble::{header_names, reads_alike, sniff_format, MAX_COLUMNS, MAX_HEADER};
pub use row::Plan;

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
pub(crate) fn check_reader_dated<R: Read>(
    reader: R,
    display: &str,
    file_name: Option<&str>,
    opts: &Options,
    sink: &mut dyn FnMut(Diagnostic),
) -> Result<(FileReport, dates::DateOrders), Error> {
    let reader = Cancellable::new(reader, opts);
    let (mut report, dates) = pipeline::check_stream(reader, display, file_name, opts, sink)?;
    // What is left: findings of a file that stopped before its rows.
    drain_sorted(&mut report.diagnostics, sink);
    Ok((report, dates))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Applicability;
    use crate::rules::Rule;
    use std::sync::Mutex;

    /// Counts the chunks that changed.
    struct Changed(Arc<Mutex<usize>>);

    impl FixedChunks for Changed {
        fn chunk(
            &mut self,
            _: u64,
            _: u64,
            _: &[u8],
            changed: bool,
            _: &[(&'static Rule, u32)],
            _: bool,
        ) {
            if changed {
                *self.0.lock().expect("not poisoned") += 1;
            }
        }
    }

    /// The findings of a fixing check of `file` with records of at most
    /// `max_record` bytes, and how many chunks it changed.
    fn fixing(file: &[u8], max_record: usize) -> (Vec<&'static str>, usize) {
        let changed = Arc::new(Mutex::new(0));
        let opts = Options {
            format: Some("employees".into()),
            max_record_bytes: max_record,
            row_fixes: Some(Arc::new(RowFixes::new(
                Box::new(|d: &Diagnostic| {
                    d.fix
                        .as_ref()
                        .is_some_and(|f| f.applicability == Applicability::Safe)
                }),
                Box::new(Changed(Arc::clone(&changed))),
            ))),
            ..Options::default()
        };
        let r = check_reader(file, "e.csv", None, &opts).expect("checks");
        let codes = r.diagnostics.iter().map(|d| d.rule.code).collect();
        let n = *changed.lock().expect("not poisoned");
        (codes, n)
    }

    #[test]
    fn a_row_is_fixed_in_the_check_unless_it_would_grow_near_the_longest_record() {
        let file = b"Full Name,Work Email,Start Date\nAda,a@x.com,3/7/2024\n";
        // Fixed where it is checked: the finding is gone, the chunk changed.
        assert_eq!(fixing(file, 64 << 20), (vec![], 1));
        // `03/07/2024` would make the 20-byte row 22, past half of 40: the
        // row is left to the file's own passes, its finding still there.
        assert_eq!(fixing(file, 40), (vec!["C004"], 0));
    }

    /// Issue 34: the head's fixes (the BOM, a `sep=,` line, names written
    /// otherwise) are made in the check that fixes the rows, as a chunk of
    /// their own before the rows': nothing is left for a pass of its own.
    #[test]
    fn the_head_is_fixed_in_the_check_with_the_rows() {
        let file = b"\xef\xbb\xbfsep=,\nfull name,Work Email,START DATE\nAda,a@x.com,3/7/2024\n";
        assert_eq!(fixing(file, 64 << 20), (vec![], 2));
        // Only the head.
        let file = b"full name,Work Email,Start Date\nAda,a@x.com,03/07/2024\n";
        assert_eq!(fixing(file, 64 << 20), (vec![], 1));
    }
}
