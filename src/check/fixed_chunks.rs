//! Where a check that fixes rows (`--fix`) sends its chunks: the
//! caller's [`FixedChunks`] and the [`RowFixes`] that say which fixes
//! apply; shared by the options, the row fixer and the pipeline.

use crate::diagnostic::Diagnostic;
use crate::rules::Rule;
use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Where a fixing check sends each chunk's bytes, in file order: the
/// fixed rows in their places, the others as they were read.
pub trait FixedChunks: Send {
    /// The chunk at file offset `base`, `len` bytes in the file; `bytes`
    /// is what the output holds in its place (the file's own bytes unless
    /// `changed`); `applied` counts the fixes applied in it by rule.
    /// `unsettling`: a fix removed or wrote a byte above ASCII before the
    /// file's encoding was told (from the first line that holds one, when
    /// the first 64 KiB hold none), so a check of the output may read it
    /// otherwise: only such a check knows what it finds. (What the first
    /// 64 KiB tell, the caller compares: see [`super::reads_alike`].)
    fn chunk(
        &mut self,
        base: u64,
        len: u64,
        bytes: &[u8],
        changed: bool,
        applied: &[(&'static Rule, u32)],
        unsettling: bool,
    );

    /// The file's first `len` bytes (all before its first row: a BOM, a
    /// `sep=` line, the header) are `bytes` in the output, with the fixes
    /// `applied`; comes before any chunk. The check reads the input as it
    /// is then (`bytes`, and the file from `len` on), and its later chunks'
    /// offsets are still the file's.
    fn head(&mut self, len: u64, bytes: &[u8], applied: &[(&'static Rule, u32)]) {
        self.chunk(0, len, bytes, true, applied, false);
    }
}

/// `--fix` in the check: which fixes apply, and where the chunks go.
pub struct RowFixes {
    /// Whether a finding's fix is to be applied (its applicability, the
    /// rule filter). Only fixes with edits are asked about.
    pub(crate) applies: Box<dyn Fn(&Diagnostic) -> bool + Send + Sync>,
    pub(crate) out: Mutex<Box<dyn FixedChunks>>,
    /// Buffers of fixed chunks, once written: reused, since a new one per
    /// chunk is a megabyte of fresh pages the kernel zeroes each time.
    spare: Mutex<Vec<Vec<u8>>>,
}

/// Buffers of fixed chunks kept for reuse: as many as chunks in flight,
/// and none larger than a few chunks (a chunk holding one huge record is
/// not kept, or a file of such records would pin that much memory).
const SPARE: usize = 16;
const SPARE_BYTES: usize = 4 << 20;

impl RowFixes {
    pub fn new(
        applies: Box<dyn Fn(&Diagnostic) -> bool + Send + Sync>,
        out: Box<dyn FixedChunks>,
    ) -> Self {
        RowFixes {
            applies,
            out: Mutex::new(out),
            spare: Mutex::new(Vec::new()),
        }
    }

    /// An empty buffer with room for `n` bytes.
    pub(super) fn buffer(&self, n: usize) -> Vec<u8> {
        let mut b = lock(&self.spare).pop().unwrap_or_default();
        b.clear();
        b.reserve(n);
        b
    }

    /// Takes back a buffer [`RowFixes::buffer`] gave.
    pub(super) fn give_back(&self, b: Vec<u8>) {
        let mut spare = lock(&self.spare);
        if spare.len() < SPARE && b.capacity() <= SPARE_BYTES {
            spare.push(b);
        }
    }
}

impl fmt::Debug for RowFixes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RowFixes")
    }
}

/// A lock that a panicking holder poisoned is still taken: the panic itself
/// reaches the reading thread and ends the check.
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Takes chunks and keeps nothing.
    struct Nowhere;

    impl FixedChunks for Nowhere {
        fn chunk(
            &mut self,
            _: u64,
            _: u64,
            _: &[u8],
            _: bool,
            _: &[(&'static Rule, u32)],
            _: bool,
        ) {
        }
    }

    #[test]
    fn only_chunk_sized_buffers_are_kept_for_reuse() {
        let fixes = RowFixes::new(Box::new(|_: &Diagnostic| true), Box::new(Nowhere));
        fixes.give_back(Vec::with_capacity(SPARE_BYTES + 1));
        assert!(lock(&fixes.spare).is_empty());
        fixes.give_back(Vec::with_capacity(1 << 20));
        assert_eq!(lock(&fixes.spare).len(), 1);
        for _ in 0..2 * SPARE {
            fixes.give_back(Vec::with_capacity(16));
        }
        assert_eq!(lock(&fixes.spare).len(), SPARE);
    }
}
