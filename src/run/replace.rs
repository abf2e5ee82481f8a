//! Replacing the file `--fix` read, and only it, or nothing.
//!
//! The file is opened once ([`Original::open`]) and every pass reads that
//! descriptor ([`At`]), never the path again: an editor's save or an
//! export job's rename while the run goes on cannot splice a second file
//! into the copy. Before the copy is renamed over the path
//! ([`Original::replace`]), the path must still name the file that was
//! opened, unchanged (device, inode, size, modification time to the
//! nanosecond), and the descriptor must show no change either (an append
//! or a truncation in place); otherwise the copy is deleted and the file
//! left as it is. A window of microseconds remains between that last look
//! and the rename (`rename(2)` cannot be made conditional): a write that
//! lands in it is not seen, as only a lock the writer honoured could.
//!
//! Some files are not replaced at all, whatever their fixes:
//! - not a regular file (a FIFO, a device): refused before it is opened
//!   for good, as opening a FIFO waits for a writer and reading a device
//!   may never end;
//! - read-only (no write permission for its owner, whoever runs the fix:
//!   root may write anything, but the mode says the file is not to be
//!   changed);
//! - more than one hard link: a rename would give this name the fixed
//!   bytes and leave the others the old ones, two versions of one file.
//!   Writing the bytes through into the same inode instead is not atomic:
//!   a crash or a signal part way (the signal handler then deletes the
//!   temporary copy, the only whole version) leaves a file that is neither,
//!   which is the loss this module exists to prevent. So such a file is
//!   refused (`sed -i` splits it silently).
//!
//! What is kept: the mode, the owner and group (the owner only when the
//! run may give a file away, that is as root; the group whenever the run
//! may set it), and the extended attributes (ACLs, SELinux labels, a
//! user's tags). An attribute that cannot be copied refuses the
//! replacement: the file keeps it, unfixed, rather than losing it.

use crate::error::Error;
use crate::report::display_path;
use crate::tempfiles::Temp;
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Why the file `--fix` read was not replaced (its copy deleted, the file
/// left as it is); each names the file, on one line.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NotReplaced {
    #[cfg(unix)]
    #[error("{}: read-only (its mode gives its owner no write permission): not fixed; make it writable to fix it", display_path(.0))]
    ReadOnly(PathBuf),
    #[cfg(not(unix))]
    #[error("{}: read-only: not fixed; make it writable to fix it", display_path(.0))]
    ReadOnly(PathBuf),
    #[error("{}: has {links} hard links: replacing it would leave the other names with the old bytes, so it was not fixed; fix a copy (`cp`), or break the links", display_path(.path))]
    HardLinks { path: PathBuf, links: u64 },
    /// The copy could not take the file's metadata, or be renamed over it.
    #[error("{}: {error}; not fixed, left as it was", display_path(.path))]
    Io { path: PathBuf, error: io::Error },
    /// The file is not the one that was read: `change` says how.
    #[error("{}: {change} while it was being fixed: not fixed, left as it is now; run --fix again", display_path(.path))]
    Changed { path: PathBuf, change: &'static str },
}

/// Reads a file at an offset of its own (`pread`), so that any number of
/// readers share one descriptor without sharing (or moving) its offset:
/// the check, the copy of the bytes it leaves as they were, a diff.
pub(super) struct At<'a> {
    file: &'a File,
    pos: u64,
}

impl<'a> At<'a> {
    pub(super) fn new(file: &'a File) -> Self {
        At { file, pos: 0 }
    }

    pub(super) fn from(file: &'a File, pos: u64) -> Self {
        At { file, pos }
    }
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        #[cfg(unix)]
        let n = std::os::unix::fs::FileExt::read_at(self.file, buf, self.pos)?;
        #[cfg(windows)]
        let n = std::os::windows::fs::FileExt::seek_read(self.file, buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// What says a file is the one that was read, unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Identity {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: i64,
    mtime_nsec: i64,
}

impl Identity {
    #[cfg(unix)]
    pub(super) fn of(m: &Metadata) -> Identity {
        use std::os::unix::fs::MetadataExt;
        Identity {
            dev: m.dev(),
            ino: m.ino(),
            len: m.len(),
            mtime: m.mtime(),
            mtime_nsec: m.mtime_nsec(),
        }
    }

