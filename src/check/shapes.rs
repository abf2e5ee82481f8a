//! Value validators for the cell shapes of `schema::Shape`.
//!
//! Byte-level and allocation-free on the valid path: these run once per cell
//! on millions of rows. Digit counts are checked before the calendar, since
//! chrono's `%m/%d/%Y` accepts `3/7/2024` and reads `03/07/24` as year 24.

use crate::schema::shape::{BoolSpelling, DateShape};
use chrono::NaiveDate;

fn digits(b: &[u8], at: usize, n: usize) -> Option<u32> {
    let s = b.get(at..at + n)?;
    let mut v = 0u32;
    for &d in s {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u32::from(d - b'0');
    }
    Some(v)
}

/// Why a date or time is wrong: the shape, or a value that does not exist.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum DateError {
    Shape,
    /// The shape is right but the date or time does not exist.
    NotReal(String),
}

fn real_date(y: u32, m: u32, d: u32) -> Result<(), DateError> {
    if !(1..=12).contains(&m) {
        return Err(DateError::NotReal(format!("month {m:02} does not exist")));
    }
    let ok = i32::try_from(y)
        .ok()
        .and_then(|y| NaiveDate::from_ymd_opt(y, m, d))
        .is_some();
    if ok {
        Ok(())
    } else {
        Err(DateError::NotReal(format!(
            "{y:04}-{m:02}-{d:02} is not a calendar date"
        )))
    }
}

fn ymd(b: &[u8]) -> Result<(), DateError> {
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return Err(DateError::Shape);
    }
    let (y, m, d) = (digits(b, 0, 4), digits(b, 5, 2), digits(b, 8, 2));
    match (y, m, d) {
        (Some(y), Some(m), Some(d)) => real_date(y, m, d),
        _ => Err(DateError::Shape),
    }
}

/// `HH:MM` with optional `:SS` and (when `fraction_ok`) `.f+`. Returns the
/// length consumed and whether seconds and a fraction were present.
fn time(b: &[u8], seconds_required: bool) -> Result<(usize, bool), DateError> {
    if b.len() < 5 || b[2] != b':' {
        return Err(DateError::Shape);
    }
    let (Some(h), Some(mi)) = (digits(b, 0, 2), digits(b, 3, 2)) else {
        return Err(DateError::Shape);
    };
    let mut n = 5;
    let mut fraction = false;
    if b.get(5) == Some(&b':') {
        let Some(s) = digits(b, 6, 2) else {
            return Err(DateError::Shape);
        };
        if s > 59 {
            return Err(DateError::NotReal(format!("second {s:02} does not exist")));
        }
        n = 8;
        if b.get(8) == Some(&b'.') {
            let f = b[9..].iter().take_while(|c| c.is_ascii_digit()).count();
            if f == 0 {
                return Err(DateError::Shape);
            }
            n = 9 + f;
            fraction = true;
        }
    } else if seconds_required {
        return Err(DateError::Shape);
    }
    if h > 23 {
        return Err(DateError::NotReal(format!("hour {h:02} does not exist")));
    }
    if mi > 59 {
        return Err(DateError::NotReal(format!("minute {mi:02} does not exist")));
    }
    Ok((n, fraction))
}

/// `Z`, `±HH:MM`, `±HHMM` or `±HH`, filling all of `b`.
fn offset(b: &[u8]) -> Result<(), DateError> {
    if b == b"Z" {
        return Ok(());
    }
    if !matches!(b.first(), Some(b'+' | b'-')) {
        return Err(DateError::Shape);
    }
    let (h, m) = match b.len() {
        3 => (digits(b, 1, 2), Some(0)),
        5 => (digits(b, 1, 2), digits(b, 3, 2)),
        6 if b[3] == b':' => (digits(b, 1, 2), digits(b, 4, 2)),
        _ => return Err(DateError::Shape),
    };
    match (h, m) {
        (Some(h), Some(m)) if h <= 23 && m <= 59 => Ok(()),
        (Some(_), Some(_)) => Err(DateError::NotReal("offset out of range".into())),
        _ => Err(DateError::Shape),
    }
}

