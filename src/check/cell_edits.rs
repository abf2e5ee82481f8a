//! The edits that rules attach to their findings: how a corrected value is
//! written back into the bytes of its cell, and the corrections that need
//! more than a lookup (dates written in another order).
//!
//! Edits touch as little as they can, so that two fixes on one cell do not
//! overlap: the spaces around a value are two deletions, the value between
//! them one replacement. A cell with ` TRUE ` then takes both fixes in one
//! pass, and every byte no fix names stays as it was.

use super::dates::{Kind, Order};
use crate::diagnostic::Applicability;
use crate::scan::FieldSpan;
use crate::schema::shape::{DateShape, JsonKind};
use chrono::NaiveDate;
use std::ops::Range;

/// `s` as a whole CSV field: quoted (with `"` doubled) only where a reader
/// needs the quotes.
pub(crate) fn csv_field(s: &str) -> String {
    if s.bytes().any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n')) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// The raw spans of a cell's value and of the spaces around it.
pub(crate) struct CellParts {
    pub(crate) lead: Range<usize>,
    pub(crate) value: Range<usize>,
    pub(crate) trail: Range<usize>,
    quoted: bool,
}

impl CellParts {
    /// `value` is the cell's unescaped text and `trimmed` a part of it.
    /// Spaces hold no `"`, so the unescaped lengths of the spaces are their
    /// raw lengths, and what lies between them is the value, escapes and
    /// all.
    pub(crate) fn of(f: &FieldSpan, value: &str, trimmed: &str) -> CellParts {
        let (cs, ce) = f.content();
        let lead = if trimmed.is_empty() {
            value.len()
        } else {
            trimmed.as_ptr() as usize - value.as_ptr() as usize
        };
        let trail = value.len() - lead - trimmed.len();
        let vs = (cs + lead).min(ce);
        let ve = ce.saturating_sub(trail).max(vs);
        CellParts {
            lead: cs..vs,
            value: vs..ve,
            trail: ve..ce,
            quoted: f.quoted,
        }
    }

    /// The deletions of the spaces around the value.
    pub(crate) fn trim_edits(&self) -> Vec<(Range<usize>, String)> {
        [&self.lead, &self.trail]
            .into_iter()
            .filter(|r| !r.is_empty())
            .map(|r| (r.clone(), String::new()))
            .collect()
    }

    /// The value replaced by `new`, escaped as the cell is written; `None`
    /// where an unquoted cell would need quotes for it.
    pub(crate) fn replace(&self, new: &str) -> Option<(Range<usize>, String)> {
        if self.quoted {
            Some((self.value.clone(), new.replace('"', "\"\"")))
        } else if new
            .bytes()
            .any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n'))
        {
            None
        } else {
            Some((self.value.clone(), new.to_owned()))
        }
    }
}

/// How a date cell's value reads: the date it names month first and day
/// first, where its numbers allow both orders.
///
/// Read: year first, `2024-03-07` and `2024/3/7` (year, month, day on every
/// reading) and `20240307`; two numbers and a year, with slashes or dots
/// (`3/7/2024`, `25/03/2024`, `07.03.2024`, `3/7/24`), or eight digits
/// `DDMMYYYY`/`MMDDYYYY` when `YYYYMMDD` gives no date; and a month's
/// English name (`7-Mar-24`, `7 March 2024`, `Mar 7, 2024`). A two-digit
/// year is read as POSIX `%y` does: 00-68 as 20yy, 69-99 as 19yy. Eight
/// digits are a date only for years 1900-2099.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DateReadings {
    /// Read month first (for a value that writes its order, its one
    /// reading).
    month_first: Option<NaiveDate>,
    day_first: Option<NaiveDate>,
    /// The value writes which number is the month (year first, a month's
    /// name): `month_first` is its one reading.
    written: bool,
    /// A two-digit year: its century is a guess.
    short_year: bool,
    /// Slashes and a four-digit year (`3/7/2024`): what the employees'
    /// `MM/DD/YYYY` columns write without their zeros.
    slashed: bool,
}

impl DateReadings {
    /// The readings of `value` (trimmed), if it is a date in one of the
    /// shapes above; `None` also when no reading gives a real date.
    pub(crate) fn of(value: &str) -> Option<DateReadings> {
        year_first(value)
            .or_else(|| compact(value))
            .or_else(|| two_orders(value))
            .or_else(|| named(value))
    }

