//! What a run was asked: the [`Request`] (the flags as plain data) and
//! each [`Input`] it names once expanded. The bottom of `run/`: the
//! settings, the expansion and every step read these, and this file
//! imports none of them, so no two files of the run import each other.

use crate::bundle::Limits;
use crate::config::FailOn;
use crate::report::{HumanOptions, OutputFormat};
use crate::select::Level;
use std::path::{Path, PathBuf};

/// What to check: a file, standard input, or a path that failed.
pub(crate) enum Input {
    File(PathBuf),
    Stdin,
}

/// What `bdxlint check` was asked to do, as plain data: the flags, with
/// what only the binary can tell (terminal, colour) already decided.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub paths: Vec<PathBuf>,
    /// `--stdin-filename`: what standard input is called in the report,
    /// the file name its format may be told by, and the path whose
    /// nearest `bdxlint.toml` (its overrides and per-file ignores) applies.
    pub stdin_filename: Option<PathBuf>,
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
    /// `--strict-detection`: named files are taken as a format only on the
    /// strong evidence a walked one needs.
    pub strict_detection: bool,
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

impl Request {
    /// Standard input's name in the report: `--stdin-filename`, or `-`.
    pub(crate) fn stdin_path(&self) -> &Path {
        self.stdin_filename.as_deref().unwrap_or(Path::new("-"))
    }
}
