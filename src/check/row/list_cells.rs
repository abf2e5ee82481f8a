//! List cells (`a,b,c`, `{a,b,c}`): the quick test of a clean list and the
//! full check of its braces and elements.

use super::at::CellAt;
use super::enum_cells::{enum_fix, enum_help};
use crate::check::emit::Emitter;
use crate::check::finding::{Finding, FixBuilder};
use crate::check::shapes;
use crate::check::text::quote;
use crate::rules;
use crate::schema::Braces;
use std::collections::HashSet;

/// The elements of one list cell seen so far. Lists are short: up to
/// `SMALL` elements are compared linearly without allocating; longer lists
/// move to a hash set, so a 200,000-element cell stays linear.
// `Option` so that a fresh array is zeroed memory (a few vector stores)
// rather than sixteen `""` written field by field, on every list cell.
#[derive(Default)]
struct Seen<'a> {
    small: [Option<&'a str>; Seen::SMALL],
    n: usize,
    big: Option<HashSet<&'a str>>,
}

impl<'a> Seen<'a> {
    const SMALL: usize = 16;

    /// Whether `el` is new.
    fn insert(&mut self, el: &'a str) -> bool {
        if let Some(big) = &mut self.big {
            return big.insert(el);
        }
        if self.small[..self.n].contains(&Some(el)) {
            return false;
        }
        if self.n < Self::SMALL {
            self.small[self.n] = Some(el);
            self.n += 1;
        } else {
            let mut big: HashSet<&str> = self.small.iter().flatten().copied().collect();
            big.insert(el);
            self.big = Some(big);
        }
        true
    }
}

