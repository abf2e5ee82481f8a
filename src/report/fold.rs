//! Folding repeated findings for the human report: past the first few
//! findings of one rule on one column of a file, the rest are counted
//! with their most common values and summed up in one line at the end of
//! the file ("`Privilege Value`: 1,000,000 × `TRUE`"). Memory is bounded:
//! one entry per rule × column (bounded by the rules and the header) and a
//! fixed table of values in each. Machine formats keep every finding.

use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::Rule;
use std::collections::HashMap;
use std::sync::Arc;

/// Findings of one rule on one column shown before the rest are folded.
pub const SHOWN: usize = 5;

/// Values counted per rule × column ([`TopValues`]).
const SLOTS: usize = 8;

/// Longest value kept, in characters.
const MAX_VALUE: usize = 40;

/// The findings of one rule on one column of a file past the first
/// [`SHOWN`], as the human report sums them up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folded {
    pub rule: &'static Rule,
    pub severity: Severity,
    pub column: Option<Arc<str>>,
    /// Every finding of the group, the shown ones included.
    pub total: u64,
    /// Those not shown.
    pub folded: u64,
    /// The most common values of the group (all of them, shown or not), most
    /// frequent first, with their counts; `exact` is false when more
    /// distinct values came than the table holds, and the counts are then
    /// upper bounds.
    pub values: Vec<(String, u64)>,
    pub exact: bool,
}

/// The most frequent values of a stream in [`SLOTS`] counters (the
/// space-saving algorithm): exact while there are at most that many
/// distinct values, the heavy hitters' counts bounded above after that.
#[derive(Debug, Default)]
struct TopValues {
    slots: Vec<(String, u64)>,
    overflowed: bool,
}

impl TopValues {
    fn add(&mut self, v: &str) {
        if let Some(s) = self.slots.iter_mut().find(|s| s.0 == v) {
            s.1 += 1;
            return;
        }
        if self.slots.len() < SLOTS {
            self.slots.push((v.to_owned(), 1));
            return;
        }
        self.overflowed = true;
        // The least counted value gives its place, and its count, to the
        // new one (the first of equals: deterministic).
        if let Some(min) = self.slots.iter_mut().min_by_key(|s| s.1) {
            min.0 = v.to_owned();
            min.1 += 1;
        }
    }

    fn top(&self, n: usize) -> Vec<(String, u64)> {
        let mut v = self.slots.clone();
        // Stable: equal counts keep the order they came in.
        v.sort_by_key(|s| std::cmp::Reverse(s.1));
        v.truncate(n);
        v
    }
}

struct Group {
    rule: &'static Rule,
    severity: Severity,
    column: Option<Arc<str>>,
    total: u64,
    values: TopValues,
}

/// The groups of the current file, in the order they were first met.
#[derive(Default)]
pub struct Folder {
    groups: Vec<Group>,
    index: HashMap<(&'static str, Severity, Option<Arc<str>>), usize>,
    /// The group of the last finding: a file's findings come in runs of
    /// one rule on one column, which then cost no hashing.
    last: Option<usize>,
}

impl Folder {
    /// Counts `d`; true when it is past the first [`SHOWN`] of its rule
    /// and column, and so not to be shown.
    pub fn fold(&mut self, d: &Diagnostic) -> bool {
        let same = |g: &Group| {
            std::ptr::eq(g.rule, d.rule) && g.severity == d.severity && g.column == d.column
        };
        let last = self.last.filter(|&k| self.groups.get(k).is_some_and(same));
        let key = || (d.rule.code, d.severity, d.column.clone());
        let k = match last.or_else(|| self.index.get(&key()).copied()) {
            Some(k) => k,
            None => {
                self.groups.push(Group {
                    rule: d.rule,
                    severity: d.severity,
                    column: d.column.clone(),
                    total: 0,
                    values: TopValues::default(),
                });
                self.index.insert(key(), self.groups.len() - 1);
                self.groups.len() - 1
            }
        };
        self.last = Some(k);
        let g = &mut self.groups[k];
        g.total += 1;
        if let Some(v) = value_of(d) {
            g.values.add(v);
        }
        g.total > SHOWN as u64
    }

    /// The groups that folded findings, in the order first met, and a
    /// fresh start for the next file.
    pub fn finish(&mut self) -> Vec<Folded> {
        self.index.clear();
        self.last = None;
        std::mem::take(&mut self.groups)
            .into_iter()
            .filter(|g| g.total > SHOWN as u64)
            .map(|g| Folded {
                rule: g.rule,
                severity: g.severity,
                column: g.column,
                total: g.total,
                folded: g.total - SHOWN as u64,
                values: g.values.top(3),
                exact: !g.values.overflowed,
            })
            .collect()
    }
}

/// The text under a finding's span, from its snippet (the cell, or the
/// part of it that is flagged), cut to [`MAX_VALUE`] characters.
fn value_of(d: &Diagnostic) -> Option<&str> {
    let s = d.snippet.as_ref()?;
    let a = usize::try_from(d.span.start.checked_sub(s.offset)?).ok()?;
    let b = usize::try_from(d.span.end.checked_sub(s.offset)?).ok()?;
    let v = s.text.get(a..b)?;
    // A finding on a whole row or file has no one value.
    if v.contains('\n') || d.column.is_none() {
        return None;
    }
    let v = v
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(v);
    // Cut at a character boundary, the rest left out (a long value is
    // counted by its start).
    Some(match v.char_indices().nth(MAX_VALUE) {
        Some((at, _)) => &v[..at],
        None => v,
    })
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_values_are_exact_until_the_table_is_full() {
        let mut t = TopValues::default();
        for _ in 0..1000 {
            t.add("TRUE");
        }
        for _ in 0..10 {
            t.add("True");
        }
        assert_eq!(
            t.top(3),
            vec![("TRUE".to_owned(), 1000), ("True".to_owned(), 10)]
        );
        for k in 0..100 {
            t.add(&format!("v{k}"));
        }
        assert!(t.overflowed);
        assert_eq!(t.slots.len(), SLOTS);
        assert_eq!(t.top(1), vec![("TRUE".to_owned(), 1000)]);
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }
}
