//! Picking a format from a header row (and, to break ties, the file name).

use super::{Requirement, Table};
use crate::check::header::normalize_name;

/// The outcome of detection.
#[derive(Debug, PartialEq, Eq)]
pub enum Detection {
    Found(&'static str),
    /// Several formats fit equally well.
    Ambiguous(Vec<&'static str>),
    /// No format fits the header.
    NoMatch,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Score {
    /// Header names that no column of the table matches, plus required
    /// columns the header lacks: fewer is better.
    misfit: usize,
    /// Header names the table knows: more is better.
    matched: usize,
}

/// Scores every table against the header. A table fits when it knows at
/// least half of the header's names; the best fit wins; equal fits are
/// resolved by `file_hints` in the file name, else reported as ambiguous.
pub fn detect_format(
    tables: &'static [Table],
    header: &[&str],
    file_name: Option<&str>,
) -> Detection {
    let names: Vec<String> = header.iter().map(|h| normalize_name(h)).collect();
    let mut scored: Vec<(&'static Table, Score)> = Vec::new();
    for t in tables {
        let known: Vec<String> = t.columns.iter().map(|c| normalize_name(&c.name)).collect();
        let matched = names.iter().filter(|n| known.contains(n)).count();
        if matched == 0 || matched * 2 < names.len() {
            continue;
        }
        let unknown = names.len() - matched;
        let missing = t
            .columns
            .iter()
            .zip(&known)
            .filter(|(c, k)| c.header == Requirement::Required && !names.contains(k))
            .count();
        scored.push((
            t,
            Score {
                misfit: unknown + missing,
                matched,
            },
        ));
    }
    let Some(best) = scored
        .iter()
        .map(|(_, s)| *s)
        .min_by(|a, b| a.misfit.cmp(&b.misfit).then(b.matched.cmp(&a.matched)))
    else {
        return Detection::NoMatch;
    };
    let tied: Vec<&'static Table> = scored
        .iter()
        .filter(|(_, s)| *s == best)
        .map(|(t, _)| *t)
        .collect();
    if let [only] = tied.as_slice() {
        return Detection::Found(&only.name);
    }
    if let Some(file) = file_name {
        let file = file.to_ascii_lowercase().replace(['_', ' '], "-");
        let hinted: Vec<&'static Table> = tied
            .iter()
            .copied()
            .filter(|t| t.file_hints.iter().any(|h| file.contains(h.as_str())))
            .collect();
        if let [only] = hinted.as_slice() {
            return Detection::Found(&only.name);
        }
    }
    Detection::Ambiguous(tied.iter().map(|t| t.name.as_str()).collect())
}