/// The instant a value that passed [`check_date`] names, as (seconds since
/// the Unix epoch in UTC, nanoseconds), for comparing two cells. Values
/// without an offset are read as UTC, so two of them compare as written.
pub(crate) fn instant(shape: DateShape, s: &str) -> Option<(i64, u32)> {
    let b = s.as_bytes();
    let num = |at: usize, n: usize| digits(b, at, n);
    let date = match shape {
        DateShape::Mdy => NaiveDate::from_ymd_opt(num(6, 4)? as i32, num(0, 2)?, num(3, 2)?)?,
        _ => NaiveDate::from_ymd_opt(num(0, 4)? as i32, num(5, 2)?, num(8, 2)?)?,
    };
    if b.len() <= 10 {
        return Some((date.and_hms_opt(0, 0, 0)?.and_utc().timestamp(), 0));
    }
    let (h, mi) = (num(11, 2)?, num(14, 2)?);
    let mut at = 16;
    let mut sec = 0;
    let mut nanos = 0u32;
    if b.get(16) == Some(&b':') {
        sec = num(17, 2)?;
        at = 19;
        if b.get(19) == Some(&b'.') {
            let frac: Vec<u8> = b[20..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .copied()
                .collect();
            at = 20 + frac.len();
            for i in 0..9 {
                nanos = nanos * 10 + frac.get(i).map_or(0, |d| u32::from(d - b'0'));
            }
        }
    }
    let rest = &b[at..];
    let off = match rest {
        b"" | b"Z" | b" +0000 UTC" => 0,
        _ => {
            let sign = if rest[0] == b'-' { -1 } else { 1 };
            let hh = digits(rest, 1, 2)? as i64;
            let mm = match rest.len() {
                3 => 0,
                5 => digits(rest, 3, 2)? as i64,
                _ => digits(rest, 4, 2)? as i64,
            };
            sign * (hh * 3600 + mm * 60)
        }
    };
    let local = date.and_hms_opt(h, mi, sec)?.and_utc().timestamp();
    Some((local - off, nanos))
}

/// Validates a date or date-time against its shape.
pub(crate) fn check_date(shape: DateShape, s: &str) -> Result<(), DateError> {
    check_date_bytes(shape, s.as_bytes())
}

/// [`check_date`] on the bytes of the text, which is all it reads: the
/// row checker's quick path has bytes, and a `str` of them would cost
/// boundary checks.
pub(crate) fn check_date_bytes(shape: DateShape, b: &[u8]) -> Result<(), DateError> {
    match shape {
        DateShape::Mdy => {
            if b.len() != 10 || b[2] != b'/' || b[5] != b'/' {
                return Err(DateError::Shape);
            }
            match (digits(b, 0, 2), digits(b, 3, 2), digits(b, 6, 4)) {
                (Some(m), Some(d), Some(y)) => real_date(y, m, d),
                _ => Err(DateError::Shape),
            }
        }
        DateShape::Ymd => {
            if b.len() != 10 {
                return Err(DateError::Shape);
            }
            ymd(b)
        }
        DateShape::DateTimeLocal => {
            if b.len() != 19 || b[10] != b' ' {
                return Err(DateError::Shape);
            }
            ymd(b)?;
            match time(&b[11..], true)? {
                (8, false) => Ok(()),
                _ => Err(DateError::Shape),
            }
        }
        DateShape::TimestampUtc => {
            let Some(rest) = b.strip_suffix(b" +0000 UTC") else {
                return Err(DateError::Shape);
            };
            if rest.len() < 19 || rest[10] != b' ' {
                return Err(DateError::Shape);
            }
            ymd(rest)?;
            let (n, _) = time(&rest[11..], true)?;
            if 11 + n == rest.len() {
                Ok(())
            } else {
                Err(DateError::Shape)
            }
        }
        DateShape::DateTimeOffset | DateShape::DateTimeFraction | DateShape::DateTimeIso => {
            if b.len() == 10 && shape == DateShape::DateTimeIso {
                return ymd(b);
            }
            if b.len() < 16 || b[10] != b'T' {
                return Err(DateError::Shape);
            }
            ymd(b)?;
            let (n, fraction) = time(&b[11..], shape == DateShape::DateTimeFraction)?;
            if shape == DateShape::DateTimeFraction && !fraction {
                return Err(DateError::Shape);
            }
            let rest = &b[11 + n..];
            if rest.is_empty() {
                return if shape == DateShape::DateTimeOffset {
                    Err(DateError::Shape)
                } else {
                    Ok(())
                };
            }
            offset(rest)
        }
    }
}

/// E-mail: one `@`, a non-empty local part without spaces or separators, and
/// a domain of at least two dot-separated labels of letters, digits and `-`.
/// Deliberately narrower than RFC 5322 (no quoted local parts): the
/// platform's rule is unknown and real addresses do not use them.
pub(crate) fn is_email(s: &str) -> bool {
    is_email_bytes(s.as_bytes())
}

/// [`is_email`] on the bytes of the text, which is all it reads. Always
/// inlined: it is the quick check of every e-mail cell, and left to a hint
/// the compiler came to call it out of line (callgrind, issue 30), which
/// cost more per cell than the check of a short address.
#[inline(always)]
pub(crate) fn is_email_bytes(b: &[u8]) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if let Some(verdict) = email_masks(b).and_then(|m| m.verdict(b.len())) {
        return verdict;
    }
    is_email_bytewise(b)
}

