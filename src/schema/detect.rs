//! Picking a format from a header row (and, to break ties, the file name).

use super::columns::{normalize_name, Requirement};
use super::table::Table;
use crate::names::{closest, typo_budget};

/// The outcome of detection.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Detection {
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

/// Scores every table against the header, matching names the way the header
/// check does (case, spaces, a trailing `*`, small typos). A table fits when
/// it knows at least half of the header's names, or when the header has all
/// its required columns; the best fit wins. Equal fits, or no fit at all,
/// are resolved by `file_hints` in the file name, else reported.
pub(crate) fn detect_format(
    tables: &'static [&'static Table],
    header: &[&str],
    file_name: Option<&str>,
) -> Detection {
    detect_format_among(tables, &[], header, file_name)
}

/// [`detect_format`] restricted to the tables named in `only` (all tables
/// when `only` is empty): a ZIP bundle's members can only be one of its two
/// roles, and a wider pool would let a download table win a tie.
pub(crate) fn detect_format_among(
    tables: &'static [&'static Table],
    only: &[&str],
    header: &[&str],
    file_name: Option<&str>,
) -> Detection {
    let allowed = |t: &&&'static Table| only.is_empty() || only.contains(&t.name.as_str());
    let names: Vec<String> = header.iter().map(|h| normalize_name(h)).collect();
    let mut scored: Vec<(&'static Table, Score)> = Vec::new();
    for &t in tables.iter().filter(allowed) {
        let known: Vec<&str> = t.columns.iter().map(|c| c.normalized.as_str()).collect();
        let found: Vec<Option<usize>> = names
            .iter()
            .map(|n| {
                known
                    .iter()
                    .position(|k| k == n)
                    .or_else(|| closest(n, typo_budget(n), known.iter().map(|k| Some(*k))))
            })
            .collect();
        let matched = found.iter().flatten().count();
        let missing = t
            .columns
            .iter()
            .enumerate()
            .filter(|(i, c)| c.header == Requirement::Required && !found.contains(&Some(*i)))
            .count();
        if matched == 0 || (matched * 2 < names.len() && missing > 0) {
            continue;
        }
        scored.push((
            t,
            Score {
                misfit: names.len() - matched + missing,
                matched,
            },
        ));
    }
    let best = scored
        .iter()
        .map(|(_, s)| *s)
        .min_by(|a, b| a.misfit.cmp(&b.misfit).then(b.matched.cmp(&a.matched)));
    let tied: Vec<&'static Table> = match best {
        Some(best) => scored
            .iter()
            .filter(|(_, s)| *s == best)
            .map(|(t, _)| *t)
            .collect(),
        None => Vec::new(),
    };
    if let ([only], Some(best)) = (tied.as_slice(), best) {
        // Tables that know exactly the header's names as well as the best
        // one does, and lose only on required columns the header lacks:
        // the names cannot tell them apart, so a file name that hints one
        // of them decides (a relations upload that forgot `Source System`
        // is still a relations upload, with that column missing).
        let best_unknown = best.misfit - missing_of(best, names.len());
        let peers: Vec<&'static Table> = scored
            .iter()
            .filter(|(_, s)| {
                s.matched == best.matched && s.misfit - missing_of(*s, names.len()) == best_unknown
            })
            .map(|(t, _)| *t)
            .collect();
        if peers.len() > 1 {
            if let Some(t) = hinted_one(&peers, file_name) {
                return Detection::Found(&t.name);
            }
        }
        return Detection::Found(&only.name);
    }
    // Ties are broken among the tied; with no fit at all, among every table.
    let pool: Vec<&'static Table> = if tied.is_empty() {
        tables.iter().filter(allowed).copied().collect()
    } else {
        tied.clone()
    };
    if let Some(t) = hinted_one(&pool, file_name) {
        return Detection::Found(&t.name);
    }
    if tied.is_empty() {
        Detection::NoMatch
    } else {
        Detection::Ambiguous(tied.iter().map(|t| t.name.as_str()).collect())
    }
}

/// How many of a score's misfits are required columns the header lacks
/// (the rest are header names the table does not know).
fn missing_of(s: Score, names: usize) -> usize {
    s.misfit - (names - s.matched)
}

/// The one table of `pool` whose `file_hints` the file name contains.
fn hinted_one(pool: &[&'static Table], file_name: Option<&str>) -> Option<&'static Table> {
    let file = file_name?.to_ascii_lowercase().replace(['_', ' '], "-");
    let hinted: Vec<&'static Table> = pool
        .iter()
        .copied()
        .filter(|t| t.file_hints.iter().any(|h| file.contains(h.as_str())))
        .collect();
    match hinted.as_slice() {
        [only] => Some(only),
        _ => None,
    }
}
