//! A table's `[[references]]`: cells that name a record another file
//! defines, where its keys come from (the run, a bundle's other member,
//! `--entities`) and what an undefined key gets. One engine checks them
//! all (`src/check/refs.rs`); here each entry is held to the columns and
//! shapes of its table, and, once every table is parsed, to its target's
//! (`link.rs`).

use super::columns::{ColumnId, Scope};
use super::error::TableError;
use super::registry::format_names;
use super::shape::Shape;
use super::trace::{Clause, Trace};
use super::words::{check_template_of, find_rule};
use crate::rules::Rule;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawReference {
    column: String,
    #[serde(default)]
    list: bool,
    #[serde(default)]
    part: Option<Part>,
    target: String,
    key: String,
    #[serde(default)]
    undeclared_key: bool,
    #[serde(default)]
    type_column: Option<String>,
    #[serde(default)]
    type_key: Option<String>,
    #[serde(default)]
    ignore_case: bool,
    #[serde(default)]
    gone: Option<RawValues>,
    #[serde(default)]
    skip: Option<RawValues>,
    #[serde(default)]
    when: Option<RawValues>,
    #[serde(default)]
    sources: Option<Vec<RawSource>>,
    #[serde(default)]
    unchecked: Option<UncheckedMode>,
    #[serde(default)]
    span: SpanOf,
    rule: String,
    message: String,
    help: String,
    #[serde(default)]
    gone_message: Option<String>,
    #[serde(default)]
    gone_help: Option<String>,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

/// `{ from = "bundle", types = ["role"], rule = "B007", message = ... }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSource {
    from: KeySource,
    #[serde(default)]
    types: Option<Vec<String>>,
    #[serde(default)]
    rule: Option<String>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    help: Option<String>,
}

/// `{ column = "Status", in = ["deleted"] }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawValues {
    column: String,
    #[serde(rename = "in")]
    values: Vec<String>,
}

/// Which part of a referring value is the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Part {
    /// The `<integration_id>` of an `<app>/<integration_id>` value. A value
    /// not of that shape is the column's shape finding and is skipped.
    IntegrationId,
}

/// Cells of `column` whose trimmed value is one of `values`, in any case
/// (as Status values like `deleted` are matched wherever a row's own
/// action decides whether it counts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Values {
    /// A header name of the format the match is made in.
    pub(crate) column: String,
    pub(crate) values: Vec<String>,
}

impl Values {
    pub(crate) fn matches(&self, cell: &str) -> bool {
        let cell = cell.trim();
        self.values.iter().any(|v| cell.eq_ignore_ascii_case(v))
    }
}

/// A reference from a cell of this format to the key column of another
/// format's rows, checked across the files of one run. The target's side
/// (`key`, `type_key`, `gone`) is validated against the target table once
/// all tables are parsed (see `schema::tables`), so that tables may refer to each
/// other without parsing one another.
#[derive(Debug)]
pub struct Reference {
    /// The referring column.
    pub(crate) column: ColumnId,
    /// The cell is a comma-separated list; each element is a reference.
    pub(crate) list: bool,
    /// Which part of a value (or element) is the key; `None`: all of it.
    pub(crate) part: Option<Part>,
    /// A compound key: the referring row's type column, whose value goes
    /// with the cell's as `(type, key)`; set exactly when `type_key` is.
    pub(crate) type_column: Option<ColumnId>,
    /// The format whose rows define keys.
    pub(crate) target: String,
    /// The target's key column, a header name.
    pub(crate) key: String,
    /// The target's type column of a compound key, a header name.
    pub(crate) type_key: Option<String>,
    /// Keys compare ignoring case (types of a compound key always do).
    pub(crate) ignore_case: bool,
    /// The key column is not one the target's table declares (the
    /// campaigns upload has no `ID`; an edited download has one).
    pub(crate) undeclared_key: bool,
    /// Target rows that do not define their key (they delete it).
    pub(crate) gone: Option<Values>,
    /// Referring rows that are not checked (a column of this table).
    pub(crate) skip: Option<Values>,
    /// Only referring rows whose column holds one of the values are
    /// checked (a column of this table): with `skip` on another entry, it
    /// routes one cell to one of two targets by the row's type.
    pub(crate) when: Option<Values>,
    /// Where the target's keys come from, in the order that decides which
    /// source's rule and message an undefined key gets.
    pub(crate) sources: Vec<Source>,
    /// Whether, and how, references no source could check are said in the
    /// table's `[[unchecked]]` info; `None`: nothing is said.
    pub(crate) unchecked: Option<UncheckedMode>,
    /// What a finding points at.
    pub(crate) span: SpanOf,
    /// Message and help for a key only `gone` rows hold; set exactly when
    /// `gone` is.
    pub(crate) gone_message: Option<String>,
    pub(crate) gone_help: Option<String>,
    pub(crate) trace: Trace,
}

