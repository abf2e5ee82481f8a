//! What holds across the rows of a file: `[identity]` (columns that must
//! pair their values the same way on every row) and `[[unique]]` (values
//! that must not repeat). The checker folds them in `src/check/cross.rs`.

use super::columns::{ColumnId, Scope};
use super::error::TableError;
use super::trace::{Clause, Trace};
use crate::diagnostic::Severity;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawIdentity {
    columns: Vec<String>,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawUnique {
    columns: Vec<String>,
    #[serde(default)]
    severity: Option<Severity>,
    #[serde(default)]
    ignore_case: bool,
    reason: String,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

/// The identity columns of a format whose rows must pair them consistently.
/// Always three: the cross-row state stores, per value, the fingerprints of
/// its two partner columns (see `src/check/cross.rs`).
#[derive(Debug)]
pub(crate) struct Identity {
    pub(crate) columns: [ColumnId; 3],
    pub(crate) trace: Trace,
}

/// A column, or a composite of columns, whose value must not repeat.
#[derive(Debug)]
pub(crate) struct Unique {
    pub(crate) columns: Vec<ColumnId>,
    pub(crate) severity: Option<Severity>,
    pub(crate) ignore_case: bool,
    pub(crate) reason: String,
    pub(crate) trace: Trace,
}

pub(super) fn identity(
    scope: &Scope<'_>,
    raw: Option<RawIdentity>,
) -> Result<Option<Identity>, TableError> {
    let Some(i) = raw else { return Ok(None) };
    let ids = scope.distinct(&i.columns, "identity")?;
    let columns: [ColumnId; 3] = ids.try_into().map_err(|_| TableError::IdentityColumns {
        format: scope.format.to_owned(),
    })?;
    Ok(Some(Identity {
        columns,
        trace: Trace::new(i.spec, i.clause),
    }))
}

pub(super) fn unique(scope: &Scope<'_>, raw: Vec<RawUnique>) -> Result<Vec<Unique>, TableError> {
    raw.into_iter()
        .map(|u| {
            Ok(Unique {
                columns: scope.distinct(&u.columns, "unique")?,
                severity: u.severity,
                ignore_case: u.ignore_case,
                reason: u.reason,
                trace: Trace::new(u.spec, u.clause),
            })
        })
        .collect()
}
