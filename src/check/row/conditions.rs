//! Conditions between the cells of a row: requirements (a column needed
//! when another is filled, empty or has a value), equal pairs, groups
//! filled one or all, and dates in order.

use super::cells::Cells;
use super::plan::{column_list, Plan};
use crate::check::emit::Emitter;
use crate::check::finding::Finding;
use crate::check::shapes;
use crate::check::text::quote;
use crate::diagnostic::Related;
use crate::rules;
use crate::scan::Record;
use crate::schema::{ColumnId, Condition, Shape};

impl Plan {
    /// Date pairs that must not be in reverse order. Cells that are empty
    /// or not dates are left to their own findings.
    // Out of line, like `check_conditions`: most formats have no ordered
    // columns, and `check_record` stays small without it.
    #[inline(never)]
    pub(super) fn check_order(&self, rec: &Record, cells: &Cells<'_>, emit: &mut Emitter<'_>) {
        for o in &self.table.order {
            let (Some(ei), Some(li)) = (self.map.col_field[o.earlier], self.map.col_field[o.later])
            else {
                continue;
            };
            let Shape::Date(shape) = self.table.columns[o.earlier].shape else {
                continue;
            };
            let (Some(a), Some(b)) = (self.value(cells, o.earlier), self.value(cells, o.later))
            else {
                continue;
            };
            let ok = |v: &str| shapes::check_date(shape, v).is_ok();
            if a.is_empty() || b.is_empty() || !ok(a) || !ok(b) {
                continue;
            }
            let (Some(x), Some(y)) = (shapes::instant(shape, a), shapes::instant(shape, b)) else {
                continue;
            };
            if x > y {
                let (ename, lname) = (
                    &self.table.columns[o.earlier].name,
                    &self.table.columns[o.later].name,
                );
                let f = &rec.fields[ei];
                let mut finding = Finding::new(
                    &rules::DATE_ORDER,
                    format!(
                        "`{ename}` {} is after `{lname}` {}: {}",
                        quote(a),
                        quote(b),
                        o.reason
                    ),
                )
                .severity(o.severity)
                .column(self.name(ei))
                .help(format!("swap the dates, or correct `{ename}` or `{lname}`"));
                let lf = &rec.fields[li];
                finding.related.push(Related {
                    line: lf.line,
                    column: Some(self.map.names[li].clone()),
                    message: format!("`{lname}` is {}", quote(b)),
                });
                emit.report_in(f.start..f.end, f, finding);
            }
        }
    }

