//! Batch checks: what the CSV files of one run say about each other.
//!
//! A directory prepared for upload often holds files that refer to records
//! other files of it define: a rule's Filters are filter IDs, a review
//! names its campaign, RBAC2 and findings rows name an integration. Which
//! cell refers to which key is table data, the `[[references]]` entries of
//! `rules/*.toml` (grammar in `rules/README.md`), run by the one engine of
//! [`super::refs`]; this module runs, before any file is checked, the
//! entries of the formats that say nothing when unchecked (the relations
//! formats' are checked after each file). The platform resolves a
//! reference against what it already holds, which an offline check cannot
//! see, so a missing target is a warning, and a reference is checked only
//! when the run holds a file able to define its target: one of the target
//! format whose header has the key column. Without one, nothing is said.
//!
//! Two rules are not references but campaign state, and are Rust here:
//! `new-review-on-published-campaign` and `status-change-on-draft-campaign`
//! (the one error: two files of the run that cannot both be accepted
//! whatever the platform holds and whatever order they are uploaded in).
//! They are a hook on the engine: the key sets of the reviews' references
//! to campaigns also keep where campaigns rows publish or draft each key.
//!
//! Two passes, both streamed: the defining files are read into the
//! engine's fingerprint sets (memory in [`super::refs`]), then the
//! referring files are read a second time (after their own check) with the
//! sets in hand, so findings carry the line, column and span of the cell
//! like any other. A file's findings are kept until the batch is done
//! (the run places them after the file's own).

use super::refs::{self, filled, Active, At, Found, Hook, Keys, Marker, Spec};
use super::text::quote;
use super::{Emitter, Options};
use crate::diagnostic::{Diagnostic, Severity};
use crate::error::Error;
use crate::rules::{self, Rule};
use crate::scan::Record;
use crate::schema;
use rayon::prelude::*;
use std::path::Path;

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
        .filter(|i| plan.sets.iter().any(|(s, _)| s.target == i.format))
        .collect();
    let partial: Vec<(Vec<Spec>, Vec<refs::KeySet>)> = defining
        .par_iter()
        .enumerate()
        .map(|(n, input)| collect(input, n as u32, &plan, opts))
        .collect::<Result<_, _>>()?;
    let mut keys = Keys::default();
    for input in &defining {
        keys.add_file(input.path.display().to_string());
    }
    // In file order, so that "the first row" a finding names is the first
    // of the run, whichever thread read it.
    for (specs, sets) in partial {
        keys.merge(&specs, sets);
    }
    let mut found: Vec<(usize, Vec<Diagnostic>)> = inputs
        .par_iter()
        .map(|input| check_refs(input, &plan, &keys, opts).map(|d| (input.index, d)))
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
/// target formats both have a file in it, and the key sets they need
/// (marked: the state rules also read where rows publish or draft).
struct Plan {
    refs: Vec<(&'static str, Active)>,
    sets: Vec<(Spec, bool)>,
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
            // Formats that say what went unchecked have their references
            // checked after each file (`refs::check_references_into`).
            if !table.unchecked.is_empty() {
                continue;
            }
            for reference in &table.references {
                // Without a file able to define the target, nothing is said:
                // running a single file is the common case.
                if !has(&reference.target) {
                    continue;
                }
                let state = table.name == REVIEWS && reference.target == CAMPAIGNS;
                let active = Active {
                    state,
                    ..Active::of(table, reference)
                };
                match plan.sets.iter_mut().find(|(s, _)| *s == active.spec) {
                    Some((_, marked)) => *marked |= state,
                    None => plan.sets.push((active.spec, state)),
                }
                plan.refs.push((&table.name, active));
            }
        }
        Ok(plan)
    }
}

fn is(data: &[u8], rec: &Record, col: Option<usize>, value: &str) -> bool {
    filled(data, rec, col).is_some_and(|(t, _)| t.trim().eq_ignore_ascii_case(value))
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::io(path, e)
}

