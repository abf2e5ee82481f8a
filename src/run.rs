//! A `bdxlint check` run, from the request the binary resolved out of its
//! flags to the exit status: settings (flags over the nearest
//! `bdxlint.toml`), path expansion and directory walks, batches of files,
//! ZIP bundles, the references pass, baselines, the report and the caps.
//! It writes findings to `out` and the run's messages (files it could not
//! check, baselines written, findings hidden) to `err`, never to the
//! process's streams itself: the binary hands it stdout and stderr.

use crate::baseline::Baseline;
use crate::bundle::{self, Kind, Limits};
use crate::check::batch::{self, BatchInput};
use crate::check::refs::{self, EmployeeKeys, EntityKeys, RefSources};
use crate::check::{self, Options};
use crate::config::{self, Config, FailOn};
use crate::diagnostic::{Diagnostic, FileReport, Severity};
use crate::error::Error;
use crate::filter::{Level, RuleFilter};
use crate::report::{
    self, Failure, HumanOptions, OutputFormat, Report, Statistics, StreamWriter, Summary,
};
use crate::{rules, schema};
use rayon::prelude::*;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

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
    pub ignore: Vec<String>,
    pub severity: Vec<(String, Level)>,
    pub fail_on: Option<FailOn>,
    pub exit_zero: bool,
    pub max_diagnostics: Option<usize>,
    pub statistics: bool,
    pub quiet: bool,
    pub config: Option<PathBuf>,
    pub isolated: bool,
    pub force_exclude: bool,
    pub baseline: Option<PathBuf>,
    pub write_baseline: Option<PathBuf>,
    pub threads: Option<usize>,
    pub entities: Vec<PathBuf>,
    pub limits: Limits,
    /// How the human report draws (colour, Unicode, width).
    pub human: HumanOptions,
    /// Whether stderr is a terminal, where a large file shows a progress bar.
    pub progress: bool,
}

fn fail_severity(f: FailOn) -> Severity {
    match f {
        FailOn::Error => Severity::Error,
        FailOn::Warning => Severity::Warning,
    }
}

/// What to check: a file, standard input, or a path that failed.
enum Input {
    File(PathBuf),
    Stdin,
}

/// Expands directories to every `.csv` and `.zip` below them, sorted, so the order of
/// the report never depends on the file system. The config's `exclude`
/// prunes the walks, and the named paths too with `--force-exclude`.
fn expand(paths: &[PathBuf], settings: &Settings, failures: &mut Vec<Failure>) -> Vec<Input> {
    let mut inputs = Vec::new();
    // A file named twice (`d/` and `d/a.csv`, or `./a.csv` and `a.csv`) is
    // checked once, where it first comes: twice would repeat every finding,
    // which GitLab (equal fingerprints) and JUnit (equal names) reject.
    let mut seen = std::collections::HashSet::new();
    let mut first = |p: &Path| seen.insert(lexical(&settings.cwd.join(p)));
    for p in paths {
        if p.as_os_str() == "-" {
            inputs.push(Input::Stdin);
        } else if settings.force_exclude && settings.excluded(p) {
            continue;
        } else if p.is_dir() {
            let mut found = Vec::new();
            walk(p, settings, &mut found, failures);
            found.sort();
            found.retain(|f| first(f));
            inputs.extend(found.into_iter().map(Input::File));
        } else if first(p) {
            inputs.push(Input::File(p.clone()));
        }
    }
    inputs
}

/// `path` with `.` dropped and `..` resolved, without asking the file
/// system (a symbolic link stays a file of its own, as walks treat it).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// Collects every `.csv` and `.zip` (a bundle) below `dir`. An unreadable directory is a failure
/// naming it, and the walk goes on. Symbolic links to directories are not
/// followed (a link back up would loop); links to files are checked.
fn walk(dir: &Path, settings: &Settings, found: &mut Vec<PathBuf>, failures: &mut Vec<Failure>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            failures.push(Failure {
                path: dir.display().to_string(),
                reason: format!("{}: {e}", dir.display()),
            });
            return;
        }
    };
    for entry in entries {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                failures.push(Failure {
                    path: dir.display().to_string(),
                    reason: format!("{}: {e}", dir.display()),
                });
                continue;
            }
        };
        let path = entry.path();
        if settings
            .config
            .as_ref()
            .is_some_and(|c| c.excludes_entry(&path, &settings.cwd))
        {
            continue;
        }
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            walk(&path, settings, found, failures);
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv") || e.eq_ignore_ascii_case("zip"))
        {
            found.push(path);
        }
    }
}

