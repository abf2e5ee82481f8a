//! The pipeline that runs the stages over one file: the preamble, then
//! the chunks checked on one thread or on the pool and folded in file
//! order, then what only the end of the file tells.

use super::chunk::{Chunk, ChunkReader};
use super::chunk_check::{check_chunk, ChunkResult, Rows};
use super::cross::{self, CrossPlan, CrossState};
use super::dates;
use super::emit::{Emitter, Snippets};
use super::finding::{drain_sorted, Finding, FixBuilder};
use super::fixed_chunks::{lock, RowFixes};
use super::fold::{fold_chunk, Fold, Folded};
use super::header;
use super::options::Options;
use super::preamble::{self, runaway_record, Head};
use super::row::Plan;
use super::row_fixer;
use crate::diagnostic::{Diagnostic, FileReport, Transform};
use crate::error::Error;
use crate::rules;
use crate::schema;
use std::io::Read;
use std::sync::{Mutex, PoisonError, TryLockError};

/// Checks one input: the preamble, the plan, the chunks, the end.
pub(super) fn check_stream<R: Read>(
    reader: R,
    display: &str,
    file_name: Option<&str>,
    opts: &Options,
    sink: &mut dyn FnMut(Diagnostic),
) -> Result<(FileReport, dates::DateOrders), Error> {
    let mut report = FileReport {
        path: display.to_owned(),
        format: None,
        records: 0,
        diagnostics: Vec::new(),
        member: None,
    };
    let Some((head, chunks)) = preamble::read(reader, &mut report, file_name, opts)? else {
        return Ok((report, known_orders(opts)));
    };
    let snippets = Snippets::of(opts);
    let planned = plan(&head, opts, &snippets, &mut report.diagnostics);
    let fixed_head = opts.row_fixes.as_deref().and_then(|fixes| {
        row_fixer::fix_head(fixes, &head.first, head.end, &chunks, &report.diagnostics)
            .map(|h| (fixes, h))
    });
    let Some((fixes, fixed)) = fixed_head else {
        return rows(head, chunks, planned, 0, (report, display), opts, sink);
    };
    // The head's fixes are made before any row is read: the fixed head and
    // the rest of the input are checked from the start as the file the fix
    // writes, and its rows' offsets in the file are where they are read
    // less the bytes the head's fixes added.
    lock(&fixes.out).head(fixed.len, &fixed.bytes, &fixed.applied);
    let input = fixed.input(&head.first, head.end, chunks);
    drop((head, planned));
    report.diagnostics.clear();
    let Some((head, mut chunks)) = preamble::read(input, &mut report, file_name, opts)? else {
        return Ok((report, known_orders(opts)));
    };
    let planned = plan(&head, opts, &snippets, &mut report.diagnostics);
    chunks.base = chunks.base.saturating_add_signed(-fixed.delta());
    rows(
        head,
        chunks,
        planned,
        fixed.delta(),
        (report, display),
        opts,
        sink,
    )
}

/// The orders of a file whose check stopped before its rows: as they were
/// given.
fn known_orders(opts: &Options) -> dates::DateOrders {
    opts.date_orders
        .as_deref()
        .map(dates::DateOrders::as_known)
        .unwrap_or_default()
}

/// Checks the rows after the header `head`, read by `chunks` at offsets
/// `moved` bytes before where they lie in the output (the head's fixes
/// added them), against the plan made of it.
#[allow(clippy::too_many_arguments)]
fn rows<R: Read>(
    head: Head,
    mut chunks: ChunkReader<R>,
    (rows, mut fold, held): (Rows, Fold, Held),
    moved: i64,
    (mut report, display): (FileReport, &str),
    opts: &Options,
    sink: &mut dyn FnMut(Diagnostic),
) -> Result<(FileReport, dates::DateOrders), Error> {
    // Header findings come before any row's.
    drain_sorted(&mut report.diagnostics, sink);
    // The rest of the first chunk, then every later chunk. Each chunk is
    // checked with lines counted from 1 and fixed up in the fold.
    let mut first_rest = head.first.split_off(head.end);
    first_rest.base = first_rest.base.saturating_add_signed(-moved);
    fold.delta = moved;
    fold.legacy_bytes(&head.first, head.start..head.end, head.rec.line);
    let table = head.table;
    drop(head);
    let run = Run {
        rows: &rows,
        snippets: Snippets::of(opts),
        fixes: opts.row_fixes.as_deref(),
        display,
        pool: opts.pool.as_deref(),
    };
    let mut fold = if opts.threads() <= 1 {
        run.sequential(first_rest, &mut chunks, fold, sink)?
    } else {
        run.parallel(first_rest, &mut chunks, fold, sink)?
    };
    if let Some(span) = chunks.too_long.take() {
        // The runaway record starts right after the last chunk checked
        // (which fixed rows may have moved).
        let span = span.start.saturating_add_signed(fold.delta)
            ..span.end.saturating_add_signed(fold.delta);
        sink(runaway_record(span, fold.next_line, opts));
    }
    report.records += fold.records;
    unnamed_columns(&fold, &rows, held, sink);
    let dates = date_orders(&mut fold, table, opts);
    fold.finish(sink);
    Ok((report, dates))
}

