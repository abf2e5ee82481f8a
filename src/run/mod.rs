//! A `bdxlint check` run, from the request the binary resolved out of its
//! flags to the exit status: settings (flags over the nearest
//! `bdxlint.toml`, `settings.rs`), path expansion and directory walks
//! (`inputs.rs`), checking every input into one report (`files.rs`: batches
//! of files, ZIP bundles, the references pass), and each finding's way
//! through the rule filter, the baseline and the caps (`tally.rs`).
//! It writes findings to `out` and the run's messages (files it could not
//! check, baselines written, findings hidden) to `err`, never to the
//! process's streams itself: the binary hands it stdout and stderr.

mod files;
mod fix;
mod inputs;
mod replace;
mod settings;
mod split;
mod tally;

use crate::baseline::{Baseline, Matcher, Recorder};
use crate::bundle::{self, Kind, Limits};
use crate::check::refs::{self, Keys};
use crate::check::{self, Options};
use crate::config::FailOn;
use crate::error::Error;
use crate::filter::{Level, RuleFilter};
use crate::output::{Output, Reads};
use crate::report::{self, display_path, Failure, HumanOptions, OutputFormat, Report, Statistics};
use crate::schema;
use files::Run;
use inputs::{expand, Input};
use settings::{settings, Settings};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use tally::Tally;

/// No finding at or above `--fail-on`.
pub const EXIT_CLEAN: u8 = 0;
/// Findings at or above `--fail-on`.
pub const EXIT_FINDINGS: u8 = 1;
/// Usage, configuration or I/O trouble: some input was not checked.
pub const EXIT_TROUBLE: u8 = 2;

/// What `bdxlint check` was asked to do, as plain data: the flags, with
/// what only the binary can tell (terminal, colour) already decided.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub paths: Vec<PathBuf>,
    /// `--format`: a CSV format or a bundle kind.
    pub format: Option<String>,
    pub output_format: Option<OutputFormat>,
    pub select: Vec<String>,
    /// `--extend-select`: added to the select in force.
    pub extend_select: Vec<String>,
    pub ignore: Vec<String>,
    /// `--per-file-ignores GLOB:RULE,...`, as given; replaces the
    /// config's `[per-file-ignores]`.
    pub per_file_ignores: Vec<String>,
    pub severity: Vec<(String, Level)>,
    pub fail_on: Option<FailOn>,
    pub exit_zero: bool,
    pub max_diagnostics: Option<usize>,
    pub statistics: bool,
    pub quiet: bool,
    pub config: Option<PathBuf>,
    pub isolated: bool,
    /// `--exclude`: replaces the config's `exclude` when given.
    pub exclude: Option<Vec<String>>,
    /// `--extend-exclude`: skipped as well.
    pub extend_exclude: Vec<String>,
    pub force_exclude: bool,
    /// Walk hidden, ignored (`.gitignore`, `.ignore`) and vendored
    /// (`node_modules`, `venv`) files too.
    pub no_ignore: bool,
    /// Walk hidden files and directories too, still honouring ignore files
    /// (ripgrep's `--hidden`).
    pub hidden: bool,
    pub baseline: Option<PathBuf>,
    pub write_baseline: Option<PathBuf>,
    /// `--output-file`: what would go to `out` goes to this file instead
    /// (created through [`crate::output::Output`]; `out` is then unused).
    pub output_file: Option<PathBuf>,
    pub threads: Option<usize>,
    pub entities: Vec<PathBuf>,
    pub limits: Limits,
    /// How the human report draws (colour, Unicode, width).
    pub human: HumanOptions,
    /// Whether stderr is a terminal, where a large file shows a progress bar.
    pub progress: bool,
    /// Also write the summary line to `err` (the report goes to a file).
    pub summary_to_err: bool,
    /// `--fix`, `--diff`: apply the findings' fixes (or show them).
    pub fix: Option<FixRequest>,
    /// `--unsafe-fixes`: count (and, fixing, apply) unsafe fixes too.
    pub unsafe_fixes: bool,
    /// `--split GOOD BAD`: the rows without errors to GOOD, the others to
    /// BAD, the header in both.
    pub split: Option<(PathBuf, PathBuf)>,
}

