//! Cross-row rules over a file large enough to span many chunks: what is
//! "earlier" must not depend on chunk size or thread count, and the earlier
//! row may be megabytes back.

use assert_cmd::Command;
use bdxlint::check::{check_reader, FileReport, Options};
use bdxlint::diagnostic::Severity;
use serde_json::Value;

/// (code, line, related line) of every cross-row finding, in report order.
type Found = Vec<(&'static str, u64, Option<u64>)>;

fn cross_findings(r: &FileReport) -> Found {
    r.diagnostics
        .iter()
        .filter(|d| d.rule.code.starts_with('X'))
        .map(|d| (d.rule.code, d.line, d.related.first().map(|r| r.line)))
        .collect()
}

/// An entitlements file of about 3 MB with conflicting rows far apart, and
/// the findings it must produce.
fn big_file() -> (Vec<u8>, Found) {
    let mut text = String::from("Privilege Name,Privilege Value,Email,User ID,Username,Name\n");
    let mut line = 2u64;
    let mut line_of = Vec::new();
    let mut planted: Found = Vec::new();
    let row = |i: usize| {
        // Every 1009th name is quoted over two lines, so line numbers and
        // record offsets differ and chunk cuts fall inside quoted cells.
        let name = if i.is_multiple_of(1009) {
            format!("\"Name {i}\nsecond line\"")
        } else {
            format!("Name {i}")
        };
        format!(
            "perm{},true,user{i}@example.com,{},user{i},{name}\n",
            i % 7,
            100_000 + i
        )
    };
    let n = 56_000;
    for i in 0..n {
        let r = row(i);
        line_of.push(line);
        text.push_str(&r);
        line += r.matches('\n').count() as u64;
        let mut plant = |text: &mut String, extra: String, code, related: u64| {
            planted.push((code, line, Some(related)));
            line += extra.matches('\n').count() as u64;
            text.push_str(&extra);
        };
        match i {
            // Email user3 alone, though line_of[3] gave it a User ID and Username.
            10_000 => plant(
                &mut text,
                "read,true,user3@example.com,,,Three\n".into(),
                "X002",
                line_of[3],
            ),
            // Email user7 with another User ID: a partner mismatch.
            25_000 => plant(
                &mut text,
                "read,true,user7@example.com,999999,,Seven\n".into(),
                "X003",
                line_of[7],
            ),
            // User9's Email with other capitals, the rest as on its row:
            // only without case the same, a warning (issue 30).
            30_000 => plant(
                &mut text,
                "read,true,User9@Example.com,100009,user9,Nine\n".into(),
                "X007",
                line_of[9],
            ),
            // An exact copy of row 1009, the one with a two-line name.
            40_000 => plant(&mut text, row(1009), "X005", line_of[1009]),
            _ => {}
        }
    }
    // Near the bottom: the Email and User ID of a row near the top, with
    // another Username (rule 2).
    planted.push(("X001", line, Some(line_of[5])));
    text.push_str("admin,true,user5@example.com,100005,someone-else,Five\n");
    for i in n..n + 500 {
        text.push_str(&row(i));
    }
    assert!(text.len() > 3 << 20, "{} bytes", text.len());
    (text.into_bytes(), planted)
}

fn run(data: &[u8], chunk_size: usize, threads: usize) -> FileReport {
    let opts = Options {
        format: Some("entitlements".into()),
        snippets: false,
        chunk_size,
        ..Options::default()
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
        .install(|| check_reader(data, "big.csv", None, &opts))
        .expect("checks")
}

#[test]
#[ignore = "scale: minutes unoptimised; .ci/run runs it in release"]
fn far_apart_conflicts_are_found_whatever_the_chunk_size_and_thread_count() {
    let (data, planted) = big_file();
    let reference = run(&data, 1 << 20, 1);
    assert_eq!(cross_findings(&reference), planted);
    assert_eq!(
        reference.diagnostics.len(),
        planted.len(),
        "nothing else fires: {:?}",
        reference.diagnostics
    );
    for chunk_size in [1, 7, 4096, 1 << 20] {
        for threads in [1, 7] {
            let r = run(&data, chunk_size, threads);
            assert_eq!(
                r.diagnostics, reference.diagnostics,
                "chunk size {chunk_size}, {threads} threads"
            );
            assert_eq!(r.records, reference.records);
        }
    }
}

#[test]
fn the_binary_reports_related_lines_identically_at_any_thread_count() {
    let (data, planted) = big_file();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("entitlements.csv");
    std::fs::write(&path, &data).expect("write");
    let out = |threads: &str| {
        Command::cargo_bin("bdxlint")
            .expect("binary builds")
            .args(["check", "--output-format", "json", "--threads", threads])
            .arg(&path)
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone()
    };
    let one = out("1");
    assert_eq!(one, out("7"));
    let doc: Value = serde_json::from_slice(&one).expect("json");
    let found: Vec<(String, u64, u64)> = doc["files"][0]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().expect("code").to_owned(),
                d["line"].as_u64().expect("line"),
                d["related"][0]["line"].as_u64().expect("related line"),
            )
        })
        .collect();
    let want: Vec<(String, u64, u64)> = planted
        .iter()
        .map(|(c, l, r)| (c.to_string(), *l, r.expect("related")))
        .collect();
    assert_eq!(found, want);
}