/// The order of day and month in each date column: as given, or as the
/// file's cells showed it.
fn date_orders(fold: &mut Fold, table: &schema::Table, opts: &Options) -> dates::DateOrders {
    match &opts.date_orders {
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
    }
}

/// The header's `unknown-column` warnings of unnamed fields, held until
/// the end of the file, by unnamed field.
type Held = Vec<(usize, Diagnostic)>;

/// Compiles the table against the header (the row plan, the cross-row
/// plan; their findings on the header go to `found`) into what reading the
/// rows needs and the fold that starts after the header.
fn plan(
    head: &Head,
    opts: &Options,
    snippets: &Snippets,
    found: &mut Vec<Diagnostic>,
) -> (Rows, Fold, Held) {
    let (first, rec, table) = (&head.first, &head.rec, head.table);
    let mut emit = Emitter::new(&first.data, snippets.clone());
    let mut plan = Plan::new(table, &head.header, &first.data, rec, &mut emit);
    plan.set_date_orders(opts.date_orders.clone());
    let cross = CrossPlan::new(table, &plan, opts.cross, head.delim);
    if let Some(text) = &table.deprecated {
        emit.report_row(
            rec,
            Finding::from_template(&rules::DEPRECATED_FORMAT, &[("format", &table.name)])
                .help(text.clone()),
        );
    }
    // The unnamed header fields: their `unknown-column` warnings wait for
    // the end of the file, when it is known whether some row has data
    // there (then it is `unnamed-column-data`, an error).
    let names = &head.header.names;
    let unnamed: Vec<usize> = (0..names.len())
        .filter(|&i| header::normalize_name(&names[i]).is_empty())
        .collect();
    let mut held = Vec::new();
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
                held.push((k, first.rebase(d.clone())));
                false
            }
            None => true,
        }
    });
    found.extend(emit.diags.into_iter().map(|d| first.rebase(d)));
    let rows = Rows {
        plan,
        cross,
        width: rec.fields.len(),
        unnamed,
        max_record: opts.max_record_bytes,
    };
    let mut fold = Fold::new(
        rec.ending,
        head.next_line,
        CrossState::new(opts.max_distinct_rows, snippets.clone()),
        opts.size_hint,
    );
    fold.every_row = opts.every_row;
    (rows, fold, held)
}

/// What every chunk's check and fold share.
struct Run<'a> {
    rows: &'a Rows,
    snippets: Snippets,
    fixes: Option<&'a RowFixes>,
    display: &'a str,
    /// The run's own pool, if it has one (`Options::pool`).
    pool: Option<&'a rayon::ThreadPool>,
}

