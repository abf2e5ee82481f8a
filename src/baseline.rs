//! Baselines: adopt bdxlint on an existing export without fixing every old
//! finding first. `--write-baseline FILE` records the current findings;
//! `--baseline FILE` then reports only findings not recorded, and counts
//! the recorded ones that no longer occur (fixed, so the baseline can be
//! rewritten smaller).
//!
//! A finding is recorded by its file (and ZIP member) and the content hash
//! of [`crate::report::fingerprint`] (rule, path, column and the offending
//! cell's text), never by line number: exports re-sort rows, and a baseline
//! keyed by lines would report every finding as new after a sort. Equal
//! cells with the same finding share a hash, so each entry has a count; a
//! run with more of them than recorded reports the extra ones.
//!
//! The file is text, one line a distinct finding, so that a million
//! findings make tens of megabytes, not hundreds, and it is both written
//! and read as a stream (version 1 was JSON with every message, read
//! whole: 280 MB for 1.4 million findings, which its own reader refused):
//!
//! ```text
//! bdxlint baseline 2
//! file "uploads/bulk.zip" "entities.csv"
//! C015 3f2a9c0b1d4e5f60 2
//! ```
//!
//! `file` names a file as reports print it (and a ZIP member), as JSON
//! strings; each line below it is a rule code, the 16 hex digits of the
//! hash and how many findings share it. A file whose `file` line would be
//! longer than [`MAX_LINE`] (a ZIP member's name may take 64 KiB, and
//! escaping grows it) is named by `file-hash` and the two hashes the
//! reader keeps of it instead, so that no upload's name keeps a repository
//! from being baselined. A `file` line has at least one entry under it.
//! Lines starting with `#` are comments. Every baseline bdxlint writes
//! stays under [`MAX_BYTES`] and [`max_groups`] files (a run with more
//! writes none and says so) and no line is longer than [`MAX_LINE`], so
//! reading one holds 16 bytes a distinct finding and 16 a file (up to
//! twice that while the vectors grow, and 8 more a file while they are
//! sorted), never the file: `/dev/zero` stops at its first line.
//!
//! Paths are recorded as given on the command line (forward slashes, no
//! leading `./`): run bdxlint from the same directory when writing and
//! reading a baseline, as CI does.

use crate::diagnostic::Diagnostic;
use crate::report::{display_path, fingerprint, uri};
use std::collections::{HashMap, HashSet};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// The first line of every baseline this version writes and reads.
const HEADER: &str = "bdxlint baseline 2";
/// The comment written below it, for whoever opens the file.
const ABOUT: &str = "# Findings `bdxlint check --baseline` does not report: under each file, a rule, a fingerprint and how many. Write it again with --write-baseline.";
/// The largest baseline written or read: about 2.7 million distinct
/// findings (24 bytes each, a few more for counts over 9).
const MAX_BYTES: u64 = 64 << 20;
/// The longest line of a baseline: a `file` line of a long path (a path
/// is at most 4 KiB on Linux, escaped for JSON it may grow).
const MAX_LINE: usize = 16 << 10;
/// The fewest bytes an entry's line takes (`C004 <16 hex> 1\n`): the
/// recorder stops once its distinct findings could not fit in [`MAX_BYTES`].
const MIN_ENTRY_LINE: u64 = 4 + 1 + 16 + 1 + 1 + 1;
/// Entries the recorder gathers before it first sorts and merges them.
const FIRST_MERGE: usize = 1 << 16;
/// The most files (and members) a baseline of `limit` bytes names, written
/// or read: one for each 64 bytes. Each costs the reader 16 bytes (and 8
/// more while it sorts them), so that a file of short `file` lines stays
/// within the memory a run keeps to.
const fn max_groups(limit: u64) -> usize {
    (limit / 64) as usize
}

/// A baseline that cannot be read or written; each names the file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BaselineError {
    #[error("baseline {}: {error}", display_path(.path))]
    Read { path: PathBuf, error: io::Error },
    #[error("baseline {}: larger than {} MiB, more than any baseline bdxlint writes; is this the right file?", display_path(.path), .limit >> 20)]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("baseline {}: line {line} is longer than {} KiB, longer than any line of a baseline; is this the right file?", display_path(.path), MAX_LINE >> 10)]
    LongLine { path: PathBuf, line: u64 },
    /// A baseline of version 1 (JSON), which is not read: one reader of one
    /// form, and a large run's version 1 was past what its own reader took;
    /// one run writes it again.
    #[error("baseline {}: a baseline of an older bdxlint (JSON, version 1), which this version does not read; write it again with `bdxlint check --write-baseline {}` and the files it covers", display_path(.path), display_path(.path))]
    Version1 { path: PathBuf },
    /// Whatever fails on line 1: no advice to write over it, as it may be
    /// any file (`--baseline /etc/os-release`).
    #[error("baseline {}: not a bdxlint baseline ({why}); is this the right file?", display_path(.path))]
    NotBaseline { path: PathBuf, why: &'static str },
    /// A line that does not read; the file's bytes are not quoted.
    #[error("baseline {}: line {line}: {reason}; write it again with `bdxlint check --write-baseline`", display_path(.path))]
    Malformed {
        path: PathBuf,
        line: u64,
        reason: &'static str,
    },
    #[error("baseline {}: {error}", display_path(.path))]
    Write { path: PathBuf, error: io::Error },
    /// The run's findings would make a baseline over the bound.
    #[error("baseline {} not written: {what}, over the {} MiB a baseline may take; it is left as it was (record fewer findings: --select, --ignore, or fix some first)", display_path(.path), .limit >> 20)]
    Over {
        path: PathBuf,
        what: String,
        limit: u64,
    },
    #[error("baseline {} not written: findings in more than {limit} files, the most a baseline may name; it is left as it was (record fewer files: write a baseline for each directory)", display_path(.path))]
    TooManyFiles { path: PathBuf, limit: usize },
    #[error("baseline {}: line {line}: more files than the {limit} a baseline may name, more than any baseline bdxlint writes; is this the right file?", display_path(.path))]
    ManyFiles {
        path: PathBuf,
        line: u64,
        limit: usize,
    },
}

