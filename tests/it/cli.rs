//! The binary as a user runs it: exit codes, inputs, output contracts.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use std::path::Path;

const CLEAN: &str = "Full Name,Work Email,Start Date\nAda Lovelace,ada@example.com,03/07/2024\n";
const BAD: &str = "Full Name,Work Email,Start Date\nAda Lovelace,ada@example.com,3/7/2024\n";
const WARN_ONLY: &str =
    "Full Name,Work Email,Start Date,Nickname\nAda,ada@example.com,03/07/2024,A\n";

fn bdxlint() -> Command {
    let mut c = Command::cargo_bin("bdxlint").expect("binary builds");
    c.env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("BDXLINT_OUTPUT_FORMAT");
    c
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(&p, text).expect("write fixture");
    p
}

fn json(out: &[u8]) -> Value {
    serde_json::from_slice(out).expect("stdout is one JSON document")
}

#[test]
fn exit_0_when_clean_even_with_warnings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let clean = write(dir.path(), "employees.csv", CLEAN);
    let warn = write(dir.path(), "warn.csv", WARN_ONLY);
    bdxlint().arg("check").arg(&clean).assert().code(0);
    bdxlint()
        .arg("check")
        .arg(&warn)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("unknown-column"));
}

#[test]
fn exit_1_on_errors_with_code_line_and_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = write(dir.path(), "employees.csv", BAD);
    bdxlint()
        .args(["check", "--output-format", "concise"])
        .arg(&bad)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("employees.csv:2:30: C004 [error]"));
}

#[test]
fn unreadable_file_exits_2_and_the_others_are_still_checked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = write(dir.path(), "employees.csv", BAD);
    let missing = dir.path().join("nope.csv");
    let out = bdxlint()
        .args(["check", "--output-format", "json"])
        .arg(&missing)
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nope.csv"))
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).expect("utf-8");
    assert_eq!(stderr.lines().count(), 1, "one line per failure: {stderr}");
    let doc = json(&out.stdout);
    assert_eq!(doc["summary"]["errors"], 1);
    assert_eq!(doc["summary"]["unreadable"], 1);
    let files = doc["files"].as_array().expect("files");
    assert!(files.iter().any(|f| f["error"].is_string()));
}

/// Standard input is detected from its header like a file; a header that
/// fits no format asks for `--format` (exit 2), which always wins.
#[test]
fn stdin_is_detected_from_its_header_and_format_wins() {
    let example = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example/employees.csv"),
    )
    .expect("example");
    bdxlint()
        .args(["check", "--output-format", "json", "-"])
        .write_stdin(example)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(r#""format":"employees""#));
    bdxlint()
        .args(["check", "-"])
        .write_stdin(CLEAN)
        .assert()
        .code(0);
    bdxlint()
        .args(["check", "-"])
        .write_stdin("Foo,Bar\n1,2\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--format"));
    bdxlint()
        .args([
            "check",
            "--format",
            "employees",
            "--output-format",
            "concise",
            "-",
        ])
        .write_stdin(BAD)
        .assert()
        .code(1)
        .stdout(predicate::str::starts_with("-:2:30: C004"));
}

#[test]
fn directories_expand_to_sorted_csv_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "b.csv", BAD);
    write(dir.path(), "a/z.csv", BAD);
    write(dir.path(), "a/notes.txt", "not csv");
    write(dir.path(), "C.CSV", BAD);
    let out = bdxlint()
        .args(["check", "--output-format", "json", "--format", "employees"])
        .arg(dir.path())
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let doc = json(&out);
    let paths: Vec<String> = doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| {
            Path::new(f["path"].as_str().expect("path"))
                .strip_prefix(dir.path())
                .expect("under dir")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(paths, ["C.CSV", "a/z.csv", "b.csv"]);
}

#[test]
fn check_without_a_path_checks_the_working_directory() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "sub/employees.csv", BAD);
    let out = bdxlint()
        .current_dir(dir.path())
        .args(["check", "--isolated", "--output-format", "concise"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).expect("utf-8");
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("sub/employees.csv:2:30: C004"), "{out}");
}

#[test]
fn ambiguous_and_unknown_headers_exit_2_naming_candidates() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Only the columns both relation formats share.
    let both = write(
        dir.path(),
        "links.csv",
        "Parent Entity Source ID,Parent Entity Type,Entity Source ID,Entity Type,Source System\nr1,role,c1,connection,okta\n",
    );
    bdxlint()
        .arg("check")
        .arg(&both)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("entity-relations"))
        .stderr(predicate::str::contains("entity-rbac-relations"))
        .stderr(predicate::str::contains("--format"));
    let none = write(dir.path(), "x.csv", "Foo,Bar\n1,2\n");
    bdxlint()
        .arg("check")
        .arg(&none)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("fits no known format"));
    // A file name hint breaks the tie.
    let hinted = write(
        dir.path(),
        "entity_rbac_relations.csv",
        "Parent Entity Source ID,Parent Entity Type,Entity Source ID,Entity Type,Source System\nr1,role,c1,connection,okta\n",
    );
    bdxlint()
        .args(["check", "--output-format", "json"])
        .arg(&hinted)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "\"format\":\"entity-rbac-relations\"",
        ));
}

