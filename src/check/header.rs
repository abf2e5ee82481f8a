//! Header checks: required, unknown, duplicate and near-miss column names,
//! and the mapping from the file's fields to the table's columns.

use super::text::{name_invisible, quote, quote_bare, zero_width};
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
        vec![(f.start..f.end, super::cell_edits::csv_field(name))],
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
    // Zero-width characters (a second byte-order mark before the first
    // name, a zero-width space pasted from a web page) are left out, as
    // case and spaces are: a name that holds one is a variant of the
    // column it spells, named as such, not an unknown name.
    let normalized: Vec<String> = header
        .names
        .iter()
        .map(|s| {
            if s.chars().any(zero_width) {
                normalize_name(&s.chars().filter(|&c| !zero_width(c)).collect::<String>())
            } else {
                normalize_name(s)
            }
        })
        .collect();
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
    let mut variants: Vec<(usize, ColumnId, Variant)> = Vec::new();
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
            variants.push((i, c, Variant::of(&header.names[i], &table.columns[c].name)));
        }
    }
    // A header written all in lower case (or with every required name
    // starred, as published templates do) is one finding, not one a column.
    let collapsed: Vec<Variant> = [Variant::Lower, Variant::Upper, Variant::Star]
        .into_iter()
        .filter(|&k| variants.iter().filter(|v| v.2 == k).count() >= COLLAPSE_AT)
        .collect();
    for &(i, c, kind) in &variants {
        if collapsed.contains(&kind) {
            continue;
        }
        let name = &header.names[i];
        let want = &table.columns[c].name;
        let invisible = name_invisible(name);
        let (message, help) = if i == 0 && name.starts_with('\u{feff}') {
            (
                format!(
                    "the first column name {} starts with a second byte-order mark (U+FEFF): the file begins with two",
                    quote_bare(name)
                ),
                format!("save the file as UTF-8 without a BOM, or delete the invisible character before `{want}`"),
            )
        } else if !invisible.is_empty()
            && name
                .chars()
                .any(|ch| zero_width(ch) || (ch.is_whitespace() && ch != ' '))
        {
            (
                format!(
                    "column {} holds {invisible}; the spec writes `{want}`",
                    quote_bare(name)
                ),
                format!(
                    "retype the name as `{want}`: the invisible characters make it another name"
                ),
            )
        } else {
            (
                format!("column {} is written `{want}` in the spec", quote(name)),
                format!("rename it to `{want}`"),
            )
        };
        on_field(emit, i, &rules::COLUMN_NAME_VARIANT, message, Some(help));
        rename_fix(emit, &rec.fields[i], want, Applicability::Safe);
    }
    for kind in collapsed {
        let of_kind: Vec<(usize, ColumnId)> = variants
            .iter()
            .filter(|v| v.2 == kind)
            .map(|v| (v.0, v.1))
            .collect();
        let examples: Vec<String> = of_kind
            .iter()
            .take(3)
            .map(|&(i, c)| {
                format!(
                    "{} for `{}`",
                    quote(&header.names[i]),
                    table.columns[c].name
                )
            })
            .collect();
        let more = if of_kind.len() > 3 { ", ..." } else { "" };
        let names: Vec<&str> = of_kind
            .iter()
            .map(|&(_, c)| table.columns[c].name.as_str())
            .collect();
        emit.row(
            &rules::COLUMN_NAME_VARIANT,
            None,
            rec,
            format!(
                "{} column names are written {} ({}{more})",
                of_kind.len(),
                kind.describe(),
                examples.join(", ")
            ),
            Some(format!(
                "write the names as the spec does: {} (`bdxlint template {}` prints the header)",
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                table.name
            )),
        );
        // One fix renames them all.
        let mut fields: Vec<(usize, ColumnId)> = of_kind.clone();
        fields.sort_unstable();
        emit.fix_last(
            Applicability::Safe,
            format!(
                "rename the {} columns as the spec writes them",
                fields.len()
            ),
            fields
                .iter()
                .map(|&(i, c)| {
                    let f = &rec.fields[i];
                    (
                        f.start..f.end,
                        super::cell_edits::csv_field(&table.columns[c].name),
                    )
                })
                .collect(),
        );
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

/// Variants of one kind, at least this many, are one finding.
const COLLAPSE_AT: usize = 3;

/// How a header name differs from the spec's, when it is a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    /// All in lower case (`work email`).
    Lower,
    /// All in upper case (`WORK EMAIL`).
    Upper,
    /// The spec's name with a `*` after it (`Work Email*`).
    Star,
    /// Anything else (spaces, mixed case, invisible characters).
    Other,
}

impl Variant {
    fn of(name: &str, spec: &str) -> Variant {
        let star = name.strip_suffix('*').map(str::trim_end);
        if star == Some(spec) {
            Variant::Star
        } else if name == spec.to_lowercase() {
            Variant::Lower
        } else if name == spec.to_uppercase() {
            Variant::Upper
        } else {
            Variant::Other
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Variant::Lower => "in lower case",
            Variant::Upper => "in upper case",
            Variant::Star => "with a `*` after them",
            Variant::Other => "differently",
        }
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
