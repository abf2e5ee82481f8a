//! `--split GOOD BAD`: the rows of one file without errors to GOOD, the
//! others to BAD. It writes two files where a fix writes one, and keeps the
//! same promise: nothing changes unless both can be written. Both outputs
//! are opened ([`Halves::open`]) before the input is read; both copies are
//! written whole and synced before either is renamed; BAD goes into place
//! first (the rows with errors must exist somewhere before anything else
//! changes), and if GOOD then cannot follow, BAD's rename is undone, the old
//! BAD restored; a signal waits for all of it ([`tempfiles::renaming`]).
//! The file split must be the file checked: it is held to the identity the
//! input had before the check (device, inode, size, modification time).
//!
//! What a split cannot sort is a finding about the whole file rather than
//! a row (its encoding, its delimiter, a `sep=` line): every row has it, so
//! it sends no row to BAD, both halves keep it, and the run says so. With
//! `--fix` the split is made from a fixed copy (`passes.rs` keeps it instead
//! of replacing the input), so the fixes asked for leave none.

use super::replace::Identity;

/// Why a split was not made (or not whole): each names the file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SplitError {
    /// A file of the split (the input, GOOD, BAD) could not be opened or
    /// set aside.
    #[error("{}: {error}", display_path(.path))]
    Io { path: PathBuf, error: io::Error },
    /// The input is not the file that was checked (its findings' offsets
    /// would be another file's).
    #[error("{}: changed while it was checked: not split, nothing written; run again", display_path(.path))]
    Changed { path: PathBuf },
    /// Reading the rows and writing them to the halves.
    #[error(transparent)]
    Rows(#[from] crate::check::split::SplitError),
    /// Writing the halves out.
    #[error("{0}")]
    Write(io::Error),
    /// A half could not be renamed into place, and what undoing the other
    /// gave.
    #[error("{}: {error}; {}", display_path(.target), undo_said(.undo))]
    Rename {
        target: PathBuf,
        error: io::Error,
        undo: Result<(), io::Error>,
    },
}

/// What undoing the half already in place gave, as the message says it.
fn undo_said(undo: &Result<(), io::Error>) -> String {
    match undo {
        Ok(()) => "nothing was changed".to_owned(),
        Err(u) => format!("and then {u}"),
    }
}
use crate::check::split::{split_rows, Split};
use crate::check::Options;
use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::output::{Output, Ready};
use crate::report::display_path;
use crate::rules::{self, Rule};
use crate::tempfiles;
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

/// GOOD and BAD, opened before the input is read (a split that cannot
/// write both changes nothing and costs no check), and what the input was
/// then.
pub(super) struct Halves {
    good: Output,
    bad: Output,
    input: Option<Identity>,
}

impl Halves {
    /// Opens both outputs (BAD first, as it is committed first) and notes
    /// the identity of `input`, the file to split.
    pub(super) fn open(good: &Path, bad: &Path, input: &Path) -> Result<Halves, SplitError> {
        // The identity first: a file that replaces the input once the
        // halves exist is then always told apart from the one noted.
        let input = std::fs::metadata(input).ok().map(|m| Identity::of(&m));
        let create = |p: &Path| Output::create(p, ".bdxlint-split-").map_err(named(p));
        let bad = create(bad)?;
        let good = create(good)?;
        Ok(Halves { good, bad, input })
    }

    /// Where a fixed copy to split is best made: beside GOOD, which the
    /// split writes anyway (the input's directory may be read-only); for a
    /// GOOD written in place (a device), the system's temporary directory.
    pub(super) fn copy_dir(&self) -> PathBuf {
        self.good
            .dir()
            .map_or_else(std::env::temp_dir, Path::to_path_buf)
    }
}

/// Writes the rows of `path` to the halves by whether an error lies in
/// them (`errors`: byte offsets in `path`), both written whole and synced
/// beside their targets, then renamed into place by [`commit`]. `checked`:
/// `path` is the input as the check read it, not a fixed copy of ours, so
/// it must still be the file it was (else the errors' offsets are another
/// file's, and nothing is written).
pub(super) fn split(
    path: &Path,
    checked: bool,
    opts: &Options,
    mut errors: Vec<u64>,
    halves: Halves,
) -> Result<Split, SplitError> {
    errors.sort_unstable();
    let Halves {
        mut good,
        mut bad,
        input,
    } = halves;
    let file = File::open(path).map_err(named(path))?;
    let same = |file: &File| {
        !checked || file.metadata().ok().map(|m| Identity::of(&m)) == input && input.is_some()
    };
    let changed = || SplitError::Changed {
        path: path.to_path_buf(),
    };
    if !same(&file) {
        return Err(changed());
    }
    let opts = Options {
        cancel: None,
        ..opts.clone()
    };
    let n = split_rows(&file, &opts, &errors, &mut good, &mut bad)?;
    // Written to while it was split.
    if !same(&file) {
        return Err(changed());
    }
    // Both on disk before either is renamed: a crash after the renames
    // must not leave a target that names rows its data never reached.
    let good = good.prepare().map_err(SplitError::Write)?;
    let bad = bad.prepare().map_err(SplitError::Write)?;
    let _renaming = tempfiles::renaming();
    commit(good, bad, &mut |from, to| std::fs::rename(from, to))?;
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
) -> Result<(), SplitError> {
    // BAD in place, and how to take it back.
    let mut undo: Option<(Option<TempPath>, PathBuf)> = None;
    if let Ready::Rename { tmp, target } = bad {
        let aside = set_aside(&target).map_err(named(&target))?;
        if let Err(error) = rename(tmp.path(), &target) {
            let undo = restore(aside, &target, rename);
            return Err(SplitError::Rename {
                target,
                error,
                undo,
            });
        }
        // In place: the temporary name is gone, nothing to remove.
        tmp.renamed();
        undo = Some((aside, target));
    }
    if let Ready::Rename { tmp, target } = good {
        if let Err(error) = rename(tmp.path(), &target) {
            let undo = match undo {
                Some((aside, bad)) => restore(aside, &bad, rename),
                None => Ok(()),
            };
            return Err(SplitError::Rename {
                target,
                error,
                undo,
            });
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
    // A second link under a fresh name (tried again should the name be
    // taken meanwhile). Not one of `tempfiles`: where links fail it holds
    // the old BAD itself, which a signal's clean-up must never remove.
    let dir = tempfiles::dir_of(bad);
    let mut b = tempfile::Builder::new();
    b.prefix(".bdxlint-split-old-");
    let path = match b.make_in(dir, |p| std::fs::hard_link(bad, p)) {
        Ok(linked) => linked.into_temp_path(),
        // A file system without links: BAD itself goes aside (and is
        // missing until the split is in place or undone).
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => b
            .make_in(dir, |p| std::fs::rename(bad, p))?
            .into_temp_path(),
        Err(e) => return Err(e),
    };
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

/// An error of opening `p`, named.
fn named(p: &Path) -> impl Fn(io::Error) -> SplitError + '_ {
    move |error| SplitError::Io {
        path: p.to_path_buf(),
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tempfiles::Temp;
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
            assert!(
                e.to_string().contains("no room; nothing was changed"),
                "{e}"
            );
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
        assert!(e.to_string().contains("nothing was changed"), "{e}");
        assert!(!good.exists());
        assert_eq!(std::fs::read_to_string(&bad).expect("bad"), "old bad\n");
        assert_eq!(names(d), before);
    }
}
