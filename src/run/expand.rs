//! What a run checks: the named paths, with directories walked (sorted,
//! pruned by the config's `exclude`) and standard input.

use super::request::{Input, Request};
use super::settings::Settings;
use crate::check;
use crate::diagnostic::Diagnostic;
use crate::report::Failure;
use crate::rules;
use std::path::{Path, PathBuf};

/// Expands directories to every `.csv` and `.zip` below them, sorted, so the order of
/// the report never depends on the file system. The config's `exclude`
/// prunes the walks, and the named paths too with `--force-exclude`.
/// Standard input named by `--stdin-filename` is a file of that path
/// here: skipped when `--force-exclude` excludes it, not read when its
/// config cannot be used.
pub(super) fn expand(
    req: &Request,
    settings: &Settings,
    failures: &mut Vec<Failure>,
) -> Vec<Input> {
    let paths = &req.paths;
    let mut inputs = Vec::new();
    // A file named twice (`d/` and `d/a.csv`, or `./a.csv` and `a.csv`) is
    // checked once, where it first comes: twice would repeat every finding,
    // which GitLab (equal fingerprints) and JUnit (equal names) reject.
    let mut seen = std::collections::HashSet::new();
    let mut first = |p: &Path| seen.insert(lexical(&settings.cwd.join(p)));
    // A file whose nearest config cannot be used is not checked: its
    // settings are unknown. The config is reported once.
    let mut broken = std::collections::HashSet::new();
    let mut usable = |p: &Path, failures: &mut Vec<Failure>| match settings.scopes.of(p) {
        Ok(_) => true,
        Err(e) => {
            if broken.insert(e.clone()) {
                failures.push(Failure {
                    path: p.display().to_string(),
                    reason: e.to_string(),
                });
            }
            false
        }
    };
    for p in paths {
        if p.as_os_str() == "-" {
            if let Some(name) = &req.stdin_filename {
                if (settings.force_exclude && settings.excluded(name)) || !usable(name, failures) {
                    continue;
                }
            }
            inputs.push(Input::Stdin);
        } else if settings.force_exclude && settings.excluded(p) {
            continue;
        } else if p.is_dir() {
            let mut found = Vec::new();
            walk(p, settings, &mut found, failures);
            found.sort();
            found.retain(|f| first(f) && usable(f, failures));
            inputs.extend(found.into_iter().map(Input::File));
        } else if first(p) && usable(p, failures) {
            inputs.push(Input::File(p.clone()));
        }
    }
    inputs
}

/// Whether `path` came from a directory walk rather than being named:
/// a walked CSV whose format cannot be told is a finding, a named one a
/// failure. A file both named and walked is checked once, where it first
/// comes; compared lexically, the named path counts.
pub(super) fn walked(named: &[PathBuf], path: &Path) -> bool {
    let path = lexical(path);
    !named.iter().any(|n| lexical(n) == path)
}

/// Whether `path` is taken as a format only on strong evidence: a walked
/// file always, a named one under `--strict-detection` (pre-commit names
/// every staged CSV, uploads or not).
pub(super) fn strict(req: &Request, path: &Path) -> bool {
    req.strict_detection || walked(&req.paths, path)
}

/// The `unknown-format` finding of a walked file whose header fits no
/// format (`candidates` says which, as the detection error does).
pub(super) fn unknown_format(candidates: &str) -> Diagnostic {
    check::file_diag(
        &rules::UNKNOWN_FORMAT,
        0..0,
        format!("cannot tell the format from the header; {candidates}; the file was not checked"),
        "name its format (`--format`, or `format` in an `[[overrides]]` entry of bdxlint.toml), or exclude it",
    )
}

/// `path` with `.` dropped and `..` resolved, without asking the file
/// system (a symbolic link stays a file of its own, as walks treat it).
pub(super) fn lexical(path: &Path) -> PathBuf {
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

/// Directories a walk skips unless `--no-ignore`, besides hidden and
/// ignored ones: installed packages, which hold other people's CSV files,
/// and git's own directory. The hidden ones are named so that `--hidden`
/// still skips them, as ruff's default `exclude` does.
pub(super) const VENDORED: [&str; 4] = ["node_modules", "venv", ".venv", ".git"];

/// Collects every regular `.csv` and `.zip` (a bundle) file below `dir`,
/// as ripgrep and ruff walk: hidden files and directories (unless
/// `--hidden`), what `.gitignore`, `.ignore` and git's excludes list, and
/// vendored package directories are skipped unless `--no-ignore`; the
/// config's `exclude` always prunes. Anything but a regular file (a FIFO, a device) is left
/// out: reading it could block for ever. An unreadable directory is a
/// failure naming it, and the walk goes on. Symbolic links are not
/// followed, as ripgrep's walks do not: a link to a directory could loop,
/// and a link to a file may point anywhere, so `check --fix dir` would
/// rewrite a file outside the tree it was given. A file the tree links to
/// is checked where it lies, or when named (a link named on the command
/// line is followed).
fn walk(dir: &Path, settings: &Settings, found: &mut Vec<PathBuf>, failures: &mut Vec<Failure>) {
    let mut b = ignore::WalkBuilder::new(dir);
    let all = settings.no_ignore;
    // `hidden` after `standard_filters`, which sets it too.
    b.standard_filters(!all)
        .hidden(!all && !settings.hidden)
        .follow_links(false)
        // In name order, so that the configs met are read, and the run's
        // budget of globs spent, in the same order on every file system.
        .sort_by_file_name(std::ffi::OsStr::cmp);
    let scopes = std::sync::Arc::clone(&settings.scopes);
    let cwd = settings.cwd.clone();
    b.filter_entry(move |e| {
        let vendored = !all
            && e.depth() > 0
            && e.file_type().is_some_and(|t| t.is_dir())
            && e.file_name()
                .to_str()
                .is_some_and(|n| VENDORED.contains(&n));
        // An entry answers to the nearest config of its directory; one
        // that cannot be used excludes nothing, and `expand` reports it.
        !vendored
            && !scopes
                .of(e.path())
                .is_ok_and(|s| s.exclude.iter().any(|x| x.names_entry(e.path(), &cwd)))
    });
    for entry in b.build() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                failures.push(Failure {
                    path: dir.display().to_string(),
                    reason: format!("{}: {e}", crate::report::display_path(dir)),
                });
                continue;
            }
        };
        let path = entry.path();
        let wanted = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv") || e.eq_ignore_ascii_case("zip"));
        let regular = entry.file_type().is_some_and(|t| t.is_file());
        if wanted && regular {
            found.push(path.to_path_buf());
        }
    }
}
