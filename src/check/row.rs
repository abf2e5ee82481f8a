//! The per-record checker: quoting, field count, UTF-8, required cells,
//! shapes and the conditions between cells of a row, compiled once per file
//! from the table and the header ([`Plan`]).

use super::filter;
use super::grammar;
use super::header::{map_columns, Header, Mapping};
use super::shapes::{self, DateError};
use super::Emitter;
use crate::diagnostic::Severity;
use crate::json::{self, Doc};
use crate::rules;
use crate::scan::{raw_offset, unescape, FieldSpan, QuoteProblemKind, Record};
use crate::schema::shape::JsonKind;
use crate::schema::{Braces, ColumnId, Condition, Grammar, Requirement, Shape, Table};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::Arc;

/// Everything resolved once per file.
pub struct Plan {
    table: &'static Table,
    width: usize,
    map: Mapping,
    /// Requirements the header already fails for every row (reported once
    /// on the header, skipped on rows).
    settled: Vec<bool>,
    /// By field: the column whose cells need checking on their own, or
    /// `None` (no column, or optional free text, which any value fits).
    checked: Vec<Option<ColumnId>>,
}

/// Decoded cells of the current record, reused across records.
#[derive(Default)]
pub(crate) struct Cells<'a> {
    /// The whole chunk, when it is valid UTF-8 (checked once per chunk).
    text: Option<&'a str>,
    /// `None` when the cell is not valid UTF-8.
    values: Vec<Option<Cow<'a, str>>>,
    filled: Vec<bool>,
    /// Buffers reused by every JSON cell of the chunk.
    scratch: RefCell<JsonScratch>,
}

#[derive(Default)]
struct JsonScratch {
    nodes: Vec<json::Node>,
    findings: grammar::Findings,
}

impl<'a> Cells<'a> {
    /// Cells for records of `data`, which is validated as UTF-8 once here
    /// rather than cell by cell.
    pub(crate) fn for_chunk(data: &'a [u8]) -> Self {
        Cells {
            text: std::str::from_utf8(data).ok(),
            ..Cells::default()
        }
    }

    /// The decoded (unescaped, untrimmed) text of field `i`; `None` when it
    /// is not valid UTF-8.
    pub(crate) fn value(&self, i: usize) -> Option<&str> {
        self.values.get(i)?.as_deref()
    }

    /// Whether field `i` holds anything but whitespace.
    pub(crate) fn is_filled(&self, i: usize) -> bool {
        self.filled.get(i).copied().unwrap_or(false)
    }
}

/// The elements of one list cell seen so far. Lists are short: up to
/// `SMALL` elements are compared linearly without allocating; longer lists
/// move to a hash set, so a 200,000-element cell stays linear.
#[derive(Default)]
struct Seen<'a> {
    small: [&'a str; Seen::SMALL],
    n: usize,
    big: Option<HashSet<&'a str>>,
}

impl<'a> Seen<'a> {
    const SMALL: usize = 16;

    /// Whether `el` is new.
    fn insert(&mut self, el: &'a str) -> bool {
        if let Some(big) = &mut self.big {
            return big.insert(el);
        }
        if self.small[..self.n].contains(&el) {
            return false;
        }
        if self.n < Self::SMALL {
            self.small[self.n] = el;
            self.n += 1;
        } else {
            let mut big: HashSet<&str> = self.small.iter().copied().collect();
            big.insert(el);
            self.big = Some(big);
        }
        true
    }
}

/// Findings reported per list cell before the rest are only counted.
const MAX_LIST_FINDINGS: usize = 10;

/// Longest value quoted in a message.
const MAX_QUOTED: usize = 60;

/// A value as quoted in a message: shortened, on one line.
pub(crate) fn quote(v: &str) -> String {
    let one_line: String = v
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if one_line.chars().count() > MAX_QUOTED {
        let cut: String = one_line.chars().take(MAX_QUOTED).collect();
        format!("`{cut}…`")
    } else {
        format!("`{one_line}`")
    }
}