/// `unknown-format` is the one rule a single-file fixture cannot show: it
/// fires only for files met by a directory walk (tests/it/fixtures.rs lets it
/// off the fixture rule for that reason).
#[test]
fn a_walked_csv_of_no_format_is_a_warning_and_a_named_one_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "uploads/employees.csv", CLEAN);
    write(dir.path(), "docs/metrics.csv", "Month,Count\n2024-01,3\n");
    write(
        dir.path(),
        "uploads/links.csv",
        "Parent Entity Source ID,Parent Entity Type,Entity Source ID,Entity Type,Source System\nr1,role,c1,connection,okta\n",
    );
    let run = |args: &[&str], code: i32| {
        let out = bdxlint()
            .current_dir(dir.path())
            .args(["check", "--isolated", "--output-format", "concise"])
            .args(args)
            .assert()
            .code(code)
            .get_output()
            .clone();
        (
            String::from_utf8(out.stdout).expect("utf-8"),
            String::from_utf8(out.stderr).expect("utf-8"),
        )
    };
    let (out, err) = run(&[], 0);
    assert_eq!(
        out,
        "./docs/metrics.csv:1:1: F008 [warning] cannot tell the format from the header; it fits no known format; the file was not checked\n\
         ./uploads/links.csv:1:1: F008 [warning] cannot tell the format from the header; it fits entity-relations, entity-rbac-relations; the file was not checked\n",
        "{err}"
    );
    assert!(err.is_empty(), "{err}");
    run(&["--fail-on", "warning", "."], 1);
    let (out, _) = run(&["--ignore", "unknown-format", "docs", "uploads"], 0);
    assert_eq!(out, "");
    // Named, the file is still a failure to check.
    let (out, err) = run(&["docs/metrics.csv", "uploads"], 2);
    assert!(
        err.contains("docs/metrics.csv: cannot tell the format"),
        "{err}"
    );
    assert!(!out.contains("metrics"), "{out}");
    assert!(out.contains("links.csv:1:1: F008"), "{out}");
    // Named first and walked after, it is checked once, as named.
    run(&["./docs/metrics.csv", "docs"], 2);
    // In JSON, the file is a report with the finding, not an error.
    let out = bdxlint()
        .current_dir(dir.path())
        .args(["check", "--isolated", "--output-format", "json", "docs"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let doc = json(&out);
    assert_eq!(doc["summary"]["warnings"], 1);
    assert_eq!(doc["summary"]["unreadable"], 0);
    assert_eq!(doc["files"][0]["diagnostics"][0]["code"], "F008");
    // The human report draws it without a source line.
    bdxlint()
        .current_dir(dir.path())
        .args(["check", "--isolated", "docs"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("warning(F008) unknown-format"))
        .stderr("");
}

/// Issue 30: ordinary CSV files that share a column name or two with a
/// format are not uploads; a walk takes a file as a format only on strong
/// evidence (its required columns, three names and half of its header, or
/// its file name), so they are `unknown-format` warnings beside a valid
/// upload, while an upload that lost a required column still fails.
#[test]
fn a_walk_takes_stray_csvs_as_unknown_format_and_still_fails_a_broken_upload() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "uploads/employees.csv", CLEAN);
    write(dir.path(), "misc/ids.csv", "id,val\n1,2\n");
    write(
        dir.path(),
        "misc/people.csv",
        "name,email\nAda,ada@example.com\n",
    );
    write(dir.path(), "misc/series.csv", "date,value\n2024-01-01,3\n");
    write(
        dir.path(),
        "misc/kinds.csv",
        "Name,Description,Type\nx,a kind,plain\n",
    );
    let run = |code: i32| {
        let out = bdxlint()
            .current_dir(dir.path())
            .args(["check", "--isolated", "--output-format", "concise", "."])
            .assert()
            .code(code)
            .get_output()
            .clone();
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let out = run(0);
    let codes: Vec<&str> = out
        .lines()
        .map(|l| l.split(' ').nth(1).unwrap_or(""))
        .collect();
    assert_eq!(codes, ["F008"; 4], "{out}");
    assert!(
        out.contains("./misc/ids.csv:1:1: F008 [warning] cannot tell the format from the header; only 1 of its names is a column of rbac2, which requires Identity Username too, and its file name does not say rbac2; the file was not checked\n"),
        "{out}"
    );
    assert!(out.contains("misc/kinds.csv:1:1: F008"), "{out}");
    // Named, a stray file is checked as today: as the format it fits.
    bdxlint()
        .current_dir(dir.path())
        .args(["check", "--isolated", "misc/ids.csv"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("H001"));
    // Unless the caller names every CSV it meets, as pre-commit does.
    bdxlint()
        .current_dir(dir.path())
        .args(["check", "--isolated", "--strict-detection", "misc/ids.csv"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("F008"))
        .stdout(predicate::str::contains("H001").not());
    // An upload without its required `Start Date`, by its other names.
    write(
        dir.path(),
        "uploads/more.csv",
        "Employee ID,Full Name,Work Email,Department\nE-1,Ada Lovelace,ada@example.com,Engineering\n",
    );
    let out = run(1);
    assert!(
        out.contains("./uploads/more.csv:1:1: H001 [error] the header has no `Start Date` column"),
        "{out}"
    );
    // And with two names only, by a file name that says its format.
    std::fs::remove_file(dir.path().join("uploads/more.csv")).expect("rm");
    write(
        dir.path(),
        "uploads/new_employees.csv",
        "Full Name,Work Email\nAda Lovelace,ada@example.com\n",
    );
    let out = run(1);
    assert!(
        out.contains(
            "./uploads/new_employees.csv:1:1: H001 [error] the header has no `Start Date` column"
        ),
        "{out}"
    );
}

#[test]
fn unknown_format_is_a_usage_error() {
    bdxlint()
        .args(["check", "--format", "employes", "x.csv"])
        .assert()
        .code(2);
}

#[test]
fn color_only_when_asked_or_on_a_terminal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = write(dir.path(), "employees.csv", BAD);
    let esc = predicate::str::contains("\u{1b}[");
    bdxlint()
        .arg("check")
        .arg(&bad)
        .assert()
        .stdout(esc.clone().not());
    bdxlint()
        .args(["check", "--color", "always"])
        .arg(&bad)
        .assert()
        .stdout(esc.clone());
    bdxlint()
        .arg("check")
        .arg(&bad)
        .env("CLICOLOR_FORCE", "1")
        .assert()
        .stdout(esc.clone());
    bdxlint()
        .arg("check")
        .arg(&bad)
        .env("CLICOLOR_FORCE", "1")
        .env("NO_COLOR", "1")
        .assert()
        .stdout(esc.clone().not());
    // FORCE_COLOR (force-color.org): any non-empty value, and it wins over
    // NO_COLOR as that site's reference code has it; a flag still wins.
    for (force, no_color, flag, colour) in [
        ("1", None, None, true),
        ("0", None, None, true),
        ("", None, None, false),
        ("1", Some("1"), None, true),
        ("1", None, Some("never"), false),
    ] {
        let mut c = bdxlint();
        c.arg("check").env("FORCE_COLOR", force);
        if let Some(v) = no_color {
            c.env("NO_COLOR", v);
        }
        if let Some(f) = flag {
            c.args(["--color", f]);
        }
        let out = c.arg(&bad).assert().code(1).get_output().stdout.clone();
        let out = String::from_utf8(out).expect("utf-8");
        assert_eq!(
            out.contains('\u{1b}'),
            colour,
            "FORCE_COLOR={force:?} NO_COLOR={no_color:?} --color {flag:?}"
        );
    }
}

#[test]
fn output_format_from_the_environment_and_ruff_s_names() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = write(dir.path(), "employees.csv", BAD);
    let run = |args: &[&str], env: Option<&str>| {
        let mut c = bdxlint();
        c.arg("check").args(args).arg(&bad);
        if let Some(v) = env {
            c.env("BDXLINT_OUTPUT_FORMAT", v);
        }
        String::from_utf8(c.assert().code(1).get_output().stdout.clone()).expect("utf-8")
    };
    let concise = run(&["--output-format", "concise"], None);
    assert!(concise.contains(":2:30: C004 [error]"), "{concise}");
    assert_eq!(run(&[], Some("concise")), concise);
    // The flag wins over the variable.
    assert_eq!(run(&["--output-format", "concise"], Some("json")), concise);
    // ruff's names for the same outputs.
    assert_eq!(
        run(&["--output-format", "full"], None),
        run(&["--output-format", "human"], None)
    );
    assert_eq!(
        run(&["--output-format", "json-lines"], None),
        run(&["--output-format", "jsonl"], None)
    );
    assert_eq!(
        run(&[], Some("json-lines")),
        run(&["--output-format", "jsonl"], None)
    );
    // The variable wins over the config file, as a flag does.
    write(dir.path(), "bdxlint.toml", "output-format = \"json\"\n");
    let out = bdxlint()
        .current_dir(dir.path())
        .env("BDXLINT_OUTPUT_FORMAT", "concise")
        .args(["check", "employees.csv"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    assert!(
        String::from_utf8(out)
            .expect("utf-8")
            .starts_with("employees.csv:2:30: C004"),
        "concise, not the config's json"
    );
    bdxlint()
        .env("BDXLINT_OUTPUT_FORMAT", "fancy")
        .arg("check")
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("fancy"));
}

#[test]
fn human_output_shows_the_line_and_a_caret_under_the_cell() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "employees.csv", BAD);
    let out = bdxlint()
        .current_dir(dir.path())
        .args(["check", "employees.csv"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).expect("utf-8");
    insta::assert_snapshot!(text);
}

#[test]
fn json_document_follows_the_contract() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = write(
        dir.path(),
        "employees.csv",
        "Full Name,Work Email,Start Date\n\"Ada \"\"A\"\"\nLovelace\",ada@example.com,3/7/2024\n",
    );
    let out = bdxlint()
        .current_dir(dir.path())
        .args(["check", "--output-format", "json", "employees.csv"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let doc = json(&out);
    let expected = serde_json::json!({
        "version": 1,
        "files": [{
            "path": "employees.csv",
            "format": "employees",
            "records": 1,
            "diagnostics": [{
                "code": "C004",
                "name": "invalid-date",
                "severity": "error",
                "message": "`3/7/2024` is not MM/DD/YYYY (e.g. 03/07/2024)",
                "help": "write `Start Date` as MM/DD/YYYY (e.g. 03/07/2024)",
                "line": 3,
                "col": 27,
                "column": "Start Date",
                "span": {"start": 69, "end": 77},
                "value": "3/7/2024",
                "fix": {
                    "applicability": "safe",
                    "message": "write `03/07/2024`",
                    "edits": [{"span": {"start": 69, "end": 77}, "content": "03/07/2024"}]
                }
            }]
        }],
        "summary": {"files": 1, "errors": 1, "warnings": 0, "infos": 0, "unreadable": 0}
    });
    assert_eq!(doc, expected);
    let text = std::fs::read(&bad).expect("read back");
    assert_eq!(&text[69..77], b"3/7/2024");
}

#[test]
fn explain_rules_formats_template() {
    bdxlint()
        .args(["explain", "C004"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("invalid-date"))
        .stdout(predicate::str::contains("Why it matters"));
    bdxlint()
        .args(["explain", "invalid-date"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("C004"));
    bdxlint().args(["explain", "nope"]).assert().code(2);
    bdxlint()
        .arg("rules")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("F001"));
    bdxlint()
        .args(["formats", "employees"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Work Email"));
    bdxlint()
        .args(["template", "campaigns"])
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("Name,Description,Start Date"));
}

#[test]
fn every_template_example_row_checks_clean() {
    for format in bdxlint::schema::format_names() {
        let out = bdxlint()
            .args(["template", "--example", format])
            .assert()
            .code(0)
            .get_output()
            .stdout
            .clone();
        let found = bdxlint()
            .args([
                "check",
                "--output-format",
                "concise",
                "--format",
                format,
                "-",
            ])
            .write_stdin(out)
            .assert()
            .code(0)
            .get_output()
            .stdout
            .clone();
        let found = String::from_utf8(found).expect("utf-8");
        // The only finding allowed is the deprecation notice of the format itself.
        let unexpected: Vec<&str> = found.lines().filter(|l| !l.contains(" F006 ")).collect();
        assert!(unexpected.is_empty(), "{format}: {unexpected:?}");
    }
}

/// The examples are rows people copy: none deletes or aborts what it
/// names, and checked together in one run (the batch rules compare them)
/// they refer only to what the others define.
#[test]
fn template_examples_are_harmless_and_consistent_together() {
    let dir = tempfile::tempdir().expect("tempdir");
    for format in bdxlint::schema::format_names() {
        let out = bdxlint()
            .args(["template", "--example", format])
            .assert()
            .code(0)
            .get_output()
            .stdout
            .clone();
        let text = String::from_utf8(out).expect("utf-8");
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().expect("header").split(',').collect();
        if let Some(i) = header
            .iter()
            .position(|h| h.trim_end_matches('*') == "Status")
        {
            let row = lines.next().expect("example row");
            let status = csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(row.as_bytes())
                .records()
                .next()
                .expect("a record")
                .expect("parses")
                .get(i)
                .map(str::to_owned);
            assert!(
                !matches!(status.as_deref(), Some("deleted" | "aborted")),
                "{format}: Status {status:?}"
            );
        }
        std::fs::write(dir.path().join(format!("{format}.csv")), text).expect("write");
    }
    let out = bdxlint()
        // F006: a deprecated format's notice; B010: the relations examples'
        // references are not checked without --entities.
        .args([
            "check",
            "--output-format",
            "concise",
            "--ignore",
            "F006,B010",
        ])
        .arg(dir.path())
        .output()
        .expect("runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn help_teaches() {
    bdxlint()
        .arg("--help")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Exit status"));
    bdxlint()
        .args(["check", "--help"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("--output-format"))
        .stdout(predicate::str::contains("--stdin-filename <NAME>"))
        .stdout(predicate::str::contains("--show-settings"))
        .stdout(predicate::str::contains("--show-files"));
    bdxlint()
        .arg("--help")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("completions"))
        .stdout(predicate::str::contains("bdxlint check --show-files"))
        .stdout(predicate::str::contains("bdxlint man"));
}

#[cfg(unix)]
#[test]
fn directory_walk_does_not_follow_symlinked_directories() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "sub/a.csv", CLEAN);
    std::os::unix::fs::symlink(dir.path(), dir.path().join("sub/loop")).expect("symlink");
    let out = bdxlint()
        .args(["check", "--output-format", "json"])
        .arg(dir.path())
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    assert_eq!(json(&out)["summary"]["files"], 1);
}

#[test]
fn a_malformed_header_is_a_finding_not_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = write(
        dir.path(),
        "x.csv",
        "\"Full Name,Work Email,Start Date\nAda,a@example.com,03/07/2024\n",
    );
    bdxlint()
        .args(["check", "--output-format", "concise"])
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(":1:1: Q001"));
}

#[test]
fn output_is_byte_identical_at_any_thread_count() {
    // Over 3 MiB, so the file spans several 1 MiB chunks checked in parallel.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut text = String::from("Full Name,Work Email,Start Date\n");
    for i in 0..80_000 {
        let date = if i % 997 == 0 {
            "3/7/2024"
        } else {
            "03/07/2024"
        };
        let name = if i % 1009 == 0 {
            format!("\"Name {i}\nsecond line\"")
        } else {
            format!("Name {i}")
        };
        text.push_str(&format!("{name},user{i}@example.com,{date}\n"));
    }
    assert!(text.len() > 3 << 20);
    let f = write(dir.path(), "employees.csv", &text);
    let run = |threads: &str| {
        bdxlint()
            .args(["check", "--output-format", "json", "--threads", threads])
            .arg(&f)
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone()
    };
    let one = run("1");
    assert_eq!(json(&one)["summary"]["errors"], 81);
    assert_eq!(one, run("2"));
    assert_eq!(one, run("7"));
}

/// The example batch: C003 C004 C004 C008(w) in employees, C006(w) K002 in
/// entitlements.
fn example() -> Command {
    let mut c = bdxlint();
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn stdout_of(c: &mut Command, code: i32) -> String {
    let out = c.assert().code(code).get_output().stdout.clone();
    String::from_utf8(out).expect("utf-8")
}

#[test]
fn select_ignore_and_severity_filter_and_rewrite_findings() {
    let out = stdout_of(
        example().args([
            "check",
            "--output-format",
            "concise",
            "--select",
            "C00",
            "--ignore",
            "C003,boolean-case",
            "--severity",
            "C004=warning",
            "testdata/example/",
        ]),
        0,
    );
    assert_eq!(
        out,
        "testdata/example/employees.csv:4:70: C004 [warning] [*] `2024-03-07` is not MM/DD/YYYY (e.g. 03/07/2024)\n\
         testdata/example/employees.csv:5:64: C004 [warning] `02/30/2024`: 2024-02-30 is not a calendar date\n\
         testdata/example/employees.csv:5:111: C008 [warning] `auditor` is not a value of `Platform Roles`\n"
    );
}

#[test]
fn a_selector_naming_no_rule_exits_2() {
    example()
        .args(["check", "--select", "Z9", "testdata/example/"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("\"Z9\" names no rule"));
    example()
        .args(["check", "--severity", "C004=fatal", "testdata/example/"])
        .assert()
        .code(2);
}

#[test]
fn fail_on_warning_and_exit_zero() {
    let args = ["check", "--select", "C006", "testdata/example/"];
    example().args(args).assert().code(0);
    example()
        .args(args)
        .args(["--fail-on", "warning"])
        .assert()
        .code(1);
    example()
        .args(args)
        .args(["--fail-on", "warning", "--exit-zero"])
        .assert()
        .code(0);
    example()
        .args(["check", "--exit-zero", "testdata/example/"])
        .assert()
        .code(0);
}

#[test]
fn max_diagnostics_caps_printing_per_file_but_not_counting() {
    let out = example()
        .args([
            "check",
            "--output-format",
            "json",
            "--max-diagnostics",
            "1",
            "testdata/example/",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("4 findings not shown"))
        .get_output()
        .stdout
        .clone();
    let doc = json(&out);
    assert_eq!(doc["summary"]["errors"], 4);
    assert_eq!(doc["summary"]["hidden"], 4);
    let shown: Vec<usize> = doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["diagnostics"].as_array().map_or(0, Vec::len))
        .collect();
    assert_eq!(shown, [1, 1]);
    let human = stdout_of(
        example().args([
            "check",
            "--max-diagnostics",
            "2",
            "--color",
            "never",
            "testdata/example/",
        ]),
        1,
    );
    assert!(
        human.ends_with(
            "4 errors, 2 warnings, 0 infos in 2 files; 2 fixable with --fix; 2 findings not shown (--max-diagnostics)\n"
        ),
        "{human}"
    );
}

/// A file named twice (itself and through its directory, or as `./x`) is
/// checked once: otherwise every finding is reported twice, GitLab gets
/// equal fingerprints and JUnit equal test names, and the counts double.
#[test]
fn a_file_named_twice_is_checked_once() {
    let out = stdout_of(
        example().args([
            "check",
            "--output-format",
            "gitlab",
            "testdata/example/",
            "testdata/example/employees.csv",
            "./testdata/example/entitlements.csv",
            "testdata/example/../example/employees.csv",
        ]),
        1,
    );
    let issues: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(issues.as_array().map(Vec::len), Some(6), "{out}");
    let out = stdout_of(
        example().args([
            "check",
            "-q",
            "testdata/example/employees.csv",
            "testdata/example/",
        ]),
        1,
    );
    assert_eq!(
        out,
        "4 errors, 2 warnings, 0 infos in 2 files; 2 fixable with --fix\n"
    );
}

#[test]
fn statistics_count_findings_per_rule() {
    let out = stdout_of(
        example().args(["check", "--statistics", "testdata/example/"]),
        1,
    );
    assert_eq!(
        out,
        "     2  C004  invalid-date                     error\n     \
              2        `Start Date`\n     \
              1  C003  invalid-email                    error\n     \
              1        `Work Email`\n     \
              1  C006  boolean-case                     warning\n     \
              1        `Privilege Value`\n     \
              1  C008  invalid-enum                     warning\n     \
              1        `Platform Roles`\n     \
              1  K002  missing-dependent-value          error\n     \
              1        `Connection Type`\n\
         4 errors, 2 warnings, 0 infos in 2 files; 2 fixable with --fix\n"
    );
}

#[test]
fn quiet_prints_the_summary_or_nothing() {
    let out = stdout_of(example().args(["check", "-q", "testdata/example/"]), 1);
    assert_eq!(
        out,
        "4 errors, 2 warnings, 0 infos in 2 files; 2 fixable with --fix\n"
    );
    let out = stdout_of(
        example().args(["check", "-q", "--select", "F001", "testdata/example/"]),
        0,
    );
    assert_eq!(out, "");
}

#[test]
fn rules_as_json_list_the_registry() {
    let out = stdout_of(example().args(["rules", "--output-format", "json"]), 0);
    let v: Value = serde_json::from_str(&out).expect("JSON");
    let list = v.as_array().expect("array");
    assert_eq!(list.len(), bdxlint::rules::ALL.len());
    assert_eq!(list[0]["code"], "F001");
    assert_eq!(list[0]["name"], "empty-file");
    assert_eq!(list[0]["severity"], "error");
}

/// A temporary project: the example batch copied under `uploads/`, plus a
/// config file when given.
fn project(config: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example");
    for name in ["employees.csv", "entitlements.csv"] {
        let text = std::fs::read_to_string(root.join(name)).expect("fixture");
        write(dir.path(), &format!("uploads/{name}"), &text);
    }
    if let Some(c) = config {
        write(dir.path(), "bdxlint.toml", c);
    }
    dir
}

#[test]
fn config_is_found_above_the_working_directory_and_flags_override_it() {
    let dir = project(Some(
        "select = [\"C\"]\nignore = [\"C003\"]\noutput-format = \"concise\"\n\
         [severity]\nC = \"warning\"\nC004 = \"error\"\n\
         [[overrides]]\npaths = [\"uploads/entitlements.csv\"]\nignore = [\"C006\"]\n",
    ));
    let uploads = dir.path().join("uploads");
    let out = stdout_of(bdxlint().current_dir(&uploads).args(["check", "."]), 1);
    assert_eq!(
        out,
        "./employees.csv:4:70: C004 [error] [*] `2024-03-07` is not MM/DD/YYYY (e.g. 03/07/2024)\n\
         ./employees.csv:5:64: C004 [error] `02/30/2024`: 2024-02-30 is not a calendar date\n\
         ./employees.csv:5:111: C008 [warning] `auditor` is not a value of `Platform Roles`\n"
    );
    // Flags win: --select replaces, --severity overrides, --output-format too.
    let out = stdout_of(
        bdxlint().current_dir(&uploads).args([
            "check",
            "--select",
            "C004",
            "--severity",
            "C004=warning",
            "--output-format",
            "json",
            "employees.csv",
        ]),
        0,
    );
    let doc = json(out.as_bytes());
    assert_eq!(doc["summary"]["warnings"], 2);
    // --isolated ignores the file.
    let out = stdout_of(
        bdxlint().current_dir(&uploads).args([
            "check",
            "--isolated",
            "--output-format",
            "concise",
            ".",
        ]),
        1,
    );
    assert_eq!(out.lines().count(), 6);
}

#[test]
fn a_config_with_an_unknown_key_exits_2_naming_key_and_line() {
    let dir = project(Some("select = [\"C\"]\nfail_on = \"warning\"\n"));
    bdxlint()
        .current_dir(dir.path())
        .args(["check", "uploads"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bdxlint.toml"))
        .stderr(predicate::str::contains("line 2, column 1"))
        .stderr(predicate::str::contains("unknown field `fail_on`"));
}

#[test]
fn config_flag_and_override_format() {
    let dir = project(None);
    // Checked as employees, the entitlements file misses required columns.
    // Override globs are relative to the config file's directory.
    write(
        dir.path(),
        "ci/lint.toml",
        "[[overrides]]\npaths = [\"uploads/*.csv\"]\nformat = \"entities\"\n",
    );
    write(
        dir.path(),
        "lint.toml",
        "[[overrides]]\npaths = [\"uploads/entitle*.csv\"]\nformat = \"employees\"\n",
    );
    let out = stdout_of(
        bdxlint().current_dir(dir.path()).args([
            "check",
            "--config",
            "ci/lint.toml",
            "--output-format",
            "json",
            "uploads/entitlements.csv",
        ]),
        1,
    );
    assert_eq!(json(out.as_bytes())["files"][0]["format"], "entitlements");
    let out = stdout_of(
        bdxlint().current_dir(dir.path()).args([
            "check",
            "--config",
            "lint.toml",
            "--output-format",
            "json",
            "uploads/entitlements.csv",
        ]),
        1,
    );
    let doc = json(out.as_bytes());
    assert_eq!(doc["files"][0]["format"], "employees");
}

#[test]
fn baselines_survive_re_sorted_rows_and_report_new_and_fixed_findings() {
    let dir = project(None);
    let run = |args: &[&str]| {
        let mut c = bdxlint();
        c.current_dir(dir.path())
            .args(["check", "--output-format", "concise"])
            .args(args)
            .arg("uploads");
        c
    };
    run(&["--write-baseline", "base.json"])
        .assert()
        .code(0)
        .stdout("")
        .stderr(predicate::str::contains("recorded 6 findings in base.json"));
    // One line a distinct finding under its file's, nothing of the rows.
    let base = std::fs::read_to_string(dir.path().join("base.json")).expect("written");
    let lines: Vec<&str> = base.lines().collect();
    assert_eq!(lines[0], "bdxlint baseline 2");
    assert_eq!(lines[2], "file \"uploads/employees.csv\"");
    let entries = lines[1..].iter().filter(|l| !l.starts_with(['#', 'f']));
    assert_eq!(entries.count(), 6);
    assert!(!base.contains("2024-03-07"), "{base}");
    run(&["--baseline", "base.json"])
        .assert()
        .code(0)
        .stdout("");

    // Re-sort the employee rows: every finding moves to another line and is
    // still recognised.
    let emp = dir.path().join("uploads/employees.csv");
    let text = std::fs::read_to_string(&emp).expect("read");
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1..].reverse();
    std::fs::write(&emp, lines.join("\n") + "\n").expect("write");
    run(&["--baseline", "base.json"])
        .assert()
        .code(0)
        .stdout("");

    // Fix one finding and make a new one in the same cell: one new finding
    // reported, one entry no longer matches (and the fixed TRUE is another).
    let text = std::fs::read_to_string(&emp).expect("read");
    std::fs::write(&emp, text.replace("2024-03-07", "2024-03-08")).expect("write");
    let ent = dir.path().join("uploads/entitlements.csv");
    let text = std::fs::read_to_string(&ent).expect("read");
    std::fs::write(&ent, text.replace("TRUE", "true")).expect("write");
    run(&["--baseline", "base.json"])
        .assert()
        .code(1)
        .stdout(
            "uploads/employees.csv:3:70: C004 [error] [*] `2024-03-08` is not MM/DD/YYYY (e.g. 03/07/2024)\n",
        )
        .stderr(predicate::str::contains("2 baseline entries no longer match"));
    let out = stdout_of(
        bdxlint().current_dir(dir.path()).args([
            "check",
            "--color",
            "never",
            "--baseline",
            "base.json",
            "uploads",
        ]),
        1,
    );
    assert!(
        out.ends_with("1 error, 0 warnings, 0 infos in 2 files; 1 fixable with --fix; 4 findings in the baseline; 2 baseline entries no longer match (rewrite it with --write-baseline)\n"),
        "{out}"
    );
    bdxlint()
        .current_dir(dir.path())
        .args(["check", "--baseline", "missing.json", "uploads"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("baseline missing.json"));
}

#[test]
fn a_batch_directory_is_checked_as_one_run() {
    let clean = stdout_of(
        example().args([
            "check",
            "--output-format",
            "concise",
            "testdata/batch/clean",
        ]),
        0,
    );
    assert_eq!(clean, "");
    // One batch finding is an error (a status change under a campaign the
    // run keeps a draft is refused in any order): exit 1.
    let failing = stdout_of(
        example().args([
            "check",
            "--output-format",
            "concise",
            "testdata/batch/failing",
        ]),
        1,
    );
    insta::assert_snapshot!(failing);
    // The others are warnings: exit 0 unless told otherwise.
    example()
        .args([
            "check",
            "--ignore",
            "status-change-on-draft-campaign",
            "testdata/batch/failing",
        ])
        .assert()
        .code(0);
    example()
        .args([
            "check",
            "--ignore",
            "B013",
            "--fail-on",
            "warning",
            "testdata/batch/failing",
        ])
        .assert()
        .code(1);
    // They pass through the rule filter like any other finding.
    let ignored = stdout_of(
        example().args([
            "check",
            "--output-format",
            "concise",
            "--ignore",
            "B011,undefined-campaign",
            "testdata/batch/failing",
        ]),
        1,
    );
    assert!(
        !ignored.contains("B011")
            && !ignored.contains("B012")
            && ignored.contains("B009")
            && ignored.contains("B013"),
        "{ignored}"
    );
}

#[test]
fn batch_references_are_not_checked_when_the_target_format_is_not_in_the_run() {
    let d = "testdata/batch/failing";
    let out = stdout_of(
        example()
            .args(["check", "--output-format", "concise"])
            .args(
                ["rules.csv", "reviews.csv", "rbac2.csv", "findings.csv"]
                    .map(|f| format!("{d}/{f}")),
            ),
        0,
    );
    assert_eq!(out, "");
    // Files named one by one form a run just like a directory.
    let out = stdout_of(
        example()
            .args(["check", "--output-format", "concise"])
            .args(["rules.csv", "filters.csv"].map(|f| format!("{d}/{f}"))),
        0,
    );
    assert_eq!(
        out,
        "testdata/batch/failing/rules.csv:3:43: B011 [warning] filter `flt-0009` is not defined by the batch's filters file\n"
    );
}

/// Employee ends of entity RBAC relations are looked up among the Work
/// Emails of the run's employees CSV, never among entities: with
/// `--entities`, without an employees file, with one that lists the
/// employee and with one that does not, in a streamed and a collected run.
#[test]
fn employee_ends_are_checked_against_the_run_s_employees_csv() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    write(
        d,
        "entities.csv",
        "App,Name,Entity Type,Source System,Source ID,Source Type\n\
okta,Admin,role,okta,role-admin,role\n",
    );
    write(
        d,
        "relations.csv",
        "Parent Entity Source ID,Parent Entity Type,Entity Source ID,Entity Type\n\
role-admin,role,ada@example.com,employee\n",
    );
    write(d, "listed/employees.csv", CLEAN);
    write(
        d,
        "other/employees.csv",
        "Full Name,Work Email,Start Date\nGrace Hopper,grace@example.com,03/07/2024\n",
    );
    let run = |extra: &[&str], code: i32| {
        stdout_of(
            bdxlint()
                .current_dir(d)
                .args(["check", "--output-format", "concise"])
                .args(["--entities", "entities.csv", "relations.csv"])
                .args(extra),
            code,
        )
    };
    assert_eq!(
        run(&[], 0),
        "relations.csv:1:1: B010 [info] the 1 employee end of this relations file (Entity Type `employee`) was not checked: employees come from the employees upload, and this run has no employees CSV\n"
    );
    assert_eq!(run(&["listed/employees.csv"], 0), "");
    let missing = "relations.csv:2:17: B014 [warning] employee `ada@example.com` is not a Work Email of the run's employees CSV\n";
    assert_eq!(run(&["other/employees.csv"], 0), missing);
    // The collected (not streamed) path says the same.
    let json = json(
        &bdxlint()
            .current_dir(d)
            .args(["check", "--output-format", "json", "--quiet"])
            .args([
                "--entities",
                "entities.csv",
                "relations.csv",
                "other/employees.csv",
            ])
            .assert()
            .code(0)
            .get_output()
            .stdout,
    );
    let codes: Vec<&str> = json["files"]
        .as_array()
        .expect("files")
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().expect("diagnostics"))
        .map(|d| d["code"].as_str().expect("code"))
        .collect();
    assert_eq!(codes, ["B014"], "{json}");
}

#[test]
fn ignoring_a_cross_row_rule_changes_nothing_else() {
    // An ignored cross-row rule keeps no state at all (that is what keeps
    // memory flat on huge files); the other findings must not notice.
    let dir = tempfile::tempdir().expect("tempdir");
    let text = "Privilege Name,Privilege Value,Email,User ID,Username\n\
read,true,a@example.com,1,alice\n\
read,true,a@example.com,1,alice\n\
write,true,a@example.com,1,bob\n\
write,yes,b@example.com,2,bea\n";
    let f = write(dir.path(), "entitlements.csv", text);
    let lines = |extra: &[&str]| -> Vec<String> {
        let out = bdxlint()
            .args([
                "check",
                "--output-format",
                "concise",
                "--format",
                "entitlements",
            ])
            .args(extra)
            .arg(&f)
            .output()
            .expect("runs");
        String::from_utf8(out.stdout)
            .expect("utf-8")
            .lines()
            .map(str::to_owned)
            .collect()
    };
    let all = lines(&[]);
    for (code, extra) in [
        ("X005", &["--ignore", "X005"][..]),
        ("X00", &["--ignore", "X"][..]),
        ("X001", &["--ignore", "identity-conflict"][..]),
    ] {
        let want: Vec<String> = all
            .iter()
            .filter(|l| !l.contains(&format!(" {code}")))
            .cloned()
            .collect();
        assert!(
            want.len() < all.len(),
            "{code} fires on the fixture: {all:?}"
        );
        assert_eq!(lines(extra), want, "{extra:?}");
    }
}

/// A relations upload that lacks the required `Source System` fits the RBAC
/// relations table by its names alone; its file name says what it is, and
/// it is then checked as that format, with the column missing (an error),
/// not waved through as the other format.
#[test]
fn a_relations_upload_without_source_system_is_still_a_relations_upload() {
    let dir = tempfile::tempdir().expect("tempdir");
    let header = "Parent Entity Source ID,Parent Entity Type,Entity Source ID,Entity Type\n583231,identity,team-admins,connection\n";
    let named = write(dir.path(), "entity-relations.csv", header);
    bdxlint()
        .args(["check", "--output-format", "concise"])
        .arg(&named)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "H001 [error] the header has no `Source System` column",
        ));
}

/// `--statistics` and `--quiet` count findings as they arrive (memory
/// does not grow with their number); with a baseline the findings are
/// collected first. Both paths print the same bytes, in every format they
/// take.
#[test]
fn counting_reports_print_the_same_streamed_or_collected() {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty = dir.path().join("empty-baseline.json");
    // A baseline of a clean file records nothing, so it filters nothing.
    example()
        .args(["check", "--write-baseline"])
        .arg(&empty)
        .arg("testdata/employees/valid.csv")
        .assert()
        .code(0);
    for args in [
        &["--statistics"][..],
        &["--statistics", "--output-format", "json"],
        &["--statistics", "--output-format", "sarif"],
        &["--quiet"],
        &["--quiet", "--output-format", "concise"],
    ] {
        let streamed = stdout_of(
            example().arg("check").args(args).arg("testdata/example/"),
            1,
        );
        let collected = stdout_of(
            example()
                .arg("check")
                .args(args)
                .arg("--baseline")
                .arg(&empty)
                .arg("testdata/example/"),
            1,
        );
        assert_eq!(streamed, collected, "{args:?}");
        assert!(!streamed.is_empty(), "{args:?}");
    }
}

/// The binary's `--output-format` values (its own clap enum, since the
/// library's types know nothing of clap) are the library's formats, every
/// one of them.
#[test]
fn every_library_output_format_is_an_output_format_value() {
    for f in bdxlint::report::OutputFormat::ALL {
        let name = format!("{f:?}").to_lowercase();
        example()
            .args([
                "check",
                "--output-format",
                &name,
                "testdata/employees/valid.csv",
            ])
            .assert()
            .code(0);
    }
}

/// A pipe can be read once: a run of two inputs (which compares its files)
/// must not read a named pipe's header ahead of its check, or the check
/// finds it empty ("no header row") or waits forever for a second writer.
#[cfg(unix)]
#[test]
fn a_named_pipe_is_read_once_by_its_check() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("employees.csv");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let other = write(dir.path(), "other.csv", CLEAN);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            // Blocks until the reader opens the pipe; one writer, once.
            std::fs::write(&fifo, BAD).expect("write the pipe");
        })
    };
    bdxlint()
        .args(["check", "--output-format", "concise"])
        .arg(&fifo)
        .arg(&other)
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("C004"))
        .stdout(predicate::str::contains("F001").not());
    writer.join().expect("writer done");
}

