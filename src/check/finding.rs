//! One way to build a finding (ruff's rule-as-a-unit): its rule, message,
//! help, column, severity and fix are named as they are set, and where it
//! lies is given once, when the [`Emitter`](super::emit::Emitter) (a cell,
//! a row, a span of the buffer) or [`Finding::file`] (the whole file)
//! takes it. Findings are made a million times in a file that is all
//! errors: the builder is a plain value moved by each call, which holds
//! what the finding will hold and allocates nothing of its own.
//!
//! Also the moves of a finding's offsets (chunk to file, fixed rows before
//! it), which every stage shares.

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Related, Severity, Transform};
use crate::rules::Rule;
use std::ops::Range;
use std::sync::Arc;

/// A finding being built: everything but where it is.
#[must_use = "a finding is reported only when an emitter takes it"]
pub(crate) struct Finding {
    pub(crate) rule: &'static Rule,
    pub(crate) severity: Severity,
    pub(crate) message: String,
    pub(crate) help: Option<String>,
    /// The column the finding is about, by name; `None` for a row or file.
    pub(crate) column: Option<Arc<str>>,
    pub(crate) fix: Option<Box<Fix>>,
    pub(crate) related: Vec<Related>,
    /// Reported once a file with a count of the rows like it (see the
    /// fold's `once`).
    pub(crate) once_per_file: bool,
}

impl Finding {
    /// A finding of `rule` at the rule's severity.
    #[inline]
    pub(crate) fn new(rule: &'static Rule, message: impl Into<String>) -> Self {
        Finding {
            rule,
            severity: rule.severity,
            message: message.into(),
            help: None,
            column: None,
            fix: None,
            related: Vec::new(),
            once_per_file: false,
        }
    }

    #[inline]
    pub(crate) fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Help that some findings of a check have and others not.
    #[inline]
    pub(crate) fn help_if(mut self, help: Option<String>) -> Self {
        self.help = help;
        self
    }

    /// The cell's column, by name (the JSON's `column`; a cell's value is
    /// captured only for a finding that names one).
    #[inline]
    pub(crate) fn column(mut self, column: Option<Arc<str>>) -> Self {
        self.column = column;
        self
    }

    /// Another severity than the rule's, where the table says so (`None`
    /// keeps the rule's).
    #[inline]
    pub(crate) fn severity(mut self, severity: Option<Severity>) -> Self {
        if let Some(s) = severity {
            self.severity = s;
        }
        self
    }

    #[inline]
    pub(crate) fn fix(mut self, fix: FixBuilder) -> Self {
        self.fix = Some(Box::new(fix.fix));
        self
    }

    /// Reported once a file: the fold keeps the first and counts the rows
    /// like it.
    #[inline]
    pub(crate) fn once_per_file(mut self) -> Self {
        self.once_per_file = true;
        self
    }

    /// The finding at `span`, `line` and `col` of the file, with `snippet`.
    #[inline]
    pub(crate) fn located(
        self,
        span: Range<u64>,
        line: u64,
        col: u64,
        snippet: Option<crate::diagnostic::Snippet>,
    ) -> Diagnostic {
        Diagnostic {
            rule: self.rule,
            severity: self.severity,
            message: self.message,
            help: self.help,
            line,
            col,
            column: self.column,
            span,
            related: self.related,
            snippet,
            once_per_file: self.once_per_file,
            shared: None,
            fix: self.fix,
            value: None,
        }
    }

    /// The finding about a whole file, at `span` of it (line 1, column 1,
    /// no cell).
    #[inline]
    pub(crate) fn file(self, span: Range<u64>) -> Diagnostic {
        self.located(span, 1, 1, None)
    }

    /// [`Finding::file`], on `line` at `col`.
    #[inline]
    pub(crate) fn file_at(self, span: Range<u64>, line: u64, col: u64) -> Diagnostic {
        self.located(span, line, col, None)
    }
}

/// Offsets a fix's edits are given in: a buffer's (`usize`) or the file's.
pub(crate) trait Offsets {
    fn to_u64(self) -> Range<u64>;
}

impl Offsets for Range<usize> {
    #[inline]
    fn to_u64(self) -> Range<u64> {
        self.start as u64..self.end as u64
    }
}