/// Where the keys of a reference's target come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum KeySource {
    /// The CSV files of the target format in the same `bdxlint check` run.
    #[serde(rename = "run")]
    Run,
    /// The target-format member of the ZIP bundle the referring file is a
    /// member of.
    #[serde(rename = "bundle")]
    Bundle,
    /// The entities CSV files given with `--entities`.
    #[serde(rename = "--entities")]
    EntitiesFlag,
}

impl KeySource {
    pub(crate) fn name(self) -> &'static str {
        match self {
            KeySource::Run => "run",
            KeySource::Bundle => "bundle",
            KeySource::EntitiesFlag => "--entities",
        }
    }
}

/// One source of a reference's keys and what an undefined key gets when it
/// decides.
#[derive(Debug)]
pub struct Source {
    pub(crate) from: KeySource,
    /// The source decides only for rows whose type (compound key) is one
    /// of these, in any case; `None`: for every row.
    pub(crate) types: Option<Vec<String>>,
    /// The registry rule findings report, at its default severity.
    pub(crate) rule: &'static Rule,
    /// Message and help for a key no available source defines.
    pub(crate) message: String,
    pub(crate) help: String,
}

impl Source {
    /// Whether the source decides for a row of type `ty`.
    pub(crate) fn covers(&self, ty: Option<&str>) -> bool {
        match (&self.types, ty) {
            (None, _) => true,
            (Some(types), Some(ty)) => types.iter().any(|t| ty.trim().eq_ignore_ascii_case(t)),
            (Some(_), None) => false,
        }
    }
}

/// How a table's `[[unchecked]]` info counts a reference that went
/// unchecked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UncheckedMode {
    /// The file as a whole: said when no source is available for the
    /// reference (even if the file has no such cell), or a cell fell
    /// through every source.
    File,
    /// Cell by cell: said when some cell went unchecked, with their count.
    Count,
}

/// What a reference finding points at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpanOf {
    /// The key inside its value (or list element), trimmed.
    #[default]
    Key,
    /// The whole cell as written, surrounding spaces included.
    Cell,
}

/// Compiles the `[[references]]`, in table order.
pub(super) fn references(
    scope: &Scope<'_>,
    raw: Vec<RawReference>,
) -> Result<Vec<Reference>, TableError> {
    raw.into_iter().map(|r| reference(scope, r)).collect()
}

/// The entry an error is about: the file and the referring column.
struct At<'a> {
    format: &'a str,
    column: &'a str,
}

impl At<'_> {
    fn err(&self, reason: impl ToString) -> TableError {
        TableError::Reference {
            format: self.format.to_owned(),
            column: self.column.to_owned(),
            reason: reason.to_string(),
        }
    }
}

/// One `[[references]]` entry: the referring column, the rows it applies
/// to, the compound key, the sources and the words, in that order.
fn reference(scope: &Scope<'_>, r: RawReference) -> Result<Reference, TableError> {
    let at = At {
        format: scope.format,
        column: &r.column,
    };
    let column = referring_column(scope, &r, &at)?;
    if !format_names().any(|n| n == r.target) {
        return Err(at.err(format!("no format {:?} to refer to", r.target)));
    }
    let rule = find_rule(&r.rule).map_err(|e| at.err(e))?;
    let known = |c: &str| scope.position(c).is_some();
    let skip = r.skip.as_ref().map(|v| values(v, known, &at)).transpose()?;
    let when = r.when.as_ref().map(|v| values(v, known, &at)).transpose()?;
    let gone = r
        .gone
        .as_ref()
        .map(|v| values(v, |_| true, &at))
        .transpose()?;
    if gone.is_some() != (r.gone_message.is_some() && r.gone_help.is_some())
        || r.gone_message.is_some() != r.gone_help.is_some()
    {
        return Err(at.err("`gone_message` and `gone_help` are set exactly when `gone` is"));
    }
    let type_column = type_column(scope, &r, &at)?;
    let typed = type_column.is_some();
    let sources = sources(&r, rule, typed, &at)?;
    check_sources(&r, &sources, gone.is_some(), typed, &at)?;
    for text in [&r.message, &r.help] {
        check_template_of(text, false, typed).map_err(|e| at.err(e))?;
    }
    for text in [&r.gone_message, &r.gone_help].into_iter().flatten() {
        check_template_of(text, true, typed).map_err(|e| at.err(e))?;
    }
    Ok(Reference {
        column,
        list: r.list,
        part: r.part,
        type_column,
        target: r.target,
        key: r.key,
        type_key: r.type_key,
        ignore_case: r.ignore_case,
        undeclared_key: r.undeclared_key,
        gone,
        skip,
        when,
        sources,
        unchecked: r.unchecked,
        span: r.span,
        gone_message: r.gone_message,
        gone_help: r.gone_help,
        trace: Trace::new(r.spec, r.clause),
    })
}