/// A baseline is written beside its target and renamed over it: when the
/// write fails (here a file-size limit), the old baseline is left as it
/// was, no temporary file stays behind, and the run exits 2.
#[cfg(unix)]
#[test]
fn a_failed_baseline_write_keeps_the_old_baseline() {
    let dir = tempfile::tempdir().expect("tempdir");
    let old = dir.path().join("baseline.json");
    std::fs::write(&old, "OLD").expect("old baseline");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example");
    // SIGXFSZ ignored, so the write fails with EFBIG instead of killing
    // the process; no file may grow at all.
    let code = in_bash(
        r#"trap "" XFSZ; ulimit -f 0; exec "$0" check --write-baseline "$1" "$2" >/dev/null 2>&1"#,
        &[old.as_path(), example.as_path()],
    );
    assert_eq!(code, Some(2));
    assert_eq!(std::fs::read_to_string(&old).expect("still there"), "OLD");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(left, [std::ffi::OsString::from("baseline.json")]);
}

/// Exports re-sort rows: a cross-row finding flags whichever of its rows
/// comes second, so its fingerprint is what the rows share. A baseline
/// written before the sort still covers every finding after it.
#[test]
fn baselines_survive_re_sorted_rows_for_cross_row_findings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/entitlements");
    for fixture in [
        "identity-conflict.csv",
        "identity-partner-mismatch.csv",
        "identity-combination.csv",
    ] {
        let text = std::fs::read_to_string(root.join(fixture)).expect("fixture");
        let mut lines: Vec<&str> = text.lines().collect();
        let csv = dir.path().join("entitlements.csv");
        let baseline = dir.path().join("baseline.json");
        std::fs::write(&csv, &text).expect("write");
        bdxlint()
            .current_dir(dir.path())
            .args([
                "check",
                "--write-baseline",
                "baseline.json",
                "entitlements.csv",
            ])
            .assert()
            .code(0);
        // The same rows, the other way round.
        lines[1..].reverse();
        std::fs::write(&csv, lines.join("\n") + "\n").expect("write");
        let found = bdxlint()
            .current_dir(dir.path())
            .args([
                "check",
                "--output-format",
                "concise",
                "--baseline",
                "baseline.json",
            ])
            .arg("entitlements.csv")
            .output()
            .expect("runs");
        assert_eq!(
            (
                found.status.code(),
                String::from_utf8_lossy(&found.stdout).into_owned()
            ),
            (Some(0), String::new()),
            "{fixture}: {}",
            String::from_utf8_lossy(&found.stderr)
        );
        assert!(found.stderr.is_empty(), "{fixture}: stale entries");
        std::fs::remove_file(&baseline).expect("remove");
    }
}

