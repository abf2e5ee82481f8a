//! The command line: flags (clap derive) and the glue that runs each
//! subcommand, prints, and picks the exit code.

use bdxlint::bundle::{Kind, Limits};
use bdxlint::config::FailOn;
use bdxlint::report::{HumanOptions, OutputFormat};
use bdxlint::run::{self, Request};
use bdxlint::schema;
use bdxlint::select::{self, Level};
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::commands::{self, RulesFormat};
use crate::exit::Failure;

#[derive(Debug, Parser)]
#[command(
    name = "bdxlint",
    version = env!("BDXLINT_VERSION"),
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
        bdxlint formats employees                   the columns of a format\n  \
        bdxlint check --show-files                  what a run would check, as which format, and what it skips\n  \
        bdxlint check --stdin-filename a.csv < f    read standard input as the file a.csv\n  \
        bdxlint completions bash                    a completion script (zsh, fish, powershell too)\n  \
        bdxlint man | man -l -                      the man page\n\n\
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
    /// Print a shell completion script (e.g. `bdxlint completions bash > /etc/bash_completion.d/bdxlint`).
    Completions {
        /// The shell: bash, zsh, fish, powershell or elvish.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page, in roff (`bdxlint man | man -l -`; `bdxlint man check` for check's flags).
    Man {
        /// A subcommand whose page to print (bdxlint-check(1) ...); omit for bdxlint(1).
        #[arg(value_name = "SUBCOMMAND")]
        subcommand: Option<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Files or directories to check [default: .]; `-` reads standard input (format detected from its header, or --format).
    // As ruff: a bare `bdxlint check` at a repository's root checks it,
    // and with --stdin-filename standard input (see `request`).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// The name of the file standard input holds (`-`, or no PATH): findings
    /// name it, its file name helps detect the format, and the bdxlint.toml
    /// nearest it (its per-file-ignores and overrides) applies, as ruff's flag.
    #[arg(long, value_name = "NAME")]
    pub stdin_filename: Option<PathBuf>,

    /// Print the settings resolved for the first PATH (the rules, the
    /// format an override names, the run-wide keys) and the bdxlint.toml
    /// they come from; check nothing.
    #[arg(long, conflicts_with = "show_files")]
    pub show_settings: bool,

    /// Print the files a run would check, each with the format it would be
    /// checked as and why, and the .csv and .zip files a walk skips, each
    /// with why (excluded, hidden, ignored, not a format on strong
    /// evidence...); check nothing.
    #[arg(long)]
    pub show_files: bool,

    /// Check every file as this format instead of detecting it from the header.
    #[arg(long, short = 'f', value_name = "NAME", value_parser = format_names())]
    pub format: Option<String>,

    /// How to print findings [default: human]; `full` and `json-lines`, ruff's names, are accepted.
    #[arg(long, value_enum, value_name = "FORMAT", env = "BDXLINT_OUTPUT_FORMAT")]
    pub output_format: Option<OutputFormatArg>,

    /// Write the report to FILE instead of standard output (whole, or not
    /// at all: it is written beside FILE and renamed over it; a device or
    /// FIFO is written to), and the summary line to standard error. FILE
    /// may not be an input.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output_file: Option<PathBuf>,

    /// Report only these rules: codes, code prefixes (`C`, `J00`), names, or ALL.
    /// Comma-separated or repeated; replaces the config file's `select`.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub select: Vec<String>,

    /// Add these rules to the `select` in force (`--select`'s, or the config's
    /// `select` and `extend-select`); with no `select`, every rule is already on.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub extend_select: Vec<String>,

    /// Never report these rules (codes, prefixes, names); added to the config's `ignore`.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub ignore: Vec<String>,

    /// Ignore rules in some files: `GLOB:RULE[,RULE...]` (the glob relative to
    /// the working directory, read as `exclude` reads). Repeatable; replaces
    /// the config's `[per-file-ignores]`.
    #[arg(long, value_name = "GLOB:RULES")]
    pub per_file_ignores: Vec<String>,

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

    /// Read settings from this file for every input, instead of each file's
    /// nearest bdxlint.toml or .bdxlint.toml (in its directory or above).
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

    /// Take a file named on the command line as a format only on strong
    /// evidence, as a directory walk does (its name names the format, its
    /// header holds the format's required columns, or at least 3 of its
    /// names, half its header, are the format's); any other CSV gets one
    /// unknown-format warning instead of being checked. For callers that
    /// name every CSV they meet, as pre-commit names every staged file
    /// (the hooks pass it).
    #[arg(long)]
    pub strict_detection: bool,

    /// Skip these paths in walks (globs relative to the working directory;
    /// a glob without `/` matches a name at any depth); replaces the
    /// config's `exclude`.
    #[arg(long, value_delimiter = ',', value_name = "GLOB")]
    pub exclude: Option<Vec<String>>,

    /// Skip these paths in walks too, besides the config's `exclude` and
    /// `extend-exclude`.
    #[arg(long, value_delimiter = ',', value_name = "GLOB")]
    pub extend_exclude: Vec<String>,

    /// Walk everything below a directory: by default, walks skip hidden
    /// files and directories, what `.gitignore`, `.ignore` and git's
    /// excludes list, and `node_modules`, `venv`, `.venv` and `.git`. Files
    /// named on the command line are always checked.
    #[arg(long)]
    pub no_ignore: bool,

    /// Walk hidden files and directories too (not `.git` or `.venv`), still
    /// skipping what `.gitignore` and `.ignore` list, as ripgrep's --hidden.
    #[arg(long)]
    pub hidden: bool,

    /// Report only findings this baseline file does not record, and count
    /// its entries that no longer occur.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Record the current findings in this file (then report as if it were
    /// the --baseline: nothing new, exit 0).
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,

    /// When to colour the human output (`auto` honours FORCE_COLOR, NO_COLOR, CLICOLOR_FORCE, CLICOLOR and TERM=dumb, in that order).
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

    // Last: its heading applies to what follows it in the help.
    #[command(flatten)]
    pub fixing: crate::repair_flags::FixArgs,
}

/// `--output-format`: the library's [`OutputFormat`] as clap reads it (the
/// library's types know nothing of clap). The doc comments are the help.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormatArg {
    /// Source snippets with a caret under the offending cell.
    #[value(alias = "full")]
    Human,
    /// One line per finding: `path:line:col: CODE [severity] message`.
    Concise,
    /// One JSON document (the stable contract documented in the README).
    Json,
    /// One JSON object per finding per line (the `json` diagnostic plus `path`).
    #[value(alias = "json-lines")]
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
    /// One self-contained HTML page (counts, charts, samples; opens offline).
    Html,
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
            OutputFormatArg::Html => OutputFormat::Html,
        }
    }
}

