//! `--split GOOD BAD`: the rows of one file without errors to GOOD, the
//! others to BAD. It writes two files where a fix writes one, and keeps the
//! same promise: nothing changes unless both can be written. Both targets
//! are checked before the input is read; both copies are written whole and
//! synced before either is renamed; BAD goes into place first (its rows
//! exist nowhere else once GOOD replaces the input they came from), and if
//! GOOD then cannot follow, BAD's rename is undone, the old BAD restored.
//!
//! What a split cannot sort is a finding about the whole file rather than
//! a row (its encoding, its delimiter, a `sep=` line): every row has it, so
//! it sends no row to BAD, both halves keep it, and the run says so. With
//! `--fix` the split is made from a fixed copy (`fix.rs` keeps it instead
//! of replacing the input), so the fixes asked for leave none.

use crate::check::split::{split_rows, Split};
use crate::check::Options;
use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::output::{Output, Ready};
use crate::report::display_path;
use crate::rules::{self, Rule};
use crate::tempfiles::{self, Temp};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use tempfile::TempPath;

/// What the check said that a split needs: where the errors of rows are,
/// and what it found of the whole file.
#[derive(Debug, Default)]
pub(super) struct Findings {
    /// Byte offsets of the errors of rows, baselined or not: the platform
    /// refuses those rows either way.
    pub(super) errors: Vec<u64>,
    /// Findings about the whole file, once each rule: no row's, so both
    /// halves keep them.
    pub(super) whole_file: Vec<(&'static Rule, Severity, Option<Applicability>)>,
}

/// The rules that find something of the whole file, not of a row: the
/// file's encoding, delimiter, `sep=` line, byte-order mark, line endings
/// and format. Each is pinned on the first place it shows, a row that is
/// no worse than the others; splitting cannot leave it behind.
const WHOLE_FILE: [&Rule; 6] = [
    &rules::UTF8_BOM,
    &rules::MIXED_LINE_ENDINGS,
    &rules::DEPRECATED_FORMAT,
    &rules::DELIMITER,
    &rules::SEP_LINE,
    &rules::NOT_UTF8,
];

impl Findings {
    /// Notes a finding the filter kept (at the severity it gave).
    pub(super) fn note(&mut self, d: &Diagnostic) {
        if WHOLE_FILE.iter().any(|r| std::ptr::eq(*r, d.rule)) {
            if !self
                .whole_file
                .iter()
                .any(|(r, ..)| std::ptr::eq(*r, d.rule))
            {
                let fix = d.fix.as_ref().map(|f| f.applicability);
                self.whole_file.push((d.rule, d.severity, fix));
            }
        } else if d.severity == Severity::Error {
            self.errors.push(d.span.start);
        }
    }

