//! Where the findings of one cell's shape check point, and how its fixes
//! write: what every family of cell checks shares.

use crate::check::cell_edits::CellParts;
use crate::check::emit::Emitter;
use crate::check::finding::{Finding, FixBuilder};
use crate::check::text::{describe_around, quote};
use crate::diagnostic::Applicability;
use crate::rules::{self, Rule};
use crate::scan::{raw_offset, FieldSpan};
use crate::schema::Column;
use std::ops::Range;
use std::sync::Arc;

/// A filled cell whose value is being checked against its column's shape.
pub(super) struct CellAt<'a> {
    /// The chunk the cell lies in.
    pub(super) data: &'a [u8],
    pub(super) f: &'a FieldSpan,
    /// The header's name of its field, as findings name the column.
    pub(super) name: &'a Arc<str>,
    pub(super) col: &'a Column,
    /// Its value and the spaces around it, where fixes write.
    pub(super) parts: CellParts,
}

impl CellAt<'_> {
    /// Spaces (or other blanks) around `value`, which trims to `trimmed`, and
    /// the safe fix that removes them.
    pub(super) fn surrounding_whitespace(
        &self,
        value: &str,
        trimmed: &str,
        emit: &mut Emitter<'_>,
    ) {
        // Plain spaces are quoted as they stand; anything else is named, since
        // a TAB or a NBSP looks like a space, or like nothing.
        let around = describe_around(value, trimmed);
        let (message, help) = if around == "spaces around it" {
            (
                format!("{} has spaces around it", quote(value)),
                format!("write {} without the spaces", quote(trimmed)),
            )
        } else {
            (
                format!("{} has {around}", quote(trimmed)),
                format!("write {} without them", quote(trimmed)),
            )
        };
        self.report(
            emit,
            self.finding(&rules::SURROUNDING_WHITESPACE, message)
                .help(help)
                .fix(
                    FixBuilder::safe("remove the spaces around the value")
                        .edits(self.parts.trim_edits()),
                ),
        );
    }

    /// A finding of `rule` about this cell, naming its column.
    pub(super) fn finding(&self, rule: &'static Rule, message: String) -> Finding {
        Finding::new(rule, message).column(Some(self.name.clone()))
    }

    /// Reports `finding` on the whole cell.
    pub(super) fn report(&self, emit: &mut Emitter<'_>, finding: Finding) {
        emit.report_in(self.f.start..self.f.end, self.f, finding);
    }

    /// Reports `finding` on `span` (buffer offsets), a part of the cell.
    pub(super) fn report_span(&self, emit: &mut Emitter<'_>, span: Range<usize>, finding: Finding) {
        emit.report_in(span, self.f, finding);
    }

    /// `finding` with the fix that writes `new` in place of the value, if
    /// the cell can hold it as it is quoted (see [`CellParts::replace`]).
    /// The corrected value replaces the value between the spaces, so it
    /// does not overlap the fix that removes them.
    pub(super) fn writing(
        &self,
        finding: Finding,
        new: &str,
        applicability: Applicability,
    ) -> Finding {
        match self.parts.replace(new) {
            Some((span, content)) => finding.fix(
                FixBuilder::new(applicability, format!("write {}", quote(new))).edit(span, content),
            ),
            None => finding,
        }
    }

    /// File span of bytes `[from, to)` of the cell's unescaped value.
    pub(super) fn inner_span(&self, from: usize, to: usize) -> Range<usize> {
        let (a, b) = self.f.content();
        let raw = &self.data[a..b];
        a + raw_offset(raw, self.f.escapes, from)..a + raw_offset(raw, self.f.escapes, to)
    }
}