    /// What the cell shows of its column's order: only one order gives a
    /// date, or both give different ones.
    pub(crate) fn kind(&self) -> Option<Kind> {
        if self.written {
            return None;
        }
        match (self.month_first, self.day_first) {
            (Some(_), None) => Some(Kind::MonthFirst),
            (None, Some(_)) => Some(Kind::DayFirst),
            (Some(m), Some(d)) if m != d => Some(Kind::Ambiguous),
            _ => None,
        }
    }

    /// The date to write in a column of `shape` whose cells are in `order`,
    /// and how sure that is.
    ///
    /// Safe: one reading, no guess (year first, a month's name, one order
    /// giving a date, or both the same one), except a day-first-only date
    /// in an `MM/DD/YYYY` column (it contradicts the column's order); and
    /// as before any of this, `3/7/2024` into `MM/DD/YYYY` (month first, as
    /// the column writes it: only zeros are added) where no cell of the
    /// column reads only day first. Unsafe: a two-digit year (the century
    /// is a guess), and a value two orders read as two dates in any other
    /// case: month first in a column of unknown or month-first order, day
    /// first in a day-first column. None in a column written both ways.
    ///
    /// `needed`: the column has cells that read as two dates and is
    /// day-first or written both ways, so a value that reads one way is
    /// what they are read by. Its fix would take that away from the fixed
    /// file (`26/07/2021` becomes `2021-07-26`, which shows no order): in a
    /// day-first column it is unsafe, made with theirs; in one written both
    /// ways, none.
    pub(crate) fn verdict(
        &self,
        shape: DateShape,
        order: Order,
        needed: bool,
    ) -> Option<(NaiveDate, Applicability)> {
        let sure = |safe: bool| {
            if safe && !self.short_year {
                Applicability::Safe
            } else {
                Applicability::Unsafe
            }
        };
        if self.written {
            return Some((self.month_first?, sure(true)));
        }
        let one_way = |d: NaiveDate, safe: bool| match (needed, order) {
            (true, Order::Mixed) => None,
            (true, _) => Some((d, Applicability::Unsafe)),
            (false, _) => Some((d, sure(safe))),
        };
        match (self.month_first, self.day_first) {
            (Some(m), Some(d)) if m == d => Some((m, sure(true))),
            (Some(m), None) => one_way(m, true),
            (None, Some(d)) => one_way(d, shape != DateShape::Mdy),
            (Some(m), Some(d)) => match order {
                Order::Unknown | Order::MonthFirst => {
                    Some((m, sure(shape == DateShape::Mdy && self.slashed)))
                }
                Order::DayFirst => Some((d, Applicability::Unsafe)),
                Order::Mixed => None,
            },
            (None, None) => None,
        }
    }

    /// [`DateReadings::verdict`] written in `shape`, unless that is
    /// `value` itself or the shape is not a plain date.
    pub(crate) fn fix(
        &self,
        shape: DateShape,
        value: &str,
        order: Order,
        needed: bool,
    ) -> Option<(String, Applicability)> {
        let (date, applicability) = self.verdict(shape, order, needed)?;
        let text = match shape {
            DateShape::Mdy => date.format("%m/%d/%Y").to_string(),
            DateShape::Ymd => date.format("%Y-%m-%d").to_string(),
            _ => return None,
        };
        (text != value).then_some((text, applicability))
    }
}

/// The value of `value` in `shape` in a column of `order`, where it is a
/// date written otherwise (see [`DateReadings`]), and how sure that is.
#[cfg(test)]
pub(crate) fn date(shape: DateShape, value: &str, order: Order) -> Option<(String, Applicability)> {
    DateReadings::of(value)?.fix(shape, value, order, false)
}

