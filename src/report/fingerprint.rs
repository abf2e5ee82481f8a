//! Fingerprints: a finding's identity that survives re-sorted rows and
//! edits elsewhere in the file, for SARIF `partialFingerprints`, GitLab's
//! `fingerprint` and baselines.
//!
//! The hash covers the rule code, the path, the column name and the row's
//! text (the physical lines holding the offending span), never the line
//! number: exports re-sort rows. Identical rows with the same finding get
//! the same hash, so renderers that need uniqueness append an occurrence
//! number (`<hash>:<n>`, n from 1 in file order), as GitHub's
//! `primaryLocationLineHash` does.

use super::position;
use crate::diagnostic::Diagnostic;
use std::collections::HashMap;

/// The content hash of one finding in the file `path`.
pub fn content_hash(path: &str, d: &Diagnostic) -> u64 {
    let mut buf = Vec::with_capacity(128);
    for part in [
        d.rule.code,
        path,
        d.column.as_deref().unwrap_or(""),
        // Without a snippet (stdin with a machine format never lacks one;
        // this is a fallback) the message stands in for the row.
        position::row_text(d).unwrap_or(&d.message),
    ] {
        buf.extend_from_slice(part.as_bytes());
        // A separator byte that cannot occur in UTF-8 text keeps
        // ("ab","c") and ("a","bc") apart.
        buf.push(0xFF);
    }
    xxhash_rust::xxh3::xxh3_64(&buf)
}

/// Unique fingerprints for a file's findings, in order: `<hash>:<n>`.
pub fn numbered(path: &str, diagnostics: &[Diagnostic]) -> Vec<String> {
    let mut seen: HashMap<u64, u32> = HashMap::new();
    diagnostics
        .iter()
        .map(|d| {
            let h = content_hash(path, d);
            let n = seen.entry(h).or_insert(0);
            *n += 1;
            format!("{h:016x}:{n}")
        })
        .collect()
}