impl Plan {
    pub(crate) fn new(
        table: &'static Table,
        header: &Header,
        data: &[u8],
        rec: &Record,
        emit: &mut Emitter<'_>,
    ) -> Plan {
        let map = map_columns(table, header, data, rec, emit);
        let settled = table
            .requires
            .iter()
            .map(|r| {
                let hopeless = matches!(r.when, Condition::Always)
                    && !r.any.is_empty()
                    && r.any.iter().all(|c| map.col_field[*c].is_none());
                if hopeless {
                    let list = column_list(table, &r.any);
                    emit.row(
                        &rules::MISSING_ONE_OF,
                        r.severity,
                        rec,
                        format!("the header has none of {list}: {}", r.reason),
                        Some(format!(
                            "add at least one of {list} and fill it on every row"
                        )),
                    );
                }
                hopeless
            })
            .collect();
        let checked = map
            .field_col
            .iter()
            .map(|c| {
                c.filter(|&c| {
                    let col = &table.columns[c];
                    col.shape != Shape::Text || col.requirement != Requirement::Optional
                })
            })
            .collect();
        Plan {
            table,
            width: header.names.len(),
            map,
            settled,
            checked,
        }
    }

    pub fn table(&self) -> &'static Table {
        self.table
    }

    fn name(&self, field: usize) -> Option<Arc<str>> {
        Some(self.map.names[field].clone())
    }

    /// Checks one record. Returns whether its cells were decoded into
    /// `cells` (false for a row with broken quoting or the wrong field count,
    /// whose cells mean nothing and which cross-row rules skip).
    pub(crate) fn check_record<'a>(
        &self,
        data: &'a [u8],
        rec: &Record,
        cells: &mut Cells<'a>,
        emit: &mut Emitter<'_>,
    ) -> bool {
        let broken = !rec.problems.is_empty() || rec.fields.len() != self.width;
        if broken {
            // The cells are not checked, but bad bytes are still bad bytes.
            for (i, f) in rec.fields.iter().enumerate() {
                let (a, b) = f.content();
                report_utf8(data, a, b, f, self.map.names.get(i).cloned(), emit);
            }
        }
        if !rec.problems.is_empty() {
            report_quoting(data, rec, &self.map.names, emit);
            return false;
        }
        if rec.fields.len() != self.width {
            let (got, want) = (rec.fields.len(), self.width);
            emit.row(
                &rules::FIELD_COUNT,
                None,
                rec,
                format!("this row has {got} fields but the header has {want}"),
                Some(if got > want {
                    "quote values that contain commas, or remove the extra fields; the row's cells were not checked".into()
                } else {
                    "add the missing fields (empty ones are fine: `a,,c`); the row's cells were not checked".into()
                }),
            );
            return false;
        }
        cells.values.clear();
        cells.filled.clear();
        for (i, f) in rec.fields.iter().enumerate() {
            let (a, b) = f.content();
            let bytes = &data[a..b];
            // A chunk that is valid UTF-8 as a whole has valid cells (they
            // are cut at ASCII bytes), so the usual cell costs a slice.
            let text = match cells.text {
                Some(t) => t.get(a..b).ok_or(()),
                None => std::str::from_utf8(bytes).map_err(drop),
            };
            // "Empty" means what trimming means everywhere else: no
            // character but (Unicode) whitespace, so an NBSP-only cell is empty.
            let (value, filled) = match text {
                Ok(s) => (Some(unescape(s, f.escapes)), shapes::is_filled(s)),
                Err(()) => {
                    report_utf8(data, a, b, f, self.name(i), emit);
                    (None, true)
                }
            };
            cells.filled.push(filled);
            cells.values.push(value);
        }
        for (i, col) in self.checked.iter().enumerate() {
            if let Some(c) = *col {
                self.check_cell(data, &rec.fields[i], i, c, cells, emit);
            }
        }
        self.check_conditions(rec, cells, emit);
        self.check_order(rec, cells, emit);
        true
    }

    /// Date pairs that must not be in reverse order. Cells that are empty
    /// or not dates are left to their own findings.
    fn check_order(&self, rec: &Record, cells: &Cells<'_>, emit: &mut Emitter<'_>) {
        for o in &self.table.order {
            let (Some(ei), Some(li)) = (self.map.col_field[o.earlier], self.map.col_field[o.later])
            else {
                continue;
            };
            let Shape::Date(shape) = self.table.columns[o.earlier].shape else {
                continue;
            };
            let (Some(a), Some(b)) = (self.value(cells, o.earlier), self.value(cells, o.later))
            else {
                continue;
            };
            let ok = |v: &str| shapes::check_date(shape, v).is_ok();
            if a.is_empty() || b.is_empty() || !ok(a) || !ok(b) {
                continue;
            }
            let (Some(x), Some(y)) = (shapes::instant(shape, a), shapes::instant(shape, b)) else {
                continue;
            };
            if x > y {
                let (ename, lname) = (
                    &self.table.columns[o.earlier].name,
                    &self.table.columns[o.later].name,
                );
                let f = &rec.fields[ei];
                emit.in_field(
                    &rules::DATE_ORDER,
                    o.severity,
                    f.start..f.end,
                    f,
                    self.name(ei),
                    format!(
                        "`{ename}` {} is after `{lname}` {}: {}",
                        quote(a),
                        quote(b),
                        o.reason
                    ),
                    Some(format!("swap the dates, or correct `{ename}` or `{lname}`")),
                );
                let lf = &rec.fields[li];
                if let Some(d) = emit.diags.last_mut() {
                    d.related.push(crate::diagnostic::Related {
                        line: lf.line,
                        column: Some(self.map.names[li].clone()),
                        message: format!("`{lname}` is {}", quote(b)),
                    });
                }
            }
        }
    }

    /// The field that holds column `c`, if the header names it.
    pub(crate) fn field_of(&self, c: ColumnId) -> Option<usize> {
        self.map.col_field[c]
    }

    /// Header names by field, as diagnostics name them.
    pub(crate) fn field_names(&self) -> &[Arc<str>] {
        &self.map.names
    }

    fn check_cell(
        &self,
        data: &[u8],
        f: &FieldSpan,
        i: usize,
        c: ColumnId,
        cells: &Cells<'_>,
        emit: &mut Emitter<'_>,
    ) {
        let col = &self.table.columns[c];
        let span = f.start..f.end;
        let at = |emit: &mut Emitter<'_>,
                  rule: &'static rules::Rule,
                  sev: Option<Severity>,
                  msg: String,
                  help: String| {
            emit.in_field(rule, sev, span.clone(), f, self.name(i), msg, Some(help))
        };
        if !cells.filled[i] {
            match col.requirement {
                Requirement::Required => at(
                    emit,
                    &rules::EMPTY_REQUIRED_CELL,
                    None,
                    format!("`{}` is required but empty", col.name),
                    fill_help(col),
                ),
                Requirement::Recommended => at(
                    emit,
                    &rules::EMPTY_RECOMMENDED_CELL,
                    None,
                    format!("`{}` is empty; the spec describes it as required", col.name),
                    format!("fill in `{}`", col.name),
                ),
                Requirement::Optional => {}
            }
            return;
        }
        let Some(value) = cells.values[i].as_deref() else {
            return;
        };
        if col.shape == Shape::Text {
            return;
        }
        let sev = col.severity;
        let trimmed = shapes::trim(value);
        // Where `trimmed` starts within the unescaped value.
        let lead = if trimmed.len() == value.len() {
            0
        } else {
            value.len() - value.trim_start().len()
        };
        // JSON ignores whitespace around values (pretty-printed cells end in
        // a newline); every other shape is read as the exact text.
        let json = matches!(col.shape, Shape::Json(_));
        if trimmed.len() != value.len() && !json {
            at(
                emit,
                &rules::SURROUNDING_WHITESPACE,
                None,
                format!("{} has spaces around it", quote(value)),
                format!("write {} without the spaces", quote(trimmed)),
            );
        }
        let v = trimmed;
        match &col.shape {
            Shape::Text => {}
            Shape::Email => {
                if !shapes::is_email(v) {
                    at(
                        emit,
                        &rules::INVALID_EMAIL,
                        sev,
                        format!("{} is not an e-mail address", quote(v)),
                        format!(
                            "write `{}` as a full address, like name@example.com",
                            col.name
                        ),
                    );
                }
            }
            Shape::Date(d) => match shapes::check_date(*d, v) {
                Ok(()) => {}
                Err(DateError::Shape) => at(
                    emit,
                    &rules::INVALID_DATE,
                    sev,
                    format!("{} is not {}", quote(v), d.describe()),
                    format!("write `{}` as {}", col.name, d.describe()),
                ),
                Err(DateError::NotReal(why)) => at(
                    emit,
                    &rules::INVALID_DATE,
                    sev,
                    format!("{}: {why}", quote(v)),
                    format!("write a real date, as {}", d.describe()),
                ),
            },
            Shape::Bool(spelling) => {
                let (t, fa) = spelling.words();
                if v == t || v == fa {
                } else if v.eq_ignore_ascii_case(t) || v.eq_ignore_ascii_case(fa) {
                    let right = if v.eq_ignore_ascii_case(t) { t } else { fa };
                    at(
                        emit,
                        &rules::BOOLEAN_CASE,
                        None,
                        format!(
                            "{} is spelt `{right}` in the {} format",
                            quote(v),
                            self.table.name
                        ),
                        format!("write `{right}`"),
                    );
                } else {
                    at(
                        emit,
                        &rules::INVALID_BOOLEAN,
                        sev,
                        format!("{} is not `{t}` or `{fa}`", quote(v)),
                        format!("write `{t}` or `{fa}`"),
                    );
                }
            }
            Shape::Integer { min, max } => match shapes::parse_integer(v) {
                Err(shapes::IntError::NotInteger) => at(
                    emit,
                    &rules::INVALID_INTEGER,
                    sev,
                    format!("{} is not an integer", quote(v)),
                    format!("write `{}` as an {}", col.name, col.shape.describe()),
                ),
                Err(shapes::IntError::TooLarge) => at(
                    emit,
                    &rules::INVALID_INTEGER,
                    sev,
                    format!("{} is out of range for `{}`", quote(v), col.name),
                    format!("write an {}", col.shape.describe()),
                ),
                Ok(n) if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) => at(
                    emit,
                    &rules::INVALID_INTEGER,
                    sev,
                    format!("{n} is out of range for `{}`", col.name),
                    format!("write an {}", col.shape.describe()),
                ),
                Ok(_) => {}
            },
            Shape::Enum(values) => {
                if !values.iter().any(|x| x == v) {
                    at(
                        emit,
                        &rules::INVALID_ENUM,
                        sev,
                        format!("{} is not a value of `{}`", quote(v), col.name),
                        enum_help(v, values),
                    );
                }
            }
            Shape::List { values, braces } => {
                self.check_list(data, f, i, col, v, lead, values.as_deref(), *braces, emit);
            }
            Shape::IntegrationRef => {
                if let Some(why) = shapes::integration_ref_problem(v) {
                    at(
                        emit,
                        &rules::INVALID_INTEGRATION_REF,
                        sev,
                        format!("{} is not shaped `<app>/<integration_id>`: {why}", quote(v)),
                        "write the app and the integration ID separated by one `/`, e.g. `okta/0b6c1e2a`".into(),
                    );
                }
            }
            Shape::Brn => {
                if let Some(why) = shapes::brn_problem(v) {
                    at(
                        emit,
                        &rules::INVALID_BRN,
                        sev,
                        format!("{} is not a resource name: {why}", quote(v)),
                        "keep the BRN exactly as the download wrote it".into(),
                    );
                }
            }
            Shape::Url => {
                if !shapes::is_url(v) {
                    at(
                        emit,
                        &rules::INVALID_URL,
                        sev,
                        format!("{} is not an http(s) URL", quote(v)),
                        "write an absolute URL, e.g. `https://playbooks.example.com/run`".into(),
                    );
                }
            }
            Shape::Json(kind) => self.check_json(data, f, i, value, *kind, sev, cells, emit),
        }
    }

    /// File span of bytes `[from, to)` of a cell's unescaped value.
    fn inner_span(data: &[u8], f: &FieldSpan, from: usize, to: usize) -> std::ops::Range<usize> {
        let (a, b) = f.content();
        let raw = &data[a..b];
        a + raw_offset(raw, f.escapes, from)..a + raw_offset(raw, f.escapes, to)
    }

    #[allow(clippy::too_many_arguments)]
    fn check_list(
        &self,
        data: &[u8],
        f: &FieldSpan,
        i: usize,
        col: &crate::schema::Column,
        v: &str,
        lead: usize,
        values: Option<&[String]>,
        braces: Braces,
        emit: &mut Emitter<'_>,
    ) {
        let sev = col.severity;
        let part = |emit: &mut Emitter<'_>,
                    rule: &'static rules::Rule,
                    sev: Option<Severity>,
                    from: usize,
                    to: usize,
                    msg: String,
                    help: String| {
            let span = Self::inner_span(data, f, lead + from, lead + to);
            emit.in_field(rule, sev, span, f, self.name(i), msg, Some(help));
        };
        if v.starts_with('{') != v.ends_with('}') {
            part(
                emit,
                &rules::INVALID_LIST,
                sev,
                0,
                v.len(),
                format!("{} has an unbalanced brace", quote(v)),
                "write the list inside `{...}` or without braces".into(),
            );
            return;
        }
        let has_braces = v.starts_with('{') && v.len() >= 2;
        let (inner, offset) = if has_braces {
            (&v[1..v.len() - 1], 1)
        } else {
            (v, 0)
        };
        match (braces, has_braces) {
            (Braces::Required, false) => part(
                emit,
                &rules::INVALID_LIST,
                sev,
                0,
                v.len(),
                format!("{} must be written inside braces", quote(v)),
                format!("write `{{{v}}}`"),
            ),
            (Braces::Forbidden, true) => part(
                emit,
                &rules::INVALID_LIST,
                sev,
                0,
                v.len(),
                format!("{} is written inside braces", quote(v)),
                format!("write `{inner}`"),
            ),
            _ => {}
        }
        if has_braces && inner.trim().is_empty() {
            part(
                emit,
                &rules::INVALID_LIST,
                sev,
                0,
                v.len(),
                format!("{} holds no elements", quote(v)),
                "list at least one element inside the braces, or leave the cell empty".into(),
            );
            return;
        }
        let mut seen = Seen::default();
        let mut pos = offset;
        let mut reported = 0usize;
        let mut hidden = 0usize;
        let mut part = |emit: &mut Emitter<'_>,
                        rule: &'static rules::Rule,
                        sev: Option<Severity>,
                        from: usize,
                        to: usize,
                        msg: String,
                        help: String| {
            if reported < MAX_LIST_FINDINGS {
                reported += 1;
                part(emit, rule, sev, from, to, msg, help);
            } else {
                hidden += 1;
            }
        };
        for (k, raw_el) in inner.split(',').enumerate() {
            let el_start = pos + (raw_el.len() - raw_el.trim_start().len());
            let el = raw_el.trim();
            let el_end = el_start + el.len();
            pos += raw_el.len() + 1;
            if el.is_empty() {
                part(
                    emit,
                    &rules::INVALID_LIST,
                    sev,
                    el_start,
                    el_start,
                    format!("element {} of `{}` is empty", k + 1, col.name),
                    "remove the extra comma".into(),
                );
                continue;
            }
            if !seen.insert(el) {
                part(
                    emit,
                    &rules::INVALID_LIST,
                    sev,
                    el_start,
                    el_end,
                    format!("{} appears twice in `{}`", quote(el), col.name),
                    "remove the repeated element".into(),
                );
                continue;
            }
            if let Some(values) = values {
                if !values.iter().any(|x| x == el) {
                    part(
                        emit,
                        &rules::INVALID_ENUM,
                        sev,
                        el_start,
                        el_end,
                        format!("{} is not a value of `{}`", quote(el), col.name),
                        enum_help(el, values),
                    );
                }
            }
        }
        if hidden > 0 {
            emit.in_field(
                &rules::INVALID_LIST,
                sev,
                f.start..f.end,
                f,
                self.name(i),
                format!("`{}` has {hidden} more list problems, not shown", col.name),
                Some("fix the ones above, then check again".into()),
            );
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn check_json(
        &self,
        data: &[u8],
        f: &FieldSpan,
        i: usize,
        value: &str,
        kind: JsonKind,
        sev: Option<Severity>,
        cells: &Cells<'_>,
        emit: &mut Emitter<'_>,
    ) {
        let c = self.map.field_col[i].expect("mapped");
        let col = &self.table.columns[c];
        let mut scratch = cells.scratch.borrow_mut();
        let JsonScratch { nodes, findings } = &mut *scratch;
        let doc = match Doc::parse(value, std::mem::take(nodes)) {
            Ok(doc) => doc,
            Err((e, storage)) => {
                *nodes = storage;
                let at = e.offset.min(value.len());
                let span = Self::inner_span(data, f, at, (at + 1).min(value.len()));
                emit.in_field(
                    &rules::INVALID_JSON,
                    sev,
                    span,
                    f,
                    self.name(i),
                    format!("`{}` is not valid JSON: {}", col.name, e.message),
                    Some(
                        "write JSON with double quotes; in CSV, quote the whole cell and double every quote inside it: \"{\"\"key\"\":\"\"value\"\"}\"".into(),
                    ),
                );
                return;
            }
        };
        let root = doc.kind(doc.root());
        let want = match kind {
            JsonKind::Any => None,
            JsonKind::Object => (root != json::Kind::Object).then_some(("an object", "{...}")),
            JsonKind::Array => (root != json::Kind::Array).then_some(("an array", "[...]")),
        };
        if let Some((want, example)) = want {
            let span = doc.node(doc.root()).span();
            emit.in_field(
                &rules::JSON_WRONG_TYPE,
                sev,
                Self::inner_span(data, f, span.start, span.end),
                f,
                self.name(i),
                format!(
                    "`{}` must be a JSON {}, not {}",
                    col.name,
                    &want[want.find(' ').map_or(0, |p| p + 1)..],
                    root.name()
                ),
                Some(format!("write {want}: {example}")),
            );
        } else {
            findings.clear();
            for rule in self.table.json.iter().filter(|r| r.column == c) {
                if !rule.when.iter().all(|w| self.holds(cells, w)) {
                    continue;
                }
                match &rule.grammar {
                    Grammar::Schema(spec) => grammar::check(&doc, &col.name, spec, findings),
                    Grammar::Filter { type_column } => {
                        if let Ok(g) = crate::schema::json::grammars() {
                            let ty = self.value(cells, *type_column);
                            filter::check(&doc, &col.name, ty, &g.filter, findings);
                        }
                    }
                }
            }
            let last = findings.list.len().saturating_sub(1);
            for (n, x) in findings.list.drain(..).enumerate() {
                let mut message = x.message;
                if n == last && findings.hidden > 0 {
                    message.push_str(&format!(
                        " (and {} more problems in this cell, not shown)",
                        findings.hidden
                    ));
                }
                emit.in_field(
                    x.rule,
                    None,
                    Self::inner_span(data, f, x.span.start, x.span.end),
                    f,
                    self.name(i),
                    message,
                    x.help,
                );
            }
        }
        *nodes = doc.into_nodes();
    }

    /// Whether a row condition holds.
    fn holds(&self, cells: &Cells<'_>, cond: &Condition) -> bool {
        match cond {
            Condition::Always => true,
            Condition::Present(c) => self.filled(cells, *c),
            Condition::Empty(c) => !self.filled(cells, *c),
            Condition::In(c, vals) => self
                .value(cells, *c)
                .is_some_and(|v| vals.iter().any(|x| x == v)),
        }
    }

    fn filled(&self, cells: &Cells<'_>, c: ColumnId) -> bool {
        self.map.col_field[c].is_some_and(|i| cells.filled[i])
    }

    fn value<'c>(&self, cells: &'c Cells<'_>, c: ColumnId) -> Option<&'c str> {
        let i = self.map.col_field[c]?;
        cells.values[i].as_deref().map(str::trim)
    }

    fn check_conditions(&self, rec: &Record, cells: &Cells<'_>, emit: &mut Emitter<'_>) {
        let t = self.table;
        let cname = |c: ColumnId| t.columns[c].name.as_str();
        for (r, settled) in t.requires.iter().zip(&self.settled) {
            if *settled {
                continue;
            }
            // Most rows pass: decide first, and only format the reason
            // (which allocates) for a row that has a finding.
            let holds = match &r.when {
                Condition::Always => true,
                Condition::Present(c) => self.filled(cells, *c),
                Condition::Empty(c) => !self.filled(cells, *c),
                Condition::In(c, vals) => self
                    .value(cells, *c)
                    .is_some_and(|v| vals.iter().any(|x| x == v)),
            };
            if !holds {
                continue;
            }
            let because_text = || match &r.when {
                Condition::Always => String::new(),
                Condition::Present(c) => format!(" although `{}` is filled", cname(*c)),
                Condition::Empty(c) => format!(" although `{}` is empty", cname(*c)),
                Condition::In(c, _) => format!(
                    " although `{}` is `{}`",
                    cname(*c),
                    self.value(cells, *c).unwrap_or_default()
                ),
            };
            if !r.any.is_empty() {
                if !r.any.iter().any(|c| self.filled(cells, *c)) {
                    let list = column_list(t, &r.any);
                    emit.row(
                        &rules::MISSING_ONE_OF,
                        r.severity,
                        rec,
                        format!("none of {list} is filled{}: {}", because_text(), r.reason),
                        Some(format!("fill at least one of {list}")),
                    );
                }
                continue;
            }
            let mut absent = Vec::new();
            for &c in &r.all {
                if self.filled(cells, c) {
                    continue;
                }
                match self.map.col_field[c] {
                    Some(i) => {
                        let f = &rec.fields[i];
                        emit.in_field(
                            &rules::MISSING_DEPENDENT_VALUE,
                            r.severity,
                            f.start..f.end,
                            f,
                            self.name(i),
                            format!("`{}` is empty{}: {}", cname(c), because_text(), r.reason),
                            Some(format!("fill in `{}`", cname(c))),
                        );
                    }
                    None => absent.push(format!("`{}`", cname(c))),
                }
            }
            if !absent.is_empty() {
                let list = absent.join(", ");
                emit.row_once(
                    &rules::MISSING_DEPENDENT_VALUE,
                    r.severity,
                    rec,
                    format!(
                        "this row needs {list}{}, but the header has no such column: {}",
                        because_text(),
                        r.reason
                    ),
                    Some(format!(
                        "add {list} to the header and fill them on this row"
                    )),
                );
            }
        }
        for e in &t.equal {
            let (Some(a), Some(b)) = (self.value(cells, e.column), self.value(cells, e.to)) else {
                continue;
            };
            if a.is_empty() || b.is_empty() {
                continue;
            }
            let same = if e.ignore_case {
                a.chars()
                    .flat_map(char::to_lowercase)
                    .eq(b.chars().flat_map(char::to_lowercase))
            } else {
                a == b
            };
            if !same {
                let i = self.map.col_field[e.column].expect("value() found it");
                let f = &rec.fields[i];
                emit.in_field(
                    &rules::MISMATCHED_VALUES,
                    e.severity,
                    f.start..f.end,
                    f,
                    self.name(i),
                    format!(
                        "`{}` is {} but `{}` is {}: {}",
                        cname(e.column),
                        quote(a),
                        cname(e.to),
                        quote(b),
                        e.reason
                    ),
                    Some(format!(
                        "make `{}` equal to `{}`",
                        cname(e.column),
                        cname(e.to)
                    )),
                );
            }
        }
        for g in &t.one_or_all {
            let n = g.columns.iter().filter(|c| self.filled(cells, **c)).count();
            if n > 1 && n < g.columns.len() {
                let list = column_list(t, &g.columns);
                emit.row(
                    &rules::PARTIAL_COLUMN_GROUP,
                    g.severity,
                    rec,
                    format!("{n} of {list} are filled: {}", g.reason),
                    Some(format!("fill exactly one of {list}, or all of them")),
                );
            }
        }
    }
}

fn fill_help(col: &crate::schema::Column) -> String {
    if col.shape == Shape::Text {
        format!("fill in `{}`", col.name)
    } else {
        format!("fill in `{}` with {}", col.name, col.shape.describe())
    }
}

/// `` `A`, `B`, `C` `` for messages.
fn column_list(table: &Table, cols: &[ColumnId]) -> String {
    cols.iter()
        .map(|c| format!("`{}`", table.columns[*c].name))
        .collect::<Vec<_>>()
        .join(", ")
}

fn enum_help(v: &str, values: &[String]) -> String {
    let list = values
        .iter()
        .map(|x| format!("`{x}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match shapes::suggest(v, values) {
        Some(s) => format!("did you mean `{s}`? allowed values: {list}"),
        None => format!("allowed values: {list}"),
    }
}

/// Reports a record's quoting problems.
pub(crate) fn report_quoting(
    data: &[u8],
    rec: &Record,
    names: &[Arc<str>],
    emit: &mut Emitter<'_>,
) {
    for p in &rec.problems {
        let column = names.get(p.field).cloned();
        let (rule, msg, help) = match p.kind {
            QuoteProblemKind::Unterminated => (
                &rules::UNTERMINATED_QUOTE,
                "this quote is never closed: the rest of the file is read as one cell",
                "close the quoted field, and double every quote inside it (`\"\"`)",
            ),
            QuoteProblemKind::Bare => (
                &rules::BARE_QUOTE,
                "a quote inside an unquoted field",
                "quote the whole field and double the quotes inside it: `\"say \"\"hi\"\"\"`",
            ),
            QuoteProblemKind::AfterQuote => (
                &rules::TEXT_AFTER_QUOTE,
                "text after the closing quote of a field",
                "double the quotes inside the field (`\"\"`), or move the text inside the quotes",
            ),
        };
        let end = (p.at + 1).min(data.len());
        emit.at(
            rule,
            None,
            p.at..end,
            p.line,
            p.line_start,
            column,
            msg.into(),
            Some(help.into()),
        );
    }
}

/// Reports the first invalid UTF-8 sequence in `data[a..b]`.
pub(crate) fn report_utf8(
    data: &[u8],
    a: usize,
    b: usize,
    f: &FieldSpan,
    column: Option<Arc<str>>,
    emit: &mut Emitter<'_>,
) {
    let Err(e) = std::str::from_utf8(&data[a..b]) else {
        return;
    };
    let at = a + e.valid_up_to();
    let len = e.error_len().unwrap_or(b - at).max(1);
    let bytes: Vec<String> = data[at..at + len]
        .iter()
        .map(|x| format!("0x{x:02X}"))
        .collect();
    emit.in_field(
        &rules::INVALID_UTF8,
        None,
        at..at + len,
        f,
        column,
        format!("byte {} is not valid UTF-8", bytes.join(" ")),
        Some("save the file as UTF-8 (it looks like Latin-1 or Windows-1252)".into()),
    );
}
