//! What a spreadsheet leaves in a cell when a file passes through it: error
//! values (`#N/A`), IDs turned into numbers in scientific notation
//! (`5.83231E+11`), dates as serial numbers (`44927`) or as the program
//! displays them (`7/1/2024 9:00`), and text that it would run as a formula.
//! Pure functions of a value; `row.rs` decides where they apply.

use super::dates::Kind;
use super::shapes;
use crate::schema::shape::DateShape;
use chrono::{Duration, NaiveDate, NaiveDateTime};

/// The error values Excel, LibreOffice and Google Sheets write for a
/// formula that failed.
const ERROR_VALUES: &[&str] = &[
    "#N/A",
    "#VALUE!",
    "#REF!",
    "#NAME?",
    "#DIV/0!",
    "#NULL!",
    "#NUM!",
    "#SPILL!",
    "#CALC!",
    "#GETTING_DATA",
    "#FIELD!",
    "#BLOCKED!",
    "#UNKNOWN!",
    "#CONNECT!",
    "#ERROR!",
];

/// Whether `v` (trimmed) is a spreadsheet's error value.
pub(crate) fn is_error_value(v: &str) -> bool {
    v.starts_with('#') && ERROR_VALUES.contains(&v)
}

/// Whether a cell starting with byte `b` may start like a formula or an
/// error value (not 0): the quick test on every cell's first byte, one
/// table load.
#[inline(always)]
pub(crate) fn suspicious_start(b: u8) -> u8 {
    START[usize::from(b)]
}

static START: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = matches!(c as u8, b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r' | b'#') as u8;
        c += 1;
    }
    t
};

/// Whether `v` (as it stands, untrimmed) starts like a formula, as OWASP's
/// CSV-injection guidance lists them: `=`, `+`, `-`, `@`, TAB or CR first.
/// A sign followed by a number (`-5`, `+1.5`) is a number.
pub(crate) fn is_formula_like(v: &str) -> bool {
    let b = v.as_bytes();
    match b.first() {
        Some(b'=' | b'@' | b'\t' | b'\r') => true,
        Some(b'+' | b'-') => !is_plain_number(&b[1..]),
        _ => false,
    }
}

/// Digits with at most one decimal point, and at least one digit.
fn is_plain_number(b: &[u8]) -> bool {
    let mut digits = 0;
    let mut points = 0;
    for &c in b {
        match c {
            b'0'..=b'9' => digits += 1,
            b'.' => points += 1,
            _ => return false,
        }
    }
    digits > 0 && points <= 1
}

/// Whether `v` may be a number in scientific notation as spreadsheets
/// write it (a digit first, an `E` four or five bytes from the end: `E+11`,
/// LibreOffice's `E+011`): the quick test on every identifier cell, a few
/// instructions.
#[inline(always)]
pub(crate) fn maybe_exponent(v: &[u8]) -> bool {
    let n = v.len();
    n >= 5
        && v[0].wrapping_sub(b'0') < 10
        && (v[n - 4] | 0x20 == b'e' || (n >= 6 && v[n - 5] | 0x20 == b'e'))
}

/// A number in scientific notation, as a spreadsheet writes one.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Scientific {
    /// Significant digits kept in the mantissa.
    pub(crate) kept: usize,
    /// Digits of the integer the number stands for, when it is one.
    pub(crate) digits: Option<usize>,
    /// That integer, when the mantissa holds all of its digits.
    pub(crate) exact: Option<String>,
}

