//! One cell's check: an empty required cell, a spreadsheet's error value,
//! spaces around the value, then the check of its shape's family.

use super::at::CellAt;
use super::cells::Cells;
use super::list_cells::{check_list, list_is_clean};
use super::plan::Plan;
use super::{enum_cells, id_cells, scalar_cells};
use crate::check::finding::Finding;
use crate::check::{cell_edits, emit::Emitter, shapes, sheet};
use crate::rules;
use crate::scan::FieldSpan;
use crate::schema::{ColumnId, Requirement, Shape};

impl Plan {
    /// Checks field `i`, of column `c`, on its own: filled if required, no
    /// spreadsheet's error value, no spaces around it, then its shape, by
    /// the check of the shape's family. The quick path sends here only
    /// the cells it could not tell clean.
    pub(super) fn check_cell(
        &self,
        data: &[u8],
        f: &FieldSpan,
        i: usize,
        c: ColumnId,
        cells: &Cells<'_>,
        emit: &mut Emitter<'_>,
    ) {
        let col = &self.table.columns[c];
        if !cells.is_filled(i) {
            match col.requirement {
                Requirement::Required => emit.report_in(
                    f.start..f.end,
                    f,
                    Finding::new(
                        &rules::EMPTY_REQUIRED_CELL,
                        format!("`{}` is required but empty", col.name),
                    )
                    .column(self.name(i))
                    .help(fill_help(col)),
                ),
                // Tables never mark cells `recommended` (see Table::parse).
                Requirement::Recommended | Requirement::Optional => {}
            }
            return;
        }
        // A spreadsheet's error value takes the place of the shape's own
        // finding (free text is looked at in `check_text_cells`).
        if col.shape != Shape::Text {
            let whole = match col.shape {
                Shape::Json(_) => cells.raw(i, f),
                _ => cells.value(i),
            };
            if let Some(v) = whole.map(shapes::trim).filter(|v| sheet::is_error_value(v)) {
                self.report_error_value(f, i, &col.name, v, emit);
                return;
            }
        }
        if let Shape::Json(kind) = col.shape {
            // Parsed as it stands in the file, `""` escapes and all: no
            // unescaped copy, and its offsets are the file's.
            if let Some(raw) = cells.raw(i, f) {
                self.check_json(f, i, raw, kind, col.severity, cells, emit);
            }
            return;
        }
        if col.shape == Shape::Text {
            return;
        }
        let Some(value) = cells.value(i) else {
            return;
        };
        let trimmed = shapes::trim(value);
        // Where `trimmed` starts within the unescaped value.
        let lead = if trimmed.len() == value.len() {
            0
        } else {
            value.len() - value.trim_start().len()
        };
        // JSON (checked above) ignores whitespace around values; every other
        // shape is read as the exact text.
        let at = CellAt {
            data,
            f,
            name: &self.map.names[i],
            col,
            parts: cell_edits::CellParts::of(f, value, trimmed),
        };
        if trimmed.len() != value.len() {
            at.surrounding_whitespace(value, trimmed, emit);
        }
        let v = trimmed;
        match &col.shape {
            Shape::Text => {}
            Shape::Email => id_cells::check_email(&at, v, emit),
            Shape::Date(d) => self.check_date(&at, *d, c, v, emit),
            Shape::Bool(spelling) => {
                scalar_cells::check_bool(&at, &self.table.name, *spelling, v, emit);
            }
            Shape::Integer { min, max } => scalar_cells::check_integer(&at, *min, *max, v, emit),
            Shape::Enum(values) => enum_cells::check_enum(&at, values, v, emit),
            Shape::List { values, braces } => {
                // Nearly every list cell is clean, and `check_list` costs
                // ~60 instructions of set-up before it looks at a byte.
                if !list_is_clean(v.as_bytes(), values.as_deref(), *braces) {
                    check_list(&at, v, lead, values.as_deref(), *braces, emit);
                }
            }
            Shape::IntegrationRef => id_cells::check_integration_ref(&at, v, emit),
            Shape::Brn => id_cells::check_brn(&at, v, emit),
            Shape::Url => id_cells::check_url(&at, v, emit),
            // Checked above, on the raw cell.
            Shape::Json(_) => {}
        }
    }
}

fn fill_help(col: &crate::schema::Column) -> String {
    if col.shape == Shape::Text {
        format!("fill in `{}`", col.name)
    } else {
        format!("fill in `{}` with {}", col.name, col.shape.describe())
    }
}
