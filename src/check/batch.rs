//! Batch checks: what the CSV files of one run say about each other.
//!
//! A directory prepared for upload often holds files that refer to records
//! other files of it define: a rule's Filters are filter IDs, a review
//! names its campaign, RBAC2 and findings rows name an integration. Which
//! cell refers to which key is table data, the `[[references]]` entries of
//! `rules/*.toml` (grammar in `rules/README.md`); this module is the one
//! engine that runs them. The platform resolves a reference against what
//! it already holds, which an offline check cannot see, so a missing target
//! is a warning, and a reference is checked only when the run holds a file
//! able to define its target: one of the target format whose header has the
//! key column. Without one, nothing is said.
//!
//! Two rules are not references but campaign state, and are Rust here:
//! `new-review-on-published-campaign` and `status-change-on-draft-campaign`
//! (the one error: two files of the run that cannot both be accepted
//! whatever the platform holds and whatever order they are uploaded in).
//! They read the key sets of the reviews' references to campaigns, which
//! also keep where campaigns rows publish or draft each key.
//!
//! Two passes, both through the streaming reader of [`super::refs`]: the
//! defining files are read into sets of 64-bit xxh3 fingerprints of their
//! trimmed keys, then the referring files are read a second time (after
//! their own check) with the sets in hand, so findings carry the line,
//! column and span of the cell like any other.
//!
//! Memory: a key kept by its file is 8 bytes in a hash set with a
//! pass-through hasher (the key is a fingerprint already) plus a control
//! byte; hashbrown keeps its load between 7/16 and 7/8, so 10-21 bytes a
//! distinct key. A key that a row deletes, or a campaign that a row
//! publishes or writes as a draft, also keeps where that row is (file
//! number and line, two `u32`), 16 + 1 bytes a bucket, 19-39 bytes a key in
//! each such map. References that agree on target, key column and deleting
//! rows share one set. A million filter IDs take 10-21 MB. The referring
//! files keep nothing per row. A false "defined" needs a 64-bit collision.

use super::cross::IdentityHasher;
use super::refs::{cell, stream, stream_with_columns};
use super::text::quote;
use super::{Emitter, Options};
use crate::check::shapes::integration_ref_problem;
use crate::diagnostic::{Diagnostic, Severity};
use crate::error::Error;
use crate::rules::{self, Rule};
use crate::scan::{raw_offset, FieldSpan, Record};
use crate::schema::{self, Part, Reference, Values};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use xxhash_rust::xxh3::xxh3_64;

/// The rules this module reports.
pub static RULES: &[&Rule] = &[
    &rules::UNDEFINED_INTEGRATION,
    &rules::NEW_REVIEW_ON_PUBLISHED_CAMPAIGN,
    &rules::UNDEFINED_FILTER,
    &rules::UNDEFINED_CAMPAIGN,
    &rules::STATUS_CHANGE_ON_DRAFT_CAMPAIGN,
];

/// One CSV file of the run.
#[derive(Debug, Clone, Copy)]
pub struct BatchInput<'a> {
    /// The input's position in the run; its findings come back under it.
    pub index: usize,
    pub path: &'a Path,
    /// The format the file was checked as.
    pub format: &'a str,
}

