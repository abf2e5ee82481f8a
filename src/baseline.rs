//! Baselines: adopt bdxlint on an existing export without fixing every old
//! finding first. `--write-baseline FILE` records the current findings;
//! `--baseline FILE` then reports only findings not recorded, and counts
//! the recorded ones that no longer occur (fixed, so the baseline can be
//! rewritten smaller).
//!
//! A finding is recorded by path (and ZIP member), rule code, column and the content hash of
//! [`crate::report::fingerprint`] (rule, path, column and the offending
//! cell's text), never by line number: exports re-sort rows, and a baseline keyed by
//! lines would report every finding as new after a sort. Equal cells
//! with the same finding share a hash, so each entry has a `count`; a run
//! with more of them than recorded reports the extra ones.
//!
//! Paths are recorded as given on the command line (forward slashes, no
//! leading `./`): run bdxlint from the same directory when writing and
//! reading a baseline, as CI does.

use crate::bounded_read::{read_bounded, ReadError, MAX_BASELINE_BYTES};
use crate::report::{display_path, excerpt, fingerprint, uri};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The baseline file.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Baseline {
    pub(crate) version: u32,
    pub(crate) findings: Vec<Entry>,
}

/// Recorded findings that share a key.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(deny_unknown_fields)]
pub(crate) struct Entry {
    pub(crate) path: String,
    /// The ZIP member the findings are in (`path` is then the archive);
    /// absent outside bundles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) member: Option<String>,
    pub(crate) code: String,
    pub(crate) column: Option<String>,
    /// 16 hex digits of the content hash.
    pub(crate) fingerprint: String,
    pub(crate) count: u32,
    /// The first finding's message, for people reading the file; not
    /// compared.
    pub(crate) message: String,
}

type Key = (String, Option<String>, String, Option<String>, String);

/// A baseline that cannot be read or written; each names the file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BaselineError {
    #[error("baseline {}: {error}", display_path(.path))]
    Read { path: PathBuf, error: ReadError },
    /// Not a baseline's JSON: serde's message, which may quote a value of
    /// the file, escaped and cut short.
    #[error("baseline {}: {}", display_path(.path), excerpt(.message, 300))]
    Parse { path: PathBuf, message: String },
    #[error("baseline {}: version {version} is not 1", display_path(.path))]
    Version { path: PathBuf, version: u32 },
    #[error("baseline {}: {error}", display_path(.path))]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
}

fn key_of(path: &str, member: Option<&str>, d: &crate::diagnostic::Diagnostic) -> Key {
    (
        uri(path),
        member.map(str::to_owned),
        d.rule.code.to_owned(),
        d.column.as_deref().map(str::to_owned),
        format!("{:016x}", fingerprint::content_hash(path, d)),
    )
}

/// What applying a baseline did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// Findings dropped because the baseline records them.
    pub(crate) matched: usize,
    /// Recorded findings, in the files of this run, that did not occur.
    pub(crate) stale: usize,
}

impl Baseline {
    pub(crate) fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let path_buf = || path.to_path_buf();
        let text = read_bounded(path, MAX_BASELINE_BYTES).map_err(|error| BaselineError::Read {
            path: path_buf(),
            error,
        })?;
        let b: Baseline = serde_json::from_str(&text).map_err(|e| BaselineError::Parse {
            path: path_buf(),
            message: e.to_string(),
        })?;
        if b.version != 1 {
            return Err(BaselineError::Version {
                path: path_buf(),
                version: b.version,
            });
        }
        Ok(b)
    }

    /// Writes the baseline to `path` without ever losing the old one
    /// ([`crate::output::Output`]): the text goes to a temporary file beside
    /// it, is flushed to disk, and is renamed over `path` only once whole,
    /// with the old file's mode (a new one gets the umask's). A failed write
    /// (disk full, a file-size limit) leaves the old baseline as it was. A
    /// device or FIFO is written in place.
    pub(crate) fn save(&self, path: &Path) -> Result<(), BaselineError> {
        use std::io::Write;
        let at = |error: std::io::Error| BaselineError::Write {
            path: path.to_path_buf(),
            error,
        };
        let mut text = serde_json::to_string_pretty(self).map_err(|e| at(e.into()))?;
        text.push('\n');
        let mut out = crate::output::Output::create(path, ".bdxlint-baseline").map_err(at)?;
        out.write_all(text.as_bytes())
            .and_then(|()| out.commit())
            .map_err(at)?;
        Ok(())
    }
}

/// Records findings one at a time (`--write-baseline`): one entry per
/// distinct key, never the findings themselves.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    map: BTreeMap<Key, (u32, String)>,
}

impl Recorder {
    pub(crate) fn add(
        &mut self,
        path: &str,
        member: Option<&str>,
        d: &crate::diagnostic::Diagnostic,
    ) {
        self.map
            .entry(key_of(path, member, d))
            .or_insert_with(|| (0, d.message.clone()))
            .0 += 1;
    }

    /// The baseline of everything added, sorted so the file diffs well.
    pub(crate) fn finish(self) -> Baseline {
        Baseline {
            version: 1,
            findings: self
                .map
                .into_iter()
                .map(
                    |((path, member, code, column, fingerprint), (count, message))| Entry {
                        path,
                        member,
                        code,
                        column,
                        fingerprint,
                        count,
                        message,
                    },
                )
                .collect(),
        }
    }
}

/// Tells findings a baseline records from new ones as they arrive
/// (`--baseline`): the baseline's counts, used up in file order.
#[derive(Debug)]
pub(crate) struct Matcher {
    left: HashMap<Key, u32>,
    /// The paths checked so far: entries of other files are not stale.
    checked: HashSet<String>,
    matched: usize,
}

impl Matcher {
    pub(crate) fn new(b: &Baseline) -> Matcher {
        let mut left: HashMap<Key, u32> = HashMap::new();
        for e in &b.findings {
            *left
                .entry((
                    e.path.clone(),
                    e.member.clone(),
                    e.code.clone(),
                    e.column.clone(),
                    e.fingerprint.clone(),
                ))
                .or_insert(0) += e.count;
        }
        Matcher {
            left,
            checked: HashSet::new(),
            matched: 0,
        }
    }

    /// A file (or an archive, for its members) is being checked.
    pub(crate) fn start_file(&mut self, path: &str) {
        self.checked.insert(uri(path));
    }

    /// Whether the baseline records `d` (and one fewer of its kind is left).
    pub(crate) fn matches(
        &mut self,
        path: &str,
        member: Option<&str>,
        d: &crate::diagnostic::Diagnostic,
    ) -> bool {
        match self.left.get_mut(&key_of(path, member, d)) {
            Some(n) if *n > 0 => {
                *n -= 1;
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
            .left
            .iter()
            .filter(|((p, ..), _)| self.checked.contains(p))
            .map(|(_, &n)| n as usize)
            .sum();
        Outcome {
            matched: self.matched,
            stale,
        }
    }
}
