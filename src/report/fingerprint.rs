//! Fingerprints: a finding's identity that survives re-sorted rows and
//! edits elsewhere in the file, for SARIF `partialFingerprints`, GitLab's
//! `fingerprint` and baselines.
//!
//! The hash covers the rule code, the path, the column name and the text of
//! the offending span (the cell; the whole record for row findings), never
//! the line number: exports re-sort rows. The cell rather than the whole
//! row, so that fixing one cell of a row leaves the row's other findings
//! recognised. Equal cells with the same finding get the same hash, so
//! renderers that need uniqueness append an occurrence number
//! (`<hash>:<n>`, n from 1 in file order), as GitHub's
//! `primaryLocationLineHash` does, and baselines count them.

use super::position;
use crate::diagnostic::Diagnostic;
use std::collections::HashMap;

/// The content hash of one finding in the file `path`.
pub(crate) fn content_hash(path: &str, d: &Diagnostic) -> u64 {
    // `./uploads/a.csv` (a walk of `.`) and `uploads/a.csv` (pre-commit
    // naming the file) are one file: hash the path as reports print it.
    let path = super::model::uri(path);
    let mut buf = Vec::with_capacity(128);
    let shared = d.shared.map(|h| format!("{h:016x}"));
    for part in [
        d.rule.code,
        path.as_str(),
        d.column.as_deref().unwrap_or(""),
        // A cross-row finding is what its rows share, whichever comes
        // second. Otherwise the cell: the binary captures snippets
        // whenever fingerprints are needed; without one (library use) the
        // message, which quotes the cell, stands in for it.
        shared
            .as_deref()
            .or_else(|| position::span_text(d))
            .unwrap_or(&d.message),
    ] {
        buf.extend_from_slice(part.as_bytes());
        // A separator byte that cannot occur in UTF-8 text keeps
        // ("ab","c") and ("a","bc") apart.
        buf.push(0xFF);
    }
    xxhash_rust::xxh3::xxh3_64(&buf)
}

/// [`numbered`] one finding at a time, for writers that put findings out
/// as they arrive: the occurrences seen so far of each content hash in the
/// current file. It holds one entry per distinct hash, not the findings.
#[derive(Debug, Default)]
pub(crate) struct Numbering {
    seen: HashMap<u64, u32>,
}

impl Numbering {
    /// Forgets the previous file: occurrence numbers count within a file.
    pub(crate) fn clear(&mut self) {
        self.seen.clear();
    }

    /// The fingerprint of the file's next finding, `<hash>:<n>`.
    pub(crate) fn fingerprint(&mut self, path: &str, d: &Diagnostic) -> String {
        let h = content_hash(path, d);
        let n = self.seen.entry(h).or_insert(0);
        *n += 1;
        format!("{h:016x}:{n}")
    }
}
