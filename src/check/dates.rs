//! The order of day and month in a date column, told from all its cells.
//!
//! `6/07/2019` reads as 7 June or as 6 July; `26/07/2021` only as 26 July.
//! A cell that reads only one way is evidence of how whoever wrote the
//! column orders day and month, and a cell that reads either way gets the
//! reading the whole column supports (`cell_edits::DateReadings::verdict`).
//!
//! Rows are checked in parallel chunks and a row's verdict (and, with
//! `--fix`, its fix) is made before later rows are read, so the evidence
//! cannot decide it on the way. Instead each chunk counts its evidence (a
//! few counters per date column, not per row) and the fold adds them up in
//! file order. A check made without the orders known up front reads every
//! ambiguous cell as an unknown column would; if the end of the file shows
//! that column day-first or written both ways, [`DateOrders::late`] says
//! the verdicts made are not the file's, and the caller checks again with
//! the orders known up front ([`super::Options::date_orders`]). A file
//! without such cells never takes that second pass.

use super::finding::Finding;
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules;
use crate::schema::shape::DateShape;
use crate::schema::{ColumnId, Shape};

/// How a column's cells order day and month, as far as they tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Order {
    /// No cell reads only one way.
    #[default]
    Unknown,
    /// Some cells read only month first, none only day first.
    MonthFirst,
    /// Some cells read only day first, none only month first.
    DayFirst,
    /// Cells of both kinds.
    Mixed,
}

/// What a cell shows of its column's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    MonthFirst,
    DayFirst,
    /// Reads as two different dates: its reading depends on the column.
    Ambiguous,
}

/// The cells of one kind in a column: how many, and the first of them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Seen {
    pub(crate) count: u64,
    /// The first one's line (chunk-relative until folded).
    pub(crate) line: u64,
    /// The first one's value, for messages.
    pub(crate) value: Box<str>,
}

impl Seen {
    fn add(&mut self, other: &Seen, shift: u64) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            self.line = other.line + shift;
            self.value = other.value.clone();
        }
        self.count += other.count;
    }
}

/// What one date column's cells show.
#[derive(Debug, Clone, Default)]
pub(crate) struct Evidence {
    pub(crate) month_first: Seen,
    pub(crate) day_first: Seen,
    pub(crate) ambiguous: Seen,
    /// A pass of `--fix` before this one made the column's valid cells
    /// that read as two dates month first (`day-first-date`'s fix): what they
    /// hold now is what the fixes wrote, which a later pass must not read
    /// day first again. (Set by [`DateOrders::valid_fixed`].)
    pub(crate) valid_fixed: bool,
}

impl Evidence {
    pub(crate) fn order(&self) -> Order {
        match (self.month_first.count > 0, self.day_first.count > 0) {
            (false, false) => Order::Unknown,
            (true, false) => Order::MonthFirst,
            (false, true) => Order::DayFirst,
            (true, true) => Order::Mixed,
        }
    }
}

/// The evidence of a file's date columns (or of one chunk's rows), by
/// column.
#[derive(Debug, Clone, Default)]
pub struct DateOrders {
    /// By [`ColumnId`]; empty until a cell showed something.
    cols: Vec<Evidence>,
    /// Set by the fold when no orders were known up front and some
    /// column's ambiguous cells were read as an unknown column's while the
    /// whole column reads otherwise: the check's verdicts on them are not
    /// the file's (see the module's documentation).
    late: bool,
    /// See [`Self::after_first`].
    after_first: bool,
}

impl DateOrders {
    /// Notes a cell of column `col` on `line`.
    pub(crate) fn note(&mut self, col: ColumnId, kind: Kind, line: u64, value: &str) {
        if self.cols.len() <= col {
            self.cols.resize_with(col + 1, Evidence::default);
        }
        let e = &mut self.cols[col];
        let seen = match kind {
            Kind::MonthFirst => &mut e.month_first,
            Kind::DayFirst => &mut e.day_first,
            Kind::Ambiguous => &mut e.ambiguous,
        };
        if seen.count == 0 {
            seen.line = line;
            seen.value = value.into();
        }
        seen.count += 1;
    }

    /// Adds the evidence of the next chunk in file order, whose lines are
    /// `shift` lines on.
    pub(crate) fn add(&mut self, chunk: &DateOrders, shift: u64) {
        if self.cols.len() < chunk.cols.len() {
            self.cols.resize_with(chunk.cols.len(), Evidence::default);
        }
        for (e, c) in self.cols.iter_mut().zip(&chunk.cols) {
            e.month_first.add(&c.month_first, shift);
            e.day_first.add(&c.day_first, shift);
            e.ambiguous.add(&c.ambiguous, shift);
        }
    }

