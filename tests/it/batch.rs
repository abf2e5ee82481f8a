//! Batch checks beyond the fixtures: the readings rules/README.md documents
//! (deleted targets, Campaign IDs, files without key columns, several files
//! of one format), and spans through quoting and line breaks.

use bdxlint::check::batch::{check_batch, BatchInput};
use bdxlint::check::{check_path, Options};
use bdxlint::diagnostic::{Diagnostic, Severity};
use std::path::PathBuf;

const FILTERS: &str = "ID,Name,Type,Value,Status\n\
flt-1,Engineering,PEOPLE,{},\n\
flt-2,Old,PEOPLE,{},deleted\n";

const CAMPAIGNS: &str = "Name,Start Date,End Date,Is Published,Updated At,Updated By,Status\n\
Draft,2024-07-01T00:00:00Z,2024-07-31T00:00:00Z,FALSE,2024-06-01T00:00:00Z,a@example.com,\n\
Live,2024-07-01T00:00:00Z,2024-07-31T00:00:00Z,TRUE,2024-06-01T00:00:00Z,a@example.com,\n\
Gone,2024-07-01T00:00:00Z,2024-07-31T00:00:00Z,FALSE,2024-06-01T00:00:00Z,a@example.com,deleted\n\
\"SOX \"\"in-scope\"\" apps\",2024-07-01T00:00:00Z,2024-07-31T00:00:00Z,FALSE,2024-06-01T00:00:00Z,a@example.com,\n";

const REVIEW_HEADER: &str = "ID,Identity Email,Campaign Name,Campaign ID,Application ID,Application Name,Reviewer ID,Updated By,Updated At,Resource,Resource Type,Permission Name,Permission Value\n";

fn review(id: &str, name: &str, campaign_id: &str) -> String {
    format!("{id},ada@example.com,{name},{campaign_id},gh,GitHub,b@example.com,b@example.com,2024-06-02,repo,repository,admin,true\n")
}

/// (file, code, line, col, the bytes the span covers) of every batch
/// finding, for files given as (name, text) and checked as one run.
fn run(files: &[(&str, &str)]) -> Vec<(String, &'static str, u64, u64, String)> {
    run_full(files)
        .into_iter()
        .map(|(file, d, text)| (file, d.rule.code, d.line, d.col, text))
        .collect()
}

/// Every batch finding whole, with its file and the bytes its span covers.
fn run_full(files: &[(&str, &str)]) -> Vec<(String, Diagnostic, String)> {
    let dir = tempfile::tempdir().expect("tempdir");
    let opts = Options {
        snippets: false,
        ..Options::default()
    };
    let paths: Vec<PathBuf> = files
        .iter()
        .map(|(name, text)| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).expect("write");
            p
        })
        .collect();
    let formats: Vec<&'static str> = paths
        .iter()
        .map(|p| {
            check_path(p, &opts)
                .expect("checks")
                .format
                .expect("detected")
        })
        .collect();
    let inputs: Vec<BatchInput<'_>> = paths
        .iter()
        .zip(&formats)
        .enumerate()
        .map(|(index, (path, format))| BatchInput {
            index,
            path,
            format,
        })
        .collect();
    let mut out = Vec::new();
    for (i, diags) in check_batch(&inputs, &opts).expect("reads") {
        let bytes = std::fs::read(&paths[i]).expect("read back");
        for d in diags {
            let text = String::from_utf8_lossy(&bytes[d.span.start as usize..d.span.end as usize]);
            out.push((files[i].0.to_owned(), d, text.into_owned()));
        }
    }
    out
}

fn s(x: &str) -> String {
    x.to_owned()
}

#[test]
fn a_filter_the_batch_deletes_is_named_with_its_row_and_a_deleted_rule_is_not_checked() {
    let rules = "Name,Label,Status,Filters,Logic\n\
a,l,,\"flt-1,\nflt-2\",OR\n\
b,l,deleted,flt-2,OR\n";
    let found = run(&[("filters.csv", FILTERS), ("rules.csv", rules)]);
    // The second element sits on the cell's second physical line.
    assert_eq!(found, vec![(s("rules.csv"), "B011", 3, 1, s("flt-2"))]);
}

#[test]
fn a_filters_file_without_an_id_column_defines_nothing_a_rule_can_name() {
    let filters = "Name,Type,Value\nEngineering,PEOPLE,{}\n";
    let rules = "Name,Label,Filters,Logic\na,l,flt-9,OR\n";
    assert_eq!(
        run(&[("filters.csv", filters), ("rules.csv", rules)]),
        vec![]
    );
}

#[test]
fn references_go_unchecked_when_the_target_format_is_not_in_the_run() {
    let rules = "Name,Label,Filters,Logic\na,l,flt-9,OR\n";
    let reviews = format!("{REVIEW_HEADER}{}", review("", "Nowhere", ""));
    let rbac2 = "Integration,Identity Username\nokta/int-9,ada\n";
    assert_eq!(
        run(&[
            ("rules.csv", rules),
            ("reviews.csv", &reviews),
            ("rbac2.csv", rbac2)
        ]),
        vec![]
    );
}