#[test]
fn the_duplicate_row_cap_is_reported_once_and_remembered_rows_still_match() {
    let mut text = String::from("Full Name,Work Email,Start Date\n");
    for i in 0..6 {
        text.push_str(&format!("P{i},p{i}@example.com,03/07/2024\n"));
    }
    // Line 8 repeats line 2 (remembered); line 9 repeats line 7 (the sixth
    // distinct row, past the cap of 3: not remembered).
    text.push_str("P0,p0@example.com,03/07/2024\n");
    text.push_str("P5,p5@example.com,03/07/2024\n");
    let opts = Options {
        snippets: false,
        max_distinct_rows: 3,
        ..Options::default()
    };
    let r = check_reader(text.as_bytes(), "employees.csv", None, &opts).expect("checks");
    let rows: Vec<(u64, Severity, &str)> = r
        .diagnostics
        .iter()
        .filter(|d| d.rule.name == "duplicate-row")
        .map(|d| (d.line, d.severity, d.message.as_str()))
        .collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0].0, 5);
    assert_eq!(rows[0].1, Severity::Info);
    assert!(
        rows[0].2.contains("only the first 3 distinct rows"),
        "{rows:?}"
    );
    assert_eq!((rows[1].0, rows[1].1), (8, Severity::Warning));
    assert!(rows[1].2.contains("line 2"), "{rows:?}");
}

#[test]
fn a_repeated_tuple_gives_the_same_answer_every_time() {
    // Rows of one identity repeat its tuple, and the fold remembers clean
    // tuples to skip their lookups; a conflicting tuple must still be
    // reported on every row that repeats it, in any chunk.
    let data = b"Privilege Name,Privilege Value,Email,User ID,Username,Name\n\
read,true,a@example.com,1,alice,A\n\
write,true,a@example.com,1,alice,A\n\
read,true,a@example.com,1,bob,B\n\
admin,true,a@example.com,1,alice,A\n\
write,true,a@example.com,1,bob,B\n\
read,true,c@example.com,3,carol,C\n\
admin,true,a@example.com,1,bob,B\n";
    for chunk_size in [1, 40, 1 << 20] {
        for threads in [1, 2] {
            let r = run(data, chunk_size, threads);
            assert_eq!(
                cross_findings(&r),
                vec![
                    ("X001", 4, Some(2)),
                    ("X001", 6, Some(2)),
                    ("X001", 8, Some(2))
                ],
                "chunk size {chunk_size}, {threads} threads"
            );
        }
    }
}

#[test]
#[ignore = "scale: minutes unoptimised; .ci/run runs it in release"]
fn a_size_hint_changes_no_finding_right_or_wrong() {
    // With the input's size known, the duplicate-row map is sized from the
    // first chunk; a hint that is far off (or absurd) must only change how
    // much is reserved, never what is found.
    let (data, planted) = big_file();
    let run = |size_hint: Option<u64>, max_distinct_rows: usize| {
        let opts = Options {
            snippets: false,
            chunk_size: 64 << 10,
            size_hint,
            max_distinct_rows,
            ..Options::default()
        };
        check_reader(&data[..], "entitlements.csv", None, &opts).expect("checks")
    };
    let reference = run(None, bdxlint::check::MAX_DISTINCT_ROWS);
    assert_eq!(cross_findings(&reference), planted);
    for hint in [1, data.len() as u64, u64::MAX] {
        for cap in [100, bdxlint::check::MAX_DISTINCT_ROWS, usize::MAX] {
            let r = run(Some(hint), cap);
            let plain = run(None, cap);
            assert_eq!(r.diagnostics, plain.diagnostics, "hint {hint}, cap {cap}");
        }
    }
}

