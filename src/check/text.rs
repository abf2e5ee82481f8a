//! How values are written into messages: quoted in backticks, on one
//! line, cut when long. Shared by every family of checks (header, row,
//! cross-row, batch), so that none of them imports another for it.

/// Longest value quoted in a message.
const MAX_QUOTED: usize = 60;

/// A value as quoted in a message: shortened, on one line.
pub(crate) fn quote(v: &str) -> String {
    // The usual value, short and on one line, is quoted as it stands: a
    // file where every row is wrong quotes a million of them, some on the
    // sequential cross-row fold. No byte below 0x20, no DEL and no 0xC2
    // (the lead byte of U+0080-U+009F, the other control characters) means
    // no control character; no more bytes than MAX_QUOTED, no more chars.
    if v.len() <= MAX_QUOTED && !v.bytes().any(|b| b < 0x20 || b == 0x7F || b == 0xC2) {
        return ["`", v, "`"].concat();
    }
    quote_any(v)
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

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn quote_takes_its_short_path_only_where_it_agrees_with_the_long(
            v in "(?s)[a-z`é\u{80}-\u{a0}\u{0}-\u{1f}\u{7f}😀 ]{0,70}"
        ) {
            proptest::prop_assert_eq!(quote(&v), quote_any(&v));
        }
    }
}
