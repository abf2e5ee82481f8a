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
pub(crate) const SHOWN: usize = 5;

/// Values counted per rule × column ([`TopValues`]).
pub(crate) const SLOTS: usize = 8;

/// Longest value kept, in characters.
const MAX_VALUE: usize = 40;

/// The findings of one rule on one column of a file past the first
/// [`SHOWN`], as the human report sums them up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folded {
    pub(crate) rule: &'static Rule,
    pub(crate) severity: Severity,
    pub(crate) column: Option<Arc<str>>,
    /// Every finding of the group, the shown ones included.
    pub(crate) total: u64,
    /// Those not shown.
    pub(crate) folded: u64,
    /// Of the first [`SHOWN`], those the report printed: fewer when the
    /// file's `--max-diagnostics` cap hid the rest.
    pub(crate) shown: u64,
    /// The most common values of the group (all of them, shown or not), most
    /// frequent first: only values known to be more frequent than any the
    /// table lost count of, each with a count that is exact or, for a value
    /// that took a lost one's place, a lower bound.
    pub(crate) values: Vec<(String, Count)>,
    /// More distinct values came than the table holds.
    pub(crate) overflowed: bool,
}

/// How often a value was seen, as far as the table can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Count {
    Exact(u64),
    /// At least this many: the value was counted from when it took a
    /// place in the table, and may have been seen before that.
    AtLeast(u64),
}

/// The most frequent values of a stream in [`SLOTS`] counters (the
/// space-saving algorithm): exact while there are at most that many
/// distinct values. After that a new value takes the place of the least
/// counted one and inherits its count as an error bound: its slot's count
/// is an upper bound, the count minus the error a lower bound, and no value
/// outside the table was seen more often than the least count in it. A
/// value seen twice among 200,000 distinct ones would otherwise read as
/// seen 25,000 times.
#[derive(Debug, Default)]
pub(crate) struct TopValues {
    slots: Vec<Slot>,
    pub(crate) overflowed: bool,
}

#[derive(Debug, Clone)]
struct Slot {
    value: String,
    /// Counted, the inherited error included: an upper bound.
    count: u64,
    /// The count inherited from the value it replaced: 0 for a value
    /// counted since its first occurrence, whose count is exact.
    error: u64,
}

impl Slot {
    fn at_least(&self) -> u64 {
        self.count - self.error
    }
}

impl TopValues {
    pub(crate) fn add(&mut self, v: &str) {
        if let Some(s) = self.slots.iter_mut().find(|s| s.value == v) {
            s.count += 1;
            return;
        }
        if self.slots.len() < SLOTS {
            self.slots.push(Slot {
                value: v.to_owned(),
                count: 1,
                error: 0,
            });
            return;
        }
        self.overflowed = true;
        // The least counted value gives its place, and its count (as the
        // new one's error), to the new one (the first of equals:
        // deterministic).
        if let Some(min) = self.slots.iter_mut().min_by_key(|s| s.count) {
            min.value.clear();
            min.value.push_str(v);
            min.error = min.count;
            min.count += 1;
        }
    }

    /// Up to `n` values known to be among the most frequent, most frequent
    /// first (by the count they surely have). Once values were lost, only
    /// those surely seen more often than the least counted slot are: any
    /// value outside the table may have been seen that often.
    pub(crate) fn top(&self, n: usize) -> Vec<(String, Count)> {
        let floor = if self.overflowed {
            self.slots.iter().map(|s| s.count).min().unwrap_or(0)
        } else {
            0
        };
        let mut v: Vec<&Slot> = self.slots.iter().filter(|s| s.at_least() > floor).collect();
        // Stable: equal counts keep the order they came in.
        v.sort_by_key(|s| std::cmp::Reverse(s.at_least()));
        v.truncate(n);
        v.into_iter()
            .map(|s| {
                let count = if s.error == 0 {
                    Count::Exact(s.count)
                } else {
                    Count::AtLeast(s.at_least())
                };
                (s.value.clone(), count)
            })
            .collect()
    }
}

struct Group {
    rule: &'static Rule,
    severity: Severity,
    column: Option<Arc<str>>,
    total: u64,
    /// Of the first [`SHOWN`], those the report printed.
    shown: u64,
    values: TopValues,
}

