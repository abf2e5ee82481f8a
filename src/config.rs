//! `bdxlint.toml`: the settings of `check`, kept in the repository.
//!
//! Found by walking up from each checked file's directory (`bdxlint.toml`,
//! then `.bdxlint.toml`, in each directory; the nearest wins; see
//! `run/settings.rs`), or named with `--config FILE`. Every key is checked: an unknown key is an error naming
//! it and its line and column (serde `deny_unknown_fields`, located by the
//! `toml` parser), because a misspelt `ignore` that silently does nothing is
//! worse than a failed run. Command-line flags override the file.
//!
//! ```toml
//! select = ["C", "H", "Q"]            # codes, code prefixes, names, ALL
//! extend-select = ["X005"]           # added to select (`--select` too)
//! ignore = ["X005"]
//! fail-on = "error"                   # or "warning"
//! output-format = "concise"
//! max-diagnostics = 50
//! exclude = ["fixtures", "exports/old/**"]   # skipped by directory walks
//! extend-exclude = ["*.draft.csv"]  # also when `--exclude` replaces it
//! force-exclude = true                # ...and when named (pre-commit)
//! [per-file-ignores]                  # globs read as `exclude` reads them
//! "exports/legacy/*.csv" = ["C004", "X"]
//! [severity]
//! C015 = "off"                        # off | info | warning | error
//!
//! [[overrides]]                       # globs relative to this file's directory
//! paths = ["exports/legacy_*.csv"]
//! format = "entitlements"             # a bundle kind for ZIP files
//! ignore = ["H003"]
//! ```
//!
//! An override matches the path of a file on disk; for a ZIP bundle that
//! is the archive, and its settings apply to the archive's own findings and
//! to every member (member names mean nothing to the platform, so they are
//! not matched).

use crate::bounded_read::{read_bounded, ReadError, MAX_CONFIG_BYTES};
use crate::report::{display_path, OutputFormat};
use crate::select::{self, Level, RuleFilter};
use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// The file names looked for, in order, in each directory.
pub const FILE_NAMES: [&str; 2] = ["bdxlint.toml", ".bdxlint.toml"];

/// `fail-on`: the lowest severity that fails a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    Error,
    Warning,
}

/// A string as written, with its byte range in the file, so that a value
/// that parses but means nothing (a selector naming no rule, a bad glob)
/// is reported at its place like a syntax error.
type Str = toml::Spanned<String>;

/// The file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Raw {
    select: Option<Vec<Str>>,
    #[serde(default)]
    extend_select: Vec<Str>,
    #[serde(default)]
    ignore: Vec<Str>,
    #[serde(default)]
    severity: BTreeMap<Str, Level>,
    fail_on: Option<FailOn>,
    output_format: Option<OutputFormat>,
    max_diagnostics: Option<usize>,
    #[serde(default)]
    exclude: Vec<Str>,
    #[serde(default)]
    extend_exclude: Vec<Str>,
    force_exclude: Option<bool>,
    #[serde(default)]
    per_file_ignores: BTreeMap<Str, Vec<Str>>,
    #[serde(default)]
    overrides: Vec<RawOverride>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawOverride {
    paths: toml::Spanned<Vec<Str>>,
    format: Option<Str>,
    #[serde(default)]
    ignore: Vec<Str>,
    #[serde(default)]
    severity: BTreeMap<Str, Level>,
}

fn strings(v: Vec<Str>) -> Vec<String> {
    v.into_iter().map(toml::Spanned::into_inner).collect()
}

/// The most characters of a config's line an error quotes.
const EXCERPT: usize = 80;
/// The most characters of an error's message: the parser's and ours quote
/// keys and values of the file.
const MESSAGE: usize = 300;

/// The 1-based line and column (in characters) of byte `at` of `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let at = floor_char(text, at.min(text.len()));
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    (
        text[..at].matches('\n').count() + 1,
        text[line_start..at].chars().count() + 1,
    )
}

