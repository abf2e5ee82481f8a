//! Reading a small file bdxlint is told to read whole (a configuration;
//! a baseline is read line by line, in `baseline.rs`) with a bound (named
//! for that: it was `files.rs`, a name the run's checking of every input
//! had too): a path such as `/dev/zero` or an endless pipe stops at the
//! bound with a clear error instead of growing memory until the kernel
//! kills the process.

use std::io::Read;
use std::path::Path;

/// Largest configuration file read.
pub(crate) const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Why a bounded file could not be read; the caller names the file.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("larger than {} MiB; is this the right file?", .limit >> 20)]
    TooLarge { limit: u64 },
    #[error("not UTF-8 text")]
    NotUtf8,
}

/// The UTF-8 text of `path`, if it is at most `limit` bytes.
pub(crate) fn read_bounded(path: &Path, limit: u64) -> Result<String, ReadError> {
    let file = std::fs::File::open(path)?;
    let mut buf = Vec::new();
    file.take(limit + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    String::from_utf8(buf).map_err(|_| ReadError::NotUtf8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_file_stops_at_the_bound() {
        let e = read_bounded(Path::new("/dev/zero"), 1 << 20).expect_err("endless");
        assert!(e.to_string().contains("larger than 1 MiB"), "{e}");
    }

    #[test]
    fn a_small_file_reads_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("a.toml");
        std::fs::write(&p, "select = []\n").expect("write");
        assert_eq!(read_bounded(&p, 64).ok().as_deref(), Some("select = []\n"));
        assert!(read_bounded(&p, 4).is_err());
    }
}
