//! Chunks and their reader: the input cut into bytes of whole records
//! (found by the quote-parity scan of [`crate::scan::RecordBoundaries`]),
//! decoded when the file is in a legacy encoding, with the map back to the
//! file's offsets every finding's span passes through.

use super::encoding;
use super::finding::rebase;
use super::options::Options;
use crate::diagnostic::Diagnostic;
use crate::scan::RecordBoundaries;
use std::io::Read;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A reader that ends when `cancel` is set (see [`Options::cancel`]).
pub(crate) struct Cancellable<R> {
    pub(super) inner: R,
    pub(super) cancel: Option<Arc<AtomicBool>>,
}

impl<R> Cancellable<R> {
    pub(crate) fn new(inner: R, opts: &Options) -> Self {
        Cancellable {
            inner,
            cancel: opts.cancel.clone(),
        }
    }
}

impl<R: Read> Read for Cancellable<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            return Ok(0);
        }
        self.inner.read(buf)
    }
}

/// Bytes of whole records and their offset in the file.
pub(super) struct Chunk {
    pub(super) base: u64,
    pub(super) data: Vec<u8>,
    /// For a chunk of a legacy-encoded file: `data` is decoded, and this
    /// maps it back to the file's bytes.
    pub(super) decoded: Option<Box<encoding::Decoded>>,
    /// The file's encoding was told before this chunk: no change to this
    /// chunk's bytes beyond the first [`super::dialect::HEAD_LEN`] of the file
    /// could change how the file is read.
    pub(super) settled: bool,
}

impl Chunk {
    /// The file offset of chunk offset `o`.
    pub(super) fn file_offset(&self, o: usize) -> u64 {
        let o = match &self.decoded {
            None => o,
            Some(d) => d.original_offset(o),
        };
        self.base + o as u64
    }

    /// Moves a diagnostic from chunk offsets to file offsets. A decoded
    /// chunk's snippet is the file's bytes (one `?` for each byte above
    /// ASCII), so that spans index it as they index the file.
    pub(super) fn rebase(&self, mut d: Diagnostic) -> Diagnostic {
        let Some(dec) = &self.decoded else {
            return rebase(d, self.base);
        };
        let span = (d.span.start as usize, d.span.end as usize);
        d.span = self.file_offset(span.0)..self.file_offset(span.1);
        // Edits land on the file's bytes: mapped back like the span. One
        // that would write non-ASCII text into a legacy-encoded file would
        // mix two encodings in it, so such a fix is dropped (re-encoding
        // the whole file is `not-utf8`'s fix).
        if let Some(f) = &mut d.fix {
            if f.edits.iter().all(|e| e.content.is_ascii()) {
                for e in &mut f.edits {
                    e.span = self.file_offset(e.span.start as usize)
                        ..self.file_offset(e.span.end as usize);
                }
            } else {
                d.fix = None;
            }
        }
        if let Some(s) = &mut d.snippet {
            let from = s.offset as usize;
            let (a, b) = (
                dec.original_offset(from),
                dec.original_offset(from + s.text.len()),
            );
            s.offset = self.base + a as u64;
            s.text = dec.original[a..b.max(a)]
                .iter()
                .map(|&c| if c.is_ascii() { char::from(c) } else { '?' })
                .collect();
            // One byte a character in the file.
            s.first_byte_col = s.first_col;
        }
        d
    }

    /// The chunk from offset `at` on.
    pub(super) fn split_off(&self, at: usize) -> Chunk {
        Chunk {
            base: self.file_offset(at),
            data: self.data[at..].to_vec(),
            decoded: self.decoded.as_ref().map(|d| Box::new(d.split_off(at))),
            settled: self.settled,
        }
    }
}

/// The first chunk's size at most: the chunks before the first fold are
/// sized blind (see [`ChunkReader::adapt`]).
pub(super) const FIRST_CHUNK: usize = 64 << 10;
/// Findings a chunk should hold at most, when chunks shrink.
pub(super) const CHUNK_FINDINGS: usize = 16 << 10;
/// Chunks shrink no smaller.
pub(super) const MIN_CHUNK: usize = 16 << 10;