/// `at`, or the start of the character it falls in.
fn floor_char(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `message` about the bytes `span` of `text`, in the shape of the toml
/// parser's own errors: the line and column, an excerpt of the line with a
/// caret under the value, then the message. The excerpt is at most
/// [`EXCERPT`] characters of that one line around the value, control
/// characters escaped (`\x1b`): a config's bytes never reach the terminal
/// as they are, nor more than a short piece of them.
fn located(text: &str, span: std::ops::Range<usize>, message: &str) -> String {
    let start = floor_char(text, span.start.min(text.len()));
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let (line_no, col) = line_col(text, start);
    let chars: Vec<char> = text[line_start..line_end]
        .trim_end_matches('\r')
        .chars()
        .collect();
    let at = (col - 1).min(chars.len());
    let width = text[start..floor_char(text, span.end.clamp(start, line_end))]
        .chars()
        .count()
        .max(1);
    // A window of the line that holds the value's start, a little of what
    // leads to it first.
    let from = if chars.len() <= EXCERPT {
        0
    } else {
        at.saturating_sub(EXCERPT / 4).min(chars.len() - EXCERPT)
    };
    let to = (from + EXCERPT).min(chars.len());
    let mut shown = String::new();
    if from > 0 {
        shown.push_str("...");
    }
    let (mut caret_at, mut carets) = (None, 0);
    for (i, c) in (from..to).zip(&chars[from..to]) {
        if i == at {
            caret_at = Some(shown.chars().count());
        }
        let piece = crate::report::printable(c.encode_utf8(&mut [0; 4])).into_owned();
        if (at..at + width).contains(&i) {
            carets += piece.chars().count();
        }
        shown.push_str(&piece);
    }
    // A value at the end of its line (or of the file).
    let caret_at = caret_at.unwrap_or_else(|| shown.chars().count());
    if to < chars.len() {
        shown.push_str("...");
    }
    let gutter = " ".repeat(line_no.to_string().len());
    format!(
        "invalid value at line {line_no}, column {col}\n{gutter} |\n{line_no} | {shown}\n{gutter} | {}{}\n{}",
        " ".repeat(caret_at),
        "^".repeat(carets.max(1)),
        crate::report::excerpt(message, MESSAGE)
    )
}

/// An error of the TOML parser, or of the file's shape (an unknown key, a
/// value of the wrong type), said without quoting the file: it may not be a
/// config at all (a link to a credentials file, `/proc/self/environ`), and
/// the parser's own message quotes the whole line. Its place and its
/// message, escaped and cut short, are enough to find it.
fn unquoted(text: &str, e: &toml::de::Error) -> String {
    let message = crate::report::excerpt(e.message(), MESSAGE);
    match e.span() {
        Some(span) => {
            let (line, col) = line_col(text, span.start);
            format!("TOML parse error at line {line}, column {col}: {message}")
        }
        None => format!("TOML parse error: {message}"),
    }
}

/// A loaded, checked configuration.
#[derive(Debug)]
pub struct Config {
    /// Its directory: override globs are relative to it.
    pub(crate) root: PathBuf,
    /// `select`, when the file sets it.
    pub(crate) select: Option<Vec<String>>,
    /// `extend-select`: added to `select` (the file's, or `--select`'s
    /// when that replaces it, as ruff has it).
    pub(crate) extend_select: Vec<String>,
    pub(crate) ignore: Vec<String>,
    /// Ordered from least to most specific selector, so `C = "warning"`
    /// and `C004 = "off"` mean what they say in either order.
    pub(crate) severity: Vec<(String, Level)>,
    pub(crate) fail_on: Option<FailOn>,
    pub(crate) output_format: Option<OutputFormat>,
    pub(crate) max_diagnostics: Option<usize>,
    /// Paths a directory walk skips (and, with `force-exclude`, named
    /// paths too); `--exclude` replaces it.
    pub(crate) exclude: Arc<Exclude>,
    /// `extend-exclude`: skipped as well, whatever `--exclude` says.
    pub(crate) extend_exclude: Arc<Exclude>,
    pub(crate) force_exclude: Option<bool>,
    /// `[per-file-ignores]`: rules ignored in the files a glob covers.
    pub(crate) per_file_ignores: Arc<PerFileIgnores>,
    pub overrides: Vec<Override>,
}

/// The most globs one config may hold (`exclude`, `extend-exclude`,
/// `[per-file-ignores]` and every override's `paths`), and the most
/// `--per-file-ignores` flags: each set of them is compiled once, but a
/// set of many patterns costs memory and time to build (1,024 globs of a
/// path with `*` about 12 MB and 0.15 s; 4,096, 50 MB and 0.9 s).
pub const MAX_GLOBS: usize = 1024;

/// The longest glob: a path pattern of real use is tens of bytes.
pub const MAX_GLOB_BYTES: usize = 1024;

/// The most `{...}` alternatives one glob holds (each `{` and each `,`
/// inside one): every alternative multiplies what the set compiles, and
/// a thousand globs of 20 groups of 10 took more memory than a run has.
pub const MAX_GLOB_ALTERNATIVES: usize = 64;

/// The most globs a run compiles, over every config it reads (each
/// directory may have its own) and the `--exclude`, `--extend-exclude`
/// and `--per-file-ignores` flags: a bound of 1,024 a config alone let 40
/// configs take 300 MB.
pub const MAX_RUN_GLOBS: usize = 4096;

/// The most bytes of glob text a run compiles, over the same globs.
pub const MAX_RUN_GLOB_BYTES: usize = 256 << 10;

/// Why one glob is refused before it is compiled: too long, or of too
/// many alternatives.
pub(crate) fn glob_too_large(glob: &str) -> Option<String> {
    if glob.len() > MAX_GLOB_BYTES {
        return Some(format!(
            "a glob of {} bytes, longer than the {MAX_GLOB_BYTES} a glob may take",
            glob.len()
        ));
    }
    let (mut depth, mut alternatives, mut escaped) = (0usize, 0usize, false);
    for b in glob.bytes() {
        match b {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'{' => {
                depth += 1;
                alternatives += 1;
            }
            b'}' => depth = depth.saturating_sub(1),
            b',' if depth > 0 => alternatives += 1,
            _ => {}
        }
    }
    (alternatives > MAX_GLOB_ALTERNATIVES).then(|| {
        format!(
            "a glob of {alternatives} `{{...}}` alternatives, more than the {MAX_GLOB_ALTERNATIVES} a glob may hold; write several simpler globs"
        )
    })
}

/// What is left of a run's globs ([`MAX_RUN_GLOBS`], [`MAX_RUN_GLOB_BYTES`])
/// as its configs are read: each takes its share before any of its globs
/// is compiled. Configs are found by a walk in one thread, in the same
/// order at any thread count, so the same one is refused every time.
#[derive(Debug, Default)]
pub(crate) struct GlobBudget {
    /// Globs and bytes taken.
    used: std::sync::Mutex<(usize, usize)>,
}

impl GlobBudget {
    /// Takes `globs` globs of `bytes` bytes; `false`, and nothing taken,
    /// when they are more than is left.
    pub(crate) fn take(&self, globs: usize, bytes: usize) -> bool {
        let mut used = self
            .used
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (g, b) = (used.0 + globs, used.1 + bytes);
        let fits = g <= MAX_RUN_GLOBS && b <= MAX_RUN_GLOB_BYTES;
        if fits {
            *used = (g, b);
        }
        fits
    }
}

/// Why globs are refused by [`GlobBudget::take`], naming the bound.
pub(crate) fn over_budget(globs: usize, bytes: usize) -> String {
    format!(
        "{globs} globs of {bytes} bytes, more than is left of the {MAX_RUN_GLOBS} globs and {} KiB a run compiles over all its configs and its --exclude, --extend-exclude and --per-file-ignores flags; use fewer configs (one covers every directory below it) or fewer, broader globs",
        MAX_RUN_GLOB_BYTES >> 10
    )
}

/// `[per-file-ignores]` (or the `--per-file-ignores` flags): rules ignored
/// in the files a glob covers, read as `exclude` reads (a name at any
/// depth, or a path from the root; a directory covers what lies below it).
/// Every glob is compiled into one set, matched once for each directory of
/// a file's path, whatever their number (a set per glob took 335 MB for a
/// table of 1 MiB, and 70 ms a file).
#[derive(Debug, Default)]
pub(crate) struct PerFileIgnores {
    root: PathBuf,
    patterns: Patterns,
    /// Each glob as written, and the rules it ignores, in order.
    pub(crate) entries: Vec<(String, Vec<String>)>,
}

impl PerFileIgnores {
    /// Compiles `entries` (glob, rules), relative to `root`; `Err` holds
    /// the index of the glob that is not one, and why.
    fn new(root: &Path, entries: Vec<(String, Vec<String>)>) -> Result<Self, (usize, String)> {
        let patterns = Patterns::new(entries.iter().map(|(g, _)| g.as_str()))?;
        Ok(PerFileIgnores {
            root: root.to_path_buf(),
            patterns,
            entries,
        })
    }

    /// `--per-file-ignores GLOB:RULE,...` flags, the globs relative to
    /// `cwd`. A glob ends at the last `:`, since no rule selector holds one.
    pub(crate) fn parse(args: &[String], cwd: &Path) -> Result<PerFileIgnores, ConfigError> {
        if args.len() > MAX_GLOBS {
            return Err(ConfigError::TooManyFlags { count: args.len() });
        }
        let mut entries = Vec::with_capacity(args.len());
        for arg in args {
            let bad = |problem: String| ConfigError::PerFileIgnores {
                arg: arg.to_owned(),
                problem,
            };
            let (glob, rules) = arg
                .rsplit_once(':')
                .ok_or_else(|| bad("expected GLOB:RULE[,RULE...]".to_owned()))?;
            let rules: Vec<String> = rules
                .split(',')
                .map(|r| r.trim().to_owned())
                .filter(|r| !r.is_empty())
                .collect();
            if rules.is_empty() {
                return Err(bad("name at least one rule after `:`".to_owned()));
            }
            for r in &rules {
                select::validate(r).map_err(|e| bad(e.to_string()))?;
            }
            entries.push((glob.to_owned(), rules));
        }
        PerFileIgnores::new(cwd, entries).map_err(|(i, problem)| ConfigError::PerFileIgnores {
            arg: args.get(i).cloned().unwrap_or_default(),
            problem,
        })
    }

    /// The rules ignored in `file` (as given, relative to `cwd` unless
    /// absolute), in the order of the globs that cover it.
    pub(crate) fn ignored_in(&self, file: &Path, cwd: &Path) -> Vec<String> {
        if self.entries.is_empty() {
            return Vec::new();
        }
        let Some(rel) = relative(file, cwd, &self.root) else {
            return Vec::new();
        };
        let mut hits = Vec::new();
        for a in rel.ancestors() {
            self.patterns.matches_into(a, &mut hits);
        }
        hits.sort_unstable();
        hits.dedup();
        hits.iter()
            .flat_map(|&i| self.entries[i].1.iter().cloned())
            .collect()
    }
}

/// Globs read as `exclude` reads them, compiled into two sets: those
/// without `/` match a name, the others a path from the root.
#[derive(Debug, Default, Clone)]
struct Patterns {
    names: Option<GlobSet>,
    /// The index, among the patterns given, of each glob of `names`.
    names_of: Vec<usize>,
    paths: Option<GlobSet>,
    paths_of: Vec<usize>,
}

impl Patterns {
    fn new<'p>(patterns: impl IntoIterator<Item = &'p str>) -> Result<Patterns, (usize, String)> {
        let (mut names, mut paths) = (GlobSetBuilder::new(), GlobSetBuilder::new());
        let (mut names_of, mut paths_of) = (Vec::new(), Vec::new());
        for (i, p) in patterns.into_iter().enumerate() {
            if let Some(why) = glob_too_large(p) {
                return Err((i, why));
            }
            let p = p.trim_end_matches('/');
            let glob = Glob::new(p).map_err(|e| (i, e.to_string()))?;
            if p.contains('/') {
                paths.add(glob);
                paths_of.push(i);
            } else {
                names.add(glob);
                names_of.push(i);
            }
        }
        let build = |b: GlobSetBuilder, of: &[usize]| -> Result<Option<GlobSet>, (usize, String)> {
            if of.is_empty() {
                return Ok(None);
            }
            // No one glob is to blame: `usize::MAX` names none.
            b.build().map(Some).map_err(|e| {
                (
                    usize::MAX,
                    format!("the globs together are too complex to compile ({e}); use fewer, simpler globs"),
                )
            })
        };
        Ok(Patterns {
            names: build(names, &names_of)?,
            paths: build(paths, &paths_of)?,
            names_of,
            paths_of,
        })
    }

    fn is_match(&self, rel: &Path) -> bool {
        !rel.as_os_str().is_empty()
            && (self.paths.as_ref().is_some_and(|g| g.is_match(rel))
                || self
                    .names
                    .as_ref()
                    .zip(rel.file_name())
                    .is_some_and(|(g, n)| g.is_match(n)))
    }

    /// Adds the index of every pattern that matches `rel` itself to `hits`.
    fn matches_into(&self, rel: &Path, hits: &mut Vec<usize>) {
        if rel.as_os_str().is_empty() {
            return;
        }
        if let Some(g) = &self.paths {
            hits.extend(g.matches(rel).into_iter().map(|i| self.paths_of[i]));
        }
        if let (Some(g), Some(n)) = (&self.names, rel.file_name()) {
            hits.extend(g.matches(n).into_iter().map(|i| self.names_of[i]));
        }
    }
}

