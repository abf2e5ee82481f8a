//! The target side of every reference, once all tables are parsed: so
//! that tables may refer to each other without parsing one another.

use super::error::TableError;
use super::table::Table;

/// Validates the target side of every reference once all tables are
/// parsed: the key column is one the target declares (or, with
/// `undeclared_key`, one it does not), and `gone` names a target column.
pub(super) fn link(tables: &[&Table]) -> Result<(), TableError> {
    for t in tables {
        for r in &t.references {
            let err = |reason: String| TableError::Reference {
                format: t.name.clone(),
                column: t.columns[r.column].name.clone(),
                reason,
            };
            let target = tables
                .iter()
                .find(|x| x.name == r.target)
                .ok_or_else(|| err(format!("no format {:?} to refer to", r.target)))?;
            match (target.column(&r.key).is_some(), r.undeclared_key) {
                (true, false) | (false, true) => {}
                (false, false) => {
                    return Err(err(format!(
                        "{} has no column {:?} (a key it does not declare needs `undeclared_key = true`)",
                        r.target, r.key
                    )))
                }
                (true, true) => {
                    return Err(err(format!(
                        "{} declares {:?}: drop `undeclared_key`",
                        r.target, r.key
                    )))
                }
            }
            if let Some(k) = &r.type_key {
                if target.column(k).is_none() {
                    return Err(err(format!(
                        "`type_key` names {k:?}, which {} has no column of",
                        r.target
                    )));
                }
            }
            if let Some(g) = &r.gone {
                if target.column(&g.column).is_none() {
                    return Err(err(format!(
                        "`gone` names {:?}, which {} has no column of",
                        g.column, r.target
                    )));
                }
            }
        }
    }
    Ok(())
}
