//! Per-format schema tables.
//!
//! Every format of the spec is described by one TOML file in `rules/`, compiled
//! into the binary with `include_str!` and parsed into the typed [`Table`]
//! here. The raw serde structs reject unknown keys so a typo in a table is a
//! test failure, not a silently ignored rule. The grammar is documented in
//! `rules/README.md`; the two must change together.

mod detect;
pub mod json;
pub mod shape;

pub use detect::{detect_format, detect_format_among, Detection};
pub use shape::{BoolSpelling, Braces, Shape};

use crate::diagnostic::Severity;
use serde::Deserialize;
use std::sync::OnceLock;

/// One registry line per format: the name users pass to `--format` and the
/// table text. Adding a format is a TOML file and a line here.
const TABLES: &[(&str, &str)] = &[
    ("employees", include_str!("../../rules/employees.toml")),
    ("entities", include_str!("../../rules/entities.toml")),
    (
        "entities-download",
        include_str!("../../rules/entities-download.toml"),
    ),
    (
        "entity-relations",
        include_str!("../../rules/entity-relations.toml"),
    ),
    (
        "entity-relations-download",
        include_str!("../../rules/entity-relations-download.toml"),
    ),
    (
        "entity-rbac-relations",
        include_str!("../../rules/entity-rbac-relations.toml"),
    ),
    (
        "entitlements",
        include_str!("../../rules/entitlements.toml"),
    ),
    ("reviews", include_str!("../../rules/reviews.toml")),
    ("campaigns", include_str!("../../rules/campaigns.toml")),
    ("findings", include_str!("../../rules/findings.toml")),
    ("filters", include_str!("../../rules/filters.toml")),
    ("rules", include_str!("../../rules/rules.toml")),
    ("rbac2", include_str!("../../rules/rbac2.toml")),
    (
        "integrations",
        include_str!("../../rules/integrations.toml"),
    ),
    (
        "playbook-templates",
        include_str!("../../rules/playbook-templates.toml"),
    ),
];

/// Whether a column must be in the header and filled on every row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Requirement {
    /// Missing from the header or empty in a row: error.
    Required,
    /// For a header only: the spec contradicts itself about the column, so
    /// a header without it is a warning.
    Recommended,
    Optional,
}