/// `exclude`, as ruff reads it: a pattern without `/` matches a file or
/// directory name anywhere below its root (`fixtures`, `*_broken.csv`); a
/// pattern with `/` matches the path relative to the root
/// (`exports/old/**`). A file is covered when it or any directory above it
/// (up to the root) matches. The root is the config file's directory for
/// its globs, the working directory for the command line's.
#[derive(Debug, Default, Clone)]
pub(crate) struct Exclude {
    root: PathBuf,
    patterns: Patterns,
}

impl Exclude {
    /// Compiles `patterns`, relative to `root`; `Err` holds the index of
    /// the pattern that is not a glob, and why.
    pub(crate) fn new<'p>(
        root: &Path,
        patterns: impl IntoIterator<Item = &'p str>,
    ) -> Result<Exclude, (usize, String)> {
        Ok(Exclude {
            root: root.to_path_buf(),
            patterns: Patterns::new(patterns)?,
        })
    }

    /// Whether the patterns cover `path` (as given, relative to `cwd`
    /// unless absolute) or a directory above it. Paths outside the root
    /// never are.
    pub(crate) fn covers(&self, path: &Path, cwd: &Path) -> bool {
        relative(path, cwd, &self.root)
            .is_some_and(|rel| rel.ancestors().any(|a| self.patterns.is_match(a)))
    }

    /// Whether the patterns name `path` itself, for a directory walk: it
    /// prunes excluded directories as it meets them, and below a directory
    /// the user named, only what lies under it is matched.
    pub(crate) fn names_entry(&self, path: &Path, cwd: &Path) -> bool {
        relative(path, cwd, &self.root).is_some_and(|rel| self.patterns.is_match(&rel))
    }
}