/// `v` as `d[.ddd]E±xx` (two or three exponent digits), if it is one.
pub(crate) fn scientific(v: &str) -> Option<Scientific> {
    let (mantissa, exp) = v.split_once(['E', 'e'])?;
    let mantissa = mantissa.strip_prefix(['+', '-']).unwrap_or(mantissa);
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() || !all_digits(int) || !all_digits(frac) {
        return None;
    }
    // Spreadsheets always write the exponent's sign, and two digits (three
    // in LibreOffice): what `maybe_exponent` looks for.
    let (neg, exp_digits) = match exp.as_bytes().first()? {
        b'+' => (false, &exp[1..]),
        b'-' => (true, &exp[1..]),
        _ => return None,
    };
    if !(2..=3).contains(&exp_digits.len()) || !all_digits(exp_digits) {
        return None;
    }
    let e: usize = exp_digits.parse().ok()?;
    let sig = format!("{int}{frac}");
    let sig = sig.trim_start_matches('0');
    let kept = sig.len().max(1);
    // The integer it stands for has e + 1 digits (for a mantissa in
    // [1, 10), as spreadsheets write it).
    let int_digits = int.trim_start_matches('0').len();
    let digits = (!neg && int_digits == 1).then_some(e + 1);
    // Every digit is there when the integer has no more digits than the
    // mantissa keeps (`1.23E+2`); past that, the rest were rounded away.
    let exact = match digits {
        Some(d) if d <= kept && frac.len() <= e => {
            let mut s = format!("{int}{frac}");
            s.push_str(&"0".repeat(e - frac.len()));
            Some(s.trim_start_matches('0').to_owned())
        }
        _ => None,
    };
    Some(Scientific {
        kept,
        digits,
        exact,
    })
}

/// What a date cell most likely meant, when a spreadsheet wrote it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct SheetDate {
    /// How the spreadsheet wrote it, for the message.
    pub(crate) what: &'static str,
    /// The value in the column's shape (read month first where two orders
    /// give two dates).
    pub(crate) meant: String,
    /// A caveat about the reading (day and month order, the offset).
    pub(crate) note: Option<&'static str>,
    /// What the value shows of its column's order of day and month, as
    /// `invalid-date`'s readings do: one order only gives a date
    /// (`13/1/2024 9:00`), or both give two (`7/1/2024 9:00`).
    pub(crate) kind: Option<Kind>,
    /// Where both orders give two dates: the day-first one in the column's
    /// shape, and the caveat that goes with it (the offset's).
    pub(crate) day_first: Option<(String, Option<&'static str>)>,
}

/// Serial numbers read as dates: 1950-01-01 to 2099-12-31. A smaller
/// number is more likely a year or a count than a date.
const SERIAL_RANGE: std::ops::RangeInclusive<u32> = 18_264..=73_415;

/// `v` (trimmed), which does not have date shape `shape`, as a spreadsheet's
/// serial date or display of a date-time, written in `shape`; `None` when it
/// is neither.
pub(crate) fn spreadsheet_date(shape: DateShape, v: &str) -> Option<SheetDate> {
    let (at, what, has_time, note, kind, other) = if let Some(at) = serial(v) {
        let has_time = v.contains('.');
        (
            at,
            "a spreadsheet's serial date number",
            has_time,
            None,
            None,
            None,
        )
    } else if let Some(s) = slashed(v) {
        // A date alone is a spreadsheet's display only without the zeros
        // (`7/1/2024`, Excel's default short date); `07/01/2024` is as
        // likely typed by hand, and in the employees' shape `3/7/2024` is
        // too: both are left to `invalid-date`.
        if !s.has_time && (s.padded || shape == DateShape::Mdy) {
            return None;
        }
        let what = if s.has_time {
            "a date-time as a spreadsheet displays it"
        } else {
            "a date as a spreadsheet displays it"
        };
        (s.at, what, s.has_time, s.note, s.kind, s.day_first)
    } else if let Some(at) = spaced_iso(v) {
        (
            at,
            "a date-time as a spreadsheet writes it",
            true,
            None,
            None,
            None,
        )
    } else {
        return None;
    };
    let (meant, offset_note) = written_in(shape, at, has_time)?;
    Some(SheetDate {
        what,
        meant,
        note: note.or(offset_note),
        kind,
        day_first: other.and_then(|at| written_in(shape, at, has_time)),
    })
}

