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
//! hash and how many findings share it. Lines starting with `#` are
//! comments. Every baseline bdxlint writes stays under [`MAX_BYTES`] (a run
//! with more findings writes none and says so) and no line is longer than
//! [`MAX_LINE`], so reading one holds 16 bytes a distinct finding, never
//! the file: `/dev/zero` stops at its first line.
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
/// The largest baseline written or read: about 2.5 million distinct
/// findings (24-30 bytes each).
const MAX_BYTES: u64 = 64 << 20;
/// The longest line of a baseline: a `file` line of a long path (a path
/// is at most 4 KiB on Linux, escaped for JSON it may grow).
const MAX_LINE: usize = 16 << 10;
/// The fewest bytes an entry's line takes (`C004 <16 hex> 1\n`): the
/// recorder stops once its distinct findings could not fit in [`MAX_BYTES`].
const MIN_ENTRY_LINE: u64 = 4 + 1 + 16 + 1 + 1 + 1;
/// Entries the recorder gathers before it first sorts and merges them.
const FIRST_MERGE: usize = 1 << 16;

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
    #[error("baseline {}: not a bdxlint baseline (its first line is not `{HEADER}`); write one with `bdxlint check --write-baseline {}`", display_path(.path), display_path(.path))]
    NotBaseline { path: PathBuf },
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
}

/// A file of the run as a baseline names it: its path as reports print it
/// and, in a bundle, the member.
type Group = (String, Option<String>);

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
/// hash.
#[derive(Debug, Default)]
pub(crate) struct Baseline {
    /// Each group's hash to its index.
    groups: HashMap<u64, u32>,
    /// Each group's path hash, by index.
    paths: Vec<u64>,
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
fn group_of(rest: &str) -> Option<Group> {
    let mut it = serde_json::Deserializer::from_str(rest).into_iter::<String>();
    let path = it.next()?.ok()?;
    let member = match it.next() {
        None => None,
        Some(m) => Some(m.ok()?),
    };
    it.next().is_none().then_some((path, member))
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
        let first = lines.next()?.unwrap_or("");
        if first != HEADER {
            let first = first.trim_start_matches('\u{feff}').trim_start();
            return Err(if first.starts_with('{') {
                BaselineError::Version1 {
                    path: path.to_path_buf(),
                }
            } else {
                BaselineError::NotBaseline {
                    path: path.to_path_buf(),
                }
            });
        }
        let mut b = Baseline::default();
        let mut group: Option<u32> = None;
        while let Some(line) = lines.next()? {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(rest) = line.strip_prefix("file ") {
                let (p, member) = group_of(rest).ok_or_else(|| {
                    lines.bad("expected `file \"PATH\"` or `file \"PATH\" \"MEMBER\"`")
                })?;
                let next = u32::try_from(b.paths.len()).map_err(|_| lines.bad("too many files"))?;
                let g = *b
                    .groups
                    .entry(group_hash(&p, member.as_deref()))
                    .or_insert(next);
                if g == next {
                    b.paths.push(group_hash(&p, None));
                }
                group = Some(g);
                continue;
            }
            let (key, left) = entry_of(line).map_err(|reason| lines.bad(reason))?;
            let group = group.ok_or_else(|| lines.bad("an entry before the first `file` line"))?;
            b.slots.push(Slot { group, key, left });
        }
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
}

/// Records findings one at a time (`--write-baseline`): 20 bytes a
/// distinct finding, never the findings themselves, and nothing more once
/// the baseline could not be written within [`MAX_BYTES`].
#[derive(Debug)]
pub(crate) struct Recorder {
    /// [`MAX_BYTES`], but in tests.
    limit: u64,
    groups: Vec<Group>,
    index: HashMap<Group, u32>,
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
        }
    }

    pub(crate) fn add(&mut self, path: &str, member: Option<&str>, d: &Diagnostic) {
        self.findings += 1;
        if self.over {
            return;
        }
        let group = match &self.last {
            Some((p, m, g)) if p == path && m.as_deref() == member => *g,
            _ => {
                let key = (uri(path), member.map(str::to_owned));
                let next = self.groups.len() as u32;
                let g = *self.index.entry(key.clone()).or_insert(next);
                if g == next {
                    self.groups.push(key);
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
            self.recs.reserve_exact(cap);
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
                let line = &groups[r.group as usize];
                if line.len() > MAX_LINE {
                    return Err(over(format!(
                        "a path of {} bytes, longer than a baseline's lines",
                        line.len()
                    )));
                }
                bytes += line.len() as u64 + 1;
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

/// The `file` line of a group.
fn file_line((path, member): &Group) -> String {
    let q = |s: &str| serde_json::Value::from(s).to_string();
    match member {
        Some(m) => format!("file {} {}", q(path), q(m)),
        None => format!("file {}", q(path)),
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
        self.current = match self.b.groups.get(&group_hash(&path, member)) {
            Some(&g) => {
                let s = &self.b.slots;
                s.partition_point(|x| x.group < g)..s.partition_point(|x| x.group <= g)
            }
            None => 0..0,
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
            .filter(|s| self.checked.contains(&self.b.paths[s.group as usize]))
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
        let e = read("HOME=/root\0TOKEN=secret\n", MAX_BYTES).expect_err("no");
        assert!(
            e.contains("not a bdxlint baseline") && !e.contains("secret"),
            "{e}"
        );
        assert!(read("", MAX_BYTES).is_err());
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
            e.to_string().contains("line 1 is longer than 16 KiB"),
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