/// `[[overrides]]`: settings for the files matching `paths`.
#[derive(Debug)]
pub struct Override {
    pub(crate) globs: GlobSet,
    pub(crate) format: Option<String>,
    pub(crate) ignore: Vec<String>,
    pub(crate) severity: Vec<(String, Level)>,
}

/// A configuration that cannot be used; the message names the file (and,
/// for a parse error, the line, column and key).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A discovered config whose link leads nowhere.
    #[error("{}: cannot be resolved ({error}): not read; a bdxlint.toml that is a symbolic link must lead to a file inside its repository", display_path(.path))]
    Unresolved { path: PathBuf, error: io::Error },
    /// A discovered config that links out of its tree (`what`: its
    /// repository or its directory, `tree`).
    #[error("{}: a symbolic link to a file outside {what} ({}): not read; configs found by discovery follow no link out of the tree, so name the file with --config to use it", display_path(.path), display_path(.tree))]
    LinkOut {
        path: PathBuf,
        what: &'static str,
        tree: PathBuf,
    },
    #[error("{}: {error}", display_path(.path))]
    Read { path: PathBuf, error: ReadError },
    /// Not a valid config: the message says where (and quotes at most an
    /// escaped excerpt, on lines of its own).
    #[error("{}: {message}", display_path(.path))]
    Invalid { path: PathBuf, message: String },
    /// `--per-file-ignores ARG` that does not read as `GLOB:RULE,...`.
    #[error("--per-file-ignores {arg:?}: {problem}")]
    PerFileIgnores { arg: String, problem: String },
    /// More `--per-file-ignores` flags than [`MAX_GLOBS`].
    #[error("--per-file-ignores: {count} flags, more than the {MAX_GLOBS} globs a run may give; put them in a bdxlint.toml's [per-file-ignores] with fewer globs (a glob may cover a directory)")]
    TooManyFlags { count: usize },
}

/// Orders a severity map from least to most specific selector (`ALL`, then
/// shorter codes), so the more specific one is applied last and wins.
fn ordered(map: BTreeMap<Str, Level>) -> Vec<(String, Level)> {
    let mut v: Vec<(String, Level)> = map.into_iter().map(|(k, l)| (k.into_inner(), l)).collect();
    v.sort_by_key(|(s, _)| (!s.eq_ignore_ascii_case("all"), s.len()));
    v
}

impl Config {
    /// Finds the nearest config file at or above `dir`.
    pub(crate) fn discover(dir: &Path) -> Option<PathBuf> {
        dir.ancestors().find_map(in_dir)
    }

    /// Reads and checks the file at `path` (`--config`: whatever it is, the
    /// user named it).
    /// Its globs are taken from the run's `budget`.
    pub(crate) fn load(path: &Path, budget: &GlobBudget) -> Result<Config, ConfigError> {
        Config::load_from(path, path, budget)
    }