    /// What column `col` shows.
    pub(crate) fn column(&self, col: ColumnId) -> Option<&Evidence> {
        self.cols.get(col)
    }

    /// Whether the verdicts of a check made without the orders known up
    /// front are not those of the whole file: a column with ambiguous
    /// cells reads day first, or both ways; or an `MM/DD/YYYY` column
    /// (`mdy` says which) does, whose valid cells that read as two dates
    /// draw `day-first-date` only when the order is known up front. (An
    /// unknown column's ambiguous cells get the month-first column's
    /// verdict, so a month-first column changes nothing.) Valid cells are
    /// not counted, since that would cost every clean file a little on
    /// every cell: such a column is checked again whether it has them or
    /// not, which only files with day-first cells pay.
    pub(crate) fn settle(&mut self, mdy: impl Fn(ColumnId) -> bool) {
        self.late = self.cols.iter().enumerate().any(|(c, e)| {
            matches!(e.order(), Order::DayFirst | Order::Mixed) && (e.ambiguous.count > 0 || mdy(c))
        });
    }

    /// What column `col` shows, if its valid cells that read as two dates
    /// are read by it (`day-first-date`): it is day-first or written both
    /// ways, and no earlier pass of `--fix` rewrote them.
    pub(crate) fn reads_valid(&self, col: ColumnId) -> Option<&Evidence> {
        self.column(col)
            .filter(|e| !e.valid_fixed && matches!(e.order(), Order::DayFirst | Order::Mixed))
    }

    /// Marks the day-first columns as fixed by `day-first-date`: a pass of
    /// `--fix` applied its fixes, which rewrite every valid cell of such a
    /// column that reads as two dates month first (and its day-first
    /// cells, by `invalid-date`'s unsafe fixes, made with them). The passes
    /// after it, and the check of the result, read the cells they see as
    /// the fixes wrote them: read day first again, they would be swapped
    /// back. A column written both ways keeps its cells (none of them has
    /// a fix that would take its order from the file) and is read as
    /// before.
    pub(crate) fn valid_fixed(&mut self) {
        for e in &mut self.cols {
            if e.order() == Order::DayFirst {
                e.valid_fixed = true;
            }
        }
    }

    /// Marks these orders as read by a pass of `--fix` after the first,
    /// which applies no `day-first-date` swap (see [`Self::after_first`]).
    pub(crate) fn first_pass_done(&mut self) {
        self.after_first = true;
    }

    /// A pass of `--fix` before this one wrote a copy. The first pass's
    /// cells that read as two dates were all the user's, and it swapped
    /// them (or deliberately did not); a cell read now may be a fix's
    /// month-first date (`2024-03-07` written `03/07/2024`), which a swap
    /// would turn into another date. The finding stands, as a check of
    /// the copy makes it; its swap is not applied.
    pub(crate) fn after_first(&self) -> bool {
        self.after_first
    }

    /// These orders, as a check given them up front returns them: known
    /// from the first row, so never late.
    pub(crate) fn as_known(&self) -> DateOrders {
        DateOrders {
            cols: self.cols.clone(),
            late: false,
            after_first: self.after_first,
        }
    }

    /// See [`DateOrders::settle`]: the check must be made again with these
    /// orders up front for its findings to be the file's.
    pub(crate) fn late(&self) -> bool {
        self.late
    }

    /// The columns whose order was learned late, with what shows it:
    /// (column, evidence). Those without ambiguous cells matter only if
    /// they are `MM/DD/YYYY` columns (see [`DateOrders::settle`]).
    pub(crate) fn late_columns(&self) -> impl Iterator<Item = (ColumnId, &Evidence)> {
        self.cols
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e.order(), Order::DayFirst | Order::Mixed))
    }
}

/// How `e`'s column shows its order, for messages: "day-first (line 9:
/// `26/07/2021`)", or "written both month first (line 3: `03/25/2024`)
/// and day first (line 4: `26/07/2021`)".
pub(crate) fn shown(e: &Evidence) -> String {
    match e.order() {
        Order::DayFirst => format!(
            "day-first (line {}: `{}`)",
            e.day_first.line, e.day_first.value
        ),
        _ => format!(
            "written both month first (line {}: `{}`) and day first (line {}: `{}`)",
            e.month_first.line, e.month_first.value, e.day_first.line, e.day_first.value
        ),
    }
}

