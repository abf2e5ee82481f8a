//! The command line: flags (clap derive) and the glue that runs each
//! subcommand, prints, and picks the exit code.

use bdxlint::baseline::Baseline;
use bdxlint::bundle::{self, Kind, Limits};
use bdxlint::check::batch::{self, BatchInput};
use bdxlint::check::refs::{self, EmployeeKeys, EntityKeys, RefSources};
use bdxlint::check::{self, FileReport, Options};
use bdxlint::config::{self, Config, FailOn};
use bdxlint::diagnostic::Diagnostic;
use bdxlint::diagnostic::Severity;
use bdxlint::error::Error;
use bdxlint::filter::{self, Level, RuleFilter};
use bdxlint::report::{
    self, Failure, HumanOptions, OutputFormat, Report, Statistics, StreamWriter, Summary,
};
use bdxlint::{rules, schema};
use clap::{Parser, Subcommand, ValueEnum};
use rayon::prelude::*;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Exit codes: findings are not failures of the tool.
pub const EXIT_CLEAN: u8 = 0;
pub const EXIT_FINDINGS: u8 = 1;
pub const EXIT_TROUBLE: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "bdxlint",
    version,
    about = "Check Bulk Data Exchange CSV files before you upload them",
    long_about = "Check Bulk Data Exchange API CSV files offline, before you upload them.\n\n\
        bdxlint reads each file's header, picks its format (employees, entitlements, reviews, ...), \
        and checks every row against the format's schema table: required columns and cells, \
        date, e-mail, boolean, enum and JSON shapes, and the conditions between cells of a row.",
    after_help = "Examples:\n  \
        bdxlint check exports/                      check every .csv and .zip below exports/\n  \
        bdxlint check --format entitlements -  < f  read standard input\n  \
        bdxlint check --output-format json a.csv    machine-readable findings\n  \
        bdxlint explain invalid-date                what a rule checks and how to fix it\n  \
        bdxlint formats employees                   the columns of a format\n\n\
        Exit status: 0 clean, 1 findings at or above --fail-on (default: errors),\n\
        2 usage, configuration or I/O problem."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

// Parsed once per process: the size of the `check` variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check files and directories (every .csv and .zip below a directory, sorted).
    Check(CheckArgs),
    /// Explain a rule: what it checks, why, and an example.
    Explain {
        /// A rule code (C004) or name (invalid-date).
        rule: String,
    },
    /// List every rule.
    Rules {
        /// `text` (a table) or `json` (an array of rule objects).
        #[arg(long, value_enum, default_value_t = RulesFormat::Text, value_name = "FORMAT")]
        output_format: RulesFormat,
    },
    /// List the formats, or the columns and checks of one format with the spec words each enforces.
    Formats {
        /// A format name; omit to list all formats.
        name: Option<String>,
        /// `text` or `json` (the format's columns and checks as an object).
        #[arg(long, value_enum, default_value_t = RulesFormat::Text, value_name = "FORMAT")]
        output_format: RulesFormat,
    },
    /// Print a format's header row, to start a file right.
    Template {
        /// The format name (see `bdxlint formats`).
        format: String,
        /// Add one valid example row.
        #[arg(long)]
        example: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Files or directories to check; `-` reads standard input (format detected from its header, or --format).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Check every file as this format instead of detecting it from the header.
    #[arg(long, short = 'f', value_name = "NAME", value_parser = format_names())]
    pub format: Option<String>,

    /// How to print findings [default: human].
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub output_format: Option<OutputFormatArg>,

    /// Report only these rules: codes, code prefixes (`C`, `J00`), names, or ALL.
    /// Comma-separated or repeated; replaces the config file's `select`.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub select: Vec<String>,

    /// Never report these rules (codes, prefixes, names); added to the config's `ignore`.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub ignore: Vec<String>,

    /// Set a rule's severity: `C004=warning`, `X005=off` (off, info, warning, error).
    /// Repeatable; a later one wins, and these win over the config file.
    #[arg(long, value_name = "RULE=LEVEL", value_parser = parse_severity)]
    pub severity: Vec<(String, Level)>,

    /// The lowest severity that makes the exit status 1 [default: error].
    #[arg(long, value_enum, value_name = "SEVERITY")]
    pub fail_on: Option<FailOnArg>,

    /// Exit 0 even when there are findings (2 still means the run failed).
    #[arg(long)]
    pub exit_zero: bool,

    /// Print at most N findings per file and count the rest in the summary
    /// (0: no limit) [default: 100 for human output, no limit otherwise].
    #[arg(long, value_name = "N")]
    pub max_diagnostics: Option<usize>,

    /// Print how many findings each rule has instead of the findings.
    #[arg(long)]
    pub statistics: bool,

    /// Human and concise output: print only the summary line, and nothing when clean.
    #[arg(long, short = 'q')]
    pub quiet: bool,

    /// Read settings from this file instead of the nearest bdxlint.toml or
    /// .bdxlint.toml at or above the working directory.
    #[arg(long, value_name = "FILE", conflicts_with = "isolated")]
    pub config: Option<PathBuf>,

    /// Ignore every configuration file.
    #[arg(long)]
    pub isolated: bool,

    /// Skip the config's `exclude` paths even when named on the command
    /// line, as pre-commit names every staged file (without it, only
    /// directory walks skip them).
    #[arg(long)]
    pub force_exclude: bool,

    /// Report only findings this baseline file does not record, and count
    /// its entries that no longer occur.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Record the current findings in this file (then report as if it were
    /// the --baseline: nothing new, exit 0).
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,

    /// When to colour the human output (NO_COLOR and CLICOLOR_FORCE are honoured by `auto`).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

    /// Worker threads (default: one per core).
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,

    /// An entities CSV (upload or download) that relations files point at;
    /// repeatable. Without it, relation references are not checked.
    #[arg(long, value_name = "FILE")]
    pub entities: Vec<PathBuf>,

    /// ZIP bundles: most bytes one member may inflate to.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_member)]
    pub max_member_size: u64,

    /// ZIP bundles: most bytes a whole archive may inflate to.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_total)]
    pub max_total_size: u64,

    /// ZIP bundles: most a member may inflate relative to its compressed
    /// size (past its first MiB).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_ratio)]
    pub max_ratio: u64,
}

