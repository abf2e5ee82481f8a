//! The human report: miette's graphical rendering of each finding against the
//! snippet captured while checking (the file itself is not kept), then a
//! one-line summary; written by [`super::StreamWriter`].

use super::safe::{printable, printable_lines};
use crate::diagnostic::{Diagnostic, Severity, Snippet};
use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents,
};
use std::borrow::Cow;
use std::fmt;
use std::io::{self, Write};

/// How the human report looks.
#[derive(Debug, Clone)]
pub struct HumanOptions {
    pub color: bool,
    /// Box-drawing characters; plain ASCII when false.
    pub unicode: bool,
    /// Wrap width.
    pub width: usize,
}

impl Default for HumanOptions {
    fn default() -> Self {
        HumanOptions {
            color: false,
            unicode: false,
            width: 100,
        }
    }
}

/// A snippet as miette source: offsets relative to the snippet, line numbers
/// shifted to the file's.
struct SnippetSource<'a> {
    name: &'a str,
    snippet: &'a Snippet,
}

impl SourceCode for SnippetSource<'_> {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self.snippet.text.as_str().read_span(span, before, after)?;
        // The position miette prints (a read without context) is the
        // finding's column in characters, as every other output counts it;
        // miette counts bytes, and from where a long line was cut.
        let column = if before == 0 && after == 0 {
            let text = self.snippet.text.as_str();
            let at = span.offset().min(text.len());
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let chars = text[line_start..at].chars().count();
            if line_start == 0 {
                chars + self.snippet.first_col as usize - 1
            } else {
                chars
            }
        } else {
            inner.column()
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.to_owned(),
            inner.data(),
            *inner.span(),
            inner.line() + self.snippet.line as usize - 1,
            column,
            inner.line_count(),
        )))
    }
}

/// One finding as a miette diagnostic.
struct Finding<'a> {
    d: &'a Diagnostic,
    source: Option<SnippetSource<'a>>,
}

impl fmt::Debug for Finding<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.d.message)
    }
}

impl fmt::Display for Finding<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&printable(&self.d.message))
    }
}

impl std::error::Error for Finding<'_> {}

impl miette::Diagnostic for Finding<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(format!(
            "{}({}) {}{}",
            self.d.severity,
            self.d.rule.code,
            self.d.rule.name,
            super::model::fix_mark(self.d)
        )))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        // Related places (the earlier row a cross-row finding conflicts
        // with) have no snippet of their own; they are named after the help,
        // a line each. Each part is made printable on its own, so that the
        // line breaks between them stay line breaks.
        let mut text = self
            .d
            .help
            .as_deref()
            .map(printable)
            .unwrap_or_default()
            .into_owned();
        for r in &self.d.related {
            if !text.is_empty() {
                text.push('\n');
            }
            let message = printable(&r.message);
            match &r.column {
                Some(c) => text.push_str(&format!(
                    "see line {} ({}): {message}",
                    r.line,
                    printable(c)
                )),
                None => text.push_str(&format!("see line {}: {message}", r.line)),
            }
        }
        (!text.is_empty()).then(|| Box::new(text) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let s = self.source.as_ref()?.snippet;
        let len = s.text.len() as u64;
        let start = self.d.span.start.saturating_sub(s.offset).min(len);
        let end = self.d.span.end.saturating_sub(s.offset).clamp(start, len);
        let label = self
            .d
            .column
            .as_deref()
            .map_or_else(|| "here".to_owned(), |c| printable(c).into_owned());
        Some(Box::new(std::iter::once(
            LabeledSpan::new_primary_with_span(
                Some(label),
                (start as usize, (end - start) as usize),
            ),
        )))
    }
}

pub(super) fn handler(opts: &HumanOptions) -> GraphicalReportHandler {
    let theme = match (opts.unicode, opts.color) {
        (true, true) => GraphicalTheme::unicode(),
        (true, false) => GraphicalTheme::unicode_nocolor(),
        (false, true) => GraphicalTheme::ascii(),
        (false, false) => GraphicalTheme::none(),
    };
    GraphicalReportHandler::new_themed(theme)
        .with_width(opts.width)
        .with_links(false)
        .with_context_lines(1)
}

/// One finding, with its source lines when it has them.
pub(super) fn write_one(
    out: &mut dyn Write,
    handler: &GraphicalReportHandler,
    location: &str,
    d: &crate::diagnostic::Diagnostic,
) -> io::Result<()> {
    // Nothing of the file reaches the terminal as it is (see `safe`): the
    // source lines keep their byte offsets, so the spans still fit.
    let location = super::safe::display_name(location);
    let safe_snippet = d
        .snippet
        .as_ref()
        .and_then(|s| match printable_lines(&s.text) {
            Cow::Borrowed(_) => None,
            Cow::Owned(text) => Some(Snippet { text, ..s.clone() }),
        });
    let finding = Finding {
        d,
        source: safe_snippet
            .as_ref()
            .or(d.snippet.as_ref())
            .map(|snippet| SnippetSource {
                name: &location,
                snippet,
            }),
    };
    let mut text = String::new();
    if finding.source.is_none() {
        // No source lines to show (file-level findings): say where.
        text.push_str(&format!("{location}:{}:{}\n", d.line, d.col));
    }
    handler
        .render_report(&mut text, &finding)
        .map_err(|_| io::Error::other("rendering a finding failed"))?;
    out.write_all(text.as_bytes())?;
    writeln!(out)
}
