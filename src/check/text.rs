//! How values are written into messages: quoted in backticks, on one
//! line, cut when long, with the invisible characters they hold named.
//! Shared by every family of checks (header, row, cross-row, batch), so
//! that none of them imports another for it.

/// Longest value quoted in a message.
const MAX_QUOTED: usize = 60;

/// Most invisible characters named after one quoted value.
const MAX_NAMED: usize = 3;

/// A value as quoted in a message: shortened, on one line, followed by the
/// names of the invisible characters it holds (a NBSP or a zero-width space
/// looks like nothing, or like a space, in a terminal):
/// `` `Project` (with U+FEFF ZERO WIDTH NO-BREAK SPACE at its start) ``.
pub(crate) fn quote(v: &str) -> String {
    // The usual value, short and on one line, is quoted as it stands: a
    // file where every row is wrong quotes a million of them, some on the
    // sequential cross-row fold. No byte below 0x20, no DEL and none of the
    // lead bytes of the characters `invisible` names (0xC2: U+0080-U+00BF,
    // the other control characters, NBSP and the soft hyphen; 0xE1: U+1680 and U+180E;
    // 0xE2: U+2000-U+2FFF; 0xE3: U+3000; 0xEF: U+FEFF) means nothing to
    // replace or name; no more bytes than MAX_QUOTED, no more chars.
    if v.len() <= MAX_QUOTED && !v.bytes().any(maybe_hidden) {
        return ["`", v, "`"].concat();
    }
    let mut out = quote_any(v);
    out.push_str(&with_invisible(v));
    out
}

/// [`quote`] without the names of invisible characters, for a message that
/// names them itself.
pub(crate) fn quote_bare(v: &str) -> String {
    if v.len() <= MAX_QUOTED && !v.bytes().any(maybe_hidden) {
        return ["`", v, "`"].concat();
    }
    quote_any(v)
}

#[inline]
fn maybe_hidden(b: u8) -> bool {
    b < 0x20 || matches!(b, 0x7F | 0xC2 | 0xE1 | 0xE2 | 0xE3 | 0xEF)
}

/// [`quote`] for any value: control characters as spaces, cut after
/// MAX_QUOTED characters.
fn quote_any(v: &str) -> String {
    let one_line: String = v
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if one_line.chars().count() > MAX_QUOTED {
        let cut: String = one_line.chars().take(MAX_QUOTED).collect();
        format!("`{cut}…`")
    } else {
        format!("`{one_line}`")
    }
}

/// The code point and Unicode name of a character that does not show as
/// itself (whitespace other than the ASCII space, zero-width and other
/// format characters), as messages name it; `None` for any other.
pub(crate) fn invisible(c: char) -> Option<&'static str> {
    Some(match c {
        '\t' => "TAB",
        '\n' => "LINE FEED",
        '\u{0B}' => "U+000B LINE TABULATION",
        '\u{0C}' => "U+000C FORM FEED",
        '\r' => "CARRIAGE RETURN",
        '\u{85}' => "U+0085 NEXT LINE",
        '\u{A0}' => "U+00A0 NO-BREAK SPACE",
        '\u{AD}' => "U+00AD SOFT HYPHEN",
        '\u{1680}' => "U+1680 OGHAM SPACE MARK",
        '\u{180E}' => "U+180E MONGOLIAN VOWEL SEPARATOR",
        '\u{2000}' => "U+2000 EN QUAD",
        '\u{2001}' => "U+2001 EM QUAD",
        '\u{2002}' => "U+2002 EN SPACE",
        '\u{2003}' => "U+2003 EM SPACE",
        '\u{2004}' => "U+2004 THREE-PER-EM SPACE",
        '\u{2005}' => "U+2005 FOUR-PER-EM SPACE",
        '\u{2006}' => "U+2006 SIX-PER-EM SPACE",
        '\u{2007}' => "U+2007 FIGURE SPACE",
        '\u{2008}' => "U+2008 PUNCTUATION SPACE",
        '\u{2009}' => "U+2009 THIN SPACE",
        '\u{200A}' => "U+200A HAIR SPACE",
        '\u{200B}' => "U+200B ZERO WIDTH SPACE",
        '\u{200C}' => "U+200C ZERO WIDTH NON-JOINER",
        '\u{200D}' => "U+200D ZERO WIDTH JOINER",
        '\u{200E}' => "U+200E LEFT-TO-RIGHT MARK",
        '\u{200F}' => "U+200F RIGHT-TO-LEFT MARK",
        '\u{2028}' => "U+2028 LINE SEPARATOR",
        '\u{2029}' => "U+2029 PARAGRAPH SEPARATOR",
        '\u{202F}' => "U+202F NARROW NO-BREAK SPACE",
        '\u{205F}' => "U+205F MEDIUM MATHEMATICAL SPACE",
        '\u{2060}' => "U+2060 WORD JOINER",
        '\u{3000}' => "U+3000 IDEOGRAPHIC SPACE",
        '\u{FEFF}' => "U+FEFF ZERO WIDTH NO-BREAK SPACE (a byte-order mark)",
        _ => return None,
    })
}