/// `--output-format`: the library's [`OutputFormat`] as clap reads it (the
/// library's types know nothing of clap). The doc comments are the help.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormatArg {
    /// Source snippets with a caret under the offending cell.
    Human,
    /// One line per finding: `path:line:col: CODE [severity] message`.
    Concise,
    /// One JSON document (the stable contract documented in the README).
    Json,
    /// One JSON object per finding per line (the `json` diagnostic plus `path`).
    Jsonl,
    /// SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// GitHub Actions `::error` workflow commands (annotations).
    Github,
    /// GitLab Code Quality report (JSON array).
    Gitlab,
    /// JUnit XML: a testsuite per file, a testcase per finding.
    Junit,
    /// reviewdog diagnostic JSON lines (`reviewdog -f=rdjsonl`).
    Rdjsonl,
}

impl From<OutputFormatArg> for OutputFormat {
    fn from(a: OutputFormatArg) -> OutputFormat {
        match a {
            OutputFormatArg::Human => OutputFormat::Human,
            OutputFormatArg::Concise => OutputFormat::Concise,
            OutputFormatArg::Json => OutputFormat::Json,
            OutputFormatArg::Jsonl => OutputFormat::Jsonl,
            OutputFormatArg::Sarif => OutputFormat::Sarif,
            OutputFormatArg::Github => OutputFormat::Github,
            OutputFormatArg::Gitlab => OutputFormat::Gitlab,
            OutputFormatArg::Junit => OutputFormat::Junit,
            OutputFormatArg::Rdjsonl => OutputFormat::Rdjsonl,
        }
    }
}

/// `--fail-on`, as clap reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOnArg {
    Error,
    Warning,
}

impl From<FailOnArg> for FailOn {
    fn from(a: FailOnArg) -> FailOn {
        match a {
            FailOnArg::Error => FailOn::Error,
            FailOnArg::Warning => FailOn::Warning,
        }
    }
}

fn fail_severity(f: FailOn) -> Severity {
    match f {
        FailOn::Error => Severity::Error,
        FailOn::Warning => Severity::Warning,
    }
}

fn parse_severity(arg: &str) -> Result<(String, Level), String> {
    filter::parse_severity(arg).map_err(|e| e.to_string())
}

fn format_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(schema::format_names().chain(Kind::NAMES))
}