/// `s.split(',')`, but with [`find_comma`]: list elements are a few bytes
/// long, where `split`'s searcher costs more than the search.
fn comma_separated(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(s);
    std::iter::from_fn(move || {
        let r = rest?;
        match find_comma(r.as_bytes()) {
            Some(at) => {
                rest = Some(&r[at + 1..]);
                Some(&r[..at])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

/// The high bit of each byte of `w` that is a comma; the add cannot carry
/// across bytes, so no other byte is marked.
#[inline]
fn commas(w: &[u8; 8]) -> u64 {
    crate::swar::equal_bytes(u64::from_le_bytes(*w), b',')
}

/// The first comma of `b`, eight bytes a step (a list cell is mostly
/// element bytes, and a byte loop costs five instructions a byte).
#[inline]
fn find_comma(b: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(w) = b.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        let m = commas(w);
        if m != 0 {
            return Some(at + (m.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = b.len() - at;
    if rest == 0 {
        return None;
    }
    match b.last_chunk::<8>() {
        // The last eight bytes, less the ones already searched: one more
        // word rather than a byte loop over the tail.
        Some(w) => {
            let m = commas(w) & (u64::MAX << (8 * (8 - rest)));
            (m != 0).then(|| b.len() - 8 + (m.trailing_zeros() / 8) as usize)
        }
        None => b.iter().position(|&c| c == b','),
    }
}

/// Whether list cell `b` certainly draws no finding from
/// [`check_list`]: braces as `braces` allows, at most
/// [`CLEAN_LIST_MAX`] elements, each non-empty, distinct and (with
/// `values`) allowed. `false` means unsure, not bad: the full check decides,
/// so this only has to be right when it says `true`.
#[inline]
pub(super) fn list_is_clean(b: &[u8], values: Option<&[String]>, braces: Braces) -> bool {
    let inner = match (b.first(), b.last(), braces) {
        (Some(b'{'), Some(b'}'), Braces::Required | Braces::Optional) if b.len() >= 2 => {
            &b[1..b.len() - 1]
        }
        (Some(&f), Some(&l), Braces::Optional | Braces::Forbidden) if f != b'{' && l != b'}' => b,
        _ => return false,
    };
    let Some(mut commas) = comma_bits(inner) else {
        return false;
    };
    // Where the elements seen so far lie in `inner` (which `comma_bits`
    // keeps under 256 bytes): zeroing sixteen bytes is one store, where
    // eight slices took sixteen.
    let mut seen = [(0u8, 0u8); CLEAN_LIST_MAX];
    let mut n = 0;
    let mut start = 0;
    loop {
        let end = if commas == 0 {
            inner.len()
        } else {
            commas.trailing_zeros() as usize
        };
        let Some(raw) = inner.get(start..end) else {
            return false;
        };
        // Spaces are the usual padding; with them gone and visible ASCII at
        // both ends, the element is what `shapes::trim` makes of it.
        // Anything else (tabs, NBSP, blanks) is left to the full check.
        let mut from = start;
        let mut el = raw;
        while let [b' ', rest @ ..] = el {
            el = rest;
            from += 1;
        }
        while let [rest @ .., b' '] = el {
            el = rest;
        }
        let (Some(&first), Some(&last)) = (el.first(), el.last()) else {
            return false;
        };
        if !shapes::visible_ascii(first) || !shapes::visible_ascii(last) || n == CLEAN_LIST_MAX {
            return false;
        }
        for &(s, e) in &seen[..n] {
            if inner.get(usize::from(s)..usize::from(e)) == Some(el) {
                return false;
            }
        }
        if values.is_some_and(|values| !values.iter().any(|x| x.as_bytes() == el)) {
            return false;
        }
        // In range: `inner` is under 256 bytes.
        seen[n] = (from as u8, (from + el.len()) as u8);
        n += 1;
        if commas == 0 {
            return true;
        }
        commas &= commas - 1;
        start = end + 1;
    }
}

/// Bit `k` set where `b[k]` is a comma, for `b` of at most 64 bytes: a
/// list cell splits in a few word operations rather than a byte loop.
#[inline]
fn comma_bits(b: &[u8]) -> Option<u64> {
    // One bit per byte: the high bit of each comma byte, gathered into the
    // low eight bits by a multiply whose partial products do not overlap.
    let bits = |w: &[u8; 8]| (commas(w) >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56;
    if b.len() > 64 {
        return None;
    }
    let Some(last) = b.last_chunk::<8>() else {
        return Some(
            b.iter()
                .enumerate()
                .fold(0, |m, (k, &c)| m | u64::from(c == b',') << k),
        );
    };
    let mut m = 0;
    for (k, w) in b.chunks_exact(8).enumerate() {
        if let Some(w) = w.first_chunk::<8>() {
            m |= bits(w) << (8 * k);
        }
    }
    // The last eight bytes again, overlapping the whole words: the bytes
    // seen twice give the same bits.
    Some(m | bits(last) << (b.len() - 8))
}

/// Most elements [`list_is_clean`] compares pairwise; longer lists (and
/// cells over 64 bytes) take the full check.
const CLEAN_LIST_MAX: usize = 8;

/// Findings reported per list cell before the rest are only counted.
const MAX_LIST_FINDINGS: usize = 10;

/// The full check of list cell `v` (the trimmed value, which starts
/// `lead` bytes into the unescaped one): braces as `braces` allows, and
/// each element non-empty, distinct and (with `values`) allowed.
pub(super) fn check_list(
    at: &CellAt<'_>,
    v: &str,
    lead: usize,
    values: Option<&[String]>,
    braces: Braces,
    emit: &mut Emitter<'_>,
) {
    let col = at.col;
    let sev = col.severity;
    let list = |message: String| at.finding(&rules::INVALID_LIST, message).severity(sev);
    let part = |emit: &mut Emitter<'_>, from: usize, to: usize, finding: Finding| {
        at.report_span(emit, at.inner_span(lead + from, lead + to), finding);
    };
    if v.starts_with('{') != v.ends_with('}') {
        part(
            emit,
            0,
            v.len(),
            list(format!("{} has an unbalanced brace", quote(v)))
                .help("write the list inside `{...}` or without braces"),
        );
        return;
    }
    let has_braces = v.starts_with('{') && v.len() >= 2;
    let (inner, offset) = if has_braces {
        (&v[1..v.len() - 1], 1)
    } else {
        (v, 0)
    };
    match (braces, has_braces) {
        (Braces::Required, false) => part(
            emit,
            0,
            v.len(),
            list(format!("{} must be written inside braces", quote(v)))
                .help(format!("write `{{{v}}}`")),
        ),
        (Braces::Forbidden, true) => part(
            emit,
            0,
            v.len(),
            list(format!("{} is written inside braces", quote(v))).help(format!("write `{inner}`")),
        ),
        _ => {}
    }
    if has_braces && inner.trim().is_empty() {
        part(
            emit,
            0,
            v.len(),
            list(format!("{} holds no elements", quote(v)))
                .help("list at least one element inside the braces, or leave the cell empty"),
        );
        return;
    }
    let mut seen = Seen::default();
    let mut pos = offset;
    // Past the first few findings of a cell, the rest are only counted.
    let (mut reported, mut hidden) = (0usize, 0usize);
    let mut room = || {
        if reported < MAX_LIST_FINDINGS {
            reported += 1;
            true
        } else {
            hidden += 1;
            false
        }
    };
    for (k, raw_el) in comma_separated(inner).enumerate() {
        let el = shapes::trim(raw_el);
        // `trim` returns a part of `raw_el`, so where it starts is where
        // it lies in memory: no second, Unicode-aware `trim_start` pass.
        // An empty element keeps the old reckoning (a blank `raw_el`
        // trims to its start, and `trim_start` to its end).
        let el_start = if el.len() == raw_el.len() {
            pos
        } else if el.is_empty() {
            pos + (raw_el.len() - raw_el.trim_start().len())
        } else {
            pos + (el.as_ptr() as usize - raw_el.as_ptr() as usize)
        };
        let el_end = el_start + el.len();
        pos += raw_el.len() + 1;
        if el.is_empty() {
            if room() {
                part(
                    emit,
                    el_start,
                    el_start,
                    list(format!("element {} of `{}` is empty", k + 1, col.name))
                        .help("remove the extra comma"),
                );
            }
            continue;
        }
        if !seen.insert(el) {
            if room() {
                part(
                    emit,
                    el_start,
                    el_end,
                    at.finding(
                        &rules::INVALID_LIST,
                        format!("{} appears twice in `{}`", quote(el), col.name),
                    )
                    .severity(col.repeat_severity.or(sev))
                    .help("remove the repeated element"),
                );
            }
            continue;
        }
        if let Some(values) = values {
            // An element joined by another separator is no element: the
            // list's stated shape is broken, as by an empty element, so it
            // has the list's severity, not the softer one of an unknown
            // value (a worse cell never gets a softer finding). No value of
            // a table holds one.
            if let Some(sep) = el.bytes().find(|&c| matches!(c, b';' | b'|')) {
                if room() {
                    let sep = char::from(sep);
                    part(
                        emit,
                        el_start,
                        el_end,
                        list(format!(
                            "{} joins elements with `{sep}`: `{}` is a comma-separated list",
                            quote(el),
                            col.name
                        ))
                        .help(format!(
                            "separate the elements with commas: {}",
                            quote(&el.split(sep).map(str::trim).collect::<Vec<_>>().join(", "))
                        )),
                    );
                }
                continue;
            }
            if !values.iter().any(|x| x == el) && room() {
                let span = at.inner_span(lead + el_start, lead + el_end);
                let mut finding = at
                    .finding(
                        &rules::INVALID_ENUM,
                        format!("{} is not a value of `{}`", quote(el), col.name),
                    )
                    .severity(col.values_severity.or(sev))
                    .help(enum_help(el, values));
                // A value with a comma would split the element.
                if let Some((new, applicability)) =
                    enum_fix(el, values).filter(|(n, _)| !n.contains([',', '"']))
                {
                    finding = finding.fix(
                        FixBuilder::new(applicability, format!("write {}", quote(new)))
                            .edit(span.clone(), new),
                    );
                }
                at.report_span(emit, span, finding);
            }
        }
    }
    if hidden > 0 {
        at.report(
            emit,
            list(format!(
                "`{}` has {hidden} more list problems, not shown",
                col.name
            ))
            .help("fix the ones above, then check again"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::cell_edits::CellParts;
    use crate::scan::FieldSpan;
    use std::sync::Arc;

    #[test]
    fn comma_separated_splits_like_split() {
        for s in ["", ",", "a", "a,b", ",a,", "a,,b", " é , ü ,", "a,b,c,d,e"] {
            assert_eq!(
                comma_separated(s).collect::<Vec<_>>(),
                s.split(',').collect::<Vec<_>>(),
                "{s:?}"
            );
        }
    }

    #[test]
    fn comma_bits_mark_the_commas() {
        let mut next = crate::testutil::xorshift(0x9e37_79b9_7f4a_7c15u64);
        for len in 0..=70 {
            for _ in 0..200 {
                let b: Vec<u8> = (0..len)
                    .map(|_| [b',', b'a', b' ', 0xac, 0x2d, 0xff][(next() % 6) as usize])
                    .collect();
                let want = (len <= 64).then(|| {
                    b.iter()
                        .enumerate()
                        .filter(|(_, &c)| c == b',')
                        .fold(0u64, |m, (k, _)| m | 1 << k)
                });
                assert_eq!(comma_bits(&b), want, "{b:?}");
            }
        }
    }

    #[test]
    fn find_comma_agrees_with_position() {
        let mut s = String::new();
        for n in 0..40 {
            for at in 0..=n {
                s.clear();
                for k in 0..n {
                    s.push(if k == at {
                        ','
                    } else {
                        (b'a' + (k % 26) as u8) as char
                    });
                }
                let b = s.as_bytes();
                assert_eq!(find_comma(b), b.iter().position(|&c| c == b','), "{s:?}");
                for from in 0..=n {
                    let b = &b[from..];
                    assert_eq!(find_comma(b), b.iter().position(|&c| c == b','), "{s:?}");
                }
            }
        }
        for s in [
            "é,ü",
            "\u{2c}x",
            ",,,,,,,,,",
            "abcdefgh,",
            "abcdefghi,j",
            "\x2c\u{ac}\u{12c}",
        ] {
            let b = s.as_bytes();
            assert_eq!(find_comma(b), b.iter().position(|&c| c == b','), "{s:?}");
        }
    }

    #[test]
    fn clean_lists_draw_no_finding() {
        // The full check on one unquoted cell of `Platform Roles`, with the
        // values and braces of each case passed in.
        let table = crate::schema::table("employees")
            .expect("rules/ parses")
            .expect("employees is a format");
        let col = table
            .columns
            .iter()
            .find(|c| c.name == "Platform Roles")
            .expect("employees has Platform Roles");
        let name: Arc<str> = col.name.as_str().into();
        let findings = |v: &str, values: Option<&[String]>, braces: Braces| {
            let f = FieldSpan {
                start: 0,
                end: v.len(),
                line: 1,
                line_start: 0,
                quoted: false,
                escapes: false,
            };
            let at = CellAt {
                data: v.as_bytes(),
                f: &f,
                name: &name,
                col,
                parts: CellParts::of(&f, v, v),
            };
            let mut emit = Emitter::new(v.as_bytes(), false);
            check_list(&at, v, 0, values, braces, &mut emit);
            emit.diags.len()
        };
        let pieces = [
            "a", "b", "ab", "a", ",", ",", ",", " ", " ", "\u{a0}", "{", "}", "\t", "\x0b", "é",
            "b ", "{a", "b}",
        ];
        let lists: [Option<Vec<String>>; 3] = [
            None,
            Some(vec!["a".into(), "b".into(), "ab".into()]),
            Some(vec!["a".into(), "é".into()]),
        ];
        let mut next = crate::testutil::xorshift(0x2545_f491_4f6c_dd1du64);
        let mut clean = 0;
        for k in 0..60_000 {
            let v: String = (0..next() % 24)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect();
            // Many cells wrapped in braces, so that both brace cases are common.
            let v = if k % 3 == 0 { format!("{{{v}}}") } else { v };
            for values in &lists {
                for braces in [Braces::Required, Braces::Optional, Braces::Forbidden] {
                    if list_is_clean(v.as_bytes(), values.as_deref(), braces) {
                        assert_eq!(
                            findings(&v, values.as_deref(), braces),
                            0,
                            "{v:?} {values:?} {braces:?}"
                        );
                        clean += 1;
                    }
                }
            }
        }
        assert!(clean > 5_000, "only {clean} clean cells were tried");
        for v in ["a", "a, b", "{a,b}", " ab ,a ", "a,b,ab,c,d,e,f,g"] {
            assert!(list_is_clean(v.as_bytes(), None, Braces::Optional), "{v:?}");
        }
    }

    #[test]
    fn a_list_reports_its_first_findings_with_their_fixes_and_counts_the_rest() {
        let table = crate::schema::table("employees")
            .expect("rules/ parses")
            .expect("employees is a format");
        let col = table
            .columns
            .iter()
            .find(|c| c.name == "Platform Roles")
            .expect("employees has Platform Roles");
        let name: Arc<str> = col.name.as_str().into();
        let values: Vec<String> = (0..15).map(|k| format!("a{k}")).collect();
        let v = (0..15)
            .map(|k| format!("A{k}"))
            .collect::<Vec<_>>()
            .join(",");
        let f = FieldSpan {
            start: 0,
            end: v.len(),
            line: 1,
            line_start: 0,
            quoted: false,
            escapes: false,
        };
        let at = CellAt {
            data: v.as_bytes(),
            f: &f,
            name: &name,
            col,
            parts: CellParts::of(&f, &v, &v),
        };
        let mut emit = Emitter::new(v.as_bytes(), false);
        check_list(&at, &v, 0, Some(&values), Braces::Optional, &mut emit);
        let (shown, rest) = emit.diags.split_at(MAX_LIST_FINDINGS);
        for (k, d) in shown.iter().enumerate() {
            assert_eq!(
                d.message,
                format!("`A{k}` is not a value of `Platform Roles`")
            );
            let fix = d.fix.as_ref().expect("a case slip has a fix");
            assert_eq!(fix.edits.len(), 1);
            assert_eq!(fix.edits[0].span, d.span);
            assert_eq!(fix.edits[0].content, format!("a{k}"));
        }
        assert_eq!(rest.len(), 1);
        assert_eq!(
            rest[0].message,
            "`Platform Roles` has 5 more list problems, not shown"
        );
        assert_eq!(rest[0].span, 0..v.len() as u64);
        assert!(rest[0].fix.is_none());
    }
}
