//! Date cells: the shape, a spreadsheet's dates, and the order of day and
//! month each column shows (read, noted, and used by the fixes).

use super::at::CellAt;
use super::plan::Plan;
use crate::check::cell_edits;
use crate::check::dates::{self, Kind, Order};
use crate::check::emit::Emitter;
use crate::check::shapes::{self, DateError};
use crate::check::sheet;
use crate::check::text::quote;
use crate::diagnostic::Applicability;
use crate::rules;
use crate::schema::shape::DateShape;
use crate::schema::ColumnId;

/// Notes a valid `MM/DD/YYYY` cell `v` of column `c` whose day is over 12:
/// it reads only month first, which is evidence of the column's order.
#[inline(always)]
pub(super) fn month_first_evidence(c: ColumnId, v: &[u8], line: u64, emit: &mut Emitter<'_>) {
    if let [_, _, _, d0, d1, ..] = *v {
        if d0 > b'1' || (d0 == b'1' && d1 > b'2') {
            note_month_first(c, v, line, emit);
        }
    }
}

#[inline(never)]
fn note_month_first(c: ColumnId, v: &[u8], line: u64, emit: &mut Emitter<'_>) {
    emit.dates
        .note(c, Kind::MonthFirst, line, &String::from_utf8_lossy(v));
}

/// A valid `MM/DD/YYYY` value `v` read month first, as the platform reads
/// it, and day first, where that is another date (both numbers 12 or less
/// and not equal).
fn two_way(v: &str) -> Option<(chrono::NaiveDate, chrono::NaiveDate)> {
    let b = v.as_bytes();
    if b.len() != 10 || b[2] != b'/' || b[5] != b'/' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| v.get(r)?.parse::<u32>().ok();
    let (m, d, y) = (num(0..2)?, num(3..5)?, num(6..10)?);
    if m == d || d > 12 {
        return None;
    }
    let y = i32::try_from(y).ok()?;
    Some((
        chrono::NaiveDate::from_ymd_opt(y, m, d)?,
        chrono::NaiveDate::from_ymd_opt(y, d, m)?,
    ))
}

impl Plan {
    /// Date cell `v` (trimmed, of column `c`), of `shape`: a
    /// valid `MM/DD/YYYY` date is noted for its column's order (and read
    /// by it, where the order is known up front); another value is a
    /// spreadsheet's date or an invalid one, read by that order for its
    /// fix.
    pub(super) fn check_date(
        &self,
        at: &CellAt<'_>,
        shape: DateShape,
        c: ColumnId,
        v: &str,
        emit: &mut Emitter<'_>,
    ) {
        let (d, f, sev) = (shape, at.f, at.col.severity);
        match shapes::check_date(d, v) {
            Ok(()) => {
                if d == DateShape::Mdy {
                    month_first_evidence(c, v.as_bytes(), f.line, emit);
                    let read = self.date_orders.as_deref().and_then(|o| o.reads_valid(c));
                    if let Some(e) = read {
                        if let Some((message, help, fix)) = self.day_first_date(c, v, e) {
                            let finding = at.finding(&rules::DAY_FIRST_DATE, message).help(help);
                            let finding = match fix {
                                // Likely, not certain: a person decides.
                                Some(new) => at.writing(finding, &new, Applicability::Unsafe),
                                None => finding,
                            };
                            at.report(emit, finding);
                        }
                    }
                }
            }
            Err(DateError::Shape) => match sheet::spreadsheet_date(d, v) {
                Some(s) => {
                    let (message, help, meant) = self.read_sheet_date(d, c, v, f.line, s, emit);
                    let finding = at
                        .finding(&rules::SPREADSHEET_DATE, message)
                        .severity(sev)
                        .help(help);
                    let finding = match meant {
                        // Most likely, not surely: a person should look.
                        Some(meant) => at.writing(finding, &meant, Applicability::Unsafe),
                        None => finding,
                    };
                    at.report(emit, finding);
                }
                None => {
                    let (fix, why) = self.read_date(d, c, v, f.line, emit);
                    let finding = at
                        .finding(
                            &rules::INVALID_DATE,
                            format!("{} is not {}{why}", quote(v), d.describe()),
                        )
                        .severity(sev)
                        .help(format!("write `{}` as {}", at.col.name, d.describe()));
                    let finding = match fix {
                        Some((new, applicability)) => at.writing(finding, &new, applicability),
                        None => finding,
                    };
                    at.report(emit, finding);
                }
            },
            Err(DateError::NotReal(why)) => {
                // `25/03/2024` in `MM/DD/YYYY`: day first, zeros and all.
                let (fix, order) = self.read_date(d, c, v, f.line, emit);
                let finding = at
                    .finding(&rules::INVALID_DATE, format!("{}: {why}{order}", quote(v)))
                    .severity(sev)
                    .help(format!("write a real date, as {}", d.describe()));
                let finding = match fix {
                    Some((new, applicability)) => at.writing(finding, &new, applicability),
                    None => finding,
                };
                at.report(emit, finding);
            }
        }
    }