/// Issue 30's cross-row readings, checked at every chunk size and thread
/// count: `identity-email-case` (a warning, its earlier row named) where
/// e-mails differ only in case and nothing worse is wrong, the error kept
/// where they differ otherwise; `incompatible-rows` between a review
/// created and a status changed under one campaign, the rows apart.
#[test]
fn email_case_and_incompatible_rows_do_not_depend_on_chunks_or_threads() {
    let cases: [(&str, &str, Found); 3] = [
        (
            // A spelling with capitals before the lowercase one, either way
            // round, and after it another spelling.
            "entitlements",
            "Privilege Name,Privilege Value,Email,User ID,Username\n\
             r,true,Bob@example.com,10,bob\n\
             r,true,bob@example.com,10,bob\n\
             r,true,BOB@example.com,10,bob\n\
             s,true,bob@example.com,10,bob\n\
             r,true,eve@example.com,20,eve\n\
             w,true,Eve@example.com,20,eve\n\
             x,true,Zed@example.com,30,\n\
             x,true,zed@example.com,,zed\n",
            vec![
                ("X007", 3, Some(2)),
                ("X007", 4, Some(2)),
                ("X007", 5, Some(2)),
                ("X007", 7, Some(6)),
                ("X007", 9, Some(8)),
            ],
        ),
        (
            "entitlements",
            "Privilege Name,Privilege Value,Email,User ID,Username\n\
             admin,true,ada@example.com,1001,ada\n\
             read,true,grace@example.com,2002,grace\n\
             read,true,Ada@Example.com,1001,ada\n\
             write,true,ADA@example.com,3003,\n\
             write,true,Ada@Example.com,1001,alice\n\
             exec,true,carl@example.com,,\n\
             exec,true,Carl@example.com,,\n",
            vec![
                ("X007", 4, Some(2)),
                ("X007", 5, Some(2)),
                ("X001", 6, Some(4)),
            ],
        ),
        (
            "reviews",
            "ID,Identity Email,Campaign Name,Campaign ID,Application ID,Application Name,Resource,Resource Type,Permission Name,Permission Value,Reviewer ID,Review Status,Updated By,Updated At\n\
             ,ada@example.com,Q2,,github,GitHub,r,repo,admin,true,c@example.com,,c@example.com,2024-03-01\n\
             rev-1,,,camp-1,,,,,,,c@example.com,approved,c@example.com,2024-03-01\n\
             rev-2,,Q3,,,,,,,,c@example.com,rejected,c@example.com,2024-03-01\n\
             rev-3,,Q2,,,,,,,,c@example.com,request_info,c@example.com,2024-03-01\n\
             ,grace@example.com,,camp-1,aws,AWS,b,role,read,true,c@example.com,,c@example.com,2024-03-01\n\
             rev-4,,Q2,,,,,,,,c@example.com,delegated,c@example.com,2024-03-01\n\
             ,alan@example.com,Q3,,aws,AWS,b,role,read,true,c@example.com,,c@example.com,2024-03-01\n",
            vec![
                ("X006", 6, Some(3)),
                ("X006", 7, Some(2)),
                ("X006", 8, Some(4)),
            ],
        ),
    ];
    for (format, text, want) in cases {
        let opts = |chunk_size| Options {
            format: Some(format.into()),
            snippets: false,
            chunk_size,
            ..Options::default()
        };
        for chunk_size in [1, 7, 64, 1 << 20] {
            for threads in [1, 3] {
                let r = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("thread pool")
                    .install(|| check_reader(text.as_bytes(), "f.csv", None, &opts(chunk_size)))
                    .expect("checks");
                assert_eq!(
                    cross_findings(&r),
                    want,
                    "{format}, chunk size {chunk_size}, {threads} threads: {:#?}",
                    r.diagnostics
                );
                let x007 = r.diagnostics.iter().filter(|d| d.rule.code == "X007");
                assert!(x007.into_iter().all(|d| d.severity == Severity::Warning));
            }
        }
    }
}
