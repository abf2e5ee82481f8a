//! Row requirements compiled to bit masks over the filled columns of a
//! record ([`Quick`]), and all of a table's at once in one lookup
//! ([`QuickTable`]): a row that meets them (nearly every row) costs a few
//! instructions.

use crate::schema::{ColumnId, Condition, Requires};

/// Whether a row meets every requirement, looked up by the filled bits the
/// requirements read, when those lie within a few columns of each other
/// (as in every format). It replaces a walk over the masks of each
/// requirement, about ten instructions each, with a shift and a bit test.
pub(super) struct QuickTable {
    shift: u32,
    /// The bits of the index, after the shift.
    mask: u64,
    /// Bit `k`: every requirement is met when the filled bits are `k`.
    met: Vec<u64>,
}

impl QuickTable {
    /// Widest span of columns tabled: 2^12 rows in 512 bytes.
    const MAX_SPAN: u32 = 12;

    pub(super) fn new(quick: &[Quick]) -> Option<QuickTable> {
        let mut read = 0u64;
        for q in quick {
            match *q {
                Quick::Skip => {}
                Quick::Slow => return None,
                Quick::Masks {
                    present,
                    empty,
                    all,
                    any,
                } => read |= present | empty | all | any,
            }
        }
        let shift = if read == 0 { 0 } else { read.trailing_zeros() };
        let span = 64 - shift - read.leading_zeros();
        if span > Self::MAX_SPAN {
            return None;
        }
        let mask = (1u64 << span) - 1;
        // `met` reads no bit outside `read`, so the index settles it.
        let mut met = vec![0u64; (1usize << span).div_ceil(64)];
        for k in 0..=mask {
            if quick.iter().all(|q| q.met(k << shift)) {
                met[(k / 64) as usize] |= 1 << (k % 64);
            }
        }
        Some(QuickTable { shift, mask, met })
    }

    #[inline]
    pub(super) fn all_met(&self, filled: u64) -> bool {
        let k = (filled >> self.shift) & self.mask;
        self.met
            .get((k / 64) as usize)
            .is_some_and(|w| w >> (k % 64) & 1 == 1)
    }
}

/// A row requirement compiled to bit masks over `Cells::filled_cols`, so
/// that a row meeting it (nearly every row) costs a few instructions.
#[derive(Clone, Copy)]
pub(super) enum Quick {
    /// Settled on the header: never checked on rows.
    Skip,
    /// Needs the cells (a condition on a value, or a column past 63).
    Slow,
    Masks {
        /// The condition holds when these are all filled...
        present: u64,
        /// ...and these are all empty.
        empty: u64,
        /// Then it needs all of these filled...
        all: u64,
        /// ...or, when not 0, any of these.
        any: u64,
    },
}

impl Quick {
    pub(super) fn compile(r: &Requires, settled: bool) -> Quick {
        if settled {
            return Quick::Skip;
        }
        let mask = |cols: &[ColumnId]| {
            cols.iter().try_fold(0u64, |m, &c| match column_bit(c) {
                0 => None,
                bit => Some(m | bit),
            })
        };
        let (present, empty) = match &r.when {
            Condition::Always => (Some(0), Some(0)),
            Condition::Present(c) => (mask(&[*c]), Some(0)),
            Condition::Empty(c) => (Some(0), mask(&[*c])),
            Condition::In(..) => (None, None),
        };
        match (present, empty, mask(&r.all), mask(&r.any)) {
            (Some(present), Some(empty), Some(all), Some(any)) => Quick::Masks {
                present,
                empty,
                all,
                any,
            },
            _ => Quick::Slow,
        }
    }

    /// Whether a row with these filled columns surely meets the
    /// requirement (false: look closer).
    #[inline]
    pub(super) fn met(self, filled: u64) -> bool {
        match self {
            Quick::Skip => true,
            Quick::Slow => false,
            Quick::Masks {
                present,
                empty,
                all,
                any,
            } => {
                let holds = filled & present == present && filled & empty == 0;
                !holds
                    || if any != 0 {
                        filled & any != 0
                    } else {
                        filled & all == all
                    }
            }
        }
    }
}

