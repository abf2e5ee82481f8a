//! Output that has to wait: SARIF lists the files that could not be checked
//! (known only at the end) before its results, and JUnit gives its totals
//! before the testcases they count. Those writers put what is already
//! final here and copy it out once the part before it is known.
//!
//! The first MiB stays in memory, so the usual run with a handful of
//! findings never touches the disk (and needs no temporary directory);
//! past it everything goes to an anonymous temporary file, deleted when the
//! spill is dropped (or by the system if the process dies), so memory stays
//! the same however many findings there are.

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};

/// Bytes held in memory before a spill moves to a file.
const IN_MEMORY: usize = 1 << 20;

pub(crate) struct Spill {
    /// What is held, while it fits in `limit`; empty once `file` is open.
    mem: Vec<u8>,
    file: Option<BufWriter<File>>,
    limit: usize,
}

impl Spill {
    pub(crate) fn new() -> Self {
        Self::with_limit(IN_MEMORY)
    }

    /// A spill that moves to a file past `limit` bytes (the tests use 0 to
    /// take the file path on small inputs).
    pub(super) fn with_limit(limit: usize) -> Self {
        Spill {
            mem: Vec::new(),
            file: None,
            limit,
        }
    }

    /// The file, opened (with what memory held) at the first call.
    fn file(&mut self) -> io::Result<&mut BufWriter<File>> {
        let file = match self.file.take() {
            Some(f) => f,
            None => {
                // There is nowhere else to put a report that does not fit
                // in memory: the error goes back to the writer's caller,
                // and the run ends with status 2 and this reason.
                let f = tempfile::tempfile().map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        format!("cannot create a temporary file to hold the report: {e}"),
                    )
                })?;
                let mut f = BufWriter::new(f);
                f.write_all(&self.mem)?;
                self.mem = Vec::new();
                f
            }
        };
        Ok(self.file.insert(file))
    }

    /// Writes everything held to `out`, in order, and empties the spill
    /// for reuse (a file, once opened, is kept and truncated).
    pub(crate) fn drain_into(&mut self, out: &mut dyn Write) -> io::Result<()> {
        match &mut self.file {
            None => {
                out.write_all(&self.mem)?;
                self.mem.clear();
            }
            Some(w) => {
                w.flush()?;
                let f = w.get_mut();
                f.seek(SeekFrom::Start(0))?;
                io::copy(f, out)?;
                f.set_len(0)?;
                f.seek(SeekFrom::Start(0))?;
            }
        }
        Ok(())
    }
}

impl Spill {
    /// An empty spill that moves to a file at the same size as `self`.
    pub(super) fn like(&self) -> Spill {
        Spill::with_limit(self.limit)
    }

    /// Writes bytes `from..upto` of what is held to `out`, leaving the
    /// spill as it is (a writer picks parts of it at the end).
    pub(super) fn copy_range(
        &mut self,
        from: u64,
        upto: u64,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        match &mut self.file {
            None => {
                let (a, b) = (
                    usize::try_from(from).unwrap_or(usize::MAX),
                    usize::try_from(upto).unwrap_or(usize::MAX),
                );
                out.write_all(self.mem.get(a..b).unwrap_or_default())
            }
            Some(w) => {
                w.flush()?;
                let f = w.get_mut();
                f.seek(SeekFrom::Start(from))?;
                io::copy(&mut io::Read::take(&mut *f, upto.saturating_sub(from)), out)?;
                f.seek(SeekFrom::End(0))?;
                Ok(())
            }
        }
    }
}

impl Write for Spill {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.file.is_none() && self.mem.len() + buf.len() <= self.limit {
            self.mem.extend_from_slice(buf);
            return Ok(buf.len());
        }
        self.file()?.write_all(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drained(s: &mut Spill) -> Vec<u8> {
        let mut out = Vec::new();
        s.drain_into(&mut out).expect("drains");
        out
    }

    #[test]
    fn gives_back_what_it_was_given_in_memory_or_on_disk_and_is_reusable() {
        for limit in [0, 1, 5, 6, 1 << 20] {
            let mut s = Spill::with_limit(limit);
            s.write_all(b"abc").expect("writes");
            s.write_all(b"").expect("writes");
            s.write_all(b"def").expect("writes");
            assert_eq!(drained(&mut s), b"abcdef", "limit {limit}");
            assert_eq!(drained(&mut s), b"", "limit {limit}");
            s.write_all(b"gh").expect("writes");
            assert_eq!(drained(&mut s), b"gh", "limit {limit}");
            assert_eq!(s.file.is_some(), limit < 6, "limit {limit}");
        }
    }

    #[test]
    fn a_big_spill_goes_to_disk_and_comes_back_whole() {
        let mut s = Spill::with_limit(1000);
        let mut want = Vec::new();
        for i in 0..100_000u32 {
            let line = format!("line {i}\n");
            s.write_all(line.as_bytes()).expect("writes");
            want.extend_from_slice(line.as_bytes());
        }
        assert!(s.file.is_some() && s.mem.is_empty());
        assert_eq!(drained(&mut s), want);
    }
}
