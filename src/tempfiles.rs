//! The temporary files a run writes beside their targets (fixed copies,
//! `--split` outputs, reports, baselines) before renaming them into place.
//!
//! Each one is listed while it exists, so that a signal that ends the run
//! (the binary calls [`remove_all`] on SIGINT, SIGTERM and SIGHUP) removes
//! it instead of leaving a hidden copy of someone's data behind: a fixed
//! copy of a 1M-row export is hundreds of megabytes, and nothing else
//! would ever delete it.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Write};
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use tempfile::NamedTempFile;

static LIVE: Mutex<BTreeMap<u64, PathBuf>> = Mutex::new(BTreeMap::new());
static NEXT: AtomicU64 = AtomicU64::new(0);
/// Held across renames that must happen together or not at all (a fixed
/// copy over its original, `--split`'s two halves and their undo), and by
/// the signal handler before it removes anything: a signal never cuts a
/// group of renames in half.
static RENAMES: Mutex<()> = Mutex::new(());

/// Holds off [`remove_all`] (and so the end of the run by a signal) until
/// dropped: for renames that belong together.
pub(crate) fn renaming() -> impl Drop {
    RENAMES.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A temporary file, deleted when dropped (as `NamedTempFile` is) and
/// listed for [`remove_all`] until then or until it is persisted.
#[derive(Debug)]
pub(crate) struct Temp {
    file: NamedTempFile,
    listing: Listing,
}

/// The entry in the list; dropping it unlists the file.
#[derive(Debug)]
struct Listing(u64);

impl Drop for Listing {
    fn drop(&mut self) {
        LIVE.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.0);
    }
}

/// Creates a file with `make` and lists it, under the list's lock: a
/// signal's clean-up never runs between the two (the file would be left).
fn list(make: impl FnOnce() -> io::Result<NamedTempFile>) -> io::Result<Temp> {
    let mut live = LIVE.lock().unwrap_or_else(PoisonError::into_inner);
    let file = make()?;
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    live.insert(id, file.path().to_path_buf());
    Ok(Temp {
        file,
        listing: Listing(id),
    })
}

/// A new temporary file in `dir` (hidden, named `<prefix>` and a random
/// part), so a rename from it to its target stays on one file system.
pub(crate) fn beside(dir: &Path, prefix: &str) -> io::Result<Temp> {
    list(|| tempfile::Builder::new().prefix(prefix).tempfile_in(dir))
}

/// As [`beside`], but with the mode `open(2)` gives a file it creates
/// (`0o666` under the umask) instead of `0o600`: for a file that did not
/// exist before (a new report, baseline or `--split` half), which should be
/// readable as any file the user makes, with no `chmod` racing the rename.
pub(crate) fn beside_new(dir: &Path, prefix: &str) -> io::Result<Temp> {
    let mut b = tempfile::Builder::new();
    b.prefix(prefix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // The umask applies, as tempfile's documentation says.
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    list(|| b.tempfile_in(dir))
}

/// A new temporary file in the system's temporary directory (standard
/// input read once, to be read again).
pub(crate) fn anywhere(prefix: &str) -> io::Result<Temp> {
    list(|| tempfile::Builder::new().prefix(prefix).tempfile())
}

/// The directory a file at `path` lives in (`.` for a bare name).
pub(crate) fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

impl Temp {
    /// Renames the file to `path` (atomically, on one file system); it is
    /// unlisted once it is no longer a temporary file. On failure the
    /// temporary file is deleted.
    pub(crate) fn persist(self, path: &Path) -> io::Result<File> {
        let Temp { file, listing } = self;
        let r = file.persist(path).map_err(|e| e.error);
        drop(listing);
        r
    }
}

impl Temp {
    /// The caller renamed the file away from its temporary name (into
    /// place, where a rename that may have to be undone is its own):
    /// forget it, deleting nothing.
    pub(crate) fn renamed(self) {
        let Temp { file, listing } = self;
        // No file system call: the temporary name is already gone.
        let _ = file.into_temp_path().keep();
        drop(listing);
    }
}

impl Deref for Temp {
    type Target = NamedTempFile;
    fn deref(&self) -> &NamedTempFile {
        &self.file
    }
}

impl DerefMut for Temp {
    fn deref_mut(&mut self) -> &mut NamedTempFile {
        &mut self.file
    }
}

impl Write for Temp {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file.write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Deletes every listed temporary file, for a signal handler's thread: the
/// run is about to end. It waits for renames in progress ([`renaming`]),
/// then keeps both locks for good, so no rename starts and no new
/// temporary file is made (their threads wait) before the process dies.
pub fn remove_all() {
    std::mem::forget(renaming());
    let live = LIVE.lock().unwrap_or_else(PoisonError::into_inner);
    remove_listed(&live, |_| true);
    std::mem::forget(live);
}

/// Deletes the listed files `chosen` picks. Their owners' drops later find
/// them gone, which is not an error to them.
fn remove_listed(live: &BTreeMap<u64, PathBuf>, chosen: impl Fn(&Path) -> bool) {
    for path in live.values().filter(|p| chosen(p)) {
        // Already gone (persisted a moment ago, or removed by its owner):
        // nothing to do.
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(p: &Path) -> bool {
        LIVE.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .any(|q| q == p)
    }

    #[test]
    fn listed_while_alive_unlisted_when_dropped_or_persisted() {
        let dir = tempfile::tempdir().expect("tempdir");
        let a = beside(dir.path(), ".t-").expect("temp");
        let mut b = beside(dir.path(), ".t-").expect("temp");
        let (a_path, b_path) = (a.path().to_path_buf(), b.path().to_path_buf());
        assert!(listed(&a_path) && listed(&b_path));
        b.write_all(b"x").expect("write");
        let target = dir.path().join("out");
        b.persist(&target).expect("persist");
        assert_eq!(std::fs::read(&target).expect("read"), b"x");
        assert!(!listed(&b_path) && !listed(&target));
        drop(a);
        assert!(!a_path.exists());
        assert!(!listed(&a_path));
    }

    #[test]
    fn removing_deletes_listed_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        let a = beside(dir.path(), ".t-").expect("temp");
        let p = a.path().to_path_buf();
        assert!(p.exists());
        // Only this test's files: other tests' may be live meanwhile.
        remove_listed(&LIVE.lock().unwrap_or_else(PoisonError::into_inner), |q| {
            q.starts_with(dir.path())
        });
        assert!(!p.exists());
        // Its owner's drop finds it gone and does not mind.
        drop(a);
        assert!(!listed(&p));
    }

    /// A clean-up waits for renames that belong together.
    #[test]
    fn renames_in_progress_hold_off_the_clean_up() {
        let held = renaming();
        let (tx, rx) = std::sync::mpsc::channel();
        let t = std::thread::spawn(move || {
            let _g = renaming();
            tx.send(()).expect("send");
        });
        assert!(rx
            .recv_timeout(std::time::Duration::from_millis(200))
            .is_err());
        drop(held);
        rx.recv_timeout(std::time::Duration::from_secs(10))
            .expect("runs once the renames are done");
        t.join().expect("join");
    }
}