/// The way back, exhaustive too: a library format the flag lacks does not
/// compile (the tests below hold the names of both to each other).
impl From<OutputFormat> for OutputFormatArg {
    fn from(f: OutputFormat) -> OutputFormatArg {
        match f {
            OutputFormat::Human => OutputFormatArg::Human,
            OutputFormat::Concise => OutputFormatArg::Concise,
            OutputFormat::Json => OutputFormatArg::Json,
            OutputFormat::Jsonl => OutputFormatArg::Jsonl,
            OutputFormat::Sarif => OutputFormatArg::Sarif,
            OutputFormat::Github => OutputFormatArg::Github,
            OutputFormat::Gitlab => OutputFormatArg::Gitlab,
            OutputFormat::Junit => OutputFormatArg::Junit,
            OutputFormat::Rdjsonl => OutputFormatArg::Rdjsonl,
            OutputFormat::Html => OutputFormatArg::Html,
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

fn parse_severity(arg: &str) -> Result<(String, Level), select::SelectorError> {
    select::parse_severity(arg)
}

fn format_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(schema::format_names().chain(Kind::NAMES))
}

/// Runs the command and returns the exit code; `main.rs` says why a
/// command failed.
pub fn run(cli: Cli) -> Result<u8, Failure> {
    // Not locked once for the whole run: `check` writes from a thread of
    // its pool, and a lock guard cannot move there (the buffer in front
    // makes each write to the stream a large one).
    let mut out = io::BufWriter::new(ClosedPipe::new(io::stdout()));
    let code = match cli.command {
        Command::Check(args) if args.show_settings => {
            run::show_settings(&request(&args), &mut out, &mut io::stderr())?
        }
        Command::Check(args) if args.show_files => {
            run::show_files(&request(&args), &mut out, &mut io::stderr())?
        }
        Command::Check(args) => match &args.output_file {
            None => run::check(&request(&args), &mut out, &mut io::stderr())?,
            Some(path) => check_to_file(&args, path, &mut out)?,
        },
        Command::Explain { rule } => commands::explain(&rule, &mut out)?,
        Command::Rules { output_format } => commands::rules(output_format, &mut out)?,
        Command::Formats {
            name,
            output_format,
        } => commands::formats(name.as_deref(), output_format, &mut out)?,
        Command::Template { format, example } => commands::template(&format, example, &mut out)?,
        Command::Completions { shell } => {
            commands::completions(shell, &mut Cli::command(), &mut out)?
        }
        Command::Man { subcommand } => {
            commands::man(Cli::command(), subcommand.as_deref(), &mut out)?
        }
    };
    out.flush()?;
    Ok(code)
}

fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            let set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
            // force-color.org's reference code sets colour from FORCE_COLOR
            // after NO_COLOR: a variable set for one command
            // (`FORCE_COLOR=1 bdxlint check . | less -R`) beats one exported
            // for every program. CLICOLOR_FORCE keeps bixense's order, under
            // NO_COLOR.
            if set("FORCE_COLOR") {
                true
            } else if set("NO_COLOR") {
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

/// Standard output that a reader may close (`bdxlint check ... | head`):
/// once it is closed, the rest of the output is dropped and the run goes
/// on, so the exit status is still the run's (findings, or a file that
/// could not be checked), never a success it did not earn.
struct ClosedPipe<W> {
    inner: W,
    closed: bool,
}

impl<W: Write> ClosedPipe<W> {
    fn new(inner: W) -> Self {
        ClosedPipe {
            inner,
            closed: false,
        }
    }
}

impl<W: Write> Write for ClosedPipe<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(buf.len())
            }
            other => other,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.inner.flush() {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            other => other,
        }
    }
}