/// The settings of a `check` run: the config file's, overridden by flags.
struct Settings {
    config: Option<Config>,
    /// The config's top-level select, ignore and severity with the flags'
    /// select (replacing) and ignore (added); per-file filters add the
    /// matching overrides and then `cli_severity`.
    filter: RuleFilter,
    cli_severity: Vec<(String, Level)>,
    fail_on: Severity,
    exit_zero: bool,
    output_format: OutputFormat,
    /// Findings printed per file; `None`: all.
    max_diagnostics: Option<usize>,
    /// `--force-exclude` or the config's `force-exclude`.
    force_exclude: bool,
    cwd: PathBuf,
}

impl Settings {
    /// Whether the config's `exclude` covers `path`.
    fn excluded(&self, path: &Path) -> bool {
        self.config
            .as_ref()
            .is_some_and(|c| c.is_excluded(path, &self.cwd))
    }

    /// The config overrides matching an input, and the rule filter for it.
    fn for_input(&self, input: &Input) -> (Option<&str>, RuleFilter) {
        let overrides = match (input, &self.config) {
            (Input::File(p), Some(c)) => c.overrides_for(p, &self.cwd),
            _ => Vec::new(),
        };
        // An override's format applies to the files it fits: a bundle kind
        // to ZIP files, a CSV format to the others (a ZIP's members are
        // always told apart by their headers). So one glob can cover a
        // directory that mixes loose CSV files and bundles.
        let format = match input {
            Input::File(p) => {
                let zip = bundle::is_bundle_path(p, None);
                overrides
                    .iter()
                    .rev()
                    .filter_map(|o| o.format.as_deref())
                    .find(|f| Kind::from_name(f).is_some() == zip)
            }
            Input::Stdin => None,
        };
        (
            format,
            config::filter_for(&self.filter, &overrides, &self.cli_severity),
        )
    }
}

/// Resolves the settings; `Err` is a message for stderr (exit 2).
fn settings(req: &Request) -> Result<Settings, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("working directory: {e}"))?;
    let path = if req.isolated {
        None
    } else {
        req.config.clone().or_else(|| Config::discover(&cwd))
    };
    let config = match path {
        Some(p) => Some(Config::load(&p).map_err(|e| e.to_string())?),
        None => None,
    };
    let c = config.as_ref();
    let select = if req.select.is_empty() {
        c.and_then(|c| c.select.clone()).unwrap_or_default()
    } else {
        req.select.clone()
    };
    let mut ignore = c.map(|c| c.ignore.clone()).unwrap_or_default();
    ignore.extend(req.ignore.iter().cloned());
    let filter = RuleFilter {
        select,
        ignore,
        severity: c.map(|c| c.severity.clone()).unwrap_or_default(),
    };
    filter.validate().map_err(|e| e.to_string())?;
    let output_format = req
        .output_format
        .or(c.and_then(|c| c.output_format))
        .unwrap_or(OutputFormat::Human);
    // The human report is for reading: a file with an error on every row
    // would bury the summary, so it shows 100 per file unless told.
    let max = req
        .max_diagnostics
        .or(c.and_then(|c| c.max_diagnostics))
        .or((output_format == OutputFormat::Human).then_some(100));
    let fail_on = req
        .fail_on
        .or(c.and_then(|c| c.fail_on))
        .unwrap_or(FailOn::Error);
    let force_exclude = req.force_exclude || c.and_then(|c| c.force_exclude).unwrap_or(false);
    Ok(Settings {
        config,
        filter,
        cli_severity: req.severity.clone(),
        fail_on: fail_severity(fail_on),
        exit_zero: req.exit_zero,
        output_format,
        max_diagnostics: max.filter(|&n| n > 0),
        force_exclude,
        cwd,
    })
}

