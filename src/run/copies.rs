//! The fixed copies the `--fix` passes make, beside the original: chunk
//! by chunk as a check that fixes rows folds them ([`ChunkWriter`], which
//! starts their writeback as it goes), or whole, by a rewrite of every
//! record ([`rewrite`]). Its own file, below `passes.rs`, which decides
//! what each pass does: this one only writes bytes.

use super::replace::At;
use crate::check::{self, split, Options};
use crate::diagnostic::Transform;
use crate::rules::Rule;
use crate::tempfiles::{self, Temp};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// The read and write buffers of the copy a pass makes.
pub(super) const IO_BUFFER: usize = 1 << 20;

/// Fixes applied, by rule code.
pub(super) type Counts = BTreeMap<&'static str, (&'static Rule, usize)>;

/// The output of a pass that fixes rows inside the check: chunks come in
/// file order; until one is changed nothing is written (a file with no fix
/// is not copied), then what came before is copied from the source and
/// every chunk is written from memory.
pub(super) struct ChunkWriter {
    source: File,
    dir: PathBuf,
    /// Unbuffered: chunks are written whole, from memory (a buffer would
    /// copy every byte once more).
    out: Option<Temp>,
    /// Offset in the source written up to.
    pos: u64,
    /// Offset in the output up to which writing out was started.
    advised: u64,
    /// Drop the source's pages from the cache once written out: replacing
    /// the original frees them anyway, and the rename would do it all at
    /// the end.
    drop_source: bool,
    pub(super) applied: Counts,
    /// A fix may change how the output is read (see
    /// [`check::FixedChunks::chunk`]).
    pub(super) unsettled: bool,
    /// The file's head as the check read it, if its fixes were made first
    /// (see [`check::FixedChunks::head`]): its length in the file, and its
    /// bytes.
    pub(super) head: Option<(u64, Vec<u8>)>,
    error: Option<io::Error>,
}

/// Starts writing out what was written to `f` since `from`, but for its
/// last few MiB, and returns where that ends. Renaming a new file over an
/// old one makes ext4 flush what the new one still holds in memory (so that
/// a crash leaves one of the two whole): left to the rename, that is a
/// tenth of a second or more for 300 MB at the very end, which done as the
/// file is written overlaps the check. `POSIX_FADV_DONTNEED` on dirty pages
/// starts their writeback and drops none of them (only clean pages are
/// dropped, and each range is advised once, while dirty). A hint: a failure
/// changes nothing.
fn start_writeback(f: &File, from: u64) -> u64 {
    // Behind the end by a few MiB: the newest pages may be written again
    // (a short write's retry).
    const LAG: u64 = 8 << 20;
    let mut handle = f;
    let Ok(end) = handle.stream_position() else {
        return from;
    };
    let upto = end.saturating_sub(LAG);
    if upto <= from {
        return from;
    }
    #[cfg(target_os = "linux")]
    let _ = rustix::fs::fadvise(
        f,
        from,
        std::num::NonZeroU64::new(upto - from),
        rustix::fs::Advice::DontNeed,
    );
    upto
}

/// The writer as the check holds it.
pub(super) struct Shared(pub(super) Arc<Mutex<ChunkWriter>>);

