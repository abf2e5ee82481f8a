//! Text from a file on its way to a terminal: a cell, a header name or a
//! file name can hold ESC, CSI or OSC sequences that would rewrite the
//! terminal of whoever reads the report (titles, hyperlinks, a cleared
//! screen), or a line break that forges a line of a CI log. The human and
//! concise outputs show such characters escaped; the structured formats
//! escape them by their own rules (JSON, XML, workflow commands).

use std::borrow::Cow;
use std::path::Path;

/// Whether `c` may not reach a terminal as it is: C0 controls but tab, DEL,
/// C1 controls, and the characters that make text read other than it is
/// stored: bidirectional embeddings, overrides and isolates (a cell with
/// U+202E shows its tail reversed, "Trojan Source"), the invisible marks
/// that steer them, and the line and paragraph separators, which some
/// terminals and log viewers break lines at.
fn unsafe_char(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
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

/// A file name in a message for a person (standard error, a terminal, the
/// human and concise reports): [`printable`], so it stays on its line and
/// writes no escape sequence; and a name that begins (after blanks) with
/// `::` or `##` is written `./::...`, since a line of a CI log that begins
/// so is read as a command by the runner (GitHub's `::error::`, Azure's
/// `##vso[...]`), and some messages begin with the name.
pub fn display_name(s: &str) -> Cow<'_, str> {
    let shown = printable(s);
    let rest = shown.trim_start();
    if rest.starts_with("::") || rest.starts_with("##") {
        return Cow::Owned(format!("./{shown}"));
    }
    shown
}

/// A path in a message for a person: [`display_name`] of its text (bytes
/// that are not UTF-8 shown as U+FFFD).
pub fn display_path(p: &Path) -> String {
    display_name(&p.to_string_lossy()).into_owned()
}

/// At most `max` characters of the first line of `s`, [`printable`], with
/// `...` where it was cut: a value a file gave, quoted in a message without
/// letting the file write to the terminal or fill the log.
pub fn excerpt(s: &str, max: usize) -> String {
    let line = s.split(['\n', '\r']).next().unwrap_or("");
    let cut = line.char_indices().nth(max).map_or(line.len(), |(i, _)| i);
    let mut out = printable(&line[..cut]).into_owned();
    if cut < s.len() {
        out.push_str("...");
    }
    out
}

/// `name` as git writes a path in a diff header: as it is when it holds no
/// control character (or character that reorders text, as [`printable`]
/// escapes), double quote or backslash; otherwise in double quotes, with C
/// escapes (`\t`, `\n`, `\"`, `\\`) and each byte of any other such
/// character in octal (`"a\033b"`), so a name can neither write to the
/// terminal nor start a line of its own.
pub fn git_quoted(name: &str) -> Cow<'_, str> {
    let plain = |c: char| !(unsafe_char(c) || c == '\t' || c == '"' || c == '\\');
    if name.chars().all(plain) {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len() + 8);
    out.push('"');
    for c in name.chars() {
        match c {
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{b}' => out.push_str("\\v"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if unsafe_char(c) => {
                let mut buf = [0; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("\\{b:03o}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    Cow::Owned(out)
}

/// Source lines as a terminal may show them, keeping every byte offset
/// (the spans of findings point into them): a CR ending a line (CRLF, or
/// the last byte, whose LF was not captured) becomes a space, so the line
/// structure is the LFs alone and no `^M` shows; every other control
/// character but tab and LF becomes `?`, one per byte.
pub(crate) fn printable_lines(s: &str) -> Cow<'_, str> {
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
    fn text_that_reads_other_than_it_is_stored_is_escaped() {
        // A right-to-left override shows "Trojan Source": the tail of a
        // cell reversed; the separators break a line in some viewers.
        assert_eq!(printable("ana\u{202e}vsc.exe"), "ana\\u{202e}vsc.exe");
        assert_eq!(printable("a\u{2028}b\u{2029}"), "a\\u{2028}b\\u{2029}");
        assert_eq!(
            printable("\u{2066}x\u{2069}\u{200f}\u{61c}"),
            "\\u{2066}x\\u{2069}\\u{200f}\\u{61c}"
        );
        assert_eq!(printable("مرحبا"), "مرحبا");
        assert_eq!(git_quoted("a\u{202e}b"), "\"a\\342\\200\\256b\"");
        // Source lines keep every byte offset: three bytes, three marks.
        assert_eq!(printable_lines("a\u{202e}b"), "a???b");
    }

    #[test]
    fn names_in_messages_stay_on_their_line_and_start_no_command() {
        let evil = "a\u{1b}]0;t\u{7}\r\n::error::b.csv";
        assert_eq!(display_name(evil), "a\\x1b]0;t\\x07\\r\\n::error::b.csv");
        assert_eq!(display_name("::error::x.csv"), "./::error::x.csv");
        assert_eq!(display_name(" ##vso[task]x"), "./ ##vso[task]x");
        assert_eq!(display_name("a::b.csv"), "a::b.csv");
        assert_eq!(display_path(Path::new("/t/::x")), "/t/::x");
    }

    #[test]
    fn excerpts_are_one_short_escaped_line() {
        assert_eq!(excerpt("select = []", 80), "select = []");
        assert_eq!(excerpt("ab\u{1b}cd\nsecond", 80), "ab\\x1bcd...");
        assert_eq!(excerpt(&"x".repeat(100), 5), "xxxxx...");
        assert_eq!(excerpt("a\u{0}b", 80), "a\\x00b");
    }

    #[test]
    fn diff_names_are_quoted_as_git_quotes_them() {
        assert_eq!(git_quoted("dir/a b é.csv"), "dir/a b é.csv");
        assert_eq!(git_quoted("a\u{1b}b"), "\"a\\033b\"");
        assert_eq!(
            git_quoted("x\u{7}\r\n::error::\"q\"\\.csv"),
            "\"x\\a\\r\\n::error::\\\"q\\\"\\\\.csv\""
        );
        assert_eq!(git_quoted("\u{9b}"), "\"\\302\\233\"");
        assert_eq!(git_quoted("\u{7f}"), "\"\\177\"");
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