/// Digits only, of a length in `lens`.
fn number(s: &str, lens: Range<usize>) -> Option<u32> {
    (lens.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

fn real(y: u32, m: u32, d: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, d)
}

/// One reading, the order written in the value.
fn written(date: NaiveDate, short_year: bool) -> DateReadings {
    DateReadings {
        month_first: Some(date),
        day_first: Some(date),
        written: true,
        short_year,
        slashed: false,
    }
}

/// A four-digit year, or a two-digit one and whether it was.
fn year(s: &str) -> Option<(u32, bool)> {
    if let Some(y) = number(s, 4..5) {
        return Some((y, false));
    }
    let y = number(s, 2..3)?;
    Some((if y <= 68 { 2000 + y } else { 1900 + y }, true))
}

/// `2024-03-07`, `2024/3/7`.
fn year_first(value: &str) -> Option<DateReadings> {
    let sep = if value.contains('/') { '/' } else { '-' };
    let mut parts = value.split(sep);
    let (a, b, c) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let (y, m, d) = (number(a, 4..5)?, number(b, 1..3)?, number(c, 1..3)?);
    Some(written(real(y, m, d)?, false))
}

/// `20240307`; else `DDMMYYYY` or `MMDDYYYY`.
fn compact(value: &str) -> Option<DateReadings> {
    if value.len() != 8 || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n = |r: Range<usize>| number(&value[r], 1..5);
    let years = 1900..=2099;
    if let Some(y) = n(0..4).filter(|y| years.contains(y)) {
        if let Some(date) = real(y, n(4..6)?, n(6..8)?) {
            return Some(written(date, false));
        }
    }
    let y = n(4..8).filter(|y| years.contains(y))?;
    let (p, q) = (n(0..2)?, n(2..4)?);
    readings(real(y, p, q), real(y, q, p), false, false)
}

/// Two numbers and a year, with slashes or dots: `3/7/2024`,
/// `25.03.2024`, `3/7/24`.
fn two_orders(value: &str) -> Option<DateReadings> {
    let sep = if value.contains('/') { '/' } else { '.' };
    let mut parts = value.split(sep);
    let (a, b, c) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let (p, q) = (number(a, 1..3)?, number(b, 1..3)?);
    let (y, short) = year(c)?;
    readings(real(y, p, q), real(y, q, p), short, sep == '/' && !short)
}

fn readings(
    month_first: Option<NaiveDate>,
    day_first: Option<NaiveDate>,
    short_year: bool,
    slashed: bool,
) -> Option<DateReadings> {
    (month_first.is_some() || day_first.is_some()).then_some(DateReadings {
        month_first,
        day_first,
        written: false,
        short_year,
        slashed,
    })
}

/// The month an English name or its abbreviation (`Mar`, `March`,
/// `Sept`) stands for.
fn month_name(s: &str) -> Option<u32> {
    const NAMES: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    if s.len() < 3 || !s.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let s = s.to_ascii_lowercase();
    let s = if s == "sept" { "sep" } else { s.as_str() };
    NAMES
        .iter()
        .position(|n| *n == s || (s.len() == 3 && n.starts_with(s)))
        .and_then(|i| u32::try_from(i + 1).ok())
}

/// A month's name with a day and a year: `7-Mar-24`, `7 March 2024`,
/// `Mar 7, 2024`, `March 7 2024`.
fn named(value: &str) -> Option<DateReadings> {
    let words: Vec<&str> = value.split([' ', '-']).filter(|w| !w.is_empty()).collect();
    let [a, b, c] = words[..] else {
        return None;
    };
    // Only `Mar 7, 2024` has a comma, after the day.
    let (m, d) = match month_name(b) {
        Some(m) if !a.contains(',') && !b.contains(',') => (m, number(a, 1..3)?),
        _ => (
            month_name(a)?,
            number(b.strip_suffix(',').unwrap_or(b), 1..3)?,
        ),
    };
    let (y, short) = year(c)?;
    Some(written(real(y, m, d)?, short))
}

/// `text`, which is not JSON, repaired where one reading is plain: single
/// quotes where JSON has double ones (only when the text has no double
/// quote, so no string mixes them), and commas before a closing `}` or `]`.
/// The repair must parse as JSON of the column's kind; anything else (an
/// apostrophe inside a value, say) gets no fix.
pub(crate) fn json(text: &str, kind: JsonKind) -> Option<String> {
    let quoted = if text.contains('\'') && !text.contains('"') {
        text.replace('\'', "\"")
    } else {
        text.to_owned()
    };
    let fixed = without_trailing_commas(&quoted);
    if fixed == text {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(&fixed).ok()?;
    let fits = match kind {
        JsonKind::Any => true,
        JsonKind::Object => v.is_object(),
        JsonKind::Array => v.is_array(),
    };
    fits.then_some(fixed)
}

/// `s` without the commas that come right before a `}` or `]` (spaces
/// between allowed), outside strings.
fn without_trailing_commas(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let (mut in_string, mut escaped) = (false, false);
    for (i, c) in s.char_indices() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if c == ',' {
            let next = b[i + 1..].iter().find(|x| !x.is_ascii_whitespace());
            if matches!(next, Some(b'}' | b']')) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use Applicability::{Safe, Unsafe};

    #[test]
    fn dates_are_rewritten_only_where_the_reading_is_sure() {
        let cases = [
            (DateShape::Mdy, "2024-03-07", Some(("03/07/2024", Safe))),
            (DateShape::Mdy, "2024/3/7", Some(("03/07/2024", Safe))),
            (DateShape::Mdy, "3/7/2024", Some(("03/07/2024", Safe))),
            (DateShape::Mdy, "25/3/2024", Some(("03/25/2024", Unsafe))),
            (DateShape::Mdy, "03/07/2024", None),
            (DateShape::Mdy, "2024-02-30", None),
            (DateShape::Mdy, "3-7-2024", None),
            (DateShape::Mdy, "24-03-07", None),
            (DateShape::Ymd, "03/07/2024", Some(("2024-03-07", Unsafe))),
            (DateShape::Ymd, "03/25/2024", Some(("2024-03-25", Safe))),
            (DateShape::Ymd, "25/03/2024", Some(("2024-03-25", Safe))),
            (DateShape::Ymd, "3/3/2024", Some(("2024-03-03", Safe))),
            (DateShape::Ymd, "2024-3-7", Some(("2024-03-07", Safe))),
            (DateShape::Ymd, "2024-03-07", None),
            (DateShape::Ymd, "13/13/2024", None),
            (DateShape::DateTimeIso, "2024-3-7", None),
        ];
        for (shape, v, want) in cases {
            let got = date(shape, v, Order::Unknown);
            assert_eq!(
                got.as_ref().map(|(t, a)| (t.as_str(), *a)),
                want,
                "{shape:?} {v}"
            );
        }
    }

    #[test]
    fn new_date_shapes_are_read_and_safe_only_without_a_guess() {
        use DateShape::{Mdy, Ymd};
        let cases = [
            // Zero-padded day first: only one order gives a date.
            (Mdy, "25/03/2024", Some(("03/25/2024", Unsafe))),
            (Ymd, "25/03/2024", Some(("2024-03-25", Safe))),
            // Dots, as much of Europe writes dates.
            (Mdy, "25.03.2024", Some(("03/25/2024", Unsafe))),
            (Ymd, "25.03.2024", Some(("2024-03-25", Safe))),
            (Ymd, "3.25.2024", Some(("2024-03-25", Safe))),
            (Ymd, "07.03.2024", Some(("2024-07-03", Unsafe))),
            // Dots read either way are never safe, even month first.
            (Mdy, "7.3.2024", Some(("07/03/2024", Unsafe))),
            // A two-digit year guesses a century.
            (Mdy, "3/7/24", Some(("03/07/2024", Unsafe))),
            (Mdy, "3/25/24", Some(("03/25/2024", Unsafe))),
            (Ymd, "12/31/99", Some(("1999-12-31", Unsafe))),
            (Ymd, "1/1/68", Some(("2068-01-01", Unsafe))),
            // A month's name says which number is the month.
            (Mdy, "7-Mar-24", Some(("03/07/2024", Unsafe))),
            (Mdy, "7-Mar-2024", Some(("03/07/2024", Safe))),
            (Ymd, "07-mar-2024", Some(("2024-03-07", Safe))),
            (Mdy, "Mar 7, 2024", Some(("03/07/2024", Safe))),
            (Mdy, "March 7 2024", Some(("03/07/2024", Safe))),
            (Ymd, "7 March 2024", Some(("2024-03-07", Safe))),
            (Ymd, "Sept 30, 2024", Some(("2024-09-30", Safe))),
            (Mdy, "Mar 32, 2024", None),
            (Mdy, "Mat 7, 2024", None),
            (Mdy, "7 Mar", None),
            // Eight digits: year first when that gives a date.
            (Mdy, "20240307", Some(("03/07/2024", Safe))),
            (Ymd, "20240307", Some(("2024-03-07", Safe))),
            (Ymd, "25032024", Some(("2024-03-25", Safe))),
            (Mdy, "25032024", Some(("03/25/2024", Unsafe))),
            (Ymd, "03072024", Some(("2024-03-07", Unsafe))),
            (Mdy, "03072024", Some(("03/07/2024", Unsafe))),
            (Mdy, "20241307", None),
            (Mdy, "12345678", None),
            (Mdy, "2024030", None),
        ];
        for (shape, v, want) in cases {
            let got = date(shape, v, Order::Unknown);
            assert_eq!(
                got.as_ref().map(|(t, a)| (t.as_str(), *a)),
                want,
                "{shape:?} {v}"
            );
        }
    }

    #[test]
    fn an_ambiguous_date_takes_its_column_order() {
        use DateShape::{Mdy, Ymd};
        use Order::*;
        let cases = [
            // As before any evidence, and in a month-first column.
            (Mdy, "6/07/2019", Unknown, Some(("06/07/2019", Safe))),
            (Mdy, "6/07/2019", MonthFirst, Some(("06/07/2019", Safe))),
            (Ymd, "06/07/2019", MonthFirst, Some(("2019-06-07", Unsafe))),
            // A day-first column: only an unsafe day-first reading.
            (Mdy, "6/07/2019", DayFirst, Some(("07/06/2019", Unsafe))),
            (Mdy, "06.07.2019", DayFirst, Some(("07/06/2019", Unsafe))),
            (Mdy, "06072019", DayFirst, Some(("07/06/2019", Unsafe))),
            (Ymd, "06/07/2019", DayFirst, Some(("2019-07-06", Unsafe))),
            // Written both ways: no reading.
            (Mdy, "6/07/2019", Mixed, None),
            (Ymd, "06/07/2019", Mixed, None),
            // A value that reads one way, or the same date both ways, is
            // not ambiguous: its column does not matter.
            (Mdy, "26/07/2019", Mixed, Some(("07/26/2019", Unsafe))),
            (Ymd, "26/07/2019", DayFirst, Some(("2019-07-26", Safe))),
            (Mdy, "7/7/2019", DayFirst, Some(("07/07/2019", Safe))),
            (Mdy, "2019-07-06", Mixed, Some(("07/06/2019", Safe))),
            (Mdy, "6-Jul-2019", Mixed, Some(("07/06/2019", Safe))),
        ];
        for (shape, v, order, want) in cases {
            let got = date(shape, v, order);
            assert_eq!(
                got.as_ref().map(|(t, a)| (t.as_str(), *a)),
                want,
                "{shape:?} {v} {order:?}"
            );
        }
    }

    #[test]
    fn a_cell_that_shows_the_order_others_need_keeps_it() {
        use DateShape::{Mdy, Ymd};
        let fix =
            |shape, v: &str, order| DateReadings::of(v).and_then(|r| r.fix(shape, v, order, true));
        assert_eq!(
            fix(Ymd, "26/07/2021", Order::DayFirst),
            Some(("2021-07-26".into(), Unsafe))
        );
        assert_eq!(fix(Ymd, "26/07/2021", Order::Mixed), None);
        assert_eq!(fix(Mdy, "3/25/2021", Order::Mixed), None);
        // What shows no order is fixed as ever.
        assert_eq!(
            fix(Ymd, "2021/7/26", Order::Mixed),
            Some(("2021-07-26".into(), Safe))
        );
        assert_eq!(
            fix(Mdy, "7/7/2021", Order::DayFirst),
            Some(("07/07/2021".into(), Safe))
        );
    }

    #[test]
    fn cells_that_read_one_way_are_evidence() {
        let kind = |v: &str| DateReadings::of(v).and_then(|r| r.kind());
        assert_eq!(kind("26/07/2021"), Some(Kind::DayFirst));
        assert_eq!(kind("26.07.2021"), Some(Kind::DayFirst));
        assert_eq!(kind("26072021"), Some(Kind::DayFirst));
        assert_eq!(kind("31/12/21"), Some(Kind::DayFirst));
        assert_eq!(kind("07/26/2021"), Some(Kind::MonthFirst));
        assert_eq!(kind("6/07/2019"), Some(Kind::Ambiguous));
        assert_eq!(kind("06.07.2019"), Some(Kind::Ambiguous));
        // Written orders and equal readings show nothing.
        assert_eq!(kind("7/7/2019"), None);
        assert_eq!(kind("2019-07-26"), None);
        assert_eq!(kind("20190726"), None);
        assert_eq!(kind("26-Jul-2019"), None);
        assert_eq!(kind("13/13/2019"), None);
    }

    #[test]
    fn json_is_repaired_only_where_one_reading_is_plain() {
        let j = |s| json(s, JsonKind::Object);
        assert_eq!(j("{'a':'b'}").as_deref(), Some("{\"a\":\"b\"}"));
        assert_eq!(j("{\"a\":[1,2,],}").as_deref(), Some("{\"a\":[1,2]}"));
        assert_eq!(
            j("{'a': [1, 2 , ] }").as_deref(),
            Some("{\"a\": [1, 2  ] }")
        );
        // A comma inside a string is text.
        assert_eq!(j("{\"a\":\",}\",}").as_deref(), Some("{\"a\":\",}\"}"));
        // An apostrophe in a value, quotes of both kinds, the wrong kind, or
        // nothing to repair: no fix.
        assert_eq!(j("{'name':'O'Brien'}"), None);
        assert_eq!(j("{'a':\"b\"}"), None);
        assert_eq!(json("['a',]", JsonKind::Object), None);
        assert_eq!(j("{\"a\":1}"), None);
        assert_eq!(j("{a:1}"), None);
    }

    #[test]
    fn fields_are_quoted_only_where_needed() {
        assert_eq!(csv_field("Employee ID"), "Employee ID");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