/// A file of the run as a baseline names it: its path as reports print it
/// and, in a bundle, the member; or, when its `file` line would be longer
/// than [`MAX_LINE`], the hashes of both and of the path, which are all a
/// reader keeps of it. Paths sort before hashes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Group {
    Named(String, Option<String>),
    Hashed { group: u64, path: u64 },
}

/// The identity of a group in a loaded baseline, and of its path (whose
/// check makes its entries count as stale when they do not occur).
fn group_hash(path: &str, member: Option<&str>) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(path.as_bytes());
    if let Some(m) = member {
        // 0xFF occurs in no UTF-8 text, so no path runs into its member.
        h.update(&[0xFF]);
        h.update(m.as_bytes());
    }
    h.digest()
}

/// What applying a baseline did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// Findings dropped because the baseline records them.
    pub(crate) matched: usize,
    /// Recorded findings, in the files of this run, that did not occur.
    pub(crate) stale: usize,
}

/// A recorded finding of a loaded baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Slot {
    group: u32,
    key: u64,
    /// Recorded findings not yet matched.
    left: u32,
}

/// A loaded baseline: 16 bytes a distinct finding, sorted by group and
/// hash, and 16 a file.
#[derive(Debug, Default)]
pub(crate) struct Baseline {
    /// Each group's hash and its path's hash, sorted and distinct; a slot's
    /// group is an index here.
    groups: Vec<(u64, u64)>,
    slots: Vec<Slot>,
}

/// Reads a baseline line by line, each at most [`MAX_LINE`] bytes and all
/// of them at most [`MAX_BYTES`].
struct Lines<R> {
    r: R,
    /// [`MAX_BYTES`], but in tests.
    limit: u64,
    path: PathBuf,
    line: u64,
    read: u64,
    buf: Vec<u8>,
}

impl<R: BufRead> Lines<R> {
    /// The next line without its line ending, or `None` at the end.
    fn next(&mut self) -> Result<Option<&str>, BaselineError> {
        self.buf.clear();
        self.line += 1;
        let n = (&mut self.r)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut self.buf)
            .map_err(|error| BaselineError::Read {
                path: self.path.clone(),
                error,
            })?;
        self.read += n as u64;
        if self.read > self.limit {
            return Err(BaselineError::TooLarge {
                path: self.path.clone(),
                limit: self.limit,
            });
        }
        if n == 0 {
            return Ok(None);
        }
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
        } else if n > MAX_LINE {
            return Err(BaselineError::LongLine {
                path: self.path.clone(),
                line: self.line,
            });
        }
        std::str::from_utf8(&self.buf)
            .map(Some)
            .map_err(|_| self.bad("not UTF-8 text"))
    }

    fn bad(&self, reason: &'static str) -> BaselineError {
        BaselineError::Malformed {
            path: self.path.clone(),
            line: self.line,
            reason,
        }
    }
}

/// The strings of a `file` line: the path, and the member if there is one.
fn group_of(rest: &str) -> Option<(String, Option<String>)> {
    let mut it = serde_json::Deserializer::from_str(rest).into_iter::<String>();
    let path = it.next()?.ok()?;
    let member = match it.next() {
        None => None,
        Some(m) => Some(m.ok()?),
    };
    it.next().is_none().then_some((path, member))
}

/// The two hashes of a `file-hash` line.
fn hashes_of(rest: &str) -> Option<(u64, u64)> {
    let hex = |s: &str| {
        (s.len() == 16 && s.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| u64::from_str_radix(s, 16).ok())
            .flatten()
    };
    let (group, path) = rest.split_once(' ')?;
    Some((hex(group)?, hex(path)?))
}

/// Whether the first line of a file (and, when it is a lone `{`, the
/// second) opens a baseline of version 1, which was JSON with `version`
/// first.
fn opens_version1<R: BufRead>(first: &str, lines: &mut Lines<R>) -> bool {
    let Some(rest) = first.trim().strip_prefix('{') else {
        return false;
    };
    let rest = rest.trim_start();
    if !rest.is_empty() {
        return rest.starts_with("\"version\"");
    }
    matches!(lines.next(), Ok(Some(l)) if l.trim_start().starts_with("\"version\""))
}