/// `--output-file` writes what standard output would get, whole, and the
/// summary on stderr; a failed write leaves the old report as it was.
#[cfg(unix)]
#[test]
fn output_file_is_written_whole_or_not_at_all() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("report.sarif");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example");
    let to_stdout = bdxlint()
        .args(["check", "--output-format", "sarif"])
        .arg(&example)
        .output()
        .expect("runs");
    let to_file = bdxlint()
        .args(["check", "--output-format", "sarif", "-o"])
        .arg(&report)
        .arg(&example)
        .output()
        .expect("runs");
    assert_eq!(to_file.status.code(), Some(1));
    assert!(to_file.stdout.is_empty());
    assert_eq!(
        std::fs::read(&report).expect("written"),
        to_stdout.stdout,
        "the same report"
    );
    assert_eq!(
        String::from_utf8_lossy(&to_file.stderr),
        "bdxlint: 4 errors, 2 warnings, 0 infos in 2 files; 2 fixable with --fix\n"
    );
    // A directory that does not exist: exit 2, one line.
    let out = bdxlint()
        .args(["check", "-o", "/nonexistent/dir/r.json"])
        .arg(&example)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("bdxlint: --output-file /nonexistent/dir/r.json: "),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    // A write that fails part way (a file-size limit) keeps the old report.
    std::fs::write(&report, "OLD").expect("old report");
    let code = in_bash(
        r#"trap "" XFSZ; ulimit -f 1; exec "$0" check --output-format sarif -o "$1" "$2" >/dev/null 2>&1"#,
        &[report.as_path(), example.as_path()],
    );
    assert_eq!(code, Some(2));
    assert_eq!(
        std::fs::read_to_string(&report).expect("still there"),
        "OLD"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(left, [std::ffi::OsString::from("report.sarif")]);
}