/// Runs the command and returns the exit code.
pub fn run(cli: Cli) -> io::Result<u8> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let code = match cli.command {
        Command::Check(args) => check(&args, &mut out)?,
        Command::Explain { rule } => match rules::lookup(&rule) {
            Some(r) => {
                writeln!(out, "{} {} ({})\n", r.code, r.name, r.severity)?;
                writeln!(out, "{}\n", r.summary)?;
                writeln!(out, "{}\n", r.explanation)?;
                writeln!(out, "Spec: {}", r.spec)?;
                EXIT_CLEAN
            }
            None => {
                eprintln!("bdxlint: no rule {rule:?}; `bdxlint rules` lists them");
                EXIT_TROUBLE
            }
        },
        Command::Rules {
            output_format: RulesFormat::Text,
        } => {
            let width = name_width();
            for r in rules::ALL {
                writeln!(
                    out,
                    "{:<5} {:<width$} {:<8} {}",
                    r.code, r.name, r.severity, r.summary
                )?;
            }
            EXIT_CLEAN
        }
        Command::Rules {
            output_format: RulesFormat::Json,
        } => {
            /// A rule as JSON, fields in the registry's order.
            #[derive(serde::Serialize)]
            struct RuleJson {
                code: &'static str,
                name: &'static str,
                severity: Severity,
                summary: &'static str,
                explanation: &'static str,
                spec: &'static str,
            }
            let list: Vec<RuleJson> = rules::ALL
                .iter()
                .map(|r| RuleJson {
                    code: r.code,
                    name: r.name,
                    severity: r.severity,
                    summary: r.summary,
                    explanation: r.explanation,
                    spec: r.spec,
                })
                .collect();
            serde_json::to_writer_pretty(&mut out, &list)?;
            writeln!(out)?;
            EXIT_CLEAN
        }
        Command::Formats {
            name,
            output_format,
        } => formats(name.as_deref(), output_format, &mut out)?,
        Command::Template { format, example } => template(&format, example, &mut out)?,
    };
    out.flush()?;
    Ok(code)
}

/// The width of the rule-name column of the text tables: the longest name.
fn name_width() -> usize {
    rules::ALL.iter().map(|r| r.name.len()).max().unwrap_or(0)
}

fn tables_or_exit() -> Result<&'static [&'static schema::Table], u8> {
    schema::tables().map_err(|e| {
        eprintln!("bdxlint: {e}");
        EXIT_TROUBLE
    })
}

fn formats(name: Option<&str>, as_: RulesFormat, out: &mut dyn Write) -> io::Result<u8> {
    let tables = match tables_or_exit() {
        Ok(t) => t,
        Err(code) => return Ok(code),
    };
    match (name, name.and_then(Kind::from_name)) {
        (None, _) if as_ == RulesFormat::Json => {
            let mut list: Vec<serde_json::Value> = tables
                .iter()
                .map(|t| serde_json::json!({"name": t.name, "title": t.title}))
                .collect();
            for k in [Kind::EntityRbac, Kind::EntitiesBulk] {
                list.push(serde_json::json!({"name": k.name(), "title": k.title()}));
            }
            serde_json::to_writer_pretty(&mut *out, &list)?;
            writeln!(out)?;
        }
        (None, _) => {
            for t in tables {
                writeln!(out, "{:<27} {}", t.name, t.title)?;
            }
            for k in [Kind::EntityRbac, Kind::EntitiesBulk] {
                writeln!(out, "{:<27} {}", k.name(), k.title())?;
            }
        }
        (Some(_), Some(k)) if as_ == RulesFormat::Json => {
            let v = serde_json::json!({
                "name": k.name(),
                "title": k.title(),
                "members": ["entities", k.relations()],
            });
            serde_json::to_writer_pretty(&mut *out, &v)?;
            writeln!(out)?;
        }
        (Some(_), Some(k)) => {
            writeln!(out, "{} ({})\n", k.title(), k.name())?;
            writeln!(
                out,
                "A ZIP archive of two CSV files, told apart by their headers (member\n\
                 names are not used): an entities CSV (`bdxlint formats entities`)\n\
                 and a relations CSV (`bdxlint formats {}`).\n\
                 Relations must point at entities of the archive.",
                k.relations()
            )?;
        }
        (Some(name), None) => {
            let Some(t) = tables.iter().find(|t| t.name == name) else {
                eprintln!("bdxlint: no format {name:?}; `bdxlint formats` lists them");
                return Ok(EXIT_TROUBLE);
            };
            match as_ {
                RulesFormat::Text => format_text(t, out)?,
                RulesFormat::Json => {
                    serde_json::to_writer_pretty(&mut *out, &format_json(t))?;
                    writeln!(out)?;
                }
            }
        }
    }
    Ok(EXIT_CLEAN)
}

