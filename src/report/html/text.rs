//! Text from a file on its way into the HTML report. Everything a file
//! gives (cells, header names, file names, messages that quote them) is
//! text, never markup: the five characters HTML reads as markup are
//! entities, and every character that would hide, reorder or break the
//! text a person reads (controls, ESC, NUL, bidirectional overrides, line
//! and paragraph separators, zero-width characters) is shown as a visible
//! escape (`\x1b`, `\u{202e}`) instead of being sent to the browser.

use std::fmt::Write as _;

/// How escapes are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// Running text: escapes marked with `<span class="esc">`, line breaks
    /// shown as `\n`.
    Inline,
    /// A source line in `<pre>`: as `Inline`, but line breaks and tabs are
    /// kept (a quoted cell may span lines; a tab may be the delimiter).
    Pre,
    /// A double-quoted attribute value: escapes as plain text, no markup.
    Attr,
}

/// Whether `c` is shown as an escape rather than as itself.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{061C}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{2069}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
        )
}

/// Appends `s` to `out` as HTML text in `mode`.
pub(super) fn push(out: &mut String, s: &str, mode: Mode) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' if mode == Mode::Pre => out.push(c),
            c if hidden(c) => {
                if mode != Mode::Attr {
                    out.push_str("<span class=\"esc\">");
                }
                match c {
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c if (c as u32) < 0x80 => {
                        let _ = write!(out, "\\x{:02x}", c as u32);
                    }
                    c => {
                        let _ = write!(out, "\\u{{{:x}}}", c as u32);
                    }
                }
                if mode != Mode::Attr {
                    out.push_str("</span>");
                }
            }
            c => out.push(c),
        }
    }
}

/// `s` as running text ([`Mode::Inline`]).
pub(super) fn inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    push(&mut out, s, Mode::Inline);
    out
}

/// `s` as an attribute value ([`Mode::Attr`]).
pub(super) fn attr(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    push(&mut out, s, Mode::Attr);
    out
}

/// The registry's own prose (explanations, fix texts, summaries) as
/// running text, with its `` `code` `` spans set as `<code>`. Escaped like
/// any text first: the markup added is only the code elements.
pub(super) fn prose(out: &mut String, s: &str) {
    let mut code = false;
    for (k, part) in s.split('`').enumerate() {
        if k > 0 {
            out.push_str(if code { "</code>" } else { "<code>" });
            code = !code;
        }
        push(out, part, Mode::Inline);
    }
    if code {
        out.push_str("</code>");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_text_and_hidden_characters_are_visible() {
        assert_eq!(
            inline("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        assert_eq!(
            inline("a\u{1b}[31m\0b"),
            "a<span class=\"esc\">\\x1b</span>[31m<span class=\"esc\">\\x00</span>b"
        );
        assert_eq!(attr("x\u{202e}y\u{2028}z\n"), "x\\u{202e}y\\u{2028}z\\n");
        let mut pre = String::new();
        push(&mut pre, "a\tb\nc\r", Mode::Pre);
        assert_eq!(pre, "a\tb\nc<span class=\"esc\">\\r</span>");
    }

    #[test]
    fn prose_sets_code_spans_and_closes_an_odd_one() {
        let mut out = String::new();
        prose(&mut out, "write `true` for `<b>");
        assert_eq!(out, "write <code>true</code> for <code>&lt;b&gt;</code>");
    }
}
