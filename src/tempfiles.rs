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
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use tempfile::NamedTempFile;

static LIVE: Mutex<BTreeMap<u64, PathBuf>> = Mutex::new(BTreeMap::new());
static NEXT: AtomicU64 = AtomicU64::new(0);

/// A temporary file, deleted when dropped (as `NamedTempFile` is) and
/// listed for [`remove_all`] until then or until it is persisted.
#[derive(Debug)]
pub struct Temp {
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

fn list(file: NamedTempFile) -> Temp {
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    LIVE.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(id, file.path().to_path_buf());
    Temp {
        file,
        listing: Listing(id),
    }
}

/// A new temporary file in `dir` (hidden, named `<prefix>` and a random
/// part), so a rename from it to its target stays on one file system.
pub fn beside(dir: &Path, prefix: &str) -> io::Result<Temp> {
    let file = tempfile::Builder::new().prefix(prefix).tempfile_in(dir)?;
    Ok(list(file))
}

/// As [`beside`], but with the mode `open(2)` gives a file it creates
/// (`0o666` under the umask) instead of `0o600`: for a file that did not
/// exist before (a new report, baseline or `--split` half), which should be
/// readable as any file the user makes, with no `chmod` racing the rename.
pub fn beside_new(dir: &Path, prefix: &str) -> io::Result<Temp> {
    let mut b = tempfile::Builder::new();
    b.prefix(prefix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // The umask applies, as tempfile's documentation says.
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    Ok(list(b.tempfile_in(dir)?))
}

/// A new temporary file in the system's temporary directory (standard
/// input read once, to be read again).
pub fn anywhere(prefix: &str) -> io::Result<Temp> {
    let file = tempfile::Builder::new().prefix(prefix).tempfile()?;
    Ok(list(file))
}

/// The directory a file at `path` lives in (`.` for a bare name).
pub fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

impl Temp {
    /// Renames the file to `path` (atomically, on one file system); it is
    /// unlisted once it is no longer a temporary file. On failure the
    /// temporary file is deleted.
    pub fn persist(self, path: &Path) -> io::Result<File> {
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
    pub fn renamed(self) {
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

impl Read for Temp {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.file.read(buf)
    }
}

impl Seek for Temp {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.file.seek(pos)
    }
}

/// Deletes every listed temporary file. For a signal handler's thread:
/// the run is about to end, so files are removed without being unlisted
/// (their owners' drops find them gone, which is not an error to them).
pub fn remove_all() {
    remove_where(|_| true);
}

fn remove_where(keep_out: impl Fn(&Path) -> bool) {
    let live = LIVE.lock().unwrap_or_else(PoisonError::into_inner);
    for path in live.values().filter(|p| keep_out(p)) {
        // Already gone (persisted a moment ago, or removed by its owner):
        // nothing to do.
        let _ = std::fs::remove_file(path);
    }
}

/// How many temporary files are listed now (tests hold this to zero after
/// a run).
pub fn live() -> usize {
    LIVE.lock().unwrap_or_else(PoisonError::into_inner).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_while_alive_unlisted_when_dropped_or_persisted() {
        let dir = tempfile::tempdir().expect("tempdir");
        let before = live();
        let a = beside(dir.path(), ".t-").expect("temp");
        let mut b = beside(dir.path(), ".t-").expect("temp");
        assert!(live() >= before + 2);
        b.write_all(b"x").expect("write");
        let target = dir.path().join("out");
        b.persist(&target).expect("persist");
        assert_eq!(std::fs::read(&target).expect("read"), b"x");
        let a_path = a.path().to_path_buf();
        drop(a);
        assert!(!a_path.exists());
    }

    #[test]
    fn remove_all_deletes_listed_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        let a = beside(dir.path(), ".t-").expect("temp");
        let p = a.path().to_path_buf();
        assert!(p.exists());
        // Only this test's files: other tests' may be live meanwhile.
        remove_where(|q| q.starts_with(dir.path()));
        assert!(!p.exists());
        // Its owner's drop finds it gone and does not mind.
        drop(a);
    }
}
