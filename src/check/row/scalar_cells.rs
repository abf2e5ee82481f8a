//! Numbers and booleans: integers within their column's range, and the two
//! words of a format's boolean spelling.

use super::at::CellAt;
use crate::check::emit::Emitter;
use crate::check::shapes;
use crate::check::text::quote;
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
        let finding = at
            .finding(
                &rules::BOOLEAN_CASE,
                format!("{} is spelt `{right}` in the {format} format", quote(v)),
            )
            .help(format!("write `{right}`"));
        at.report(emit, at.writing(finding, right, Applicability::Safe));
    } else {
        at.report(
            emit,
            at.finding(
                &rules::INVALID_BOOLEAN,
                format!("{} is not `{t}` or `{fa}`", quote(v)),
            )
            .severity(at.col.severity)
            .help(format!("write `{t}` or `{fa}`")),
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
    let (severity, message, help) = match shapes::parse_integer(v) {
        Err(shapes::IntError::NotInteger) => (
            sev,
            format!("{} is not an integer", quote(v)),
            format!("write `{}` as an {}", col.name, col.shape.describe()),
        ),
        Err(shapes::IntError::TooLarge) => (
            col.range_severity.or(sev),
            format!("{} is out of range for `{}`", quote(v), col.name),
            format!("write an {}", col.shape.describe()),
        ),
        Ok(n) if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) => (
            col.range_severity.or(sev),
            format!("{n} is out of range for `{}`", col.name),
            format!("write an {}", col.shape.describe()),
        ),
        Ok(_) => return,
    };
    at.report(
        emit,
        at.finding(&rules::INVALID_INTEGER, message)
            .severity(severity)
            .help(help),
    );
}
