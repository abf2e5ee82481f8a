//! A run's settings: the flags over the `bdxlint.toml` files (ripgrep's
//! split between the arguments as given and the settings they resolve to).
//!
//! Configuration is hierarchical, as ruff's is: each file takes the rule
//! settings (`select`, `ignore`, `severity`, `[per-file-ignores]`,
//! `[[overrides]]`) and the `exclude` of the nearest `bdxlint.toml` or
//! `.bdxlint.toml` in its own directory or above it, flags applied over
//! each; a nested file does not inherit from one above it. The run-wide
//! keys (`output-format`, `fail-on`, `max-diagnostics`, `force-exclude`)
//! come from the file nearest the working directory. `--config FILE` (or
//! `--isolated`) puts one file (or none) over every input.
//!
//! The settings then build what the run is made of (as ripgrep's `HiArgs`
//! builds its searchers from the parsed flags): the checker's [`Options`],
//! the [`Report`] and the [`Tally`] every finding passes through.

use super::request::{Input, Request};
use super::split;
use super::tally::Tally;
use crate::baseline::{Baseline, Matcher, Recorder};
use crate::bundle::{self, Kind};
use crate::check::Options;
use crate::config::{self, Config, ConfigError, Exclude, FailOn, GlobBudget, PerFileIgnores};
use crate::diagnostic::Severity;
use crate::report::{self, OutputFormat, Report, Statistics};
use crate::select::{Level, RuleFilter, SelectorError};
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Why the settings cannot be resolved: the run checks nothing (exit 2).
/// A config's message may hold several lines (the place, then an excerpt).
#[derive(Debug, thiserror::Error)]
pub(crate) enum SettingsError {
    #[error("working directory: {0}")]
    WorkingDirectory(io::Error),
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// `--select`, `--ignore` or a config's selectors.
    #[error(transparent)]
    Selector(#[from] SelectorError),
    #[error("--extend-select: {0}")]
    ExtendSelect(SelectorError),
    /// `--exclude` or `--extend-exclude` names a glob that does not parse.
    #[error("{flag} {glob:?}: {message}")]
    Glob {
        flag: &'static str,
        glob: String,
        message: String,
    },
    /// `--exclude` or `--extend-exclude` globs that compile to no set.
    #[error("{flag}: {message}")]
    Globs { flag: &'static str, message: String },
    /// The flags' globs alone are over the run's budget.
    #[error("--exclude, --extend-exclude and --per-file-ignores: {0}")]
    FlagGlobs(String),
}

fn fail_severity(f: FailOn) -> Severity {
    match f {
        FailOn::Error => Severity::Error,
        FailOn::Warning => Severity::Warning,
    }
}

/// What one config file (or none) and the flags make of a file's checks.
pub(super) struct Scope {
    config: Option<Arc<Config>>,
    /// The config's select, ignore and severity with the flags' select
    /// (replacing), extend-select and ignore (added); per-file filters add
    /// the matching overrides and per-file ignores, then `cli_severity`.
    filter: RuleFilter,
    /// `--per-file-ignores`, or else the config's `[per-file-ignores]`.
    per_file_ignores: Arc<PerFileIgnores>,
    /// What walks skip: the config's `exclude` (or `--exclude`, which
    /// replaces it), its `extend-exclude` and `--extend-exclude`.
    pub(super) exclude: Vec<Arc<Exclude>>,
}

/// The flags' globs, taken from the run's budget and compiled once for
/// every scope (not once a config found).
struct CliGlobs {
    /// `--exclude`, when given.
    exclude: Option<Arc<Exclude>>,
    extend_exclude: Arc<Exclude>,
    /// `--per-file-ignores`, when given.
    per_file_ignores: Option<Arc<PerFileIgnores>>,
}

impl CliGlobs {
    /// Globs of the command line are relative to the working directory,
    /// as the paths beside them are.
    fn new(req: &Request, cwd: &Path, budget: &GlobBudget) -> Result<CliGlobs, SettingsError> {
        let (globs, bytes) = (req.exclude.iter().flatten())
            .chain(&req.extend_exclude)
            .chain(&req.per_file_ignores)
            .fold((0, 0), |(g, b), f| (g + 1, b + f.len()));
        if !budget.take(globs, bytes) {
            return Err(SettingsError::FlagGlobs(config::over_budget(globs, bytes)));
        }
        let compile = |list: &[String], flag: &'static str| {
            Exclude::new(cwd, list.iter().map(String::as_str))
                .map(Arc::new)
                .map_err(|(i, message)| match list.get(i) {
                    Some(glob) => SettingsError::Glob {
                        flag,
                        glob: glob.clone(),
                        message,
                    },
                    None => SettingsError::Globs { flag, message },
                })
        };
        Ok(CliGlobs {
            exclude: req
                .exclude
                .as_deref()
                .map(|list| compile(list, "--exclude"))
                .transpose()?,
            extend_exclude: compile(&req.extend_exclude, "--extend-exclude")?,
            per_file_ignores: (!req.per_file_ignores.is_empty())
                .then(|| PerFileIgnores::parse(&req.per_file_ignores, cwd).map(Arc::new))
                .transpose()?,
        })
    }
}

impl Scope {
    fn new(
        config: Option<Arc<Config>>,
        req: &Request,
        cli: &CliGlobs,
    ) -> Result<Scope, SettingsError> {
        let c = config.as_deref();
        // As ruff layers them: `--select` replaces the file's `select` and
        // its `extend-select`; `--extend-select` adds to whichever holds. An
        // empty `select` already takes every rule, so extending it adds none
        // (and must not narrow it to the extension).
        let mut select = if req.select.is_empty() {
            let mut s = c.and_then(|c| c.select.clone()).unwrap_or_default();
            if !s.is_empty() {
                s.extend(c.iter().flat_map(|c| c.extend_select.iter().cloned()));
            }
            s
        } else {
            req.select.clone()
        };
        if !select.is_empty() {
            select.extend(req.extend_select.iter().cloned());
        }
        let mut ignore = c.map(|c| c.ignore.clone()).unwrap_or_default();
        ignore.extend(req.ignore.iter().cloned());
        let filter = RuleFilter {
            select,
            ignore,
            severity: c.map(|c| c.severity.clone()).unwrap_or_default(),
        };
        filter.validate()?;
        for s in &req.extend_select {
            crate::select::validate(s).map_err(SettingsError::ExtendSelect)?;
        }
        let mut exclude = Vec::new();
        match &cli.exclude {
            Some(e) => exclude.push(Arc::clone(e)),
            None => exclude.extend(c.map(|c| Arc::clone(&c.exclude))),
        }
        exclude.extend(c.map(|c| Arc::clone(&c.extend_exclude)));
        exclude.push(Arc::clone(&cli.extend_exclude));
        // The flag replaces the table, as ruff's does.
        let per_file_ignores = match &cli.per_file_ignores {
            Some(p) => Arc::clone(p),
            None => c
                .map(|c| Arc::clone(&c.per_file_ignores))
                .unwrap_or_default(),
        };
        Ok(Scope {
            config,
            filter,
            per_file_ignores,
            exclude,
        })
    }
}

/// Which scope a path falls in: one for every input (`--config`,
/// `--isolated`), or the nearest config file's, found per directory and
/// loaded once. Shared with the walker's filter, which runs as it walks.
pub(super) struct Scopes {
    cwd: PathBuf,
    /// The scope of the working directory's config (`--config`'s, or none
    /// with `--isolated`).
    root: Arc<Scope>,
    /// `None`: `root` holds for every path.
    nearest: Option<Nearest>,
}

type Found = Result<Arc<Scope>, Arc<str>>;

struct Nearest {
    /// The flags each scope applies over its file.
    req: Request,
    cli: Arc<CliGlobs>,
    /// What is left of the run's globs for the configs still to be found.
    budget: Arc<GlobBudget>,
    /// The scope by directory (absolute, lexical), once looked up.
    dirs: Mutex<HashMap<PathBuf, Found>>,
    /// The scope by config file, loaded once however many directories it
    /// covers; a config that cannot be used is its message.
    files: Mutex<HashMap<PathBuf, Found>>,
    /// The working directory's config file, whose scope is `root`.
    root_file: Option<PathBuf>,
}

impl Scopes {
    /// The config files the run has read so far: the working directory's
    /// and those found beside the inputs (all of them once the inputs are
    /// expanded), so that no output replaces one.
    pub(super) fn config_files(&self) -> Vec<PathBuf> {
        let Some(n) = &self.nearest else {
            return Vec::new();
        };
        let mut files: Vec<PathBuf> = lock(&n.files).keys().cloned().collect();
        files.extend(n.root_file.iter().cloned());
        files
    }