/// Which way a file travels: it decides nothing in the checker, but `formats`
/// and the docs show it, and detection prefers nothing by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    Upload,
    Download,
    /// A CSV that only travels inside a ZIP upload.
    ZipMember,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    name: String,
    title: String,
    spec_section: String,
    direction: Direction,
    #[serde(default)]
    file_hints: Vec<String>,
    #[serde(default)]
    deprecated: Option<String>,
    #[serde(default)]
    notes: Vec<String>,
    columns: Vec<RawColumn>,
    #[serde(default)]
    requires: Vec<RawRequires>,
    #[serde(default)]
    equal: Vec<RawEqual>,
    #[serde(default)]
    one_or_all: Vec<RawOneOrAll>,
    #[serde(default)]
    json: Vec<RawJson>,
    #[serde(default)]
    order: Vec<RawOrder>,
    #[serde(default)]
    identity: Option<RawIdentity>,
    #[serde(default)]
    unique: Vec<RawUnique>,
    #[serde(default)]
    references: Vec<RawReference>,
    #[serde(default)]
    unchecked: Vec<RawUnchecked>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJson {
    column: String,
    #[serde(default)]
    schema: Option<String>,
    #[serde(default)]
    grammar: Option<String>,
    #[serde(default)]
    type_column: Option<String>,
    #[serde(default)]
    when: Vec<RawCondition>,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOrder {
    earlier: String,
    later: String,
    #[serde(default)]
    severity: Option<Severity>,
    reason: String,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawColumn {
    name: String,
    #[serde(default = "optional")]
    requirement: Requirement,
    #[serde(default)]
    header: Option<Requirement>,
    #[serde(default)]
    shape: Option<String>,
    #[serde(default)]
    severity: Option<Severity>,
    #[serde(default)]
    values: Option<Vec<String>>,
    #[serde(default)]
    min: Option<i64>,
    #[serde(default)]
    max: Option<i64>,
    #[serde(default)]
    braces: Option<Braces>,
    #[serde(default)]
    repeat_severity: Option<Severity>,
    #[serde(default)]
    values_severity: Option<Severity>,
    #[serde(default)]
    range_severity: Option<Severity>,
    #[serde(default)]
    identifier: bool,
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    example: Option<String>,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

fn optional() -> Requirement {
    Requirement::Optional
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRequires {
    #[serde(default)]
    when: Option<RawCondition>,
    #[serde(default)]
    all: Vec<String>,
    #[serde(default)]
    any: Vec<String>,
    #[serde(default)]
    severity: Option<Severity>,
    reason: String,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCondition {
    column: String,
    #[serde(default)]
    is: Option<CellState>,
    #[serde(default, rename = "in")]
    in_values: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEqual {
    column: String,
    to: String,
    #[serde(default)]
    ignore_case: bool,
    #[serde(default)]
    severity: Option<Severity>,
    reason: String,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOneOrAll {
    columns: Vec<String>,
    #[serde(default)]
    severity: Option<Severity>,
    reason: String,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIdentity {
    columns: Vec<String>,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUnique {
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
struct RawReference {
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
struct RawSource {
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

/// One `[[unchecked]]`: what a file says when references to `targets`
/// went unchecked.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUnchecked {
    targets: Vec<String>,
    rule: String,
    message: String,
    help: String,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

/// `{ column = "Status", in = ["deleted"] }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawValues {
    column: String,
    #[serde(rename = "in")]
    values: Vec<String>,
}

/// Why a check is a warning although it sits in a table: the reasons of
/// clause 4 of the severity principle (top of `rules/README.md`). A check
/// whose findings are errors names none; a check that warns must name one,
/// and a test holds every table to that.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Clause {
    /// The spec's words are soft: "values used", "usually", "in the
    /// sample", "e.g.".
    Soft,
    /// The spec says nothing that rejects it (repeats, order, a shape it
    /// does not state).
    Silent,
    /// The spec contradicts itself.
    Contradiction,
    /// The verdict depends on platform state or upload order that one run
    /// cannot see.
    PlatformState,
}

impl Clause {
    pub fn name(self) -> &'static str {
        match self {
            Clause::Soft => "soft",
            Clause::Silent => "silent",
            Clause::Contradiction => "contradiction",
            Clause::PlatformState => "platform-state",
        }
    }

    /// Why the check warns, in a sentence fragment.
    pub fn describe(self) -> &'static str {
        match self {
            Clause::Soft => "the spec's words are soft (values used, usually, in the sample)",
            Clause::Silent => "the spec says nothing that rejects it",
            Clause::Contradiction => "the spec contradicts itself",
            Clause::PlatformState => "the verdict depends on platform state or upload order",
        }
    }
}

/// What a check enforces, in the spec's words: `spec` quotes the spec (one
/// or more fragments joined by ` … `, each found verbatim in the spec), and
/// `clause` says why the check only warns, where it does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    pub spec: Option<String>,
    pub clause: Option<Clause>,
}

impl Trace {
    fn new(spec: Option<String>, clause: Option<Clause>) -> Trace {
        Trace { spec, clause }
    }

    /// The quoted fragments, in order.
    pub fn fragments(&self) -> impl Iterator<Item = &str> {
        self.spec
            .as_deref()
            .into_iter()
            .flat_map(|s| s.split(" … "))
            .map(str::trim)
            .filter(|f| !f.is_empty())
    }
}

/// A state of a cell that a condition tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CellState {
    /// The column is in the header and the cell is non-empty.
    Present,
    /// The column is absent or the cell is empty.
    Empty,
}

/// A compiled format table.
#[derive(Debug)]
pub struct Table {
    pub name: String,
    pub title: String,
    pub spec_section: String,
    pub direction: Direction,
    pub file_hints: Vec<String>,
    pub deprecated: Option<String>,
    pub notes: Vec<String>,
    pub columns: Vec<Column>,
    pub requires: Vec<Requires>,
    pub equal: Vec<Equal>,
    pub one_or_all: Vec<OneOrAll>,
    pub json: Vec<JsonRule>,
    pub order: Vec<Order>,
    /// Columns that together identify a person across rows (cross-row
    /// consistency, `identity-*` rules).
    pub identity: Option<Identity>,
    /// Values (or composites) that must not repeat in a file.
    pub unique: Vec<Unique>,
    /// Cells that name a record another file defines: the run's files, a
    /// bundle's other member, `--entities` (the engine of
    /// `src/check/refs.rs`).
    pub references: Vec<Reference>,
    /// What a file says, once and last, about references no source could
    /// check. A format that has these has its references checked in a pass
    /// after the file's own check (`src/check/refs.rs`), not with the batch.
    pub unchecked: Vec<Unchecked>,
}

#[derive(Debug)]
pub struct Column {
    pub name: String,
    /// `name` as compared with header names (see [`normalize_name`]).
    pub normalized: String,
    /// Whether cells must be filled.
    pub requirement: Requirement,
    /// Whether the header must name the column.
    pub header: Requirement,
    pub shape: Shape,
    /// Severity of shape findings on this column; `None` keeps the rule's.
    pub severity: Option<Severity>,
    /// Severity of a list element that repeats an earlier one; `None`
    /// keeps `severity`.
    pub repeat_severity: Option<Severity>,
    /// Severity of a list element that is not one of `values` (where the
    /// spec lists the values "used"); `None` keeps `severity`.
    pub values_severity: Option<Severity>,
    /// Severity of an integer outside `min..=max`; `None` keeps `severity`.
    pub range_severity: Option<Severity>,
    /// The cells are identifiers (IDs of records, people, entities): a
    /// spreadsheet that took one for a number loses digits
    /// (`scientific-notation-id`).
    pub identifier: bool,
    pub note: Option<String>,
    pub example: Option<String>,
    pub trace: Trace,
}

/// Columns are referred to by their index in [`Table::columns`].
pub type ColumnId = usize;

#[derive(Debug)]
pub enum Condition {
    Always,
    Present(ColumnId),
    Empty(ColumnId),
    In(ColumnId, Vec<String>),
}

#[derive(Debug)]
pub struct Requires {
    pub when: Condition,
    pub all: Vec<ColumnId>,
    pub any: Vec<ColumnId>,
    pub severity: Option<Severity>,
    pub reason: String,
    pub trace: Trace,
}

#[derive(Debug)]
pub struct Equal {
    pub column: ColumnId,
    pub to: ColumnId,
    pub ignore_case: bool,
    pub severity: Option<Severity>,
    pub reason: String,
    pub trace: Trace,
}

#[derive(Debug)]
pub struct OneOrAll {
    pub columns: Vec<ColumnId>,
    pub severity: Option<Severity>,
    pub reason: String,
    pub trace: Trace,
}

/// Which grammar a JSON cell follows.
#[derive(Debug)]
pub enum Grammar {
    /// A schema of `rules/json.toml`.
    Schema(&'static json::Spec),
    /// The filter-expression grammar; the fields allowed depend on the
    /// filter type in `type_column`.
    Filter { type_column: ColumnId },
}

/// A JSON column bound to a grammar, checked on rows where every `when`
/// condition holds.
#[derive(Debug)]
pub struct JsonRule {
    pub column: ColumnId,
    pub grammar: Grammar,
    pub when: Vec<Condition>,
    pub trace: Trace,
}

/// Two date columns whose values must not be in reverse order.
#[derive(Debug)]
pub struct Order {
    pub earlier: ColumnId,
    pub later: ColumnId,
    pub severity: Option<Severity>,
    pub reason: String,
    pub trace: Trace,
}

/// The identity columns of a format whose rows must pair them consistently.
/// Always three: the cross-row state stores, per value, the fingerprints of
/// its two partner columns (see `src/check/cross.rs`).
#[derive(Debug)]
pub struct Identity {
    pub columns: [ColumnId; 3],
    pub trace: Trace,
}

/// A column, or a composite of columns, whose value must not repeat.
#[derive(Debug)]
pub struct Unique {
    pub columns: Vec<ColumnId>,
    pub severity: Option<Severity>,
    pub ignore_case: bool,
    pub reason: String,
    pub trace: Trace,
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
    pub column: String,
    pub values: Vec<String>,
}

impl Values {
    pub fn matches(&self, cell: &str) -> bool {
        let cell = cell.trim();
        self.values.iter().any(|v| cell.eq_ignore_ascii_case(v))
    }
}

/// A reference from a cell of this format to the key column of another
/// format's rows, checked across the files of one run. The target's side
/// (`key`, `type_key`, `gone`) is validated against the target table once
/// all tables are parsed (see [`tables`]), so that tables may refer to each
/// other without parsing one another.
#[derive(Debug)]
pub struct Reference {
    /// The referring column.
    pub column: ColumnId,
    /// The cell is a comma-separated list; each element is a reference.
    pub list: bool,
    /// Which part of a value (or element) is the key; `None`: all of it.
    pub part: Option<Part>,
    /// A compound key: the referring row's type column, whose value goes
    /// with the cell's as `(type, key)`; set exactly when `type_key` is.
    pub type_column: Option<ColumnId>,
    /// The format whose rows define keys.
    pub target: String,
    /// The target's key column, a header name.
    pub key: String,
    /// The target's type column of a compound key, a header name.
    pub type_key: Option<String>,
    /// Keys compare ignoring case (types of a compound key always do).
    pub ignore_case: bool,
    /// The key column is not one the target's table declares (the
    /// campaigns upload has no `ID`; an edited download has one).
    pub undeclared_key: bool,
    /// Target rows that do not define their key (they delete it).
    pub gone: Option<Values>,
    /// Referring rows that are not checked (a column of this table).
    pub skip: Option<Values>,
    /// Only referring rows whose column holds one of the values are
    /// checked (a column of this table): with `skip` on another entry, it
    /// routes one cell to one of two targets by the row's type.
    pub when: Option<Values>,
    /// Where the target's keys come from, in the order that decides which
    /// source's rule and message an undefined key gets.
    pub sources: Vec<Source>,
    /// Whether, and how, references no source could check are said in the
    /// table's `[[unchecked]]` info; `None`: nothing is said.
    pub unchecked: Option<UncheckedMode>,
    /// What a finding points at.
    pub span: SpanOf,
    /// Message and help for a key only `gone` rows hold; set exactly when
    /// `gone` is.
    pub gone_message: Option<String>,
    pub gone_help: Option<String>,
    pub trace: Trace,
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
    pub fn name(self) -> &'static str {
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
    pub from: KeySource,
    /// The source decides only for rows whose type (compound key) is one
    /// of these, in any case; `None`: for every row.
    pub types: Option<Vec<String>>,
    /// The registry rule findings report, at its default severity.
    pub rule: &'static crate::rules::Rule,
    /// Message and help for a key no available source defines.
    pub message: String,
    pub help: String,
}

impl Source {
    /// Whether the source decides for a row of type `ty`.
    pub fn covers(&self, ty: Option<&str>) -> bool {
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

/// A table's `[[unchecked]]`: one info a file, after its references, when
/// references to exactly `targets` went unchecked.
#[derive(Debug)]
pub struct Unchecked {
    pub targets: Vec<String>,
    pub rule: &'static crate::rules::Rule,
    pub message: String,
    pub help: String,
    pub trace: Trace,
}

/// The placeholders a reference's message and help may use: the key as
/// quoted in messages, the whole value (element) it was taken from, the
/// key as written (trimmed, whole), the type of a compound key (trimmed)
/// and, for a `gone` key only, the file and line of the row that deletes
/// it.
pub const PLACEHOLDERS: [&str; 5] = ["{value}", "{cell}", "{key}", "{type}", "{place}"];

/// The placeholders of an `[[unchecked]]` message: the number of cells a
/// `count` target left unchecked, and `s` / `was` agreeing with it.
pub const COUNT_PLACEHOLDERS: [&str; 3] = ["{count}", "{s}", "{was}"];

/// Checks that a message template uses only `known` placeholders.
fn check_placeholders(text: &str, known: &[&str]) -> Result<(), String> {
    let mut rest = text;
    while let Some(at) = rest.find('{') {
        let tail = &rest[at..];
        let p = known
            .iter()
            .find(|p| tail.starts_with(*p))
            .ok_or_else(|| format!("unknown placeholder in {text:?} (known here: {known:?})"))?;
        rest = &tail[p.len()..];
    }
    Ok(())
}

/// Checks that a message template uses only known placeholders, `{place}`
/// only where a deleting row exists to name, `{type}` only with a compound
/// key.
#[cfg(test)]
fn check_template(text: &str, gone: bool) -> Result<(), String> {
    check_template_of(text, gone, true)
}

fn check_template_of(text: &str, gone: bool, typed: bool) -> Result<(), String> {
    let known: Vec<&str> = PLACEHOLDERS
        .iter()
        .copied()
        .filter(|p| (gone || *p != "{place}") && (typed || *p != "{type}"))
        .collect();
    check_placeholders(text, &known).map_err(|e| {
        if text.contains("{place}") && !gone {
            format!("{{place}} in {text:?}: only a gone_message or gone_help has a deleting row to name")
        } else if text.contains("{type}") && !typed {
            format!("{{type}} in {text:?}: only a compound key (`type_column`) has a type")
        } else {
            e
        }
    })
}

fn find_rule(code: &str) -> Result<&'static crate::rules::Rule, String> {
    crate::rules::ALL
        .iter()
        .copied()
        .find(|k| k.code == code)
        .ok_or_else(|| format!("no rule with code {code:?} in the registry"))
}

/// A table that does not compile: a bug in `rules/`, caught by tests.
#[derive(Debug, Clone, thiserror::Error)]
#[error("rules/{format}.toml: {message}")]
pub struct TableError {
    pub format: String,
    pub message: String,
}

impl Table {
    /// Parses and validates one table.
    pub fn parse(format: &str, text: &str) -> Result<Table, TableError> {
        let err = |message: String| TableError {
            format: format.to_owned(),
            message,
        };
        let raw: RawTable = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        if raw.name != format {
            return Err(err(format!(
                "name = {:?} does not match the registry name",
                raw.name
            )));
        }
        let mut columns = Vec::with_capacity(raw.columns.len());
        for c in raw.columns {
            if columns.iter().any(|k: &Column| k.name == c.name) {
                return Err(err(format!("column {:?} is defined twice", c.name)));
            }
            let shape = Shape::compile(
                c.shape.as_deref().unwrap_or("text"),
                c.values,
                c.min,
                c.max,
                c.braces,
            )
            .map_err(|m| err(format!("column {:?}: {m}", c.name)))?;
            // A cell the spec requires is required; one it is unsure about
            // is optional. Only a header may be `recommended` (Filters
            // `Status`, where the spec contradicts itself about the column).
            if c.requirement == Requirement::Recommended {
                return Err(err(format!(
                    "column {:?}: `requirement` is `required` or `optional`; only `header` may be `recommended`",
                    c.name
                )));
            }
            if (c.repeat_severity.is_some() || c.values_severity.is_some())
                && !matches!(shape, Shape::List { .. })
            {
                return Err(err(format!(
                    "column {:?}: only a list takes `repeat_severity` or `values_severity`",
                    c.name
                )));
            }
            if c.identifier && shape != Shape::Text {
                return Err(err(format!(
                    "column {:?}: only a text column takes `identifier`",
                    c.name
                )));
            }
            if c.range_severity.is_some() && !matches!(shape, Shape::Integer { .. }) {
                return Err(err(format!(
                    "column {:?}: only an integer takes `range_severity`",
                    c.name
                )));
            }
            columns.push(Column {
                normalized: normalize_name(&c.name),
                header: c.header.unwrap_or(c.requirement),
                name: c.name,
                requirement: c.requirement,
                shape,
                severity: c.severity,
                repeat_severity: c.repeat_severity,
                values_severity: c.values_severity,
                range_severity: c.range_severity,
                identifier: c.identifier,
                note: c.note,
                example: c.example,
                trace: Trace::new(c.spec, c.clause),
            });
        }
        let find = |name: &str| -> Result<ColumnId, TableError> {
            columns
                .iter()
                .position(|c| c.name == name)
                .ok_or_else(|| err(format!("unknown column {name:?} in a condition")))
        };
        let condition = |c: RawCondition| -> Result<Condition, TableError> {
            let id = find(&c.column)?;
            match (c.is, c.in_values) {
                (Some(CellState::Present), None) => Ok(Condition::Present(id)),
                (Some(CellState::Empty), None) => Ok(Condition::Empty(id)),
                (None, Some(v)) if !v.is_empty() => Ok(Condition::In(id, v)),
                _ => Err(err(format!(
                    "condition on {:?} needs exactly one of `is` or a non-empty `in`",
                    c.column
                ))),
            }
        };
        let mut requires = Vec::new();
        for r in raw.requires {
            let when = match r.when {
                None => Condition::Always,
                Some(c) => condition(c)?,
            };
            if r.all.is_empty() == r.any.is_empty() {
                return Err(err(format!(
                    "requires ({}) needs exactly one of `all` or `any`",
                    r.reason
                )));
            }
            requires.push(Requires {
                when,
                all: r.all.iter().map(|n| find(n)).collect::<Result<_, _>>()?,
                any: r.any.iter().map(|n| find(n)).collect::<Result<_, _>>()?,
                severity: r.severity,
                reason: r.reason,
                trace: Trace::new(r.spec, r.clause),
            });
        }
        let equal = raw
            .equal
            .into_iter()
            .map(|e| {
                Ok(Equal {
                    column: find(&e.column)?,
                    to: find(&e.to)?,
                    ignore_case: e.ignore_case,
                    severity: e.severity,
                    reason: e.reason,
                    trace: Trace::new(e.spec, e.clause),
                })
            })
            .collect::<Result<_, TableError>>()?;
        let one_or_all = raw
            .one_or_all
            .into_iter()
            .map(|o| {
                if o.columns.len() < 2 {
                    return Err(err("one_or_all needs at least two columns".into()));
                }
                Ok(OneOrAll {
                    columns: o
                        .columns
                        .iter()
                        .map(|n| find(n))
                        .collect::<Result<_, _>>()?,
                    severity: o.severity,
                    reason: o.reason,
                    trace: Trace::new(o.spec, o.clause),
                })
            })
            .collect::<Result<_, TableError>>()?;
        let mut json = Vec::new();
        for j in raw.json {
            let column = find(&j.column)?;
            if !matches!(columns[column].shape, Shape::Json(_)) {
                return Err(err(format!(
                    "[[json]] binds {:?}, whose shape is not JSON",
                    j.column
                )));
            }
            let grammar = match (j.schema, j.grammar.as_deref(), j.type_column) {
                (Some(name), None, None) => {
                    let g = json::grammars().map_err(|m| err(m.to_owned()))?;
                    let spec = g.schemas.get(&name).ok_or_else(|| {
                        err(format!("[[json]] on {:?}: no schema {name:?} in rules/json.toml", j.column))
                    })?;
                    Grammar::Schema(spec)
                }
                (None, Some("filter"), Some(t)) => Grammar::Filter {
                    type_column: find(&t)?,
                },
                _ => {
                    return Err(err(format!(
                        "[[json]] on {:?} needs `schema = \"<name>\"` or `grammar = \"filter\"` with `type_column`",
                        j.column
                    )))
                }
            };
            let when = j
                .when
                .into_iter()
                .map(condition)
                .collect::<Result<_, _>>()?;
            json.push(JsonRule {
                column,
                grammar,
                when,
                trace: Trace::new(j.spec, j.clause),
            });
        }
        let mut order = Vec::new();
        for o in raw.order {
            let (earlier, later) = (find(&o.earlier)?, find(&o.later)?);
            let same = match (&columns[earlier].shape, &columns[later].shape) {
                (Shape::Date(a), Shape::Date(b)) => a == b,
                _ => false,
            };
            if !same {
                return Err(err(format!(
                    "[[order]] needs two columns of the same date shape: {:?}, {:?}",
                    o.earlier, o.later
                )));
            }
            order.push(Order {
                earlier,
                later,
                severity: o.severity,
                reason: o.reason,
                trace: Trace::new(o.spec, o.clause),
            });
        }
        let identity = match raw.identity {
            None => None,
            Some(i) => {
                let ids = distinct_columns(&i.columns, "identity", &columns).map_err(err)?;
                let columns: [ColumnId; 3] = ids.try_into().map_err(|_| {
                    err("identity needs exactly three columns (the cross-row state stores two partners per value)".into())
                })?;
                Some(Identity {
                    columns,
                    trace: Trace::new(i.spec, i.clause),
                })
            }
        };
        let unique = raw
            .unique
            .into_iter()
            .map(|u| {
                Ok(Unique {
                    columns: distinct_columns(&u.columns, "unique", &columns).map_err(err)?,
                    severity: u.severity,
                    ignore_case: u.ignore_case,
                    reason: u.reason,
                    trace: Trace::new(u.spec, u.clause),
                })
            })
            .collect::<Result<_, TableError>>()?;
        let mut references = Vec::new();
        for r in raw.references {
            let at = |m: String| err(format!("[[references]] on {:?}: {m}", r.column));
            let column = columns
                .iter()
                .position(|c| c.name == r.column)
                .ok_or_else(|| at("unknown column".into()))?;
            // The engine splits and cuts values the way the column's shape
            // reads them; a reference that disagreed with the shape would
            // look for keys in text the cell check calls malformed.
            let shape = &columns[column].shape;
            if r.list != matches!(shape, Shape::List { .. }) {
                return Err(at(
                    "`list = true` exactly when the column's shape is `list`".into(),
                ));
            }
            if r.part == Some(Part::IntegrationId) && *shape != Shape::IntegrationRef {
                return Err(at(
                    "`part = \"integration-id\"` needs a column of shape `integration-ref`".into(),
                ));
            }
            if !format_names().any(|n| n == r.target) {
                return Err(at(format!("no format {:?} to refer to", r.target)));
            }
            let rule = find_rule(&r.rule).map_err(at)?;
            let known = |c: &str| columns.iter().any(|k| k.name == c);
            let skip = r.skip.map(|v| values(v, known)).transpose().map_err(at)?;
            let when = r.when.map(|v| values(v, known)).transpose().map_err(at)?;
            let gone = r
                .gone
                .map(|v| values(v, |_| true))
                .transpose()
                .map_err(at)?;
            if gone.is_some() != (r.gone_message.is_some() && r.gone_help.is_some())
                || r.gone_message.is_some() != r.gone_help.is_some()
            {
                return Err(at(
                    "`gone_message` and `gone_help` are set exactly when `gone` is".into(),
                ));
            }
            let type_column = match (&r.type_column, &r.type_key) {
                (None, None) => None,
                (Some(c), Some(_)) => Some(
                    columns
                        .iter()
                        .position(|k| k.name == *c)
                        .ok_or_else(|| at(format!("`type_column` names unknown column {c:?}")))?,
                ),
                _ => {
                    return Err(at(
                        "`type_column` and `type_key` are set together (a compound key)".into(),
                    ))
                }
            };
            let typed = type_column.is_some();
            if typed && (r.list || r.part.is_some()) {
                return Err(at(
                    "a compound key (`type_column`) takes a whole cell: no `list`, no `part`"
                        .into(),
                ));
            }
            let sources: Vec<Source> = match r.sources {
                None => vec![Source {
                    from: KeySource::Run,
                    types: None,
                    rule,
                    message: r.message.clone(),
                    help: r.help.clone(),
                }],
                Some(raw) if raw.is_empty() => return Err(at("`sources` is empty".into())),
                Some(raw) => raw
                    .into_iter()
                    .map(|s| {
                        if s.types.as_ref().is_some_and(|t| {
                            t.is_empty() || t.iter().any(|x| x.trim().is_empty())
                        }) {
                            return Err(format!("`types` of source {:?} needs non-empty values", s.from.name()));
                        }
                        if s.types.is_some() && !typed {
                            return Err(format!("`types` of source {:?}: only a compound key (`type_column`) has a type", s.from.name()));
                        }
                        Ok(Source {
                            from: s.from,
                            types: s.types,
                            rule: s.rule.as_deref().map_or(Ok(rule), find_rule)?,
                            message: s.message.unwrap_or_else(|| r.message.clone()),
                            help: s.help.unwrap_or_else(|| r.help.clone()),
                        })
                    })
                    .collect::<Result<_, String>>()
                    .map_err(at)?,
            };
            for (i, s) in sources.iter().enumerate() {
                if sources[..i].iter().any(|x| x.from == s.from) {
                    return Err(at(format!("source {:?} is listed twice", s.from.name())));
                }
                if s.from == KeySource::EntitiesFlag && r.target != "entities" {
                    return Err(at(
                        "the `--entities` source reads entities CSV files: `target = \"entities\"`"
                            .into(),
                    ));
                }
                if gone.is_some() && s.from != KeySource::Run {
                    return Err(at(format!(
                        "`gone` names the deleting row's file, which only a `run` source has, not {:?}",
                        s.from.name()
                    )));
                }
                for text in [&s.message, &s.help] {
                    check_template_of(text, false, typed).map_err(at)?;
                }
            }
            for text in [&r.message, &r.help] {
                check_template_of(text, false, typed).map_err(at)?;
            }
            for text in [&r.gone_message, &r.gone_help].into_iter().flatten() {
                check_template_of(text, true, typed).map_err(at)?;
            }
            references.push(Reference {
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
            });
        }
        let unchecked = unchecked_infos(raw.unchecked, &references).map_err(err)?;
        Ok(Table {
            name: raw.name,
            title: raw.title,
            spec_section: raw.spec_section,
            direction: raw.direction,
            file_hints: raw.file_hints,
            deprecated: raw.deprecated,
            notes: raw.notes,
            columns,
            requires,
            equal,
            one_or_all,
            json,
            order,
            identity,
            unique,
            references,
            unchecked,
        })
    }

    pub fn column(&self, name: &str) -> Option<ColumnId> {
        self.columns.iter().position(|c| c.name == name)
    }
}

/// One check a table makes, as `bdxlint formats` and the traceability
/// test see it: what it is, the severities its findings can have, and the
/// spec words it rests on.
#[derive(Debug)]
pub struct Check<'a> {
    /// `column "Start Date"`, `requires (every employee needs a name)`, ...
    pub what: String,
    /// Whether some finding of the check is an error.
    pub errs: bool,
    /// Whether some finding of the check is a warning (or softer).
    pub warns: bool,
    /// Whether every finding of the check is an info (what could not be
    /// checked).
    pub infos: bool,
    pub trace: &'a Trace,
}

impl Table {
    /// Every check the table makes, in table order: columns that require,
    /// shape or ask for something (not optional free text), then each
    /// `[[requires]]`, `[[equal]]`, `[[one_or_all]]`, `[[json]]`,
    /// `[[order]]`, `[[unique]]`, `[identity]` and each `[[references]]`.
    /// Severities are the table's where it sets one, else the rule's
    /// default.
    pub fn checks(&self) -> Vec<Check<'_>> {
        use crate::rules;
        let mut out = Vec::new();
        let mut push = |what: String, sevs: &[Severity], trace| {
            out.push(Check {
                what,
                errs: sevs.contains(&Severity::Error),
                warns: sevs.iter().any(|s| *s != Severity::Error),
                infos: !sevs.is_empty() && sevs.iter().all(|s| *s == Severity::Info),
                trace,
            })
        };
        for c in &self.columns {
            let mut sevs = Vec::new();
            if c.requirement == Requirement::Required || c.header == Requirement::Required {
                sevs.push(rules::EMPTY_REQUIRED_CELL.severity);
            }
            if c.header == Requirement::Recommended {
                sevs.push(rules::MISSING_RECOMMENDED_COLUMN.severity);
            }
            if c.shape != Shape::Text {
                // Every shape rule is an error by default.
                let shape = c.severity.unwrap_or(Severity::Error);
                sevs.push(shape);
                match c.shape {
                    Shape::List { ref values, .. } => {
                        sevs.push(c.repeat_severity.unwrap_or(shape));
                        if values.is_some() {
                            sevs.push(c.values_severity.unwrap_or(shape));
                        }
                    }
                    Shape::Integer { min, max } if min.is_some() || max.is_some() => {
                        sevs.push(c.range_severity.unwrap_or(shape))
                    }
                    // Another scheme than http(s) is a URL all the same.
                    Shape::Url => sevs.push(Severity::Warning),
                    _ => {}
                }
            }
            if !sevs.is_empty() {
                push(format!("column {:?}", c.name), &sevs, &c.trace);
            }
        }
        for r in &self.requires {
            let rule = if r.any.is_empty() {
                &rules::MISSING_DEPENDENT_VALUE
            } else {
                &rules::MISSING_ONE_OF
            };
            let sev = r.severity.unwrap_or(rule.severity);
            push(format!("requires ({})", r.reason), &[sev], &r.trace);
        }
        for e in &self.equal {
            let sev = e.severity.unwrap_or(rules::MISMATCHED_VALUES.severity);
            push(format!("equal ({})", e.reason), &[sev], &e.trace);
        }
        for o in &self.one_or_all {
            let sev = o.severity.unwrap_or(rules::PARTIAL_COLUMN_GROUP.severity);
            push(format!("one_or_all ({})", o.reason), &[sev], &o.trace);
        }
        for j in &self.json {
            let name = &self.columns[j.column].name;
            // Syntax and stated types are errors; a grammar may also warn
            // (unknown keys, soft types). The filter grammar only fails.
            let warns = match &j.grammar {
                Grammar::Schema(spec) => spec.can_warn(),
                Grammar::Filter { .. } => false,
            };
            let sevs: &[Severity] = if warns {
                &[Severity::Error, Severity::Warning]
            } else {
                &[Severity::Error]
            };
            push(format!("json {name:?}"), sevs, &j.trace);
        }
        for o in &self.order {
            let sev = o.severity.unwrap_or(rules::DATE_ORDER.severity);
            push(format!("order ({})", o.reason), &[sev], &o.trace);
        }
        for u in &self.unique {
            let sev = u.severity.unwrap_or(rules::DUPLICATE_VALUE.severity);
            push(format!("unique ({})", u.reason), &[sev], &u.trace);
        }
        if let Some(i) = &self.identity {
            let sevs = [
                rules::IDENTITY_CONFLICT.severity,
                rules::IDENTITY_COMBINATION.severity,
                rules::IDENTITY_PARTNER_MISMATCH.severity,
            ];
            push("identity".into(), &sevs, &i.trace);
        }
        for r in &self.references {
            let rules: Vec<String> = r
                .sources
                .iter()
                .map(|s| format!("{} {}", s.rule.code, s.rule.name))
                .fold(Vec::new(), |mut v, x| {
                    if !v.contains(&x) {
                        v.push(x);
                    }
                    v
                });
            let what = format!(
                "references {:?} -> {} {:?} ({})",
                self.columns[r.column].name,
                r.target,
                r.key,
                rules.join(", ")
            );
            let sevs: Vec<Severity> = r.sources.iter().map(|s| s.rule.severity).collect();
            push(what, &sevs, &r.trace);
        }
        for u in &self.unchecked {
            let what = format!(
                "unchecked references to {} ({} {})",
                u.targets.join(" and "),
                u.rule.code,
                u.rule.name
            );
            push(what, &[u.rule.severity], &u.trace);
        }
        out
    }
}

/// The spec text as quotes are compared with it: backticks dropped and
/// whitespace runs collapsed to one space, so a quote may cross a line
/// break and leave out code marks.
pub fn normalize_quote(text: &str) -> String {
    text.replace('`', "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A `{ column, in }` match; `known` says whether the column exists where
/// the match is made.
fn values(v: RawValues, known: impl Fn(&str) -> bool) -> Result<Values, String> {
    if !known(&v.column) {
        return Err(format!("unknown column {:?}", v.column));
    }
    if v.values.is_empty() || v.values.iter().any(|x| x.trim().is_empty()) {
        return Err(format!("`in` on {:?} needs non-empty values", v.column));
    }
    Ok(Values {
        column: v.column,
        values: v.values,
    })
}

/// The `[[unchecked]]` entries of a table, held to its references: every
/// non-empty set of the targets whose references say what went unchecked
/// has exactly one entry, counts are asked only where a `count` target
/// gives one, and one rule says it all.
fn unchecked_infos(raw: Vec<RawUnchecked>, refs: &[Reference]) -> Result<Vec<Unchecked>, String> {
    let mut targets: Vec<(&str, UncheckedMode)> = Vec::new();
    for r in refs {
        let Some(mode) = r.unchecked else { continue };
        match targets.iter().find(|(t, _)| *t == r.target) {
            Some((_, m)) if *m != mode => {
                return Err(format!(
                    "[[references]] to {:?} disagree on `unchecked`",
                    r.target
                ))
            }
            Some(_) => {}
            None => targets.push((&r.target, mode)),
        }
    }
    if targets
        .iter()
        .filter(|(_, m)| *m == UncheckedMode::Count)
        .count()
        > 1
    {
        return Err("at most one target is counted (`unchecked = \"count\"`)".into());
    }
    let mut out: Vec<Unchecked> = Vec::new();
    for u in raw {
        let at = |m: String| format!("[[unchecked]] {:?}: {m}", u.targets);
        if u.targets.is_empty() {
            return Err(at("`targets` is empty".into()));
        }
        let mut counted = false;
        for (i, t) in u.targets.iter().enumerate() {
            match targets.iter().find(|(x, _)| x == t) {
                None => return Err(at(format!("no [[references]] to {t:?} sets `unchecked`"))),
                Some((_, m)) => counted |= *m == UncheckedMode::Count,
            }
            if u.targets[..i].contains(t) {
                return Err(at(format!("{t:?} is listed twice")));
            }
        }
        let mut set = u.targets.clone();
        set.sort();
        if out.iter().any(|o| {
            let mut x = o.targets.clone();
            x.sort();
            x == set
        }) {
            return Err(at("a second entry for the same targets".into()));
        }
        let rule = find_rule(&u.rule).map_err(at)?;
        if out.first().is_some_and(|o| !std::ptr::eq(o.rule, rule)) {
            return Err(at("every [[unchecked]] reports one rule".into()));
        }
        let known: &[&str] = if counted { &COUNT_PLACEHOLDERS } else { &[] };
        for text in [&u.message, &u.help] {
            check_placeholders(text, known).map_err(at)?;
        }
        out.push(Unchecked {
            targets: u.targets,
            rule,
            message: u.message,
            help: u.help,
            trace: Trace::new(u.spec, u.clause),
        });
    }
    // Every combination the engine may meet has its words.
    let n = targets.len();
    if n > 8 {
        return Err("too many targets say what went unchecked".into());
    }
    for mask in 1u32..(1 << n) {
        let mut set: Vec<&str> = (0..n)
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| targets[i].0)
            .collect();
        set.sort_unstable();
        let has = out.iter().any(|o| {
            let mut x: Vec<&str> = o.targets.iter().map(String::as_str).collect();
            x.sort_unstable();
            x == set
        });
        if !has {
            return Err(format!("no [[unchecked]] for targets {set:?}"));
        }
    }
    Ok(out)
}

/// Validates the target side of every reference once all tables are
/// parsed: the key column is one the target declares (or, with
/// `undeclared_key`, one it does not), and `gone` names a target column.
fn link(tables: &[&Table]) -> Result<(), TableError> {
    for t in tables {
        for r in &t.references {
            let err = |message: String| TableError {
                format: t.name.clone(),
                message: format!(
                    "[[references]] on {:?}: {message}",
                    t.columns[r.column].name
                ),
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

/// Resolves a non-empty list of distinct column names of a `what` section.
fn distinct_columns(
    names: &[String],
    what: &str,
    columns: &[Column],
) -> Result<Vec<ColumnId>, String> {
    if names.is_empty() {
        return Err(format!("{what} needs at least one column"));
    }
    let mut ids = Vec::with_capacity(names.len());
    for n in names {
        let id = columns
            .iter()
            .position(|c| &c.name == n)
            .ok_or_else(|| format!("{what} names unknown column {n:?}"))?;
        if ids.contains(&id) {
            return Err(format!("{what} names column {n:?} twice"));
        }
        ids.push(id);
    }
    Ok(ids)
}

/// The form in which header names are compared for near misses: trimmed,
/// without a trailing `*` (published templates mark required columns so),
/// lowercased, inner whitespace runs collapsed to one space.
pub fn normalize_name(name: &str) -> String {
    let name = name.trim();
    let name = name.strip_suffix('*').unwrap_or(name).trim_end();
    let mut out = String::with_capacity(name.len());
    for word in name.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&word.to_lowercase());
    }
    out
}

/// Each format's table, parsed the first time it is asked for: a run with
/// `--format` parses the one table it needs (parsing all of them was most
/// of start-up, about a millisecond). A table that fails to parse is a build
/// bug, so the error is kept and surfaced by the callers and by the tests.
fn parsed(i: usize) -> Result<&'static Table, &'static TableError> {
    static PARSED: [OnceLock<Result<Table, TableError>>; TABLES.len()] =
        [const { OnceLock::new() }; TABLES.len()];
    let (name, text) = TABLES[i];
    PARSED[i].get_or_init(|| Table::parse(name, text)).as_ref()
}

/// All format tables, in registry order.
pub fn tables() -> Result<&'static [&'static Table], &'static TableError> {
    static REGISTRY: OnceLock<Result<Vec<&'static Table>, TableError>> = OnceLock::new();
    REGISTRY
        .get_or_init(|| {
            let all = (0..TABLES.len())
                .map(parsed)
                .collect::<Result<Vec<_>, _>>()
                .map_err(Clone::clone)?;
            link(&all)?;
            Ok(all)
        })
        .as_ref()
        .map(Vec::as_slice)
}

/// Names of every format, in registry order (for `--format` and messages).
pub fn format_names() -> impl Iterator<Item = &'static str> {
    TABLES.iter().map(|(n, _)| *n)
}

/// Looks a table up by its `--format` name.
pub fn table(name: &str) -> Result<Option<&'static Table>, &'static TableError> {
    TABLES
        .iter()
        .position(|(n, _)| *n == name)
        .map(parsed)
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_parses_and_is_named_like_its_file() {
        let tables = tables().expect("every table in rules/ parses");
        assert_eq!(tables.len(), TABLES.len());
        for t in tables {
            assert!(!t.columns.is_empty(), "{} has columns", t.name);
        }
    }

    #[test]
    fn every_rules_file_is_registered() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/rules");
        for entry in std::fs::read_dir(dir).expect("rules/ is readable") {
            let path = entry.expect("dir entry").path();
            if path.extension().is_some_and(|e| e == "toml") {
                let stem = path.file_stem().and_then(|s| s.to_str()).expect("utf-8");
                if stem == "json" {
                    // The JSON grammars, not a format (see schema::json).
                    continue;
                }
                assert!(
                    format_names().any(|n| n == stem),
                    "rules/{stem}.toml is not in the registry"
                );
            }
        }
    }

    #[test]
    fn unknown_keys_are_rejected() {
        let text = "name = \"x\"\ntitle = \"x\"\nspec_section = \"x\"\ndirection = \"upload\"\n\
                    [[columns]]\nname = \"A\"\nrequird = \"required\"\n";
        let e = Table::parse("x", text).expect_err("typo in key");
        assert!(e.message.contains("requird"), "{e}");
    }

    const HEAD: &str = "name = \"x\"\ntitle = \"x\"\nspec_section = \"x\"\ndirection = \"upload\"\n\
                        [[columns]]\nname = \"A\"\n[[columns]]\nname = \"B\"\n[[columns]]\nname = \"C\"\n";

    #[test]
    fn unique_and_identity_parse() {
        let text = format!(
            "{HEAD}[identity]\ncolumns = [\"C\", \"A\", \"B\"]\n\
             [[unique]]\ncolumns = [\"B\", \"A\"]\nseverity = \"warning\"\nignore_case = true\nreason = \"r\"\n"
        );
        let t = Table::parse("x", &text).expect("parses");
        assert_eq!(t.identity.map(|i| i.columns), Some([2, 0, 1]));
        assert_eq!(t.unique.len(), 1);
        assert_eq!(t.unique[0].columns, vec![1, 0]);
        assert_eq!(t.unique[0].severity, Some(Severity::Warning));
        assert!(t.unique[0].ignore_case);
    }

    #[test]
    fn unique_and_identity_are_validated() {
        for (bad, want) in [
            (
                "[[unique]]\ncolumns = [\"D\"]\nreason = \"r\"\n",
                "unknown column \"D\"",
            ),
            (
                "[[unique]]\ncolumns = []\nreason = \"r\"\n",
                "at least one column",
            ),
            (
                "[[unique]]\ncolumns = [\"A\", \"A\"]\nreason = \"r\"\n",
                "twice",
            ),
            (
                "[[unique]]\ncolumns = [\"A\"]\nreason = \"r\"\nignorecase = true\n",
                "ignorecase",
            ),
            ("[identity]\ncolumns = [\"A\", \"B\"]\n", "exactly three"),
            (
                "[identity]\ncolumns = [\"A\", \"B\", \"Z\"]\n",
                "unknown column \"Z\"",
            ),
            (
                "[identity]\ncolumns = [\"A\", \"B\", \"C\"]\nseverity = \"error\"\n",
                "severity",
            ),
        ] {
            let e = Table::parse("x", &format!("{HEAD}{bad}")).expect_err(bad);
            assert!(e.message.contains(want), "{bad}: {e}");
        }
    }

    /// A referring table `x` (L a list, I an integration ref, S a status)
    /// and what follows its columns.
    fn referring(rest: &str) -> Result<Table, TableError> {
        let text = format!(
            "name = \"x\"\ntitle = \"x\"\nspec_section = \"x\"\ndirection = \"upload\"\n\
             [[columns]]\nname = \"L\"\nshape = \"list\"\n\
             [[columns]]\nname = \"I\"\nshape = \"integration-ref\"\n\
             [[columns]]\nname = \"S\"\n\
             [[references]]\ntarget = \"filters\"\nrule = \"B011\"\n\
             message = \"m {{value}}\"\nhelp = \"h\"\n{rest}"
        );
        Table::parse("x", &text)
    }

    #[test]
    fn references_parse() {
        let t = referring(
            "column = \"L\"\nlist = true\nkey = \"ID\"\n\
             gone = { column = \"Status\", in = [\"deleted\"] }\n\
             skip = { column = \"S\", in = [\"deleted\"] }\n\
             gone_message = \"{value} at {place}\"\ngone_help = \"g\"\n",
        )
        .expect("parses");
        let r = &t.references[0];
        assert_eq!((r.column, r.list, r.part), (0, true, None));
        assert_eq!(r.sources[0].rule.code, "B011");
        assert!(r.skip.as_ref().is_some_and(|s| s.matches(" Deleted ")));
        assert!(r.gone.as_ref().is_some_and(|g| !g.matches("delete")));
        let filters = table("filters").expect("parses").expect("exists");
        assert!(link(&[&t, filters]).is_ok());
    }

    #[test]
    fn references_are_validated() {
        for (bad, want) in [
            ("column = \"Z\"\nkey = \"ID\"\n", "unknown column"),
            ("column = \"S\"\nkey = \"ID\"\nlist = true\n", "`list = true`"),
            ("column = \"L\"\nkey = \"ID\"\n", "`list = true`"),
            (
                "column = \"S\"\nkey = \"ID\"\npart = \"integration-id\"\n",
                "integration-ref",
            ),
            ("column = \"I\"\nkey = \"ID\"\npart = \"after-slash\"\n", "after-slash"),
            ("column = \"I\"\nkey = \"ID\"\ncolum = \"I\"\n", "colum"),
            (
                "column = \"I\"\nkey = \"ID\"\nskip = { column = \"Q\", in = [\"x\"] }\n",
                "unknown column \"Q\"",
            ),
            (
                "column = \"I\"\nkey = \"ID\"\nskip = { column = \"S\", in = [] }\n",
                "non-empty",
            ),
            (
                "column = \"I\"\nkey = \"ID\"\ngone = { column = \"Status\", in = [\"deleted\"] }\n",
                "gone_message",
            ),
            ("column = \"I\"\nkey = \"ID\"\ngone_help = \"g\"\n", "gone_message"),
            (
                "column = \"I\"\nkey = \"ID\"\nerror = \"at {place}\"\n",
                "error",
            ),
        ] {
            let e = referring(bad).expect_err(bad);
            assert!(e.message.contains(want), "{bad}: {e}");
        }
        let e = Table::parse(
            "x",
            "name = \"x\"\ntitle = \"x\"\nspec_section = \"x\"\ndirection = \"upload\"\n\
             [[columns]]\nname = \"A\"\n[[references]]\ncolumn = \"A\"\ntarget = \"nope\"\n\
             key = \"ID\"\nrule = \"B011\"\nmessage = \"m\"\nhelp = \"h\"\n",
        )
        .expect_err("unknown target");
        assert!(e.message.contains("no format \"nope\""), "{e}");
        for (bad, want) in [
            ("rule = \"B999\"\n", "B999"),
            ("rule = \"undefined-filter\"\n", "undefined-filter"),
        ] {
            let text = format!(
                "name = \"x\"\ntitle = \"x\"\nspec_section = \"x\"\ndirection = \"upload\"\n\
                 [[columns]]\nname = \"A\"\n[[references]]\ncolumn = \"A\"\ntarget = \"filters\"\n\
                 key = \"ID\"\nmessage = \"m\"\nhelp = \"h\"\n{bad}"
            );
            let e = Table::parse("x", &text).expect_err(bad);
            assert!(e.message.contains(want), "{bad}: {e}");
        }
        for (text, want) in [
            ("m {value", "unknown placeholder"),
            ("m {place}", "{place}"),
            ("m {vlaue}", "unknown placeholder"),
        ] {
            let e = check_template(text, false).expect_err(text);
            assert!(e.contains(want), "{text}: {e}");
        }
        let e = referring(
            "column = \"I\"\nkey = \"ID\"\npart = \"integration-id\"\n\
             gone = { column = \"Status\", in = [\"deleted\"] }\n\
             gone_message = \"{vlaue}\"\ngone_help = \"g\"\n",
        )
        .expect_err("typo in a placeholder");
        assert!(e.message.contains("unknown placeholder"), "{e}");
        assert!(check_template("m {value} {cell} {place}", true).is_ok());
    }

    /// A relations-like table `y`: an ID column `I`, a type column `T`,
    /// and what follows.
    fn typed(rest: &str) -> Result<Table, TableError> {
        let text = format!(
            "name = \"y\"\ntitle = \"y\"\nspec_section = \"y\"\ndirection = \"upload\"\n\
             [[columns]]\nname = \"I\"\n[[columns]]\nname = \"T\"\n{rest}"
        );
        Table::parse("y", &text)
    }

    const ENTITY_REF: &str = "[[references]]\ncolumn = \"I\"\ntype_column = \"T\"\n\
        target = \"entities\"\nkey = \"Source ID\"\ntype_key = \"Entity Type\"\n\
        rule = \"B006\"\nmessage = \"{type} `{key}`\"\nhelp = \"h\"\n";

    #[test]
    fn compound_keys_sources_and_unchecked_parse() {
        let t = typed(&format!(
            "{ENTITY_REF}skip = {{ column = \"T\", in = [\"employee\"] }}\nunchecked = \"file\"\n\
             sources = [{{ from = \"bundle\", types = [\"role\"], rule = \"B007\" }}, {{ from = \"--entities\" }}]\n\
             [[references]]\ncolumn = \"I\"\nwhen = {{ column = \"T\", in = [\"employee\"] }}\n\
             target = \"employees\"\nkey = \"Work Email\"\nignore_case = true\nunchecked = \"count\"\n\
             rule = \"B014\"\nmessage = \"m {{key}}\"\nhelp = \"h\"\n\
             [[unchecked]]\ntargets = [\"entities\"]\nrule = \"B010\"\nmessage = \"m\"\nhelp = \"h\"\n\
             [[unchecked]]\ntargets = [\"employees\", \"entities\"]\nrule = \"B010\"\nmessage = \"{{count}} end{{s}}\"\nhelp = \"h\"\n\
             [[unchecked]]\ntargets = [\"employees\"]\nrule = \"B010\"\nmessage = \"{{count}} {{was}}\"\nhelp = \"h\"\n"
        ))
        .expect("parses");
        let r = &t.references[0];
        assert_eq!(r.type_column, Some(1));
        let froms: Vec<_> = r.sources.iter().map(|s| (s.from, s.rule.code)).collect();
        assert_eq!(
            froms,
            [
                (KeySource::Bundle, "B007"),
                (KeySource::EntitiesFlag, "B006")
            ]
        );
        assert!(r.sources[0].covers(Some(" ROLE ")) && !r.sources[0].covers(Some("identity")));
        assert!(r.sources[1].covers(Some("identity")));
        // Without `sources`, the run, with the entry's rule and words.
        let e = &t.references[1];
        assert_eq!(e.sources.len(), 1);
        assert_eq!(
            (e.sources[0].from, e.sources[0].rule.code),
            (KeySource::Run, "B014")
        );
        assert_eq!(t.unchecked.len(), 3);
        let entities = table("entities").expect("parses").expect("exists");
        let employees = table("employees").expect("parses").expect("exists");
        assert!(link(&[&t, entities, employees]).is_ok());
    }

    #[test]
    fn compound_keys_sources_and_unchecked_are_validated() {
        for (rest, want) in [
            (
                ENTITY_REF.replace("type_key = \"Entity Type\"\n", ""),
                "set together",
            ),
            (
                ENTITY_REF.replace("type_column = \"T\"\n", ""),
                "set together",
            ),
            (
                ENTITY_REF.replace("type_column = \"T\"", "type_column = \"Q\""),
                "\"Q\"",
            ),
            (format!("{ENTITY_REF}sources = []\n"), "empty"),
            (
                format!("{ENTITY_REF}sources = [{{ from = \"run\" }}, {{ from = \"run\" }}]\n"),
                "twice",
            ),
            (
                format!("{ENTITY_REF}sources = [{{ from = \"disk\" }}]\n"),
                "disk",
            ),
            (
                format!("{ENTITY_REF}sources = [{{ from = \"run\", types = [] }}]\n"),
                "non-empty",
            ),
            (
                format!("{ENTITY_REF}sources = [{{ from = \"run\", rule = \"B999\" }}]\n"),
                "B999",
            ),
            (
                format!("{ENTITY_REF}sources = [{{ from = \"run\", message = \"{{place}}\" }}]\n"),
                "{place}",
            ),
            (
                ENTITY_REF.replace("target = \"entities\"", "target = \"employees\"")
                    + "sources = [{ from = \"--entities\" }]\n",
                "--entities",
            ),
            (
                "[[references]]\ncolumn = \"I\"\ntarget = \"employees\"\nkey = \"Work Email\"\n\
                 rule = \"B014\"\nmessage = \"{type}\"\nhelp = \"h\"\n"
                    .to_owned(),
                "{type}",
            ),
            (
                "[[references]]\ncolumn = \"I\"\ntarget = \"employees\"\nkey = \"Work Email\"\n\
                 rule = \"B014\"\nmessage = \"m\"\nhelp = \"h\"\n\
                 sources = [{ from = \"run\", types = [\"employee\"] }]\n"
                    .to_owned(),
                "compound",
            ),
            (
                format!("{ENTITY_REF}unchecked = \"file\"\n"),
                "no [[unchecked]] for targets [\"entities\"]",
            ),
            (
                format!(
                    "{ENTITY_REF}unchecked = \"file\"\n[[unchecked]]\ntargets = [\"entities\"]\n\
                     rule = \"B010\"\nmessage = \"{{count}}\"\nhelp = \"h\"\n"
                ),
                "unknown placeholder",
            ),
            (
                format!(
                    "{ENTITY_REF}[[unchecked]]\ntargets = [\"entities\"]\n\
                     rule = \"B010\"\nmessage = \"m\"\nhelp = \"h\"\n"
                ),
                "sets `unchecked`",
            ),
            (format!("{ENTITY_REF}unchecked = \"files\"\n"), "files"),
        ] {
            let e = typed(&rest).expect_err(&rest);
            assert!(e.message.contains(want), "{rest}: {e}");
        }
        // The target side: `type_key` is a column of the target.
        let t = typed(&ENTITY_REF.replace("type_key = \"Entity Type\"", "type_key = \"Kind\""))
            .expect("parses");
        let entities = table("entities").expect("parses").expect("exists");
        let e = link(&[&t, entities]).expect_err("no Kind");
        assert!(e.message.contains("`type_key` names \"Kind\""), "{e}");
    }

    #[test]
    fn a_reference_target_must_declare_its_key_and_gone_columns() {
        let filters = table("filters").expect("parses").expect("exists");
        for (rest, want) in [
            ("key = \"Nope\"\n", "no column \"Nope\""),
            (
                "key = \"ID\"\nundeclared_key = true\n",
                "drop `undeclared_key`",
            ),
            (
                "key = \"ID\"\ngone = { column = \"Gone\", in = [\"x\"] }\n\
                 gone_message = \"g\"\ngone_help = \"g\"\n",
                "`gone` names \"Gone\"",
            ),
        ] {
            let t = referring(&format!(
                "column = \"I\"\npart = \"integration-id\"\n{rest}"
            ))
            .expect(rest);
            let e = link(&[&t, filters]).expect_err(rest);
            assert!(e.message.contains(want), "{rest}: {e}");
        }
        let t = referring(
            "column = \"I\"\npart = \"integration-id\"\nkey = \"Secret\"\nundeclared_key = true\n",
        )
        .expect("parses");
        assert!(link(&[&t, filters]).is_ok());
        // The target must be among the linked tables.
        let t =
            referring("column = \"I\"\npart = \"integration-id\"\nkey = \"ID\"\n").expect("parses");
        assert!(link(&[&t]).is_err());
    }

    #[test]
    fn conditions_must_name_known_columns() {
        let text = "name = \"x\"\ntitle = \"x\"\nspec_section = \"x\"\ndirection = \"upload\"\n\
                    [[columns]]\nname = \"A\"\n[[requires]]\nall = [\"B\"]\nreason = \"r\"\n";
        let e = Table::parse("x", text).expect_err("unknown column");
        assert!(e.message.contains("\"B\""), "{e}");
    }
}