/// Nothing of a file reaches the terminal as it is: escape sequences in a
/// cell (shown in the human output's source line) and a line break in a
/// file name (which could forge a CI log line such as `::error ...`) come
/// out escaped, in human and concise output alike; XML gets no character
/// XML forbids.
#[cfg(unix)]
#[test]
fn terminal_and_report_injection_is_escaped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let name = "evil\n::error title=pwned::x.csv";
    let cell = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m\u{FFFE}@nowhere";
    let text = format!("Full Name,Work Email,Start Date\nAda,{cell},03/07/2024\n");
    let path = write(dir.path(), name, &text);
    for args in [
        &["--color", "never"][..],
        &["--color", "always"],
        &["--output-format", "concise"],
    ] {
        let out = bdxlint()
            .args(["check", "--format", "employees"])
            .args(args)
            .arg(&path)
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone();
        let out = String::from_utf8(out).expect("utf-8");
        assert!(
            !out.contains("\u{1b}]"),
            "{args:?}: an OSC sequence went out:\n{out:?}"
        );
        assert!(!out.contains("\u{1b}[2J"), "{args:?}: {out:?}");
        assert!(
            !out.contains('\u{9b}') && !out.contains('\u{7}'),
            "{args:?}: {out:?}"
        );
        assert!(
            !out.contains("\n::error"),
            "{args:?}: a forged log line:\n{out}"
        );
        assert!(out.contains("evil\\n::error"), "{args:?}: {out}");
        if args[0] == "--color" && args[1] == "never" {
            assert!(!out.contains('\u{1b}'), "{out:?}");
        }
    }
    let xml = bdxlint()
        .args(["check", "--format", "employees", "--output-format", "junit"])
        .arg(&path)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let xml = String::from_utf8(xml).expect("utf-8");
    assert!(
        !xml.chars()
            .any(|c| c == '\u{FFFE}' || c == '\u{FFFF}' || (c < ' ' && !"\t\n\r".contains(c))),
        "{xml:?}"
    );
    // An XML parser reads it (`tests/schema/`, a package of its own); what
    // XML forbids shows as an escape.
    assert!(xml.contains("\\u{fffe}@nowhere"), "{xml}");
    // The structured formats escape by their own rules: their documents
    // parse, carry the name and the cell whole, and no control character
    // goes out raw; every GitHub line is one workflow command.
    for format in ["json", "jsonl", "sarif", "gitlab", "rdjsonl", "github"] {
        let out = bdxlint()
            .args(["check", "--format", "employees", "--output-format", format])
            .arg(&path)
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone();
        let out = String::from_utf8(out).expect("utf-8");
        assert!(
            !out.chars().any(|c| c.is_control() && c != '\n' && c != ' '),
            "{format}: a raw control character: {out:?}"
        );
        let docs: Vec<&str> = match format {
            "jsonl" | "rdjsonl" => out.lines().collect(),
            "github" => {
                assert!(out.lines().all(|l| l.starts_with("::")), "{out}");
                continue;
            }
            _ => vec![out.as_str()],
        };
        let mut text = String::new();
        for d in docs {
            let v: serde_json::Value =
                serde_json::from_str(d).unwrap_or_else(|e| panic!("{format}: {e}: {d}"));
            text.push_str(&v.to_string());
        }
        // JSON escapes the line break; URIs (sarif, gitlab, rdjsonl)
        // percent-encode it.
        assert!(
            text.contains("evil\\n::error title=pwned::x.csv")
                || text.contains("evil%0A%3A%3Aerror%20title=pwned%3A%3Ax.csv"),
            "{format}: {text}"
        );
    }
}