/// `check --output-file`: the library writes the report to the file
/// (`bdxlint::output`: beside it and renamed over it once whole, or in
/// place for a device or FIFO), after making sure it is not an input; the
/// summary line goes to standard error.
fn check_to_file(args: &CheckArgs, path: &Path, out: &mut (dyn Write + Send)) -> io::Result<u8> {
    let mut req = request(args);
    req.output_file = Some(path.to_path_buf());
    req.summary_to_err = true;
    // A file is not a terminal: colour only when asked for.
    req.human = HumanOptions {
        color: args.color == ColorChoice::Always,
        unicode: args.color == ColorChoice::Always,
        width: 100,
    };
    run::check(&req, out, &mut io::stderr())
}

/// The run `bdxlint check` asks for: the flags as plain data, with what
/// only the binary knows (colour, terminals) decided here.
fn request(args: &CheckArgs) -> Request {
    // No PATH: the working directory, as ruff; standard input when it has
    // a name, as ruff reads it then.
    let paths = match (args.paths.is_empty(), &args.stdin_filename) {
        (false, _) => args.paths.clone(),
        (true, Some(_)) => vec![PathBuf::from("-")],
        (true, None) => vec![PathBuf::from(".")],
    };
    Request {
        paths,
        stdin_filename: args.stdin_filename.clone(),
        format: args.format.clone(),
        output_format: args.output_format.map(OutputFormat::from),
        select: args.select.clone(),
        extend_select: args.extend_select.clone(),
        per_file_ignores: args.per_file_ignores.clone(),
        ignore: args.ignore.clone(),
        severity: args.severity.clone(),
        fail_on: args.fail_on.map(FailOn::from),
        exit_zero: args.exit_zero,
        max_diagnostics: args.max_diagnostics,
        statistics: args.statistics,
        quiet: args.quiet,
        config: args.config.clone(),
        isolated: args.isolated,
        exclude: args.exclude.clone(),
        extend_exclude: args.extend_exclude.clone(),
        force_exclude: args.force_exclude,
        strict_detection: args.strict_detection,
        no_ignore: args.no_ignore,
        hidden: args.hidden,
        baseline: args.baseline.clone(),
        write_baseline: args.write_baseline.clone(),
        output_file: None,
        threads: args.threads,
        entities: args.entities.clone(),
        limits: Limits {
            max_member: args.max_member_size,
            max_total: args.max_total_size,
            max_ratio: args.max_ratio,
        },
        human: human_options(args.color),
        progress: io::stderr().is_terminal(),
        summary_to_err: false,
        fix: args.fixing.request(),
        unsafe_fixes: args.fixing.unsafe_fixes,
        split: args.fixing.split(),
    }
}

/// The one line that says what a mistaken flag meant, when clap's error is
/// one of the mistakes users of other linters make: `--format json` (the
/// output's format is `--output-format`; `--format` names the files'), or
/// `--format` to a listing command, which has only `--output-format`.
pub fn misused_flag(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = |k| match e.get(k) {
        Some(ContextValue::String(s)) => Some(s.as_str()),
        _ => None,
    };
    let arg = text(ContextKind::InvalidArg)?;
    match e.kind() {
        ErrorKind::InvalidValue if arg.starts_with("--format") => {
            let value = text(ContextKind::InvalidValue)?;
            let f = OutputFormat::from(OutputFormatArg::from_str(value, true).ok()?);
            Some(format!(
                "--format {value:?} names no CSV format: --format is the files' format \
                 (`bdxlint formats` lists them); for {} output, use --output-format {}",
                f.name(),
                f.name()
            ))
        }
        ErrorKind::UnknownArgument if arg == "--format" || arg.starts_with("--format=") => {
            Some("unexpected --format: the output's format is --output-format".to_owned())
        }
        _ => None,
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

#[cfg(test)]
mod output_format_names {
    use super::OutputFormatArg;
    use bdxlint::report::OutputFormat;
    use clap::ValueEnum;

    /// Every value of `--output-format` (clap derives the list) is a
    /// library format under the same name and aliases, and maps back; with
    /// both conversions exhaustive, `OutputFormat::ALL` is then every
    /// format.
    #[test]
    fn every_flag_value_is_a_library_format_and_back() {
        let args = OutputFormatArg::value_variants();
        assert_eq!(args.len(), OutputFormat::ALL.len());
        for a in args {
            let f = OutputFormat::from(*a);
            assert_eq!(OutputFormatArg::from(f), *a);
            assert!(OutputFormat::ALL.contains(&f), "{f:?}");
            let v = a.to_possible_value().expect("every value is listed");
            assert_eq!(v.get_name(), f.name());
            let aliases: Vec<&str> = v.get_name_and_aliases().skip(1).collect();
            assert_eq!(aliases, f.aliases(), "{f:?}");
        }
    }
}
