//! A `bdxlint check` run, from the request the binary resolved out of its
//! flags to the exit status, in four steps (`check` reads as them):
//! **validate** what can be told wrong before an input is read
//! (`validate.rs`: the settings, `settings.rs`, flags over the nearest
//! `bdxlint.toml`; path expansion and walks, `expand.rs`; the outputs
//! against the inputs; the run's thread pool); **build** from the settings
//! the checker's options, the report and the tally each finding passes
//! through (the rule filter, the baseline, the caps: `tally.rs`);
//! **execute**, checking every input into the report in order
//! (`execute.rs`; one input, `one_input.rs`; the `--fix` passes,
//! `passes.rs`); and **finish**: the split, the baseline written, the
//! summary and the exit status.
//! It writes findings to `out` and the run's messages (files it could not
//! check, baselines written, findings hidden) to `err`, never to the
//! process's streams itself: the binary hands it stdout and stderr.

mod copies;
mod execute;
mod expand;
mod one_input;
mod passes;
mod replace;
mod request;
mod settings;
mod show;
mod split;
mod tally;
mod validate;

pub use request::{FixRequest, Request};
pub use validate::max_threads;

use crate::baseline::Baseline;
use crate::bundle::Kind;
use crate::check::refs::{self, Keys};
use crate::check::{self, Options};
use crate::output::Output;
use crate::report::{self, display_path, Failure, OutputFormat, Summary};
use crate::schema;
use crate::select::RuleFilter;
use crate::tempfiles::Temp;
use one_input::Run;
use request::Input;
use std::cell::RefCell;
use std::io::{self, Write};
use std::path::Path;
use tally::Tally;
use validate::{validate, EntitiesError, SetupError, Valid};

/// No finding at or above `--fail-on`.
pub const EXIT_CLEAN: u8 = 0;
/// Findings at or above `--fail-on`.
pub const EXIT_FINDINGS: u8 = 1;
/// Usage, configuration or I/O trouble: some input was not checked.
pub const EXIT_TROUBLE: u8 = 2;

/// One of the run's two streams, shared: with `--fix` on standard input
/// the fixed file goes to `out` while the report goes to `err`, where the
/// run's messages go too.
struct Shared<'a, 'w>(&'a RefCell<&'w mut dyn Write>);

impl Write for Shared<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.borrow_mut().write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.borrow_mut().flush()
    }
}

/// Why a run stopped short of its exit status: a setup error (said on
/// `err`, exit 2), or a write to `out` or `err` that failed.
enum Halt {
    Setup(SetupError),
    Io(io::Error),
}

impl From<SetupError> for Halt {
    fn from(e: SetupError) -> Halt {
        Halt::Setup(e)
    }
}

impl From<io::Error> for Halt {
    fn from(e: io::Error) -> Halt {
        Halt::Io(e)
    }
}

/// Runs `bdxlint check` as `req` asks: validate, then build, execute and
/// finish in the run's own thread pool (`--threads`), so that two runs in
/// one process may use two counts. The streams are `Send` for that: the
/// work runs on a thread of the pool.
pub fn check(
    req: &Request,
    out: &mut (dyn Write + Send),
    err: &mut (dyn Write + Send),
) -> io::Result<u8> {
    let outcome = validate(req)
        .map_err(Halt::from)
        .and_then(|valid| valid.run(req, out, &mut *err));
    match outcome {
        Ok(code) => Ok(code),
        // The one place a run's trouble becomes its message and status.
        Err(Halt::Setup(e)) => {
            e.say(err)?;
            Ok(EXIT_TROUBLE)
        }
        Err(Halt::Io(e)) => Err(e),
    }
}