/// Checks what the files of one run say about each other. Returns the
/// findings per input index (ascending, inputs without findings left out),
/// each list sorted by [`Diagnostic::sort_key`]. Files are read again, so a
/// file that became unreadable since its own check is an error.
pub fn check_batch(
    inputs: &[BatchInput<'_>],
    opts: &Options,
) -> Result<Vec<(usize, Vec<Diagnostic>)>, Error> {
    let plan = Plan::of(inputs)?;
    // Read a defining file only when something in the run refers to it.
    let defining: Vec<&BatchInput<'_>> = inputs
        .iter()
        .filter(|i| plan.sets.iter().any(|s| s.target == i.format))
        .collect();
    let partial: Vec<Vec<KeySet>> = defining
        .par_iter()
        .enumerate()
        .map(|(n, input)| collect(input, n as u32, &plan, opts))
        .collect::<Result<_, _>>()?;
    let mut targets = Targets {
        sets: plan.sets.iter().map(|_| KeySet::default()).collect(),
        files: defining
            .iter()
            .map(|i| i.path.display().to_string())
            .collect(),
    };
    // In file order, so that "the first row" a finding names is the first
    // of the run, whichever thread read it.
    for sets in partial {
        for (into, set) in targets.sets.iter_mut().zip(sets) {
            into.merge(set);
        }
    }
    let mut found: Vec<(usize, Vec<Diagnostic>)> = inputs
        .par_iter()
        .map(|input| check_refs(input, &plan, &targets, opts).map(|d| (input.index, d)))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .filter(|(_, d)| !d.is_empty())
        .collect();
    found.sort_by_key(|(i, _)| *i);
    Ok(found)
}

/// The format whose rows the state rules (B009, B013) read a campaign's
/// state from, and the one whose rows they judge. They are not references
/// (a reference only asks whether a key is defined), so they are Rust; they
/// ride on the key sets of the reviews' references to campaigns.
const CAMPAIGNS: &str = "campaigns";
const REVIEWS: &str = "reviews";
/// Campaigns columns the state rules read, in [`CampaignRow`] order.
const CAMPAIGN_STATE_COLUMNS: [&str; 2] = ["Is Published", "Status"];
/// Reviews columns the state rules read, in [`ReviewRow`] order.
const REVIEW_STATE_COLUMNS: [&str; 2] = ["ID", "Review Status"];

/// What the tables ask of this run: the references whose referring and
/// target formats both have a file in it, and the key sets they need.
struct Plan {
    refs: Vec<Active>,
    sets: Vec<SetSpec>,
}

/// One `[[references]]` entry that applies to the run.
struct Active {
    /// The referring format.
    format: &'static str,
    reference: &'static Reference,
    /// The referring column's name, as findings name it.
    column: &'static str,
    /// Its key set, in [`Plan::sets`] and [`Targets::sets`].
    set: usize,
    /// The reviews' references to campaigns also feed the state rules.
    state: bool,
}

/// A key set: which target column's values, without the rows `gone`
/// drops. References that agree on all three share one.
struct SetSpec {
    target: &'static str,
    key: &'static str,
    gone: Option<&'static Values>,
    /// Also keep where rows publish or draft each key (campaigns, for the
    /// state rules).
    state: bool,
}

impl Plan {
    fn of(inputs: &[BatchInput<'_>]) -> Result<Plan, Error> {
        let has = |f: &str| inputs.iter().any(|i| i.format == f);
        let mut formats: Vec<&str> = Vec::new();
        for i in inputs {
            if !formats.contains(&i.format) {
                formats.push(i.format);
            }
        }
        let mut plan = Plan {
            refs: Vec::new(),
            sets: Vec::new(),
        };
        for format in formats {
            let Some(table) = schema::table(format)? else {
                continue;
            };
            for reference in &table.references {
                // Without a file able to define the target, nothing is said:
                // running a single file is the common case.
                if !has(&reference.target) {
                    continue;
                }
                let state = table.name == REVIEWS && reference.target == CAMPAIGNS;
                let same = |s: &SetSpec| {
                    s.target == reference.target
                        && s.key == reference.key
                        && s.gone == reference.gone.as_ref()
                };
                let set = match plan.sets.iter().position(same) {
                    Some(n) => n,
                    None => {
                        plan.sets.push(SetSpec {
                            target: &reference.target,
                            key: &reference.key,
                            gone: reference.gone.as_ref(),
                            state: false,
                        });
                        plan.sets.len() - 1
                    }
                };
                plan.sets[set].state |= state;
                plan.refs.push(Active {
                    format: &table.name,
                    reference,
                    column: &table.columns[reference.column].name,
                    set,
                    state,
                });
            }
        }
        Ok(plan)
    }
}

type FpSet = HashSet<u64, BuildHasherDefault<IdentityHasher>>;
/// Fingerprint -> (defining file number, line).
type Places = HashMap<u64, (u32, u32), BuildHasherDefault<IdentityHasher>>;

/// The keys of one [`SetSpec`] that the defining files hold.
#[derive(Debug, Default)]
struct KeySet {
    /// Some defining file's header has the key column. A file without it
    /// defines nothing (new filters get their ID from the platform; the
    /// campaigns upload has no ID), and with no such file the references
    /// to the set are not checked.
    defined: bool,
    /// Keys some row creates or updates.
    kept: FpSet,
    /// Keys a `gone` row deletes, and where the first such row is.
    removed: Places,
    /// State rules, campaigns: keys a row publishes, and where the first
    /// such row is.
    published: Places,
    /// State rules, campaigns: keys a row writes as a draft (Is Published
    /// FALSE, not deleted or aborted), and where the first such row is.
    drafted: Places,
}

enum Found {
    Kept {
        published: Option<(u32, u32)>,
        drafted: Option<(u32, u32)>,
    },
    Removed((u32, u32)),
    Absent,
}

impl KeySet {
    fn add(&mut self, key: u64, removed: bool, published: bool, at: (u32, u32)) {
        if removed {
            self.removed.entry(key).or_insert(at);
        } else {
            self.kept.insert(key);
            if published {
                self.published.entry(key).or_insert(at);
            }
        }
    }

    /// A campaigns row writing the key with Is Published FALSE. Only the
    /// first such row is kept: one is enough to name in a finding.
    fn add_draft(&mut self, key: u64, at: (u32, u32)) {
        self.drafted.entry(key).or_insert(at);
    }

    /// A key both kept and deleted (two rows) counts as kept: the finding
    /// would be about the contradiction, which is not this module's.
    fn find(&self, key: u64) -> Found {
        if self.kept.contains(&key) {
            Found::Kept {
                published: self.published.get(&key).copied(),
                drafted: self.drafted.get(&key).copied(),
            }
        } else if let Some(at) = self.removed.get(&key) {
            Found::Removed(*at)
        } else {
            Found::Absent
        }
    }

    fn merge(&mut self, other: KeySet) {
        self.defined |= other.defined;
        self.kept.extend(other.kept);
        for (k, v) in other.removed {
            self.removed.entry(k).or_insert(v);
        }
        for (k, v) in other.published {
            self.published.entry(k).or_insert(v);
        }
        for (k, v) in other.drafted {
            self.drafted.entry(k).or_insert(v);
        }
    }
}

/// What the defining files of the run hold, one key set per
/// [`Plan::sets`].
#[derive(Debug, Default)]
struct Targets {
    sets: Vec<KeySet>,
    /// Display paths of the defining files, by file number.
    files: Vec<String>,
}

impl Targets {
    /// `path line N`, for messages naming a defining row.
    fn place(&self, (file, line): (u32, u32)) -> String {
        let path = self.files.get(file as usize).map_or("?", String::as_str);
        format!("{path} line {line}")
    }
}

/// Keys compare trimmed and exactly (case included), as the unique-key
/// checks of the defining formats compare them.
fn fp(text: &str) -> u64 {
    xxh3_64(text.trim().as_bytes())
}

/// The decoded, trimmed text of column `col` of `rec`, if filled.
fn filled<'r>(data: &[u8], rec: &'r Record, col: Option<usize>) -> Option<(String, &'r FieldSpan)> {
    let f = rec.fields.get(col?)?;
    let text = cell(data, f);
    (!text.trim().is_empty()).then_some((text, f))
}

fn is(data: &[u8], rec: &Record, col: Option<usize>, value: &str) -> bool {
    filled(data, rec, col).is_some_and(|(t, _)| t.trim().eq_ignore_ascii_case(value))
}

/// Whether column `col` of `rec` holds one of `values`.
fn matches(data: &[u8], rec: &Record, col: Option<usize>, values: &Values) -> bool {
    filled(data, rec, col).is_some_and(|(t, _)| values.matches(&t))
}

fn saturate(line: u64) -> u32 {
    u32::try_from(line).unwrap_or(u32::MAX)
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::io(path, e)
}

/// Header names to stream, each once; `add` returns a name's index.
#[derive(Default)]
struct Wanted<'a>(Vec<&'a str>);