/// A rule code as codes are written (`C004`): a letter, then letters and
/// digits.
fn is_code(s: &str) -> bool {
    (1..=16).contains(&s.len())
        && s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// An entry's line: the code, the hash and the count.
fn entry_of(line: &str) -> Result<(u64, u32), &'static str> {
    let mut it = line.split(' ');
    let (Some(code), Some(hash), Some(count), None) = (it.next(), it.next(), it.next(), it.next())
    else {
        return Err("expected `CODE HASH COUNT` or `file \"PATH\"`");
    };
    if !is_code(code) {
        return Err("the rule code is not a code (such as C004)");
    }
    if hash.len() != 16 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err("the fingerprint is not 16 hex digits");
    }
    let key = u64::from_str_radix(hash, 16).map_err(|_| "the fingerprint is not 16 hex digits")?;
    match count.parse::<u32>() {
        Ok(n) if n > 0 && count.bytes().all(|b| b.is_ascii_digit()) => Ok((key, n)),
        _ => Err("the count is not a number from 1 to 4294967295"),
    }
}

impl Baseline {
    pub(crate) fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let file = std::fs::File::open(path).map_err(|error| BaselineError::Read {
            path: path.to_path_buf(),
            error,
        })?;
        Baseline::read(BufReader::with_capacity(1 << 16, file), path, MAX_BYTES)
    }

    /// Reads the baseline `path` from `r`, a line at a time, up to `limit`
    /// bytes.
    fn read(r: impl BufRead, path: &Path, limit: u64) -> Result<Baseline, BaselineError> {
        let mut lines = Lines {
            r,
            limit,
            path: path.to_path_buf(),
            line: 0,
            read: 0,
            buf: Vec::new(),
        };
        let path_of = || path.to_path_buf();
        // Whatever fails on line 1 says only that this is not a baseline.
        let first = match lines.next() {
            Ok(first) => first.unwrap_or(""),
            Err(BaselineError::LongLine { .. }) => {
                return Err(BaselineError::NotBaseline {
                    path: path_of(),
                    why: "its first line is longer than 16 KiB, the longest line of a baseline",
                })
            }
            Err(BaselineError::Malformed { .. }) => {
                return Err(BaselineError::NotBaseline {
                    path: path_of(),
                    why: "its first line is not UTF-8 text",
                })
            }
            Err(e) => return Err(e),
        };
        // Notepad saves UTF-8 with a byte order mark.
        let first = first.strip_prefix('\u{feff}').unwrap_or(first);
        if first != HEADER {
            let first = first.to_owned();
            return Err(if opens_version1(&first, &mut lines) {
                BaselineError::Version1 { path: path_of() }
            } else {
                BaselineError::NotBaseline {
                    path: path_of(),
                    why: "its first line is not `bdxlint baseline 2`",
                }
            });
        }
        let mut b = Baseline::default();
        // The current group, and the line of its `file` line while no entry
        // is under it yet: a `file` line with none would cost memory for
        // nothing (millions of them fit in the size bound).
        let mut group: Option<u32> = None;
        let mut empty: Option<u64> = None;
        let no_entry = |line: u64| BaselineError::Malformed {
            path: path_of(),
            line,
            reason: "a `file` line with no entry under it",
        };
        loop {
            let at = lines.line + 1;
            let Some(line) = lines.next()? else {
                break;
            };
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |reason| BaselineError::Malformed {
                path: path_of(),
                line: at,
                reason,
            };
            let named = if let Some(rest) = line.strip_prefix("file-hash ") {
                Some(
                    hashes_of(rest).ok_or_else(|| {
                        bad("expected `file-hash GROUP PATH`, each 16 hex digits")
                    })?,
                )
            } else if let Some(rest) = line.strip_prefix("file ") {
                let (p, member) = group_of(rest)
                    .ok_or_else(|| bad("expected `file \"PATH\"` or `file \"PATH\" \"MEMBER\"`"))?;
                Some((group_hash(&p, member.as_deref()), group_hash(&p, None)))
            } else {
                None
            };
            if let Some(named) = named {
                if let Some(at) = empty {
                    return Err(no_entry(at));
                }
                if b.groups.len() >= max_groups(limit) {
                    return Err(BaselineError::ManyFiles {
                        path: path_of(),
                        line: at,
                        limit: max_groups(limit),
                    });
                }
                group = Some(b.groups.len() as u32);
                empty = Some(at);
                b.groups.push(named);
                continue;
            }
            let (key, left) = entry_of(line).map_err(|reason| lines.bad(reason))?;
            let group = group.ok_or_else(|| lines.bad("an entry before the first `file` line"))?;
            empty = None;
            b.slots.push(Slot { group, key, left });
        }
        if let Some(at) = empty {
            return Err(no_entry(at));
        }
        b.merge_groups();
        // Written sorted; sorted again, so that a file put together by hand
        // (or two merged) reads the same.
        b.slots.sort_unstable();
        b.slots.dedup_by(|later, kept| {
            let same = (later.group, later.key) == (kept.group, kept.key);
            if same {
                kept.left = kept.left.saturating_add(later.left);
            }
            same
        });
        b.slots.shrink_to_fit();
        Ok(b)
    }

    /// Makes the groups sorted and distinct (a file named twice, as in
    /// two baselines put together, is one group), and the slots' groups
    /// indices among them.
    fn merge_groups(&mut self) {
        self.groups.shrink_to_fit();
        let mut order: Vec<u32> = (0..self.groups.len() as u32).collect();
        order.sort_unstable_by_key(|&g| self.groups[g as usize]);
        let mut rank = vec![0u32; order.len()];
        let mut sorted: Vec<(u64, u64)> = Vec::new();
        for &g in &order {
            let named = self.groups[g as usize];
            if sorted.last().map(|l| l.0) != Some(named.0) {
                sorted.push(named);
            }
            rank[g as usize] = sorted.len() as u32 - 1;
        }
        drop(order);
        sorted.shrink_to_fit();
        self.groups = sorted;
        for s in &mut self.slots {
            s.group = rank[s.group as usize];
        }
    }
}