/// What a check whose findings cannot be made again (a stream, a large
/// file checked as it is read, a ZIP bundle's member) says after them
/// when it learned a column's order late: one note (`invalid-date`, info)
/// per such column with cells that read as two dates, on the first cell
/// read before the order was known, and one (`day-first-date`, info) per such
/// `MM/DD/YYYY` column, whose valid cells that read as two dates drew no
/// warning. `format` names the table the file was checked as.
pub(crate) fn late_notes(dates: &DateOrders, format: Option<&str>) -> Vec<Diagnostic> {
    let Some(table) = format.and_then(|f| crate::schema::table(f).ok().flatten()) else {
        return Vec::new();
    };
    let mut notes = Vec::new();
    for (c, e) in dates.late_columns() {
        let Some(col) = table.columns.get(c) else {
            continue;
        };
        let name = &col.name;
        let shown = shown(e);
        let n = e.ambiguous.count;
        if n > 0 {
            let finding = Finding::new(
                &rules::INVALID_DATE,
                format!(
                    "the cells of `{name}` are {shown}, which the check learned only at the end of the file: {n} {} that {} as two dates (the first on line {}: `{}`) {} reported as in a column of unknown order, with a month-first fix",
                    if n == 1 { "cell" } else { "cells" },
                    if n == 1 { "reads" } else { "read" },
                    e.ambiguous.line,
                    e.ambiguous.value,
                    if n == 1 { "was" } else { "were" },
                ),
            )
            .help("`bdxlint check --fix` (and `--diff`) read them the column's way; so does a check of a file of 8 MiB or less, which is checked again")
            .severity(Some(Severity::Info));
            notes.push(finding.file_at(0..0, e.ambiguous.line, 1));
        }
        if col.shape == Shape::Date(DateShape::Mdy) {
            let finding = Finding::new(
                &rules::DAY_FIRST_DATE,
                format!(
                    "the cells of `{name}` are {shown}, which the check learned only at the end of the file: its valid dates that read as two (both numbers 12 or less, as in `06/07/2019`), which the platform reads month first, drew no `day-first-date` warning"
                ),
            )
            .help("`bdxlint check --diff` (or `--fix`) reads them the column's way and warns where each one is; so does a check of a file of 8 MiB or less, which is checked again")
            .severity(Some(Severity::Info));
            notes.push(finding.file_at(0..0, e.day_first.line, 1));
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_is_folded_in_file_order_and_keeps_the_first_cell() {
        let mut file = DateOrders::default();
        let mut a = DateOrders::default();
        a.note(2, Kind::Ambiguous, 3, "6/07/2019");
        let mut b = DateOrders::default();
        b.note(2, Kind::DayFirst, 1, "26/07/2021");
        b.note(2, Kind::DayFirst, 4, "31/12/2020");
        b.note(2, Kind::Ambiguous, 2, "1/02/2020");
        file.add(&a, 0);
        file.add(&b, 10);
        file.settle(|_| false);
        let e = file.column(2).expect("noted");
        assert_eq!(e.order(), Order::DayFirst);
        assert_eq!((e.day_first.count, e.day_first.line), (2, 11));
        assert_eq!(&*e.day_first.value, "26/07/2021");
        assert_eq!((e.ambiguous.count, e.ambiguous.line), (2, 3));
        assert!(file.late());
        assert!(file.column(0).is_none_or(|e| e.order() == Order::Unknown));
    }

    #[test]
    fn only_day_first_or_mixed_columns_with_ambiguous_cells_are_late() {
        let settled = |notes: &[Kind]| {
            let mut d = DateOrders::default();
            for (i, k) in notes.iter().enumerate() {
                d.note(0, *k, i as u64 + 1, "x");
            }
            d.settle(|_| false);
            d.late()
        };
        assert!(!settled(&[Kind::DayFirst]));
        assert!(!settled(&[Kind::MonthFirst, Kind::Ambiguous]));
        assert!(!settled(&[Kind::Ambiguous]));
        assert!(settled(&[Kind::Ambiguous, Kind::DayFirst]));
        assert!(settled(&[
            Kind::MonthFirst,
            Kind::Ambiguous,
            Kind::DayFirst
        ]));
    }
}
