//! Header checks: required, unknown, duplicate and near-miss column names,
//! and the mapping from the file's fields to the table's columns.

use super::text::quote;
use super::Emitter;
use crate::diagnostic::Applicability;
use crate::names::{closest, typo_budget};
use crate::rules;
use crate::scan::{unescape, FieldSpan, Record};
pub use crate::schema::normalize_name;
use crate::schema::{ColumnId, Requirement, Table};
use std::collections::HashMap;
use std::sync::Arc;

/// The header's names, decoded.
pub(crate) struct Header {
    pub names: Vec<String>,
}

/// Decodes the header record's names (lossily: invalid UTF-8 is reported by
/// [`map_columns`]).
pub(crate) fn read_header(data: &[u8], rec: &Record) -> Header {
    let names = rec
        .fields
        .iter()
        .map(|f| {
            let (a, b) = f.content();
            let text = String::from_utf8_lossy(&data[a..b]);
            unescape(&text, f.escapes).into_owned()
        })
        .collect();
    Header { names }
}

/// How each field of the header maps to a column.
pub(crate) struct Mapping {
    pub field_col: Vec<Option<ColumnId>>,
    pub col_field: Vec<Option<usize>>,
    /// The names as written in the file, shared by every diagnostic.
    pub names: Vec<Arc<str>>,
}

/// Renames header field `f` to the spec's `name`: the whole field, quotes
/// and all, becomes the name (quoted only if it needs to be).
fn rename_fix(emit: &mut Emitter<'_>, f: &FieldSpan, name: &str, applicability: Applicability) {
    emit.fix_last(
        applicability,
        format!("rename the column to `{name}`"),
        vec![(f.start..f.end, super::fixes::csv_field(name))],
    );
}

/// Maps header fields to columns and reports header findings.
pub(crate) fn map_columns(
    table: &Table,
    header: &Header,
    data: &[u8],
    rec: &Record,
    emit: &mut Emitter<'_>,
) -> Mapping {
    let n = header.names.len();
    let mut field_col: Vec<Option<ColumnId>> = vec![None; n];
    let mut col_field: Vec<Option<usize>> = vec![None; table.columns.len()];
    let names: Vec<Arc<str>> = header.names.iter().map(|s| Arc::from(s.as_str())).collect();
    let normalized: Vec<String> = header.names.iter().map(|s| normalize_name(s)).collect();
    let col_norm: Vec<&str> = table
        .columns
        .iter()
        .map(|c| c.normalized.as_str())
        .collect();
    // A finding on header field `i`, named after it unless it has no name.
    let on_field =
        |emit: &mut Emitter<'_>, i: usize, rule, message: String, help: Option<String>| {
            let f = &rec.fields[i];
            let column = (!normalized[i].is_empty()).then(|| names[i].clone());
            emit.in_field(rule, None, f.start..f.end, f, column, message, help);
        };

    super::record::report_quoting(data, rec, &names, emit);
    for (i, f) in rec.fields.iter().enumerate() {
        let (a, b) = f.content();
        super::record::report_utf8(data, a, b, f, Some(names[i].clone()), emit);
    }
    super::record::report_nuls(data, rec, &names, emit);

    // Duplicates, compared in normalized form, whatever the name.
    let mut duplicate = vec![false; n];
    let mut first_seen: HashMap<&str, usize> = HashMap::with_capacity(n);
    for i in 0..n {
        if normalized[i].is_empty() {
            continue;
        }
        let first = *first_seen.entry(normalized[i].as_str()).or_insert(i);
        if first != i {
            duplicate[i] = true;
            on_field(
                emit,
                i,
                &rules::DUPLICATE_COLUMN,
                format!(
                    "column {} (field {}) repeats {} (field {})",
                    quote(&header.names[i]),
                    i + 1,
                    quote(&header.names[first]),
                    first + 1
                ),
                Some("remove or rename one of the two columns".into()),
            );
        }
    }
    // Exact names first, so a variant never takes a column from an exact match.
    for i in 0..n {
        if duplicate[i] {
            continue;
        }
        if let Some(c) = table.column(&header.names[i]) {
            field_col[i] = Some(c);
            col_field[c] = Some(i);
        }
    }
    // Variants: same name up to case, spaces and a trailing `*`.
    for i in 0..n {
        if duplicate[i] || field_col[i].is_some() {
            continue;
        }
        if let Some(c) = col_norm.iter().position(|k| *k == normalized[i]) {
            if col_field[c].is_some() {
                continue;
            }
            field_col[i] = Some(c);
            col_field[c] = Some(i);
            on_field(
                emit,
                i,
                &rules::COLUMN_NAME_VARIANT,
                format!(
                    "column {} is written `{}` in the spec",
                    quote(&header.names[i]),
                    table.columns[c].name
                ),
                Some(format!("rename it to `{}`", table.columns[c].name)),
            );
            rename_fix(
                emit,
                &rec.fields[i],
                &table.columns[c].name,
                Applicability::Safe,
            );
        }
    }
    // Typos and unknown names.
    for i in 0..n {
        if duplicate[i] || field_col[i].is_some() {
            continue;
        }
        if normalized[i].is_empty() {
            on_field(
                emit,
                i,
                &rules::UNKNOWN_COLUMN,
                format!("header field {} has no name", i + 1),
                Some("remove the empty column (a trailing comma in the header makes one)".into()),
            );
            continue;
        }
        let nearest = closest(
            &normalized[i],
            typo_budget(&normalized[i]),
            col_norm
                .iter()
                .zip(&col_field)
                .map(|(k, taken)| taken.is_none().then_some(*k)),
        );
        match nearest {
            Some(c) => {
                field_col[i] = Some(c);
                col_field[c] = Some(i);
                on_field(
                    emit,
                    i,
                    &rules::COLUMN_NAME_TYPO,
                    format!(
                        "unknown column {}; did you mean `{}`?",
                        quote(&header.names[i]),
                        table.columns[c].name
                    ),
                    Some(format!(
                        "rename it to `{}`; until then the platform does not read it",
                        table.columns[c].name
                    )),
                );
                rename_fix(
                    emit,
                    &rec.fields[i],
                    &table.columns[c].name,
                    Applicability::Unsafe,
                );
            }
            _ => on_field(
                emit,
                i,
                &rules::UNKNOWN_COLUMN,
                format!(
                    "{} is not a column of the {} format",
                    quote(&header.names[i]),
                    table.name
                ),
                Some(format!(
                    "remove it, or check the format (`bdxlint formats` lists the columns of {})",
                    table.name
                )),
            ),
        }
    }
    // Missing columns, pointing at the header row.
    for (c, col) in table.columns.iter().enumerate() {
        if col_field[c].is_some() {
            continue;
        }
        let rule = match col.header {
            Requirement::Required => &rules::MISSING_REQUIRED_COLUMN,
            Requirement::Recommended => &rules::MISSING_RECOMMENDED_COLUMN,
            Requirement::Optional => continue,
        };
        emit.row(
            rule,
            None,
            rec,
            format!("the header has no `{}` column", col.name),
            Some(format!(
                "add the `{}` column; the {} format {} it",
                col.name,
                table.name,
                if col.header == Requirement::Required {
                    "requires"
                } else {
                    "asks for"
                }
            )),
        );
    }
    Mapping {
        field_col,
        col_field,
        names,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization() {
        assert_eq!(normalize_name("  Work   Email* "), "work email");
        assert_eq!(normalize_name("Name*"), "name");
        assert_eq!(normalize_name("*"), "");
    }
}