/// How `--fix` and its companions were asked for.
#[derive(Debug, Clone, Copy, Default)]
pub struct FixRequest {
    /// `--unsafe-fixes`: apply the fixes that are guesses too.
    pub unsafe_fixes: bool,
    /// `--diff`: write a unified diff of what would change, change nothing.
    pub diff: bool,
    /// `--fix-only`: list no findings, only the summary.
    pub only: bool,
    /// `--show-fixes`: list what was fixed, per file and rule.
    pub show_fixes: bool,
    /// Escape control characters in the diff (it goes to a terminal).
    pub escape: bool,
}

/// One of the run's two streams, shared: with `--fix` on standard input
/// the fixed file goes to `out` while the report goes to `err`, where the
/// run's messages go too.
struct Shared<'a, 'w>(&'a std::cell::RefCell<&'w mut dyn Write>);

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

pub fn check(req: &Request, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<u8> {
    let settings = match settings(req) {
        Ok(s) => s,
        Err(e) => {
            // A config error's lines: the file and place, then its excerpt.
            let lines: Vec<_> = e.split('\n').map(report::printable).collect();
            writeln!(err, "bdxlint: {}", lines.join("\n"))?;
            return Ok(EXIT_TROUBLE);
        }
    };
    if let Some(n) = req.threads {
        if n == 0 {
            writeln!(err, "bdxlint: --threads must be at least 1")?;
            return Ok(EXIT_TROUBLE);
        }
        // More threads than cores only costs: a mistyped `-j 100000000`
        // would spend minutes starting threads.
        let max = max_threads();
        if n > max {
            writeln!(
                err,
                "bdxlint: --threads {n} is more than {max} (4 a core, at least 64)"
            )?;
            return Ok(EXIT_TROUBLE);
        }
        // Fails only if the pool was already built; then it is in use as is.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
    let mut failures = Vec::new();
    let inputs = expand(&req.paths, &settings, &mut failures);
    let stdin_count = inputs.iter().filter(|i| matches!(i, Input::Stdin)).count();
    if stdin_count > 1 {
        writeln!(err, "bdxlint: `-` can be given only once")?;
        return Ok(EXIT_TROUBLE);
    }
    if let Some(problem) = split_problem(req, &inputs) {
        writeln!(err, "bdxlint: --split: {problem}")?;
        return Ok(EXIT_TROUBLE);
    }
    // Before anything is read: no output may replace an input, or another.
    if let Some(problem) = outputs_problem(req, &inputs, &settings.scopes.config_files()) {
        say(err, &problem)?;
        return Ok(EXIT_TROUBLE);
    }
    // Before the input is read: a split that cannot write both files
    // changes nothing, and costs no check.
    let halves = match (&req.split, inputs.as_slice()) {
        (Some((good, bad)), [Input::File(input)]) => match split::Halves::open(good, bad, input) {
            Ok(h) => Some(h),
            Err(e) => {
                say(err, &format!("--split: {e}"))?;
                return Ok(EXIT_TROUBLE);
            }
        },
        _ => None,
    };
    let Some(path) = &req.output_file else {
        return check_inputs(
            req,
            settings,
            inputs,
            halves,
            failures,
            stdin_count,
            out,
            err,
        );
    };
    let shown = display_path(path);
    let mut file = match Output::create(path, ".bdxlint-report") {
        Ok(f) => f,
        Err(e) => {
            say(err, &format!("--output-file {shown}: {e}"))?;
            return Ok(EXIT_TROUBLE);
        }
    };
    // A run that ends in an I/O error drops the file: a report replaced
    // only once whole.
    let code = check_inputs(
        req,
        settings,
        inputs,
        halves,
        failures,
        stdin_count,
        &mut file,
        err,
    )?;
    match file.commit() {
        Ok(()) => Ok(code),
        Err(e) => {
            say(err, &format!("--output-file {shown}: {e}"))?;
            Ok(EXIT_TROUBLE)
        }
    }
}

/// The run proper, its inputs known and its outputs allowed: the report
/// to `out`, the run's messages to `err`.
#[allow(clippy::too_many_arguments)]
fn check_inputs(
    req: &Request,
    settings: Settings,
    inputs: Vec<Input>,
    halves: Option<split::Halves>,
    mut failures: Vec<Failure>,
    stdin_count: usize,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<u8> {
    let out_cell = std::cell::RefCell::new(out);
    let err_cell = std::cell::RefCell::new(err);
    let mut err_w = Shared(&err_cell);
    let err = &mut err_w as &mut dyn Write;
    let forced_kind = req.format.as_deref().and_then(Kind::from_name);
    if stdin_count > 0 && forced_kind.is_some() {
        writeln!(
            err,
            "bdxlint: ZIP bundles cannot be read from standard input; name the file"
        )?;
        return Ok(EXIT_TROUBLE);
    }
    let plain = settings.output_format.is_plain_text();
    // The counting reports take every finding; the others show
    // `--max-diagnostics` of each file.
    let counting = req.statistics || (req.quiet && plain);
    let opts = Options {
        format: req.format.clone().filter(|_| forced_kind.is_none()),
        // Baselines fingerprint the offending cell's text, held in the
        // snippet; a count needs no source lines.
        // JSON's `value`: the offending cell's text.
        values: settings.output_format.carries_values() && !counting,
        every_row: req.split.is_some(),
        snippets: (settings.output_format.needs_snippets() && !counting)
            || req.baseline.is_some()
            || req.write_baseline.is_some(),
        ..Options::default()
    };
    let limits = req.limits;
    // The entities the relations point at, loaded once for every file.
    let external = if req.entities.is_empty() {
        None
    } else {
        let mut keys = Keys::default();
        for p in &req.entities {
            if let Err(e) = load_entities(p, &opts, &mut keys) {
                say(err, &format!("--entities {}: {e}", display_path(p)))?;
                return Ok(EXIT_TROUBLE);
            }
        }
        Some(keys)
    };
    // Per input: the config overrides that match it may name its format
    // (`--format` still wins) and add to its rule filter.
    let per_input: Vec<(Option<&str>, RuleFilter)> =
        inputs.iter().map(|i| settings.for_input(i)).collect();
    let run = Run {
        req,
        progress: settings.output_format == OutputFormat::Human && req.progress,
        opts: &opts,
        limits: &limits,
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
    let old = match &req.baseline {
        Some(p) => match Baseline::load(p) {
            Ok(b) => Some(b),
            Err(e) => {
                say(err, &e.to_string())?;
                return Ok(EXIT_TROUBLE);
            }
        },
        None => None,
    };
    // Where the report goes: standard output, unless that carries the
    // fixed file or the diff.
    let fix_stdin = req.fix.is_some_and(|f| !f.diff) && stdin_count > 0;
    let mut report_to_err = Shared(&err_cell);
    let mut report_to_out = Shared(&out_cell);
    let mut content_w = Shared(&out_cell);
    let report_out: &mut dyn Write = if fix_stdin || req.fix.is_some_and(|f| f.diff) {
        &mut report_to_err
    } else {
        &mut report_to_out
    };
    let mut w: Box<dyn Report + '_> = if req.statistics {
        Box::new(Statistics::new(
            report_out,
            settings.output_format == OutputFormat::Json,
        ))
    } else if (req.quiet && plain) || req.fix.is_some_and(|f| f.diff || f.only) {
        Box::new(Statistics::quiet(report_out))
    } else {
        // --max-diagnostics (flag or config) also sets how many results a
        // SARIF log takes in all, up or down from code scanning's 25,000.
        report::writer_capped(
            report_out,
            settings.output_format,
            &req.human,
            settings.max_diagnostics,
        )?
    };
    let mut t = Tally::new(
        settings.fail_on,
        settings.max_diagnostics.filter(|_| !counting),
        old.as_ref().map(Matcher::new),
        req.write_baseline.as_ref().map(|_| Recorder::default()),
    );
    // The human report folds repeated findings of one rule on one column
    // into a line each; every other output keeps them all.
    if settings.fold && !counting {
        t.folder = Some(crate::report::fold::Folder::default());
    }
    t.unsafe_fixes = req.unsafe_fixes;
    t.split = req.split.as_ref().map(|_| split::Findings::default());
    t.summary.fixing = req.fix.is_some();
    t.summary.dry_run = req.fix.is_some_and(|f| f.diff);
    let mut fixing = req.fix.map(|f| fix::Fixing {
        req: f,
        out: &mut content_w,
        escape: f.escape,
        shown: Vec::new(),
        // `--split --fix`: the fixed copy is made beside GOOD and kept to
        // be split; the input stays as it is.
        split_dir: halves.as_ref().map(split::Halves::copy_dir),
        kept: None,
        not_fixed: Vec::new(),
    });
    run.execute(
        &inputs,
        &per_input,
        &mut failures,
        &mut *w,
        &mut t,
        fixing.as_mut(),
    )?;
    let kept = fixing.as_mut().and_then(|f| f.kept.take());
    let (shown, not_fixed) = fixing.map(|f| (f.shown, f.not_fixed)).unwrap_or_default();
    if let (Some((good, bad)), Some(halves), Some(mut found), [Input::File(path)]) =
        (&req.split, halves, t.split.take(), inputs.as_slice())
    {
        // A file `--fix` could not fix is not split: its halves would not
        // be what was asked for.
        if failures.is_empty() && not_fixed.is_empty() {
            // With `--fix`, the fixed copy is split (the report is its
            // check, the errors its offsets).
            let source = kept.as_ref().map_or(path.as_path(), |k| k.path());
            let errors = std::mem::take(&mut found.errors);
            match split::split(source, kept.is_none(), &opts, errors, halves) {
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
                }
                Err(e) => failures.push(Failure {
                    path: path.display().to_string(),
                    reason: format!("--split {}: {e}", display_path(path)),
                }),
            }
        }
    }
    drop(kept);
    for f in failures.iter().chain(&not_fixed) {
        say(err, &f.reason)?;
    }
    let mut s = t.summary;
    s.failures = failures.len();
    s.files += failures.len();
    s.not_fixed = not_fixed.len();
    if let Some(m) = &t.baseline {
        s.stale_baseline = m.outcome().stale;
    }
    let mut code = if s.failures > 0 || s.not_fixed > 0 {
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
    };
    if let (Some(p), Some(r)) = (&req.write_baseline, t.recorder.take()) {
        let b = r.finish();
        // A run that could not check (or fix) every file has not seen all
        // the findings: a baseline of it would drop the others' entries.
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
        } else {
            match b.save(p) {
                Ok(()) => {
                    let n: u32 = b.findings.iter().map(|e| e.count).sum();
                    writeln!(err, "bdxlint: recorded {n} findings in {}", display_path(p))?;
                }
                Err(e) => {
                    say(err, &e.to_string())?;
                    code = EXIT_TROUBLE;
                }
            }
        }
    }
    w.finish(&failures, &s)?;
    drop(w);
    if req.fix.is_some_and(|f| f.show_fixes) {
        // Beside the report: on standard output unless that carries the
        // fixed file or the diff.
        let to: &mut dyn Write = if fix_stdin || req.fix.is_some_and(|f| f.diff) {
            &mut *err
        } else {
            &mut content_w
        };
        write_shown(&shown, s.dry_run, to)?;
    }
    if req.summary_to_err {
        writeln!(err, "bdxlint: {}", report::summary_line(&s))?;
    }
    if !counting && settings.output_format != OutputFormat::Human {
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
    }
    Ok(code)
}

/// Why `--split` cannot run as asked, if it cannot: it takes one CSV file,
/// and writes files where `--diff` promises to write none.
fn split_problem(req: &Request, inputs: &[Input]) -> Option<&'static str> {
    req.split.as_ref()?;
    if req.fix.is_some_and(|f| f.diff) {
        return Some("it does not combine with --diff, which changes nothing");
    }
    match inputs {
        [Input::File(p)] if bundle::is_bundle_path(p, req.format.as_deref()) => {
            Some("it splits a CSV file, not a ZIP bundle")
        }
        [Input::File(p)] if p.is_file() => None,
        [Input::File(_)] => Some("it needs a regular file"),
        [Input::Stdin] => Some("it needs a file to read twice, not standard input"),
        _ => Some("it splits one file; name exactly one"),
    }
}