impl<'a> Wanted<'a> {
    fn add(&mut self, name: &'a str) -> usize {
        match self.0.iter().position(|n| *n == name) {
            Some(i) => i,
            None => {
                self.0.push(name);
                self.0.len() - 1
            }
        }
    }
}

/// Reads the keys one defining file holds into the sets of its format (the
/// others stay empty); `file` numbers it for messages.
fn collect(
    input: &BatchInput<'_>,
    file: u32,
    plan: &Plan,
    opts: &Options,
) -> Result<Vec<KeySet>, Error> {
    let mut sets: Vec<KeySet> = plan.sets.iter().map(|_| KeySet::default()).collect();
    let mut wanted = Wanted::default();
    // (set, key column, gone column) for the sets this file can fill.
    let mine: Vec<(usize, usize, Option<usize>)> = plan
        .sets
        .iter()
        .enumerate()
        .filter(|(_, s)| s.target == input.format)
        .map(|(n, s)| (n, wanted.add(s.key), s.gone.map(|g| wanted.add(&g.column))))
        .collect();
    let state = plan
        .sets
        .iter()
        .any(|s| s.state && s.target == input.format)
        .then(|| CAMPAIGN_STATE_COLUMNS.map(|c| wanted.add(c)));
    let reader = std::fs::File::open(input.path).map_err(io(input.path))?;
    let (_, cols) = stream_with_columns(reader, opts, &wanted.0, |emit, rec, c| {
        let at = (file, saturate(rec.line));
        let row = state.map(|s| CampaignRow::read(emit.data, rec, s.map(|i| c[i])));
        for &(n, key, gone) in &mine {
            let Some((text, _)) = filled(emit.data, rec, c[key]) else {
                continue;
            };
            let removed = match (plan.sets[n].gone, gone) {
                (Some(values), Some(col)) => matches(emit.data, rec, c[col], values),
                _ => false,
            };
            let set = &mut sets[n];
            match (&row, plan.sets[n].state) {
                (Some(row), true) => {
                    set.add(fp(&text), removed, row.published(removed), at);
                    if row.drafted(removed) {
                        set.add_draft(fp(&text), at);
                    }
                }
                _ => set.add(fp(&text), removed, false, at),
            }
        }
    })
    .map_err(io(input.path))?;
    if let Some(cols) = cols {
        for &(n, key, _) in &mine {
            sets[n].defined = cols[key].is_some();
        }
    }
    Ok(sets)
}