/// Records findings one at a time (`--write-baseline`): 20 bytes a
/// distinct finding, never the findings themselves, and nothing more once
/// the baseline could not be written within [`MAX_BYTES`].
#[derive(Debug)]
pub(crate) struct Recorder {
    /// [`MAX_BYTES`], but in tests.
    limit: u64,
    groups: Vec<Group>,
    /// Each group's hash to its index: the hashes are what a reader keeps,
    /// so two groups of one hash would be one there too.
    index: HashMap<u64, u32>,
    /// Findings in more than [`max_groups`] files: nothing more is kept.
    too_many_files: bool,
    /// The tally's last file and member, and its group.
    last: Option<(String, Option<String>, u32)>,
    /// The rule codes seen, each once.
    codes: Vec<&'static str>,
    recs: Vec<Rec>,
    /// Findings recorded.
    findings: u64,
    /// More distinct findings than a baseline can hold: nothing more is kept.
    over: bool,
}

impl Default for Recorder {
    fn default() -> Recorder {
        Recorder::with_limit(MAX_BYTES)
    }
}

/// A recorded finding, sorted by group, rule and hash (and merged when the
/// three are equal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Rec {
    group: u32,
    code: u32,
    /// The hash's two halves, so that a record takes 20 bytes, not 24.
    key: [u32; 2],
    count: u32,
}

impl Recorder {
    fn with_limit(limit: u64) -> Recorder {
        Recorder {
            limit,
            groups: Vec::new(),
            index: HashMap::new(),
            last: None,
            codes: Vec::new(),
            recs: Vec::new(),
            findings: 0,
            over: false,
            too_many_files: false,
        }
    }

    pub(crate) fn add(&mut self, path: &str, member: Option<&str>, d: &Diagnostic) {
        self.findings += 1;
        if self.over || self.too_many_files {
            return;
        }
        let group = match &self.last {
            Some((p, m, g)) if p == path && m.as_deref() == member => *g,
            _ => {
                let name = uri(path);
                let hash = group_hash(&name, member);
                let next = self.groups.len() as u32;
                let g = *self.index.entry(hash).or_insert(next);
                if g == next {
                    if self.groups.len() >= max_groups(self.limit) {
                        self.too_many_files = true;
                        self.recs = Vec::new();
                        return;
                    }
                    let path_hash = group_hash(&name, None);
                    let named = Group::Named(name, member.map(str::to_owned));
                    self.groups.push(if file_line(&named).len() > MAX_LINE {
                        Group::Hashed {
                            group: hash,
                            path: path_hash,
                        }
                    } else {
                        named
                    });
                }
                self.last = Some((path.to_owned(), member.map(str::to_owned), g));
                g
            }
        };
        let code = match self.codes.iter().position(|c| *c == d.rule.code) {
            Some(i) => i,
            None => {
                self.codes.push(d.rule.code);
                self.codes.len() - 1
            }
        } as u32;
        let h = fingerprint::content_hash(path, d);
        if self.recs.len() == self.recs.capacity() && self.recs.len() >= FIRST_MERGE {
            self.merge();
            if self.over {
                return;
            }
        }
        self.recs.push(Rec {
            group,
            code,
            key: [(h >> 32) as u32, h as u32],
            count: 1,
        });
    }

    /// Sorts the records and merges equal ones; grows room for more only
    /// when they are mostly distinct, so that memory follows the distinct
    /// findings, not the findings.
    fn merge(&mut self) {
        self.recs.sort_unstable();
        self.recs.dedup_by(|later, kept| {
            let same = (later.group, later.code, later.key) == (kept.group, kept.code, kept.key);
            if same {
                kept.count = kept.count.saturating_add(later.count);
            }
            same
        });
        if self.recs.len() as u64 * MIN_ENTRY_LINE > self.limit {
            self.over = true;
            self.recs = Vec::new();
            return;
        }
        let cap = self.recs.capacity();
        if self.recs.len() > cap / 4 * 3 {
            // Never more room than a baseline within the bound can hold
            // (past that many distinct findings it is refused anyway): the
            // last doubling, old and new vectors held at once, was the
            // write's peak, 120 MB near the bound where this takes 96.
            let most = usize::try_from(self.limit / MIN_ENTRY_LINE + 1).unwrap_or(usize::MAX);
            self.recs.reserve_exact(cap.min(most.saturating_sub(cap)));
        }
    }

    /// Findings recorded.
    pub(crate) fn findings(&self) -> u64 {
        self.findings
    }