/// One bit per byte of an address (at most 64 bytes), by what the rule of
/// [`is_email`] asks of it.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
struct EmailMasks {
    at: u64,
    dot: u64,
    hyphen: u64,
    /// Allowed anywhere in a domain label ([`LABEL`]).
    label: u64,
    /// The usual bytes of a local part: a label's, `.`, `-`, `_` and `+`.
    /// The rest of [`LOCAL`] (`!`, `#`, `/`, ...) is rare, and testing
    /// for all of it would cost more than the test of the domain.
    usual: u64,
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
impl EmailMasks {
    /// [`is_email`] of an address of `n` bytes with these masks, the rule's
    /// conditions on neighbouring bytes as shifts of whole masks rather
    /// than a class lookup and branches per byte; `None` for a local part
    /// with an unusual byte, which the byte loop decides.
    #[inline]
    fn verdict(&self, n: usize) -> Option<bool> {
        let all = 1u64.checked_shl(n as u32).map_or(u64::MAX, |x| x - 1);
        let ats = self.at & all;
        if ats == 0 {
            return Some(false);
        }
        let at = ats.trailing_zeros();
        // The local part, before the first `@`: not empty, allowed bytes,
        // no leading, trailing or doubled dot.
        let local = (1u64 << at) - 1;
        if local & !self.usual != 0 {
            return None;
        }
        let dots = self.dot & local;
        if at == 0 || dots & 1 != 0 || dots >> (at - 1) & 1 != 0 || dots & dots >> 1 != 0 {
            return Some(false);
        }
        // The domain, after it: labels of allowed bytes and inner hyphens,
        // at least two, so at least one dot; no label empty.
        let domain = all & !(2u64 << at).wrapping_sub(1);
        let (dots, hyphens) = (self.dot & domain, self.hyphen & domain);
        let ends = dots | hyphens;
        // A byte of no label (a non-ASCII one, which may be an invisible
        // character, or a wrong one) is left to the byte loop.
        if domain & !(self.label | ends) != 0 {
            return None;
        }
        Some(
            dots != 0
                && ends >> (at + 1) & 1 == 0
                && ends >> (n - 1) & 1 == 0
                && dots & ends << 1 == 0
                && hyphens & dots << 1 == 0,
        )
    }
}

/// The [`EmailMasks`] of `b`, 16 bytes a step with SSE2 (every x86_64 CPU
/// has it), for an address of at most 64 bytes (else `None`).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
fn email_masks(b: &[u8]) -> Option<EmailMasks> {
    use safe_arch::{
        add_i8_m128i, bitor_m128i, cmp_eq_mask_i8_m128i, cmp_lt_mask_i8_m128i,
        load_unaligned_m128i, m128i, move_mask_i8_m128i, set_splat_i8_m128i,
    };
    let splat = |c: u8| set_splat_i8_m128i(i8::from_ne_bytes([c]));
    let bits = |v: m128i| u64::from(move_mask_i8_m128i(v) as u16);
    let masks = |w: &[u8; 16]| {
        let v = load_unaligned_m128i(w);
        let eq = |c: u8| cmp_eq_mask_i8_m128i(v, splat(c));
        // Unsigned compares as signed ones with the ranges moved to start
        // at -128: letters (either case), digits.
        let below = |add: u8, v: m128i, n: u8| {
            cmp_lt_mask_i8_m128i(add_i8_m128i(v, splat(add)), splat(0x80 + n))
        };
        let letter = below(0x80 - b'a', bitor_m128i(v, splat(0x20)), 26);
        let digit = below(0x80 - b'0', v, 10);
        // Only ASCII: an address with a non-ASCII byte (an IDN, or an
        // invisible character) is left to the byte loop.
        let label = bitor_m128i(letter, digit);
        let (dot, hyphen) = (eq(b'.'), eq(b'-'));
        let usual = bitor_m128i(
            bitor_m128i(label, bitor_m128i(dot, hyphen)),
            bitor_m128i(eq(b'_'), eq(b'+')),
        );
        [eq(b'@'), dot, hyphen, label, usual].map(bits)
    };
    let n = b.len();
    let mut m = [0u64; 5];
    if n < 16 {
        let mut w = [0u8; 16];
        w.get_mut(..n)?.copy_from_slice(b);
        m = masks(&w);
    } else if n <= 64 {
        for (k, w) in b.chunks_exact(16).enumerate() {
            let w = w.first_chunk::<16>()?;
            for (m, x) in m.iter_mut().zip(masks(w)) {
                *m |= x << (16 * k);
            }
        }
        // The last 16 bytes again, overlapping the whole steps: the bytes
        // seen twice give the same bits.
        let last = b.last_chunk::<16>()?;
        for (m, x) in m.iter_mut().zip(masks(last)) {
            *m |= x << (n - 16);
        }
    } else {
        return None;
    }
    let [at, dot, hyphen, label, usual] = m;
    Some(EmailMasks {
        at,
        dot,
        hyphen,
        label,
        usual,
    })
}

/// [`is_email`] a byte at a time: for long addresses, addresses with
/// non-ASCII characters, and CPUs without SSE2. An address holding an
/// invisible character (a NBSP, a zero-width space) is not the address it
/// looks like, and no mail server takes it.
fn is_email_bytewise(b: &[u8]) -> bool {
    is_email_ascii_rules(b)
        && (b.is_ascii()
            || std::str::from_utf8(b).map_or(true, |s| {
                !s.chars().any(|c| super::text::invisible(c).is_some())
            }))
}

/// The rule of [`is_email`] on bytes, non-ASCII bytes allowed.
fn is_email_ascii_rules(b: &[u8]) -> bool {
    // One pass over the bytes with a class table: this runs on every e-mail
    // cell of files with millions of rows, so the usual byte (a letter)
    // costs one lookup and a dots and hyphens are checked against the byte
    // before them only when they occur.
    // The local part, up to the first `@`: no leading, trailing or doubled dot.
    let mut at = 0;
    loop {
        let Some(&c) = b.get(at) else {
            return false;
        };
        if EMAIL_CLASS[c as usize] & LOCAL == 0 {
            match c {
                b'@' => break,
                b'.' if at == 0 || b[at - 1] == b'.' => return false,
                b'.' => {}
                _ => return false,
            }
        }
        at += 1;
    }
    if at == 0 || b[at - 1] == b'.' {
        return false;
    }
    // The domain: at least two labels of letters, digits, non-ASCII and
    // inner hyphens.
    let domain = &b[at + 1..];
    let mut dots = 0;
    for (j, &c) in domain.iter().enumerate() {
        if EMAIL_CLASS[c as usize] & LABEL != 0 {
            continue;
        }
        let before = if j == 0 { b'.' } else { domain[j - 1] };
        match c {
            b'.' if before == b'.' || before == b'-' => return false,
            b'.' => dots += 1,
            b'-' if before == b'.' => return false,
            b'-' => {}
            _ => return false,
        }
    }
    dots > 0 && !matches!(domain.last(), Some(b'.' | b'-'))
}

/// [`EMAIL_CLASS`] bit: allowed anywhere in the local part of an address
/// (a dot is allowed too, but not everywhere).
const LOCAL: u8 = 1;
/// [`EMAIL_CLASS`] bit: allowed in a domain label (besides inner hyphens).
const LABEL: u8 = 2;

/// What each byte may be in an e-mail address.
static EMAIL_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        // RFC 5322's specials, which an unquoted local part cannot hold:
        // `mailto:ana@example.com` is a URI, `<ana@example.com>` a display
        // form, `(ana)` a comment; none is the address itself.
        let bad_local = b <= b' '
            || matches!(
                b,
                b'.' | b'@'
                    | b','
                    | b';'
                    | b':'
                    | b'<'
                    | b'>'
                    | b'('
                    | b')'
                    | b'['
                    | b']'
                    | b'\\'
                    | b'"'
                    | 0x7f
            );
        if !bad_local {
            t[c] |= LOCAL;
        }
        if b.is_ascii_alphanumeric() || b >= 0x80 {
            t[c] |= LABEL;
        }
        c += 1;
    }
    t
};