    /// Reads and checks a config file that discovery found (`path`, as
    /// [`Config::discover`] or [`in_dir`] gave it): one that is a symbolic
    /// link, or lies below one, is read only if it resolves inside the
    /// repository that holds it, or, outside any repository, inside its own
    /// directory. A checked-in `bdxlint.toml` linking to a file of the
    /// machine (`/proc/self/environ`, a credentials file) is an error that
    /// reads nothing of it.
    pub(crate) fn load_discovered(path: &Path, budget: &GlobBudget) -> Result<Config, ConfigError> {
        let target = std::fs::canonicalize(path).map_err(|error| ConfigError::Unresolved {
            path: path.to_path_buf(),
            error,
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let repository = dir
            .ancestors()
            .find(|a| std::fs::symlink_metadata(a.join(".git")).is_ok());
        let tree = repository.unwrap_or(dir);
        let inside = std::fs::canonicalize(tree).is_ok_and(|t| target.starts_with(t));
        if !inside {
            let what = if repository.is_some() {
                "its repository"
            } else {
                "its directory"
            };
            return Err(ConfigError::LinkOut {
                path: path.to_path_buf(),
                what,
                tree: tree.to_path_buf(),
            });
        }
        // The file resolved and checked, not the path again.
        Config::load_from(&target, path, budget)
    }

    /// Reads the file at `file` and checks it as the config `path`.
    fn load_from(file: &Path, path: &Path, budget: &GlobBudget) -> Result<Config, ConfigError> {
        let text = read_bounded(file, MAX_CONFIG_BYTES).map_err(|error| ConfigError::Read {
            path: path.to_path_buf(),
            error,
        })?;
        Config::parse_within(&text, path, budget)
    }

    /// Parses and checks config text; `path` names it in errors and anchors
    /// the override globs. Errors quote at most a short excerpt of a value's
    /// line, escaped, and only once the file has parsed as TOML with no key
    /// a config does not have: nothing of a file that is not a config.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        Config::parse_within(text, path, &GlobBudget::default())
    }

    /// [`Config::parse`], its globs taken from a run's `budget` before any
    /// is compiled.
    pub(crate) fn parse_within(
        text: &str,
        path: &Path,
        budget: &GlobBudget,
    ) -> Result<Config, ConfigError> {
        let at = |message: String| ConfigError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let de = toml::de::Deserializer::parse(text).map_err(|e| at(unquoted(text, &e)))?;
        let raw = Raw::deserialize(de).map_err(|e| {
            // An unknown key says nothing of whether the file is a config.
            match e.span() {
                Some(span) if !e.message().starts_with("unknown field") => {
                    at(located(text, span, e.message()))
                }
                _ => at(unquoted(text, &e)),
            }
        })?;
        // Counted before any is compiled.
        let globs = raw.exclude.len()
            + raw.extend_exclude.len()
            + raw.per_file_ignores.len()
            + raw
                .overrides
                .iter()
                .map(|o| o.paths.get_ref().len())
                .sum::<usize>();
        if globs > MAX_GLOBS {
            return Err(at(format!(
                "{globs} globs (exclude, extend-exclude, per-file-ignores and the overrides' paths), more than the {MAX_GLOBS} a config may hold; use fewer, broader globs (a glob may cover a directory)"
            )));
        }
        let bad = |v: &Str, msg: String| at(located(text, v.span(), &msg));
        let every_glob = || {
            raw.exclude
                .iter()
                .chain(&raw.extend_exclude)
                .chain(raw.per_file_ignores.keys())
                .chain(raw.overrides.iter().flat_map(|o| o.paths.get_ref()))
        };
        for g in every_glob() {
            if let Some(why) = glob_too_large(g.get_ref()) {
                return Err(bad(g, why));
            }
        }
        let bytes = every_glob().map(|g| g.get_ref().len()).sum();
        if !budget.take(globs, bytes) {
            return Err(at(over_budget(globs, bytes)));
        }
        let check = |sel: &Str, key: &str| {
            select::validate(sel.get_ref()).map_err(|e| bad(sel, format!("{key}: {e}")))
        };
        for s in raw.select.iter().flatten() {
            check(s, "select")?;
        }
        for s in &raw.extend_select {
            check(s, "extend-select")?;
        }
        for s in &raw.ignore {
            check(s, "ignore")?;
        }
        for s in raw.severity.keys() {
            check(s, "severity")?;
        }
        let root = path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let globs = |list: &[Str], key: &str| {
            Exclude::new(&root, list.iter().map(|g| g.get_ref().as_str())).map_err(|(i, e)| {
                match list.get(i) {
                    Some(g) => bad(g, format!("{key}: {e}")),
                    None => at(format!("{key}: {e}")),
                }
            })
        };
        let exclude = globs(&raw.exclude, "exclude")?;
        let extend_exclude = globs(&raw.extend_exclude, "extend-exclude")?;
        let mut keys = Vec::with_capacity(raw.per_file_ignores.len());
        let mut entries = Vec::with_capacity(raw.per_file_ignores.len());
        for (glob, rules) in raw.per_file_ignores {
            for r in &rules {
                check(r, &format!("per-file-ignores.{:?}", glob.get_ref()))?;
            }
            entries.push((glob.get_ref().clone(), strings(rules)));
            keys.push(glob);
        }
        let per_file_ignores =
            PerFileIgnores::new(&root, entries).map_err(|(i, e)| match keys.get(i) {
                Some(g) => bad(g, format!("per-file-ignores: {e}")),
                None => at(format!("per-file-ignores: {e}")),
            })?;
        let mut overrides = Vec::new();
        for (i, o) in raw.overrides.into_iter().enumerate() {
            let key = format!("overrides[{i}]");
            if o.paths.get_ref().is_empty() {
                let msg = format!("{key}.paths: give at least one glob");
                return Err(at(located(text, o.paths.span(), &msg)));
            }
            let mut set = GlobSetBuilder::new();
            for g in o.paths.get_ref() {
                set.add(Glob::new(g.get_ref()).map_err(|e| bad(g, format!("{key}.paths: {e}")))?);
            }
            if let Some(f) = &o.format {
                // A bundle kind maps ZIP files as `--format entity-rbac` does.
                let known = crate::schema::format_names()
                    .chain(crate::bundle::Kind::NAMES)
                    .any(|n| n == f.get_ref());
                if !known {
                    return Err(bad(
                        f,
                        format!(
                            "{key}.format: no format {:?}; `bdxlint formats` lists them",
                            f.get_ref()
                        ),
                    ));
                }
            }
            for s in &o.ignore {
                check(s, &format!("{key}.ignore"))?;
            }
            for s in o.severity.keys() {
                check(s, &format!("{key}.severity"))?;
            }
            overrides.push(Override {
                globs: set.build().map_err(|e| {
                    at(format!(
                        "{key}.paths: the globs together are too complex to compile ({e}); use fewer, simpler globs"
                    ))
                })?,
                format: o.format.map(toml::Spanned::into_inner),
                ignore: strings(o.ignore),
                severity: ordered(o.severity),
            });
        }
        Ok(Config {
            root,
            select: raw.select.map(strings),
            extend_select: strings(raw.extend_select),
            ignore: strings(raw.ignore),
            severity: ordered(raw.severity),
            fail_on: raw.fail_on,
            output_format: raw.output_format,
            max_diagnostics: raw.max_diagnostics,
            exclude: Arc::new(exclude),
            extend_exclude: Arc::new(extend_exclude),
            force_exclude: raw.force_exclude,
            per_file_ignores: Arc::new(per_file_ignores),
            overrides,
        })
    }

    /// Whether `exclude` or `extend-exclude` covers `path` (as given,
    /// relative to `cwd` unless absolute) or a directory above it. Paths
    /// outside the config's directory never are.
    pub fn is_excluded(&self, path: &Path, cwd: &Path) -> bool {
        self.exclude.covers(path, cwd) || self.extend_exclude.covers(path, cwd)
    }

    /// The overrides that apply to `file` (as given on the command line,
    /// relative to `cwd` unless absolute), in file order.
    pub(crate) fn overrides_for<'a>(&'a self, file: &Path, cwd: &Path) -> Vec<&'a Override> {
        let Some(rel) = relative(file, cwd, &self.root) else {
            return Vec::new();
        };
        self.overrides
            .iter()
            .filter(|o| o.globs.is_match(&rel))
            .collect()
    }
}

