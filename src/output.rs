//! The files a run creates: the `--output-file` report, a
//! `--write-baseline` baseline and `--split`'s two halves. Each goes
//! through [`Output`], which decides once, before anything is written, how
//! the target is written so that nothing is destroyed on the way:
//!
//! - a regular file, or nothing yet: the bytes go to a temporary file
//!   beside the target ([`crate::tempfiles`]), flushed to disk and renamed
//!   over it once whole. A replaced file keeps its mode; a new one gets the
//!   mode `open(2)` gives (`0o666` under the umask), as `>` in a shell would.
//!   A symbolic link is followed to its target, which is replaced; the link
//!   stays a link.
//! - anything else that exists (a character device such as `/dev/null`, a
//!   FIFO), and whatever is reached through a descriptor link
//!   (`/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`): opened and written
//!   in place, appending, never replaced. A rename would put a regular file
//!   where the device was (as root, `/dev/null` for every later step of a
//!   CI job), or cannot cross into `/proc` at all; and `-o /dev/stdout >
//!   x.txt` means "into x.txt, as the shell opened it".
//!
//! [`Reads`] then holds the outputs of one run to the files it reads, by
//! identity (device and inode, or the normalized path of a file not there
//! yet), so that no output can replace an input.

use crate::report::display_path;
use crate::tempfiles::{self, Temp};
use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Component, Path, PathBuf};

/// Links followed before a path is taken for a loop, as the kernel's
/// `ELOOP` limit.
const MAX_LINKS: usize = 40;

/// A file being written: see the module's documentation. Dropped without
/// [`Output::commit`], it leaves its target as it was (a temporary file is
/// deleted; a device or FIFO has had what was written so far).
#[derive(Debug)]
pub(crate) struct Output {
    how: How,
}

#[derive(Debug)]
enum How {
    /// Written beside `target` and renamed over it.
    Replace {
        w: BufWriter<Temp>,
        target: PathBuf,
        /// The replaced file, opened, and its metadata (mode, owner,
        /// group, extended attributes: kept); `None` for a new file, whose
        /// temporary file was created with the right mode.
        keep: Option<Box<(File, fs::Metadata)>>,
    },
    /// Written in place: a device, a FIFO, a descriptor link.
    Through(BufWriter<File>),
}

/// Where a path leads, link by link.
#[derive(Debug, PartialEq, Eq)]
enum Target {
    /// Nothing there: the file to create (its directory canonical, links
    /// followed).
    New(PathBuf),
    /// A regular file, to replace (its directory canonical, links followed).
    Regular(PathBuf),
    /// Not a regular file, or reached through a descriptor link: written
    /// in place.
    Through,
    Directory,
}

/// Follows `path` link by link to what an `open(2)` of it would reach.
/// Each step's directory is made canonical, so a descriptor link is seen
/// whichever way it is named (`/dev/stdout`, `/dev/fd/1`, a link to them).
fn resolve(path: &Path) -> io::Result<Target> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let Some(name) = p.file_name().map(ToOwned::to_owned) else {
            // `/`, `..`, `a/..`: not a name a file can be created under.
            return match fs::metadata(&p) {
                Ok(m) if m.is_dir() => Ok(Target::Directory),
                Ok(_) => Ok(Target::Through),
                Err(e) => Err(e),
            };
        };
        let dir = fs::canonicalize(tempfiles::dir_of(&p))?;
        // A descriptor's link names an open file, pipe or socket, which a
        // rename can neither replace nor reach.
        if dir.starts_with("/proc") || dir.starts_with("/dev/fd") {
            return Ok(Target::Through);
        }
        let at = dir.join(name);
        match fs::symlink_metadata(&at) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Target::New(at)),
            Err(e) => return Err(e),
            Ok(m) if m.file_type().is_symlink() => {
                // Relative to the link's directory; an absolute one
                // replaces it in `join`.
                p = dir.join(fs::read_link(&at)?);
            }
            Ok(m) if m.is_file() => return Ok(Target::Regular(at)),
            Ok(m) if m.is_dir() => return Ok(Target::Directory),
            Ok(_) => return Ok(Target::Through),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

impl Output {
    /// Opens `path` for writing as the module's documentation says; the
    /// temporary file, if any, is named `<prefix>` and a random part.
    pub(crate) fn create(path: &Path, prefix: &str) -> io::Result<Output> {
        let how = match resolve(path)? {
            Target::Directory => return Err(io::ErrorKind::IsADirectory.into()),
            // Appending: a file reached through `/dev/stdout` may already
            // hold what a shell's `>>` or an earlier command wrote there.
            Target::Through => {
                How::Through(BufWriter::new(OpenOptions::new().append(true).open(path)?))
            }
            Target::New(at) => How::Replace {
                w: BufWriter::new(tempfiles::beside_new(tempfiles::dir_of(&at), prefix)?),
                target: at,
                keep: None,
            },
            Target::Regular(at) => {
                let from = File::open(&at)?;
                let meta = from.metadata()?;
                refuse_to_replace(&meta)?;
                How::Replace {
                    // Private (0o600) while written, whatever the old mode.
                    w: BufWriter::new(tempfiles::beside(tempfiles::dir_of(&at), prefix)?),
                    target: at,
                    keep: Some(Box::new((from, meta))),
                }
            }
        };
        Ok(Output { how })
    }