/// `str::trim`, with shortcuts for the usual cells: one that starts and
/// ends with a visible ASCII character has nothing to trim, and one padded
/// with ASCII spaces (a list element after its comma) is trimmed bytewise.
/// ASCII whitespace is Unicode whitespace, so trimming it first changes
/// nothing that `str::trim` would do after.
#[inline]
pub(crate) fn trim(s: &str) -> &str {
    let done = |t: &str| match (t.as_bytes().first(), t.as_bytes().last()) {
        (None, _) => true,
        (Some(&f), Some(&l)) => visible_ascii(f) && visible_ascii(l),
        _ => false,
    };
    if done(s) {
        return s;
    }
    let t = s.trim_ascii();
    if done(t) {
        t
    } else {
        t.trim()
    }
}

/// Whether `s` holds anything but (Unicode) whitespace.
#[inline]
pub(crate) fn is_filled(s: &str) -> bool {
    match s.as_bytes().first() {
        None => false,
        Some(&f) if visible_ascii(f) => true,
        _ => !s.trim().is_empty(),
    }
}

#[inline]
pub(crate) fn visible_ascii(b: u8) -> bool {
    b > b' ' && b < 0x7f
}

/// What is wrong with an `<app>/<integration_id>` reference, if anything.
pub(crate) fn integration_ref_problem(s: &str) -> Option<&'static str> {
    if s.chars().any(char::is_whitespace) {
        return Some("it contains spaces");
    }
    match s.split_once('/') {
        None => Some("it has no `/` between the app and the integration ID"),
        Some(("", _)) => Some("the app before the `/` is empty"),
        Some((_, "")) => Some("the integration ID after the `/` is empty"),
        Some((_, id)) if id.contains('/') => Some("it has more than one `/`"),
        Some(_) => None,
    }
}