/// The referring column, read the way its shape reads it.
fn referring_column(
    scope: &Scope<'_>,
    r: &RawReference,
    at: &At<'_>,
) -> Result<ColumnId, TableError> {
    let column = scope
        .position(&r.column)
        .ok_or_else(|| at.err("unknown column"))?;
    // The engine splits and cuts values the way the column's shape
    // reads them; a reference that disagreed with the shape would
    // look for keys in text the cell check calls malformed.
    let shape = &scope.columns[column].shape;
    if r.list != matches!(shape, Shape::List { .. }) {
        return Err(at.err("`list = true` exactly when the column's shape is `list`"));
    }
    if r.part == Some(Part::IntegrationId) && *shape != Shape::IntegrationRef {
        return Err(at.err("`part = \"integration-id\"` needs a column of shape `integration-ref`"));
    }
    Ok(column)
}

/// The referring row's type column of a compound key, if the key is one.
fn type_column(
    scope: &Scope<'_>,
    r: &RawReference,
    at: &At<'_>,
) -> Result<Option<ColumnId>, TableError> {
    let type_column = match (&r.type_column, &r.type_key) {
        (None, None) => None,
        (Some(c), Some(_)) => Some(
            scope
                .position(c)
                .ok_or_else(|| at.err(format!("`type_column` names unknown column {c:?}")))?,
        ),
        _ => return Err(at.err("`type_column` and `type_key` are set together (a compound key)")),
    };
    if type_column.is_some() && (r.list || r.part.is_some()) {
        return Err(
            at.err("a compound key (`type_column`) takes a whole cell: no `list`, no `part`")
        );
    }
    Ok(type_column)
}

/// The sources of the keys, in order; without `sources`, the run's files
/// with the entry's own rule and words.
fn sources(
    r: &RawReference,
    rule: &'static Rule,
    typed: bool,
    at: &At<'_>,
) -> Result<Vec<Source>, TableError> {
    let raw = match &r.sources {
        None => {
            return Ok(vec![Source {
                from: KeySource::Run,
                types: None,
                rule,
                message: r.message.clone(),
                help: r.help.clone(),
            }])
        }
        Some(raw) if raw.is_empty() => return Err(at.err("`sources` is empty")),
        Some(raw) => raw,
    };
    raw.iter()
        .map(|s| {
            if s.types
                .as_ref()
                .is_some_and(|t| t.is_empty() || t.iter().any(|x| x.trim().is_empty()))
            {
                return Err(at.err(format!(
                    "`types` of source {:?} needs non-empty values",
                    s.from.name()
                )));
            }
            if s.types.is_some() && !typed {
                return Err(at.err(format!(
                    "`types` of source {:?}: only a compound key (`type_column`) has a type",
                    s.from.name()
                )));
            }
            Ok(Source {
                from: s.from,
                types: s.types.clone(),
                rule: s
                    .rule
                    .as_deref()
                    .map_or(Ok(rule), find_rule)
                    .map_err(|e| at.err(e))?,
                message: s.message.clone().unwrap_or_else(|| r.message.clone()),
                help: s.help.clone().unwrap_or_else(|| r.help.clone()),
            })
        })
        .collect()
}

/// Each source once, able to give what the entry asks of it, with words
/// the engine can fill in.
fn check_sources(
    r: &RawReference,
    sources: &[Source],
    gone: bool,
    typed: bool,
    at: &At<'_>,
) -> Result<(), TableError> {
    for (i, s) in sources.iter().enumerate() {
        if sources[..i].iter().any(|x| x.from == s.from) {
            return Err(at.err(format!("source {:?} is listed twice", s.from.name())));
        }
        if s.from == KeySource::EntitiesFlag && r.target != "entities" {
            return Err(
                at.err("the `--entities` source reads entities CSV files: `target = \"entities\"`")
            );
        }
        if gone && s.from != KeySource::Run {
            return Err(at.err(format!(
                "`gone` names the deleting row's file, which only a `run` source has, not {:?}",
                s.from.name()
            )));
        }
        for text in [&s.message, &s.help] {
            check_template_of(text, false, typed).map_err(|e| at.err(e))?;
        }
    }
    Ok(())
}

/// A `{ column, in }` match; `known` says whether the column exists where
/// the match is made.
fn values(v: &RawValues, known: impl Fn(&str) -> bool, at: &At<'_>) -> Result<Values, TableError> {
    if !known(&v.column) {
        return Err(at.err(format!("unknown column {:?}", v.column)));
    }
    if v.values.is_empty() || v.values.iter().any(|x| x.trim().is_empty()) {
        return Err(at.err(format!("`in` on {:?} needs non-empty values", v.column)));
    }
    Ok(Values {
        column: v.column.clone(),
        values: v.values.clone(),
    })
}