/// Far into a line with non-ASCII text before the finding (past the 2 KiB
/// a snippet keeps before it), each format counts in its own unit:
/// reviewdog bytes, SARIF and the other formats characters.
#[test]
fn columns_far_into_a_non_ascii_line_count_in_each_formats_unit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let name = "é".repeat(1500);
    let path = write(
        dir.path(),
        "employees.csv",
        &format!("Employee ID,Full Name,Work Email,Start Date\nE-1,{name},bad-email,03/07/2024\n"),
    );
    let run = |format: &str| {
        let out = bdxlint()
            .args(["check", "--format", "employees", "--output-format", format])
            .arg(&path)
            .output()
            .expect("runs");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    // `E-1,` is 4 bytes, the name 3,000 bytes and 1,500 characters, `,` one.
    let rd: serde_json::Value =
        serde_json::from_str(run("rdjsonl").lines().next().expect("a line")).expect("JSON");
    assert_eq!(rd["location"]["range"]["start"]["column"], 3006);
    assert_eq!(rd["location"]["range"]["end"]["column"], 3015);
    let sarif: serde_json::Value = serde_json::from_str(&run("sarif")).expect("JSON");
    let region = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startColumn"].clone(), region["endColumn"].clone()),
        (1506.into(), 1515.into())
    );
    assert!(run("concise").contains(":2:1506: C003"));
}

/// A 30,000-row export with one bad cell a row: GitHub code scanning
/// refuses a run of more than 25,000 results, so the log stops there and
/// says how many it left out; `--max-diagnostics` moves the cap.
#[test]
fn sarif_takes_what_code_scanning_accepts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut text = String::from("Employee ID,Full Name,Work Email,Start Date\n");
    for i in 0..30_000 {
        text.push_str(&format!("E-{i},Ada,ada{i}@example,03/07/2024\n"));
    }
    let path = write(dir.path(), "employees.csv", &text);
    let run = |extra: &[&str]| {
        let out = bdxlint()
            .args(["check", "--output-format", "sarif"])
            .args(extra)
            .arg(&path)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1));
        let log: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let run = log["runs"][0].clone();
        (
            run["results"].as_array().map_or(0, Vec::len),
            run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
                .as_str()
                .unwrap_or("")
                .to_owned(),
        )
    };
    let (results, note) = run(&[]);
    assert_eq!(results, 25_000);
    assert!(
        note.starts_with("5000 findings past the 25000 results"),
        "{note}"
    );
    let (results, note) = run(&["--max-diagnostics", "40000"]);
    assert_eq!((results, note.as_str()), (30_000, ""));
}

/// A config or baseline that never ends (`/dev/zero`) stops at a stated
/// bound with exit 2, instead of growing memory until the process is killed.
#[cfg(unix)]
#[test]
fn endless_config_and_baseline_files_stop_at_their_bound() {
    for (flag, bound) in [("--config", "1 MiB"), ("--baseline", "16 KiB")] {
        example()
            .args(["check", flag, "/dev/zero", "testdata/example"])
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!("than {bound}")));
    }
}

