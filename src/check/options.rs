//! What a check is asked to do (`Options`, `CrossRules`): the one
//! value every stage reads its settings from, at the bottom of the folder.

use super::dates;
use super::fixed_chunks::RowFixes;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Distinct rows the duplicate-row check remembers by default: 15-30
/// bytes each (see rules/README.md), so about 45 MB at worst.
pub const MAX_DISTINCT_ROWS: usize = 1_500_000;

/// What to check and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// The format's name; `None` detects it from the header.
    pub format: Option<String>,
    /// Detection takes a format only on strong evidence
    /// (`schema::Evidence`): set for a file a directory
    /// walk found, which may be a CSV of another kind that shares a name or
    /// two with a format. Weak evidence stops the check with the error a
    /// header of no format gives (the run reports `unknown-format`).
    pub strict_detection: bool,
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
    /// (see [`check_reader_dated`](crate::check::check_reader_dated)).
    pub date_orders: Option<Arc<dates::DateOrders>>,
    /// The run's own pool (`--threads`), into which the parallel steps
    /// spawn; `None` uses rayon's current pool. The thread that reads a
    /// file stays the caller's, beside the pool, as it is without one:
    /// running it on a worker of the pool made its large allocations
    /// come from a thread arena, whose reservations took a dense file's
    /// check past 256 MiB of address space now and then.
    pub pool: Option<Arc<rayon::ThreadPool>>,
}

impl Options {
    /// How many threads check chunks: the run's pool's, or rayon's.
    pub(crate) fn threads(&self) -> usize {
        self.pool
            .as_ref()
            .map_or_else(rayon::current_num_threads, |p| p.current_num_threads())
    }

    /// Runs `op` where the parallel steps use the run's pool (`install`
    /// blocks this thread until it is done, as a parallel iterator does);
    /// without a pool, here.
    pub(crate) fn in_pool<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(p) => p.install(op),
            None => op(),
        }
    }
}

/// The cross-row rules to run, by the state they keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrossRules {
    /// `X001`-`X003`: a map entry per distinct identity value.
    pub(crate) identity: bool,
    /// `X004`: a map entry per distinct key value.
    pub(crate) unique: bool,
    /// `X005`: a map entry per distinct row.
    pub(crate) rows: bool,
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
            strict_detection: false,
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
            pool: None,
        }
    }
}
