//! The row plan: a table compiled against a file's header once (column
//! indexes, the fields each check reads, quick cell checks, requirement
//! masks), and what every row check reads of it.

use super::cells::Cells;
use super::masks::{column_bit, Quick, QuickTable};
use super::quick::QuickCell;
use crate::check::dates::DateOrders;
use crate::check::emit::Emitter;
use crate::check::finding::Finding;
use crate::check::header::{map_columns, Header, Mapping};
use crate::rules;
use crate::scan::Record;
use crate::schema::shape::DateShape;
use crate::schema::{ColumnId, Condition, Grammar, Requirement, Shape, Table};
use std::sync::Arc;

/// Everything resolved once per file.
pub struct Plan {
    pub(super) table: &'static Table,
    pub(super) width: usize,
    pub(super) map: Mapping,
    /// The fields whose cells need checking on their own, with their
    /// columns and quick checks: not the unknown columns nor optional free
    /// text, which any value fits. A list of those alone, since most fields
    /// are neither.
    pub(super) checked: Vec<(usize, ColumnId, QuickCell)>,
    /// By field: its column's bit in `Cells::filled_cols` (0 for none).
    pub(super) field_bits: Vec<u64>,
    /// By field: whether any check reads its decoded value. A cell nobody
    /// reads (JSON, which is parsed as it stands in the file; free text;
    /// an unknown column) keeps its `""` escapes: no unescaped copy.
    pub(super) reads_value: Vec<bool>,
    /// The fields of free-text columns, with their columns: checked for
    /// what a spreadsheet leaves (`check_text_cells`) when a record's
    /// `Cells::suspicious` says one may start like a formula or an error
    /// value.
    pub(super) text_fields: Vec<(usize, ColumnId)>,
    /// Those of identifier columns, whose every cell is looked at for an
    /// exponent (`5.83231E+11`).
    pub(super) id_fields: Vec<usize>,
    /// By requirement: how to tell cheaply that a row meets it.
    pub(super) quick: Vec<Quick>,
    /// All of `quick` at once, when the masks allow it.
    quick_all: Option<QuickTable>,
    /// [`crate::check::Options::date_orders`]: the order of day and month in
    /// each date column, when the whole file is known.
    pub(super) date_orders: Option<Arc<DateOrders>>,
}