impl Valid {
    /// The run proper, its inputs known and its outputs allowed: the
    /// report to `out`, or to `--output-file`, replaced only once whole.
    fn run(self, req: &Request, out: &mut dyn Write, err: &mut dyn Write) -> Result<u8, Halt> {
        let Some(path) = &req.output_file else {
            return self.report_to(req, out, err);
        };
        let output_file = |error| SetupError::OutputFile {
            path: path.clone(),
            error,
        };
        let mut file = Output::create(path, ".bdxlint-report").map_err(output_file)?;
        // A run that ends in an I/O error drops the file.
        let code = self.report_to(req, &mut file, err)?;
        file.commit().map_err(output_file)?;
        Ok(code)
    }

    /// Build, execute, finish: the report to `out`, the run's messages to
    /// `err`.
    fn report_to<'w>(
        self,
        req: &Request,
        out: &'w mut dyn Write,
        err: &'w mut dyn Write,
    ) -> Result<u8, Halt> {
        let Valid {
            settings,
            inputs,
            mut failures,
            stdin_count,
            halves,
            pool,
        } = self;
        if stdin_count > 0 && req.format.as_deref().and_then(Kind::from_name).is_some() {
            return Err(SetupError::ZipFromStdin.into());
        }
        // Build: what every input is checked with, then the report and
        // the tally.
        // The parallel steps spawn into the run's pool; this thread reads.
        let opts = Options {
            pool: pool.map(std::sync::Arc::new),
            ..settings.options(req)
        };
        let external = load_all_entities(req, &opts)?;
        // Per input: the config overrides that match it may name its format
        // (`--format` still wins) and add to its rule filter.
        let per_input: Vec<(Option<&str>, RuleFilter)> = inputs
            .iter()
            .map(|i| match (i, &req.stdin_filename) {
                // Named standard input takes that path's settings.
                (Input::Stdin, Some(name)) => settings.for_input(&Input::File(name.clone())),
                _ => settings.for_input(i),
            })
            .collect();
        let run = Run {
            req,
            progress: settings.output_format == OutputFormat::Human && req.progress,
            opts: &opts,
            limits: &req.limits,
            external: external.as_ref(),
            run_keys: None,
            sniffed: Default::default(),
        };
        // The keys of the run's files (its employees), loaded before any file
        // is checked: the relations files and bundles checked alongside need
        // them.
        let run_keys = run.run_keys_of(&inputs, &per_input);
        let run = Run {
            run_keys: run_keys.as_ref(),
            ..run
        };
        // Read the baseline before writing one: `--baseline b --write-baseline b`
        // reports against the old file and leaves the new one.
        let old =
            (req.baseline.as_deref().map(Baseline::load).transpose()).map_err(SetupError::from)?;
        let (out_cell, err_cell) = (RefCell::new(out), RefCell::new(err));
        let streams = Streams::new(req, stdin_count, &out_cell, &err_cell);
        let mut report_w = streams.report_w();
        let mut content_w = Shared(&out_cell);
        let mut w = settings.report(req, &mut report_w)?;
        let mut t = settings.tally(req, old);
        // `--split --fix`: the fixed copy is made beside GOOD and kept to
        // be split; the input stays as it is.
        let split_dir = halves.as_ref().map(split::Halves::copy_dir);
        let mut fixing = req
            .fix
            .map(|f| passes::Fixing::new(f, &mut content_w, split_dir));
        // Execute.
        run.execute(
            &inputs,
            &per_input,
            &mut failures,
            &mut *w,
            &mut t,
            fixing.as_mut(),
        )?;
        // Finish.
        let (kept, shown, not_fixed) = match fixing {
            Some(f) => (f.kept, f.shown, f.not_fixed),
            None => Default::default(),
        };
        let mut err = Shared(&err_cell);
        if let Some(halves) = halves {
            let split_ok = failures.is_empty() && not_fixed.is_empty();
            if let Some(failed) = split_step(
                req, &inputs, &opts, halves, kept, &mut t, split_ok, &mut err,
            )? {
                failures.push(failed);
            }
        }
        for f in failures.iter().chain(&not_fixed) {
            say(&mut err, &f.reason)?;
        }
        let s = summary(&t, &failures, &not_fixed);
        let mut code = exit_status(req, &settings, &t, &s);
        if !write_baseline(req, &mut t, &s, &mut err)? {
            code = EXIT_TROUBLE;
        }
        let s = Summary {
            exit_status: Some(code),
            ..s
        };
        w.finish(&failures, &s)?;
        drop(w);
        if req.fix.is_some_and(|f| f.show_fixes) {
            // Beside the report: on standard output unless that carries the
            // fixed file or the diff.
            let mut to = streams.report_w();
            write_shown(&shown, s.dry_run, &mut to)?;
        }
        closing_notes(req, &settings, &s, &mut err)?;
        Ok(code)
    }
}