pub fn check(req: &Request, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<u8> {
    let settings = match settings(req) {
        Ok(s) => s,
        Err(e) => {
            writeln!(err, "bdxlint: {e}")?;
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
    let forced_kind = req.format.as_deref().and_then(Kind::from_name);
    if stdin_count > 0 && forced_kind.is_some() {
        writeln!(
            err,
            "bdxlint: ZIP bundles cannot be read from standard input; name the file"
        )?;
        return Ok(EXIT_TROUBLE);
    }
    let opts = Options {
        format: req.format.clone().filter(|_| forced_kind.is_none()),
        // Baselines fingerprint the offending cell's text, held in the snippet.
        snippets: settings.output_format.needs_snippets()
            || req.baseline.is_some()
            || req.write_baseline.is_some(),
        ..Options::default()
    };
    let limits = req.limits;
    // The entities the relations point at, loaded once for every file.
    let external = if req.entities.is_empty() {
        None
    } else {
        let mut keys = EntityKeys::default();
        for p in &req.entities {
            if let Err(e) = load_entities(p, &opts, &mut keys) {
                writeln!(err, "bdxlint: --entities {}: {e}", p.display())?;
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
        employees: None,
    };
    // The employees of the run, loaded before any file is checked: the
    // relations files and bundles checked alongside need them.
    let employees = run.employees_of(&inputs, &per_input);
    let run = Run {
        employees: employees.as_ref(),
        ..run
    };
    let plain = matches!(
        settings.output_format,
        OutputFormat::Human | OutputFormat::Concise
    );
    if req.baseline.is_none() && req.write_baseline.is_none() {
        // Every report that takes findings as they arrive: the counting
        // ones (whatever the output format) and the streaming writers.
        let color = req.human.clone();
        if req.statistics {
            let json = settings.output_format == OutputFormat::Json;
            return run.stream(
                &inputs,
                &per_input,
                &settings,
                failures,
                &mut Statistics::new(out, json),
                None,
                err,
            );
        }
        if req.quiet && plain {
            return run.stream(
                &inputs,
                &per_input,
                &settings,
                failures,
                &mut Statistics::quiet(out),
                None,
                err,
            );
        }
        if StreamWriter::streams(settings.output_format) {
            let mut w = StreamWriter::new(out, settings.output_format, &color)?;
            let max = settings.max_diagnostics;
            return run.stream(&inputs, &per_input, &settings, failures, &mut w, max, err);
        }
    }
    let mut results: Vec<Result<Vec<FileReport>, Error>> = inputs
        .par_iter()
        .zip(&per_input)
        .map(|(input, (format, filter))| run.check_input(input, *format, filter))
        .collect();
    add_batch_findings(&inputs, &mut results, &opts, &mut failures);
    let mut reports = Vec::new();
    for (r, (_, filter)) in results.into_iter().zip(&per_input) {
        match r {
            Ok(reps) => {
                for mut rep in reps {
                    filter.apply(&mut rep);
                    reports.push(rep);
                }
            }
            Err(e) => failures.push(failure(e)),
        }
    }
    for f in &failures {
        writeln!(err, "bdxlint: {}", report::printable(&f.reason))?;
    }
    let human = req.human.clone();
    // Read the baseline before writing one: `--baseline b --write-baseline b`
    // reports against the old file and leaves the new one.
    let old = match &req.baseline {
        Some(p) => match Baseline::load(p) {
            Ok(b) => Some(b),
            Err(e) => {
                writeln!(err, "bdxlint: {e}")?;
                return Ok(EXIT_TROUBLE);
            }
        },
        None => None,
    };
    let written = match &req.write_baseline {
        Some(p) => {
            let b = Baseline::record(&reports);
            if let Err(e) = b.save(p) {
                writeln!(err, "bdxlint: {e}")?;
                return Ok(EXIT_TROUBLE);
            }
            let n: u32 = b.findings.iter().map(|e| e.count).sum();
            writeln!(err, "bdxlint: recorded {n} findings in {}", p.display())?;
            Some(b)
        }
        None => None,
    };
    let outcome = old
        .as_ref()
        .or(written.as_ref())
        .map(|b| b.apply(&mut reports))
        .unwrap_or_default();
    let mut s = Summary::of(&reports, &failures);
    s.baselined = outcome.matched;
    s.stale_baseline = outcome.stale;
    let failing = reports
        .iter()
        .flat_map(|r| &r.diagnostics)
        .any(|d| d.severity >= settings.fail_on);
    let code = if s.failures > 0 {
        EXIT_TROUBLE
    } else if failing && !settings.exit_zero {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    };
    let format = settings.output_format;
    let plain = matches!(format, OutputFormat::Human | OutputFormat::Concise);
    // With a baseline the findings are collected (filtered, or recorded)
    // before they go to the report.
    let counting = if req.statistics {
        Some(Statistics::new(&mut *out, format == OutputFormat::Json))
    } else if req.quiet && plain {
        Some(Statistics::quiet(&mut *out))
    } else {
        None
    };
    if let Some(mut sink) = counting {
        for r in &reports {
            sink.start_file(&r.path, r.member.as_deref());
            for d in &r.diagnostics {
                sink.diagnostic(d)?;
            }
            sink.end_file(r.format, r.records)?;
        }
        sink.finish(&failures, &s)?;
    } else {
        if let Some(max) = settings.max_diagnostics {
            for r in &mut reports {
                if r.diagnostics.len() > max {
                    s.hidden += r.diagnostics.len() - max;
                    r.diagnostics.truncate(max);
                }
            }
        }
        report::render(out, format, &reports, &failures, &s, &human)?;
        if s.stale_baseline > 0 && format != OutputFormat::Human {
            writeln!(
                err,
                "bdxlint: {}",
                report::stale_baseline_note(s.stale_baseline)
            )?;
        }
        if s.hidden > 0 && format != OutputFormat::Human {
            // Machine formats have no summary line of their own (JSON
            // carries `summary.hidden`): say it where a person sees it.
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

/// The most worker threads a run takes: 4 a core, at least 64.
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores * 4).max(64)
}

/// Adds the entities of an `--entities` file to `keys`, once its header
/// shows it is an entities CSV (upload or download): any other file would
/// make every reference dangle. The file is read once (a pipe works too):
/// the header is told from the first bytes, which then go on to be read.
fn load_entities(path: &Path, opts: &Options, keys: &mut EntityKeys) -> Result<(), String> {
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

/// Checks a CSV file; a relations file is read a second time for its
/// references (against `--entities`, or an info that they went unchecked).
fn check_csv(
    path: &Path,
    opts: &Options,
    external: Option<&EntityKeys>,
    employees: Option<&EmployeeKeys>,
) -> Result<FileReport, Error> {
    let mut rep = check::check_path(path, opts)?;
    if let Some(format) = rep.format {
        let found = references(path, format, opts, external, employees)?;
        if !found.is_empty() {
            rep.diagnostics.extend(found);
            rep.diagnostics
                .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        }
    }
    Ok(rep)
}

/// The second pass of a relations file: its references, against
/// `--entities` and the run's employees CSV files (or one info that they
/// went unchecked). Nothing for other formats.
fn references(
    path: &Path,
    format: &str,
    opts: &Options,
    external: Option<&EntityKeys>,
    employees: Option<&EmployeeKeys>,
) -> Result<Vec<Diagnostic>, Error> {
    let rbac = match format {
        "entity-relations" => false,
        "entity-rbac-relations" => true,
        _ => return Ok(Vec::new()),
    };
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let sources = RefSources {
        bundle: None,
        external,
        rbac,
        employees,
    };
    refs::check_references(file, opts, sources).map_err(|e| Error::io(path, e))
}

/// Batch checks: what the run's CSV files say about each other, added to
/// each file's report before its rule filter applies. Bundles and standard
/// input take no part (a bundle's members are checked as one unit, and
/// standard input cannot be read twice).
fn add_batch_findings(
    inputs: &[Input],
    results: &mut [Result<Vec<FileReport>, Error>],
    opts: &Options,
    failures: &mut Vec<Failure>,
) {
    let files: Vec<BatchInput<'_>> = inputs
        .iter()
        .zip(results.iter())
        .enumerate()
        .filter_map(|(index, (input, r))| match (input, r.as_deref()) {
            (Input::File(path), Ok([rep])) if rep.member.is_none() => Some(BatchInput {
                index,
                path,
                format: rep.format?,
            }),
            _ => None,
        })
        .collect();
    match batch::check_batch(&files, opts) {
        Ok(found) => {
            for (index, diags) in found {
                if let Some(Ok([rep])) = results.get_mut(index).map(|r| r.as_deref_mut()) {
                    rep.diagnostics.extend(diags);
                    rep.diagnostics
                        .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
                }
            }
        }
        Err(e) => failures.push(failure(e)),
    }
}

/// What every input of one `check` run is checked with.
struct Run<'a> {
    req: &'a Request,
    /// Show a progress bar for large files: stderr is a terminal and the
    /// output is for a person.
    progress: bool,
    opts: &'a Options,
    limits: &'a Limits,
    external: Option<&'a EntityKeys>,
    /// The Work Emails of the run's employees CSV files; `None` when the run
    /// has none.
    employees: Option<&'a EmployeeKeys>,
}

/// Files up to this size are checked whole, in parallel with their
/// neighbours; larger ones stream their findings as they are found.
const STREAM_ABOVE: u64 = 8 << 20;

impl Run<'_> {
    /// The format an input is checked as: `--format`, else a config
    /// override's; a bundle kind is not a CSV format.
    fn format_of<'f>(&'f self, format: Option<&'f str>) -> Option<&'f str> {
        self.req.format.as_deref().or(format)
    }

    /// The options for one input: a config override may name its format
    /// (`--format` still wins), and cross-row rules its filter drops keep
    /// no state.
    fn opts_for(&self, format: Option<&str>, filter: &RuleFilter) -> Options {
        let mut opts = self.opts.clone();
        if let Some(f) = self.format_of(format) {
            if self.req.format.is_none() && Kind::from_name(f).is_none() {
                opts.format = Some(f.to_owned());
            }
        }
        let on = |r: &rules::Rule| filter.judge(r, r.severity).is_some();
        opts.cross = check::CrossRules {
            identity: [
                &rules::IDENTITY_CONFLICT,
                &rules::IDENTITY_COMBINATION,
                &rules::IDENTITY_PARTNER_MISMATCH,
            ]
            .into_iter()
            .any(on),
            unique: on(&rules::DUPLICATE_VALUE),
            rows: on(&rules::DUPLICATE_ROW),
        };
        opts
    }

    fn is_bundle(&self, input: &Input, format: Option<&str>) -> bool {
        matches!(input, Input::File(p) if bundle::is_bundle_path(p, self.format_of(format)))
    }

    /// Checks one input whole: its reports, with their findings.
    fn check_input(
        &self,
        input: &Input,
        format: Option<&str>,
        filter: &RuleFilter,
    ) -> Result<Vec<FileReport>, Error> {
        let opts = self.opts_for(format, filter);
        let kind = self.format_of(format).and_then(Kind::from_name);
        match input {
            Input::File(p) if self.is_bundle(input, format) => {
                bundle::check_zip(p, kind, &opts, self.limits, self.external, self.employees)
            }
            Input::File(p) => check_csv(p, &opts, self.external, self.employees).map(|r| vec![r]),
            Input::Stdin => {
                check::check_reader(io::stdin().lock(), "-", None, &opts).map(|r| vec![r])
            }
        }
    }

    /// Whether an input is checked whole: ZIP bundles, and files small
    /// enough that holding their findings costs little.
    fn whole(&self, input: &Input, format: Option<&str>) -> bool {
        match input {
            Input::Stdin => false,
            Input::File(p) => {
                self.is_bundle(input, format)
                    || std::fs::metadata(p).map_or(true, |m| m.len() <= STREAM_ABOVE)
            }
        }
    }

    /// The CSV files of the run (bundles and standard input left out) with
    /// the format each is checked as, known before it is checked: named by
    /// `--format` or a config override, else detected from the header.
    /// Only regular files take part: a pipe or a FIFO (`<(cat f.csv)`) can
    /// be read once, by its check, and a header read here would be lost to
    /// it. A lone input has no other file to be compared with, so nothing
    /// is read ahead of its check either.
    fn csv_formats<'i>(
        &self,
        inputs: &'i [Input],
        per_input: &[(Option<&str>, RuleFilter)],
    ) -> Vec<(usize, &'i Path, &'static str)> {
        if inputs.len() < 2 {
            return Vec::new();
        }
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
                        None => check::sniff_format(p),
                    };
                    Some((index, p.as_path(), format?))
                }
                _ => None,
            })
            .collect()
    }

    /// The Work Emails of the run's employees CSV files, which the employee
    /// ends of relations are checked against. `None` when the run has no
    /// employees file, or nothing that could refer to one (no relations
    /// file, no bundle: then the employees files are not read twice), or an
    /// employees file cannot be read (its own check reports that; a partial
    /// set would make false findings).
    fn employees_of(
        &self,
        inputs: &[Input],
        per_input: &[(Option<&str>, RuleFilter)],
    ) -> Option<EmployeeKeys> {
        // A lone input cannot be both an employees file and what refers to
        // one: the common single-file run sniffs nothing here.
        if inputs.len() < 2 {
            return None;
        }
        let formats = self.csv_formats(inputs, per_input);
        let bundles = inputs
            .iter()
            .zip(per_input)
            .any(|(input, (format, _))| self.is_bundle(input, *format));
        let relations = formats
            .iter()
            .any(|(_, _, f)| matches!(*f, "entity-relations" | "entity-rbac-relations"));
        if !bundles && !relations {
            return None;
        }
        let mut keys = EmployeeKeys::default();
        let mut any = false;
        for (_, path, _) in formats.iter().filter(|(_, _, f)| *f == "employees") {
            any = true;
            let file = std::fs::File::open(path).ok()?;
            refs::collect_employees(file, self.opts, &mut keys).ok()?;
        }
        any.then_some(keys)
    }

    /// The batch checks, before any file is checked: a streamed file's
    /// findings go out while it is read, so what the batch says about it
    /// must be known by its end.
    fn batch_up_front(
        &self,
        inputs: &[Input],
        per_input: &[(Option<&str>, RuleFilter)],
        failures: &mut Vec<Failure>,
    ) -> std::collections::HashMap<usize, Vec<Diagnostic>> {
        let formats = self.csv_formats(inputs, per_input);
        let files: Vec<BatchInput<'_>> = formats
            .iter()
            .map(|&(index, path, format)| BatchInput {
                index,
                path,
                format,
            })
            .collect();
        match batch::check_batch(&files, self.opts) {
            Ok(found) => found.into_iter().collect(),
            Err(e) => {
                failures.push(failure(e));
                Default::default()
            }
        }
    }

    /// A run whose output format can be streamed: files in order, small
    /// ones checked in parallel and written whole, large ones written while
    /// they are read, so memory stays flat however many findings there are.
    /// `max` caps the findings shown per file (`--max-diagnostics`); the
    /// counting reports take every one.
    // The run's parts are borrowed apart: `self` is shared with the pool,
    // the report and stderr are not.
    #[allow(clippy::too_many_arguments)]
    fn stream(
        &self,
        inputs: &[Input],
        per_input: &[(Option<&str>, RuleFilter)],
        settings: &Settings,
        mut failures: Vec<Failure>,
        w: &mut dyn Report,
        max: Option<usize>,
        err: &mut dyn Write,
    ) -> io::Result<u8> {
        let mut extra = self.batch_up_front(inputs, per_input, &mut failures);
        let mut t = Tally {
            summary: Summary::default(),
            fail_on: settings.fail_on,
            failing: false,
            max,
            in_file: 0,
            error: None,
            bar: None,
            snippet_stop: None,
        };
        let mut i = 0;
        while i < inputs.len() {
            let mut j = i;
            while j < inputs.len() && self.whole(&inputs[j], per_input[j].0) {
                j += 1;
            }
            if j > i {
                let results: Vec<Result<Vec<FileReport>, Error>> = (i..j)
                    .into_par_iter()
                    .map(|k| self.check_input(&inputs[k], per_input[k].0, &per_input[k].1))
                    .collect();
                for (k, r) in (i..j).zip(results) {
                    match r {
                        Ok(reports) => {
                            let more = extra.remove(&k).unwrap_or_default();
                            for mut rep in reports {
                                if rep.member.is_none() && !more.is_empty() {
                                    rep.diagnostics.extend(more.iter().cloned());
                                    rep.diagnostics
                                        .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
                                }
                                w.start_file(&rep.path, rep.member.as_deref());
                                t.start_file();
                                for d in rep.diagnostics.drain(..) {
                                    t.emit(w, &per_input[k].1, d);
                                }
                                w.end_file(rep.format, rep.records)?;
                            }
                        }
                        Err(e) => failures.push(failure(e)),
                    }
                }
                i = j;
                continue;
            }
            let more = extra.remove(&i).unwrap_or_default();
            if let Err(e) =
                self.stream_one(&inputs[i], per_input[i].0, &per_input[i].1, more, w, &mut t)
            {
                // A file that failed after some of its findings went out
                // still ends well-formed; the failure is listed as well.
                match w.abandon_file() {
                    // Counted once, as the failure it is.
                    Ok(false) => t.summary.files -= 1,
                    Ok(true) => {}
                    Err(e) => {
                        t.error.get_or_insert(e);
                    }
                }
                failures.push(failure(e));
            }
            if let Some(e) = t.error.take() {
                return Err(e);
            }
            i += 1;
        }
        if let Some(e) = t.error.take() {
            return Err(e);
        }
        for f in &failures {
            writeln!(err, "bdxlint: {}", report::printable(&f.reason))?;
        }
        t.summary.failures = failures.len();
        t.summary.files += failures.len();
        w.finish(&failures, &t.summary)?;
        if t.summary.hidden > 0 && settings.output_format != OutputFormat::Human {
            writeln!(
                err,
                "bdxlint: {} not shown (--max-diagnostics)",
                if t.summary.hidden == 1 {
                    "1 finding".to_owned()
                } else {
                    format!("{} findings", t.summary.hidden)
                }
            )?;
        }
        Ok(if t.summary.failures > 0 {
            EXIT_TROUBLE
        } else if t.failing && !settings.exit_zero {
            EXIT_FINDINGS
        } else {
            EXIT_CLEAN
        })
    }

    /// Checks one large file (or standard input), writing its findings as
    /// each chunk is folded; its reference and batch findings follow.
    fn stream_one(
        &self,
        input: &Input,
        format: Option<&str>,
        filter: &RuleFilter,
        more: Vec<Diagnostic>,
        w: &mut dyn Report,
        t: &mut Tally,
    ) -> Result<(), Error> {
        let mut opts = self.opts_for(format, filter);
        let display = match input {
            Input::File(p) => p.display().to_string(),
            Input::Stdin => "-".to_owned(),
        };
        w.start_file(&display, None);
        t.start_file();
        let file = match input {
            Input::File(p) => Some(std::fs::File::open(p).map_err(|e| Error::io(p, e))?),
            Input::Stdin => None,
        };
        opts.size_hint = file
            .as_ref()
            .and_then(|f| f.metadata().ok())
            .map(|m| m.len());
        // Past --max-diagnostics every later finding of the file is
        // hidden, and its source lines need not be captured.
        if opts.snippets && t.max.is_some() {
            let stop = Arc::new(AtomicBool::new(false));
            opts.snippet_stop = Some(Arc::clone(&stop));
            t.snippet_stop = Some(stop);
        }
        t.bar = match &file {
            Some(f) if self.progress => f.metadata().ok().map(|m| progress_bar(&display, m.len())),
            _ => None,
        };
        let bar = t.bar.clone();
        let mut sink = |d: Diagnostic| t.emit(w, filter, d);
        let rep = match (input, file) {
            (Input::File(p), Some(file)) => {
                let name = p.file_name().and_then(|n| n.to_str());
                let file = Progress {
                    inner: file,
                    bar,
                    lines: 0,
                };
                check::check_reader_with(file, &display, name, &opts, &mut sink).map_err(|e| {
                    match e {
                        Error::Io { source, .. } => Error::io(p, source),
                        other => other,
                    }
                })?
            }
            _ => check::check_reader_with(io::stdin().lock(), "-", None, &opts, &mut sink)?,
        };
        if let Some(bar) = t.bar.take() {
            bar.finish_and_clear();
        }
        let mut sink = |d: Diagnostic| t.emit(w, filter, d);
        let mut after = more;
        if let (Input::File(p), Some(format)) = (input, rep.format) {
            after.extend(references(p, format, &opts, self.external, self.employees)?);
        }
        after.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        for d in after {
            sink(d);
        }
        if let Err(e) = w.end_file(rep.format, rep.records) {
            t.error.get_or_insert(e);
        }
        Ok(())
    }
}

