//! What a spreadsheet leaves in cells: error values in any column, and in
//! free text IDs in scientific notation and formulas.

use super::at::CellAt;
use super::cells::Cells;
use super::plan::Plan;
use crate::check::cell_edits::CellParts;
use crate::check::emit::Emitter;
use crate::check::finding::Finding;
use crate::check::text::quote;
use crate::check::{shapes, sheet};
use crate::rules;
use crate::scan::{FieldSpan, Record};

impl Plan {
    /// What a spreadsheet leaves in free-text cells: error values, IDs in
    /// scientific notation, formulas. Out of line: few records get here.
    #[inline(never)]
    pub(super) fn check_text_cells(
        &self,
        data: &[u8],
        rec: &Record,
        cells: &Cells<'_>,
        emit: &mut Emitter<'_>,
    ) {
        for &(i, c) in &self.text_fields {
            let f = &rec.fields[i];
            // A cell nobody else reads keeps its `""` escapes; none of what
            // is looked for here starts with or holds a quote.
            let Some(v) = cells.text(i, f).filter(|_| cells.is_filled(i)) else {
                continue;
            };
            let col = &self.table.columns[c];
            // As it stands, unv: what the quick tests of
            // `check_record` see (the first byte, the last ones), so that
            // a record's findings do not depend on the way it was decoded.
            if sheet::is_error_value(v) {
                self.report_error_value(f, i, &col.name, v, emit);
            } else if let Some(sci) = col.identifier.then(|| sheet::scientific(v)).flatten() {
                let (message, help) = match (sci.exact, sci.digits) {
                    (Some(exact), _) => (
                        format!(
                            "{} is the ID `{exact}` written as a number in scientific notation by a spreadsheet",
                            quote(v)
                        ),
                        format!("write `{exact}`; format the column as text in the spreadsheet so that it keeps IDs as they are"),
                    ),
                    (None, Some(digits)) => (
                        format!(
                            "{}: a spreadsheet turned this ID into a number; the digits after {} significant places are lost (the ID had {digits} digits)",
                            quote(v),
                            sci.kept
                        ),
                        "export the IDs again from their source, and format the column as text before the file goes through a spreadsheet".into(),
                    ),
                    (None, None) => (
                        format!(
                            "{}: a spreadsheet turned this ID into a number in scientific notation",
                            quote(v)
                        ),
                        "export the IDs again from their source, and format the column as text before the file goes through a spreadsheet".into(),
                    ),
                };
                emit.report_in(
                    f.start..f.end,
                    f,
                    Finding::new(&rules::SCIENTIFIC_NOTATION_ID, message)
                        .column(self.name(i))
                        .help(help),
                );
            } else if sheet::is_formula_like(v) {
                let first = match v.as_bytes()[0] {
                    b'\t' => "a TAB".to_owned(),
                    b'\r' => "a CARRIAGE RETURN".to_owned(),
                    b => format!("`{}`", char::from(b)),
                };
                emit.report_in(
                    f.start..f.end,
                    f,
                    Finding::new(
                        &rules::FORMULA_LIKE_CELL,
                        format!(
                            "{} starts with {first}: a spreadsheet that opens the file runs it as a formula",
                            quote(v)
                        ),
                    )
                    .column(self.name(i))
                    .help("remove the leading character if it is not meant; if it is, start the cell with a single quote (`'`), which spreadsheets show as text"),
                );
            }
            // An identifier is matched as written: ` 1001 ` is not `1001`
            // to whatever compares it (bdxlint's own cross-row and
            // reference checks compare trimmed, which hid it).
            if col.identifier {
                let trimmed = shapes::trim(v);
                if trimmed.len() != v.len() {
                    let at = CellAt {
                        data,
                        f,
                        name: &self.map.names[i],
                        col,
                        parts: CellParts::of(f, v, trimmed),
                    };
                    at.surrounding_whitespace(v, trimmed, emit);
                }
            }
        }
    }

    /// A spreadsheet's error value in cell `i`, whatever its column.
    pub(super) fn report_error_value(
        &self,
        f: &FieldSpan,
        i: usize,
        column: &str,
        v: &str,
        emit: &mut Emitter<'_>,
    ) {
        emit.report_in(
            f.start..f.end,
            f,
            Finding::new(
                &rules::SPREADSHEET_ERROR,
                format!(
                    "{} is a spreadsheet's error value, not a value of `{column}`: the formula that should have filled the cell failed",
                    quote(v)
                ),
            )
            .column(self.name(i))
            .help("correct the formula, or write the value itself, and export again; the value this row needs is not in the file"),
        );
    }
}