/// A campaigns row as the state rules read it.
struct CampaignRow {
    /// Is Published TRUE, any case.
    public: bool,
    /// Is Published FALSE, any case.
    draft: bool,
    /// Status `aborted`: a row that aborts the campaign does not leave it a
    /// draft the reviews could run into.
    aborted: bool,
}

impl CampaignRow {
    fn read(data: &[u8], rec: &Record, [published, status]: [Option<usize>; 2]) -> CampaignRow {
        CampaignRow {
            public: is(data, rec, published, "true"),
            draft: is(data, rec, published, "false"),
            aborted: is(data, rec, status, "aborted"),
        }
    }

    /// A row that deletes the campaign (`gone`) publishes nothing.
    fn published(&self, removed: bool) -> bool {
        self.public && !removed
    }

    fn drafted(&self, removed: bool) -> bool {
        self.draft && !removed && !self.aborted
    }
}

/// A reviews row as the state rules read it.
struct ReviewRow {
    /// A row without ID creates a review.
    creates: bool,
    /// (review ID, status) when the row changes a review's status.
    change: Option<(String, String)>,
}

impl ReviewRow {
    fn read(data: &[u8], rec: &Record, [id, status]: [Option<usize>; 2]) -> ReviewRow {
        // A row with an ID and a status of approved, rejected or delegated
        // changes that review's status, which rule 2 of the campaign
        // ordering rules allows only once the campaign is not a draft.
        // created, started, stopped and request_info "only update the
        // recommendation" and leave the state "unchanged" (the review state
        // table), whatever the campaign's state: not a change.
        let id = filled(data, rec, id);
        let change = match (&id, filled(data, rec, status)) {
            (Some((id, _)), Some((status, _))) if is_status_change(status.trim()) => {
                Some((id.trim().to_owned(), status.trim().to_owned()))
            }
            _ => None,
        };
        ReviewRow {
            creates: id.is_none(),
            change,
        }
    }
}