/// Counts, filters and caps the findings of a streamed run.
struct Tally {
    summary: Summary,
    fail_on: Severity,
    failing: bool,
    max: Option<usize>,
    in_file: usize,
    /// The first write error; later findings are dropped.
    error: Option<io::Error>,
    /// The current file's progress bar, if one is shown.
    bar: Option<indicatif::ProgressBar>,
    /// Set when a finding of the current streamed file is hidden, so the
    /// checker stops capturing source lines for the rest of it.
    snippet_stop: Option<Arc<AtomicBool>>,
}

impl Tally {
    fn start_file(&mut self) {
        self.in_file = 0;
        self.snippet_stop = None;
        self.summary.files += 1;
    }

    fn emit(&mut self, w: &mut dyn Report, filter: &RuleFilter, mut d: Diagnostic) {
        let Some(severity) = filter.judge(d.rule, d.severity) else {
            return;
        };
        d.severity = severity;
        match severity {
            Severity::Error => self.summary.errors += 1,
            Severity::Warning => self.summary.warnings += 1,
            Severity::Info => self.summary.infos += 1,
        }
        self.failing |= severity >= self.fail_on;
        self.in_file += 1;
        if self.max.is_some_and(|m| self.in_file > m) {
            self.summary.hidden += 1;
            if let Some(stop) = &self.snippet_stop {
                stop.store(true, Ordering::Relaxed);
            }
            return;
        }
        if self.error.is_none() {
            let written = match &self.bar {
                // The bar draws on stderr, often the same terminal: clear
                // it while the finding goes out, then draw it again.
                Some(bar) => bar.suspend(|| w.diagnostic(&d).and_then(|()| w.flush())),
                None => w.diagnostic(&d),
            };
            if let Err(e) = written {
                self.error = Some(e);
            }
        }
    }
}

/// The progress bar of a large file: bytes, rows per second, time left.
fn progress_bar(name: &str, len: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(len),
        indicatif::ProgressDrawTarget::stderr_with_hz(8),
    );
    let style = indicatif::ProgressStyle::with_template(
        "{prefix} [{bar:30}] {bytes}/{total_bytes} {msg} ETA {eta}",
    )
    .map(|s| s.progress_chars("=> "));
    if let Ok(style) = style {
        bar.set_style(style);
    }
    bar.set_prefix(name.to_owned());
    bar
}

/// Counts what the checker reads, for the progress bar.
struct Progress<R> {
    inner: R,
    bar: Option<indicatif::ProgressBar>,
    lines: u64,
}

impl<R: io::Read> io::Read for Progress<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(bar) = &self.bar {
            self.lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
            bar.inc(n as u64);
            let secs = bar.elapsed().as_secs_f64().max(1e-3);
            bar.set_message(format!("{:.0} rows/s", self.lines as f64 / secs));
        }
        Ok(n)
    }
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