/// What is wrong with a BRN, if anything: at least three colon-separated
/// segments, the first and last non-empty, no whitespace. Inner segments may
/// be empty: a BRN can embed an AWS ARN (`arn:aws:iam::123:role/x`).
pub(crate) fn brn_problem(s: &str) -> Option<&'static str> {
    if s.chars().any(char::is_whitespace) {
        Some("it contains spaces")
    } else if s.split(':').count() < 3 {
        Some("it has fewer than three colon-separated segments")
    } else if s.starts_with(':') || s.ends_with(':') {
        Some("it starts or ends with a colon")
    } else {
        None
    }
}

/// The word a boolean in another case stands for, in the format's
/// spelling: only the spellings Go's `strconv.ParseBool` reads (`true`,
/// `True`, `TRUE` and the same for false), which is the evidence for
/// warning rather than failing (rules/README.md, the one exception).
/// `tRuE`, which no such parser reads, is `None`: an invalid boolean.
pub(crate) fn bool_case_variant(v: &str, spelling: BoolSpelling) -> Option<&'static str> {
    let (t, f) = spelling.words();
    match v {
        "true" | "True" | "TRUE" => Some(t),
        "false" | "False" | "FALSE" => Some(f),
        _ => None,
    }
}

/// What is wrong with a `url` cell.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum UrlProblem {
    /// Not `<scheme>://<host>...` at all.
    NotUrl,
    /// A URL, but of a scheme other than http or https (the scheme, as
    /// written): the spec says only "URL", so this is a guess's warning.
    NotHttp(usize),
}