    /// Writes the baseline of everything added to `path`, sorted by file,
    /// rule and hash so that it diffs well, without ever losing the old one
    /// ([`crate::output::Output`]): the text goes to a temporary file beside
    /// it, is flushed to disk, and is renamed over `path` only once whole,
    /// with the old file's mode (a new one gets the umask's). A failed write
    /// (disk full, a file-size limit), or findings that would take more
    /// than [`MAX_BYTES`], leave the old baseline as it was. A device or
    /// FIFO is written in place.
    pub(crate) fn save(mut self, path: &Path) -> Result<(), BaselineError> {
        let limit = self.limit;
        let over = |what: String| BaselineError::Over {
            path: path.to_path_buf(),
            what,
            limit,
        };
        if self.too_many_files {
            return Err(BaselineError::TooManyFiles {
                path: path.to_path_buf(),
                limit: max_groups(self.limit),
            });
        }
        if !self.over {
            self.merge();
        }
        if self.over {
            return Err(over(format!(
                "{} findings, more than {} of them distinct",
                self.findings,
                self.limit / MIN_ENTRY_LINE
            )));
        }
        // Files in path order, then rules in code order.
        let mut by_path: Vec<u32> = (0..self.groups.len() as u32).collect();
        by_path.sort_unstable_by(|&a, &b| self.groups[a as usize].cmp(&self.groups[b as usize]));
        let mut group_rank = vec![0u32; by_path.len()];
        for (rank, &g) in by_path.iter().enumerate() {
            group_rank[g as usize] = rank as u32;
        }
        let mut by_code: Vec<u32> = (0..self.codes.len() as u32).collect();
        by_code.sort_unstable_by_key(|&c| self.codes[c as usize]);
        let mut code_rank = vec![0u32; by_code.len()];
        for (rank, &c) in by_code.iter().enumerate() {
            code_rank[c as usize] = rank as u32;
        }
        for r in &mut self.recs {
            r.group = group_rank[r.group as usize];
            r.code = code_rank[r.code as usize];
        }
        self.recs.sort_unstable();
        let groups: Vec<String> = by_path
            .iter()
            .map(|&g| file_line(&self.groups[g as usize]))
            .collect();
        let codes: Vec<&str> = by_code.iter().map(|&c| self.codes[c as usize]).collect();
        // Measured before a byte is written: a baseline bdxlint writes is
        // one its reader takes.
        let mut bytes = (HEADER.len() + ABOUT.len()) as u64 + 2;
        let mut last = None;
        for r in &self.recs {
            if last != Some(r.group) {
                bytes += groups[r.group as usize].len() as u64 + 1;
                last = Some(r.group);
            }
            bytes += codes[r.code as usize].len() as u64 + 19 + digits(r.count);
        }
        if bytes > self.limit {
            return Err(over(format!(
                "{} distinct findings would take {} MiB",
                self.recs.len(),
                bytes.div_ceil(1 << 20)
            )));
        }
        let at = |error: io::Error| BaselineError::Write {
            path: path.to_path_buf(),
            error,
        };
        let mut out = crate::output::Output::create(path, ".bdxlint-baseline").map_err(at)?;
        writeln!(out, "{HEADER}\n{ABOUT}").map_err(at)?;
        let mut last = None;
        for r in &self.recs {
            if last != Some(r.group) {
                writeln!(out, "{}", groups[r.group as usize]).map_err(at)?;
                last = Some(r.group);
            }
            let key = (u64::from(r.key[0]) << 32) | u64::from(r.key[1]);
            writeln!(out, "{} {key:016x} {}", codes[r.code as usize], r.count).map_err(at)?;
        }
        out.commit().map_err(at)
    }
}

/// The `file` (or `file-hash`) line of a group.
fn file_line(g: &Group) -> String {
    let q = |s: &str| serde_json::Value::from(s).to_string();
    match g {
        Group::Named(path, Some(m)) => format!("file {} {}", q(path), q(m)),
        Group::Named(path, None) => format!("file {}", q(path)),
        Group::Hashed { group, path } => format!("file-hash {group:016x} {path:016x}"),
    }
}

/// The decimal digits of `n`.
fn digits(n: u32) -> u64 {
    u64::from(n.checked_ilog10().unwrap_or(0) + 1)
}

/// Tells findings a baseline records from new ones as they arrive
/// (`--baseline`): the baseline's counts, used up in file order.
#[derive(Debug)]
pub(crate) struct Matcher {
    b: Baseline,
    /// The slots of the current file (and member).
    current: std::ops::Range<usize>,
    /// The paths (hashed) checked so far: entries of other files are not
    /// stale.
    checked: HashSet<u64>,
    matched: usize,
}

impl Matcher {
    pub(crate) fn new(b: Baseline) -> Matcher {
        Matcher {
            b,
            current: 0..0,
            checked: HashSet::new(),
            matched: 0,
        }
    }

    /// A file (or a member of the archive `path`) is being checked.
    pub(crate) fn start_file(&mut self, path: &str, member: Option<&str>) {
        let path = uri(path);
        self.checked.insert(group_hash(&path, None));
        let hash = group_hash(&path, member);
        self.current = match self.b.groups.binary_search_by_key(&hash, |g| g.0) {
            Ok(g) => {
                let g = g as u32;
                let s = &self.b.slots;
                s.partition_point(|x| x.group < g)..s.partition_point(|x| x.group <= g)
            }
            Err(_) => 0..0,
        };
    }

