//! Text from a file on its way to a terminal: a cell, a header name or a
//! file name can hold ESC, CSI or OSC sequences that would rewrite the
//! terminal of whoever reads the report (titles, hyperlinks, a cleared
//! screen), or a line break that forges a line of a CI log. The human and
//! concise outputs show such characters escaped; the structured formats
//! escape them by their own rules (JSON, XML, workflow commands).

use std::borrow::Cow;

/// Whether `c` may not reach a terminal as it is: C0 controls but tab, DEL,
/// and C1 controls.
fn unsafe_char(c: char) -> bool {
    c.is_control() && c != '\t'
}

/// `s` with every control character but tab written as an escape
/// (`\x1b`, `\n`, `\u{9b}`), for names and messages.
pub fn printable(s: &str) -> Cow<'_, str> {
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if unsafe_char(c) && (c as u32) < 0x80 => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if unsafe_char(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Source lines as a terminal may show them, keeping every byte offset
/// (the spans of findings point into them): a CR ending a line (CRLF, or
/// the last byte, whose LF was not captured) becomes a space, so the line
/// structure is the LFs alone and no `^M` shows; every other control
/// character but tab and LF becomes `?`, one per byte.
pub fn printable_lines(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    let ends_line = |i: usize| matches!(b.get(i + 1), None | Some(b'\n'));
    let bad = |c: char| unsafe_char(c) && c != '\n';
    if !s.chars().any(bad) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        if c == '\r' && ends_line(i) {
            out.push(' ');
        } else if bad(c) {
            out.extend(std::iter::repeat_n('?', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_messages_show_controls_escaped() {
        assert_eq!(printable("a.csv"), "a.csv");
        assert_eq!(
            printable("x\n::error title=pwned::y"),
            "x\\n::error title=pwned::y"
        );
        assert_eq!(printable("\u{1b}]0;title\u{7}"), "\\x1b]0;title\\x07");
        assert_eq!(printable("\u{9b}2J\u{7f}"), "\\u{9b}2J\\x7f");
        assert_eq!(printable("tab\there é"), "tab\there é");
    }

    #[test]
    fn source_lines_keep_every_offset() {
        for s in [
            "a,\u{1b}[2J,b\r\nnext\n",
            "crlf,only\r\nnext\r\n",
            "\u{9b}31m,\u{7f}\r,x",
            "plain,line\r\n",
        ] {
            let p = printable_lines(s);
            assert_eq!(p.len(), s.len(), "{s:?}");
            assert!(!p.contains('\u{1b}') && !p.contains('\u{9b}') && !p.contains('\u{7f}'));
            // Line structure is kept: the same line feeds, where they were.
            let feeds = |t: &str| t.match_indices('\n').map(|(i, _)| i).collect::<Vec<_>>();
            assert_eq!(feeds(&p), feeds(s));
        }
        assert_eq!(printable_lines("a\rb"), "a?b");
        assert_eq!(printable_lines("a\r\nb"), "a \nb");
        assert_eq!(printable_lines("a,b\r"), "a,b ");
    }
}