    /// The scope of a file or directory's entry: its directory's.
    pub(super) fn of(&self, path: &Path) -> Found {
        let Some(n) = &self.nearest else {
            return Ok(Arc::clone(&self.root));
        };
        let abs = lexical(&self.cwd.join(path));
        let dir = abs.parent().unwrap_or(&abs);
        self.of_dir(n, dir)
    }

    fn of_dir(&self, n: &Nearest, dir: &Path) -> Found {
        if let Some(found) = lock(&n.dirs).get(dir) {
            return found.clone();
        }
        let found = match config::in_dir(dir) {
            Some(file) if Some(&file) == n.root_file.as_ref() => Ok(Arc::clone(&self.root)),
            Some(file) => {
                let known = lock(&n.files).get(&file).cloned();
                match known {
                    Some(found) => found,
                    None => {
                        let found = Config::load_discovered(&file, &n.budget)
                            .map_err(SettingsError::from)
                            .and_then(|c| Scope::new(Some(Arc::new(c)), &n.req, &n.cli))
                            .map(Arc::new)
                            .map_err(|e| Arc::from(e.to_string()));
                        lock(&n.files).insert(file, found.clone());
                        found
                    }
                }
            }
            None => match dir.parent() {
                Some(up) => self.of_dir(n, up),
                None => Ok(Arc::clone(&self.root)),
            },
        };
        lock(&n.dirs).insert(dir.to_path_buf(), found.clone());
        found
    }
}

/// A lock whose holder cannot have left the map half-updated: a panic
/// while holding it would have ended the run.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `path` with `.` dropped and `..` resolved, without asking the file
/// system.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// The settings of a `check` run: the config files', overridden by flags.
pub(super) struct Settings {
    pub(super) scopes: Arc<Scopes>,
    pub(super) cli_severity: Vec<(String, Level)>,
    pub(super) fail_on: Severity,
    pub(super) exit_zero: bool,
    pub(super) output_format: OutputFormat,
    /// Findings printed per file; `None`: all.
    pub(super) max_diagnostics: Option<usize>,
    /// The human report folds repeated findings of one rule on one column
    /// (`report::fold`): its default, which `--max-diagnostics` (flag or
    /// config), asking for a number of findings as they are, turns off.
    pub(super) fold: bool,
    /// `--force-exclude` or the config's `force-exclude`.
    pub(super) force_exclude: bool,
    /// `--no-ignore`: walks take hidden, ignored and vendored files too.
    pub(super) no_ignore: bool,
    /// `--hidden`: walks take hidden files and directories too.
    pub(super) hidden: bool,
    pub(super) cwd: PathBuf,
}

impl Settings {
    /// Whether an exclusion of its scope covers `path` or a directory above
    /// it. A path whose config cannot be used is not excluded: it is then
    /// reported as not checked.
    pub(super) fn excluded(&self, path: &Path) -> bool {
        self.scopes
            .of(path)
            .is_ok_and(|s| s.exclude.iter().any(|e| e.covers(path, &self.cwd)))
    }

