//! Where a finding starts and ends, in the units each CI format wants.
//!
//! A [`Diagnostic`] carries its start (`line`, `col` in characters) and its
//! byte span, but not its end line and column: the checker does not compute
//! them (it stays fast and `src/check/` is not ours to widen). The snippet
//! captured while checking holds the span's bytes, so the end is derived
//! from it here. Without a snippet (or when it does not cover the span), the
//! region collapses to its start, which every format accepts.

use crate::diagnostic::Diagnostic;

/// A finding's region. Columns are 1-based; ends are exclusive (the column
/// after the last character), as SARIF defines `endColumn`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Region {
    pub(crate) start_line: u64,
    /// Unicode code points from the line start.
    pub(crate) start_col: u64,
    pub(crate) end_line: u64,
    pub(crate) end_col: u64,
    /// UTF-8 bytes from the line start (reviewdog counts bytes).
    pub(crate) start_byte_col: u64,
    pub(crate) end_byte_col: u64,
}

/// The span's text, when the snippet covers it.
pub(crate) fn span_text(d: &Diagnostic) -> Option<&str> {
    let s = d.snippet.as_ref()?;
    let start = usize::try_from(d.span.start.checked_sub(s.offset)?).ok()?;
    let end = usize::try_from(d.span.end.checked_sub(s.offset)?).ok()?;
    s.text.get(start..end)
}

/// Computes the region of `d`.
pub(crate) fn region(d: &Diagnostic) -> Region {
    let start_line = d.line.max(1);
    let start_col = d.col.max(1);
    let mut r = Region {
        start_line,
        start_col,
        end_line: start_line,
        end_col: start_col,
        start_byte_col: start_col,
        end_byte_col: start_col,
    };
    let (Some(s), Some(span)) = (d.snippet.as_ref(), span_text(d)) else {
        return r;
    };
    // `span_text` succeeded, so these offsets are in range and on char
    // boundaries.
    let start = (d.span.start - s.offset) as usize;
    let before = &s.text[..start];
    // The byte column: from the last newline before the span, or from
    // where the snippet starts on its line (a long line is cut near the
    // finding).
    r.start_byte_col = match before.rfind('\n') {
        Some(nl) => (start - nl) as u64,
        None => s.first_byte_col + start as u64,
    };
    match span.rfind('\n') {
        None => {
            r.end_col = start_col + span.chars().count() as u64;
            r.end_byte_col = r.start_byte_col + span.len() as u64;
        }
        Some(nl) => {
            let tail = &span[nl + 1..];
            r.end_line = start_line + span.matches('\n').count() as u64;
            r.end_col = tail.chars().count() as u64 + 1;
            r.end_byte_col = tail.len() as u64 + 1;
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Severity, Snippet};

    fn diag(
        text: &str,
        offset: u64,
        span: std::ops::Range<u64>,
        line: u64,
        col: u64,
    ) -> Diagnostic {
        Diagnostic {
            rule: &crate::rules::INVALID_DATE,
            severity: Severity::Error,
            message: "m".into(),
            help: None,
            line,
            col,
            column: Some("C".into()),
            span,
            related: Vec::new(),
            snippet: Some(Snippet {
                offset,
                line: 3,
                first_col: 1,
                first_byte_col: 1,
                text: text.into(),
            }),
            once_per_file: false,
            shared: None,
            fix: None,
            value: None,
        }
    }

    #[test]
    fn one_line_span_counts_characters_and_bytes() {
        // Line 3 starts at byte 100; the cell `née` starts after `é,` (3 bytes,
        // 2 characters), so at column 3 in characters, 4 in bytes.
        let d = diag("é,née,x\n", 100, 103..107, 3, 3);
        let r = region(&d);
        assert_eq!(
            (r.start_line, r.start_col, r.end_line, r.end_col),
            (3, 3, 3, 6)
        );
        assert_eq!((r.start_byte_col, r.end_byte_col), (4, 8));
    }

    #[test]
    fn a_quoted_cell_over_two_lines_ends_on_the_second() {
        let text = "a,\"x\r\nyz\",b\r\n";
        let d = diag(text, 0, 2..9, 3, 3);
        let r = region(&d);
        assert_eq!(
            (r.start_line, r.start_col, r.end_line, r.end_col),
            (3, 3, 4, 4)
        );
        assert_eq!(span_text(&d), Some("\"x\r\nyz\""));
    }

    #[test]
    fn without_a_covering_snippet_the_region_is_its_start() {
        let d = diag("abc", 500, 10..20, 7, 9);
        let r = region(&d);
        assert_eq!(
            (r.start_line, r.start_col, r.end_line, r.end_col),
            (7, 9, 7, 9)
        );
    }
}
