//! Header checks: required, unknown, duplicate and near-miss column names,
//! and the mapping from the file's fields to the table's columns.

use super::emit::Emitter;
use super::finding::{Finding, FixBuilder};
use super::text::{name_invisible, quote, quote_bare, zero_width};
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
    pub(crate) names: Vec<String>,
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
    pub(crate) field_col: Vec<Option<ColumnId>>,
    pub(crate) col_field: Vec<Option<usize>>,
    /// The names as written in the file, shared by every diagnostic.
    pub(crate) names: Vec<Arc<str>>,
}

/// Renames header field `f` to the spec's `name`: the whole field, quotes
/// and all, becomes the name (quoted only if it needs to be).
fn rename_fix(f: &FieldSpan, name: &str, applicability: Applicability) -> FixBuilder {
    FixBuilder::new(applicability, format!("rename the column to `{name}`"))
        .edit(f.start..f.end, super::cell_edits::csv_field(name))
}

/// Maps header fields to columns and reports header findings.
pub(crate) fn map_columns(
    table: &Table,
    header: &Header,
    data: &[u8],
    rec: &Record,
    emit: &mut Emitter<'_>,
) -> Mapping {
    let mut m = Mapper::new(table, header, rec);
    super::record::report_quoting(data, rec, &m.names, emit);
    for (i, f) in rec.fields.iter().enumerate() {
        let (a, b) = f.content();
        super::record::report_utf8(data, a, b, f, Some(m.names[i].clone()), emit);
    }
    super::record::report_nuls(data, rec, &m.names, emit);
    m.duplicates(emit);
    m.exact();
    let variants = m.variants();
    m.report_variants(&variants, emit);
    m.unknown(emit);
    m.missing(emit);
    Mapping {
        field_col: m.field_col,
        col_field: m.col_field,
        names: m.names,
    }
}

/// The header's fields being mapped to the table's columns, step by step:
/// duplicates, exact names, variants, typos and unknown names, missing
/// columns.
struct Mapper<'a> {
    table: &'a Table,
    header: &'a Header,
    rec: &'a Record,
    /// The names as written, shared by every finding.
    names: Vec<Arc<str>>,
    /// The names compared: normalized, without zero-width characters.
    normalized: Vec<String>,
    /// The table's names, normalized.
    col_norm: Vec<&'a str>,
    field_col: Vec<Option<ColumnId>>,
    col_field: Vec<Option<usize>>,
    /// Fields that repeat an earlier name: mapped to nothing.
    duplicate: Vec<bool>,
}

impl<'a> Mapper<'a> {
    fn new(table: &'a Table, header: &'a Header, rec: &'a Record) -> Self {
        let n = header.names.len();
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
        Mapper {
            table,
            header,
            rec,
            names: header.names.iter().map(|s| Arc::from(s.as_str())).collect(),
            normalized,
            col_norm: table
                .columns
                .iter()
                .map(|c| c.normalized.as_str())
                .collect(),
            field_col: vec![None; n],
            col_field: vec![None; table.columns.len()],
            duplicate: vec![false; n],
        }
    }

    /// A finding on header field `i`, named after it unless it has no name.
    fn on_field(&self, emit: &mut Emitter<'_>, i: usize, finding: Finding) {
        let f = &self.rec.fields[i];
        let column = (!self.normalized[i].is_empty()).then(|| self.names[i].clone());
        emit.report_in(f.start..f.end, f, finding.column(column));
    }

    /// Field `i` is column `c`.
    fn map(&mut self, i: usize, c: ColumnId) {
        self.field_col[i] = Some(c);
        self.col_field[c] = Some(i);
    }

    /// Duplicates, compared in normalized form, whatever the name.
    fn duplicates(&mut self, emit: &mut Emitter<'_>) {
        let mut first_seen: HashMap<&str, usize> = HashMap::with_capacity(self.normalized.len());
        for i in 0..self.normalized.len() {
            if self.normalized[i].is_empty() {
                continue;
            }
            let first = *first_seen.entry(self.normalized[i].as_str()).or_insert(i);
            if first != i {
                self.duplicate[i] = true;
                let names = &self.header.names;
                self.on_field(
                    emit,
                    i,
                    Finding::from_template(
                        &rules::DUPLICATE_COLUMN,
                        &[
                            ("name", &quote(&names[i])),
                            ("field", &(i + 1).to_string()),
                            ("first", &quote(&names[first])),
                            ("first_field", &(first + 1).to_string()),
                        ],
                    ),
                );
            }
        }
    }

    /// Exact names first, so a variant never takes a column from an exact
    /// match.
    fn exact(&mut self) {
        for i in 0..self.normalized.len() {
            if self.duplicate[i] {
                continue;
            }
            if let Some(c) = self.table.column(&self.header.names[i]) {
                self.map(i, c);
            }
        }
    }

    /// Variants: the same name up to case, spaces and a trailing `*`.
    fn variants(&mut self) -> Vec<(usize, ColumnId, Variant)> {
        let mut variants = Vec::new();
        for i in 0..self.normalized.len() {
            if self.duplicate[i] || self.field_col[i].is_some() {
                continue;
            }
            if let Some(c) = self.col_norm.iter().position(|k| *k == self.normalized[i]) {
                if self.col_field[c].is_some() {
                    continue;
                }
                self.map(i, c);
                let kind = Variant::of(&self.header.names[i], &self.table.columns[c].name);
                variants.push((i, c, kind));
            }
        }
        variants
    }