/// `at` written in `shape`, with what the writing guesses; `None` if that
/// is not what the column takes.
fn written_in(
    shape: DateShape,
    at: NaiveDateTime,
    has_time: bool,
) -> Option<(String, Option<&'static str>)> {
    let date = at.format("%Y-%m-%d");
    let time = at.format("%H:%M:%S");
    let (meant, offset_note) = match shape {
        DateShape::Mdy => (at.format("%m/%d/%Y").to_string(), None),
        DateShape::Ymd => (date.to_string(), None),
        DateShape::DateTimeOffset => (
            format!("{date}T{time}Z"),
            Some("the `Z` (UTC) is a guess: write the offset of the time zone the time is in"),
        ),
        DateShape::DateTimeFraction => (
            format!("{date}T{time}.000Z"),
            Some("the `Z` (UTC) is a guess: write the offset of the time zone the time is in"),
        ),
        DateShape::DateTimeIso if has_time => (format!("{date}T{time}"), None),
        DateShape::DateTimeIso => (date.to_string(), None),
        DateShape::TimestampUtc => (
            format!("{date} {time} +0000 UTC"),
            Some("this reads the time as UTC"),
        ),
        DateShape::DateTimeLocal => (format!("{date} {time}"), None),
    };
    // What is suggested must be what the column takes.
    shapes::check_date(shape, &meant).ok()?;
    Some((meant, offset_note))
}

/// An Excel serial date (1900 date system), with an optional fraction for
/// the time of day: days since 1899-12-30. Excel counts a 29 February 1900
/// that did not exist (serial 60), so counting from 1899-12-30 is right
/// from serial 61 (1900-03-01) on, which covers [`SERIAL_RANGE`].
fn serial(v: &str) -> Option<NaiveDateTime> {
    let (days, frac) = v.split_once('.').unwrap_or((v, ""));
    if days.is_empty()
        || days.len() > 6
        || !days.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || (v.contains('.') && frac.is_empty())
    {
        return None;
    }
    let n: u32 = days.parse().ok()?;
    if !SERIAL_RANGE.contains(&n) {
        return None;
    }
    let frac: f64 = if frac.is_empty() {
        0.0
    } else {
        format!("0.{frac}").parse().ok()?
    };
    let secs = (frac * 86_400.0).round() as i64;
    let base = NaiveDate::from_ymd_opt(1899, 12, 30)?.and_hms_opt(0, 0, 0)?;
    Some(base + Duration::days(i64::from(n)) + Duration::seconds(secs))
}

/// A slashed date (and time) as a spreadsheet displays it.
struct Slashed {
    /// Read month first, unless only day first gives a date.
    at: NaiveDateTime,
    has_time: bool,
    note: Option<&'static str>,
    /// Both numbers have two digits.
    padded: bool,
    kind: Option<Kind>,
    /// Read day first, where that gives another date.
    day_first: Option<NaiveDateTime>,
}