    /// The run's line on what both halves keep, if they keep anything.
    pub(super) fn kept_note(&self, good: &Path, bad: &Path) -> Option<String> {
        if self.whole_file.is_empty() {
            return None;
        }
        let each: Vec<String> = self
            .whole_file
            .iter()
            .map(|(rule, severity, fix)| {
                let remedy = match fix {
                    Some(Applicability::Safe) => "--split with --fix removes it",
                    Some(Applicability::Unsafe) => "--split with --fix --unsafe-fixes removes it",
                    None => "no fix",
                };
                format!("{} {} ({severity}; {remedy})", rule.code, rule.name)
            })
            .collect();
        Some(format!(
            "{} and {} keep what was found of the whole file, not of a row (a check of {} reports it again where its rows still show it): {}",
            display_path(good),
            display_path(bad),
            display_path(good),
            each.join(", ")
        ))
    }
}

/// Why GOOD or BAD cannot be written, if one cannot: told before the input
/// is read, so that a split that cannot finish changes nothing and costs
/// no check.
pub(super) fn check_targets(good: &Path, bad: &Path) -> Result<(), String> {
    for p in [bad, good] {
        if p.is_dir() {
            return Err(format!("{}: is a directory", display_path(p)));
        }
        // A file made and removed where the copy will be: the one test of
        // a directory's permissions that holds for every user and file
        // system (root, read-only mounts, ACLs).
        let dir = tempfiles::dir_of(p);
        beside(p).map_err(|e| {
            format!(
                "{}: cannot write in {}: {e}",
                display_path(p),
                display_path(dir)
            )
        })?;
    }
    Ok(())
}

/// A temporary file beside `p`, so that renaming it to `p` stays on one
/// file system.
fn beside(p: &Path) -> io::Result<Temp> {
    tempfiles::beside(tempfiles::dir_of(p), ".bdxlint-split-")
}

/// Writes the rows of `path` to `good` and `bad` by whether an error lies
/// in them (`errors`: byte offsets in `path`), both written whole and
/// synced beside their targets, then renamed into place by [`commit`].
pub(super) fn split(
    path: &Path,
    opts: &Options,
    mut errors: Vec<u64>,
    good: &Path,
    bad: &Path,
) -> Result<Split, String> {
    errors.sort_unstable();
    // Each through an `Output`: a regular target replaced by a copy made
    // beside it, a device or FIFO written in place.
    let create = |p: &Path| Output::create(p, ".bdxlint-split-").map_err(named(p));
    let (mut g, mut b) = (create(good)?, create(bad)?);
    let file = File::open(path).map_err(|e| e.to_string())?;
    let opts = Options {
        cancel: None,
        ..opts.clone()
    };
    let n = split_rows(file, &opts, &errors, &mut g, &mut b).map_err(|e| e.to_string())?;
    // Both on disk before either is renamed: a crash after the renames
    // must not leave a target that names rows its data never reached.
    let g = g.prepare().map_err(named(good))?;
    let b = b.prepare().map_err(named(bad))?;
    commit(g, b, &mut |from, to| std::fs::rename(from, to))?;
    Ok(n)
}

/// Renames the written copies into place, BAD first, so that no failure
/// leaves one half of a split: if GOOD cannot follow, BAD's rename is
/// undone (the old BAD, kept aside until GOOD is in place, restored). A
/// half written in place (a device, a FIFO) has nothing to rename or undo.
/// `rename` is `std::fs::rename` but in tests.
fn commit(
    good: Ready,
    bad: Ready,
    rename: &mut dyn FnMut(&Path, &Path) -> io::Result<()>,
) -> Result<(), String> {
    // BAD in place, and how to take it back.
    let mut undo: Option<(Option<TempPath>, PathBuf)> = None;
    if let Ready::Rename { tmp, target } = bad {
        let aside = set_aside(&target).map_err(|e| format!("{}: {e}", display_path(&target)))?;
        if let Err(e) = rename(tmp.path(), &target) {
            let undone = restore(aside, &target, rename);
            return Err(failed(&target, &e, undone));
        }
        // In place: the temporary name is gone, nothing to remove.
        tmp.renamed();
        undo = Some((aside, target));
    }
    if let Ready::Rename { tmp, target } = good {
        if let Err(e) = rename(tmp.path(), &target) {
            let undone = match undo {
                Some((aside, bad)) => restore(aside, &bad, rename),
                None => Ok(()),
            };
            return Err(failed(&target, &e, undone));
        }
        tmp.renamed();
    }
    // Dropped: the old BAD's extra name goes.
    drop(undo);
    Ok(())
}

/// The old BAD, kept under a temporary name beside it until the split is
/// in place: a second link to it (BAD never goes missing), or, where the
/// file system has no links, BAD itself renamed. Dropped, the name goes.
fn set_aside(bad: &Path) -> io::Result<Option<TempPath>> {
    if std::fs::symlink_metadata(bad).is_err() {
        return Ok(None);
    }
    // A unique name, freed for the link to take. Not one of `tempfiles`:
    // where links fail it holds the old BAD itself, which a signal's
    // clean-up must never remove.
    let path = tempfile::Builder::new()
        .prefix(".bdxlint-split-")
        .tempfile_in(tempfiles::dir_of(bad))?
        .into_temp_path();
    std::fs::remove_file(&path)?;
    if std::fs::hard_link(bad, &path).is_err() {
        std::fs::rename(bad, &path)?;
    }
    Ok(Some(path))
}

/// Puts BAD back as it was before the split: the old file, or none.
fn restore(
    aside: Option<TempPath>,
    bad: &Path,
    rename: &mut dyn FnMut(&Path, &Path) -> io::Result<()>,
) -> io::Result<()> {
    match aside {
        Some(old) => match rename(&old, bad) {
            // Dropped: the name is gone, or (BAD was never replaced, and
            // renaming a link over its twin does nothing) an extra link.
            Ok(()) => {
                drop(old);
                Ok(())
            }
            // Kept where it is, never removed: it may be the only copy.
            Err(e) => {
                let at = old.keep().map_err(|e| e.error)?;
                Err(io::Error::new(
                    e.kind(),
                    format!(
                        "{e}; the old {} is kept as {}",
                        display_path(bad),
                        display_path(&at)
                    ),
                ))
            }
        },
        // A new BAD may or may not be in place: none must be.
        None => match std::fs::remove_file(bad) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        },
    }
    .map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("{e} (undoing the split of {})", display_path(bad)),
        )
    })
}

