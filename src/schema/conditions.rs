//! What a row must hold, column against column: the conditions rules
//! test, `[[requires]]` (cells that need others), `[[equal]]`,
//! `[[one_or_all]]` and `[[order]]` (two dates that must not be reversed).

use super::columns::{ColumnId, Scope};
use super::error::TableError;
use super::shape::Shape;
use super::trace::{Clause, Trace};
use crate::diagnostic::Severity;
use serde::Deserialize;

/// A state of a cell that a condition tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum CellState {
    /// The column is in the header and the cell is non-empty.
    Present,
    /// The column is absent or the cell is empty.
    Empty,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCondition {
    column: String,
    #[serde(default)]
    is: Option<CellState>,
    #[serde(default, rename = "in")]
    in_values: Option<Vec<String>>,
}

#[derive(Debug)]
pub(crate) enum Condition {
    Always,
    Present(ColumnId),
    Empty(ColumnId),
    In(ColumnId, Vec<String>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRequires {
    #[serde(default)]
    when: Option<RawCondition>,
    #[serde(default)]
    all: Vec<String>,
    #[serde(default)]
    any: Vec<String>,
    #[serde(default)]
    severity: Option<Severity>,
    reason: String,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

#[derive(Debug)]
pub(crate) struct Requires {
    pub(crate) when: Condition,
    pub(crate) all: Vec<ColumnId>,
    pub(crate) any: Vec<ColumnId>,
    pub(crate) severity: Option<Severity>,
    pub(crate) reason: String,
    pub(crate) trace: Trace,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEqual {
    column: String,
    to: String,
    #[serde(default)]
    ignore_case: bool,
    #[serde(default)]
    severity: Option<Severity>,
    reason: String,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

#[derive(Debug)]
pub(crate) struct Equal {
    pub(crate) column: ColumnId,
    pub(crate) to: ColumnId,
    pub(crate) ignore_case: bool,
    pub(crate) severity: Option<Severity>,
    pub(crate) reason: String,
    pub(crate) trace: Trace,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOneOrAll {
    columns: Vec<String>,
    #[serde(default)]
    severity: Option<Severity>,
    reason: String,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

#[derive(Debug)]
pub(crate) struct OneOrAll {
    pub(crate) columns: Vec<ColumnId>,
    pub(crate) severity: Option<Severity>,
    pub(crate) reason: String,
    pub(crate) trace: Trace,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOrder {
    earlier: String,
    later: String,
    #[serde(default)]
    severity: Option<Severity>,
    reason: String,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

/// Two date columns whose values must not be in reverse order.
#[derive(Debug)]
pub(crate) struct Order {
    pub(crate) earlier: ColumnId,
    pub(crate) later: ColumnId,
    pub(crate) severity: Option<Severity>,
    pub(crate) reason: String,
    pub(crate) trace: Trace,
}

/// Compiles a condition on a cell: exactly one state or set of values.
pub(super) fn condition(scope: &Scope<'_>, c: RawCondition) -> Result<Condition, TableError> {
    let id = scope.find(&c.column)?;
    match (c.is, c.in_values) {
        (Some(CellState::Present), None) => Ok(Condition::Present(id)),
        (Some(CellState::Empty), None) => Ok(Condition::Empty(id)),
        (None, Some(v)) if !v.is_empty() => Ok(Condition::In(id, v)),
        _ => Err(TableError::Condition {
            format: scope.format.to_owned(),
            column: c.column,
        }),
    }
}

fn find_all(scope: &Scope<'_>, names: &[String]) -> Result<Vec<ColumnId>, TableError> {
    names.iter().map(|n| scope.find(n)).collect()
}

pub(super) fn requires(
    scope: &Scope<'_>,
    raw: Vec<RawRequires>,
) -> Result<Vec<Requires>, TableError> {
    let mut requires = Vec::with_capacity(raw.len());
    for r in raw {
        let when = match r.when {
            None => Condition::Always,
            Some(c) => condition(scope, c)?,
        };
        if r.all.is_empty() == r.any.is_empty() {
            return Err(TableError::Requires {
                format: scope.format.to_owned(),
                reason: r.reason,
            });
        }
        requires.push(Requires {
            when,
            all: find_all(scope, &r.all)?,
            any: find_all(scope, &r.any)?,
            severity: r.severity,
            reason: r.reason,
            trace: Trace::new(r.spec, r.clause),
        });
    }
    Ok(requires)
}

pub(super) fn equal(scope: &Scope<'_>, raw: Vec<RawEqual>) -> Result<Vec<Equal>, TableError> {
    raw.into_iter()
        .map(|e| {
            Ok(Equal {
                column: scope.find(&e.column)?,
                to: scope.find(&e.to)?,
                ignore_case: e.ignore_case,
                severity: e.severity,
                reason: e.reason,
                trace: Trace::new(e.spec, e.clause),
            })
        })
        .collect()
}

pub(super) fn one_or_all(
    scope: &Scope<'_>,
    raw: Vec<RawOneOrAll>,
) -> Result<Vec<OneOrAll>, TableError> {
    raw.into_iter()
        .map(|o| {
            if o.columns.len() < 2 {
                return Err(TableError::OneOrAll {
                    format: scope.format.to_owned(),
                });
            }
            Ok(OneOrAll {
                columns: find_all(scope, &o.columns)?,
                severity: o.severity,
                reason: o.reason,
                trace: Trace::new(o.spec, o.clause),
            })
        })
        .collect()
}

/// Compiles the `[[order]]` pairs: two columns of one date shape, so that
/// their values compare as dates.
pub(super) fn order(scope: &Scope<'_>, raw: Vec<RawOrder>) -> Result<Vec<Order>, TableError> {
    let mut order = Vec::with_capacity(raw.len());
    for o in raw {
        let (earlier, later) = (scope.find(&o.earlier)?, scope.find(&o.later)?);
        let same = match (&scope.columns[earlier].shape, &scope.columns[later].shape) {
            (Shape::Date(a), Shape::Date(b)) => a == b,
            _ => false,
        };
        if !same {
            return Err(TableError::Order {
                format: scope.format.to_owned(),
                earlier: o.earlier,
                later: o.later,
            });
        }
        order.push(Order {
            earlier,
            later,
            severity: o.severity,
            reason: o.reason,
            trace: Trace::new(o.spec, o.clause),
        });
    }
    Ok(order)
}
