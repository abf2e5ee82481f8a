//! Numbers and booleans: integers within their column's range, and the two
//! words of a format's boolean spelling.

use super::at::CellAt;
use crate::check::shapes;
use crate::check::text::quote;
use crate::check::Emitter;
use crate::diagnostic::Applicability;
use crate::rules;
use crate::schema::shape::BoolSpelling;

/// Boolean cell `v` (trimmed), spelt as `spelling` says in format `format`.
pub(super) fn check_bool(
    at: &CellAt<'_>,
    format: &str,
    spelling: BoolSpelling,
    v: &str,
    emit: &mut Emitter<'_>,
) {
    let (t, fa) = spelling.words();
    if v == t || v == fa {
    } else if let Some(right) = shapes::bool_case_variant(v, spelling) {
        at.report(
            emit,
            &rules::BOOLEAN_CASE,
            None,
            format!("{} is spelt `{right}` in the {format} format", quote(v)),
            format!("write `{right}`"),
        );
        at.fix(emit, right, Applicability::Safe);
    } else {
        at.report(
            emit,
            &rules::INVALID_BOOLEAN,
            at.col.severity,
            format!("{} is not `{t}` or `{fa}`", quote(v)),
            format!("write `{t}` or `{fa}`"),
        );
    }
}

/// Integer cell `v` (trimmed), within `min` and `max` where they are set.
pub(super) fn check_integer(
    at: &CellAt<'_>,
    min: Option<i64>,
    max: Option<i64>,
    v: &str,
    emit: &mut Emitter<'_>,
) {
    let col = at.col;
    let sev = col.severity;
    match shapes::parse_integer(v) {
        Err(shapes::IntError::NotInteger) => at.report(
            emit,
            &rules::INVALID_INTEGER,
            sev,
            format!("{} is not an integer", quote(v)),
            format!("write `{}` as an {}", col.name, col.shape.describe()),
        ),
        Err(shapes::IntError::TooLarge) => at.report(
            emit,
            &rules::INVALID_INTEGER,
            col.range_severity.or(sev),
            format!("{} is out of range for `{}`", quote(v), col.name),
            format!("write an {}", col.shape.describe()),
        ),
        Ok(n) if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) => at.report(
            emit,
            &rules::INVALID_INTEGER,
            col.range_severity.or(sev),
            format!("{n} is out of range for `{}`", col.name),
            format!("write an {}", col.shape.describe()),
        ),
        Ok(_) => {}
    }
}