    /// Whether the baseline records `d`, a finding of the current file
    /// (and one fewer of its kind is left).
    pub(crate) fn matches(&mut self, path: &str, d: &Diagnostic) -> bool {
        if self.current.is_empty() {
            return false;
        }
        let key = fingerprint::content_hash(path, d);
        let slots = &mut self.b.slots[self.current.clone()];
        match slots.binary_search_by_key(&key, |s| s.key) {
            Ok(i) if slots[i].left > 0 => {
                slots[i].left -= 1;
                self.matched += 1;
                true
            }
            _ => false,
        }
    }

    pub(crate) fn outcome(&self) -> Outcome {
        // Entries of files not checked in this run are not stale: the run
        // may cover only some files (pre-commit passes the changed ones).
        let stale = self
            .b
            .slots
            .iter()
            .filter(|s| self.checked.contains(&self.b.groups[s.group as usize].1))
            .map(|s| s.left as usize)
            .sum();
        Outcome {
            matched: self.matched,
            stale,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::finding;

    fn d(code: &str, value: &str) -> Diagnostic {
        finding(code, 2, format!("`{value}` is wrong"))
    }

    fn read(text: &str, limit: u64) -> Result<Baseline, String> {
        Baseline::read(text.as_bytes(), Path::new("b"), limit).map_err(|e| e.to_string())
    }

    #[test]
    fn a_recorded_run_is_matched_by_file_member_and_count() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("base");
        let mut r = Recorder::default();
        for _ in 0..3 {
            r.add("./a.csv", None, &d("C004", "2024-03-07"));
        }
        r.add("a.csv", None, &d("C006", "TRUE"));
        r.add("z.zip", Some("e.csv"), &d("C015", "v1 "));
        r.add("b.csv", None, &d("C004", "x"));
        assert_eq!(r.findings(), 6);
        r.save(&path).expect("saved");
        let text = std::fs::read_to_string(&path).expect("written");
        let shown: Vec<String> = text
            .lines()
            .skip(2)
            .map(|l| match l.split(' ').collect::<Vec<_>>()[..] {
                [code, hash, count] if !l.starts_with("file") => {
                    assert_eq!(hash.len(), 16, "{l}");
                    format!("{code} {count}")
                }
                _ => l.to_owned(),
            })
            .collect();
        assert_eq!(
            shown,
            [
                "file \"a.csv\"",
                "C004 3",
                "C006 1",
                "file \"b.csv\"",
                "C004 1",
                "file \"z.zip\" \"e.csv\"",
                "C015 1"
            ]
        );
        let mut m = Matcher::new(Baseline::load(&path).expect("read"));
        m.start_file("a.csv", None);
        let date = d("C004", "2024-03-07");
        assert!(m.matches("a.csv", &date));
        assert!(m.matches("a.csv", &date));
        assert!(!m.matches("a.csv", &d("C004", "other")));
        // The member's finding is not the archive's own.
        m.start_file("z.zip", None);
        assert!(!m.matches("z.zip", &d("C015", "v1 ")));
        m.start_file("z.zip", Some("e.csv"));
        assert!(m.matches("z.zip", &d("C015", "v1 ")));
        assert!(!m.matches("z.zip", &d("C015", "v1 ")));
        // a.csv: one C004 and the C006 left; b.csv was not checked.
        assert_eq!(
            m.outcome(),
            Outcome {
                matched: 3,
                stale: 2
            }
        );
    }

    #[test]
    fn memory_follows_distinct_findings_not_findings() {
        let mut r = Recorder::default();
        let f = d("C004", "x");
        for _ in 0..10 * FIRST_MERGE {
            r.add("a.csv", None, &f);
        }
        assert_eq!(r.recs.capacity(), FIRST_MERGE);
        r.merge();
        assert_eq!(r.recs.len(), 1);
        assert_eq!(r.recs[0].count, 10 * FIRST_MERGE as u32);
    }

    #[test]
    fn a_run_over_the_bound_writes_no_baseline_and_keeps_the_old() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("base");
        std::fs::write(&path, "OLD").expect("old");
        // Room for about 200 entries: 2 * FIRST_MERGE distinct ones stop
        // the recorder at its first merge.
        let mut r = Recorder::with_limit(200 * MIN_ENTRY_LINE);
        for i in 0..2 * FIRST_MERGE {
            r.add("a.csv", None, &d("C004", &i.to_string()));
        }
        assert!(r.over && r.recs.capacity() == 0);
        let e = r.save(&path).expect_err("over").to_string();
        assert!(e.contains("not written: 131072 findings"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).expect("kept"), "OLD");
        // Under the recorder's bound, over the file's: measured first.
        let mut r = Recorder::with_limit(200 * MIN_ENTRY_LINE);
        for i in 0..199 {
            r.add("a.csv", None, &d("C004", &i.to_string()));
        }
        let e = r.save(&path).expect_err("over").to_string();
        assert!(e.contains("199 distinct findings would take"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).expect("kept"), "OLD");
    }