    // Out of line: `check_record` calls it only for a row that may fail a
    // requirement, or a format with equal or grouped columns.
    #[inline(never)]
    pub(super) fn check_conditions(&self, rec: &Record, cells: &Cells<'_>, emit: &mut Emitter<'_>) {
        let t = self.table;
        let cname = |c: ColumnId| t.columns[c].name.as_str();
        let filled = cells.filled_cols;
        // Nearly every row meets every requirement: one pass over the masks
        // alone, without walking the requirements beside them.
        let requires = if self.all_met(filled) {
            &t.requires[..0]
        } else {
            &t.requires[..]
        };
        for (r, quick) in requires.iter().zip(&self.quick) {
            if quick.met(filled) {
                continue;
            }
            // Most rows pass: decide first, and only format the reason
            // (which allocates) for a row that has a finding.
            let holds = match &r.when {
                Condition::Always => true,
                Condition::Present(c) => self.filled(cells, *c),
                Condition::Empty(c) => !self.filled(cells, *c),
                Condition::In(c, vals) => self
                    .value(cells, *c)
                    .is_some_and(|v| vals.iter().any(|x| x == v)),
            };
            if !holds {
                continue;
            }
            let because_text = || match &r.when {
                Condition::Always => String::new(),
                Condition::Present(c) => format!(" although `{}` is filled", cname(*c)),
                Condition::Empty(c) => format!(" although `{}` is empty", cname(*c)),
                Condition::In(c, _) => format!(
                    " although `{}` is `{}`",
                    cname(*c),
                    self.value(cells, *c).unwrap_or_default()
                ),
            };
            if !r.any.is_empty() {
                if !r.any.iter().any(|c| self.filled(cells, *c)) {
                    let list = column_list(t, &r.any);
                    emit.report_row(
                        rec,
                        Finding::new(
                            &rules::MISSING_ONE_OF,
                            format!("none of {list} is filled{}: {}", because_text(), r.reason),
                        )
                        .severity(r.severity)
                        .help(format!("fill at least one of {list}")),
                    );
                }
                continue;
            }
            let mut absent = Vec::new();
            for &c in &r.all {
                if self.filled(cells, c) {
                    continue;
                }
                match self.map.col_field[c] {
                    Some(i) => {
                        let f = &rec.fields[i];
                        emit.report_in(
                            f.start..f.end,
                            f,
                            Finding::new(
                                &rules::MISSING_DEPENDENT_VALUE,
                                format!("`{}` is empty{}: {}", cname(c), because_text(), r.reason),
                            )
                            .severity(r.severity)
                            .column(self.name(i))
                            .help(format!("fill in `{}`", cname(c))),
                        );
                    }
                    None => absent.push(format!("`{}`", cname(c))),
                }
            }
            if !absent.is_empty() {
                let list = absent.join(", ");
                emit.report_row(
                    rec,
                    Finding::new(
                        &rules::MISSING_DEPENDENT_VALUE,
                        format!(
                            "this row needs {list}{}, but the header has no such column: {}",
                            because_text(),
                            r.reason
                        ),
                    )
                    .severity(r.severity)
                    .help(format!(
                        "add {list} to the header and fill them on this row"
                    ))
                    .once_per_file(),
                );
            }
        }
        for e in &t.equal {
            let (Some(a), Some(b)) = (self.value(cells, e.column), self.value(cells, e.to)) else {
                continue;
            };
            if a.is_empty() || b.is_empty() {
                continue;
            }
            let same = if e.ignore_case {
                a.chars()
                    .flat_map(char::to_lowercase)
                    .eq(b.chars().flat_map(char::to_lowercase))
            } else {
                a == b
            };
            if same && e.ignore_case && a != b {
                // Equal only without case: whether the platform compares
                // so is not stated, so a warning, as the entitlements'
                // e-mails that differ only in case (issue 30).
                let i = self.map.col_field[e.column].expect("value() found it");
                let f = &rec.fields[i];
                emit.report_in(
                    f.start..f.end,
                    f,
                    Finding::new(
                        &rules::MISMATCHED_VALUES,
                        format!(
                            "`{}` {} equals `{}` {} only without case: the spec does not say whether the platform compares them without case ({})",
                            cname(e.column),
                            quote(a),
                            cname(e.to),
                            quote(b),
                            e.reason
                        ),
                    )
                    .severity(Some(crate::diagnostic::Severity::Warning))
                    .column(self.name(i))
                    .help(format!(
                        "write `{}` exactly as `{}`",
                        cname(e.column),
                        cname(e.to)
                    )),
                );
                continue;
            }
            if !same {
                let i = self.map.col_field[e.column].expect("value() found it");
                let f = &rec.fields[i];
                emit.report_in(
                    f.start..f.end,
                    f,
                    Finding::new(
                        &rules::MISMATCHED_VALUES,
                        format!(
                            "`{}` is {} but `{}` is {}: {}",
                            cname(e.column),
                            quote(a),
                            cname(e.to),
                            quote(b),
                            e.reason
                        ),
                    )
                    .severity(e.severity)
                    .column(self.name(i))
                    .help(format!(
                        "make `{}` equal to `{}`",
                        cname(e.column),
                        cname(e.to)
                    )),
                );
            }
        }
        for g in &t.one_or_all {
            let n = g.columns.iter().filter(|c| self.filled(cells, **c)).count();
            if n > 1 && n < g.columns.len() {
                let list = column_list(t, &g.columns);
                emit.report_row(
                    rec,
                    Finding::new(
                        &rules::PARTIAL_COLUMN_GROUP,
                        format!("{n} of {list} are filled: {}", g.reason),
                    )
                    .severity(g.severity)
                    .help(format!("fill exactly one of {list}, or all of them")),
                );
            }
        }
    }
}