/// How a column's requirement reads in `formats`.
fn requirement_word(c: &schema::Column) -> &'static str {
    match (c.requirement, c.header) {
        (schema::Requirement::Required, _) => "required",
        (schema::Requirement::Recommended, _) => "recommended",
        (_, schema::Requirement::Required) => "column required",
        (_, schema::Requirement::Recommended) => "column recommended",
        _ => "optional",
    }
}

/// What the severity of a check rests on: the spec's words, or a clause
/// of the principle where it only warns.
fn verdict(check: &schema::Check<'_>) -> String {
    let level = match (check.errs, check.warns) {
        (true, true) => "error and warning",
        (true, false) => "error",
        (false, _) => "warning",
    };
    match check.trace.clause {
        Some(c) => format!(
            "{level}; warns because {} (clause 4: {})",
            c.describe(),
            c.name()
        ),
        None => level.to_owned(),
    }
}

fn format_text(t: &schema::Table, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{} ({})", t.title, t.name)?;
    writeln!(out, "Spec: {}", t.spec_section)?;
    if let Some(d) = &t.deprecated {
        writeln!(out, "Deprecated: {d}")?;
    }
    writeln!(out)?;
    let checks = t.checks();
    let column_check = |name: &str| {
        let what = format!("column {name:?}");
        checks.iter().find(|c| c.what == what)
    };
    for c in &t.columns {
        writeln!(
            out,
            "  {:<32} {:<18} {}",
            c.name,
            requirement_word(c),
            c.shape.describe()
        )?;
        if let Some(n) = &c.note {
            writeln!(out, "  {:<32} {:<18} {}", "", "", n)?;
        }
        if let Some(check) = column_check(&c.name) {
            for q in check.trace.fragments() {
                writeln!(out, "  {:<32} {:<18} spec: \"{q}\"", "", "")?;
            }
            writeln!(out, "  {:<32} {:<18} severity: {}", "", "", verdict(check))?;
        }
    }
    let rest: Vec<_> = checks
        .iter()
        .filter(|c| !c.what.starts_with("column "))
        .collect();
    if !rest.is_empty() {
        writeln!(out, "\nChecks across cells and rows:")?;
        for check in rest {
            writeln!(out, "  {}", check.what)?;
            for q in check.trace.fragments() {
                writeln!(out, "      spec: \"{q}\"")?;
            }
            writeln!(out, "      severity: {}", verdict(check))?;
        }
    }
    for n in &t.notes {
        writeln!(out, "\nNote: {n}")?;
    }
    Ok(())
}

fn format_json(t: &schema::Table) -> serde_json::Value {
    let checks = t.checks();
    let check_json = |c: &schema::Check<'_>| {
        serde_json::json!({
            "what": c.what,
            "errors": c.errs,
            "warnings": c.warns,
            "spec": c.trace.fragments().collect::<Vec<_>>(),
            "clause": c.trace.clause.map(|k| k.name()),
        })
    };
    let columns: Vec<serde_json::Value> = t
        .columns
        .iter()
        .map(|c| {
            let what = format!("column {:?}", c.name);
            let check = checks.iter().find(|k| k.what == what);
            serde_json::json!({
                "name": c.name,
                "requirement": requirement_word(c),
                "shape": c.shape.name(),
                "describe": c.shape.describe(),
                "note": c.note,
                "example": c.example,
                "check": check.map(check_json),
            })
        })
        .collect();
    let rest: Vec<serde_json::Value> = checks
        .iter()
        .filter(|c| !c.what.starts_with("column "))
        .map(check_json)
        .collect();
    serde_json::json!({
        "name": t.name,
        "title": t.title,
        "spec_section": t.spec_section,
        "deprecated": t.deprecated,
        "columns": columns,
        "checks": rest,
        "notes": t.notes,
    })
}