    #[cfg(not(unix))]
    pub(super) fn of(m: &Metadata) -> Identity {
        let since = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .unwrap_or_default();
        Identity {
            dev: 0,
            ino: 0,
            len: m.len(),
            mtime: i64::try_from(since.as_secs()).unwrap_or(i64::MAX),
            mtime_nsec: i64::from(since.subsec_nanos()),
        }
    }
}

/// A file `--fix` or `--diff` reads, opened once.
pub(super) struct Original {
    /// Every pass reads this descriptor ([`At`]).
    pub(super) file: File,
    /// The path renamed over: the target of a link named on the command
    /// line (the link stays a link), or the walked path itself.
    target: PathBuf,
    /// The path as named, when a link was followed from it to `target`.
    named: Option<PathBuf>,
    /// Where the fixed copy is made: beside `target`, so the rename stays
    /// on one file system.
    pub(super) dir: PathBuf,
    /// The path the messages name (as given).
    shown: PathBuf,
    meta: Metadata,
    id: Identity,
}

impl Original {
    /// Opens `path` for fixing. `follow`: a symbolic link is followed to
    /// its target (a path named on the command line); a walked path is not
    /// (a walk lists no links, and one that became a link since is not
    /// written through, wherever it points).
    pub(super) fn open(path: &Path, follow: bool) -> Result<Original, Error> {
        let target = if follow {
            std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?
        } else {
            path.to_path_buf()
        };
        // Told before opening: opening a FIFO waits for a writer, and
        // opening a device may act on it.
        let seen = if follow {
            std::fs::metadata(&target)
        } else {
            std::fs::symlink_metadata(&target)
        }
        .map_err(|e| Error::io(path, e))?;
        if !seen.is_file() {
            return Err(not_regular(path, &seen));
        }
        let file = open_regular(&target, follow).map_err(|e| Error::io(path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
        // Replaced between the look and the open.
        if !meta.is_file() {
            return Err(not_regular(path, &meta));
        }
        let dir = crate::tempfiles::dir_of(&target).to_path_buf();
        Ok(Original {
            file,
            named: (follow && target != path).then(|| path.to_path_buf()),
            target,
            dir,
            shown: path.to_path_buf(),
            id: Identity::of(&meta),
            meta,
        })
    }

    /// Why the file must not be replaced whatever its copy holds, if so.
    pub(super) fn refusal(&self) -> Option<NotReplaced> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if self.meta.mode() & 0o200 == 0 {
                return Some(NotReplaced::ReadOnly(self.shown.clone()));
            }
            if self.meta.nlink() > 1 {
                return Some(NotReplaced::HardLinks {
                    path: self.shown.clone(),
                    links: self.meta.nlink(),
                });
            }
        }
        #[cfg(not(unix))]
        if self.meta.permissions().readonly() {
            return Some(NotReplaced::ReadOnly(self.shown.clone()));
        }
        None
    }

    /// Renames `copy` over the file with the file's own mode, owner, group
    /// and extended attributes, if the file may be replaced and is still
    /// the one that was read, unchanged. Otherwise the copy is deleted, the
    /// file left as it is, and the reason (one line, naming the path)
    /// returned.
    pub(super) fn replace(&self, mut copy: Temp) -> Result<File, NotReplaced> {
        if let Some(why) = self.refusal() {
            return Err(why);
        }
        let io = |error| NotReplaced::Io {
            path: self.shown.clone(),
            error,
        };
        self.keep_metadata(copy.as_file_mut()).map_err(io)?;
        if let Some(change) = self.changed() {
            return Err(NotReplaced::Changed {
                path: self.shown.clone(),
                change,
            });
        }
        copy.persist(&self.target).map_err(io)
    }

    /// What happened to the file since it was opened, if anything.
    fn changed(&self) -> Option<&'static str> {
        let now = match self.file.metadata() {
            Ok(m) => Identity::of(&m),
            Err(_) => return Some("could no longer be read"),
        };
        if now != self.id {
            return Some("was written to");
        }
        // The entry renamed over, not a link that may have replaced it.
        match std::fs::symlink_metadata(&self.target) {
            Ok(m) if Identity::of(&m) == self.id => {}
            Ok(_) => return Some("was replaced"),
            Err(_) => return Some("was moved or deleted"),
        }
        if let Some(named) = &self.named {
            // The link named now points elsewhere.
            if !std::fs::metadata(named).is_ok_and(|m| Identity::of(&m) == self.id) {
                return Some("was replaced (the link now names another file)");
            }
        }
        None
    }

    /// The file's owner, group, extended attributes and mode, onto the
    /// copy ([`crate::output::keep_metadata`]).
    fn keep_metadata(&self, copy: &mut File) -> io::Result<()> {
        crate::output::keep_metadata(&self.file, &self.meta, copy)
    }
}

fn open_regular(path: &Path, follow: bool) -> io::Result<File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    // Should the path have become a FIFO or a device since it was looked
    // at: no wait for a writer, no controlling terminal, and (walked) no
    // link followed. Non-blocking changes nothing for a regular file.
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = OFlags::NONBLOCK | OFlags::NOCTTY;
        if !follow {
            flags |= OFlags::NOFOLLOW;
        }
        o.custom_flags(flags.bits() as i32);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = follow;
    o.open(path)
}

fn not_regular(path: &Path, m: &Metadata) -> Error {
    let t = m.file_type();
    let what = if t.is_symlink() {
        "a symbolic link met by a directory walk, which is not followed"
    } else if t.is_dir() {
        "a directory"
    } else {
        kind_of(&t)
    };
    Error::io(
        path,
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "not a regular file ({what}): --fix and --diff read a file more than once and replace it; check it without them"
            ),
        ),
    )
}

#[cfg(unix)]
fn kind_of(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

#[cfg(not(unix))]
fn kind_of(_: &std::fs::FileType) -> &'static str {
    "not a file"
}
