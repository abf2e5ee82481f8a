//! What a run checks: the named paths, with directories walked (sorted,
//! pruned by the config's `exclude`) and standard input.

use super::settings::Settings;
use crate::report::Failure;
use std::path::{Path, PathBuf};

/// What to check: a file, standard input, or a path that failed.
pub(super) enum Input {
    File(PathBuf),
    Stdin,
}

/// Expands directories to every `.csv` and `.zip` below them, sorted, so the order of
/// the report never depends on the file system. The config's `exclude`
/// prunes the walks, and the named paths too with `--force-exclude`.
pub(super) fn expand(
    paths: &[PathBuf],
    settings: &Settings,
    failures: &mut Vec<Failure>,
) -> Vec<Input> {
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