fn template(format: &str, example: bool, out: &mut dyn Write) -> io::Result<u8> {
    let tables = match tables_or_exit() {
        Ok(t) => t,
        Err(code) => return Ok(code),
    };
    if let Some(k) = Kind::from_name(format) {
        eprintln!(
            "bdxlint: {format} is a ZIP of two CSV files; start each with `bdxlint template entities` and `bdxlint template {}`",
            k.relations()
        );
        return Ok(EXIT_TROUBLE);
    }
    let Some(t) = tables.iter().find(|t| t.name == format) else {
        eprintln!("bdxlint: no format {format:?}; `bdxlint formats` lists them");
        return Ok(EXIT_TROUBLE);
    };
    let mut w = csv::WriterBuilder::new().from_writer(out);
    let header: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
    w.write_record(&header).map_err(io::Error::other)?;
    if example {
        let row: Vec<&str> = t
            .columns
            .iter()
            .map(|c| c.example.as_deref().unwrap_or(""))
            .collect();
        w.write_record(&row).map_err(io::Error::other)?;
    }
    w.flush()?;
    Ok(EXIT_CLEAN)
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

fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            let set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
            if set("NO_COLOR") {
                false
            } else if std::env::var_os("CLICOLOR_FORCE").is_some_and(|v| v != "0" && !v.is_empty())
            {
                true
            } else if std::env::var_os("CLICOLOR").is_some_and(|v| v == "0")
                || std::env::var_os("TERM").is_some_and(|v| v == "dumb")
            {
                false
            } else {
                io::stdout().is_terminal()
            }
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
fn settings(args: &CheckArgs) -> Result<Settings, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("working directory: {e}"))?;
    let path = if args.isolated {
        None
    } else {
        args.config.clone().or_else(|| Config::discover(&cwd))
    };
    let config = match path {
        Some(p) => Some(Config::load(&p).map_err(|e| e.to_string())?),
        None => None,
    };
    let c = config.as_ref();
    let select = if args.select.is_empty() {
        c.and_then(|c| c.select.clone()).unwrap_or_default()
    } else {
        args.select.clone()
    };
    let mut ignore = c.map(|c| c.ignore.clone()).unwrap_or_default();
    ignore.extend(args.ignore.iter().cloned());
    let filter = RuleFilter {
        select,
        ignore,
        severity: c.map(|c| c.severity.clone()).unwrap_or_default(),
    };
    filter.validate().map_err(|e| e.to_string())?;
    let output_format = args
        .output_format
        .map(OutputFormat::from)
        .or(c.and_then(|c| c.output_format))
        .unwrap_or(OutputFormat::Human);
    // The human report is for reading: a file with an error on every row
    // would bury the summary, so it shows 100 per file unless told.
    let max = args
        .max_diagnostics
        .or(c.and_then(|c| c.max_diagnostics))
        .or((output_format == OutputFormat::Human).then_some(100));
    let fail_on = args
        .fail_on
        .map(FailOn::from)
        .or(c.and_then(|c| c.fail_on))
        .unwrap_or(FailOn::Error);
    let force_exclude = args.force_exclude || c.and_then(|c| c.force_exclude).unwrap_or(false);
    Ok(Settings {
        config,
        filter,
        cli_severity: args.severity.clone(),
        fail_on: fail_severity(fail_on),
        exit_zero: args.exit_zero,
        output_format,
        max_diagnostics: max.filter(|&n| n > 0),
        force_exclude,
        cwd,
    })
}