/// Whether `c` takes no room at all when shown: a header name or an
/// e-mail address that holds one differs from what it looks like.
pub(crate) fn zero_width(c: char) -> bool {
    matches!(
        c,
        '\u{AD}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{2060}' | '\u{FEFF}'
    )
}

/// The invisible characters of `v`, each named once, with where it first
/// stands: "U+00A0 NO-BREAK SPACE inside and TAB at its end"; empty when
/// there are none.
pub(crate) fn name_invisible(v: &str) -> String {
    let n = v.chars().count();
    let mut named: Vec<(char, &'static str, &'static str)> = Vec::new();
    let mut more = 0usize;
    for (k, c) in v.chars().enumerate() {
        let Some(name) = invisible(c) else { continue };
        if named.iter().any(|&(x, _, _)| x == c) {
            continue;
        }
        if named.len() == MAX_NAMED {
            more += 1;
            continue;
        }
        let at = if k == 0 {
            "at its start"
        } else if k + 1 == n {
            "at its end"
        } else {
            "inside"
        };
        named.push((c, name, if n == 1 { "" } else { at }));
    }
    let parts: Vec<String> = named
        .iter()
        .map(|&(_, name, at)| {
            if at.is_empty() {
                name.to_owned()
            } else {
                format!("{name} {at}")
            }
        })
        .collect();
    let mut out = join_and(&parts);
    if more > 0 {
        out.push_str(&format!(" and {more} more invisible characters"));
    }
    out
}

/// ` (with ...)` naming the invisible characters of `v`, or nothing.
fn with_invisible(v: &str) -> String {
    let names = name_invisible(v);
    if names.is_empty() {
        names
    } else {
        format!(" (with {names})")
    }
}

/// What surrounds `trimmed` within `value` (which holds it), for the
/// surrounding-whitespace message: "spaces" when they are plain spaces,
/// else the characters by name ("a TAB before it and a U+00A0 NO-BREAK
/// SPACE after it").
pub(crate) fn describe_around(value: &str, trimmed: &str) -> String {
    let start = (trimmed.as_ptr() as usize).saturating_sub(value.as_ptr() as usize);
    let before = value.get(..start).unwrap_or_default();
    let after = value.get(start + trimmed.len()..).unwrap_or_default();
    if before.bytes().all(|b| b == b' ') && after.bytes().all(|b| b == b' ') {
        return "spaces around it".into();
    }
    let side = |s: &str, at: &str| -> Option<String> {
        if s.is_empty() {
            return None;
        }
        let mut names: Vec<&str> = Vec::new();
        for c in s.chars() {
            let name = if c == ' ' {
                "space"
            } else {
                invisible(c).unwrap_or("space")
            };
            if !names.contains(&name) {
                names.push(name);
            }
        }
        let names: Vec<String> = names.into_iter().map(str::to_owned).collect();
        Some(format!("{} {at} it", join_and(&names)))
    };
    let parts: Vec<String> = [side(before, "before"), side(after, "after")]
        .into_iter()
        .flatten()
        .collect();
    join_and(&parts)
}

/// `a`, `a and b`, `a, b and c`.
fn join_and(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn quote_takes_its_short_path_only_where_it_agrees_with_the_long(
            v in "(?s)[a-z`é\u{80}-\u{a0}\u{0}-\u{1f}\u{7f}😀 \u{200b}\u{feff}\u{3000}\u{2060}]{0,70}"
        ) {
            let long = format!("{}{}", quote_any(&v), with_invisible(&v));
            proptest::prop_assert_eq!(quote(&v), long);
        }
    }

    #[test]
    fn every_named_character_takes_the_long_path() {
        for c in (0..0x11_0000u32).filter_map(char::from_u32) {
            if invisible(c).is_some() || zero_width(c) {
                let s = c.to_string();
                assert!(s.bytes().any(maybe_hidden), "{c:?}");
                assert!(invisible(c).is_some(), "{c:?} is zero-width but unnamed");
            }
            // Every whitespace but the ASCII space has a name.
            if c.is_whitespace() && c != ' ' {
                assert!(invisible(c).is_some(), "{c:?} is whitespace but unnamed");
            }
        }
    }

    #[test]
    fn invisible_characters_are_named_with_where_they_stand() {
        assert_eq!(quote("ada"), "`ada`");
        assert_eq!(
            quote("\u{feff}Project"),
            "`\u{feff}Project` (with U+FEFF ZERO WIDTH NO-BREAK SPACE (a byte-order mark) at its start)"
        );
        assert_eq!(
            quote("Privilege\u{a0}Name"),
            "`Privilege\u{a0}Name` (with U+00A0 NO-BREAK SPACE inside)"
        );
        assert_eq!(
            quote("a\tb\u{200b}"),
            "`a b\u{200b}` (with TAB inside and U+200B ZERO WIDTH SPACE at its end)"
        );
        let v = " x ";
        assert_eq!(describe_around(v, &v[1..2]), "spaces around it");
        let v = "\tx\u{a0} ";
        assert_eq!(
            describe_around(v, &v[1..2]),
            "TAB before it and U+00A0 NO-BREAK SPACE and space after it"
        );
    }
}