/// Checks an absolute URL with a host: `<scheme>://<host>[:port][/...]`,
/// the scheme as RFC 3986 spells one (a letter, then letters, digits, `+`,
/// `-`, `.`). An http(s) URL has no problem; another scheme is
/// [`UrlProblem::NotHttp`] with the scheme's length.
pub(crate) fn url_problem(s: &str) -> Option<UrlProblem> {
    let Some((scheme, rest)) = s.split_once("://") else {
        return Some(UrlProblem::NotUrl);
    };
    let scheme_ok = scheme
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'));
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let (name, port) = match host.rsplit_once(':') {
        // An IPv6 literal holds colons of its own: `[::1]:8080`.
        Some((n, p)) if !p.contains(']') => (n, Some(p)),
        _ => (host, None),
    };
    // Letters of any script, as in internationalised domain names (the
    // e-mail shape accepts them too).
    let host_ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '[' | ']' | ':'))
        && port.is_none_or(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()));
    if !scheme_ok || !host_ok || s.chars().any(char::is_whitespace) {
        return Some(UrlProblem::NotUrl);
    }
    // Schemes are case-insensitive (RFC 3986).
    if scheme.eq_ignore_ascii_case("https") || scheme.eq_ignore_ascii_case("http") {
        None
    } else {
        Some(UrlProblem::NotHttp(scheme.len()))
    }
}

/// Why a cell is not a usable integer.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum IntError {
    NotInteger,
    /// Digits only, but beyond what any range here allows (i64).
    TooLarge,
}

/// Parses an optionally negative decimal integer (digits only).
pub(crate) fn parse_integer(s: &str) -> Result<i64, IntError> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(IntError::NotInteger);
    }
    s.parse().map_err(|_| IntError::TooLarge)
}

#[cfg(test)]
mod tests {
    use super::*;
    use DateShape::*;

    #[test]
    fn mdy_is_exact_and_real() {
        assert_eq!(check_date(Mdy, "03/07/2024"), Ok(()));
        assert_eq!(check_date(Mdy, "02/29/2024"), Ok(()));
        assert_eq!(check_date(Mdy, "3/7/2024"), Err(DateError::Shape));
        assert_eq!(check_date(Mdy, "03/07/24"), Err(DateError::Shape));
        assert_eq!(check_date(Mdy, "2024-03-07"), Err(DateError::Shape));
        assert!(matches!(
            check_date(Mdy, "02/30/2024"),
            Err(DateError::NotReal(_))
        ));
        assert!(matches!(
            check_date(Mdy, "13/01/2024"),
            Err(DateError::NotReal(_))
        ));
        assert!(matches!(
            check_date(Mdy, "02/29/2023"),
            Err(DateError::NotReal(_))
        ));
    }

    #[test]
    fn iso_shapes() {
        assert_eq!(check_date(Ymd, "2024-03-07"), Ok(()));
        assert_eq!(check_date(Ymd, "2024-3-07"), Err(DateError::Shape));
        assert_eq!(
            check_date(DateTimeOffset, "2024-03-07T09:30:00+01:00"),
            Ok(())
        );
        assert_eq!(
            check_date(DateTimeOffset, "2024-03-07T09:30:00.123Z"),
            Ok(())
        );
        assert_eq!(check_date(DateTimeOffset, "2024-03-07T09:30-0500"), Ok(()));
        assert_eq!(
            check_date(DateTimeOffset, "2024-03-07T09:30:00"),
            Err(DateError::Shape)
        );
        assert_eq!(
            check_date(DateTimeOffset, "2024-03-07 09:30:00Z"),
            Err(DateError::Shape)
        );
        assert!(matches!(
            check_date(DateTimeOffset, "2024-03-07T24:00:00Z"),
            Err(DateError::NotReal(_))
        ));
        assert_eq!(
            check_date(DateTimeFraction, "2024-03-07T09:30:00.5Z"),
            Ok(())
        );
        assert_eq!(
            check_date(DateTimeFraction, "2024-03-07T09:30:00.123456"),
            Ok(())
        );
        assert_eq!(
            check_date(DateTimeFraction, "2024-03-07T09:30:00Z"),
            Err(DateError::Shape)
        );
        assert_eq!(check_date(DateTimeIso, "2024-03-07"), Ok(()));
        assert_eq!(check_date(DateTimeIso, "2024-03-07T09:30"), Ok(()));
        assert_eq!(
            check_date(TimestampUtc, "2024-03-07 09:30:00 +0000 UTC"),
            Ok(())
        );
        assert_eq!(
            check_date(TimestampUtc, "2024-03-07 09:30:00.25 +0000 UTC"),
            Ok(())
        );
        assert_eq!(
            check_date(TimestampUtc, "2024-03-07 09:30:00 UTC"),
            Err(DateError::Shape)
        );
        assert_eq!(check_date(DateTimeLocal, "2024-03-07 09:30:00"), Ok(()));
        assert_eq!(
            check_date(DateTimeLocal, "2024-03-07T09:30:00"),
            Err(DateError::Shape)
        );
    }

