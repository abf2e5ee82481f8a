//! The guarantees of `--fix`, over generated files: rows no fix touches are
//! byte-identical, the output has as many records, a second `--fix` changes
//! nothing, and no finding with a safe fix is left.

use assert_cmd::Command;
use proptest::prelude::*;
use serde_json::Value;

fn bdxlint() -> Command {
    let mut c = Command::cargo_bin("bdxlint").expect("binary builds");
    c.env_remove("BDXLINT_OUTPUT_FORMAT");
    c
}

/// A cell of an employees file: clean, damaged in a fixable way, or
/// damaged beyond repair.
fn date() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("03/07/2024".to_owned()),
        Just("2024-03-07".to_owned()),
        Just("3/7/2024".to_owned()),
        Just(" 12/31/2023 ".to_owned()),
        Just("2024/12/1".to_owned()),
        Just("31/12/2024".to_owned()),
        Just("02/30/2024".to_owned()),
        Just(String::new()),
    ]
}

fn email() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{1,6}@example\\.com",
        "[a-z]{1,6}@example\\.com".prop_map(|e| format!("  {e} ")),
        "[a-z]{1,6}@example\\.com".prop_map(|e| format!("\u{a0}{e}")),
        Just("broken@".to_owned()),
    ]
}

fn roles() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("reviewer".to_owned()),
        Just("\"reviewer, admin\"".to_owned()),
        Just("\"Reviewer, ADMIN\"".to_owned()),
        Just("RiskManager".to_owned()),
        Just("\" admin\"".to_owned()),
        Just("auditor".to_owned()),
        Just(String::new()),
    ]
}

fn title() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("Engineer".to_owned()),
        Just("\"Director, \"\"Ops\"\"\"".to_owned()),
        Just("\"two\nlines\"".to_owned()),
        Just(" spaced ".to_owned()),
    ]
}

prop_compose! {
    fn file()(
        rows in prop::collection::vec((email(), title(), date(), date(), roles()), 1..25),
        crlf in any::<bool>(),
        header in prop_oneof![
            Just("Full Name,Work Email,Title,Start Date,End Date,Platform Roles"),
            Just("full name,Work Email*,Title,START DATE,End Date,platform roles"),
        ],
        bom in any::<bool>(),
    ) -> Vec<u8> {
        let nl = if crlf { "\r\n" } else { "\n" };
        let mut s = String::new();
        if bom {
            s.push('\u{feff}');
        }
        s.push_str(header);
        s.push_str(nl);
        for (i, (email, title, start, end, roles)) in rows.into_iter().enumerate() {
            s.push_str(&format!("P{i},{email},{title},{start},{end},{roles}{nl}"));
        }
        s.into_bytes()
    }
}

/// Each record's bytes, as the csv crate cuts them (the oracle reader).
fn records(bytes: &[u8]) -> Vec<Vec<u8>> {
    let body = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(bytes);
    let skip = bytes.len() - body.len();
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(body);
    let mut starts: Vec<usize> = Vec::new();
    let mut rec = csv::ByteRecord::new();
    loop {
        let at = r.position().byte() as usize;
        match r.read_byte_record(&mut rec) {
            Ok(true) => starts.push(skip + at),
            Ok(false) => break,
            Err(e) => panic!("unreadable: {e}"),
        }
    }
    starts
        .iter()
        .enumerate()
        .map(|(i, &s)| bytes[s..starts.get(i + 1).copied().unwrap_or(bytes.len())].to_vec())
        .collect()
}

fn findings(dir: &std::path::Path) -> Vec<Value> {
    let out = bdxlint()
        .current_dir(dir)
        .args([
            "check",
            "--format",
            "employees",
            "--output-format",
            "json",
            "e.csv",
        ])
        .assert()
        .get_output()
        .stdout
        .clone();
    let doc: Value = serde_json::from_slice(&out).expect("JSON");
    doc["files"][0]["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn safe_edit_starts(findings: &[Value]) -> Vec<u64> {
    findings
        .iter()
        .filter(|d| d["fix"]["applicability"] == "safe")
        .flat_map(|d| d["fix"]["edits"].as_array().cloned().unwrap_or_default())
        .filter_map(|e| e["span"]["start"].as_u64())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn fixing_keeps_its_promises(original in file()) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("e.csv");
        std::fs::write(&path, &original).expect("write");
        let before = findings(dir.path());
        let touched = safe_edit_starts(&before);
        let run = bdxlint()
            .current_dir(dir.path())
            .args(["check", "--fix", "--output-format", "json", "--format", "employees", "e.csv"])
            .output()
            .expect("runs");
        prop_assert!(matches!(run.status.code(), Some(0 | 1)), "{:?}", run.status);
        let fixed = std::fs::read(&path).expect("read");
        // What --fix reports is what a check of the fixed file finds.
        let doc: Value = serde_json::from_slice(&run.stdout).expect("JSON");
        let reported = doc["files"][0]["diagnostics"].as_array().cloned().unwrap_or_default();
        prop_assert_eq!(&reported, &findings(dir.path()));

        // As many records, and every record no safe fix points into is the
        // same bytes (the BOM, if removed, belongs to no record).
        let (old, new) = (records(&original), records(&fixed));
        prop_assert_eq!(old.len(), new.len());
        let mut start = if original.starts_with(&[0xEF, 0xBB, 0xBF]) { 3u64 } else { 0 };
        for (i, (o, n)) in old.iter().zip(&new).enumerate() {
            let end = start + o.len() as u64;
            let fixed_here = touched.iter().any(|&t| t >= start && t < end);
            if !fixed_here {
                prop_assert_eq!(
                    String::from_utf8_lossy(o),
                    String::from_utf8_lossy(n),
                    "record {} changed without a fix", i
                );
            }
            start = end;
        }

        // No safe fix left; a second --fix changes nothing.
        let after = findings(dir.path());
        prop_assert!(safe_edit_starts(&after).is_empty(), "{:?}", after);
        let code = bdxlint()
            .current_dir(dir.path())
            .args(["check", "--fix", "-q", "--format", "employees", "e.csv"])
            .output()
            .expect("runs")
            .status
            .code();
        prop_assert!(matches!(code, Some(0 | 1)), "{:?}", code);
        prop_assert_eq!(std::fs::read(&path).expect("read"), fixed);
    }
}