#[test]
fn several_files_of_one_format_define_keys_together() {
    let more = "ID,Name,Type,Value,Status\nflt-3,More,PEOPLE,{},\n";
    let rules = "Name,Label,Filters,Logic\na,l,\"flt-1, flt-3, flt-4\",OR\n";
    let found = run(&[
        ("a-filters.csv", FILTERS),
        ("b-filters.csv", more),
        ("rules.csv", rules),
    ]);
    assert_eq!(found, vec![(s("rules.csv"), "B011", 2, 20, s("flt-4"))]);
}

#[test]
fn campaign_names_updates_deletions_and_quoted_names() {
    let reviews = format!(
        "{REVIEW_HEADER}{}{}{}{}{}",
        review("", "Draft", ""),
        // An existing review may change under a published campaign.
        review("rev-1", "Live", ""),
        review("", "Live", ""),
        review("rev-2", "Gone", ""),
        review("", "\"SOX \"\"in-scope\"\" app\"", ""),
    );
    let found = run(&[("campaigns.csv", CAMPAIGNS), ("reviews.csv", &reviews)]);
    assert_eq!(
        found,
        vec![
            (s("reviews.csv"), "B009", 4, 18, s("Live")),
            (s("reviews.csv"), "B012", 5, 23, s("Gone")),
            (
                s("reviews.csv"),
                "B012",
                6,
                19,
                s("SOX \"\"in-scope\"\" app")
            ),
        ]
    );
}

#[test]
fn campaign_ids_are_checked_only_against_a_campaigns_file_with_an_id_column() {
    let reviews = format!(
        "{REVIEW_HEADER}{}{}",
        review("", "", "camp-9"),
        // Name and ID name one published campaign: one finding for the row.
        review("", "Live", "camp-2"),
    );
    assert_eq!(
        run(&[("campaigns.csv", CAMPAIGNS), ("reviews.csv", &reviews)]),
        vec![(s("reviews.csv"), "B009", 3, 18, s("Live"))]
    );
    let with_ids = "ID,Name,Start Date,End Date,Is Published,Updated At,Updated By\n\
camp-1,Draft,2024-07-01T00:00:00Z,2024-07-31T00:00:00Z,FALSE,2024-06-01T00:00:00Z,a@example.com\n\
camp-2,Live,2024-07-01T00:00:00Z,2024-07-31T00:00:00Z,TRUE,2024-06-01T00:00:00Z,a@example.com\n";
    let reviews = format!(
        "{REVIEW_HEADER}{}{}",
        review("", "", "camp-9"),
        review("", "", "camp-2"),
    );
    assert_eq!(
        run(&[("campaigns.csv", with_ids), ("reviews.csv", &reviews)]),
        vec![
            (s("reviews.csv"), "B012", 2, 19, s("camp-9")),
            (s("reviews.csv"), "B009", 3, 19, s("camp-2")),
        ]
    );
}

#[test]
fn integration_references_compare_the_id_after_the_slash() {
    let ints = "ID,Name,Status\nint-1,GitHub,active\n";
    let rbac2 = "Integration,Identity Username,Status\n\
github/int-1,ada,\n\
okta/int-9,bob,\n\
okta/int-9,eve,delete\n\
int-9,joe,\n";
    let findings = "Employee,Identity,Labels,Integration,Assigned To,Updated By\n\
Ada,ada@example.com,[],\" github/int-2\",a@example.com,a@example.com\n";
    let found = run(&[
        ("findings.csv", findings),
        ("integrations.csv", ints),
        ("rbac2.csv", rbac2),
    ]);
    // `int-9` alone is malformed: invalid-integration-ref's finding, not ours.
    assert_eq!(
        found,
        vec![
            (s("findings.csv"), "B008", 2, 33, s("int-2")),
            (s("rbac2.csv"), "B008", 3, 6, s("int-9")),
        ]
    );
}

/// A ragged row's cells may have shifted: what stands in its Integration
/// column may be another column's value, so it neither refers to nor
/// defines anything (its field count is the main check's finding). The
/// same for a ragged integrations row's ID.
#[test]
fn ragged_rows_take_no_part_in_references() {
    let ints = "ID,Name,Status\nint-1,GitHub,active\nint-2,Okta\n";
    let rbac2 = "Integration,Identity Username,Status\n\
github/int-1,ada,\n\
okta/int-9,x,bob,\n\
github/int-2,eve,\n";
    let found = run(&[("integrations.csv", ints), ("rbac2.csv", rbac2)]);
    assert_eq!(found, vec![(s("rbac2.csv"), "B008", 4, 8, s("int-2"))]);
}