/// `--entities` must name an entities CSV (upload or download): another
/// file, or an endless one, would make every reference dangle. Exit 2.
#[test]
fn entities_must_be_an_entities_csv() {
    let mut files = vec!["testdata/employees/valid.csv"];
    if cfg!(unix) {
        files.push("/dev/zero");
    }
    for f in files {
        example()
            .args([
                "check",
                "--entities",
                f,
                "testdata/entity-rbac-relations/valid.csv",
            ])
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(2)
            .stderr(predicate::str::contains("not an entities CSV"));
    }
    example()
        .args([
            "check",
            "--entities",
            "testdata/entities-download/valid.csv",
            "testdata/entity-rbac-relations/valid.csv",
        ])
        .assert()
        .code(1);
}

/// Past 2,048 bytes into a long line the human report shows the part of
/// the line around the finding; its position still names the finding's own
/// column, as concise output does.
#[test]
fn the_human_position_on_a_long_line_is_the_findings_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!(
        "Full Name,Work Email,Start Date\n{},ada@example.com,2024-03-07\n",
        "é".repeat(3000)
    );
    let path = write(dir.path(), "long.csv", &text);
    let run = |args: &[&str]| {
        let out = bdxlint()
            .args(["check", "--format", "employees"])
            .args(args)
            .arg(&path)
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).expect("utf-8")
    };
    let concise = run(&["--output-format", "concise"]);
    assert!(concise.contains(":2:3018: C004"), "{concise}");
    let human = run(&["--color", "never"]);
    assert!(human.contains("long.csv:2:3018]"), "{human}");
}

/// The human report's help keeps its line breaks between the help and the
/// related lines (only characters inside each part are escaped), and a
/// CRLF file numbers its source lines as the position does.
#[test]
fn human_help_lines_and_crlf_line_numbers_stay_right() {
    let out = stdout_of(
        example().args([
            "check",
            "--color",
            "never",
            "--format",
            "entitlements",
            "testdata/entitlements/identity-conflict.csv",
        ]),
        1,
    );
    assert!(!out.contains("\\nsee line"), "{out}");
    assert!(out.contains("see line 2"), "{out}");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(
        dir.path(),
        "crlf.csv",
        "Full Name,Work Email,Start Date\r\nAda,ada@example.com,03/07/2024\r\nBob,bob@example.com,2024-03-07\r\n",
    );
    let out = stdout_of(
        bdxlint()
            .args(["check", "--color", "never", "--format", "employees"])
            .arg(&path),
        1,
    );
    assert!(out.contains("crlf.csv:3:"), "{out}");
    assert!(out.contains(" 3 | Bob,"), "the margin names line 3:\n{out}");
    assert!(!out.contains('\r'), "{out:?}");
    let dir_text = dir.path().display().to_string();
    insta::assert_snapshot!("crlf_human", out.replace(&dir_text, "DIR"));
    // In colour, no carriage return (a visible `^M` in some terminals).
    let colour = stdout_of(
        bdxlint()
            .args(["check", "--color", "always", "--format", "employees"])
            .arg(&path),
        1,
    );
    assert!(!colour.contains('\r'), "{colour:?}");
    insta::assert_snapshot!("crlf_human_colour", colour.replace(&dir_text, "DIR"));
}

/// A header far wider than any format (here 1,000,000 names, 7.9 MB) is
/// one finding and the file is not checked further: it took 4.8 GB and a
/// minute, a finding per unknown name.
#[test]
fn a_header_of_a_million_columns_is_one_finding() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut text = String::from("Full Name,Work Email,Start Date");
    for i in 0..1_000_000 {
        text.push_str(&format!(",c{i}"));
    }
    text.push_str("\nAda,ada@example.com,03/07/2024\n");
    let path = write(dir.path(), "wide.csv", &text);
    let out = stdout_of(
        bdxlint()
            .args(["check", "--output-format", "concise"])
            .arg(&path),
        1,
    );
    assert_eq!(out.lines().count(), 1, "{}", &out[..out.len().min(500)]);
    assert!(
        out.contains("H007 [error] the header has 1000003 columns"),
        "{out}"
    );
}

/// When the reader closes standard output early (`| head -1`), the rest of
/// the output is dropped and the run goes on: the exit status is still the
/// run's (2 here, for a file that does not exist), never 0.
#[cfg(unix)]
#[test]
fn a_closed_output_pipe_keeps_the_runs_exit_status() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Enough findings to fill a pipe's buffer several times over.
    let mut text = String::from("Full Name,Work Email,Start Date\n");
    for i in 0..20_000 {
        text.push_str(&format!("Ada {i},ada{i}@example.com,2024-03-07\n"));
    }
    let bad = write(dir.path(), "employees.csv", &text);
    let missing = dir.path().join("missing.csv");
    let code = in_bash(
        r#""$0" check --output-format concise "$1" "$2" 2>/dev/null | head -1 >/dev/null; exit "${PIPESTATUS[0]}""#,
        &[bad.as_path(), missing.as_path()],
    );
    assert_eq!(code, Some(2));
}

/// Runs a bash `script` with the binary as `$0` and `args` as `$1`...,
/// for what only a shell sets up (resource limits, pipes): its exit code.
#[cfg(unix)]
fn in_bash(script: &str, args: &[&Path]) -> Option<i32> {
    std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg(assert_cmd::cargo::cargo_bin("bdxlint"))
        .args(args)
        .status()
        .expect("bash runs")
        .code()
}