    #[test]
    fn what_is_not_a_baseline_is_refused_by_line() {
        let e = read("{\"version\": 1, \"findings\": []}", MAX_BYTES).expect_err("v1");
        assert!(e.contains("an older bdxlint (JSON, version 1)"), "{e}");
        assert!(e.contains("--write-baseline b"), "{e}");
        // As version 1 was written: pretty, `version` first.
        let e = read("{\n  \"version\": 1,\n  \"findings\": []\n}\n", MAX_BYTES).expect_err("v1");
        assert!(e.contains("an older bdxlint (JSON, version 1)"), "{e}");
        // Any other file, whatever fails on its first line, is not advised
        // to be written over.
        let long_first = "x".repeat(MAX_LINE + 1);
        for (text, why) in [
            ("HOME=/root\0TOKEN=secret\n", "is not `bdxlint baseline 2`"),
            (
                "NAME=\"Debian GNU/Linux\"\nID=debian\n",
                "is not `bdxlint baseline 2`",
            ),
            ("{\"name\": \"package\"}\n", "is not `bdxlint baseline 2`"),
            ("{\n  \"name\": 1\n}\n", "is not `bdxlint baseline 2`"),
            ("", "is not `bdxlint baseline 2`"),
            (
                "\u{feff}\u{feff}bdxlint baseline 2\n",
                "is not `bdxlint baseline 2`",
            ),
            (
                &long_first,
                "is longer than 16 KiB, the longest line of a baseline",
            ),
        ] {
            let e = read(text, MAX_BYTES).expect_err("not one");
            assert!(
                e.contains(&format!(
                    "not a bdxlint baseline (its first line {why}); is this the right file?"
                )),
                "{e}"
            );
            assert!(!e.contains("secret") && !e.contains("write"), "{e}");
        }
        let e = Baseline::read(&b"\xff\xfebdxlint\n"[..], Path::new("b"), MAX_BYTES)
            .expect_err("utf-16")
            .to_string();
        assert!(
            e.contains("(its first line is not UTF-8 text); is this the right file?"),
            "{e}"
        );
        assert!(!e.contains("write"), "{e}");
        for (text, said) in [
            (
                "C004 0123456789abcdef 1\n",
                "line 2: an entry before the first",
            ),
            ("file a.csv\n", "line 2: expected `file"),
            ("file \"a\" \"b\" \"c\"\n", "line 2: expected `file"),
            ("file \"a\"\nC004 0123 1\n", "line 3: the fingerprint"),
            (
                "file \"a\"\nC004 0123456789abcdeg 1\n",
                "line 3: the fingerprint",
            ),
            ("file \"a\"\nC004 0123456789abcdef 0\n", "line 3: the count"),
            (
                "file \"a\"\nC004 0123456789abcdef +1\n",
                "line 3: the count",
            ),
            (
                "file \"a\"\nC004 0123456789abcdef 1 x\n",
                "line 3: expected",
            ),
            (
                "file \"a\"\n\u{1b}[2J 0123456789abcdef 1\n",
                "line 3: the rule code",
            ),
            ("file \"a\"\n\u{ff}\n", "line 3: expected"),
        ] {
            let e = read(&format!("{HEADER}\n{text}"), MAX_BYTES).expect_err(text);
            assert!(e.contains(said), "{text:?}: {e}");
            assert!(!e.contains('\u{1b}'), "{e:?}");
        }
        let invalid = [HEADER.as_bytes(), b"\nfile \"\xff\"\n"].concat();
        let e = Baseline::read(&invalid[..], Path::new("b"), MAX_BYTES).expect_err("utf-8");
        assert!(e.to_string().contains("line 2: not UTF-8"), "{e}");
    }

    #[test]
    fn reading_stops_at_the_bounds() {
        let long = format!("{HEADER}\nfile \"{}\"\n", "a".repeat(MAX_LINE));
        let e = read(&long, MAX_BYTES).expect_err("long");
        assert!(e.contains("line 2 is longer than 16 KiB"), "{e}");
        let e = Baseline::read(
            BufReader::new(std::io::repeat(0)),
            Path::new("/dev/zero"),
            MAX_BYTES,
        )
        .expect_err("endless");
        assert!(
            e.to_string()
                .contains("its first line is longer than 16 KiB"),
            "{e}"
        );
        let many = format!(
            "{HEADER}\nfile \"a\"\n{}",
            "C004 0123456789abcdef 1\n".repeat(1 << 16)
        );
        let e = read(&many, 1 << 20).expect_err("large");
        assert!(e.contains("larger than 1 MiB"), "{e}");
    }

    #[test]
    fn a_byte_order_mark_before_the_header_reads() {
        let b = read(
            &format!("\u{feff}{HEADER}\r\nfile \"a\"\r\nC004 00000000000000ff 2\r\n"),
            MAX_BYTES,
        )
        .expect("reads");
        assert_eq!(b.slots.len(), 1);
    }

    #[test]
    fn a_file_line_without_an_entry_is_refused() {
        // Each would cost a group and no entry: millions of short ones
        // took more memory than a run has.
        for (text, said) in [
            (
                "file \"a\"\nfile \"b\"\nC004 0123456789abcdef 1\n",
                "line 2: a `file` line with no entry",
            ),
            (
                "file \"a\"\nC004 0123456789abcdef 1\nfile \"b\"\n",
                "line 4: a `file` line with no entry",
            ),
            (
                "file \"a\"\nC004 0123456789abcdef 1\nfile \"b\"\n# c\n\n",
                "line 4: a `file` line with no entry",
            ),
            (
                "file-hash 0123456789abcdef 0123456789abcdef\nfile \"b\"\n",
                "line 2: a `file` line with no entry",
            ),
            (
                "file-hash 0123456789abcdef\n",
                "line 2: expected `file-hash GROUP PATH`",
            ),
            (
                "file-hash 0123456789abcdef 0123456789abcdeX\n",
                "line 2: expected `file-hash GROUP PATH`",
            ),
        ] {
            let e = read(&format!("{HEADER}\n{text}"), MAX_BYTES).expect_err(text);
            assert!(e.contains(said), "{text:?}: {e}");
        }
    }