impl Offsets for Range<u64> {
    #[inline]
    fn to_u64(self) -> Range<u64> {
        self
    }
}

/// A fix being built: its applicability and title, then its edits (in
/// order, at or after the finding's start) or a whole-file rewrite.
#[must_use = "a fix is attached with `Finding::fix`"]
pub(crate) struct FixBuilder {
    fix: Fix,
}

impl FixBuilder {
    #[inline]
    pub(crate) fn new(applicability: Applicability, message: impl Into<String>) -> Self {
        FixBuilder {
            fix: Fix {
                applicability,
                message: message.into(),
                edits: Vec::new(),
                transform: None,
            },
        }
    }

    #[inline]
    pub(crate) fn safe(message: impl Into<String>) -> Self {
        FixBuilder::new(Applicability::Safe, message)
    }

    #[inline]
    pub(crate) fn unsafe_(message: impl Into<String>) -> Self {
        FixBuilder::new(Applicability::Unsafe, message)
    }

    /// Replaces `span` (offsets of the buffer the finding is made in, or of
    /// the file for a file's finding) with `content`.
    #[inline]
    pub(crate) fn edit(mut self, span: impl Offsets, content: impl Into<String>) -> Self {
        self.fix.edits.push(Edit {
            span: span.to_u64(),
            content: content.into(),
        });
        self
    }

    /// Every edit at once, in order.
    #[inline]
    pub(crate) fn edits<S: Offsets>(mut self, edits: Vec<(S, String)>) -> Self {
        self.fix.edits = edits
            .into_iter()
            .map(|(span, content)| Edit {
                span: span.to_u64(),
                content,
            })
            .collect();
        self
    }

    /// The fix, for a finding made before it (see [`Finding::fix`] for
    /// one being built).
    #[inline]
    pub(crate) fn build(self) -> Fix {
        self.fix
    }

    /// A rewrite of the whole file instead of edits.
    #[inline]
    pub(crate) fn transform(mut self, transform: Transform) -> Self {
        self.fix.transform = Some(transform);
        self
    }
}

/// Moves a diagnostic from chunk offsets to file offsets.
pub(crate) fn rebase(mut d: Diagnostic, base: u64) -> Diagnostic {
    d.span.start += base;
    d.span.end += base;
    if let Some(f) = &mut d.fix {
        for e in &mut f.edits {
            e.span.start += base;
            e.span.end += base;
        }
    }
    if let Some(s) = &mut d.snippet {
        s.offset += base;
    }
    d
}

/// Moves a finding's offsets by `by` bytes (the bytes fixed rows before it
/// added).
pub(crate) fn shift(d: &mut Diagnostic, by: i64) {
    let at = |o: u64| o.saturating_add_signed(by);
    d.span = at(d.span.start)..at(d.span.end);
    if let Some(f) = &mut d.fix {
        for e in &mut f.edits {
            e.span = at(e.span.start)..at(e.span.end);
        }
    }
    if let Some(s) = &mut d.snippet {
        s.offset = at(s.offset);
    }
}

/// A finding about a whole file (line 1, column 1, no cell).
pub(crate) fn file_diag(
    rule: &'static Rule,
    span: Range<u64>,
    message: String,
    help: &str,
) -> Diagnostic {
    Finding::new(rule, message).help(help).file(span)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules;

    #[test]
    fn a_built_finding_holds_what_it_was_given() {
        let d = Finding::new(&rules::UTF8_BOM, "m")
            .help("h")
            .severity(Some(Severity::Info))
            .fix(FixBuilder::safe("f").edit(0..3usize, ""))
            .file(0..3);
        assert_eq!((d.line, d.col, d.span.clone()), (1, 1, 0..3));
        assert_eq!(d.severity, Severity::Info);
        assert_eq!((d.message.as_str(), d.help.as_deref()), ("m", Some("h")));
        let fix = d.fix.expect("given");
        assert_eq!(fix.edits[0].span, 0..3);
        assert_eq!(fix.applicability, Applicability::Safe);
        let d = Finding::new(&rules::UTF8_BOM, "m")
            .severity(None)
            .file(0..0);
        assert_eq!(d.severity, rules::UTF8_BOM.severity);
    }
}