/// An error of writing `p`, named.
fn named(p: &Path) -> impl Fn(io::Error) -> String + '_ {
    move |e| format!("{}: {e}", display_path(p))
}

fn failed(target: &Path, e: &io::Error, undo: io::Result<()>) -> String {
    match undo {
        Ok(()) => format!("{}: {e}; nothing was changed", display_path(target)),
        Err(u) => format!("{}: {e}; and then {u}", display_path(target)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn ready(tmp: Temp, target: &Path) -> Ready {
        Ready::Rename {
            tmp,
            target: target.to_path_buf(),
        }
    }

    fn temp(dir: &Path, text: &str) -> Temp {
        let mut f = tempfiles::beside(dir, ".bdxlint-split-").expect("temp");
        f.write_all(text.as_bytes()).expect("write");
        f
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// Renaming GOOD fails after BAD is in place: BAD is put back as it
    /// was (the old file, or none), GOOD untouched, no temporary left.
    #[test]
    fn a_good_that_cannot_be_renamed_undoes_bad() {
        for old_bad in [Some("old bad\n"), None] {
            let dir = tempfile::tempdir().expect("tempdir");
            let d = dir.path();
            let (good, bad) = (d.join("good.csv"), d.join("bad.csv"));
            std::fs::write(&good, "old good\n").expect("write");
            if let Some(text) = old_bad {
                std::fs::write(&bad, text).expect("write");
            }
            let before = names(d);
            let (g, b) = (temp(d, "new good\n"), temp(d, "new bad\n"));
            let mut calls = 0;
            let good_tmp = g.path().to_path_buf();
            let e = commit(ready(g, &good), ready(b, &bad), &mut |from, to| {
                calls += 1;
                if from == good_tmp {
                    return Err(io::Error::other("no room"));
                }
                std::fs::rename(from, to)
            })
            .expect_err("fails");
            assert!(e.contains("no room; nothing was changed"), "{e}");
            // BAD's rename, GOOD's, and BAD's undone (a rename back when
            // there was an old one).
            assert_eq!(calls, if old_bad.is_some() { 3 } else { 2 });
            assert_eq!(std::fs::read_to_string(&good).expect("good"), "old good\n");
            assert_eq!(std::fs::read_to_string(&bad).ok().as_deref(), old_bad);
            assert_eq!(names(d), before);
        }
    }

    #[test]
    fn a_split_in_place_replaces_both_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        let (good, bad) = (d.join("good.csv"), d.join("bad.csv"));
        std::fs::write(&bad, "old bad\n").expect("write");
        let (g, b) = (temp(d, "new good\n"), temp(d, "new bad\n"));
        commit(ready(g, &good), ready(b, &bad), &mut |from, to| {
            std::fs::rename(from, to)
        })
        .expect("commits");
        assert_eq!(std::fs::read_to_string(&good).expect("good"), "new good\n");
        assert_eq!(std::fs::read_to_string(&bad).expect("bad"), "new bad\n");
        assert_eq!(names(d), ["bad.csv", "good.csv"]);
    }

    #[test]
    fn a_bad_that_cannot_be_renamed_changes_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        let (good, bad) = (d.join("good.csv"), d.join("bad.csv"));
        std::fs::write(&bad, "old bad\n").expect("write");
        let before = names(d);
        let (g, b) = (temp(d, "new good\n"), temp(d, "new bad\n"));
        let bad_tmp = b.path().to_path_buf();
        let e = commit(ready(g, &good), ready(b, &bad), &mut |from, to| {
            if from == bad_tmp {
                return Err(io::Error::other("no room"));
            }
            std::fs::rename(from, to)
        })
        .expect_err("fails");
        assert!(e.contains("nothing was changed"), "{e}");
        assert!(!good.exists());
        assert_eq!(std::fs::read_to_string(&bad).expect("bad"), "old bad\n");
        assert_eq!(names(d), before);
    }
}