    /// The config overrides matching an input, and the rule filter for it.
    pub(super) fn for_input(&self, input: &Input) -> (Option<&'static str>, RuleFilter) {
        let scope = match input {
            // The inputs were expanded with their scopes: a file whose
            // config failed is not among them.
            Input::File(p) => self
                .scopes
                .of(p)
                .unwrap_or_else(|_| Arc::clone(&self.scopes.root)),
            Input::Stdin => Arc::clone(&self.scopes.root),
        };
        let overrides = match (input, &scope.config) {
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
        // The config checked the name against these, whose strings outlive
        // the config file the scope may drop.
        let format = format.and_then(|f| {
            crate::schema::format_names()
                .chain(Kind::NAMES)
                .find(|n| *n == f)
        });
        let mut filter = config::filter_for(&scope.filter, &overrides, &self.cli_severity);
        if let Input::File(p) = input {
            filter
                .ignore
                .extend(scope.per_file_ignores.ignored_in(p, &self.cwd));
        }
        (format, filter)
    }
}

/// Resolves the settings; an error stops the run before it reads anything.
pub(super) fn settings(req: &Request) -> Result<Settings, SettingsError> {
    let cwd = std::env::current_dir().map_err(SettingsError::WorkingDirectory)?;
    let path = if req.isolated {
        None
    } else {
        req.config.clone().or_else(|| Config::discover(&cwd))
    };
    // `--config` names a file the user chose; a found one must stay in
    // its tree.
    let budget = Arc::new(GlobBudget::default());
    let cli = Arc::new(CliGlobs::new(req, &cwd, &budget)?);
    let load = |p: &Path| match &req.config {
        Some(_) => Config::load(p, &budget),
        None => Config::load_discovered(p, &budget),
    };
    let config = match &path {
        Some(p) => Some(Arc::new(load(p)?)),
        None => None,
    };
    let root = Arc::new(Scope::new(config.clone(), req, &cli)?);
    let nearest = (!req.isolated && req.config.is_none()).then(|| Nearest {
        req: req.clone(),
        cli,
        budget,
        dirs: Mutex::default(),
        files: Mutex::default(),
        root_file: path.map(|p| lexical(&cwd.join(p))),
    });
    let c = config.as_deref();
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
        scopes: Arc::new(Scopes {
            cwd: cwd.clone(),
            root,
            nearest,
        }),
        cli_severity: req.severity.clone(),
        fail_on: fail_severity(fail_on),
        exit_zero: req.exit_zero,
        output_format,
        max_diagnostics: max.filter(|&n| n > 0),
        fold: output_format == OutputFormat::Human
            && req.max_diagnostics.is_none()
            && c.and_then(|c| c.max_diagnostics).is_none(),
        force_exclude,
        no_ignore: req.no_ignore,
        hidden: req.hidden,
        cwd,
    })
}