/// Reads a stream into chunks of about `chunk_size` bytes that end at
/// record boundaries.
pub(super) struct ChunkReader<R> {
    pub(super) r: R,
    /// `buf[..filled]` is read input; the rest is stale bytes that reads
    /// overwrite. Keeping the length lets reads go to memory that is already
    /// initialised: `read_to_end` zeroes its spare capacity before each
    /// read, a memset of the whole chunk.
    pub(super) buf: Vec<u8>,
    pub(super) filled: usize,
    /// How much of `buf` the boundary scan has seen.
    pub(super) scanned: usize,
    pub(super) last_boundary: Option<usize>,
    pub(super) bounds: RecordBoundaries,
    pub(super) base: u64,
    pub(super) eof: bool,
    /// The size of the next chunk: it starts small and grows to
    /// `max_chunk` while chunks have few findings (see [`ChunkReader::adapt`]).
    pub(super) chunk_size: usize,
    pub(super) max_chunk: usize,
    pub(super) max_record: usize,
    /// Set when a record exceeded `max_record`; reading stopped.
    pub(super) too_long: Option<Range<u64>>,
    /// Buffers of folded chunks, reused: a fresh megabyte costs page
    /// faults on every page.
    pub(super) spare: Vec<Vec<u8>>,
    /// The file's encoding as far as read, when the reader decodes a
    /// legacy-encoded file (see [`encoding`]); `None` reads bytes as they
    /// are.
    pub(super) encoding: Option<encoding::State>,
}

impl<R: Read> ChunkReader<R> {
    pub(super) fn new(r: R, chunk_size: usize, max_record: usize) -> Self {
        ChunkReader {
            r,
            buf: Vec::new(),
            filled: 0,
            scanned: 0,
            last_boundary: None,
            bounds: RecordBoundaries::default(),
            base: 0,
            eof: false,
            chunk_size: chunk_size.clamp(1, FIRST_CHUNK),
            max_chunk: chunk_size.max(1),
            max_record,
            too_long: None,
            spare: Vec::new(),
            encoding: None,
        }
    }

    /// `chunk`, decoded when the file is in a legacy encoding (which the
    /// first non-ASCII line decides).
    pub(super) fn decode(&mut self, mut chunk: Chunk) -> Chunk {
        use encoding::State;
        match self.encoding {
            None | Some(State::Utf8) => return chunk,
            Some(State::Undecided) => {
                let Some(first) = encoding::first_high(&chunk.data) else {
                    return chunk;
                };
                let rest = &chunk.data[first..];
                let line = memchr::memchr(b'\n', rest).map_or(rest, |end| &rest[..end]);
                if !encoding::looks_legacy(line) {
                    self.encoding = Some(State::Utf8);
                    return chunk;
                }
                self.encoding = Some(State::Legacy);
            }
            Some(State::Legacy) => {}
        }
        let (data, decoded) = encoding::decode(std::mem::take(&mut chunk.data));
        chunk.data = data;
        chunk.decoded = Some(Box::new(decoded));
        chunk
    }

    /// Sizes the next chunks from one just folded (`bytes` long, with
    /// `findings`): findings are held until their chunk is folded, and a
    /// few chunks are in flight, so a file with findings on every few
    /// bytes would hold hundreds of megabytes in 1 MiB chunks. Chunks
    /// shrink to about [`CHUNK_FINDINGS`] findings (no smaller than
    /// [`MIN_CHUNK`]) and grow back, doubling, on clean data. The output
    /// is the same at any chunk size.
    pub(super) fn adapt(&mut self, bytes: usize, findings: usize) {
        let fits = match findings {
            0 => usize::MAX,
            n => bytes.saturating_mul(CHUNK_FINDINGS) / n,
        };
        self.chunk_size = fits
            .min(self.chunk_size.saturating_mul(2))
            .clamp(MIN_CHUNK.min(self.max_chunk), self.max_chunk);
    }

    /// Takes back a chunk's buffer once its chunk is folded. A few are kept
    /// (as many as can be in flight is plenty); the rest are freed.
    pub(super) fn recycle(&mut self, buf: Vec<u8>) {
        // Not cleared: its bytes are stale but initialised, so reads can
        // reuse them without zeroing.
        if self.spare.len() < 16 && buf.capacity() <= 4 * self.max_chunk {
            self.spare.push(buf);
        }
    }

