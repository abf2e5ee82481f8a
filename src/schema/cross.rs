//! What holds across the rows of a file: `[identity]` (columns that must
//! pair their values the same way on every row), `[[unique]]` (values
//! that must not repeat) and `[[exclusive]]` (two kinds of row that one
//! file cannot hold under one key). The checker folds them in
//! `src/check/cross.rs`.

use super::columns::{ColumnId, Scope};
use super::conditions::{condition, Condition, RawCondition};
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSide {
    when: Vec<RawCondition>,
    does: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawExclusive {
    key: Vec<String>,
    first: RawSide,
    second: RawSide,
    reason: String,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

/// One kind of row of an [`Exclusive`]: rows where every condition holds.
#[derive(Debug)]
pub(crate) struct Side {
    pub(crate) when: Vec<Condition>,
    /// What such a row does, for messages: `creating a review`.
    pub(crate) does: String,
}

/// Two kinds of row that one file cannot hold under the same key (a
/// review created and a review's status changed under one campaign): the
/// key is the first filled of `key`'s columns, and a row of one kind under
/// a key an earlier row of the other kind named is an error.
#[derive(Debug)]
pub(crate) struct Exclusive {
    pub(crate) key: Vec<ColumnId>,
    pub(crate) sides: [Side; 2],
    pub(crate) reason: String,
    pub(crate) trace: Trace,
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

pub(super) fn exclusive(
    scope: &Scope<'_>,
    raw: Vec<RawExclusive>,
) -> Result<Vec<Exclusive>, TableError> {
    let side = |s: RawSide| -> Result<Side, TableError> {
        if s.when.is_empty() {
            return Err(TableError::NoColumns {
                format: scope.format.to_owned(),
                key: "exclusive",
            });
        }
        Ok(Side {
            when: s
                .when
                .into_iter()
                .map(|c| condition(scope, c))
                .collect::<Result<_, _>>()?,
            does: s.does,
        })
    };
    raw.into_iter()
        .map(|e| {
            Ok(Exclusive {
                key: scope.distinct(&e.key, "exclusive")?,
                sides: [side(e.first)?, side(e.second)?],
                reason: e.reason,
                trace: Trace::new(e.spec, e.clause),
            })
        })
        .collect()
}
