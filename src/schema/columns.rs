//! A table's `[[columns]]`: each column's name, whether the header and
//! the cells need it, its shape and the severities of its findings; and
//! the look-up by name through which every other part of a table names
//! its columns.

use super::error::TableError;
use super::shape::{Braces, Shape};
use super::trace::{Clause, Trace};
use crate::diagnostic::Severity;
use serde::Deserialize;

/// Whether a column must be in the header and filled on every row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Requirement {
    /// Missing from the header or empty in a row: error.
    Required,
    /// For a header only: the spec contradicts itself about the column, so
    /// a header without it is a warning.
    Recommended,
    Optional,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawColumn {
    name: String,
    #[serde(default = "optional")]
    requirement: Requirement,
    #[serde(default)]
    header: Option<Requirement>,
    #[serde(default)]
    shape: Option<String>,
    #[serde(default)]
    severity: Option<Severity>,
    #[serde(default)]
    values: Option<Vec<String>>,
    #[serde(default)]
    min: Option<i64>,
    #[serde(default)]
    max: Option<i64>,
    #[serde(default)]
    braces: Option<Braces>,
    #[serde(default)]
    repeat_severity: Option<Severity>,
    #[serde(default)]
    values_severity: Option<Severity>,
    #[serde(default)]
    range_severity: Option<Severity>,
    #[serde(default)]
    identifier: bool,
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    example: Option<String>,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

fn optional() -> Requirement {
    Requirement::Optional
}

#[derive(Debug)]
pub struct Column {
    pub name: String,
    /// `name` as compared with header names (see [`normalize_name`]).
    pub(crate) normalized: String,
    /// Whether cells must be filled.
    pub requirement: Requirement,
    /// Whether the header must name the column.
    pub header: Requirement,
    pub shape: Shape,
    /// Severity of shape findings on this column; `None` keeps the rule's.
    pub(crate) severity: Option<Severity>,
    /// Severity of a list element that repeats an earlier one; `None`
    /// keeps `severity`.
    pub(crate) repeat_severity: Option<Severity>,
    /// Severity of a list element that is not one of `values` (where the
    /// spec lists the values "used"); `None` keeps `severity`.
    pub(crate) values_severity: Option<Severity>,
    /// Severity of an integer outside `min..=max`; `None` keeps `severity`.
    pub(crate) range_severity: Option<Severity>,
    /// The cells are identifiers (IDs of records, people, entities): a
    /// spreadsheet that took one for a number loses digits
    /// (`scientific-notation-id`).
    pub(crate) identifier: bool,
    pub note: Option<String>,
    pub example: Option<String>,
    pub(crate) trace: Trace,
}

/// Columns are referred to by their index in `Table::columns`.
pub type ColumnId = usize;

/// Compiles the `[[columns]]`, in table order.
pub(super) fn columns(format: &str, raw: Vec<RawColumn>) -> Result<Vec<Column>, TableError> {
    let mut columns = Vec::with_capacity(raw.len());
    for c in raw {
        if columns.iter().any(|k: &Column| k.name == c.name) {
            return Err(TableError::ColumnTwice {
                format: format.to_owned(),
                column: c.name,
            });
        }
        columns.push(column(format, c)?);
    }
    Ok(columns)
}

/// Compiles one column: its shape, and the keys that only some
/// requirements and shapes take.
fn column(format: &str, c: RawColumn) -> Result<Column, TableError> {
    let shape = match Shape::compile(
        c.shape.as_deref().unwrap_or("text"),
        c.values,
        c.min,
        c.max,
        c.braces,
    ) {
        Ok(shape) => shape,
        Err(source) => {
            return Err(TableError::Shape {
                format: format.to_owned(),
                column: c.name,
                source,
            })
        }
    };
    // A cell the spec requires is required; one it is unsure about
    // is optional. Only a header may be `recommended` (Filters
    // `Status`, where the spec contradicts itself about the column).
    let misfit = if c.requirement == Requirement::Recommended {
        Some("`requirement` is `required` or `optional`; only `header` may be `recommended`")
    } else if (c.repeat_severity.is_some() || c.values_severity.is_some())
        && !matches!(shape, Shape::List { .. })
    {
        Some("only a list takes `repeat_severity` or `values_severity`")
    } else if c.identifier && shape != Shape::Text {
        Some("only a text column takes `identifier`")
    } else if c.range_severity.is_some() && !matches!(shape, Shape::Integer { .. }) {
        Some("only an integer takes `range_severity`")
    } else {
        None
    };
    if let Some(reason) = misfit {
        return Err(TableError::Column {
            format: format.to_owned(),
            column: c.name,
            reason,
        });
    }
    Ok(Column {
        normalized: normalize_name(&c.name),
        header: c.header.unwrap_or(c.requirement),
        name: c.name,
        requirement: c.requirement,
        shape,
        severity: c.severity,
        repeat_severity: c.repeat_severity,
        values_severity: c.values_severity,
        range_severity: c.range_severity,
        identifier: c.identifier,
        note: c.note,
        example: c.example,
        trace: Trace::new(c.spec, c.clause),
    })
}

/// A table's compiled columns, as the other parts of the table name them:
/// each part resolves its column names here, and its errors name the file.
pub(super) struct Scope<'a> {
    pub(crate) format: &'a str,
    pub(crate) columns: &'a [Column],
}

impl Scope<'_> {
    /// The column a condition or a row rule names.
    pub(crate) fn find(&self, name: &str) -> Result<ColumnId, TableError> {
        self.position(name)
            .ok_or_else(|| TableError::UnknownColumn {
                format: self.format.to_owned(),
                column: name.to_owned(),
            })
    }

    pub(crate) fn position(&self, name: &str) -> Option<ColumnId> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// Resolves a non-empty list of distinct column names of a `key`
    /// section (`identity`, `unique`).
    pub(crate) fn distinct(
        &self,
        names: &[String],
        key: &'static str,
    ) -> Result<Vec<ColumnId>, TableError> {
        let format = || self.format.to_owned();
        if names.is_empty() {
            return Err(TableError::NoColumns {
                format: format(),
                key,
            });
        }
        let mut ids = Vec::with_capacity(names.len());
        for n in names {
            let id = self
                .position(n)
                .ok_or_else(|| TableError::UnknownColumnIn {
                    format: format(),
                    key,
                    column: n.clone(),
                })?;
            if ids.contains(&id) {
                return Err(TableError::ColumnTwiceIn {
                    format: format(),
                    key,
                    column: n.clone(),
                });
            }
            ids.push(id);
        }
        Ok(ids)
    }
}

/// The form in which header names are compared for near misses: trimmed,
/// without a trailing `*` (published templates mark required columns so),
/// lowercased, inner whitespace runs collapsed to one space.
pub fn normalize_name(name: &str) -> String {
    let name = name.trim();
    let name = name.strip_suffix('*').unwrap_or(name).trim_end();
    let mut out = String::with_capacity(name.len());
    for word in name.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&word.to_lowercase());
    }
    out
}
