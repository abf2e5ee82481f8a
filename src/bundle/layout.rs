//! The archive as its bytes lay it out, read beside the `zip` crate's
//! reader, which sees one entry per name and only what the end record
//! points at. Three ways a ZIP reads differently in two readers are found
//! here: entries of the central directory the reader drops (a second
//! entry of one name hides the first; entries past the end record's
//! count), local entries the central directory does not list (a reader
//! that streams the archive from its first byte takes them), and entries
//! whose bytes overlap (one member named many times, to inflate a small
//! archive without bound).
//!
//! Every pass is linear in the archive's bytes and holds a few words per
//! entry (names only of the entries it reports), so a 100,000-member
//! archive or an overlap bomb costs what reading it costs.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};

const CENTRAL: &[u8; 4] = b"PK\x01\x02";
const LOCAL: &[u8; 4] = b"PK\x03\x04";
/// The fixed part of a local file header.
const LOCAL_HEADER: u64 = 30;

/// One entry the archive reader lists: where its bytes lie.
pub(super) struct Listed {
    /// Its local header.
    start: u64,
    /// At least its local header and compressed data: no more than it
    /// spans, whatever its header says of its name and extra field.
    least_end: u64,
    /// Past its compressed data, as its local header places the data.
    end: u64,
    /// Its central directory header.
    central: u64,
    index: usize,
}

/// Every entry the archive reader lists, in its order. An entry that
/// cannot be read is left out (reading it says why, later).
pub(super) fn listed(zip: &mut zip::ZipArchive<File>) -> Vec<Listed> {
    (0..zip.len())
        .filter_map(|index| {
            let f = zip.by_index_raw(index).ok()?;
            let start = f.header_start();
            let least_end = start.saturating_add(LOCAL_HEADER + f.compressed_size());
            let end = f
                .data_start()
                .map_or(least_end, |d| d.saturating_add(f.compressed_size()));
            Some(Listed {
                start,
                least_end,
                end: end.max(least_end),
                central: f.central_header_start(),
                index,
            })
        })
        .collect()
}

/// Two entries (by index) whose stored bytes overlap, if any. Each entry
/// is taken to span only its least extent, so entries laid out one after
/// another, as archivers write them, never overlap here.
pub(super) fn overlapping(listed: &[Listed]) -> Option<(usize, usize)> {
    let mut spans: Vec<(u64, u64, usize)> = listed
        .iter()
        .map(|l| (l.start, l.least_end, l.index))
        .collect();
    spans.sort_unstable();
    let mut reach: Option<(u64, usize)> = None;
    for &(start, end, i) in &spans {
        if let Some((far, j)) = reach {
            if start < far {
                return Some((j, i));
            }
        }
        if reach.is_none_or(|(far, _)| end > far) {
            reach = Some((end, i));
        }
    }
    None
}

/// Entries of the central directory that the archive reader does not
/// list, as a walk of the directory finds them.
#[derive(Debug, Default)]
pub(super) struct Unread {
    /// Names that several entries share: the reader keeps the last of
    /// each.
    pub(super) shared: Vec<Shared>,
    /// Entries after the last the end record counts: (number, name), the
    /// first few.
    pub(super) uncounted: Vec<(u64, String)>,
    pub(super) uncounted_total: u64,
}

/// A name several entries of the central directory share.
#[derive(Debug)]
pub(super) struct Shared {
    pub(super) name: String,
    /// The first few entries' numbers in the directory (1-based).
    pub(super) numbers: Vec<u64>,
    pub(super) total: u64,
}

impl Shared {
    fn add(&mut self, number: u64) {
        self.total += 1;
        if self.numbers.len() < SHOWN {
            self.numbers.push(number);
        }
    }
}

/// Entries named in a finding; the rest are counted.
pub(super) const SHOWN: usize = 5;

/// Walks the central directory from where the reader found it
/// (`dir_start`: the end record, ZIP64 or not, read past any bytes after
/// it), header by header while their signature lasts, and tells which of
/// them the reader does not list (`listed`): a second entry of one name
/// replaces the first in its table, and the end record's count may stop
/// short of the headers. `reader_count` is how many entries the reader
/// lists (`listed` leaves out those whose local header it cannot read).
/// Linear in the directory's bytes; names are kept only for the entries
/// reported.
pub(super) fn unread(
    file: &File,
    dir_start: u64,
    listed: &[Listed],
    reader_count: usize,
) -> io::Result<Unread> {
    let mut kept: Vec<u64> = listed.iter().map(|l| l.central).collect();
    kept.sort_unstable();
    let last_kept = kept.last().copied();
    let mut r = BufReader::new(file);
    r.seek(SeekFrom::Start(dir_start))?;
    let mut at = dir_start;
    let mut found = Unread::default();
    // Names of hidden entries, to the index of their group in `shared`.
    let mut groups: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut header = [0u8; 46];
    let mut number = 0u64;
    // The number of the last entry the reader lists.
    let mut last_kept_number = 0u64;
    loop {
        if read_up_to(&mut r, &mut header)? < header.len() || header[..4] != *CENTRAL {
            break;
        }
        number += 1;
        let len = |i: usize| u64::from(u16::from_le_bytes([header[i], header[i + 1]]));
        let (name_len, rest) = (len(28), len(30) + len(32));
        let mut name = Vec::new();
        if (&mut r).take(name_len).read_to_end(&mut name)? < name_len as usize {
            break;
        }
        r.seek_relative(i64::try_from(rest).unwrap_or(i64::MAX))?;
        let here = at;
        at += 46 + name_len + rest;
        let is_kept = kept.binary_search(&here).is_ok();
        if is_kept {
            last_kept_number = number;
        }
        if !is_kept && last_kept.is_some_and(|last| here > last) {
            // Past every entry the reader read: the end record's count
            // stopped before it.
            found.uncounted_total += 1;
            if found.uncounted.len() < SHOWN {
                found
                    .uncounted
                    .push((number, String::from_utf8_lossy(&name).into_owned()));
            }
        } else if !is_kept {
            // Read, then replaced by a later entry of its name.
            let next = found.shared.len();
            let g = *groups.entry(name.clone()).or_insert(next);
            if g == next {
                found.shared.push(Shared {
                    name: String::from_utf8_lossy(&name).into_owned(),
                    numbers: Vec::new(),
                    total: 0,
                });
            }
            found.shared[g].add(number);
        } else if let Some(&g) = groups.get(&name) {
            // The entry that replaced them, its name theirs byte for byte.
            found.shared[g].add(number);
        }
    }
    // An entry the reader lists but cannot open looks hidden too, alone
    // under its name: it is said when its member is read. Entries alone
    // stay only while the reader dropped more entries than the groups
    // explain (a name it decoded alike from other bytes).
    let dropped = last_kept_number.saturating_sub(reader_count as u64);
    let explained: u64 = found
        .shared
        .iter()
        .filter(|s| s.total > 1)
        .map(|s| s.total - 1)
        .sum();
    if dropped <= explained {
        found.shared.retain(|s| s.total > 1);
    }
    Ok(found)
}

