//! Batch checks: what the CSV files of one run say about each other.
//!
//! A directory prepared for upload often holds files that refer to records
//! other files of it define: a rule's Filters are filter IDs, a review
//! names its campaign, RBAC2 and findings rows name an integration. The
//! platform resolves those references against what it already holds, which
//! an offline check cannot see, so a missing target is a warning, and a
//! kind of reference is checked only when the run holds a file able to
//! define its target (a filters file with an ID column, a campaigns file,
//! an integrations download). Without one, nothing is said. The one error,
//! `status-change-on-draft-campaign`, is about two files of the run that
//! cannot both be accepted whatever the platform holds and whatever order
//! they are uploaded in.
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
//! each such map. A million filter IDs
//! take 10-21 MB. The referring files keep nothing per row. A false
//! "defined" needs a 64-bit collision.

use super::cross::IdentityHasher;
use super::refs::{cell, stream, stream_with_columns};
use super::text::quote;
use super::{Emitter, Options};
use crate::check::shapes::integration_ref_problem;
use crate::diagnostic::{Diagnostic, Severity};
use crate::error::Error;
use crate::rules::{self, Rule};
use crate::scan::{raw_offset, FieldSpan, Record};
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
    let has = |f: &str| inputs.iter().any(|i| i.format == f);
    // Read a defining file only when something in the run refers to it.
    let wanted = |format: &str| match format {
        "filters" => has("rules"),
        "campaigns" => has("reviews"),
        "integrations" => has("rbac2") || has("findings"),
        _ => false,
    };
    let defining: Vec<&BatchInput<'_>> = inputs.iter().filter(|i| wanted(i.format)).collect();
    let partial: Vec<Targets> = defining
        .par_iter()
        .enumerate()
        .map(|(n, input)| collect(input, n as u32, opts))
        .collect::<Result<_, _>>()?;
    let mut targets = Targets::default();
    for t in partial {
        targets.merge(t);
    }
    targets.files = defining
        .iter()
        .map(|i| i.path.display().to_string())
        .collect();
    let mut found: Vec<(usize, Vec<Diagnostic>)> = inputs
        .par_iter()
        .map(|input| check_refs(input, &targets, opts).map(|d| (input.index, d)))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .filter(|(_, d)| !d.is_empty())
        .collect();
    found.sort_by_key(|(i, _)| *i);
    Ok(found)
}

type FpSet = HashSet<u64, BuildHasherDefault<IdentityHasher>>;
/// Fingerprint -> (defining file number, line).
type Places = HashMap<u64, (u32, u32), BuildHasherDefault<IdentityHasher>>;

