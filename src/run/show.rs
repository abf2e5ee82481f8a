//! `check --show-settings` and `check --show-files` (ruff's flags): what a
//! run would do, told instead of done. Both resolve the settings and
//! expand the paths exactly as a run does (`validate`), then read no more
//! than a file's header: the settings that apply to the first input and
//! the `bdxlint.toml` they come from, or every file a run would check with
//! the format it would be checked as and why, and the `.csv` and `.zip`
//! files a walk passes over with why.

use super::expand::{self, VENDORED};
use super::request::{Input, Request};
use super::settings::Settings;
use super::validate::{validate, Valid};
use crate::bundle::{self, Kind};
use crate::check;
use crate::config::{Config, FailOn};
use crate::report::{display_path, printable, Failure};
use crate::schema::{self, Detection};
use crate::select::Level;
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The run's settings and inputs, or the setup error said on `err`.
fn resolve(req: &Request, err: &mut dyn Write) -> io::Result<Option<Valid>> {
    match validate(req) {
        Ok(v) => Ok(Some(v)),
        Err(e) => {
            e.say(err)?;
            Ok(None)
        }
    }
}

/// A message on `err`, as the run says its own (`run::say`).
fn say(err: &mut dyn Write, message: &str) -> io::Result<()> {
    writeln!(err, "bdxlint: {}", printable(message))
}

/// The paths that could not be expanded, on `err`; `true` when there were
/// none.
fn finish(failures: &[Failure], err: &mut dyn Write) -> io::Result<bool> {
    for f in failures {
        say(err, &f.reason)?;
    }
    Ok(failures.is_empty())
}

/// `check --show-settings`: the settings the first input is checked with,
/// and the config file they come from. `false` (exit 2) when the settings
/// do not resolve or no path names an input.
pub(super) fn settings(
    req: &Request,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<bool> {
    let Some(valid) = resolve(req, err)? else {
        return Ok(false);
    };
    let Some(input) = valid.inputs.first() else {
        say(err, "--show-settings: no file to show the settings of")?;
        return Ok(false);
    };
    let settings = &valid.settings;
    // Standard input named by `--stdin-filename` takes that path's.
    let (shown, path) = match input {
        Input::File(p) => (p.as_path(), Some(p.as_path())),
        Input::Stdin => (req.stdin_path(), req.stdin_filename.as_deref()),
    };
    let as_input = match path {
        Some(p) => Input::File(p.to_path_buf()),
        None => Input::Stdin,
    };
    let (format, filter) = settings.for_input(&as_input);
    writeln!(out, "Settings for: {}", display_path(shown))?;
    writeln!(out, "Config file: {}", config_file(req, settings, path))?;
    let format = match (&req.format, format) {
        (Some(f), _) => format!("{f} (--format)"),
        (None, Some(f)) => format!("{f} (an [[overrides]] entry)"),
        (None, None) => "detected from the header".to_owned(),
    };
    writeln!(out, "format: {format}")?;
    let list = |l: &[String], empty: &str| {
        if l.is_empty() {
            empty.to_owned()
        } else {
            l.join(", ")
        }
    };
    writeln!(out, "select: {}", list(&filter.select, "every rule"))?;
    writeln!(out, "ignore: {}", list(&filter.ignore, "none"))?;
    let severity: Vec<String> = filter
        .severity
        .iter()
        .map(|(rule, level)| format!("{rule}={}", level_name(*level)))
        .collect();
    writeln!(out, "severity: {}", list(&severity, "the rules' own"))?;
    writeln!(out, "output-format: {}", settings.output_format.name())?;
    writeln!(
        out,
        "fail-on: {}",
        match req.fail_on {
            Some(FailOn::Warning) => "warning".to_owned(),
            Some(FailOn::Error) => "error".to_owned(),
            None => settings.fail_on.to_string(),
        }
    )?;
    writeln!(
        out,
        "max-diagnostics: {}",
        settings
            .max_diagnostics
            .map_or("no limit".to_owned(), |n| n.to_string())
    )?;
    writeln!(out, "force-exclude: {}", settings.force_exclude)?;
    writeln!(out, "exit-zero: {}", settings.exit_zero)?;
    finish(&valid.failures, err)
}

fn level_name(l: Level) -> &'static str {
    match l {
        Level::Off => "off",
        Level::Info => "info",
        Level::Warning => "warning",
        Level::Error => "error",
    }
}

/// Which config file the settings of `path` come from, as the run finds
/// it (`settings.rs`): `--isolated`'s none, `--config`'s, or the nearest
/// one in the file's directory or above, else the working directory's.
fn config_file(req: &Request, settings: &Settings, path: Option<&Path>) -> String {
    if req.isolated {
        return "none (--isolated)".to_owned();
    }
    if let Some(c) = &req.config {
        return format!("{} (--config)", display_path(c));
    }
    let dir = path
        .map(|p| settings.cwd.join(p))
        .and_then(|p| p.parent().map(Path::to_path_buf));
    let found = dir
        .and_then(|d| Config::discover(&d))
        .or_else(|| Config::discover(&settings.cwd));
    match found {
        Some(f) => display_path(&f),
        None => "none found (the defaults)".to_owned(),
    }
}