/// Why the run's outputs (`--output-file`, `--write-baseline`, `--split`)
/// cannot be written as asked, if they cannot: one is a directory, names a
/// file the run reads (an input, walked or named, standard input's file,
/// `--config` or a `bdxlint.toml` found, `--entities`, `--baseline`), or names the file another
/// does. Only `--write-baseline` may name the `--baseline` it replaces.
fn outputs_problem(req: &Request, inputs: &[Input], configs: &[PathBuf]) -> Option<String> {
    let mut outputs: Vec<(&str, &Path)> = Vec::new();
    if let Some(p) = &req.output_file {
        outputs.push(("--output-file", p));
    }
    if let Some((good, bad)) = &req.split {
        outputs.push(("--split GOOD", good));
        outputs.push(("--split BAD", bad));
    }
    if let Some(p) = &req.write_baseline {
        outputs.push(("--write-baseline", p));
    }
    if outputs.is_empty() {
        return None;
    }
    let mut reads = Reads::default();
    for i in inputs {
        match i {
            Input::File(p) => reads.file(p, "an input"),
            Input::Stdin => reads.stdin(),
        }
    }
    for p in &req.entities {
        reads.file(p, "an --entities file");
    }
    if let Some(p) = &req.config {
        reads.file(p, "the --config file");
    }
    for p in configs {
        reads.file(p, "a config file the run reads");
    }
    if let Some(problem) = reads.conflict(&outputs) {
        return Some(problem);
    }
    let mut baseline = Reads::default();
    if let Some(p) = &req.baseline {
        baseline.file(p, "the --baseline file");
    }
    outputs.retain(|(flag, _)| *flag != "--write-baseline");
    baseline.conflict(&outputs)
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

/// The most worker threads a run takes: 4 a core, at least 64.
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores * 4).max(64)
}