    /// The directory of the temporary file a replaced target is written
    /// to; `None` for a target written in place (a device, a FIFO).
    pub(crate) fn dir(&self) -> Option<&Path> {
        match &self.how {
            How::Replace { w, .. } => w.get_ref().path().parent(),
            How::Through(_) => None,
        }
    }

    /// Finishes the file: flushed (and for a replaced one synced, given its
    /// mode and renamed over its target). On failure the target is as it
    /// was before the run.
    pub(crate) fn commit(self) -> io::Result<()> {
        match self.prepare()? {
            Ready::Written => Ok(()),
            Ready::Rename { tmp, target } => tmp.persist(&target).map(drop),
        }
    }

    /// Everything but the rename: flushed, and a replacement synced and
    /// given its mode, for a caller that renames several files as one
    /// (`--split`: both halves or neither).
    pub(crate) fn prepare(self) -> io::Result<Ready> {
        match self.how {
            How::Through(mut w) => w.flush().map(|()| Ready::Written),
            How::Replace { w, target, keep } => {
                let mut tmp = w.into_inner().map_err(io::IntoInnerError::into_error)?;
                if let Some(kept) = keep {
                    let (from, meta) = *kept;
                    keep_metadata(&from, &meta, tmp.as_file_mut())?;
                }
                tmp.as_file().sync_all()?;
                Ok(Ready::Rename { tmp, target })
            }
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.how {
            How::Replace { w, .. } => w.write(buf),
            How::Through(w) => w.write(buf),
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.how {
            How::Replace { w, .. } => w.write_all(buf),
            How::Through(w) => w.write_all(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match &mut self.how {
            How::Replace { w, .. } => w.flush(),
            How::Through(w) => w.flush(),
        }
    }
}

/// Why an existing regular file must not be replaced, as `--fix` refuses
/// to replace it: its mode says it is not to be changed (root included),
/// or it has other names, which a rename would leave with the old bytes.
fn refuse_to_replace(meta: &fs::Metadata) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.mode() & 0o200 == 0 {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "read-only (its mode gives its owner no write permission): not replaced; make it writable, or name another file",
            ));
        }
        if meta.nlink() > 1 {
            return Err(io::Error::other(format!(
                "has {} hard links: replacing it would leave the other names with the old bytes, so it is not replaced; name another file, or break the links",
                meta.nlink()
            )));
        }
    }
    #[cfg(not(unix))]
    if meta.permissions().readonly() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "read-only: not replaced; make it writable, or name another file",
        ));
    }
    Ok(())
}

/// `meta`'s owner, group, extended attributes (read from `from`) and mode,
/// onto `copy`: in that order, as a change of owner clears the set-ID bits
/// and an access ACL rewrites the group bits the mode then restores.
pub(crate) fn keep_metadata(from: &File, meta: &fs::Metadata, copy: &mut File) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{fchown, MetadataExt};
        let (uid, gid) = (meta.uid(), meta.gid());
        let have = copy.metadata()?;
        if (have.uid(), have.gid()) != (uid, gid) {
            match fchown(&*copy, Some(uid), Some(gid)) {
                Ok(()) => {}
                // Only root gives a file away; the group can still be
                // kept if the run's user is in it.
                Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                    match fchown(&*copy, None, Some(gid)) {
                        Err(e) if e.kind() != io::ErrorKind::PermissionDenied => return Err(e),
                        _ => {}
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }
    #[cfg(target_os = "linux")]
    copy_xattrs(from, copy)?;
    #[cfg(not(target_os = "linux"))]
    let _ = from;
    copy.set_permissions(meta.permissions())
}

/// Copies every extended attribute of `from` that `to` lacks or holds
/// otherwise. One that cannot be copied is an error: the replacement is
/// refused rather than the attribute lost.
#[cfg(target_os = "linux")]
fn copy_xattrs(from: &File, to: &File) -> io::Result<()> {
    use rustix::fs::{
        fgetxattr, fgetxattr_query, flistxattr, flistxattr_query, fsetxattr, XattrFlags,
    };
    let names = match read_sized(|| flistxattr_query(from), |buf| flistxattr(from, buf)) {
        Ok(n) => n,
        // The file system keeps none.
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::OPNOTSUPP.raw_os_error()) => {
            return Ok(())
        }
        Err(e) => return Err(e),
    };
    for name in names.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let Ok(name) = std::ffi::CString::new(name) else {
            continue;
        };
        let name = name.as_c_str();
        let value = read_sized(
            || fgetxattr_query(from, name),
            |buf| fgetxattr(from, name, buf),
        )?;
        let there = read_sized(|| fgetxattr_query(to, name), |buf| fgetxattr(to, name, buf)).ok();
        if there.as_deref() == Some(&value[..]) {
            continue;
        }
        fsetxattr(to, name, &value, XattrFlags::empty()).map_err(|e| {
            io::Error::new(
                io::Error::from(e).kind(),
                format!(
                    "cannot keep its extended attribute {}: {e}",
                    name.to_string_lossy()
                ),
            )
        })?;
    }
    Ok(())
}

