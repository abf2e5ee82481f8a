//! A run's settings: the flags over the nearest `bdxlint.toml` (ripgrep's
//! split between the arguments as given and the settings they resolve to).

use super::inputs::Input;
use super::Request;
use crate::bundle::{self, Kind};
use crate::config::{self, Config, Exclude, FailOn, PerFileIgnore};
use crate::diagnostic::Severity;
use crate::filter::{Level, RuleFilter};
use crate::report::OutputFormat;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn fail_severity(f: FailOn) -> Severity {
    match f {
        FailOn::Error => Severity::Error,
        FailOn::Warning => Severity::Warning,
    }
}

/// The settings of a `check` run: the config file's, overridden by flags.
pub(super) struct Settings {
    pub(super) config: Option<Arc<Config>>,
    /// The config's top-level select, ignore and severity with the flags'
    /// select (replacing) and ignore (added); per-file filters add the
    /// matching overrides and then `cli_severity`.
    pub(super) filter: RuleFilter,
    pub(super) cli_severity: Vec<(String, Level)>,
    pub(super) fail_on: Severity,
    pub(super) exit_zero: bool,
    pub(super) output_format: OutputFormat,
    /// Findings printed per file; `None`: all.
    pub(super) max_diagnostics: Option<usize>,
    /// What walks skip: the config's `exclude` (or `--exclude`, which
    /// replaces it), its `extend-exclude` and `--extend-exclude`.
    pub(super) exclude: Arc<[Exclude]>,
    /// `--per-file-ignores`, or else the config's `[per-file-ignores]`.
    pub(super) per_file_ignores: Vec<PerFileIgnore>,
    /// `--force-exclude` or the config's `force-exclude`.
    pub(super) force_exclude: bool,
    /// `--no-ignore`: walks take hidden, ignored and vendored files too.
    pub(super) no_ignore: bool,
    /// `--hidden`: walks take hidden files and directories too.
    pub(super) hidden: bool,
    pub(super) cwd: PathBuf,
}

impl Settings {
    /// Whether an exclusion covers `path` or a directory above it.
    pub(super) fn excluded(&self, path: &Path) -> bool {
        self.exclude.iter().any(|e| e.covers(path, &self.cwd))
    }

    /// The config overrides matching an input, and the rule filter for it.
    pub(super) fn for_input(&self, input: &Input) -> (Option<&str>, RuleFilter) {
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
        let mut filter = config::filter_for(&self.filter, &overrides, &self.cli_severity);
        if let Input::File(p) = input {
            filter
                .ignore
                .extend(config::ignored_in(&self.per_file_ignores, p, &self.cwd).cloned());
        }
        (format, filter)
    }
}

/// Resolves the settings; `Err` is a message for stderr (exit 2).
pub(super) fn settings(req: &Request) -> Result<Settings, String> {
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
    filter.validate().map_err(|e| e.to_string())?;
    for s in &req.extend_select {
        crate::filter::validate(s).map_err(|e| format!("--extend-select: {e}"))?;
    }
    // Globs of the command line are relative to the working directory, as
    // the paths beside them are.
    let cli_globs = |list: &[String], flag: &str| {
        Exclude::new(&cwd, list.iter().map(String::as_str))
            .map_err(|(i, e)| format!("{flag} {:?}: {e}", list.get(i).map_or("", |s| s.as_str())))
    };
    let mut exclude = Vec::new();
    match &req.exclude {
        Some(list) => exclude.push(cli_globs(list, "--exclude")?),
        None => exclude.extend(c.map(|c| c.exclude.clone())),
    }
    exclude.extend(c.map(|c| c.extend_exclude.clone()));
    exclude.push(cli_globs(&req.extend_exclude, "--extend-exclude")?);
    // The flag replaces the table, as ruff's does.
    let per_file_ignores = if req.per_file_ignores.is_empty() {
        c.map(|c| c.per_file_ignores.clone()).unwrap_or_default()
    } else {
        req.per_file_ignores
            .iter()
            .map(|a| PerFileIgnore::parse(a, &cwd))
            .collect::<Result<_, _>>()?
    };
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
        config: config.map(Arc::new),
        exclude: exclude.into(),
        per_file_ignores,
        filter,
        cli_severity: req.severity.clone(),
        fail_on: fail_severity(fail_on),
        exit_zero: req.exit_zero,
        output_format,
        max_diagnostics: max.filter(|&n| n > 0),
        force_exclude,
        no_ignore: req.no_ignore,
        hidden: req.hidden,
        cwd,
    })
}
