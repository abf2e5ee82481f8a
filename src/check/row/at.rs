//! Where the findings of one cell's shape check point, and how its fixes
//! write: what every family of cell checks shares.

use crate::check::cell_edits::CellParts;
use crate::check::text::quote;
use crate::check::Emitter;
use crate::diagnostic::{Applicability, Severity};
use crate::rules::Rule;
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
    /// A finding on the whole cell.
    pub(super) fn report(
        &self,
        emit: &mut Emitter<'_>,
        rule: &'static Rule,
        severity: Option<Severity>,
        message: String,
        help: String,
    ) {
        let f = self.f;
        self.report_span(emit, rule, severity, f.start..f.end, message, help);
    }

    /// A finding on `span` (file offsets), a part of the cell.
    pub(super) fn report_span(
        &self,
        emit: &mut Emitter<'_>,
        rule: &'static Rule,
        severity: Option<Severity>,
        span: Range<usize>,
        message: String,
        help: String,
    ) {
        emit.in_field(
            rule,
            severity,
            span,
            self.f,
            Some(self.name.clone()),
            message,
            Some(help),
        );
    }

    /// Gives the last finding the fix that writes `new` in place of the
    /// value. The corrected value replaces the value between the spaces, so
    /// it does not overlap the fix that removes them.
    pub(super) fn fix(&self, emit: &mut Emitter<'_>, new: &str, applicability: Applicability) {
        if let Some(edit) = self.parts.replace(new) {
            emit.fix_last(applicability, format!("write {}", quote(new)), vec![edit]);
        }
    }

    /// File span of bytes `[from, to)` of the cell's unescaped value.
    pub(super) fn inner_span(&self, from: usize, to: usize) -> Range<usize> {
        let (a, b) = self.f.content();
        let raw = &self.data[a..b];
        a + raw_offset(raw, self.f.escapes, from)..a + raw_offset(raw, self.f.escapes, to)
    }
}