/// Adds the entities of an `--entities` file to `keys`, once its header
/// shows it is an entities CSV (upload or download): any other file would
/// make every reference dangle. The file is read once (a pipe works too):
/// the header is told from the first bytes, which then go on to be read.
fn load_entities(path: &Path, opts: &Options, keys: &mut Keys) -> Result<(), String> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut head = Vec::new();
    (&mut file)
        .take(check::MAX_HEADER)
        .read_to_end(&mut head)
        .map_err(|e| e.to_string())?;
    let names = check::header_names(&head[..]).map_err(|e| e.to_string())?;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let tables = schema::tables().map_err(|e| e.to_string())?;
    let only = ["entities", "entities-download"];
    let file_name = path.file_name().and_then(|n| n.to_str());
    if !matches!(
        schema::detect_format_among(tables, &only, &names, file_name),
        schema::Detection::Found(_)
    ) {
        return Err(
            "not an entities CSV: its header fits neither the entities upload nor the entities download"
                .into(),
        );
    }
    refs::collect_entities(io::Cursor::new(head).chain(file), opts, keys).map_err(|e| e.to_string())
}

/// A message of the run on `err`, one line after `bdxlint: `. Its paths
/// were shown with [`display_path`] where it was made; the whole is made
/// [`report::printable`] here as well, so that nothing a file name holds
/// reaches the terminal raw or starts a line, whatever made the message (an
/// I/O error's text, a reason from below that named a path as it is).
fn say(err: &mut dyn Write, message: &str) -> io::Result<()> {
    writeln!(err, "bdxlint: {}", report::printable(message))
}

/// A file that could not be checked, named by the path in its error.
fn failure(e: Error) -> Failure {
    let path = match &e {
        Error::Io { path, .. } | Error::Detect { path, .. } => path.display().to_string(),
        _ => String::new(),
    };
    Failure {
        path,
        reason: e.to_string(),
    }
}