    /// A finding per variant, except that a header written all in lower
    /// case (or with every required name starred, as published templates
    /// do) is one finding, not one a column.
    fn report_variants(&self, variants: &[(usize, ColumnId, Variant)], emit: &mut Emitter<'_>) {
        let collapsed: Vec<Variant> = [Variant::Lower, Variant::Upper, Variant::Star]
            .into_iter()
            .filter(|&k| variants.iter().filter(|v| v.2 == k).count() >= COLLAPSE_AT)
            .collect();
        for &(i, c, kind) in variants {
            if collapsed.contains(&kind) {
                continue;
            }
            let name = &self.header.names[i];
            let want = &self.table.columns[c].name;
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
            let fix = rename_fix(&self.rec.fields[i], want, Applicability::Safe);
            self.on_field(
                emit,
                i,
                Finding::new(&rules::COLUMN_NAME_VARIANT, message)
                    .help(help)
                    .fix(fix),
            );
        }
        for kind in collapsed {
            self.report_collapsed(variants, kind, emit);
        }
    }

    /// One finding for every variant of `kind`, on the header row, with one
    /// fix that renames them all.
    fn report_collapsed(
        &self,
        variants: &[(usize, ColumnId, Variant)],
        kind: Variant,
        emit: &mut Emitter<'_>,
    ) {
        let (table, names) = (self.table, &self.header.names);
        let of_kind: Vec<(usize, ColumnId)> = variants
            .iter()
            .filter(|v| v.2 == kind)
            .map(|v| (v.0, v.1))
            .collect();
        let examples: Vec<String> = of_kind
            .iter()
            .take(3)
            .map(|&(i, c)| format!("{} for `{}`", quote(&names[i]), table.columns[c].name))
            .collect();
        let more = if of_kind.len() > 3 { ", ..." } else { "" };
        let spec_names: Vec<&str> = of_kind
            .iter()
            .map(|&(_, c)| table.columns[c].name.as_str())
            .collect();
        let mut fields: Vec<(usize, ColumnId)> = of_kind.clone();
        fields.sort_unstable();
        let fix = FixBuilder::safe(format!(
            "rename the {} columns as the spec writes them",
            fields.len()
        ))
        .edits(
            fields
                .iter()
                .map(|&(i, c)| {
                    let f = &self.rec.fields[i];
                    (
                        f.start..f.end,
                        super::cell_edits::csv_field(&table.columns[c].name),
                    )
                })
                .collect(),
        );
        emit.report_row(
            self.rec,
            Finding::new(
                &rules::COLUMN_NAME_VARIANT,
                format!(
                    "{} column names are written {} ({}{more})",
                    of_kind.len(),
                    kind.describe(),
                    examples.join(", ")
                ),
            )
            .help(format!(
                "write the names as the spec does: {} (`bdxlint template {}` prints the header)",
                spec_names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                table.name
            ))
            // One fix renames them all.
            .fix(fix),
        );
    }

    /// Typos (a near name, mapped to its column) and unknown names.
    fn unknown(&mut self, emit: &mut Emitter<'_>) {
        let table = self.table;
        for i in 0..self.normalized.len() {
            if self.duplicate[i] || self.field_col[i].is_some() {
                continue;
            }
            if self.normalized[i].is_empty() {
                self.on_field(
                    emit,
                    i,
                    Finding::new(
                        &rules::UNKNOWN_COLUMN,
                        format!("header field {} has no name", i + 1),
                    )
                    .help("remove the empty column (a trailing comma in the header makes one)"),
                );
                continue;
            }
            let nearest = closest(
                &self.normalized[i],
                typo_budget(&self.normalized[i]),
                self.col_norm
                    .iter()
                    .zip(&self.col_field)
                    .map(|(k, taken)| taken.is_none().then_some(*k)),
            );
            let name = &self.header.names[i];
            let finding = match nearest {
                Some(c) => {
                    self.map(i, c);
                    let want = &table.columns[c].name;
                    Finding::new(
                        &rules::COLUMN_NAME_TYPO,
                        format!("unknown column {}; did you mean `{want}`?", quote(name)),
                    )
                    .help(format!(
                        "rename it to `{want}`; until then the platform does not read it"
                    ))
                    .fix(rename_fix(
                        &self.rec.fields[i],
                        want,
                        Applicability::Unsafe,
                    ))
                }
                _ => Finding::new(
                    &rules::UNKNOWN_COLUMN,
                    format!(
                        "{} is not a column of the {} format",
                        quote(name),
                        table.name
                    ),
                )
                .help(format!(
                    "remove it, or check the format (`bdxlint formats` lists the columns of {})",
                    table.name
                )),
            };
            self.on_field(emit, i, finding);
        }
    }

    /// Missing columns, pointing at the header row.
    fn missing(&self, emit: &mut Emitter<'_>) {
        let table = self.table;
        for (c, col) in table.columns.iter().enumerate() {
            if self.col_field[c].is_some() {
                continue;
            }
            let rule = match col.header {
                Requirement::Required => &rules::MISSING_REQUIRED_COLUMN,
                Requirement::Recommended => &rules::MISSING_RECOMMENDED_COLUMN,
                Requirement::Optional => continue,
            };
            emit.report_row(
                self.rec,
                Finding::from_template(rule, &[("column", &col.name), ("format", &table.name)]),
            );
        }
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