/// File span of bytes `from..to` of a cell's decoded text. A cell that is
/// not valid UTF-8 decodes with replacement characters, which shift
/// offsets: the whole cell is pointed at then.
fn part_span(data: &[u8], f: &FieldSpan, from: usize, to: usize) -> Range<usize> {
    let (a, b) = f.content();
    let raw = &data[a..b];
    if std::str::from_utf8(raw).is_err() {
        return a..b;
    }
    a + raw_offset(raw, f.escapes, from)..a + raw_offset(raw, f.escapes, to)
}

/// Whether a Review Status moves a review to another state (the review
/// state table's approved, rejected and delegated rows), in any case.
fn is_status_change(status: &str) -> bool {
    ["approved", "rejected", "delegated"]
        .iter()
        .any(|s| status.eq_ignore_ascii_case(s))
}

/// Where a batch finding points: `span`, inside field `f` of `column`.
struct At<'a> {
    f: &'a FieldSpan,
    span: Range<usize>,
    column: &'a str,
}

/// A finding of `rule` at `at`; `severity` `None` keeps the rule's default.
fn report(
    emit: &mut Emitter<'_>,
    rule: &'static Rule,
    severity: Option<Severity>,
    at: &At<'_>,
    message: String,
    help: String,
) {
    emit.in_field(
        rule,
        severity,
        at.span.clone(),
        at.f,
        Some(Arc::from(at.column)),
        message,
        Some(help),
    );
}

/// `(start, end)` of each trimmed, non-empty element of a comma-separated
/// list, braces dropped (a list written with braces is the cell check's
/// finding, not a reason to miss its references).
fn list_elements(text: &str) -> Vec<(usize, usize)> {
    let t = text.trim_end();
    let (inner, base) = match t.trim_start().strip_prefix('{') {
        Some(rest) => {
            let start = t.len() - rest.len();
            (rest.strip_suffix('}').unwrap_or(rest), start)
        }
        None => (t, 0),
    };
    let mut out = Vec::new();
    let mut pos = base;
    for part in inner.split(',') {
        let lead = part.len() - part.trim_start().len();
        let el = part.trim();
        if !el.is_empty() {
            out.push((pos + lead, pos + lead + el.len()));
        }
        pos += part.len() + 1;
    }
    out
}

/// `(start, end)` of the values a referring cell holds: each element of a
/// list, or the trimmed cell.
fn elements(text: &str, list: bool) -> Vec<(usize, usize)> {
    if list {
        return list_elements(text);
    }
    let lead = text.len() - text.trim_start().len();
    vec![(lead, lead + text.trim().len())]
}

/// The key a value names, as `(start, end)` inside the value: all of it,
/// or the part `part` says. `None`: the value is malformed for its part,
/// which the cell check reports (`invalid-integration-ref`), so there is no
/// key to look up.
fn key_of(value: &str, part: Option<Part>) -> Option<(usize, usize)> {
    match part {
        None => Some((0, value.len())),
        Some(Part::IntegrationId) => {
            if integration_ref_problem(value).is_some() {
                return None;
            }
            let (_, id) = value.split_once('/')?;
            Some((value.len() - id.len(), value.len()))
        }
    }
}

/// A message template of a `[[references]]` entry with its placeholders
/// filled, in one pass (a quoted value that happens to contain `{place}`
/// stays as written).
fn render(template: &str, value: &str, cell: &str, place: Option<&str>) -> String {
    let mut out = String::with_capacity(template.len() + value.len() + cell.len());
    let mut rest = template;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let (fill, len) = if tail.starts_with("{value}") {
            (quote(value), "{value}".len())
        } else if tail.starts_with("{cell}") {
            (quote(cell), "{cell}".len())
        } else if let (true, Some(place)) = (tail.starts_with("{place}"), place) {
            (place.to_owned(), "{place}".len())
        } else {
            // The table parser admits no other brace; kept as text.
            ("{".to_owned(), 1)
        };
        out.push_str(&fill);
        rest = &tail[len..];
    }
    out.push_str(rest);
    out
}