    /// Reads `v`, a cell of date column `c` (of `shape`) on `line` that
    /// does not have its shape: notes what it shows of the column's order
    /// in `emit`, and gives the fix the column's order allows and what to
    /// add to the message where that order decided it. Only the plain date
    /// shapes are read.
    fn read_date(
        &self,
        shape: DateShape,
        c: ColumnId,
        v: &str,
        line: u64,
        emit: &mut Emitter<'_>,
    ) -> (Option<(String, Applicability)>, String) {
        if !matches!(shape, DateShape::Mdy | DateShape::Ymd) {
            return (None, String::new());
        }
        let Some(read) = cell_edits::DateReadings::of(v) else {
            return (None, String::new());
        };
        let kind = read.kind();
        if let Some(k) = kind {
            emit.dates.note(c, k, line, v);
        }
        let known = self.date_orders.as_deref().and_then(|o| o.column(c));
        let order = known.map_or(Order::Unknown, |e| e.order());
        // Cells that read as two dates are read by this one's order: those
        // that fail the shape, and in an `MM/DD/YYYY` column the valid ones
        // too (`day-first-date`; not counted, so presumed).
        let valid_read = shape == DateShape::Mdy
            && self
                .date_orders
                .as_deref()
                .is_some_and(|o| o.reads_valid(c).is_some());
        let needed = known.is_some_and(|e| {
            (e.ambiguous.count > 0 || valid_read) && matches!(order, Order::DayFirst | Order::Mixed)
        });
        let name = &self.table.columns[c].name;
        let at = |s: &dates::Seen| format!("line {}: {}", s.line, quote(&s.value));
        let why = match (kind, known) {
            (Some(Kind::MonthFirst | Kind::DayFirst), Some(e)) if needed => format!(
                "; {} by the order this one shows, so its fix {}",
                if e.ambiguous.count > 0 {
                    format!(
                        "other cells of `{name}` read as two dates (line {}) and are read",
                        e.ambiguous.line
                    )
                } else {
                    // Valid cells are not counted (see `DateOrders::settle`).
                    format!("valid cells of `{name}` that read as two dates (both numbers 12 or less), if it has any, are read")
                },
                if order == Order::Mixed {
                    "is left to a person (the column is written both ways)"
                } else {
                    "is unsafe, made with theirs"
                }
            ),
            (Some(Kind::Ambiguous), Some(e)) => {
                match order {
                    Order::DayFirst => format!(
                        "; other cells of `{name}` are day-first ({})",
                        at(&e.day_first)
                    ),
                    Order::Mixed => format!(
                        "; it reads as two dates, and cells of `{name}` are written both month first ({}) and day first ({})",
                        at(&e.month_first),
                        at(&e.day_first)
                    ),
                    Order::Unknown | Order::MonthFirst => String::new(),
                }
            }
            _ => String::new(),
        };
        let mut fix = read.fix(shape, v, order, needed);
        let mut why = why;
        // `2024-03-07` written `03/07/2024` in a column whose valid cells
        // that read as two dates are read day first: the fixed file would
        // hold a date `day-first-date` (and whoever reads the column) takes
        // for 3 July. Made with their fixes, which write the column month
        // first throughout.
        if let (Some((text, a)), Some(e)) = (
            &mut fix,
            self.date_orders.as_deref().and_then(|o| o.reads_valid(c)),
        ) {
            if shape == DateShape::Mdy && *a == Applicability::Safe && two_way(text).is_some() {
                *a = Applicability::Unsafe;
                why.push_str(&format!(
                    "; written {}, it would read as two dates in a column whose cells are {}, so its fix is unsafe",
                    quote(text),
                    dates::shown(e)
                ));
            }
        }
        (fix, why)
    }

