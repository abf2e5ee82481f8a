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
        let found = columns_of(t, &names);
        let matched = found.iter().flatten().count();
        let missing = missing_required(t, &found).count();
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

/// The column of `t` each normalized header name is (exactly, or within
/// a small typo), as the header check maps them.
fn columns_of(t: &Table, names: &[String]) -> Vec<Option<usize>> {
    let known: Vec<&str> = t.columns.iter().map(|c| c.normalized.as_str()).collect();
    names
        .iter()
        .map(|n| {
            known
                .iter()
                .position(|k| k == n)
                .or_else(|| closest(n, typo_budget(n), known.iter().map(|k| Some(*k))))
        })
        .collect()
}

/// The columns `t` requires in the header that `found` lacks.
fn missing_required<'t>(
    t: &'t Table,
    found: &'t [Option<usize>],
) -> impl Iterator<Item = &'t str> + 't {
    t.columns
        .iter()
        .enumerate()
        .filter(|(i, c)| c.header == Requirement::Required && !found.contains(&Some(*i)))
        .map(|(_, c)| c.name.as_str())
}

/// How many of a header's names a format must know, at the least, for a
/// directory walk to take the file as that format on its names alone.
pub(crate) const SHARED_NAMES: usize = 3;

/// Why a directory walk may take a file as the format its header was
/// detected as, or why it may not ([`Evidence::Weak`]). A walk meets CSV
/// files that are not uploads (reports, fixtures, exports) and shares a
/// name or two with some format (`id`, `name`, `value`): detection picks
/// the nearest format for any header, so only a fit no stray file makes by
/// chance lets a walked file be checked (and fail the run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Evidence {
    /// The header has every column the format requires.
    Required,
    /// `matched` of the header's `names` are the format's columns: at
    /// least [`SHARED_NAMES`], and at least half of them.
    Shared { matched: usize, names: usize },
    /// The file name says the format: one of its file hints begins a word
    /// of it (`q3-entitlements.csv`, not `preview.csv` for reviews).
    FileName,
    /// None of those.
    Weak {
        matched: usize,
        names: usize,
        /// The required columns the header lacks.
        missing: Vec<String>,
    },
}

impl Evidence {
    /// Whether a walk takes the file as the format.
    pub(crate) fn is_strong(&self) -> bool {
        !matches!(self, Evidence::Weak { .. })
    }

    /// Why, in words: what the header and the file name show of `format`
    /// (the format detected).
    pub(crate) fn describe(&self, format: &str) -> String {
        match self {
            Evidence::Required => "the header has its required columns".to_owned(),
            Evidence::Shared { matched, names } => {
                format!("{matched} of the header's {names} names are its columns")
            }
            Evidence::FileName => "the file name says it".to_owned(),
            Evidence::Weak {
                matched,
                names,
                missing,
            } => {
                let shared = match (*matched, *names) {
                    (0, _) => format!("none of its names is a column of {format}"),
                    (1, _) => format!("only 1 of its names is a column of {format}"),
                    (m, _) if m < SHARED_NAMES => {
                        format!("only {m} of its names are columns of {format}")
                    }
                    (m, n) => format!("only {m} of its {n} names are columns of {format}"),
                };
                format!(
                    "{shared}, which requires {} too, and its file name does not say {format}",
                    missing.join(", ")
                )
            }
        }
    }
}

/// How strongly `header` (and `file_name`) point at `table`, the format
/// detection chose: the header carries every column the format requires,
/// or at least [`SHARED_NAMES`] of its names, and at least half, are the
/// format's columns, or the file name says the format. Names are matched
/// as detection matches them (case, spaces, a trailing `*`, small typos).
pub(crate) fn evidence(table: &Table, header: &[&str], file_name: Option<&str>) -> Evidence {
    let names: Vec<String> = header.iter().map(|h| normalize_name(h)).collect();
    let found = columns_of(table, &names);
    let matched = found.iter().flatten().count();
    let missing: Vec<String> = missing_required(table, &found).map(str::to_owned).collect();
    if missing.is_empty() && matched > 0 {
        Evidence::Required
    } else if matched >= SHARED_NAMES && matched * 2 >= names.len() {
        Evidence::Shared {
            matched,
            names: names.len(),
        }
    } else if file_name.is_some_and(|f| names_format(table, f)) {
        Evidence::FileName
    } else {
        Evidence::Weak {
            matched,
            names: names.len(),
            missing,
        }
    }
}

/// Whether one of the table's file hints begins a word of the file name
/// (after a start, or a character that is not a letter or digit).
fn names_format(table: &Table, file_name: &str) -> bool {
    let file = file_name.to_ascii_lowercase().replace(['_', ' '], "-");
    table.file_hints.iter().any(|h| {
        file.match_indices(h.as_str()).any(|(at, _)| {
            file[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_ascii_alphanumeric())
        })
    })
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