/// The keys of one kind that the defining files hold.
#[derive(Debug, Default)]
struct KeySet {
    /// Keys some row creates or updates.
    kept: FpSet,
    /// Keys a row deletes, and where the first such row is.
    removed: Places,
    /// Campaigns: keys a row publishes, and where the first such row is.
    published: Places,
    /// Campaigns: keys a row writes as a draft (Is Published FALSE, not
    /// deleted or aborted), and where the first such row is.
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

/// What the defining files of the run hold. `None`: no file of the run can
/// define that kind of key, so references to it are not checked.
#[derive(Debug, Default)]
struct Targets {
    filters: Option<KeySet>,
    campaign_names: Option<KeySet>,
    campaign_ids: Option<KeySet>,
    integrations: Option<KeySet>,
    /// Display paths of the defining files, by file number.
    files: Vec<String>,
}

impl Targets {
    fn merge(&mut self, other: Targets) {
        let join = |a: &mut Option<KeySet>, b: Option<KeySet>| match (a.as_mut(), b) {
            (Some(a), Some(b)) => a.merge(b),
            (None, b) => *a = b,
            (Some(_), None) => {}
        };
        join(&mut self.filters, other.filters);
        join(&mut self.campaign_names, other.campaign_names);
        join(&mut self.campaign_ids, other.campaign_ids);
        join(&mut self.integrations, other.integrations);
    }

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

fn saturate(line: u64) -> u32 {
    u32::try_from(line).unwrap_or(u32::MAX)
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::io(path, e)
}

/// Reads the keys one defining file holds; `file` numbers it for messages.
fn collect(input: &BatchInput<'_>, file: u32, opts: &Options) -> Result<Targets, Error> {
    let reader = std::fs::File::open(input.path).map_err(io(input.path))?;
    let mut t = Targets::default();
    match input.format {
        "filters" => {
            let mut set = KeySet::default();
            let (_, cols) = stream_with_columns(reader, opts, &["ID", "Status"], |emit, rec, c| {
                if let Some((id, _)) = filled(emit.data, rec, c[0]) {
                    let removed = is(emit.data, rec, c[1], "deleted");
                    set.add(fp(&id), removed, false, (file, saturate(rec.line)));
                }
            })
            .map_err(io(input.path))?;
            // New filters get their ID from the platform: a filters file
            // without IDs defines nothing a rule can name.
            if cols.is_some_and(|c| c[0].is_some()) {
                t.filters = Some(set);
            }
        }
        "campaigns" => {
            let (mut names, mut ids) = (KeySet::default(), KeySet::default());
            let (_, cols) = stream_with_columns(
                reader,
                opts,
                &["Name", "ID", "Is Published", "Status"],
                |emit, rec, c| {
                    let removed = is(emit.data, rec, c[3], "deleted");
                    let published = is(emit.data, rec, c[2], "true");
                    // A row that deletes or aborts the campaign does not
                    // leave it a draft the reviews could run into.
                    let drafted = is(emit.data, rec, c[2], "false")
                        && !removed
                        && !is(emit.data, rec, c[3], "aborted");
                    let at = (file, saturate(rec.line));
                    if let Some((name, _)) = filled(emit.data, rec, c[0]) {
                        names.add(fp(&name), removed, published, at);
                        if drafted {
                            names.add_draft(fp(&name), at);
                        }
                    }
                    if let Some((id, _)) = filled(emit.data, rec, c[1]) {
                        ids.add(fp(&id), removed, published, at);
                        if drafted {
                            ids.add_draft(fp(&id), at);
                        }
                    }
                },
            )
            .map_err(io(input.path))?;
            let cols = cols.unwrap_or_default();
            if cols.first().is_some_and(Option::is_some) {
                t.campaign_names = Some(names);
            }
            // The upload format has no ID column; a file with one (an
            // edited download) can define the IDs reviews name.
            if cols.get(1).is_some_and(Option::is_some) {
                t.campaign_ids = Some(ids);
            }
        }
        "integrations" => {
            let mut set = KeySet::default();
            let (_, cols) = stream_with_columns(reader, opts, &["ID"], |emit, rec, c| {
                if let Some((id, _)) = filled(emit.data, rec, c[0]) {
                    set.add(fp(&id), false, false, (file, saturate(rec.line)));
                }
            })
            .map_err(io(input.path))?;
            if cols.is_some_and(|c| c[0].is_some()) {
                t.integrations = Some(set);
            }
        }
        _ => {}
    }
    Ok(t)
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

/// A finding of `rule`'s default severity on `span` inside field `f` of
/// column `column`.
fn warn(
    emit: &mut Emitter<'_>,
    rule: &'static Rule,
    f: &FieldSpan,
    span: Range<usize>,
    column: &str,
    message: String,
    help: String,
) {
    report(emit, rule, None, f, span, column, message, help);
}

/// [`warn`] with a severity other than the rule's default.
#[allow(clippy::too_many_arguments)]
fn report(
    emit: &mut Emitter<'_>,
    rule: &'static Rule,
    severity: Option<Severity>,
    f: &FieldSpan,
    span: Range<usize>,
    column: &str,
    message: String,
    help: String,
) {
    emit.in_field(
        rule,
        severity,
        span,
        f,
        Some(Arc::from(column)),
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

/// Checks the references of one referring file.
fn check_refs(
    input: &BatchInput<'_>,
    t: &Targets,
    opts: &Options,
) -> Result<Vec<Diagnostic>, Error> {
    let open = || std::fs::File::open(input.path).map_err(io(input.path));
    let mut diags = match (input.format, &t.filters, &t.campaign_names, &t.campaign_ids) {
        ("rules", Some(filters), _, _) => {
            stream(open()?, opts, &["Filters", "Status"], |emit, rec, c| {
                rule_filters(emit, rec, c, filters, t)
            })
        }
        ("reviews", _, names, ids) if names.is_some() || ids.is_some() => stream(
            open()?,
            opts,
            &["Campaign Name", "Campaign ID", "ID", "Review Status"],
            |emit, rec, c| review_campaign(emit, rec, c, names.as_ref(), ids.as_ref(), t),
        ),
        ("rbac2" | "findings", ..) => match &t.integrations {
            Some(ints) => stream(open()?, opts, &["Integration", "Status"], |emit, rec, c| {
                // An RBAC2 row with Status `delete` removes its record: what
                // it points at no longer matters.
                if input.format == "rbac2" && is(emit.data, rec, c[1], "delete") {
                    return;
                }
                integration(emit, rec, c[0], ints);
            }),
            None => return Ok(Vec::new()),
        },
        _ => return Ok(Vec::new()),
    }
    .map_err(io(input.path))?;
    diags.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Ok(diags)
}

fn rule_filters(
    emit: &mut Emitter<'_>,
    rec: &Record,
    c: &[Option<usize>],
    filters: &KeySet,
    t: &Targets,
) {
    // A rule being deleted no longer needs its filters (a clean-up batch
    // deletes both).
    if is(emit.data, rec, c[1], "deleted") {
        return;
    }
    let Some((text, f)) = filled(emit.data, rec, c[0]) else {
        return;
    };
    for (from, to) in list_elements(&text) {
        let id = &text[from..to];
        let (message, help) = match filters.find(fp(id)) {
            Found::Kept { .. } => continue,
            Found::Removed(at) => (
                format!(
                    "filter {} is deleted by {} (Status `deleted`)",
                    quote(id),
                    t.place(at)
                ),
                "keep the filter (empty its Status), or remove it from this rule's Filters"
                    .to_owned(),
            ),
            Found::Absent => (
                format!("filter {} is not defined by the batch's filters file", quote(id)),
                format!(
                    "correct the ID, or add a filters row with ID {}; if the filter already exists on the platform, ignore this",
                    quote(id)
                ),
            ),
        };
        let span = part_span(emit.data, f, from, to);
        warn(
            emit,
            &rules::UNDEFINED_FILTER,
            f,
            span,
            "Filters",
            message,
            help,
        );
    }
}

fn review_campaign(
    emit: &mut Emitter<'_>,
    rec: &Record,
    c: &[Option<usize>],
    names: Option<&KeySet>,
    ids: Option<&KeySet>,
    t: &Targets,
) {
    // A row without ID creates a review; one with an ID and a status of
    // approved, rejected or delegated changes that review's status, which
    // rule 2 of the campaign ordering rules allows only once the campaign
    // is not a draft. created, started, stopped and request_info "only
    // update the recommendation" and leave the state "unchanged" (the
    // review state table), whatever the campaign's state: not a change.
    let id = filled(emit.data, rec, c[2]);
    let creates = id.is_none();
    let change = match (&id, filled(emit.data, rec, c[3])) {
        (Some((id, _)), Some((status, _))) if is_status_change(status.trim()) => {
            Some((id.trim().to_owned(), status.trim().to_owned()))
        }
        _ => None,
    };
    // One ordering finding a row: the Name and the ID name one campaign.
    let mut ordered = false;
    for (col, column, set) in [(c[0], "Campaign Name", names), (c[1], "Campaign ID", ids)] {
        let Some(set) = set else { continue };
        let Some((text, f)) = filled(emit.data, rec, col) else {
            continue;
        };
        let value = text.trim();
        let lead = text.len() - text.trim_start().len();
        let span = part_span(emit.data, f, lead, lead + value.len());
        let what = if column == "Campaign Name" {
            "name"
        } else {
            "ID"
        };
        match (set.find(fp(value)), change.as_ref()) {
            (
                Found::Kept {
                    published,
                    drafted: Some(draft),
                },
                Some((id, status)),
            ) if !ordered => {
                ordered = true;
                let change = format!(
                    "this row changes review {} to {} under campaign {}, which {} writes as a draft (Is Published FALSE)",
                    quote(id),
                    quote(status),
                    quote(value),
                    t.place(draft)
                );
                let (severity, message, help) = match published {
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
                    f,
                    span,
                    column,
                    message,
                    help,
                );
            }
            (
                Found::Kept {
                    published: None, ..
                },
                _,
            ) => {}
            (
                Found::Kept {
                    published: Some(at),
                    ..
                },
                _,
            ) => {
                if creates && !ordered {
                    ordered = true;
                    warn(
                        emit,
                        &rules::NEW_REVIEW_ON_PUBLISHED_CAMPAIGN,
                        f,
                        span,
                        column,
                        format!(
                            "this row creates a review on campaign {}, which {} publishes (Is Published TRUE); new reviews can only be created while the campaign is a draft",
                            quote(value),
                            t.place(at)
                        ),
                        "upload the campaign with Is Published FALSE first, then these reviews, wait for them to propagate, and publish the campaign in a second campaigns upload".to_owned(),
                    );
                }
            }
            (Found::Removed(at), _) => warn(
                emit,
                &rules::UNDEFINED_CAMPAIGN,
                f,
                span,
                column,
                format!(
                    "campaign {} is deleted by {} (Status `deleted`)",
                    quote(value),
                    t.place(at)
                ),
                "keep the campaign, or move this review to another campaign".to_owned(),
            ),
            (Found::Absent, _) => warn(
                emit,
                &rules::UNDEFINED_CAMPAIGN,
                f,
                span,
                column,
                format!(
                    "campaign {what} {} is not defined by the batch's campaigns file",
                    quote(value)
                ),
                format!(
                    "correct the {what}, or add the campaign to the campaigns file (as a draft while reviews are created); if it already exists on the platform, ignore this"
                ),
            ),
        }
    }
}

fn integration(emit: &mut Emitter<'_>, rec: &Record, col: Option<usize>, ints: &KeySet) {
    let Some((text, f)) = filled(emit.data, rec, col) else {
        return;
    };
    let value = text.trim();
    // A malformed reference is the cell check's finding (invalid-integration-ref).
    if integration_ref_problem(value).is_some() {
        return;
    }
    let Some((_, id)) = value.split_once('/') else {
        return;
    };
    if !matches!(ints.find(fp(id)), Found::Absent) {
        return;
    }
    let lead = text.len() - text.trim_start().len();
    let from = lead + value.len() - id.len();
    let span = part_span(emit.data, f, from, from + id.len());
    warn(
        emit,
        &rules::UNDEFINED_INTEGRATION,
        f,
        span,
        "Integration",
        format!(
            "integration {} (of {}) is not in the batch's integrations download",
            quote(id),
            quote(value)
        ),
        "use an ID from the ID column of the integrations download, or download the integrations again if it was added since".to_owned(),
    );
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