/// The groups of the current file, in the order they were first met.
#[derive(Default)]
pub(crate) struct Folder {
    groups: Vec<Group>,
    index: HashMap<(&'static str, Severity, Option<Arc<str>>), usize>,
    /// The group of the last finding: a file's findings come in runs of
    /// one rule on one column, which then cost no hashing.
    last: Option<usize>,
}

impl Folder {
    /// Counts `d`; true when it is past the first [`SHOWN`] of its rule
    /// and column, and so not to be shown.
    pub(crate) fn fold(&mut self, d: &Diagnostic) -> bool {
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
                    shown: 0,
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
        let folded = g.total > SHOWN as u64;
        if !folded {
            g.shown += 1;
        }
        folded
    }

    /// The last finding [`Folder::fold`] let through was not printed after
    /// all (past the file's `--max-diagnostics`), so its group's line must
    /// not count it as shown.
    pub(crate) fn not_shown(&mut self) {
        if let Some(g) = self.last.and_then(|k| self.groups.get_mut(k)) {
            g.shown = g.shown.saturating_sub(1);
        }
    }

    /// The groups that folded findings, in the order first met, and a
    /// fresh start for the next file.
    pub(crate) fn finish(&mut self) -> Vec<Folded> {
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
                shown: g.shown,
                values: g.values.top(3),
                overflowed: g.values.overflowed,
            })
            .collect()
    }
}

/// The text under a finding's span, from its snippet (the cell, or the
/// part of it that is flagged), cut to [`MAX_VALUE`] characters.
pub(crate) fn value_of(d: &Diagnostic) -> Option<&str> {
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
pub(crate) fn thousands(n: u64) -> String {
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
            vec![
                ("TRUE".to_owned(), Count::Exact(1000)),
                ("True".to_owned(), Count::Exact(10))
            ]
        );
        for k in 0..100 {
            t.add(&format!("v{k}"));
        }
        assert!(t.overflowed);
        assert_eq!(t.slots.len(), SLOTS);
        // Counted since its first occurrence: still exact.
        assert_eq!(t.top(1), vec![("TRUE".to_owned(), Count::Exact(1000))]);
    }

    /// The `25,000 × 1.30816E+11` of issue 28: among 200,000 values that
    /// each come twice, the table's slots all reach about 25,000, which
    /// were printed as the counts of whichever values held them at the end.
    /// No value of such a column stands out, and none is listed.
    #[test]
    fn a_value_that_took_a_lost_ones_place_is_not_listed_with_the_count_it_inherited() {
        let mut t = TopValues::default();
        for k in 0..100_000u64 {
            let v = format!("{}E+11", 1.0 + k as f64 / 100_000.0);
            t.add(&v);
            t.add(&v);
        }
        assert!(t.overflowed);
        // What used to be printed: the slots' counts, about 200,000 / 8.
        assert!(t.slots.iter().all(|s| s.count >= 24_000), "{:?}", t.slots);
        assert!(t.slots.iter().all(|s| s.at_least() <= 2), "{:?}", t.slots);
        assert_eq!(t.top(3), vec![]);
        // A value that does stand out is listed, and a value counted
        // only from when it took a place is at least that often.
        let mut t = TopValues::default();
        for k in 0..10_000u64 {
            t.add(&format!("v{k}"));
            if k >= 5_000 {
                t.add("late");
                t.add("late");
            }
        }
        assert!(t.overflowed);
        let top = t.top(3);
        assert_eq!(top.len(), 1, "{top:?}");
        assert_eq!(top[0].0, "late");
        let Count::AtLeast(n) = top[0].1 else {
            panic!("{top:?}")
        };
        // Seen 10,000 times, and counted since its first occurrence (it
        // took a place then), which the table cannot tell from a value
        // lost and seen again.
        assert_eq!(n, 10_000);
    }

    #[test]
    fn a_group_counts_as_shown_only_what_the_report_printed() {
        let d = |col: &str| Diagnostic {
            column: Some(Arc::from(col)),
            ..crate::testutil::finding("C006", 2, "TRUE".into())
        };
        let mut f = Folder::default();
        for k in 0..8 {
            let folded = f.fold(&d("A"));
            assert_eq!(folded, k >= SHOWN);
            // The cap hides everything from the fourth on.
            if k == 3 || k == 4 {
                f.not_shown();
            }
        }
        let g = f.finish();
        assert_eq!((g[0].total, g[0].folded, g[0].shown), (8, 3, 3));
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }
}