    /// A valid `MM/DD/YYYY` cell `v` of column `c`, whose valid cells that
    /// read as two dates are read by what `e` shows (`day-first-date`): the
    /// message, help and (in a day-first column) the day-first reading to
    /// write, if `v` reads as two dates.
    fn day_first_date(
        &self,
        c: ColumnId,
        v: &str,
        e: &dates::Evidence,
    ) -> Option<(String, String, Option<String>)> {
        let (as_read, meant) = two_way(v)?;
        let long = |d: chrono::NaiveDate| d.format("%B %-d, %Y").to_string();
        let swapped = meant.format("%m/%d/%Y").to_string();
        let name = &self.table.columns[c].name;
        let shown = dates::shown(e);
        Some(if e.order() == Order::DayFirst {
            (
                format!(
                    "{} is read month first, as {}, but other cells of `{name}` are {shown}: it most likely means {}",
                    quote(v),
                    long(as_read),
                    long(meant)
                ),
                format!(
                    "if it means {}, write `{swapped}`; if it means {}, leave it, and write the day-first cells month first",
                    long(meant),
                    long(as_read)
                ),
                Some(swapped),
            )
        } else {
            (
                format!(
                    "{} is read month first, as {}, but cells of `{name}` are {shown}: it may mean {}",
                    quote(v),
                    long(as_read),
                    long(meant)
                ),
                format!(
                    "find out which order the column's source writes: write `{swapped}` if it means {}; leave it if it means {}",
                    long(meant),
                    long(as_read)
                ),
                None,
            )
        })
    }

    /// Reads `v`, a cell of date column `c` (of `shape`) on `line` that a
    /// spreadsheet wrote (`s`), as `read_date` reads other dates: notes
    /// what it shows of the column's order, and reads a value both orders
    /// read as two dates as the column is written (day first in a
    /// day-first column, not at all in one written both ways). Gives the
    /// message, the help and the value to write.
    fn read_sheet_date(
        &self,
        shape: DateShape,
        c: ColumnId,
        v: &str,
        line: u64,
        s: sheet::SheetDate,
        emit: &mut Emitter<'_>,
    ) -> (String, String, Option<String>) {
        if let Some(k) = s.kind {
            emit.dates.note(c, k, line, v);
        }
        let known = self.date_orders.as_deref().and_then(|o| o.column(c));
        let order = known.map_or(Order::Unknown, |e| e.order());
        let name = &self.table.columns[c].name;
        let keep =
            "format the column as text in the spreadsheet before exporting, so that it keeps dates as typed";
        let (meant, note) = match (s.kind, order, known, s.day_first) {
            (Some(Kind::Ambiguous), Order::DayFirst, Some(e), Some((day_first, offset))) => {
                let why = format!(
                    "read day first, as other cells of `{name}` are (line {}: {}){}",
                    e.day_first.line,
                    quote(&e.day_first.value),
                    offset.map(|o| format!("; {o}")).unwrap_or_default()
                );
                (day_first, Some(why))
            }
            (Some(Kind::Ambiguous), Order::Mixed, Some(e), Some((day_first, _))) => {
                return (
                    format!(
                        "{} is {}, not {}; it reads as two dates, `{}` or `{day_first}`, and cells of `{name}` are {}",
                        quote(v),
                        s.what,
                        shape.describe(),
                        s.meant,
                        dates::shown(e)
                    ),
                    format!(
                        "write the date it stands for as {}; {keep}",
                        shape.describe()
                    ),
                    None,
                );
            }
            // A cell only one order reads is what the column's cells that
            // read as two dates are read by: in a column written both ways,
            // fixed alone it would leave the fixed file without it (as
            // `read_date` does for `invalid-date`).
            (Some(Kind::MonthFirst | Kind::DayFirst), Order::Mixed, Some(e), _)
                if e.ambiguous.count > 0 || shape == DateShape::Mdy =>
            {
                return (
                    format!(
                        "{} is {}, not {}; it most likely stands for `{}`, but other cells of `{name}` read as two dates and are read by the order this one shows, so its fix is left to a person (the column is {})",
                        quote(v),
                        s.what,
                        shape.describe(),
                        s.meant,
                        dates::shown(e)
                    ),
                    format!("write `{}`; {keep}", s.meant),
                    None,
                );
            }
            _ => (s.meant, s.note.map(str::to_owned)),
        };
        let note = note.map(|n| format!(" ({n})")).unwrap_or_default();
        (
            format!(
                "{} is {}, not {}; it most likely stands for `{meant}`",
                quote(v),
                s.what,
                shape.describe(),
            ),
            format!("write `{meant}`{note}; {keep}"),
            Some(meant),
        )
    }
}
