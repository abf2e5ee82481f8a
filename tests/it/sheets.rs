//! A file saved by a spreadsheet, at scale: Google Sheets writes booleans
//! as `TRUE`, CRLF line endings, and now and then an error value or an ID
//! in scientific notation. The human report stays bounded (the first few
//! findings of each rule and column, then one line summing up the rest),
//! the same at any thread count; machine formats keep every finding.

use std::path::PathBuf;
use std::process::Command;

const ROWS: usize = 100_000;

fn sheets_export() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bdxlint-sheets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("entitlements.csv");
    let mut text =
        String::from("Project,Privilege Name,Privilege Value,Email,User ID,Username\r\n");
    for i in 0..ROWS {
        let id = if i % 10_000 == 7 {
            "5.83231E+11".to_owned()
        } else if i % 10_000 == 9 {
            "#N/A".to_owned()
        } else {
            format!("{}", 583_231_000_000u64 + i as u64)
        };
        text.push_str(&format!(
            "acme-org,admin,TRUE,user{i}@example.com,{id},user{i}\r\n"
        ));
    }
    std::fs::write(&path, text).expect("write");
    path
}

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_bdxlint"))
        .args(args)
        .output()
        .expect("bdxlint runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn a_sheets_export_gets_a_bounded_human_report_that_sums_up_each_rule_and_column() {
    let path = sheets_export();
    let f = path.to_str().expect("utf-8 temp path");
    let human = run(&["check", "--color", "never", "--threads", "1", f]);
    assert!(
        human.lines().count() < 400,
        "{} lines:\n{human}",
        human.lines().count()
    );
    assert!(
        human.contains(
            "warning(C006) boolean-case in `Privilege Value`: 100,000 findings, the first 5 shown above; most common: 100,000 × `TRUE`"
        ),
        "{human}"
    );
    assert!(
        human.contains("error(C017) spreadsheet-error in `User ID`: 10 findings, the first 5 shown above; most common: 10 × `#N/A`"),
        "{human}"
    );
    assert!(
        human.contains("error(C016) scientific-notation-id in `User ID`: 10 findings"),
        "{human}"
    );
    // The damaged IDs are all the same text, so the rows that share one
    // also conflict as identities (18 `identity-partner-mismatch`).
    assert!(
        human.ends_with(
            "38 errors, 100000 warnings, 0 infos in 1 file; 100000 fixable with --fix\n"
        ),
        "{human}"
    );
    for threads in ["2", "7"] {
        let other = run(&["check", "--color", "never", "--threads", threads, f]);
        assert!(
            human == other,
            "--threads {threads} differs from --threads 1"
        );
    }
    // Machine formats keep every finding.
    let concise = run(&["check", "--output-format", "concise", f]);
    assert_eq!(concise.lines().count(), ROWS + 38);
    // `--statistics` counts them by rule and column.
    let stats = run(&["check", "--statistics", f]);
    assert!(
        stats.starts_with(
            "100000  C006  boolean-case                     warning\n\
             100000        `Privilege Value`\n"
        ),
        "{stats}"
    );
    std::fs::remove_dir_all(path.parent().expect("dir")).ok();
}

/// Issue 28: the folded line of a column of many distinct values printed
/// the counts its table of 8 inherited as the values' counts
/// (`25,000 × 1.30816E+11` for a value seen twice among 200,000). A
/// column whose values come twice each lists none (none stands out); a
/// value that stands out but came after the table was full is listed with
/// the count it surely has, marked as a bound; the rest stay exact.
#[test]
fn folded_lines_print_exact_counts_or_say_they_are_bounds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let header = "Project,Privilege Name,Privilege Value,Email,User ID,Username\n";
    // Each damaged ID twice, as the export had them.
    let mut twice = String::from(header);
    for k in 0..1_000 {
        for p in ["admin", "read"] {
            twice.push_str(&format!(
                "acme-org,{p},true,user{k}@example.com,1.{k:05}E+11,user{k}\n"
            ));
        }
    }
    // A thousand distinct IDs, then one ID in every other row.
    let mut late = String::from(header);
    for k in 0..2_000 {
        let (id, user) = if k >= 1_000 && k % 2 == 0 {
            ("1.30816E+11".to_owned(), "shared".to_owned())
        } else {
            (format!("1.{k:05}E+11"), format!("user{k}"))
        };
        late.push_str(&format!(
            "acme-org,p{k},true,{user}@example.com,{id},{user}\n"
        ));
    }
    let (a, b) = (dir.path().join("twice.csv"), dir.path().join("late.csv"));
    std::fs::write(&a, twice).expect("write");
    std::fs::write(&b, late).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_bdxlint"))
        .current_dir(dir.path())
        .args([
            "check",
            "--color",
            "never",
            "--format",
            "entitlements",
            "twice.csv",
            "late.csv",
        ])
        .output()
        .expect("bdxlint runs");
    let human = String::from_utf8(out.stdout).expect("UTF-8");
    let folded: Vec<&str> = human
        .lines()
        .filter(|l| l.contains(" findings, "))
        .collect();
    insta::assert_snapshot!(folded.join("\n"));
}
