//! The edits that rules attach to their findings: how a corrected value is
//! written back into the bytes of its cell, and the corrections that need
//! more than a lookup (dates written in another order).
//!
//! Edits touch as little as they can, so that two fixes on one cell do not
//! overlap: the spaces around a value are two deletions, the value between
//! them one replacement. A cell with ` TRUE ` then takes both fixes in one
//! pass, and every byte no fix names stays as it was.

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
    pub lead: Range<usize>,
    pub value: Range<usize>,
    pub trail: Range<usize>,
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

/// The value of `value` in `shape`, where it is a date written in another
/// order or without leading zeros, and how sure that is.
///
/// Read: `2024-03-07` and `2024/3/7` (year first: year, month, day on
/// every reading) and `3/7/2024` (year last, slashes: month first, as the
/// spec's own `MM/DD/YYYY` columns write it). A year-last date whose first
/// part cannot be a month (`25/03/2024`) can only be day first.
///
/// Safe: year first into either shape; year last into `MM/DD/YYYY` (the
/// column states the order, only zeros are added); year last into
/// `YYYY-MM-DD` where only one order gives a date (`03/25/2024`), or both
/// give the same one (`03/03/2024`). Unsafe: `03/07/2024` into
/// `YYYY-MM-DD` (March or July?) and a day-first date in an `MM/DD/YYYY`
/// column (it contradicts the column's order). Nothing else is guessed.
pub(crate) fn date(shape: DateShape, value: &str) -> Option<(String, Applicability)> {
    let sep = if value.contains('/') { '/' } else { '-' };
    let parts: Vec<&str> = value.split(sep).collect();
    let [a, b, c] = parts[..] else {
        return None;
    };
    let num = |s: &str, lens: Range<usize>| -> Option<u32> {
        (lens.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let real = |y: u32, m: u32, d: u32| NaiveDate::from_ymd_opt(y as i32, m, d).is_some();
    let (y, m, d, applicability) =
        if let (Some(y), Some(m), Some(d)) = (num(a, 4..5), num(b, 1..3), num(c, 1..3)) {
            (y, m, d, Applicability::Safe)
        } else if sep == '/' {
            let (Some(p), Some(q), Some(y)) = (num(a, 1..3), num(b, 1..3), num(c, 4..5)) else {
                return None;
            };
            let month_first = real(y, p, q);
            let day_first = real(y, q, p);
            match (shape, month_first, day_first) {
                (DateShape::Mdy, true, _) => (y, p, q, Applicability::Safe),
                (DateShape::Mdy, false, true) => (y, q, p, Applicability::Unsafe),
                (DateShape::Ymd, true, false) => (y, p, q, Applicability::Safe),
                (DateShape::Ymd, false, true) => (y, q, p, Applicability::Safe),
                (DateShape::Ymd, true, true) if p == q => (y, p, q, Applicability::Safe),
                (DateShape::Ymd, true, true) => (y, p, q, Applicability::Unsafe),
                _ => return None,
            }
        } else {
            return None;
        };
    if !real(y, m, d) {
        return None;
    }
    let text = match shape {
        DateShape::Mdy => format!("{m:02}/{d:02}/{y:04}"),
        DateShape::Ymd => format!("{y:04}-{m:02}-{d:02}"),
        _ => return None,
    };
    (text != value).then_some((text, applicability))
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
            let got = date(shape, v);
            assert_eq!(
                got.as_ref().map(|(t, a)| (t.as_str(), *a)),
                want,
                "{shape:?} {v}"
            );
        }
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