impl Plan {
    pub(crate) fn new(
        table: &'static Table,
        header: &Header,
        data: &[u8],
        rec: &Record,
        emit: &mut Emitter<'_>,
    ) -> Plan {
        let map = map_columns(table, header, data, rec, emit);
        // Requirements the header already fails for every row are reported
        // once on the header and skipped on rows.
        let settled: Vec<bool> = table
            .requires
            .iter()
            .map(|r| {
                let hopeless = matches!(r.when, Condition::Always)
                    && !r.any.is_empty()
                    && r.any.iter().all(|c| map.col_field[*c].is_none());
                if hopeless {
                    let list = column_list(table, &r.any);
                    emit.report_row(
                        rec,
                        Finding::new(
                            &rules::MISSING_ONE_OF,
                            format!("the header has none of {list}: {}", r.reason),
                        )
                        .severity(r.severity)
                        .help(format!(
                            "add at least one of {list} and fill it on every row"
                        )),
                    );
                }
                hopeless
            })
            .collect();
        let checked = map
            .field_col
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                c.filter(|&c| {
                    let col = &table.columns[c];
                    col.shape != Shape::Text || col.requirement != Requirement::Optional
                })
                .map(|c| (i, c, QuickCell::of(&table.columns[c].shape)))
            })
            .collect();
        let text_fields: Vec<(usize, ColumnId)> = map
            .field_col
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                c.filter(|&c| table.columns[c].shape == Shape::Text)
                    .map(|c| (i, c))
            })
            .collect();
        let id_fields = text_fields
            .iter()
            .filter(|&&(_, c)| table.columns[c].identifier)
            .map(|&(i, _)| i)
            .collect();
        let field_bits = map
            .field_col
            .iter()
            .map(|c| c.map_or(0, column_bit))
            .collect();
        let quick: Vec<Quick> = table
            .requires
            .iter()
            .zip(&settled)
            .map(|(r, &settled)| Quick::compile(r, settled))
            .collect();
        let quick_all = QuickTable::new(&quick);
        let read = value_readers(table);
        let reads_value = map
            .field_col
            .iter()
            .map(|c| {
                c.is_some_and(|c| {
                    let shape = &table.columns[c].shape;
                    read[c] || !matches!(shape, Shape::Text | Shape::Json(_))
                })
            })
            .collect();
        Plan {
            table,
            width: header.names.len(),
            map,
            checked,
            text_fields,
            id_fields,
            field_bits,
            reads_value,
            quick,
            quick_all,
            date_orders: None,
        }
    }

    /// Gives the plan the order of day and month in each date column,
    /// known up front ([`crate::check::Options::date_orders`]). An `MM/DD/YYYY`
    /// column whose valid cells that read as two dates are read by its
    /// order (`day-first-date`) takes the full check on every cell, where such
    /// a cell is looked at: only a file with day-first cells pays for it.
    pub(crate) fn set_date_orders(&mut self, orders: Option<Arc<DateOrders>>) {
        if let Some(o) = &orders {
            for (_, c, quick) in &mut self.checked {
                if matches!(quick, QuickCell::Date(DateShape::Mdy)) && o.reads_valid(*c).is_some() {
                    *quick = QuickCell::Full;
                }
            }
        }
        self.date_orders = orders;
    }

    pub(super) fn name(&self, field: usize) -> Option<Arc<str>> {
        Some(self.map.names[field].clone())
    }

    /// Whether a row with these filled columns surely meets every
    /// requirement (false: look closer).
    #[inline(always)]
    pub(super) fn all_met(&self, filled: u64) -> bool {
        match &self.quick_all {
            Some(table) => table.all_met(filled),
            None => self.quick.iter().all(|q| q.met(filled)),
        }
    }

    /// The field that holds column `c`, if the header names it.
    pub(crate) fn field_of(&self, c: ColumnId) -> Option<usize> {
        self.map.col_field[c]
    }

    /// Header names by field, as diagnostics name them.
    pub(crate) fn field_names(&self) -> &[Arc<str>] {
        &self.map.names
    }

    /// Whether a row condition holds.
    pub(super) fn holds(&self, cells: &Cells<'_>, cond: &Condition) -> bool {
        match cond {
            Condition::Always => true,
            Condition::Present(c) => self.filled(cells, *c),
            Condition::Empty(c) => !self.filled(cells, *c),
            Condition::In(c, vals) => self
                .value(cells, *c)
                .is_some_and(|v| vals.iter().any(|x| x == v)),
        }
    }

    pub(super) fn filled(&self, cells: &Cells<'_>, c: ColumnId) -> bool {
        self.map.col_field[c].is_some_and(|i| cells.is_filled(i))
    }

    pub(super) fn value<'c>(&self, cells: &'c Cells<'_>, c: ColumnId) -> Option<&'c str> {
        let i = self.map.col_field[c]?;
        cells.value(i).map(str::trim)
    }
}

/// By column: whether a check other than the column's own cell check
/// reads its decoded value (conditions on values, equal and ordered pairs,
/// the filter type, identity and unique keys). Conditions on being filled
/// only need `Cells::is_filled`.
fn value_readers(table: &Table) -> Vec<bool> {
    let mut read = vec![false; table.columns.len()];
    let mut mark = |c: ColumnId| {
        if let Some(r) = read.get_mut(c) {
            *r = true;
        }
    };
    for cond in table
        .requires
        .iter()
        .map(|r| &r.when)
        .chain(table.json.iter().flat_map(|j| &j.when))
    {
        if let Condition::In(c, _) = cond {
            mark(*c);
        }
    }
    for j in &table.json {
        if let Grammar::Filter { type_column } = j.grammar {
            mark(type_column);
        }
    }
    for e in &table.equal {
        mark(e.column);
        mark(e.to);
    }
    for o in &table.order {
        mark(o.earlier);
        mark(o.later);
    }
    for c in table.identity.iter().flat_map(|id| id.columns) {
        mark(c);
    }
    for c in table.unique.iter().flat_map(|u| u.columns.iter().copied()) {
        mark(c);
    }
    for e in &table.exclusive {
        for &c in &e.key {
            mark(c);
        }
        for cond in e.sides.iter().flat_map(|s| &s.when) {
            if let Condition::In(c, _) = cond {
                mark(*c);
            }
        }
    }
    read
}

/// `` `A`, `B`, `C` `` for messages.
pub(super) fn column_list(table: &Table, cols: &[ColumnId]) -> String {
    cols.iter()
        .map(|c| format!("`{}`", table.columns[*c].name))
        .collect::<Vec<_>>()
        .join(", ")
}