/// Reads the keys one defining file holds into the sets of its format;
/// `file` numbers it for messages.
fn collect(
    input: &BatchInput<'_>,
    file: u32,
    plan: &Plan,
    opts: &Options,
) -> Result<(Vec<Spec>, Vec<refs::KeySet>), Error> {
    let mine: Vec<(Spec, bool)> = plan
        .sets
        .iter()
        .filter(|(s, _)| s.target == input.format)
        .copied()
        .collect();
    let mark = |data: &[u8], rec: &Record, c: &[Option<usize>], removed: bool| {
        let row = CampaignRow::read(data, rec, [c[0], c[1]]);
        (row.published(removed), row.drafted(removed))
    };
    let marker = Marker {
        columns: &CAMPAIGN_STATE_COLUMNS,
        mark: &mark,
    };
    let marked = mine.iter().any(|(_, m)| *m).then_some(&marker);
    let reader = std::fs::File::open(input.path).map_err(io(input.path))?;
    let sets = refs::collect(reader, opts, file, &mine, marked).map_err(io(input.path))?;
    Ok((mine.into_iter().map(|(s, _)| s).collect(), sets))
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

/// Whether a Review Status moves a review to another state (the review
/// state table's approved, rejected and delegated rows), in any case.
fn is_status_change(status: &str) -> bool {
    ["approved", "rejected", "delegated"]
        .iter()
        .any(|s| status.eq_ignore_ascii_case(s))
}

/// The state rules on the reviews' references to campaigns: each row's
/// review ID and status, and one state finding a row at most.
struct StateRules {
    row: Option<ReviewRow>,
    /// The row already had its state finding (the Name and the ID name one
    /// campaign).
    ordered: bool,
}

impl Hook for StateRules {
    fn columns(&self) -> &[&'static str] {
        &REVIEW_STATE_COLUMNS
    }

    fn row(&mut self, data: &[u8], rec: &Record, cols: &[Option<usize>]) {
        self.row = Some(ReviewRow::read(data, rec, [cols[0], cols[1]]));
        self.ordered = false;
    }

    fn kept(&mut self, emit: &mut Emitter<'_>, at: &At<'_>, key: &str, found: Found, keys: &Keys) {
        if let (Found::Kept { published, drafted }, Some(row)) = (found, &self.row) {
            let campaign = Campaign { published, drafted };
            campaign.judge(emit, row, &mut self.ordered, at, key, keys);
        }
    }
}

/// Checks the references of one referring file.
fn check_refs(
    input: &BatchInput<'_>,
    plan: &Plan,
    keys: &Keys,
    opts: &Options,
) -> Result<Vec<Diagnostic>, Error> {
    let mine: Vec<Active> = plan
        .refs
        .iter()
        .filter(|(format, a)| {
            *format == input.format && keys.get(&a.spec).is_some_and(|k| k.defined)
        })
        .map(|(_, a)| Active { ..*a })
        .collect();
    if mine.is_empty() {
        return Ok(Vec::new());
    }
    let mut state = StateRules {
        row: None,
        ordered: false,
    };
    let hook: Option<&mut dyn Hook> = if mine.iter().any(|a| a.state) {
        Some(&mut state)
    } else {
        None
    };
    let reader = std::fs::File::open(input.path).map_err(io(input.path))?;
    let mut diags = Vec::new();
    refs::check_batch_file(reader, opts, &mine, keys, hook, &mut |d| diags.push(d))
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
        t: &Keys,
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
            refs::report(
                emit,
                &rules::STATUS_CHANGE_ON_DRAFT_CAMPAIGN,
                severity,
                at,
                message,
                help,
            );
        } else if let (Some(public), true) = (self.published, row.creates) {
            *ordered = true;
            refs::report(
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
    fn every_batch_reference_reports_a_batch_rule() {
        let tables = schema::tables().expect("tables parse");
        let refs: Vec<_> = tables
            .iter()
            .filter(|t| t.unchecked.is_empty())
            .flat_map(|t| &t.references)
            .collect();
        assert!(!refs.is_empty());
        for r in refs {
            for s in &r.sources {
                assert!(
                    RULES.iter().any(|k| std::ptr::eq(*k, s.rule)),
                    "{}",
                    s.rule.code
                );
            }
        }
    }
}