/// `M/D/YYYY` with an optional ` H:MM[:SS]` and ` AM`/` PM`: how Excel
/// and Sheets in US English show a date. Month first, unless the first
/// number cannot be a month (then the day is first, as in Europe).
fn slashed(v: &str) -> Option<Slashed> {
    let (date, time) = match v.split_once(' ') {
        Some((d, t)) => (d, Some(t.trim())),
        None => (v, None),
    };
    let mut parts = date.split('/');
    let (a, b, y) = (parts.next()?, parts.next()?, parts.next()?);
    let padded = a.len() == 2 && b.len() == 2;
    if parts.next().is_some() || y.len() != 4 {
        return None;
    }
    let num = |s: &str| -> Option<u32> {
        (!s.is_empty() && s.len() <= 2 && s.bytes().all(|c| c.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let (a, b) = (num(a)?, num(b)?);
    let y: i32 = y.parse().ok()?;
    let (m, d, note, kind) = if a > 12 && b <= 12 {
        (
            b,
            a,
            Some("read day first, since the first number is no month"),
            Some(Kind::DayFirst),
        )
    } else if a <= 12 && b <= 12 && a != b {
        (
            a,
            b,
            Some("read month first, as US English spreadsheets write it"),
            Some(Kind::Ambiguous),
        )
    } else if a <= 12 && b > 12 {
        (a, b, None, Some(Kind::MonthFirst))
    } else {
        (a, b, None, None)
    };
    let clock = match time {
        None => chrono::NaiveTime::from_hms_opt(0, 0, 0)?,
        Some(t) => clock(t)?,
    };
    let at = NaiveDate::from_ymd_opt(y, m, d)?.and_time(clock);
    let day_first = (kind == Some(Kind::Ambiguous))
        .then(|| NaiveDate::from_ymd_opt(y, d, m))
        .flatten()
        .map(|date| date.and_time(clock));
    Some(Slashed {
        at,
        has_time: time.is_some(),
        note,
        padded,
        kind,
        day_first,
    })
}

/// `H:MM[:SS]`, with an optional ` AM`/` PM`.
fn clock(t: &str) -> Option<chrono::NaiveTime> {
    let (t, pm) = match t
        .strip_suffix("AM")
        .or_else(|| t.strip_suffix("am"))
        .map(|t| (t, Some(false)))
    {
        Some(x) => x,
        None => match t.strip_suffix("PM").or_else(|| t.strip_suffix("pm")) {
            Some(t) => (t, Some(true)),
            None => (t, None),
        },
    };
    let t = t.trim_end();
    let mut parts = t.split(':');
    let h = parts.next()?;
    let mi = parts.next()?;
    let s = parts.next();
    if parts.next().is_some() || h.is_empty() || h.len() > 2 || mi.len() != 2 {
        return None;
    }
    let digits = |s: &str| s.bytes().all(|c| c.is_ascii_digit());
    if !digits(h) || !digits(mi) || s.is_some_and(|s| s.len() != 2 || !digits(s)) {
        return None;
    }
    let mut h: u32 = h.parse().ok()?;
    let mi: u32 = mi.parse().ok()?;
    let s: u32 = s.map_or(Some(0), |s| s.parse().ok())?;
    match pm {
        Some(_) if !(1..=12).contains(&h) => return None,
        Some(true) if h != 12 => h += 12,
        Some(false) if h == 12 => h = 0,
        _ => {}
    }
    chrono::NaiveTime::from_hms_opt(h, mi, s)
}

/// `YYYY-MM-DD HH:MM[:SS]`: an ISO date-time whose `T` and offset a
/// spreadsheet dropped when it read the cell as a date.
fn spaced_iso(v: &str) -> Option<NaiveDateTime> {
    let (d, t) = v.split_once(' ')?;
    if d.len() != 10 {
        return None;
    }
    let date = NaiveDate::parse_from_str(d, "%Y-%m-%d").ok()?;
    let b = t.as_bytes();
    if b.len() < 4 || !b.iter().all(|c| c.is_ascii_digit() || *c == b':') {
        return None;
    }
    Some(date.and_time(clock(t)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_values() {
        for v in [
            "#N/A", "#VALUE!", "#REF!", "#NAME?", "#DIV/0!", "#NULL!", "#NUM!",
        ] {
            assert!(is_error_value(v), "{v}");
            assert_eq!(suspicious_start(v.as_bytes()[0]), 1);
        }
        assert!(!is_error_value("#1"));
        assert!(!is_error_value("N/A"));
    }

    #[test]
    fn formulas_but_not_numbers() {
        for v in [
            "=1+2",
            "=HYPERLINK(\"http://x\",\"y\")",
            "=cmd|' /C calc'!A0",
            "+A1",
            "-A1",
            "@SUM(A1)",
            "\t=1",
            "\r=1",
            "-",
            "+1.2.3",
            "-1e5",
            "+1 555 0100",
        ] {
            assert!(is_formula_like(v), "{v:?}");
            assert_eq!(suspicious_start(v.as_bytes()[0]), 1, "{v:?}");
        }
        for v in ["-5", "+5", "-1.5", "+0.25", "-.5", "a=b", "5-3", "", "ada"] {
            assert!(!is_formula_like(v), "{v:?}");
        }
    }

    #[test]
    fn scientific_notation() {
        let s = scientific("5.83231E+11").expect("scientific");
        assert_eq!((s.kept, s.digits, s.exact), (6, Some(12), None));
        assert!(maybe_exponent(b"5.83231E+11"));
        let s = scientific("1.5E+02").expect("scientific");
        assert_eq!((s.kept, s.digits, s.exact), (2, Some(3), None));
        let s = scientific("1.23E+02").expect("scientific");
        assert_eq!(
            (s.kept, s.digits, s.exact.as_deref()),
            (3, Some(3), Some("123"))
        );
        let s = scientific("5.83231E+011").expect("LibreOffice's three digits");
        assert_eq!((s.kept, s.digits), (6, Some(12)));
        assert!(maybe_exponent(b"5.83231E+011"));
        assert!(maybe_exponent(b"1E+11"));
        assert!(maybe_exponent(b"1.23E+02"));
        for v in [
            "583231",
            "E-1001",
            "role-0001",
            "1.5",
            "E+11",
            "5.8E",
            "5.8E+1234",
            "x1E+5",
            "1E5",
            "1E+5",
        ] {
            assert!(scientific(v).is_none(), "{v}");
        }
        assert!(!maybe_exponent(b"583231"));
    }

    #[test]
    fn serial_dates_in_the_1900_system() {
        let d = |shape, v| spreadsheet_date(shape, v).map(|s| s.meant);
        assert_eq!(d(DateShape::Mdy, "44927").as_deref(), Some("01/01/2023"));
        assert_eq!(d(DateShape::Ymd, "45474").as_deref(), Some("2024-07-01"));
        // 1900 is not a leap year, but Excel's serial 60 is 1900-02-29: the
        // 1899-12-30 base is right from serial 61 on.
        assert_eq!(d(DateShape::Ymd, "18264").as_deref(), Some("1950-01-01"));
        assert_eq!(
            d(DateShape::DateTimeLocal, "45474.375").as_deref(),
            Some("2024-07-01 09:00:00")
        );
        assert_eq!(d(DateShape::Ymd, "2024"), None);
        assert_eq!(d(DateShape::Ymd, "100000"), None);
    }

    #[test]
    fn a_display_that_reads_as_two_dates_gives_both_and_shows_no_order() {
        let s = spreadsheet_date(DateShape::Ymd, "7/1/2024 9:00").expect("a display");
        assert_eq!(s.kind, Some(Kind::Ambiguous));
        assert_eq!(s.meant, "2024-07-01");
        assert_eq!(s.day_first, Some(("2024-01-07".to_owned(), None)));
        let s = spreadsheet_date(DateShape::DateTimeOffset, "7/1/2024 9:00").expect("a display");
        assert_eq!(
            s.day_first.map(|(d, o)| (d, o.is_some())),
            Some(("2024-01-07T09:00:00Z".to_owned(), true))
        );
        // One order only: evidence of the column's, and one reading.
        let s = spreadsheet_date(DateShape::Ymd, "13/1/2024 9:00").expect("a display");
        assert_eq!((s.kind, s.day_first), (Some(Kind::DayFirst), None));
        let s = spreadsheet_date(DateShape::Ymd, "1/13/2024 9:00").expect("a display");
        assert_eq!(
            (s.kind, s.meant.as_str()),
            (Some(Kind::MonthFirst), "2024-01-13")
        );
        // The same date both ways, a serial, an ISO date-time: no order.
        for v in ["7/7/2024 9:00", "45474", "2024-07-01 09:00:00"] {
            let s = spreadsheet_date(DateShape::Ymd, v).expect("a spreadsheet's");
            assert_eq!((s.kind, s.day_first), (None, None), "{v}");
        }
    }

    #[test]
    fn displayed_date_times() {
        let d = |shape, v| spreadsheet_date(shape, v).map(|s| s.meant);
        assert_eq!(
            d(DateShape::Mdy, "7/1/2024 9:00").as_deref(),
            Some("07/01/2024")
        );
        assert_eq!(d(DateShape::Mdy, "7/1/2024"), None);
        assert_eq!(d(DateShape::Ymd, "7/1/2024").as_deref(), Some("2024-07-01"));
        assert_eq!(
            d(DateShape::Ymd, "13/1/2024").as_deref(),
            Some("2024-01-13")
        );
        assert_eq!(d(DateShape::Ymd, "07/01/2024"), None);
        assert_eq!(
            d(DateShape::Ymd, "07/01/2024 09:00").as_deref(),
            Some("2024-07-01")
        );
        assert_eq!(
            d(DateShape::DateTimeOffset, "7/1/2024 9:00 PM").as_deref(),
            Some("2024-07-01T21:00:00Z")
        );
        assert_eq!(
            d(DateShape::Ymd, "2024-07-01 09:00:00").as_deref(),
            Some("2024-07-01")
        );
        assert_eq!(
            d(DateShape::TimestampUtc, "2024-07-01 09:00:00").as_deref(),
            Some("2024-07-01 09:00:00 +0000 UTC")
        );
        assert_eq!(d(DateShape::Ymd, "2/30/2024 9:00"), None);
        assert_eq!(d(DateShape::Ymd, "tomorrow"), None);
    }
}
