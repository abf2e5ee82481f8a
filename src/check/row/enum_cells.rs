//! Enum cells: one of the column's values, a fix for a case slip or a near
//! miss.

use super::at::CellAt;
use crate::check::emit::Emitter;
use crate::check::text::quote;
use crate::diagnostic::Applicability;
use crate::rules;

/// Enum cell `v` (trimmed), which must be one of `values`.
pub(super) fn check_enum(at: &CellAt<'_>, values: &[String], v: &str, emit: &mut Emitter<'_>) {
    if !values.iter().any(|x| x == v) {
        let finding = at
            .finding(
                &rules::INVALID_ENUM,
                format!("{} is not a value of `{}`", quote(v), at.col.name),
            )
            .severity(at.col.severity)
            .help(enum_help(v, values));
        let finding = match enum_fix(v, values) {
            Some((new, applicability)) => at.writing(finding, new, applicability),
            None => finding,
        };
        at.report(emit, finding);
    }
}

/// The value `v` most likely means: the one value it matches up to case
/// (safe), or the suggestion of a near miss (unsafe: a guess).
pub(super) fn enum_fix<'v>(v: &str, values: &'v [String]) -> Option<(&'v str, Applicability)> {
    let mut same_case = values.iter().filter(|x| x.eq_ignore_ascii_case(v));
    match (same_case.next(), same_case.next()) {
        (Some(one), None) => return Some((one, Applicability::Safe)),
        (Some(_), Some(_)) => return None,
        _ => {}
    }
    crate::names::suggest(v, values).map(|s| (s, Applicability::Unsafe))
}

pub(super) fn enum_help(v: &str, values: &[String]) -> String {
    let list = values
        .iter()
        .map(|x| format!("`{x}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match crate::names::suggest(v, values) {
        Some(s) => format!("did you mean `{s}`? allowed values: {list}"),
        None => format!("allowed values: {list}"),
    }
}