/// `check --show-files`: each input with the format it would be checked
/// as and why, then the `.csv` and `.zip` files below the walked
/// directories that a walk passes over, each with why. `false` (exit 2)
/// when the settings do not resolve or a path cannot be expanded.
pub(super) fn files(req: &Request, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<bool> {
    let Some(valid) = resolve(req, err)? else {
        return Ok(false);
    };
    let settings = &valid.settings;
    let mut listed = HashSet::new();
    for input in &valid.inputs {
        let (shown, why) = match input {
            Input::File(p) => {
                // Compared as the run compares them: `./d/a.csv` is `d/a.csv`.
                listed.insert(expand::lexical(&settings.cwd.join(p)));
                (p.as_path(), file_verdict(req, settings, p))
            }
            Input::Stdin => (req.stdin_path(), stdin_verdict(req, settings)),
        };
        writeln!(out, "{}: {why}", display_path(shown))?;
    }
    for dir in req.paths.iter().filter(|p| p.is_dir()) {
        if settings.force_exclude && settings.excluded(dir) {
            continue;
        }
        for (path, why) in skipped(dir, settings, &listed) {
            writeln!(out, "{}: skipped: {why}", display_path(&path))?;
        }
    }
    finish(&valid.failures, err)
}

/// The format a named format, an override or the header gives standard
/// input.
fn stdin_verdict(req: &Request, settings: &Settings) -> String {
    let (format, _) = match &req.stdin_filename {
        Some(name) => settings.for_input(&Input::File(name.clone())),
        None => settings.for_input(&Input::Stdin),
    };
    match (&req.format, format) {
        (Some(f), _) => format!("{f} (--format)"),
        (None, Some(f)) => format!("{f} (an [[overrides]] entry)"),
        (None, None) => "standard input, its format told from its header as it is read".to_owned(),
    }
}

/// The format a file would be checked as and why, or why it would not be.
fn file_verdict(req: &Request, settings: &Settings, path: &Path) -> String {
    let (named, override_) = match (&req.format, settings.for_input(&Input::File(path.into())).0) {
        (Some(f), _) => (Some(f.as_str()), false),
        (None, f) => (f, f.is_some()),
    };
    let from = if override_ {
        "an [[overrides]] entry"
    } else {
        "--format"
    };
    if bundle::is_bundle_path(path, named) {
        return match named.and_then(Kind::from_name) {
            Some(k) => format!("{} ({from})", k.name()),
            None => "a ZIP bundle, its kind told from its members' headers".to_owned(),
        };
    }
    if let Some(f) = named.filter(|f| Kind::from_name(f).is_none()) {
        return format!("{f} ({from})");
    }
    let walked = expand::strict(req, path);
    let names = match std::fs::File::open(path).and_then(check::header_names) {
        Ok(names) => names,
        Err(e) => return format!("not checked: {e}"),
    };
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let file_name = path.file_name().and_then(|n| n.to_str());
    let found = match schema::tables() {
        Ok(tables) => schema::detect_format(tables, &names, file_name),
        Err(e) => return format!("not checked: {e}"),
    };
    let unknown = |why: &str| {
        if walked {
            format!("skipped: unknown-format (F008, a warning): {why}")
        } else {
            format!("not checked: cannot tell the format (exit 2): {why}")
        }
    };
    match found {
        _ if names.is_empty() => "no header: its check says why".to_owned(),
        Detection::Found(f) => {
            let Ok(Some(table)) = schema::table(f) else {
                return format!("{f} (detected from its header)");
            };
            let ev = schema::evidence(table, &names, file_name);
            if !walked {
                format!("{f} (detected from its header; named, so taken whatever the evidence)")
            } else if ev.is_strong() {
                format!("{f} ({})", ev.describe(f))
            } else {
                unknown(&ev.describe(f))
            }
        }
        Detection::Ambiguous(c) => unknown(&format!("it fits {}", c.join(", "))),
        Detection::NoMatch => unknown("it fits no known format"),
    }
}

/// The `.csv` and `.zip` files below `dir` that its walk passes over, in
/// path order, with why: everything the walk of `expand.rs` filters, seen
/// by a walk that filters nothing (but git's own directory).
fn skipped(dir: &Path, settings: &Settings, listed: &HashSet<PathBuf>) -> Vec<(PathBuf, String)> {
    let mut b = ignore::WalkBuilder::new(dir);
    b.standard_filters(false).hidden(false).follow_links(false);
    b.filter_entry(|e| e.depth() == 0 || e.file_name() != ".git");
    let mut found = Vec::new();
    for entry in b.build().flatten() {
        let path = entry.path();
        let wanted = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv") || e.eq_ignore_ascii_case("zip"));
        if entry.depth() == 0
            || !wanted
            || listed.contains(&expand::lexical(&settings.cwd.join(path)))
        {
            continue;
        }
        let below: Vec<&str> = path
            .strip_prefix(dir)
            .map(|rel| {
                rel.components()
                    .filter_map(|c| c.as_os_str().to_str())
                    .collect()
            })
            .unwrap_or_default();
        let dirs = &below[..below.len().saturating_sub(1)];
        let all = settings.no_ignore;
        let why = if settings.excluded(path) {
            "excluded (`exclude`, `extend-exclude`, --exclude or --extend-exclude)".to_owned()
        } else if let Some(v) = dirs.iter().find(|d| !all && VENDORED.contains(d)) {
            format!("in a vendored directory ({v}): --no-ignore walks it")
        } else if !all && !settings.hidden && below.iter().any(|c| c.starts_with('.')) {
            "hidden: --hidden walks it".to_owned()
        } else if entry.path_is_symlink() {
            "a symbolic link, which walks do not follow: name it to check it".to_owned()
        } else if !entry.file_type().is_some_and(|t| t.is_file()) {
            "not a regular file".to_owned()
        } else if settings.scopes.of(path).is_err() {
            "its bdxlint.toml cannot be used".to_owned()
        } else {
            "ignored (.gitignore, .ignore or git's excludes): --no-ignore walks it".to_owned()
        };
        found.push((path.to_path_buf(), why));
    }
    found.sort();
    found
}