/// Checks the references of one referring file.
fn check_refs(
    input: &BatchInput<'_>,
    plan: &Plan,
    t: &Targets,
    opts: &Options,
) -> Result<Vec<Diagnostic>, Error> {
    let mut wanted = Wanted::default();
    // (reference, its column, its skip column) for the references of this
    // file's format whose target some file of the run defines.
    let mine: Vec<(&Active, usize, Option<usize>)> = plan
        .refs
        .iter()
        .filter(|a| a.format == input.format && t.sets[a.set].defined)
        .map(|a| {
            let skip = a.reference.skip.as_ref().map(|s| wanted.add(&s.column));
            (a, wanted.add(a.column), skip)
        })
        .collect();
    if mine.is_empty() {
        return Ok(Vec::new());
    }
    let state = mine
        .iter()
        .any(|(a, ..)| a.state)
        .then(|| REVIEW_STATE_COLUMNS.map(|c| wanted.add(c)));
    let reader = std::fs::File::open(input.path).map_err(io(input.path))?;
    let mut diags = stream(reader, opts, &wanted.0, |emit, rec, c| {
        let row = state.map(|s| ReviewRow::read(emit.data, rec, s.map(|i| c[i])));
        // One state finding a row: the Name and the ID name one campaign.
        let mut ordered = false;
        for &(a, col, skip) in &mine {
            let r = a.reference;
            if let (Some(values), Some(skip)) = (&r.skip, skip) {
                if matches(emit.data, rec, c[skip], values) {
                    continue;
                }
            }
            let Some((text, f)) = filled(emit.data, rec, c[col]) else {
                continue;
            };
            for (from, to) in elements(&text, r.list) {
                let value = &text[from..to];
                let Some((start, end)) = key_of(value, r.part) else {
                    continue;
                };
                let key = &value[start..end];
                let at = At {
                    f,
                    span: part_span(emit.data, f, from + start, from + end),
                    column: a.column,
                };
                let (message, help) = match t.sets[a.set].find(fp(key)) {
                    Found::Kept { published, drafted } => {
                        if let (true, Some(row)) = (a.state, &row) {
                            let campaign = Campaign { published, drafted };
                            campaign.judge(emit, row, &mut ordered, &at, key, t);
                        }
                        continue;
                    }
                    Found::Removed(first) => {
                        let place = t.place(first);
                        // Set whenever `gone` is (the table parser sees to
                        // it), and only a `gone` row removes a key.
                        let fill = |m: &Option<String>| {
                            render(m.as_deref().unwrap_or_default(), key, value, Some(&place))
                        };
                        (fill(&r.gone_message), fill(&r.gone_help))
                    }
                    Found::Absent => (
                        render(&r.message, key, value, None),
                        render(&r.help, key, value, None),
                    ),
                };
                report(emit, r.rule, None, &at, message, help);
            }
        }
    })
    .map_err(io(input.path))?;
    diags.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Ok(diags)
}

/// What the run's campaigns rows say about a campaign a reviews cell
/// names and the run keeps: the first row that publishes it, the first
/// that writes it as a draft.
struct Campaign {
    published: Option<(u32, u32)>,
    drafted: Option<(u32, u32)>,
}