    pub(super) fn next_chunk(&mut self) -> std::io::Result<Option<Chunk>> {
        loop {
            if self.scanned < self.filled {
                if let Some(b) = self
                    .bounds
                    .last_boundary(&self.buf[self.scanned..self.filled])
                {
                    self.last_boundary = Some(self.scanned + b);
                }
                self.scanned = self.filled;
            }
            if self.eof || (self.filled >= self.chunk_size && self.last_boundary.is_some()) {
                break;
            }
            let pending = self.filled - self.last_boundary.unwrap_or(0);
            if pending > self.max_record {
                let start = self.base + self.last_boundary.unwrap_or(0) as u64;
                self.too_long = Some(start..start + pending as u64);
                // Stop reading; what is before the record is still checked.
                self.eof = true;
                self.filled = self.last_boundary.unwrap_or(0);
                break;
            }
            let want = self.chunk_size.max(self.filled / 2);
            if self.read_up_to(want)? == 0 {
                self.eof = true;
            }
        }
        if self.filled == 0 {
            return Ok(None);
        }
        let cut = if self.eof {
            self.filled
        } else {
            self.last_boundary
                .expect("loop exits with a boundary unless at eof")
        };
        let tail = &self.buf[cut..self.filled];
        let mut rest = self
            .spare
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(self.chunk_size.max(tail.len())));
        if rest.len() < tail.len() {
            rest.resize(tail.len(), 0);
        }
        rest[..tail.len()].copy_from_slice(tail);
        self.filled = tail.len();
        let mut data = std::mem::replace(&mut self.buf, rest);
        data.truncate(cut);
        let chunk = Chunk {
            base: self.base,
            data,
            decoded: None,
            settled: matches!(
                self.encoding,
                Some(encoding::State::Utf8 | encoding::State::Legacy)
            ),
        };
        self.base += cut as u64;
        self.scanned = self.filled;
        self.last_boundary = None;
        Ok(Some(self.decode(chunk)))
    }

    /// Reads until `want` more bytes are in or the input ends, like
    /// `take(want).read_to_end`, and returns how many came. Only the part
    /// of `buf` never used before is zeroed, once.
    pub(super) fn read_up_to(&mut self, want: usize) -> std::io::Result<usize> {
        let goal = self.filled + want;
        if self.buf.len() < goal {
            self.buf.resize(goal, 0);
        }
        let from = self.filled;
        while self.filled < goal {
            match self.r.read(&mut self.buf[self.filled..goal]) {
                Ok(0) => break,
                Ok(n) => self.filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(self.filled - from)
    }
}
/// Line endings seen in a chunk, for `mixed-line-endings`.
#[derive(Debug, Default, Clone)]
pub(super) struct Endings {
    /// (relative line, file span of the record) of the first of each kind.
    pub(super) first_lf: Option<(u64, Range<u64>)>,
    pub(super) first_crlf: Option<(u64, Range<u64>)>,
}

#[cfg(test)]
mod chunk_reader_tests {
    use super::*;

    /// Hands out a few bytes per read, so reads end anywhere.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            self.step = self.step % 7 + 1;
            let n = self.step.min(out.len()).min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    /// Recycled buffers keep stale bytes; none may leak into a chunk, and
    /// chunks must still tile the input at record boundaries.
    #[test]
    fn chunks_from_recycled_buffers_tile_the_input() {
        let mut input = Vec::new();
        for i in 0..300 {
            match i % 4 {
                0 => input.extend_from_slice(b"a,b,c\n"),
                1 => input.extend_from_slice(format!("\"x\ny\"\"{i}\",z\r\n").as_bytes()),
                2 => input.extend_from_slice(&vec![b'q'; i % 90]),
                _ => input.extend_from_slice(b"\n"),
            }
        }
        for chunk_size in [1, 5, 64, 1000] {
            for held in [0, 1, 3] {
                let mut r = ChunkReader::new(
                    Trickle {
                        data: &input,
                        step: 0,
                    },
                    chunk_size,
                    1 << 20,
                );
                let mut pending = std::collections::VecDeque::new();
                let mut out = Vec::new();
                while let Some(c) = r.next_chunk().expect("in-memory reads do not fail") {
                    assert_eq!(c.base, out.len() as u64);
                    out.extend_from_slice(&c.data);
                    if out.len() < input.len() {
                        assert_eq!(c.data.last(), Some(&b'\n'), "cut inside a line");
                        let quotes = bytecount::count(&out, b'"');
                        assert_eq!(quotes % 2, 0, "cut inside quotes");
                    }
                    pending.push_back(c.data);
                    while pending.len() > held {
                        if let Some(b) = pending.pop_front() {
                            r.recycle(b);
                        }
                    }
                }
                assert_eq!(out, input, "chunk size {chunk_size}, {held} held");
            }
        }
    }
}