    #[test]
    fn emails() {
        assert!(is_email("ada.lovelace+x@example.co.uk"));
        assert!(!is_email("ada@example"));
        assert!(!is_email("ada@@example.com"));
        assert!(!is_email("ada lovelace@example.com"));
        assert!(!is_email("@example.com"));
        assert!(!is_email("ada@example..com"));
        for bad in [
            ".ada@example.com",
            "ada.@example.com",
            "a..da@example.com",
            "ada@-example.com",
            "ada@example-.com",
            "ada@example.com.",
            "ada@.example.com",
            "ada@exa_mple.com",
            "a,da@example.com",
            "mailto:ana@example.com",
            "<ana@example.com>",
            "(ana)ana@example.com",
            "ana\\@example.com",
            "ada@",
            "ada",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
        for good in ["a@b.c", "ada@ex-ample.com", "ädä@bücher.de", "a.b@1.2"] {
            assert!(is_email(good), "{good}");
        }
    }

    /// The rule of [`is_email`], written plainly.
    fn email_by_parts(s: &str) -> bool {
        let Some((local, domain)) = s.split_once('@') else {
            return false;
        };
        let local_byte = |c: u8| {
            !(c <= b' '
                || matches!(
                    c,
                    b'@' | b','
                        | b';'
                        | b':'
                        | b'<'
                        | b'>'
                        | b'('
                        | b')'
                        | b'['
                        | b']'
                        | b'\\'
                        | b'"'
                        | 0x7f
                ))
        };
        let label = |l: &str| {
            !l.is_empty()
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.bytes()
                    .all(|c| c.is_ascii_alphanumeric() || c >= 0x80 || c == b'-')
        };
        !local.is_empty()
            && local.split('.').all(|part| !part.is_empty())
            && local.bytes().all(local_byte)
            && domain.split('.').count() >= 2
            && domain.split('.').all(label)
    }

    #[test]
    fn emails_agree_with_the_rule_written_plainly() {
        let alphabet = [
            "a", "a", "a", "b", "1", ".", ".", "@", "-", "_", " ", ",", "ä", "+", ":",
        ];
        let mut next = crate::testutil::xorshift(0x9e37_79b9_7f4a_7c15u64);
        let mut valid = 0;
        for _ in 0..50_000 {
            // Mostly `local@domain` shapes, so that both answers are common.
            let mut pick = |n: u64| -> String {
                (0..next() % n)
                    .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                    .collect()
            };
            let s = format!("{}@{}.{}{}", pick(5), pick(6), pick(4), pick(3));
            let s = if s.len() % 7 == 0 {
                s.replacen('@', "", 1)
            } else {
                s
            };
            assert_eq!(is_email(&s), email_by_parts(&s), "{s:?}");
            valid += usize::from(is_email(&s));
        }
        assert!(valid > 100, "only {valid} valid addresses were tried");
    }

    /// The e-mail test on bytes (16 at a time, up to 64) against the byte
    /// loop, on address-shaped byte strings of every length up to 80, with
    /// the bytes the rule singles out and bytes that are not UTF-8.
    #[test]
    fn email_masks_agree_with_the_byte_loop() {
        let bytes = b"aZ09AzA.-_+@@..!#/:[`{ ,;<>\"\x7f\x00\t\x80\xc3\xa4\xff";
        let mut next = crate::testutil::xorshift(0xbb67_ae85_84ca_a73bu64);
        let (mut valid, mut tried) = (0, 0);
        for len in 0..=80usize {
            for _ in 0..3_000 {
                // Mostly letters, so that valid addresses are common; the
                // `@` somewhere in the first half or so.
                let at = (next() % (len as u64 + 1)) as usize;
                // One byte in `noise` from the whole set; the rest letters,
                // digits, and dots in the domain.
                let noise = 1 + next() % 40;
                let mut b: Vec<u8> = (0..len)
                    .map(|k| match next() % noise {
                        _ if k == at => b'@',
                        0 => bytes[(next() % bytes.len() as u64) as usize],
                        1 | 2 if k > at + 1 => b'.',
                        _ => b"abcxyz019-"[(next() % 10) as usize],
                    })
                    .collect();
                if next().is_multiple_of(5) && len > 0 {
                    let k = (next() % len as u64) as usize;
                    b[k] = b'.';
                }
                let want = is_email_bytewise(&b);
                assert_eq!(
                    is_email_bytes(&b),
                    want,
                    "{:?}",
                    String::from_utf8_lossy(&b)
                );
                valid += usize::from(want);
                tried += 1;
            }
        }
        assert!(valid > tried / 20, "only {valid} of {tried} were addresses");
    }

    #[test]
    fn trims() {
        for s in [
            "",
            " ",
            "a",
            " a",
            "a ",
            "\u{a0}a",
            "a\u{a0}",
            "\u{3000}",
            "ab c",
            " \u{a0} a\t",
            "\x0b a \x0b",
            " \x0c\r\n",
            " é ",
            "\u{a0} \u{a0}",
            "\t\u{85}x",
            " x\u{2028} ",
        ] {
            assert_eq!(trim(s), s.trim(), "{s:?}");
            assert_eq!(is_filled(s), !s.trim().is_empty(), "{s:?}");
        }
    }

    #[test]
    fn refs_brns_urls_integers() {
        assert_eq!(integration_ref_problem("okta/0b6c1e2a"), None);
        assert!(integration_ref_problem("okta").is_some());
        assert!(integration_ref_problem("okta/a/b").is_some());
        assert_eq!(
            integration_ref_problem("okta/ 12"),
            Some("it contains spaces")
        );
        assert!(integration_ref_problem("/12").is_some());
        assert_eq!(brn_problem("brn:acme:okta:identity:123"), None);
        assert_eq!(brn_problem("brn:aws:iam::123:role/x"), None);
        assert!(brn_problem("brn:acme:").is_some());
        assert!(brn_problem("brn:identity").is_some());
        assert_eq!(brn_problem("brn:a:b c"), Some("it contains spaces"));
        let is_url = |s| url_problem(s).is_none();
        assert!(is_url("https://playbooks.example.com/run?x=1"));
        assert!(!is_url("playbooks.example.com"));
        assert!(!is_url("https://"));
        assert!(is_url("https://例え.jp/run"));
        assert!(is_url("http://[::1]:8080/run"));
        assert!(is_url("https://host.example:8443/run"));
        assert!(!is_url("https://host.example:abc/run"));
        assert_eq!(parse_integer("-3"), Ok(-3));
        assert_eq!(parse_integer("+3"), Err(IntError::NotInteger));
        assert_eq!(parse_integer("1.0"), Err(IntError::NotInteger));
        assert_eq!(
            parse_integer("99999999999999999999"),
            Err(IntError::TooLarge)
        );
        assert!(is_url("HTTPS://playbooks.example.com/run"));
        assert_eq!(
            url_problem("ftp://files.example.com/run"),
            Some(UrlProblem::NotHttp(3))
        );
        assert_eq!(url_problem("ftp://"), Some(UrlProblem::NotUrl));
        assert_eq!(bool_case_variant("TRUE", BoolSpelling::Lower), Some("true"));
        assert_eq!(
            bool_case_variant("False", BoolSpelling::Upper),
            Some("FALSE")
        );
        assert_eq!(bool_case_variant("tRuE", BoolSpelling::Lower), None);
        assert_eq!(bool_case_variant("T", BoolSpelling::Lower), None);
        assert_eq!(url_problem("1ftp://x.example"), Some(UrlProblem::NotUrl));
        assert_eq!(url_problem("https://a b.example"), Some(UrlProblem::NotUrl));
    }
}