/// Where the report goes: standard output, unless that carries the fixed
/// file (`--fix` on standard input) or the diff; then standard error.
struct Streams<'a, 'w> {
    to_err: bool,
    out: &'a RefCell<&'w mut dyn Write>,
    err: &'a RefCell<&'w mut dyn Write>,
}

impl<'a, 'w> Streams<'a, 'w> {
    fn new(
        req: &Request,
        stdin_count: usize,
        out: &'a RefCell<&'w mut dyn Write>,
        err: &'a RefCell<&'w mut dyn Write>,
    ) -> Self {
        let fix_stdin = req.fix.is_some_and(|f| !f.diff) && stdin_count > 0;
        Streams {
            to_err: fix_stdin || req.fix.is_some_and(|f| f.diff),
            out,
            err,
        }
    }

    /// The stream the report (and `--show-fixes`) is written to.
    fn report_w(&self) -> Shared<'a, 'w> {
        Shared(if self.to_err { self.err } else { self.out })
    }
}

/// `check --show-settings`: the settings the first input would be checked
/// with and the `bdxlint.toml` they come from, on `out`; nothing is
/// checked. Exit 2 when the settings do not resolve or there is no input.
pub fn show_settings(req: &Request, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<u8> {
    Ok(status(show::settings(req, out, err)?))
}

/// `check --show-files`: every file a run would check, with the format it
/// would be checked as and why, and the `.csv` and `.zip` files its walks
/// pass over, with why, on `out`; nothing is checked. Exit 2 when the
/// settings do not resolve or a path cannot be expanded.
pub fn show_files(req: &Request, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<u8> {
    Ok(status(show::files(req, out, err)?))
}

fn status(ok: bool) -> u8 {
    if ok {
        EXIT_CLEAN
    } else {
        EXIT_TROUBLE
    }
}

/// The entities the relations point at (`--entities`), loaded once for
/// every file.
fn load_all_entities(req: &Request, opts: &Options) -> Result<Option<Keys>, SetupError> {
    if req.entities.is_empty() {
        return Ok(None);
    }
    let mut keys = Keys::default();
    for p in &req.entities {
        load_entities(p, opts, &mut keys).map_err(|error| SetupError::Entities {
            path: p.clone(),
            error,
        })?;
    }
    Ok(Some(keys))
}

/// `--split`: the file (or, with `--fix`, its fixed copy `kept`) split
/// into the halves by the errors the check found, and the note on `err`;
/// a failure to split is the run's failure, returned. A file not checked
/// or not fixed (`!ok`) is not split: its halves would not be what was
/// asked for.
#[allow(clippy::too_many_arguments)]
fn split_step(
    req: &Request,
    inputs: &[Input],
    opts: &Options,
    halves: split::Halves,
    kept: Option<Temp>,
    t: &mut Tally,
    ok: bool,
    err: &mut dyn Write,
) -> io::Result<Option<Failure>> {
    let (Some((good, bad)), Some(mut found), [Input::File(path)]) =
        (&req.split, t.split.take(), inputs)
    else {
        return Ok(None);
    };
    if !ok {
        return Ok(None);
    }
    // With `--fix`, the fixed copy is split (the report is its check, the
    // errors its offsets).
    let source = kept.as_ref().map_or(path.as_path(), |k| k.path());
    let errors = std::mem::take(&mut found.errors);
    match split::split(source, kept.is_none(), opts, errors, halves) {
        Ok(n) => {
            writeln!(
                err,
                "bdxlint: split {}{}: {} rows without errors to {}, {} to {}",
                display_path(path),
                if req.fix.is_some() {
                    " as fixed (the file itself left as it was)"
                } else {
                    ""
                },
                n.good,
                display_path(good),
                n.bad,
                display_path(bad)
            )?;
            if let Some(note) = found.kept_note(good, bad) {
                say(err, &note)?;
            }
            Ok(None)
        }
        Err(e) => Ok(Some(Failure {
            path: path.display().to_string(),
            reason: format!("--split {}: {e}", display_path(path)),
        })),
    }
}

/// The run's summary: the tally's counts, with the files not checked or
/// not fixed.
fn summary(t: &Tally, failures: &[Failure], not_fixed: &[Failure]) -> Summary {
    let mut s = t.summary;
    s.failures = failures.len();
    s.files += failures.len();
    s.not_fixed = not_fixed.len();
    if let Some(m) = &t.baseline {
        s.stale_baseline = m.outcome().stale;
    }
    s
}

/// The exit status the findings make (before the baseline is written).
fn exit_status(req: &Request, settings: &settings::Settings, t: &Tally, s: &Summary) -> u8 {
    if s.failures > 0 || s.not_fixed > 0 {
        EXIT_TROUBLE
    } else if req.fix.is_some_and(|f| f.diff) {
        // A diff says whether anything would change, as `ruff --diff` does.
        if s.fixed > 0 && !settings.exit_zero {
            EXIT_FINDINGS
        } else {
            EXIT_CLEAN
        }
    } else if t.failing && !settings.exit_zero {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    }
}

/// `--write-baseline`: the findings recorded, and said on `err`; `false`
/// if the file could not be written (exit 2).
fn write_baseline(
    req: &Request,
    t: &mut Tally,
    s: &Summary,
    err: &mut dyn Write,
) -> io::Result<bool> {
    let (Some(p), Some(r)) = (&req.write_baseline, t.recorder.take()) else {
        return Ok(true);
    };
    // A run that could not check (or fix) every file has not seen all
    // the findings: a baseline of it would drop the others' entries. A
    // write asked for and not done is exit 2, whatever the findings: CI
    // that commits the baseline must not take the old one for the new.
    if s.failures > 0 || s.not_fixed > 0 {
        writeln!(
            err,
            "bdxlint: baseline {} not written: {} not checked or not fixed; it is left as it was",
            display_path(p),
            match s.failures + s.not_fixed {
                1 => "1 file was".to_owned(),
                n => format!("{n} files were"),
            }
        )?;
        return Ok(false);
    }
    let n = r.findings();
    match r.save(p) {
        Ok(()) => {
            writeln!(err, "bdxlint: recorded {n} findings in {}", display_path(p))?;
            Ok(true)
        }
        Err(e) => {
            say(err, &e.to_string())?;
            Ok(false)
        }
    }
}

/// What a person should see on `err` after the report: the summary line
/// when the report went to a file, and what a machine format's report
/// does not say itself.
fn closing_notes(
    req: &Request,
    settings: &settings::Settings,
    s: &Summary,
    err: &mut dyn Write,
) -> io::Result<()> {
    if req.summary_to_err {
        writeln!(err, "bdxlint: {}", report::summary_line(s))?;
    }
    if settings.counting(req) || settings.output_format == OutputFormat::Human {
        return Ok(());
    }
    // Machine formats have no summary line of their own (JSON carries
    // the counts): say it where a person sees it.
    if s.stale_baseline > 0 {
        writeln!(
            err,
            "bdxlint: {}",
            report::stale_baseline_note(s.stale_baseline)
        )?;
    }
    if s.hidden > 0 {
        writeln!(
            err,
            "bdxlint: {} not shown (--max-diagnostics)",
            if s.hidden == 1 {
                "1 finding".to_owned()
            } else {
                format!("{} findings", s.hidden)
            }
        )?;
    }
    Ok(())
}

/// `--show-fixes`: what was fixed, per file and rule, as ruff lists it.
fn write_shown(
    shown: &[(String, Vec<(&'static crate::rules::Rule, usize)>)],
    dry_run: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let n: usize = shown.iter().flat_map(|(_, r)| r).map(|(_, n)| n).sum();
    if n == 0 {
        return writeln!(
            out,
            "No fixes {}.",
            if dry_run { "available" } else { "applied" }
        );
    }
    writeln!(
        out,
        "{} {n} {}:",
        if dry_run { "Would fix" } else { "Fixed" },
        if n == 1 { "finding" } else { "findings" }
    )?;
    for (path, rules) in shown {
        writeln!(out, "- {}:", report::display_name(path))?;
        for (rule, n) in rules {
            writeln!(out, "    {n} × {} ({})", rule.code, rule.name)?;
        }
    }
    Ok(())
}

/// Adds the entities of an `--entities` file to `keys`, once its header
/// shows it is an entities CSV (upload or download): any other file would
/// make every reference dangle. The file is read once (a pipe works too):
/// the header is told from the first bytes, which then go on to be read.
fn load_entities(path: &Path, opts: &Options, keys: &mut Keys) -> Result<(), EntitiesError> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut head = Vec::new();
    (&mut file).take(check::MAX_HEADER).read_to_end(&mut head)?;
    let names = check::header_names(&head[..])?;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let tables = schema::tables().map_err(|e| EntitiesError::Table(Box::new(e.clone())))?;
    let only = ["entities", "entities-download"];
    let file_name = path.file_name().and_then(|n| n.to_str());
    if !matches!(
        schema::detect_format_among(tables, &only, &names, file_name),
        schema::Detection::Found(_)
    ) {
        return Err(EntitiesError::NotEntities);
    }
    Ok(refs::collect_entities(
        io::Cursor::new(head).chain(file),
        opts,
        keys,
    )?)
}

/// A message of the run on `err`, one line after `bdxlint: `. Its paths
/// were shown with [`display_path`] where it was made; the whole is made
/// [`report::printable`] here as well, so that nothing a file name holds
/// reaches the terminal raw or starts a line, whatever made the message (an
/// I/O error's text, a reason from below that named a path as it is).
fn say(err: &mut dyn Write, message: &str) -> io::Result<()> {
    writeln!(err, "bdxlint: {}", report::printable(message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn at(rel: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
    }

    fn run(threads: usize) -> (u8, Vec<u8>, Vec<u8>) {
        let req = Request {
            paths: vec![at("testdata/example"), at("testdata/employees")],
            output_format: Some(OutputFormat::Json),
            isolated: true,
            threads: Some(threads),
            ..Request::default()
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = check(&req, &mut out, &mut err).expect("writes to memory");
        (code, out, err)
    }

    /// The library sets no global pool: each run's pool is its own, so
    /// two runs in one process take the counts they ask for, and give the
    /// same output.
    #[test]
    fn runs_in_one_process_use_their_own_thread_counts() {
        for n in [1, 2, 1, 3] {
            let Ok(Valid { pool, .. }) = validate(&Request {
                isolated: true,
                threads: Some(n),
                ..Request::default()
            }) else {
                panic!("valid");
            };
            let opts = Options {
                pool: pool.map(std::sync::Arc::new),
                ..Options::default()
            };
            assert_eq!(opts.threads(), n);
            assert_eq!(opts.in_pool(rayon::current_num_threads), n);
        }
        let one = run(1);
        let two = run(2);
        assert_eq!(one.0, EXIT_FINDINGS);
        assert!(!one.1.is_empty());
        assert_eq!(one, two);
        assert_eq!(run(1), one);
    }
}