/// The config file of `dir` itself, if it has one: a regular file, or a
/// symbolic link (which [`Config::load_discovered`] reads only if it stays
/// in the tree, and which is an error if it does not).
pub(crate) fn in_dir(dir: &Path) -> Option<PathBuf> {
    FILE_NAMES
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file() || p.is_symlink())
}

/// `file` relative to `root`, lexically (`.` dropped, `..` resolved), or
/// `None` when it lies outside `root`.
fn relative(file: &Path, cwd: &Path, root: &Path) -> Option<PathBuf> {
    fn clean(p: &Path) -> PathBuf {
        let mut out = PathBuf::new();
        for c in p.components() {
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
    let abs = clean(&cwd.join(file));
    let root = clean(&cwd.join(root));
    abs.strip_prefix(&root).ok().map(Path::to_path_buf)
}

/// The rule filter for one file: `base` (the config's top level) plus the
/// overrides that match the file, then `cli_severity` last, so that the
/// command line wins over the file and an override over the top level.
pub(crate) fn filter_for(
    base: &RuleFilter,
    overrides: &[&Override],
    cli_severity: &[(String, Level)],
) -> RuleFilter {
    let mut f = base.clone();
    for o in overrides {
        f.ignore.extend(o.ignore.iter().cloned());
        f.severity.extend(o.severity.iter().cloned());
    }
    f.severity.extend(cli_severity.iter().cloned());
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, String> {
        Config::parse(text, Path::new("/repo/bdxlint.toml")).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_every_key() {
        let c = parse(
            r#"
select = ["C", "H"]
ignore = ["X005"]
fail-on = "warning"
output-format = "sarif"
max-diagnostics = 5
[severity]
C004 = "off"
C = "warning"
[[overrides]]
paths = ["exports/legacy_*.csv"]
format = "entitlements"
ignore = ["H003"]
"#,
        )
        .expect("valid");
        assert_eq!(c.select, Some(vec!["C".to_owned(), "H".to_owned()]));
        assert_eq!(c.fail_on, Some(FailOn::Warning));
        assert_eq!(c.output_format, Some(OutputFormat::Sarif));
        assert_eq!(c.max_diagnostics, Some(5));
        assert_eq!(
            c.severity,
            [
                ("C".to_owned(), Level::Warning),
                ("C004".to_owned(), Level::Off)
            ]
        );
        let cwd = Path::new("/repo/exports");
        assert_eq!(c.overrides_for(Path::new("legacy_1.csv"), cwd).len(), 1);
        assert_eq!(c.overrides_for(Path::new("./legacy_1.csv"), cwd).len(), 1);
        assert_eq!(c.overrides_for(Path::new("new.csv"), cwd).len(), 0);
        assert_eq!(
            c.overrides_for(Path::new("/elsewhere/legacy_1.csv"), cwd)
                .len(),
            0
        );
    }

    #[test]
    fn unknown_keys_are_errors_with_their_place() {
        let e = parse("select = [\"C\"]\nignores = [\"X005\"]\n").expect_err("unknown key");
        assert!(e.starts_with("/repo/bdxlint.toml: "), "{e}");
        assert!(e.contains("line 2, column 1"), "{e}");
        assert!(e.contains("unknown field `ignores`"), "{e}");
        let e = parse("[[overrides]]\npaths = [\"a\"]\nformats = \"x\"\n").expect_err("nested");
        assert!(
            e.contains("line 3") && e.contains("unknown field `formats`"),
            "{e}"
        );
    }

    #[test]
    fn values_naming_nothing_are_errors_with_their_place() {
        let e = parse("select = [\"C\", \"Z9\"]\n").expect_err("no rule");
        assert_eq!(
            e,
            "/repo/bdxlint.toml: invalid value at line 1, column 16\n  |\n1 | select = [\"C\", \"Z9\"]\n  |                ^^^^\n\
             select: \"Z9\" names no rule (give a code like C004, a code prefix like C or J00, a name like invalid-date, or ALL; `bdxlint rules` lists them)"
        );
        let e = parse("[[overrides]]\npaths = [\"a\"]\n[overrides.severity]\nnope = \"off\"\n")
            .expect_err("no rule");
        assert!(
            e.contains("line 4, column 1\n") && e.contains("overrides[0].severity: \"nope\""),
            "{e}"
        );
        let e = parse("[[overrides]]\npaths = [\"a\", \"b[\"]\n").expect_err("glob");
        assert!(e.contains("line 2, column 15\n"), "{e}");
        let e = parse("[[overrides]]\npaths = []\n").expect_err("no glob");
        assert!(e.contains("line 2, column 9\n"), "{e}");
        let e = parse("[[overrides]]\npaths = [\"a\"]\nformat = \"nope\"").expect_err("format");
        assert!(e.contains("line 3, column 10\n"), "{e}");
    }

    #[test]
    fn errors_that_do_not_show_a_config_quote_none_of_the_file() {
        // Not TOML: the parser's message would quote the line.
        let e = parse("token = abc123secret\n").expect_err("syntax");
        assert!(
            e.starts_with("/repo/bdxlint.toml: TOML parse error at line 1, column 9: "),
            "{e}"
        );
        assert!(!e.contains("abc123secret") && !e.contains('\n'), "{e}");
        // What `/proc/self/environ` holds.
        let e = parse("HOME=/root\0GITHUB_TOKEN=ghp_secret\0").expect_err("syntax");
        assert!(!e.contains("ghp_secret") && !e.contains('\0'), "{e}");
        // TOML, but a key no config has: only the key is named.
        let e = parse("[default]\naws_secret = \"wJalrXUtnFEMI\"\n").expect_err("unknown key");
        assert!(
            e.contains("line 1, column 2") && e.contains("unknown field `default`"),
            "{e}"
        );
        assert!(!e.contains("wJalrXUtnFEMI") && !e.contains('\n'), "{e}");
    }

    #[test]
    fn excerpts_are_short_and_escaped() {
        // U+009B (CSI) is allowed raw in a TOML string; it must not reach a
        // terminal raw, in the excerpt or the message.
        let e = parse("select = [\"C\", \"\u{9b}2J\"]\n").expect_err("no rule");
        assert!(!e.contains('\u{9b}'), "{e:?}");
        assert!(
            e.contains("1 | select = [\"C\", \"\\u{9b}2J\"]\n  |                ^^^^^^^^^^\n"),
            "{e}"
        );
        let e = parse("fail-on = \"\u{9b}31m\"\n").expect_err("variant");
        assert!(!e.contains('\u{9b}') && e.contains("\\u{9b}31m"), "{e:?}");
        // A long line: a window of it around the value.
        let long = format!("select = [{}\"Z9\"]\n", "\"C\", ".repeat(60));
        let e = parse(&long).expect_err("no rule");
        let line = e.lines().nth(2).expect("excerpt");
        assert!(line.chars().count() <= 4 + 80 + 6, "{line}");
        assert!(
            line.starts_with("1 | ...") && line.ends_with("\"Z9\"]"),
            "{line}"
        );
        let caret = e.lines().nth(3).expect("caret");
        assert_eq!(caret.find('^'), line.find("\"Z9\""), "{e}");
        // A long value: the message is cut too.
        let e = parse(&format!("select = [\"{}\"]\n", "Z".repeat(5000))).expect_err("long");
        assert!(e.len() < 600, "{}", e.len());
    }

    #[cfg(unix)]
    #[test]
    fn discovery_follows_no_link_out_of_the_tree() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        std::fs::create_dir_all(d.join("repo/sub")).expect("mkdir");
        std::fs::create_dir(d.join("outside")).expect("mkdir");
        std::fs::write(d.join("outside/secret"), "select = [\"TOKEN_abc\"]\n").expect("write");
        std::fs::write(d.join("repo/shared.toml"), "ignore = [\"X005\"]\n").expect("write");
        // No repository: the link must stay in its own directory.
        symlink("../shared.toml", d.join("repo/sub/bdxlint.toml")).expect("symlink");
        let e = Config::load_discovered(&d.join("repo/sub/bdxlint.toml"), &GlobBudget::default())
            .expect_err("out");
        assert!(
            e.to_string()
                .contains("a symbolic link to a file outside its directory"),
            "{e}"
        );
        // In a repository: anywhere inside it.
        std::fs::create_dir(d.join("repo/.git")).expect("mkdir");
        let c = Config::load_discovered(&d.join("repo/sub/bdxlint.toml"), &GlobBudget::default())
            .expect("inside");
        assert_eq!(c.ignore, ["X005"]);
        assert_eq!(c.root, d.join("repo/sub"));
        for target in [
            d.join("outside/secret"),
            "/proc/self/environ".into(),
            d.join("missing"),
        ] {
            let link = d.join("repo/bdxlint.toml");
            let _ = std::fs::remove_file(&link);
            symlink(&target, &link).expect("symlink");
            assert_eq!(in_dir(&d.join("repo")), Some(link.clone()));
            let e = Config::load_discovered(&link, &GlobBudget::default())
                .expect_err("out")
                .to_string();
            assert!(e.contains("not read"), "{e}");
            assert!(!e.contains("TOKEN") && !e.contains("PATH="), "{e}");
        }
        // `--config` is the user's choice.
        assert!(Config::load(&d.join("repo/bdxlint.toml"), &GlobBudget::default()).is_err());
        std::fs::remove_file(d.join("repo/bdxlint.toml")).expect("rm");
        symlink(d.join("outside/secret"), d.join("repo/bdxlint.toml")).expect("symlink");
        let e = Config::load(&d.join("repo/bdxlint.toml"), &GlobBudget::default())
            .expect_err("no rule");
        assert!(e.to_string().contains("\"TOKEN_abc\" names no rule"), "{e}");
    }

    #[test]
    fn exclude_names_match_at_any_depth_and_paths_from_the_root() {
        let c = parse("exclude = [\"fixtures\", \"*.draft.csv\", \"exports/old/\", \"a/*.zip\"]")
            .expect("valid");
        let cwd = Path::new("/repo");
        let yes = |p: &str| c.is_excluded(Path::new(p), cwd);
        assert!(yes("fixtures"));
        assert!(yes("x/fixtures/y/e.csv"));
        assert!(yes("e.draft.csv"));
        assert!(yes("exports/old"));
        assert!(yes("exports/old/e.csv"));
        assert!(yes("a/b.zip"));
        assert!(yes("/repo/a/b.zip"));
        assert!(!yes("x/exports/old/e.csv"));
        assert!(!yes("fixtures.csv"));
        assert!(!yes("/elsewhere/fixtures/e.csv"));
        // A walk sees only the entry itself; its parents were seen before.
        assert!(!c.exclude.names_entry(Path::new("fixtures/e.csv"), cwd));
        assert!(c.exclude.names_entry(Path::new("x/fixtures"), cwd));
    }

    /// A table at the bound is one set of globs, matched once for each
    /// directory of a path, whatever the number of globs; one more glob
    /// is refused before any is compiled.
    #[test]
    fn each_glob_is_bounded_in_length_and_alternatives() {
        assert_eq!(glob_too_large(&"a".repeat(MAX_GLOB_BYTES)), None);
        let e = glob_too_large(&"a".repeat(MAX_GLOB_BYTES + 1)).expect("long");
        assert!(
            e.contains("a glob of 1025 bytes, longer than the 1024"),
            "{e}"
        );
        // 64 alternatives in all, however grouped; escaped braces and
        // commas outside braces are letters.
        let groups = |n: usize, of: usize| {
            (0..n)
                .map(|g| {
                    format!(
                        "{{{}}}",
                        (0..of)
                            .map(|a| format!("a{g}{a}"))
                            .collect::<Vec<_>>()
                            .join(",")
                    )
                })
                .collect::<String>()
        };
        assert_eq!(glob_too_large(&groups(8, 8)), None);
        assert_eq!(
            glob_too_large(&format!("a,b,c{}\\{{x,y\\}}", groups(8, 8))),
            None
        );
        let e = glob_too_large(&groups(9, 8)).expect("too many");
        assert!(
            e.contains("a glob of 72 `{...}` alternatives, more than the 64"),
            "{e}"
        );
        // As a config says it: located, in every key that takes globs.
        let twenty = format!("d/{}*.csv", groups(20, 10));
        for key in [
            "exclude = [G]",
            "extend-exclude = [G]",
            "[per-file-ignores]\nG = [\"C004\"]",
            "[[overrides]]\npaths = [G]",
        ] {
            let text = key.replace('G', &format!("{twenty:?}"));
            let e = parse(&text).expect_err(key);
            assert!(
                e.contains("a glob of 200 `{...}` alternatives, more than the 64"),
                "{key}: {e}"
            );
            assert!(
                e.contains("/repo/bdxlint.toml: invalid value at line"),
                "{key}: {e}"
            );
        }
    }

    #[test]
    fn a_run_budget_of_globs_spans_its_configs() {
        let budget = GlobBudget::default();
        let config = |n: usize| {
            let mut text = String::from("[per-file-ignores]\n");
            for i in 0..n {
                text.push_str(&format!("\"dir{i}/*.csv\" = [\"C004\"]\n"));
            }
            text
        };
        // Four configs of 1,000 globs, then one of 97 over the 4,096.
        for _ in 0..4 {
            Config::parse_within(&config(1000), Path::new("/r/bdxlint.toml"), &budget)
                .expect("within");
        }
        let e = Config::parse_within(&config(97), Path::new("/r/bdxlint.toml"), &budget)
            .expect_err("over")
            .to_string();
        assert!(e.contains("97 globs of "), "{e}");
        assert!(
            e.contains("more than is left of the 4096 globs and 256 KiB a run compiles"),
            "{e}"
        );
        Config::parse_within(&config(96), Path::new("/r/bdxlint.toml"), &budget).expect("the rest");
        // Bytes too: 300 globs of 1,000 bytes are over 256 KiB in one config.
        let mut text = String::from("exclude = [\n");
        for i in 0..300 {
            text.push_str(&format!("\"{i:0>1000}\",\n"));
        }
        text.push_str("]\n");
        let e = parse(&text).expect_err("bytes");
        assert!(
            e.contains("300 globs of 300000 bytes, more than is left"),
            "{e}"
        );
    }

    #[test]
    fn per_file_ignores_are_one_set_and_bounded() {
        let mut text = String::from("exclude = [\"tmp\"]\n[per-file-ignores]\n");
        for i in 1..MAX_GLOBS {
            // Globs of every kind: names, paths, classes, alternations.
            let g = match i % 4 {
                0 => format!("file{i}.csv"),
                1 => format!("dir{i}/**/x[0-9]*.csv"),
                2 => format!("*_{i}.{{csv,zip}}"),
                _ => format!("exports/{i}/*"),
            };
            text.push_str(&format!("{g:?} = [\"C00{}\"]\n", i % 7 + 3));
        }
        let c = parse(&text).expect("at the bound");
        let p = &c.per_file_ignores;
        let globs = |s: &Option<GlobSet>| s.as_ref().map_or(0, GlobSet::len);
        assert_eq!(
            globs(&p.patterns.names) + globs(&p.patterns.paths),
            MAX_GLOBS - 1
        );
        assert_eq!(p.entries.len(), MAX_GLOBS - 1);
        let cwd = Path::new("/repo");
        let ignored = |f: &str| p.ignored_in(Path::new(f), cwd);
        assert_eq!(ignored("dir5/a/b/x7y.csv"), ["C008"]);
        assert_eq!(ignored("a/b_6.zip"), ["C009"]);
        assert_eq!(ignored("exports/7/a.csv"), ["C003"]);
        // In the order of the table, which sorts its keys.
        assert_eq!(ignored("exports/7/file8.csv"), ["C003", "C004"]);
        assert!(ignored("other.csv").is_empty());
        assert!(ignored("/elsewhere/file8.csv").is_empty());
        text.push_str("\"one-more\" = [\"C004\"]\n");
        let e = parse(&text).expect_err("over the bound");
        assert!(
            e.contains("1025 globs (exclude, extend-exclude, per-file-ignores and the overrides' paths), more than the 1024"),
            "{e}"
        );
        let args = vec!["a.csv:C004".to_owned(); MAX_GLOBS + 1];
        let e = PerFileIgnores::parse(&args, cwd).expect_err("too many flags");
        assert!(e.to_string().contains("1025 flags"), "{e}");
        let e = PerFileIgnores::parse(&["a.csv:C004".into(), "b[:C004".into()], cwd)
            .expect_err("not a glob");
        assert!(
            e.to_string()
                .starts_with("--per-file-ignores \"b[:C004\": "),
            "{e}"
        );
    }

    #[test]
    fn values_are_checked() {
        assert!(parse("select = [\"Z9\"]")
            .expect_err("rule")
            .contains("select: \"Z9\" names no rule"));
        assert!(parse("[severity]\nC004 = \"fatal\"").is_err());
        assert!(parse("fail-on = \"info\"").is_err());
        let e = parse("[[overrides]]\npaths = [\"a\"]\nformat = \"nope\"").expect_err("format");
        assert!(e.contains("overrides[0].format: no format \"nope\""), "{e}");
        assert!(parse("[[overrides]]\npaths = [\"a[\"]").is_err());
        assert!(parse("[[overrides]]\npaths = [\"a\"]\nformat = \"entity-rbac\"").is_ok());
    }
}