/// A reviews row with an ID and a Review Status under the campaign.
fn change(id: &str, name: &str, status: &str) -> String {
    format!("{id},,{name},,,,b@example.com,{status},b@example.com,2024-08-02,,,,\n")
}

const CHANGE_HEADER: &str = "ID,Identity Email,Campaign Name,Campaign ID,Application ID,Application Name,Reviewer ID,Review Status,Updated By,Updated At,Resource,Resource Type,Permission Name,Permission Value\n";

const LATER: &str = "Name,Start Date,End Date,Is Published,Updated At,Updated By,Status\n\
Draft,2024-07-01T00:00:00Z,2024-07-31T00:00:00Z,true,2024-07-10T00:00:00Z,a@example.com,\n";

#[test]
fn a_status_change_under_a_campaign_the_run_keeps_a_draft_is_refused_in_any_order() {
    let reviews = format!(
        "{CHANGE_HEADER}{}{}{}{}{}{}{}",
        change("rev-1", "Draft", "approved"),
        // `created`, `started`, `stopped` and `request_info` only update
        // the recommendation, whatever the campaign's state: not a change.
        change("rev-2", "Draft", "created"),
        change("rev-2", "Draft", "request_info"),
        change("rev-2", "Draft", "Started"),
        // A row without ID creates a review, which a draft allows.
        change("", "Draft", "approved"),
        // A campaign deleted or aborted is no draft to run into.
        change("rev-3", "Gone", "rejected"),
        change("rev-4", "Live", "delegated"),
    );
    let aborted = "Name,Start Date,End Date,Is Published,Updated At,Updated By,Status\n\
Stopped,2024-07-01T00:00:00Z,2024-07-31T00:00:00Z,FALSE,2024-06-01T00:00:00Z,a@example.com,aborted\n";
    let reviews = format!("{reviews}{}", change("rev-5", "Stopped", "started"));
    let found = run_full(&[
        ("a-campaigns.csv", CAMPAIGNS),
        ("b-campaigns.csv", aborted),
        ("reviews.csv", &reviews),
    ]);
    let got: Vec<_> = found
        .iter()
        .map(|(f, d, text)| (f.as_str(), d.rule.code, d.severity, d.line, text.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("reviews.csv", "B013", Severity::Error, 2, "Draft"),
            ("reviews.csv", "B012", Severity::Warning, 7, "Gone"),
        ]
    );
    assert!(
        found[0]
            .1
            .message
            .contains("a-campaigns.csv line 2 writes as a draft"),
        "{}",
        found[0].1.message
    );
}

#[test]
fn a_campaign_the_run_writes_both_draft_and_published_makes_the_status_change_a_warning() {
    // Two campaigns files disagree: FALSE, then TRUE, then the change is
    // the spec's own order.
    let reviews = format!("{CHANGE_HEADER}{}", change("rev-1", " Draft ", "approved"));
    let found = run_full(&[
        ("a-campaigns.csv", CAMPAIGNS),
        ("b-campaigns.csv", LATER),
        ("reviews.csv", &reviews),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    let (file, d, text) = &found[0];
    assert_eq!(
        (
            file.as_str(),
            d.rule.code,
            d.severity,
            d.line,
            d.col,
            text.as_str()
        ),
        ("reviews.csv", "B013", Severity::Warning, 2, 9, "Draft")
    );
    assert!(
        d.message
            .contains("a-campaigns.csv line 2 writes as a draft")
            && d.message.contains("b-campaigns.csv line 2 publishes")
            && d.message
                .contains("must be uploaded after the TRUE row has propagated"),
        "{}",
        d.message
    );
}

#[test]
fn a_status_change_under_a_campaign_the_run_only_publishes_is_clean() {
    let reviews = format!("{CHANGE_HEADER}{}", change("rev-1", "Draft", "approved"));
    assert_eq!(
        run(&[("campaigns.csv", LATER), ("reviews.csv", &reviews)]),
        vec![]
    );
}

#[test]
fn a_status_change_named_by_campaign_id_and_name_is_one_finding() {
    let with_ids = "ID,Name,Start Date,End Date,Is Published,Updated At,Updated By\n\
camp-1,Draft,2024-07-01T00:00:00Z,2024-07-31T00:00:00Z,FALSE,2024-06-01T00:00:00Z,a@example.com\n";
    let reviews = format!(
        "{CHANGE_HEADER}{}{}",
        "rev-1,,Draft,camp-1,,,b@example.com,approved,b@example.com,2024-08-02,,,,\n",
        "rev-2,,,camp-1,,,b@example.com,rejected,b@example.com,2024-08-02,,,,\n",
    );
    assert_eq!(
        run(&[("campaigns.csv", with_ids), ("reviews.csv", &reviews)]),
        vec![
            (s("reviews.csv"), "B013", 2, 8, s("Draft")),
            (s("reviews.csv"), "B013", 3, 9, s("camp-1")),
        ]
    );
}