fn check(args: &CheckArgs, out: &mut dyn Write) -> io::Result<u8> {
    let settings = match settings(args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("bdxlint: {e}");
            return Ok(EXIT_TROUBLE);
        }
    };
    if let Some(n) = args.threads {
        if n == 0 {
            eprintln!("bdxlint: --threads must be at least 1");
            return Ok(EXIT_TROUBLE);
        }
        // Fails only if the pool was already built; then it is in use as is.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
    let mut failures = Vec::new();
    let inputs = expand(&args.paths, &settings, &mut failures);
    let stdin_count = inputs.iter().filter(|i| matches!(i, Input::Stdin)).count();
    if stdin_count > 1 {
        eprintln!("bdxlint: `-` can be given only once");
        return Ok(EXIT_TROUBLE);
    }
    let forced_kind = args.format.as_deref().and_then(Kind::from_name);
    if stdin_count > 0 && forced_kind.is_some() {
        eprintln!("bdxlint: ZIP bundles cannot be read from standard input; name the file");
        return Ok(EXIT_TROUBLE);
    }
    let opts = Options {
        format: args.format.clone().filter(|_| forced_kind.is_none()),
        // Baselines fingerprint the offending cell's text, held in the snippet.
        snippets: settings.output_format.needs_snippets()
            || args.baseline.is_some()
            || args.write_baseline.is_some(),
        ..Options::default()
    };
    let limits = Limits {
        max_member: args.max_member_size,
        max_total: args.max_total_size,
        max_ratio: args.max_ratio,
    };
    // The entities the relations point at, loaded once for every file.
    let external = if args.entities.is_empty() {
        None
    } else {
        let mut keys = EntityKeys::default();
        for p in &args.entities {
            let loaded =
                std::fs::File::open(p).and_then(|f| refs::collect_entities(f, &opts, &mut keys));
            if let Err(e) = loaded {
                eprintln!("bdxlint: --entities {}: {e}", p.display());
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
        args,
        progress: settings.output_format == OutputFormat::Human && io::stderr().is_terminal(),
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
    if args.baseline.is_none() && args.write_baseline.is_none() {
        // Every report that takes findings as they arrive: the counting
        // ones (whatever the output format) and the streaming writers.
        let color = human_options(args.color);
        if args.statistics {
            let json = settings.output_format == OutputFormat::Json;
            return run.stream(
                &inputs,
                &per_input,
                &settings,
                failures,
                &mut Statistics::new(out, json),
                None,
            );
        }
        if args.quiet && plain {
            return run.stream(
                &inputs,
                &per_input,
                &settings,
                failures,
                &mut Statistics::quiet(out),
                None,
            );
        }
        if StreamWriter::streams(settings.output_format) {
            let mut w = StreamWriter::new(out, settings.output_format, &color)?;
            let max = settings.max_diagnostics;
            return run.stream(&inputs, &per_input, &settings, failures, &mut w, max);
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
        eprintln!("bdxlint: {}", f.reason);
    }
    let human = human_options(args.color);
    // Read the baseline before writing one: `--baseline b --write-baseline b`
    // reports against the old file and leaves the new one.
    let old = match &args.baseline {
        Some(p) => match Baseline::load(p) {
            Ok(b) => Some(b),
            Err(e) => {
                eprintln!("bdxlint: {e}");
                return Ok(EXIT_TROUBLE);
            }
        },
        None => None,
    };
    let written = match &args.write_baseline {
        Some(p) => {
            let b = Baseline::record(&reports);
            if let Err(e) = b.save(p) {
                eprintln!("bdxlint: {e}");
                return Ok(EXIT_TROUBLE);
            }
            let n: u32 = b.findings.iter().map(|e| e.count).sum();
            eprintln!("bdxlint: recorded {n} findings in {}", p.display());
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
    let counting = if args.statistics {
        Some(Statistics::new(&mut *out, format == OutputFormat::Json))
    } else if args.quiet && plain {
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
            eprintln!("bdxlint: {}", report::stale_baseline_note(s.stale_baseline));
        }
        if s.hidden > 0 && format != OutputFormat::Human {
            // Machine formats have no summary line of their own (JSON
            // carries `summary.hidden`): say it where a person sees it.
            eprintln!(
                "bdxlint: {} not shown (--max-diagnostics)",
                if s.hidden == 1 {
                    "1 finding".to_owned()
                } else {
                    format!("{} findings", s.hidden)
                }
            );
        }
    }
    Ok(code)
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
    args: &'a CheckArgs,
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
        self.args.format.as_deref().or(format)
    }

    /// The options for one input: a config override may name its format
    /// (`--format` still wins), and cross-row rules its filter drops keep
    /// no state.
    fn opts_for(&self, format: Option<&str>, filter: &RuleFilter) -> Options {
        let mut opts = self.opts.clone();
        if let Some(f) = self.format_of(format) {
            if self.args.format.is_none() && Kind::from_name(f).is_none() {
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
                    let named = self.args.format.as_deref().or(per_input[index].0);
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
    fn stream(
        &self,
        inputs: &[Input],
        per_input: &[(Option<&str>, RuleFilter)],
        settings: &Settings,
        mut failures: Vec<Failure>,
        w: &mut dyn Report,
        max: Option<usize>,
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
            eprintln!("bdxlint: {}", f.reason);
        }
        t.summary.failures = failures.len();
        t.summary.files += failures.len();
        w.finish(&failures, &t.summary)?;
        if t.summary.hidden > 0 && settings.output_format != OutputFormat::Human {
            eprintln!(
                "bdxlint: {} not shown (--max-diagnostics)",
                if t.summary.hidden == 1 {
                    "1 finding".to_owned()
                } else {
                    format!("{} findings", t.summary.hidden)
                }
            );
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

fn human_options(choice: ColorChoice) -> HumanOptions {
    let color = use_color(choice);
    HumanOptions {
        color,
        unicode: color || io::stdout().is_terminal(),
        width: if io::stdout().is_terminal() { 120 } else { 100 },
    }
}
