//! The first step of a run: everything that can be told wrong before a
//! byte of an input is read. The settings resolve, `--threads` is in
//! bounds (and the run's own thread pool is built for it), the paths
//! expand, `--split` has its one file, no output replaces an input or
//! another output, and the split's halves open. What goes wrong here or
//! in the steps after it, before the report, is a [`SetupError`], which
//! `run::check` turns into the one message and exit 2.

use super::expand::expand;
use super::request::{Input, Request};
use super::settings::{settings, Settings, SettingsError};
use super::split;
use crate::baseline::BaselineError;
use crate::bundle;
use crate::output::Reads;
use crate::report::{display_path, printable, Failure};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Why a run stopped before its report (or, for `--output-file`, could
/// not put it in place): the run checked nothing, or its report was not
/// written, and exits 2.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SetupError {
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error("--threads must be at least 1")]
    NoThreads,
    #[error("--threads {asked} is more than {max} (4 a core, at least 64)")]
    TooManyThreads { asked: usize, max: usize },
    #[error("--threads {asked}: {error}")]
    ThreadPool {
        asked: usize,
        error: rayon::ThreadPoolBuildError,
    },
    #[error("`-` can be given only once")]
    StdinTwice,
    #[error("--split: {0}")]
    Split(&'static str),
    /// An output names a file the run reads, or another output's.
    #[error("{0}")]
    Outputs(String),
    #[error("--split: {0}")]
    Halves(split::SplitError),
    #[error("--output-file {}: {error}", display_path(.path))]
    OutputFile { path: PathBuf, error: io::Error },
    #[error("ZIP bundles cannot be read from standard input; name the file")]
    ZipFromStdin,
    #[error("--entities {}: {error}", display_path(.path))]
    Entities { path: PathBuf, error: EntitiesError },
    #[error(transparent)]
    Baseline(#[from] BaselineError),
}

/// Why an `--entities` file cannot be read for its keys.
#[derive(Debug, thiserror::Error)]
pub(crate) enum EntitiesError {
    #[error("{0}")]
    Io(#[from] io::Error),
    /// A compiled-in table that does not parse (a bug of the build).
    #[error("{0}")]
    Table(Box<crate::schema::TableError>),
    #[error("not an entities CSV: its header fits neither the entities upload nor the entities download")]
    NotEntities,
}

impl SetupError {
    /// The message on `err`, after `bdxlint: `, made printable: nothing a
    /// file name or a config holds reaches the terminal raw. A settings
    /// error keeps its lines (the file and place, then the excerpt), each
    /// made printable on its own.
    pub(super) fn say(&self, err: &mut dyn Write) -> io::Result<()> {
        let text = self.to_string();
        match self {
            SetupError::Settings(_) => {
                let lines: Vec<_> = text.split('\n').map(printable).collect();
                writeln!(err, "bdxlint: {}", lines.join("\n"))
            }
            _ => writeln!(err, "bdxlint: {}", printable(&text)),
        }
    }
}

/// A run that passed [`validate`]: what it checks, and where.
pub(super) struct Valid {
    pub(super) settings: Settings,
    pub(super) inputs: Vec<Input>,
    /// Paths that could not be expanded, or whose config cannot be used.
    pub(super) failures: Vec<Failure>,
    /// How many inputs are standard input (at most one).
    pub(super) stdin_count: usize,
    /// `--split`'s outputs, opened.
    pub(super) halves: Option<split::Halves>,
    /// `--threads`: the run's own pool, its work run inside it; `None`:
    /// the work runs where `check` was called (rayon's default pool).
    pub(super) pool: Option<rayon::ThreadPool>,
}

/// Checks what can be checked before an input is read, in the order the
/// problems are reported (only the first is).
pub(super) fn validate(req: &Request) -> Result<Valid, SetupError> {
    let settings = settings(req)?;
    let pool = req.threads.map(pool).transpose()?;
    let mut failures = Vec::new();
    let inputs = expand(req, &settings, &mut failures);
    let stdin_count = inputs.iter().filter(|i| matches!(i, Input::Stdin)).count();
    if stdin_count > 1 {
        return Err(SetupError::StdinTwice);
    }
    if let Some(problem) = split_problem(req, &inputs) {
        return Err(SetupError::Split(problem));
    }
    // Before anything is read: no output may replace an input, or another.
    if let Some(problem) = outputs_problem(req, &inputs, &settings.scopes.config_files()) {
        return Err(SetupError::Outputs(problem));
    }
    // Before the input is read: a split that cannot write both files
    // changes nothing, and costs no check.
    let halves = match (&req.split, inputs.as_slice()) {
        (Some((good, bad)), [Input::File(input)]) => {
            Some(split::Halves::open(good, bad, input).map_err(SetupError::Halves)?)
        }
        _ => None,
    };
    Ok(Valid {
        settings,
        inputs,
        failures,
        stdin_count,
        halves,
        pool,
    })
}

/// The run's thread pool for `--threads n`: its own, not rayon's global
/// one, which a library must not set (a second run in the process, with
/// another count, could not).
fn pool(n: usize) -> Result<rayon::ThreadPool, SetupError> {
    if n == 0 {
        return Err(SetupError::NoThreads);
    }
    // More threads than cores only costs: a mistyped `-j 100000000`
    // would spend minutes starting threads.
    let max = max_threads();
    if n > max {
        return Err(SetupError::TooManyThreads { asked: n, max });
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|error| SetupError::ThreadPool { asked: n, error })
}

/// The most worker threads a run takes: 4 a core, at least 64.
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores * 4).max(64)
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