impl Run<'_> {
    /// One thread: checks and folds each chunk in turn, here.
    fn sequential<R: Read>(
        &self,
        first_rest: Chunk,
        chunks: &mut ChunkReader<R>,
        mut fold: Fold,
        sink: &mut dyn FnMut(Diagnostic),
    ) -> Result<Fold, Error> {
        let (rows, fixes) = (self.rows, self.fixes);
        let mut next = Some(first_rest);
        while let Some(c) = next {
            let r = check_chunk(rows, &c, self.snippets.clone(), fixes);
            let mut folded = fold_chunk(&mut fold, c, r, &rows.cross);
            chunks.adapt(folded.data.len(), folded.ready.len());
            folded.write(fixes);
            folded.ready.into_iter().for_each(&mut *sink);
            chunks.recycle(folded.data);
            next = chunks
                .next_chunk()
                .map_err(|e| Error::io(self.display, e))?;
        }
        Ok(fold)
    }

    /// A pipeline. This thread reads chunks (the boundary scan is
    /// sequential) and writes findings out. The pool checks chunks as they
    /// come, and whichever worker has the chunk next in file order folds
    /// it (and any waiting behind it) into the cross-row state, so the fold
    /// stays sequential and in file order and the output is the same at
    /// any thread count. The fold used to run on this thread: on two cores
    /// it was a third busy thread holding ~40% of the work, and the
    /// scheduler gave it a third of the machine. A few chunks per worker
    /// are in flight, so memory stays bounded and no worker waits for
    /// reading.
    fn parallel<R: Read>(
        &self,
        first_rest: Chunk,
        chunks: &mut ChunkReader<R>,
        fold: Fold,
        sink: &mut dyn FnMut(Diagnostic),
    ) -> Result<Fold, Error> {
        let (rows, fixes) = (self.rows, self.fixes);
        let io = |e| Error::io(self.display, e);
        let in_flight = self
            .pool
            .map_or_else(rayon::current_num_threads, |p| p.current_num_threads())
            * 2
            + 2;
        let (tx, rx) = std::sync::mpsc::channel::<std::thread::Result<Folded>>();
        let pipeline = Stage {
            waiting: Mutex::new(std::collections::BTreeMap::new()),
            fold: Mutex::new((fold, 0)),
        };
        let stage = &pipeline;
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
            scope_fifo(self.pool, |s| -> Result<(), Error> {
                let (mut sent, mut done) = (0u64, 0u64);
                // Bytes of the chunks sent and not yet back: checked, folded,
                // or (with `--fix`) at the writer until their buffer returns.
                let mut held = 0usize;
                let mut next = Some(first_rest);
                loop {
                    while sent - done < in_flight as u64 {
                        let Some(c) = next.take() else { break };
                        // A chunk past the budget waits for room, unless
                        // nothing is held: a record larger than the budget
                        // is still read, alone.
                        if held > 0 && held + c.data.len() > IN_FLIGHT_BYTES {
                            next = Some(c);
                            break;
                        }
                        held += c.data.len();
                        let tx = tx.clone();
                        let snippets = self.snippets.clone();
                        let n = sent;
                        s.spawn_fifo(move |_| {
                            // A panic (a bug) must reach this thread, which would
                            // otherwise wait for the result forever.
                            let run =
                                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                    let r = check_chunk(rows, &c, snippets, fixes);
                                    stage.offer(n, c, r, &rows.cross, &tx);
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
                        if next.is_none() {
                            return Ok(());
                        }
                        // Every chunk sent is folded: what holds the budget
                        // is at the writer, which gives it back.
                        let Ok(b) = written.recv() else {
                            // The writer ended (it panicked): the fixed copy
                            // is lost, but the check goes on.
                            held = 0;
                            continue;
                        };
                        held = held.saturating_sub(b.len());
                        chunks.recycle(b);
                        continue;
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
                                held = held.saturating_sub(b.len());
                                chunks.recycle(b);
                            }
                        }
                        None => {
                            held = held.saturating_sub(folded.data.len());
                            chunks.recycle(folded.data);
                        }
                    }
                    done += 1;
                }
            })?;
            drop(to_writer);
            Ok(())
        })?;
        Ok(pipeline
            .fold
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
            .0)
    }
}

/// Bytes of chunks in flight at most (being checked, waiting to be
/// folded, at the writer of `--fix`), beside their number: chunks hold
/// whole records, so a file of 8 MiB records makes every chunk 8 MiB and
/// more, and a number of chunks alone let memory grow with the threads.
/// Clean data's 1 MiB chunks stay within it at 16 threads.
const IN_FLIGHT_BYTES: usize = 16 << 20;

/// Reports the header's unnamed fields, held until now: `unknown-column`
/// for one empty in every row (with a fix when such fields end the
/// header), `unnamed-column-data` for one some row has data in.
fn unnamed_columns(fold: &Fold, rows: &Rows, held: Held, sink: &mut dyn FnMut(Diagnostic)) {
    // Unnamed columns empty in every row that end the header (a trailing
    // comma or two, as spreadsheets save a formatted column): removing them
    // from every row keeps every value.
    let empty = |k: usize| fold.unnamed.get(k).copied().unwrap_or(0) == 0;
    let trailing = (0..rows.width)
        .rev()
        .take_while(|&i| rows.unnamed.iter().position(|&u| u == i).is_some_and(empty))
        .count();
    for (k, mut d) in held {
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
}

/// The fold, shared by the pool's workers: checked chunks wait in
/// `waiting` until the one before them is folded; `fold` holds the state
/// and the number of the next chunk to fold.
pub(super) struct Stage {
    pub(super) waiting: Mutex<std::collections::BTreeMap<u64, (Chunk, ChunkResult)>>,
    pub(super) fold: Mutex<(Fold, u64)>,
}

impl Stage {
    /// Hands over checked chunk `n`, and folds it and every chunk waiting
    /// behind it unless another worker is folding already (which then
    /// folds this one too). Each folded chunk goes to `tx` in file order.
    pub(super) fn offer(
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

/// A FIFO scope whose tasks go to `pool` (or rayon's current pool), the
/// calling thread staying the caller's.
fn scope_fifo<'scope, R>(
    pool: Option<&rayon::ThreadPool>,
    op: impl FnOnce(&rayon::ScopeFifo<'scope>) -> R,
) -> R {
    match pool {
        Some(p) => p.in_place_scope_fifo(op),
        None => rayon::in_place_scope_fifo(op),
    }
}

/// The next result from the chunk checks. On a pool thread, waiting means
/// running pool work (perhaps the very check waited for), so a pool of one
/// cannot deadlock; elsewhere it blocks.
pub(super) fn receive<T>(rx: &std::sync::mpsc::Receiver<T>) -> T {
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
