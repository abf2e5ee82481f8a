//! Checking every input of a run, in order, into one report (the
//! execute step of `run::check`): small inputs are checked in parallel and
//! kept (up to a budget of findings), large ones stream their findings as
//! they are read, and with `--fix` each input goes through its passes
//! (`passes.rs`). Named for that step (it was `files.rs`, a name the
//! bounded reading of settings files had too); one input's check is
//! `one_input.rs`.

use super::expand;
use super::one_input::{failure, PerInput, Run, STREAM_ABOVE};
use super::passes::Fixing;
use super::request::Input;
use super::tally::{Streamer, Tally};
use crate::check::batch::{self, BatchInput};
use crate::check::refs::{self, Keys};
use crate::check::{self, Options};
use crate::diagnostic::{Collector, Diagnostic, Reports};
use crate::error::Error;
use crate::report::{Failure, Report};
use crate::schema;
use rayon::prelude::*;
use std::collections::HashMap;
use std::io;
use std::path::Path;

/// Bytes of findings the inputs checked ahead may hold together. An input
/// with more is checked again in its turn, streamed: memory stays bounded
/// whatever the number of findings.
const AHEAD_BYTES: usize = 32 << 20;

impl Run<'_> {
    /// Whether an input is checked ahead: a ZIP bundle, or a regular file
    /// small enough that its findings most likely fit the budget. Never a
    /// stream, which could not be read again if they did not.
    fn ahead(&self, input: &Input, format: Option<&str>) -> bool {
        match input {
            Input::Stdin => false,
            Input::File(p) => std::fs::metadata(p).is_ok_and(|m| {
                m.is_file() && (self.is_bundle(input, format) || m.len() <= STREAM_ABOVE)
            }),
        }
    }

    /// The CSV files of the run (bundles and standard input left out) with
    /// the format each is checked as, known before it is checked: named by
    /// `--format` or a config override, else detected from the header.
    /// Only regular files take part: a pipe or a FIFO (`<(cat f.csv)`) can
    /// be read once, by its check, and a header read here would be lost to
    /// it. A lone input has no other file to be compared with, so nothing
    /// is read ahead of its check either. Each header is read once a run,
    /// however many passes ask (the run's keys, the batch).
    fn csv_formats<'i>(
        &self,
        inputs: &'i [Input],
        per_input: &PerInput<'_>,
    ) -> Vec<(usize, &'i Path, &'static str)> {
        if inputs.len() < 2 {
            return Vec::new();
        }
        let sniffed = self.sniffed.get_or_init(|| {
            inputs
                .iter()
                .enumerate()
                .filter_map(|(index, input)| match input {
                    Input::File(p)
                        if !self.is_bundle(input, per_input[index].0)
                            && std::fs::metadata(p).is_ok_and(|m| m.is_file()) =>
                    {
                        let named = self.req.format.as_deref().or(per_input[index].0);
                        let format = match named {
                            Some(f) => schema::table(f).ok().flatten().map(|t| t.name.as_str()),
                            None => check::sniff_format(p, expand::strict(self.req, p)),
                        };
                        Some((index, format?))
                    }
                    _ => None,
                })
                .collect()
        });
        sniffed
            .iter()
            .filter_map(|&(index, format)| match inputs.get(index)? {
                Input::File(p) => Some((index, p.as_path(), format)),
                Input::Stdin => None,
            })
            .collect()
    }

    /// The keys of the run's CSV files that the references checked after
    /// each file read (the employees that relations' employee ends name).
    /// `None` when nothing in the run reads them (then no file is read
    /// twice), or a file cannot be read (its own check reports that; a
    /// partial set would make false findings).
    pub(super) fn run_keys_of(&self, inputs: &[Input], per_input: &PerInput<'_>) -> Option<Keys> {
        // A lone input cannot be both a target file and what refers to
        // one: the common single-file run sniffs nothing here.
        if inputs.len() < 2 {
            return None;
        }
        let formats = self.csv_formats(inputs, per_input);
        let bundles = inputs
            .iter()
            .zip(per_input)
            .any(|(input, (format, _))| self.is_bundle(input, *format));
        // A bundle's members are told apart only once it is opened: any
        // format checked after its file may be among them.
        let referring: Vec<&str> = if bundles {
            refs::formats_checked_after()
        } else {
            formats.iter().map(|&(_, _, f)| f).collect()
        };
        let files: Vec<(&Path, &str)> = formats.iter().map(|&(_, p, f)| (p, f)).collect();
        refs::collect_run(&files, &referring, self.opts)
    }

    /// The batch checks, before any file is checked: a streamed file's
    /// findings go out while it is read, so what the batch says about it
    /// must be known by its end.
    fn batch_up_front(
        &self,
        inputs: &[Input],
        per_input: &PerInput<'_>,
        failures: &mut Vec<Failure>,
    ) -> HashMap<usize, Vec<Diagnostic>> {
        let formats = self.csv_formats(inputs, per_input);
        let files: Vec<BatchInput<'_>> = formats
            .iter()
            .map(|&(index, path, format)| BatchInput {
                index,
                path,
                format,
            })
            .collect();
        match self.opts.in_pool(|| batch::check_batch(&files, self.opts)) {
            Ok(found) => found.into_iter().collect(),
            Err(e) => {
                failures.push(failure(e));
                Default::default()
            }
        }
    }

    /// Checks every input, in order, into `w`. Runs of inputs checked
    /// ahead go in parallel, a window at a time, each kept up to its share
    /// of [`AHEAD_BYTES`]; one that has more findings, and every large file
    /// or stream, is checked in its turn with its findings written as they
    /// are found. Output is the same bytes at any thread count: what is
    /// kept is written in input order.
    pub(super) fn execute(
        &self,
        inputs: &[Input],
        per_input: &PerInput<'_>,
        failures: &mut Vec<Failure>,
        w: &mut dyn Report,
        t: &mut Tally,
        fixing: Option<&mut Fixing<'_>>,
    ) -> io::Result<()> {
        let mut extra = self.batch_up_front(inputs, per_input, failures);
        // Fixing goes input by input: each is read, fixed and written in
        // its turn (its chunks still in parallel).
        if let Some(fixing) = fixing {
            for (i, input) in inputs.iter().enumerate() {
                let more = extra.remove(&i).unwrap_or_default();
                self.fix_input(input, &per_input[i], more, fixing, failures, w, t);
                if let Some(e) = t.error.take() {
                    return Err(e);
                }
            }
            return Ok(());
        }
        let window = 2 * self.opts.threads().max(1);
        // Fewer inputs than the window share the bytes among themselves: a
        // file checked alone keeps its findings (and is checked again when
        // it learns its dates' order late) whatever the thread count.
        let budget = AHEAD_BYTES / window.min(inputs.len()).max(1);
        let mut i = 0;
        while i < inputs.len() {
            let mut j = i;
            while j < inputs.len() && j - i < window && self.ahead(&inputs[j], per_input[j].0) {
                j += 1;
            }
            if j == i {
                let more = extra.remove(&i).unwrap_or_default();
                self.stream_input(&inputs[i], &per_input[i], more, failures, w, t);
                i += 1;
            } else {
                let kept: Vec<Result<Collector, Error>> = self.opts.in_pool(|| {
                    (i..j)
                        .into_par_iter()
                        .map(|k| {
                            let (format, filter) = &per_input[k];
                            let mut c = Collector::with_budget(budget);
                            let opts = Options {
                                cancel: c.cancel.clone(),
                                ..self.opts_for(*format, filter)
                            };
                            let more = extra.get(&k).cloned().unwrap_or_default();
                            self.check_into(&inputs[k], *format, &opts, more, None, &mut c)
                                .map(|()| c)
                        })
                        .collect()
                });
                for (k, r) in (i..j).zip(kept) {
                    let more = extra.remove(&k).unwrap_or_default();
                    match r {
                        Ok(c) if !c.overflowed => {
                            let mut s = Streamer {
                                tally: t,
                                report: w,
                                filter: &per_input[k].1,
                            };
                            for rep in c.reports {
                                s.start_file(&rep.path, rep.member.as_deref(), false);
                                for d in rep.diagnostics {
                                    s.diagnostic(d);
                                }
                                s.end_file(rep.format, rep.records);
                            }
                        }
                        Ok(_) => self.stream_input(&inputs[k], &per_input[k], more, failures, w, t),
                        Err(e) => failures.push(failure(e)),
                    }
                    if let Some(e) = t.error.take() {
                        return Err(e);
                    }
                }
                i = j;
            }
            if let Some(e) = t.error.take() {
                return Err(e);
            }
        }
        Ok(())
    }
}