impl check::FixedChunks for Shared {
    fn chunk(
        &mut self,
        base: u64,
        len: u64,
        bytes: &[u8],
        changed: bool,
        applied: &[(&'static Rule, u32)],
        unsettling: bool,
    ) {
        let mut w = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        w.take(base, len, bytes, changed, applied, unsettling);
    }

    fn head(&mut self, len: u64, bytes: &[u8], applied: &[(&'static Rule, u32)]) {
        let mut w = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        w.head = Some((len, bytes.to_vec()));
        w.take(0, len, bytes, true, applied, false);
    }
}

impl ChunkWriter {
    /// A writer of the copy of `source` (made in `dir` once a chunk
    /// changed); `drop_source`: the source's cached pages are of no more
    /// use once written out.
    pub(super) fn new(source: File, dir: &Path, drop_source: bool) -> Self {
        ChunkWriter {
            source,
            dir: dir.to_path_buf(),
            out: None,
            pos: 0,
            advised: 0,
            drop_source,
            applied: BTreeMap::new(),
            unsettled: false,
            head: None,
            error: None,
        }
    }

    fn take(
        &mut self,
        base: u64,
        len: u64,
        bytes: &[u8],
        changed: bool,
        applied: &[(&'static Rule, u32)],
        unsettling: bool,
    ) {
        self.unsettled |= unsettling;
        for &(rule, n) in applied {
            self.applied.entry(rule.code).or_insert((rule, 0)).1 += n as usize;
        }
        if self.error.is_none() {
            if let Err(e) = self.put(base, len, bytes, changed) {
                self.error = Some(e);
            }
        }
    }

    /// The first [`check::dialect::HEAD_LEN`] bytes of the input as the
    /// check read it: the source's, or after a fixed head the fixed head's
    /// and the source's after it. What they tell of the reading the copy's
    /// own must tell too.
    pub(super) fn read_head(&self) -> io::Result<Vec<u8>> {
        let want = check::dialect::HEAD_LEN;
        let (skip, mut h) = match &self.head {
            Some((len, bytes)) => (*len, bytes[..bytes.len().min(want)].to_vec()),
            None => (0, Vec::new()),
        };
        let more = want - h.len();
        At::from(&self.source, skip)
            .take(more as u64)
            .read_to_end(&mut h)?;
        Ok(h)
    }

    fn put(&mut self, base: u64, len: u64, bytes: &[u8], changed: bool) -> io::Result<()> {
        if self.out.is_none() {
            if !changed {
                return Ok(());
            }
            self.out = Some(tempfiles::beside(&self.dir, ".bdxlint-fix-")?);
        }
        self.copy_source(Some(base))?;
        if let Some(out) = &mut self.out {
            let f = out.as_file_mut();
            f.write_all(bytes)?;
            self.advised = start_writeback(f, self.advised);
        }
        #[cfg(target_os = "linux")]
        if self.drop_source {
            // A hint, as above.
            let _ = rustix::fs::fadvise(
                &self.source,
                base,
                std::num::NonZeroU64::new(len),
                rustix::fs::Advice::DontNeed,
            );
        }
        self.pos = base + len;
        Ok(())
    }

    /// Copies the source from where the output is up to `to` (to its end
    /// if `None`).
    fn copy_source(&mut self, to: Option<u64>) -> io::Result<()> {
        if to == Some(self.pos) {
            return Ok(());
        }
        let Some(out) = &mut self.out else {
            return Ok(());
        };
        let mut src = At::from(&self.source, self.pos);
        match to {
            Some(to) => {
                let want = to.saturating_sub(self.pos);
                if io::copy(&mut src.take(want), out.as_file_mut())? < want {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the file changed while it was being fixed",
                    ));
                }
                self.pos = to;
            }
            None => self.pos += io::copy(&mut src, out.as_file_mut())?,
        }
        Ok(())
    }

    /// The fixed copy, if a chunk was changed.
    pub(super) fn finish(&mut self) -> io::Result<Option<Temp>> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.copy_source(None)?;
        Ok(self.out.take())
    }
}

/// The copy of `from` a whole-file fix makes, beside the original, or why
/// it was refused: a record that does not read unambiguously in the file's
/// dialect, or a copy that would be read in another (the error then holds a
/// [`split::Doubt`]: see [`split::refusal`]). A refused copy is dropped,
/// unfinished, and nothing is replaced.
pub(super) fn rewrite(t: Transform, from: &File, dir: &Path, opts: &Options) -> io::Result<Temp> {
    let opts = Options {
        cancel: None,
        ..opts.clone()
    };
    // Read at its own offsets: the file the run opened, not its path.
    let open = || -> io::Result<BufReader<At<'_>>> {
        Ok(BufReader::with_capacity(IO_BUFFER, At::new(from)))
    };
    let out = tempfiles::beside(dir, ".bdxlint-fix-")?;
    let mut w = BufWriter::with_capacity(IO_BUFFER, out);
    match t {
        Transform::LineEndings => {
            let (lf, crlf, header) = split::count_endings(open()?, &opts)?;
            split::normalise_endings(open()?, &opts, (lf, crlf), header, &mut w)?;
        }
        Transform::DropTrailingFields(n) => split::drop_trailing_fields(
            open()?,
            &opts,
            usize::try_from(n).unwrap_or(usize::MAX),
            &mut w,
        )?,
        Transform::ToCommas => split::to_commas(open()?, &opts, &mut w)?,
        Transform::Windows1252ToUtf8 => split::cp1252_to_utf8(open()?, &opts, &mut w)?,
    }
    let out = w.into_inner().map_err(|e| e.into_error())?;
    // Every record read as it was; the copy must also be read in the
    // dialect it was written in, which its first bytes tell anew.
    let (delim, sep) = split::dialect_after(t, split::dialect_of(open()?)?);
    split::verify_dialect_of(File::open(out.path())?, delim, sep)?;
    Ok(out)
}