    #[test]
    fn a_baseline_names_at_most_max_groups_files() {
        assert_eq!(max_groups(MAX_BYTES), 1 << 20);
        // 64 KiB: 1,024 files.
        let limit = 64 << 10;
        let one = "file \"a\"\nC004 0123456789abcdef 1\n";
        let text = format!("{HEADER}\n{}", one.repeat(1025));
        let e = read(&text, limit).expect_err("too many");
        assert!(e.contains("line 2050: more files than the 1024"), "{e}");
        // One file named again and again is one group.
        let b = read(&text[..text.len() - one.len()], limit).expect("at the bound");
        assert_eq!(b.groups.len(), 1);
        assert_eq!(b.slots.len(), 1);
        assert_eq!(b.slots[0].left, 1024);
        let mut r = Recorder::with_limit(limit);
        let f = d("C004", "x");
        for i in 0..1024 {
            r.add(&format!("{i}.csv"), None, &f);
        }
        assert!(!r.too_many_files);
        r.add("1024.csv", None, &f);
        r.add("1025.csv", None, &f);
        assert!(r.too_many_files && r.recs.capacity() == 0);
        let e = r
            .save(Path::new("unwritten"))
            .expect_err("too many")
            .to_string();
        assert!(
            e.contains("findings in more than 1024 files, the most"),
            "{e}"
        );
    }

    #[test]
    fn a_long_member_name_is_recorded_by_its_hashes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("base");
        // A ZIP member's name may take 65,535 bytes; escaped for JSON,
        // each control character takes six.
        let long = "\u{1}".repeat(65_535);
        let mut r = Recorder::default();
        r.add("up/bulk.zip", Some(&long), &d("C004", "x"));
        r.add("up/bulk.zip", Some("short.csv"), &d("C004", "x"));
        r.add("a.csv", None, &d("C004", "x"));
        r.save(&path).expect("saved");
        let text = std::fs::read_to_string(&path).expect("written");
        let lines: Vec<&str> = text
            .lines()
            .skip(2)
            .filter(|l| l.starts_with("file"))
            .collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(lines[0], "file \"a.csv\"");
        assert_eq!(lines[1], "file \"up/bulk.zip\" \"short.csv\"");
        assert!(
            lines[2].starts_with("file-hash ") && lines[2].len() == 43,
            "{}",
            lines[2]
        );
        let mut m = Matcher::new(Baseline::load(&path).expect("read"));
        m.start_file("up/bulk.zip", Some(&long));
        assert!(m.matches("up/bulk.zip", &d("C004", "x")));
        assert!(!m.matches("up/bulk.zip", &d("C004", "x")));
        m.start_file("up/bulk.zip", Some("other.csv"));
        assert!(!m.matches("up/bulk.zip", &d("C004", "x")));
        // The archive was checked: its short member's entry is stale.
        assert_eq!(
            m.outcome(),
            Outcome {
                matched: 1,
                stale: 1
            }
        );
    }

    #[test]
    fn paths_of_any_characters_round_trip_and_forge_no_entry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("base");
        let names = [
            "a\"b.csv",
            "a\nC004 0123456789abcdef 9\nfile \"x.csv\".csv",
            "cr\r.csv",
            "esc\u{1b}[2J\u{7}.csv",
            "# comment.csv",
            "#\n.csv",
            "x.csv",
        ];
        let mut r = Recorder::default();
        for (i, n) in names.iter().enumerate() {
            r.add(n, Some(*n).filter(|_| i % 2 == 0), &d("C004", n));
        }
        r.save(&path).expect("saved");
        let text = std::fs::read_to_string(&path).expect("written");
        // Each name is one line, and holds no control character raw.
        let files: Vec<&str> = text.lines().filter(|l| l.starts_with("file")).collect();
        let entries = text.lines().filter(|l| l.starts_with("C004")).count();
        assert_eq!((files.len(), entries), (names.len(), names.len()), "{text}");
        assert!(!text.contains(['\r', '\u{1b}', '\u{7}']), "{text:?}");
        let mut m = Matcher::new(Baseline::load(&path).expect("read"));
        for (i, n) in names.iter().enumerate() {
            let member = Some(*n).filter(|_| i % 2 == 0);
            m.start_file(n, member);
            // Only its own finding, once.
            assert!(!m.matches(n, &d("C004", "other")), "{n:?}");
            assert!(m.matches(n, &d("C004", n)), "{n:?}");
            assert!(!m.matches(n, &d("C004", n)), "{n:?}");
        }
        assert_eq!(
            m.outcome(),
            Outcome {
                matched: names.len(),
                stale: 0
            }
        );
    }

    #[test]
    fn comments_line_endings_and_repeated_entries_read() {
        let b = read(
            &format!("{HEADER}\r\n# note\r\n\r\nfile \"a\"\r\nC004 00000000000000FF 2\r\nfile \"a\"\nC004 00000000000000ff 3"),
            MAX_BYTES,
        )
        .expect("reads");
        assert_eq!(
            b.slots,
            [Slot {
                group: 0,
                key: 255,
                left: 5
            }]
        );
    }
}