impl Campaign {
    /// The state rules (B013, else B009) on one cell of `row`; `ordered`
    /// says whether the row already had its state finding (one a row: the
    /// Name and the ID name one campaign).
    fn judge(
        &self,
        emit: &mut Emitter<'_>,
        row: &ReviewRow,
        ordered: &mut bool,
        at: &At<'_>,
        value: &str,
        t: &Targets,
    ) {
        if *ordered {
            return;
        }
        if let (Some(draft), Some((id, status))) = (self.drafted, &row.change) {
            *ordered = true;
            let change = format!(
                "this row changes review {} to {} under campaign {}, which {} writes as a draft (Is Published FALSE)",
                quote(id),
                quote(status),
                quote(value),
                t.place(draft)
            );
            let (severity, message, help) = match self.published {
                // Two campaigns files disagree: FALSE, then TRUE, then
                // the status change is the spec's own sequence and
                // succeeds. Whether the platform gets them in that
                // order, one run cannot tell.
                Some(public) => (
                    Some(Severity::Warning),
                    format!(
                        "{change} and {} publishes (TRUE); a status other than created can only be changed while the campaign is not a draft, so this change must be uploaded after the TRUE row has propagated",
                        t.place(public)
                    ),
                    "upload the campaigns file with FALSE, then the one with TRUE, wait for it to propagate, then these reviews (never FALSE after TRUE: a published campaign never returns to draft)".to_owned(),
                ),
                // Draft on the platform: the change is refused. Published:
                // the FALSE row is refused. Either way, in any order.
                None => (
                    None,
                    format!(
                        "{change}; a status other than created can only be changed while the campaign is not a draft, and a published campaign never returns to draft, so one of the two uploads is refused in any order"
                    ),
                    "once the campaign's reviews exist, publish it (Is Published TRUE) and upload this status change after that has propagated; or take the status change out of this batch".to_owned(),
                ),
            };
            report(
                emit,
                &rules::STATUS_CHANGE_ON_DRAFT_CAMPAIGN,
                severity,
                at,
                message,
                help,
            );
        } else if let (Some(public), true) = (self.published, row.creates) {
            *ordered = true;
            report(
                emit,
                &rules::NEW_REVIEW_ON_PUBLISHED_CAMPAIGN,
                None,
                at,
                format!(
                    "this row creates a review on campaign {}, which {} publishes (Is Published TRUE); new reviews can only be created while the campaign is a draft",
                    quote(value),
                    t.place(public)
                ),
                "upload the campaign with Is Published FALSE first, then these reviews, wait for them to propagate, and publish the campaign in a second campaigns upload".to_owned(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_elements_trim_and_skip_braces_and_empties() {
        let t = "flt-1, flt-2,,flt-3 ";
        let els: Vec<&str> = list_elements(t).iter().map(|&(a, b)| &t[a..b]).collect();
        assert_eq!(els, ["flt-1", "flt-2", "flt-3"]);
        let t = " {a, b}";
        let els: Vec<&str> = list_elements(t).iter().map(|&(a, b)| &t[a..b]).collect();
        assert_eq!(els, ["a", "b"]);
    }

    #[test]
    fn values_and_keys_are_cut_as_the_cell_checks_read_them() {
        let t = "  Q2 review ";
        assert_eq!(elements(t, false), [(2, 11)]);
        let t = " {a, b}";
        assert_eq!(elements(t, true), list_elements(t));
        let v = "github/int-0001";
        assert_eq!(key_of(v, None), Some((0, v.len())));
        assert_eq!(key_of(v, Some(Part::IntegrationId)), Some((7, v.len())));
        for malformed in ["int-0001", "a/b/c", "/int-1", "a b/c"] {
            assert_eq!(key_of(malformed, Some(Part::IntegrationId)), None);
        }
    }

    #[test]
    fn templates_fill_their_placeholders_once() {
        assert_eq!(
            render(
                "x {value} of {cell} at {place}",
                "id",
                "a/id",
                Some("f line 2")
            ),
            "x `id` of `a/id` at f line 2"
        );
        // A value holding a placeholder is not filled again.
        assert_eq!(
            render("{value} {cell}", "{cell}", "c", None),
            "`{cell}` `c`"
        );
        assert_eq!(render("{place} {", "v", "c", None), "{place} {");
    }

    #[test]
    fn every_reference_reports_a_batch_rule() {
        let tables = schema::tables().expect("tables parse");
        let refs: Vec<_> = tables.iter().flat_map(|t| &t.references).collect();
        assert!(!refs.is_empty());
        for r in refs {
            assert!(
                RULES.iter().any(|k| std::ptr::eq(*k, r.rule)),
                "{}",
                r.rule.code
            );
        }
    }

    #[test]
    fn a_key_kept_by_one_row_and_deleted_by_another_is_kept() {
        let mut s = KeySet::default();
        s.add(fp("x"), true, false, (0, 2));
        assert!(matches!(s.find(fp("x")), Found::Removed((0, 2))));
        s.add(fp(" x "), false, true, (0, 3));
        assert!(matches!(
            s.find(fp("x")),
            Found::Kept {
                published: Some((0, 3)),
                drafted: None,
            }
        ));
        s.add(fp("x"), false, false, (1, 2));
        s.add_draft(fp("x"), (1, 2));
        s.add_draft(fp("x"), (1, 5));
        assert!(matches!(
            s.find(fp("x")),
            Found::Kept {
                published: Some((0, 3)),
                drafted: Some((1, 2)),
            }
        ));
        assert!(matches!(s.find(fp("X")), Found::Absent));
    }
}