/// What the settings build: the parts of a run.
impl Settings {
    /// Whether the report counts findings (`--statistics`, `--quiet`)
    /// instead of listing them: it then takes every finding, and the
    /// checker keeps no source lines or values for it.
    pub(super) fn counting(&self, req: &Request) -> bool {
        let plain = self.output_format.is_plain_text();
        req.statistics || (req.quiet && plain)
    }

    /// The checker's options for the run (each input's own are made from
    /// these: see `Run::opts_for`).
    pub(super) fn options(&self, req: &Request) -> Options {
        let forced_kind = req.format.as_deref().and_then(Kind::from_name);
        let counting = self.counting(req);
        Options {
            format: req.format.clone().filter(|_| forced_kind.is_none()),
            // Baselines fingerprint the offending cell's text, held in the
            // snippet; a count needs no source lines.
            // JSON's `value`: the offending cell's text.
            values: self.output_format.carries_values() && !counting,
            every_row: req.split.is_some(),
            snippets: (self.output_format.needs_snippets() && !counting)
                || req.baseline.is_some()
                || req.write_baseline.is_some(),
            ..Options::default()
        }
    }

    /// The report the findings go to, written to `out`: the counts, the
    /// summary alone, or the output format's writer.
    pub(super) fn report<'w>(
        &self,
        req: &Request,
        out: &'w mut dyn Write,
    ) -> io::Result<Box<dyn Report + 'w>> {
        let plain = self.output_format.is_plain_text();
        Ok(if req.statistics {
            Box::new(Statistics::new(
                out,
                self.output_format == OutputFormat::Json,
            ))
        } else if (req.quiet && plain) || req.fix.is_some_and(|f| f.diff || f.only) {
            Box::new(Statistics::quiet(out))
        } else {
            // --max-diagnostics (flag or config) also sets how many results a
            // SARIF log takes in all, up or down from code scanning's 25,000.
            report::writer_capped(out, self.output_format, &req.human, self.max_diagnostics)?
        })
    }

    /// The tally every finding passes through on its way to the report:
    /// the baseline read (`old`), the one being recorded, the caps.
    pub(super) fn tally(&self, req: &Request, old: Option<Baseline>) -> Tally {
        let counting = self.counting(req);
        // The HTML report counts every finding and shows at most
        // `--max-diagnostics` samples of each rule × column instead.
        let html = self.output_format == OutputFormat::Html;
        let mut t = Tally::new(
            self.fail_on,
            self.max_diagnostics.filter(|_| !counting && !html),
            old.map(Matcher::new),
            req.write_baseline.as_ref().map(|_| Recorder::default()),
        );
        // The human report folds repeated findings of one rule on one column
        // into a line each; every other output keeps them all.
        if self.fold && !counting {
            t.folder = Some(crate::report::fold::Folder::default());
        }
        t.unsafe_fixes = req.unsafe_fixes;
        t.split = req.split.as_ref().map(|_| split::Findings::default());
        t.summary.fixing = req.fix.is_some();
        t.summary.dry_run = req.fix.is_some_and(|f| f.diff);
        t
    }
}