/// Applies rdjsonl suggestions (1-based lines, byte columns, exclusive
/// ends) to `text`, as reviewdog would.
fn apply_suggestions(text: &str, lines: &str) -> String {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let offset = |p: &Value| {
        let line = p["line"].as_u64().expect("line") as usize;
        let col = p["column"].as_u64().expect("column") as usize;
        starts[line - 1] + col - 1
    };
    let mut edits: Vec<(usize, usize, String)> = lines
        .lines()
        .flat_map(|l| {
            let d: Value = serde_json::from_str(l).expect("a JSON line");
            d["suggestions"].as_array().cloned().unwrap_or_default()
        })
        .map(|s| {
            (
                offset(&s["range"]["start"]),
                offset(&s["range"]["end"]),
                s["text"].as_str().expect("text").to_owned(),
            )
        })
        .collect();
    edits.sort();
    let mut out = String::new();
    let mut at = 0;
    for (start, end, new) in edits {
        assert!(start >= at, "suggestions overlap");
        out.push_str(&text[at..start]);
        out.push_str(&new);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// Issue 32: rdjsonl findings carry their safe fixes as reviewdog
/// suggestions; applied as reviewdog applies them they make the file
/// `--fix` makes. Unsafe fixes (guesses) are not suggested.
#[test]
fn rdjsonl_suggests_safe_fixes_and_not_unsafe_ones() {
    let fixes = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fixes/employees");
    for (name, code) in [("invalid-date", 1), ("column-name-variant", 0)] {
        let broken = fixes.join(format!("{name}.csv"));
        let out = stdout_of(
            bdxlint()
                .args(["check", "--isolated", "--output-format", "rdjsonl"])
                .arg(&broken),
            code,
        );
        assert!(out.contains("\"suggestions\":[{\"range\""), "{out}");
        let text = std::fs::read_to_string(&broken).expect("read");
        let fixed = std::fs::read_to_string(fixes.join(format!("{name}.fixed.csv"))).expect("read");
        assert_eq!(apply_suggestions(&text, &out), fixed, "{name}");
    }
    let out = stdout_of(
        bdxlint()
            .args(["check", "--isolated", "--output-format", "rdjsonl"])
            .arg(fixes.join("column-name-typo.unsafe.csv")),
        1,
    );
    assert!(out.contains("\"H006\""), "{out}");
    assert!(!out.contains("suggestions"), "{out}");
}

/// Issue 32: `--format json` is the output's format asked of the files'
/// flag: one line that names the flag meant, exit 2.
#[test]
fn format_json_points_at_output_format_in_one_line() {
    for args in [
        &["check", "--format", "json", "x.csv"][..],
        &["check", "-f", "json", "x.csv"],
        &["check", "--format=json", "x.csv"],
    ] {
        bdxlint().args(args).assert().code(2).stdout("").stderr(
            "bdxlint: --format \"json\" names no CSV format: --format is the files' format (`bdxlint formats` lists them); for json output, use --output-format json\n",
        );
    }
    bdxlint()
        .args(["check", "--format", "json-lines", "x.csv"])
        .assert()
        .code(2)
        .stderr(predicate::str::ends_with("use --output-format jsonl\n"));
    bdxlint()
        .args(["rules", "--format", "json"])
        .assert()
        .code(2)
        .stderr("bdxlint: unexpected --format: the output's format is --output-format\n");
    // A name that is neither keeps clap's message, with the formats.
    bdxlint()
        .args(["check", "--format", "employes", "x.csv"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("possible values: employees"));
}

/// Issue 32: `--stdin-filename` names standard input in the findings,
/// tells its format as a file name does, and brings the config nearest
/// it (overrides, per-file ignores); with no PATH, standard input is read.
#[test]
fn stdin_filename_names_detects_and_configures_standard_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "sub/bdxlint.toml",
        "[per-file-ignores]\n\"legacy*.csv\" = [\"H005\"]\n[[overrides]]\npaths = [\"ids.csv\"]\nformat = \"rbac2\"\n",
    );
    let concise = |args: &[&str], stdin: &str, code: i32| {
        stdout_of(
            bdxlint()
                .current_dir(dir.path())
                .args(["check", "--output-format", "concise"])
                .args(args)
                .write_stdin(stdin),
            code,
        )
    };
    // The name in every finding, `-` or not.
    let out = concise(&["--stdin-filename", "uploads/employees.csv"], BAD, 1);
    assert!(
        out.starts_with("uploads/employees.csv:2:30: C004 [error]"),
        "{out}"
    );
    let out2 = concise(&["--stdin-filename", "uploads/employees.csv", "-"], BAD, 1);
    assert_eq!(out, out2);
    // The file name breaks the tie the header alone cannot.
    let links = "Parent Entity Source ID,Parent Entity Type,Entity Source ID,Entity Type,Source System\nr1,role,c1,connection,okta\n";
    concise(&["-"], links, 2);
    concise(&["--stdin-filename", "rbac_relations.csv"], links, 0);
    // The nearest config: an override's format, a per-file ignore.
    let out = concise(&["--stdin-filename", "sub/ids.csv"], "id,val\n1,2\n", 1);
    assert!(
        out.contains("sub/ids.csv:1:1: H001 [error] the header has no `Identity Username` column"),
        "{out}"
    );
    let variant = "full name,Work Email,Start Date\nAda,ada@example.com,03/07/2024\n";
    let out = concise(&["--stdin-filename", "sub/new.csv"], variant, 0);
    assert!(out.contains("H005"), "{out}");
    let out = concise(&["--stdin-filename", "sub/legacy-1.csv"], variant, 0);
    assert!(!out.contains("H005"), "{out}");
}

/// Issue 32: `--show-settings` prints the settings of the first path and
/// the config they come from; nothing is checked.
#[test]
fn show_settings_names_the_config_and_the_resolved_rules() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "bdxlint.toml",
        "ignore = [\"X005\"]\nfail-on = \"warning\"\n",
    );
    write(
        dir.path(),
        "sub/bdxlint.toml",
        "select = [\"C\", \"H\"]\n[severity]\nC015 = \"off\"\n[[overrides]]\npaths = [\"ids.csv\"]\nformat = \"rbac2\"\n",
    );
    write(dir.path(), "sub/ids.csv", BAD);
    write(dir.path(), "top.csv", BAD);
    let show = |args: &[&str], code: i32| {
        stdout_of(
            bdxlint()
                .current_dir(dir.path())
                .args(["check", "--show-settings"])
                .args(args),
            code,
        )
    };
    let out = show(&["sub/ids.csv"], 0);
    let config = dir.path().join("sub/bdxlint.toml");
    let want = format!(
        "Settings for: sub/ids.csv\n\
         Config file: {}\n\
         format: rbac2 (an [[overrides]] entry)\n\
         select: C, H\n\
         ignore: none\n\
         severity: C015=off\n\
         output-format: human\n\
         fail-on: warning\n\
         max-diagnostics: 100\n\
         force-exclude: false\n\
         exit-zero: false\n",
        config.display()
    );
    assert_eq!(out, want);
    let out = show(
        &["--ignore", "C004", "--output-format", "json", "top.csv"],
        0,
    );
    assert!(
        out.contains(&format!(
            "Config file: {}\n",
            dir.path().join("bdxlint.toml").display()
        )),
        "{out}"
    );
    assert!(out.contains("ignore: X005, C004\n"), "{out}");
    assert!(out.contains("format: detected from the header\n"), "{out}");
    assert!(out.contains("output-format: json\n"), "{out}");
    let out = show(&["--isolated", "top.csv"], 0);
    assert!(out.contains("Config file: none (--isolated)\n"), "{out}");
    assert!(out.contains("fail-on: error\n"), "{out}");
    // Standard input takes its name's.
    let out = show(&["--stdin-filename", "sub/ids.csv"], 0);
    assert!(
        out.contains("format: rbac2 (an [[overrides]] entry)"),
        "{out}"
    );
    // A walk that finds nothing has no settings to show.
    std::fs::create_dir(dir.path().join("empty")).expect("mkdir");
    bdxlint()
        .current_dir(dir.path())
        .args(["check", "--show-settings", "empty"])
        .assert()
        .code(2)
        .stdout("")
        .stderr("bdxlint: --show-settings: no file to show the settings of\n");
}

/// Issue 32: `--show-files` lists what a run would check, with the format
/// and why, and the CSV and ZIP files a walk passes over, with why.
#[test]
fn show_files_lists_formats_and_why_files_are_skipped() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "bdxlint.toml", "exclude = [\"old\"]\n");
    write(dir.path(), "uploads/employees.csv", CLEAN);
    write(
        dir.path(),
        "uploads/more.csv",
        "Employee ID,Full Name,Work Email,Department\nE-1,Ada,ada@example.com,R\n",
    );
    write(dir.path(), "misc/ids.csv", "id,val\n1,2\n");
    write(dir.path(), "old/employees.csv", CLEAN);
    write(dir.path(), ".hidden/employees.csv", CLEAN);
    write(dir.path(), "node_modules/p/employees.csv", CLEAN);
    write(dir.path(), "notes.txt", "not a CSV\n");
    let out = stdout_of(
        bdxlint()
            .current_dir(dir.path())
            .args(["check", "--show-files"]),
        0,
    );
    assert_eq!(
        out,
        "./misc/ids.csv: skipped: unknown-format (F008, a warning): only 1 of its names is a column of rbac2, which requires Identity Username too, and its file name does not say rbac2\n\
         ./uploads/employees.csv: employees (the header has its required columns)\n\
         ./uploads/more.csv: employees (4 of the header's 4 names are its columns)\n\
         ./.hidden/employees.csv: skipped: hidden: --hidden walks it\n\
         ./node_modules/p/employees.csv: skipped: in a vendored directory (node_modules): --no-ignore walks it\n\
         ./old/employees.csv: skipped: excluded (`exclude`, `extend-exclude`, --exclude or --extend-exclude)\n"
    );
    // Named, a file is taken as the format it fits, and --format wins.
    let out = stdout_of(
        bdxlint().current_dir(dir.path()).args([
            "check",
            "--show-files",
            "misc/ids.csv",
            "--format",
            "employees",
            "uploads/employees.csv",
        ]),
        0,
    );
    assert_eq!(
        out,
        "misc/ids.csv: employees (--format)\nuploads/employees.csv: employees (--format)\n"
    );
    let out = stdout_of(
        bdxlint()
            .current_dir(dir.path())
            .args(["check", "--show-files", "misc/ids.csv"]),
        0,
    );
    assert_eq!(
        out,
        "misc/ids.csv: rbac2 (detected from its header; named, so taken whatever the evidence)\n"
    );
    // A file named and walked is listed once, where it first comes.
    let out = stdout_of(
        bdxlint().current_dir(dir.path()).args([
            "check",
            "--show-files",
            "uploads/more.csv",
            "./uploads",
        ]),
        0,
    );
    assert_eq!(
        out,
        "uploads/more.csv: employees (detected from its header; named, so taken whatever the evidence)\n\
         ./uploads/employees.csv: employees (the header has its required columns)\n"
    );
}

/// Issue 32: completion scripts for the four shells and the man pages,
/// made from the flag definitions.
#[test]
fn completions_and_man_pages_come_from_the_flags() {
    for (shell, marker) in [
        ("bash", "_bdxlint()"),
        ("zsh", "#compdef bdxlint"),
        ("fish", "complete -c bdxlint"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = stdout_of(bdxlint().args(["completions", shell]), 0);
        assert!(out.contains(marker), "{shell}: {out}");
        assert!(out.contains("stdin-filename"), "{shell}");
        assert!(out.contains("show-files"), "{shell}");
    }
    bdxlint().args(["completions", "tcsh"]).assert().code(2);
    let page = stdout_of(bdxlint().arg("man"), 0);
    assert!(page.starts_with(".ie \\n(.g .ds Aq \\(aq"), "{page}");
    assert!(page.contains(".TH bdxlint 1"), "{page}");
    assert!(page.contains("completions"), "{page}");
    let check = stdout_of(bdxlint().args(["man", "check"]), 0);
    assert!(check.contains(".TH bdxlint-check 1"), "{check}");
    assert!(check.contains("stdin\\-filename"), "{check}");
    assert!(check.contains("bdxlint check"), "{check}");
    bdxlint()
        .args(["man", "nope"])
        .assert()
        .code(2)
        .stderr("bdxlint: no subcommand \"nope\"; `bdxlint --help` lists them\n");
}