/// A list or value of unknown size: asked for its size, then read, again
/// if it grew in between.
#[cfg(target_os = "linux")]
fn read_sized(
    size: impl Fn() -> rustix::io::Result<usize>,
    get: impl Fn(&mut [u8]) -> rustix::io::Result<usize>,
) -> io::Result<Vec<u8>> {
    loop {
        let mut buf = vec![0; size()?];
        if buf.is_empty() {
            return Ok(buf);
        }
        match get(&mut buf) {
            Ok(n) => {
                buf.truncate(n);
                return Ok(buf);
            }
            Err(rustix::io::Errno::RANGE) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// An [`Output`] written whole, short of its rename.
#[derive(Debug)]
pub(crate) enum Ready {
    /// Written in place (a device, a FIFO): nothing left to do, nothing
    /// to undo.
    Written,
    /// To be renamed over `target` (its directory canonical, links
    /// followed).
    Rename { tmp: Temp, target: PathBuf },
}

/// What makes two paths one file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Id {
    /// An existing regular file: device and inode, so hard links, symbolic
    /// links and `./a` against `a` are all seen.
    File(u64, u64),
    /// A file not there yet: where it would be created.
    Path(PathBuf),
}

/// The identity of a regular file or a file to be created at `path`;
/// `None` for anything else (a device, a FIFO, a directory), which a run
/// writes in place or refuses, so never loses.
fn identity(path: &Path) -> Option<Id> {
    match fs::metadata(path) {
        Ok(m) if m.is_file() => Some(file_id(path, &m)),
        Ok(_) => None,
        Err(_) => Some(Id::Path(match resolve(path) {
            Ok(Target::New(at)) => at,
            // No directory to create it in: writing fails later, and an
            // input there fails to be read; the same words are one file.
            _ => lexical(path),
        })),
    }
}

#[cfg(unix)]
fn file_id(_: &Path, m: &fs::Metadata) -> Id {
    use std::os::unix::fs::MetadataExt;
    Id::File(m.dev(), m.ino())
}

#[cfg(not(unix))]
fn file_id(path: &Path, _: &fs::Metadata) -> Id {
    Id::Path(fs::canonicalize(path).unwrap_or_else(|_| lexical(path)))
}

/// `path` made absolute, `.` dropped and `..` resolved without asking the
/// file system.
fn lexical(path: &Path) -> PathBuf {
    let abs = std::env::current_dir().map_or_else(|_| path.to_path_buf(), |d| d.join(path));
    let mut out = PathBuf::new();
    for c in abs.components() {
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

/// The files a run reads, each with the words a refusal names it by.
#[derive(Debug, Default)]
pub(crate) struct Reads {
    ids: HashMap<Id, String>,
}

/// One output of a run: the flag that names it (`--output-file`,
/// `--split GOOD`) and its path.
pub(crate) type Named<'a> = (&'a str, &'a Path);

impl Reads {
    /// `path` is read, and a refusal calls it `what` ("an input").
    pub(crate) fn file(&mut self, path: &Path, what: &str) {
        if let Some(id) = identity(path) {
            self.ids.entry(id).or_insert_with(|| what.to_owned());
        }
    }

    /// Standard input is read: when it is a regular file (`< a.csv`), an
    /// output may not replace that file.
    pub(crate) fn stdin(&mut self) {
        #[cfg(unix)]
        {
            use std::os::fd::AsFd;
            let m = io::stdin()
                .as_fd()
                .try_clone_to_owned()
                .map(File::from)
                .and_then(|f| f.metadata());
            if let Ok(m) = m {
                if m.is_file() {
                    self.ids
                        .entry(file_id(Path::new("-"), &m))
                        .or_insert_with(|| "standard input".to_owned());
                }
            }
        }
    }

    /// Why `outputs` cannot be written as asked, if they cannot: one names
    /// a directory, a file read, or the file another names. Devices and
    /// FIFOs never conflict: they are written in place.
    pub(crate) fn conflict(&self, outputs: &[Named<'_>]) -> Option<String> {
        let shown = |p: &Path| display_path(p);
        let mut seen: Vec<(Id, Named<'_>)> = Vec::new();
        for &(flag, path) in outputs {
            if fs::metadata(path).is_ok_and(|m| m.is_dir()) {
                return Some(format!("{flag} {} is a directory", shown(path)));
            }
            let Some(id) = identity(path) else { continue };
            if let Some(what) = self.ids.get(&id) {
                return Some(format!("{flag} {} is also {what}", shown(path)));
            }
            if let Some((_, (other, other_path))) = seen.iter().find(|(i, _)| *i == id) {
                return Some(format!(
                    "{other} {} and {flag} {} are one file",
                    shown(other_path),
                    shown(path)
                ));
            }
            seen.push((id, (flag, path)));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::Permissions;

    #[test]
    fn a_new_file_and_a_regular_one_are_replaced_a_device_written_in_place() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = fs::canonicalize(dir.path()).expect("canonical");
        let new = d.join("new.txt");
        assert_eq!(resolve(&new).expect("resolve"), Target::New(new.clone()));
        fs::write(&new, "x").expect("write");
        assert_eq!(
            resolve(&new).expect("resolve"),
            Target::Regular(new.clone())
        );
        assert_eq!(resolve(&d).expect("resolve"), Target::Directory);
        #[cfg(unix)]
        {
            assert_eq!(
                resolve(Path::new("/dev/null")).expect("resolve"),
                Target::Through
            );
            let link = d.join("link.txt");
            std::os::unix::fs::symlink("new.txt", &link).expect("symlink");
            assert_eq!(resolve(&link).expect("resolve"), Target::Regular(new));
            let dangling = d.join("dangling.txt");
            std::os::unix::fs::symlink("sub/../later.txt", &dangling).expect("symlink");
            assert!(resolve(&dangling).is_err(), "no directory `sub`");
            let loop_a = d.join("a");
            std::os::unix::fs::symlink("b", &loop_a).expect("symlink");
            std::os::unix::fs::symlink("a", d.join("b")).expect("symlink");
            assert!(resolve(&loop_a).is_err());
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn descriptor_links_are_written_in_place() {
        for p in ["/dev/stdout", "/dev/fd/2", "/proc/self/fd/1"] {
            assert_eq!(resolve(Path::new(p)).expect(p), Target::Through, "{p}");
        }
    }

    #[test]
    fn outputs_conflict_with_reads_and_each_other_by_identity() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        let input = d.join("in.csv");
        fs::write(&input, "a\n").expect("write");
        let mut reads = Reads::default();
        reads.file(&input, "an input");
        let same = d.join(".").join("in.csv");
        assert_eq!(
            reads.conflict(&[("--output-file", &same)]),
            Some(format!("--output-file {} is also an input", same.display()))
        );
        let (a, b) = (d.join("a.csv"), d.join("sub/../a.csv"));
        fs::create_dir(d.join("sub")).expect("mkdir");
        assert_eq!(
            reads.conflict(&[("--split GOOD", &a), ("--split BAD", &b)]),
            Some(format!(
                "--split GOOD {} and --split BAD {} are one file",
                a.display(),
                b.display()
            ))
        );
        assert_eq!(
            reads.conflict(&[("--output-file", d)]),
            Some(format!("--output-file {} is a directory", d.display()))
        );
        assert_eq!(reads.conflict(&[("--split GOOD", &a)]), None);
        #[cfg(unix)]
        {
            let null = Path::new("/dev/null");
            assert_eq!(
                reads.conflict(&[("--split GOOD", null), ("--split BAD", null)]),
                None
            );
            let hard = d.join("hard.csv");
            fs::hard_link(&input, &hard).expect("hard link");
            assert!(reads.conflict(&[("--write-baseline", &hard)]).is_some());
        }
    }

    #[cfg(unix)]
    #[test]
    fn commit_renames_with_the_old_mode_and_drop_leaves_the_target() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("r.txt");
        fs::write(&p, "OLD").expect("write");
        fs::set_permissions(&p, Permissions::from_mode(0o640)).expect("chmod");
        let mut o = Output::create(&p, ".t-").expect("create");
        o.write_all(b"half").expect("write");
        drop(o);
        assert_eq!(fs::read_to_string(&p).expect("read"), "OLD");
        let mut o = Output::create(&p, ".t-").expect("create");
        assert_eq!(o.dir(), fs::canonicalize(dir.path()).ok().as_deref());
        o.write_all(b"NEW").expect("write");
        o.commit().expect("commit");
        assert_eq!(fs::read_to_string(&p).expect("read"), "NEW");
        let mode = fs::metadata(&p).expect("stat").permissions().mode();
        assert_eq!(mode & 0o7777, 0o640);
        assert_eq!(fs::read_dir(dir.path()).expect("dir").count(), 1);
    }
}