/// Column `c`'s bit in `Cells::filled_cols`; columns past 63 have none,
/// and the conditions on them take the slow path.
pub(super) fn column_bit(c: ColumnId) -> u64 {
    1u64.checked_shl(c as u32).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_requirements_agree_with_the_conditions() {
        use crate::schema::Requires;
        let req = |when, all: Vec<ColumnId>, any: Vec<ColumnId>| Requires {
            when,
            all,
            any,
            severity: None,
            reason: String::new(),
            trace: Default::default(),
        };
        // Filled columns as bits; the slow rule decided by hand.
        let slow = |r: &Requires, filled: u64| {
            let f = |c: ColumnId| filled >> c & 1 == 1;
            let holds = match &r.when {
                Condition::Always => true,
                Condition::Present(c) => f(*c),
                Condition::Empty(c) => !f(*c),
                Condition::In(..) => unreachable!(),
            };
            !holds
                || if r.any.is_empty() {
                    r.all.iter().all(|c| f(*c))
                } else {
                    r.any.iter().any(|c| f(*c))
                }
        };
        let cases = [
            req(Condition::Always, vec![], vec![0, 1, 2]),
            req(Condition::Present(0), vec![1], vec![]),
            req(Condition::Present(3), vec![0, 1, 2], vec![]),
            req(Condition::Empty(2), vec![0, 1], vec![]),
            req(Condition::Empty(1), vec![], vec![0, 3]),
        ];
        for r in &cases {
            let quick = Quick::compile(r, false);
            assert!(matches!(quick, Quick::Masks { .. }));
            for filled in 0..16u64 {
                assert_eq!(quick.met(filled), slow(r, filled), "{r:?} {filled:04b}");
            }
        }
        let wide = req(Condition::Present(70), vec![1], vec![]);
        assert!(matches!(Quick::compile(&wide, false), Quick::Slow));
        let value = req(Condition::In(0, vec!["x".into()]), vec![1], vec![]);
        assert!(!Quick::compile(&value, false).met(0));
        assert!(Quick::compile(&value, true).met(0));
    }

    #[test]
    fn the_requirement_table_agrees_with_the_masks() {
        use crate::schema::Requires;
        let mut next = crate::testutil::xorshift(0x1405_7b7e_f767_814fu64);
        // Requirement sets over columns `lo..lo + span`: spans that fit the
        // table and spans that do not.
        let mut sets: Vec<Vec<Requires>> = Vec::new();
        for (lo, span) in [
            (0, 1),
            (0, 4),
            (3, 10),
            (7, 12),
            (50, 14),
            (52, 12),
            (0, 30),
        ] {
            for _ in 0..40 {
                let mut col = || (lo + next() % span) as ColumnId;
                let reqs = (0..6)
                    .map(|k| {
                        let c = col();
                        let when = match k % 3 {
                            0 => Condition::Always,
                            1 => Condition::Present(c),
                            _ => Condition::Empty(c),
                        };
                        let cols: Vec<ColumnId> = (0..=k % 3).map(|_| col()).collect();
                        let (all, any) = if k % 2 == 0 {
                            (cols, vec![])
                        } else {
                            (vec![], cols)
                        };
                        Requires {
                            when,
                            all,
                            any,
                            severity: None,
                            reason: String::new(),
                            trace: Default::default(),
                        }
                    })
                    .collect();
                sets.push(reqs);
            }
        }
        let tables = crate::schema::tables().expect("rules/ parses");
        let mut tabled = 0;
        let mut check = |reqs: &[Requires], settled: &dyn Fn(usize) -> bool| {
            let quick: Vec<Quick> = reqs
                .iter()
                .enumerate()
                .map(|(k, r)| Quick::compile(r, settled(k)))
                .collect();
            let Some(table) = QuickTable::new(&quick) else {
                return;
            };
            tabled += 1;
            for _ in 0..2_000 {
                // Dense and sparse rows, and bits outside the table's span.
                let filled = match next() % 3 {
                    0 => next(),
                    1 => next() & next(),
                    _ => !(next() & next()),
                };
                let want = quick.iter().all(|q| q.met(filled));
                assert_eq!(table.all_met(filled), want, "{reqs:?} {filled:#x}");
            }
        };
        for reqs in &sets {
            check(reqs, &|_| false);
            check(reqs, &|k| k % 2 == 0);
        }
        for t in tables {
            check(&t.requires, &|_| false);
        }
        assert!(tabled > 300, "only {tabled} requirement sets were tabled");
    }
}