/// Local file headers that no entry of the central directory lists.
#[derive(Debug, Default)]
pub(super) struct Unlisted {
    /// (offset, name) of the first few.
    pub(super) shown: Vec<(u64, String)>,
    pub(super) total: u64,
}

/// Bytes searched at a time for local headers.
const WINDOW: usize = 64 << 10;

/// Finds local file headers in the bytes before the central directory
/// (`dir_start`) that no listed entry spans: a reader that streams the
/// archive from its first byte takes each one for a member, a reader of
/// the central directory never sees it. Each byte outside the listed
/// entries is read once, a window at a time; a header found is skipped
/// whole when its sizes are known.
pub(super) fn unlisted(file: &File, dir_start: u64, listed: &[Listed]) -> io::Result<Unlisted> {
    let mut spans: Vec<(u64, u64)> = listed.iter().map(|l| (l.start, l.end)).collect();
    spans.sort_unstable();
    let mut found = Unlisted::default();
    let mut r = file;
    let mut cursor = 0u64;
    // One buffer for every gap: most are a few bytes (a data descriptor).
    let mut buf = vec![0u8; WINDOW + LOCAL.len() - 1];
    for (start, end) in spans.into_iter().chain([(dir_start, dir_start)]) {
        let gap_end = start.min(dir_start);
        if cursor < gap_end {
            scan_gap(&mut r, (cursor, gap_end), &mut buf, &mut found)?;
        }
        cursor = cursor.max(end);
    }
    Ok(found)
}

/// Searches `[from, to)` for local header signatures (each may run past
/// `to`), reading into `buf` ([`WINDOW`] bytes and a signature's less one).
fn scan_gap(
    r: &mut &File,
    (from, to): (u64, u64),
    buf: &mut [u8],
    found: &mut Unlisted,
) -> io::Result<()> {
    let mut pos = from;
    while pos < to {
        let want = usize::try_from(to - pos).map_or(WINDOW, |n| n.min(WINDOW));
        r.seek(SeekFrom::Start(pos))?;
        let got = read_up_to(r, &mut buf[..want + LOCAL.len() - 1])?;
        let window = &buf[..got];
        let hit = memchr::memmem::find_iter(window, LOCAL).find(|&k| k < want);
        let Some(k) = hit else {
            if got < want {
                break;
            }
            pos += want as u64;
            continue;
        };
        let at = pos + k as u64;
        pos = at + local_entry(r, at, found)?;
    }
    Ok(())
}

/// Counts the local header at `at` and returns the bytes to skip past it:
/// its header and data when its sizes are known, else its signature.
fn local_entry(r: &mut &File, at: u64, found: &mut Unlisted) -> io::Result<u64> {
    let mut h = [0u8; LOCAL_HEADER as usize];
    r.seek(SeekFrom::Start(at))?;
    let got = read_up_to(r, &mut h)?;
    found.total += 1;
    if got < h.len() {
        if found.shown.len() < SHOWN {
            found.shown.push((at, String::new()));
        }
        return Ok(LOCAL.len() as u64);
    }
    let u16_at = |i: usize| u64::from(u16::from_le_bytes([h[i], h[i + 1]]));
    let flags = u16_at(6);
    let size = u64::from(u32::from_le_bytes([h[18], h[19], h[20], h[21]]));
    let (name_len, extra_len) = (u16_at(26), u16_at(28));
    if found.shown.len() < SHOWN {
        let mut name = Vec::new();
        r.take(name_len).read_to_end(&mut name)?;
        found
            .shown
            .push((at, String::from_utf8_lossy(&name).into_owned()));
    }
    // Sizes after the data (bit 3) or in a ZIP64 field: the data is not
    // skipped, only searched like any other byte.
    let sized = flags & 8 == 0 && size != u64::from(u32::MAX);
    Ok(if sized {
        LOCAL_HEADER + name_len + extra_len + size
    } else {
        LOCAL.len() as u64
    })
}

/// Reads as much of `buf` as the reader has.
pub(super) fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}
