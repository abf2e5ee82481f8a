//! `bdxlint check --fix` and its companions (`--unsafe-fixes`, `--diff`,
//! `--fix-only`, `--show-fixes`, standard input).
//!
//! `testdata/fixes/<format>/<rule-name>[.<case>].csv` is a damaged file and
//! `….fixed.csv` what `--fix` must make of it (`--unsafe-fixes` when the
//! name says `unsafe`). Each pair is checked for the guarantees: the fixed
//! bytes, a second `--fix` changing nothing, no fixable finding left, and
//! the diff (snapshot-tested).

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn bdxlint() -> Command {
    let mut c = Command::cargo_bin("bdxlint").expect("binary builds");
    c.env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("BDXLINT_OUTPUT_FORMAT");
    c
}

fn fixes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fixes")
}

/// Every (format, damaged fixture, expected twin), sorted.
fn pairs() -> Vec<(String, PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(fixes_dir()).expect("testdata/fixes") {
        let dir = dir.expect("entry").path();
        let format = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("utf-8")
            .to_owned();
        for f in std::fs::read_dir(&dir).expect("format dir") {
            let f = f.expect("entry").path();
            let name = f.file_name().and_then(|n| n.to_str()).expect("utf-8");
            if name.ends_with(".fixed.csv") || !name.ends_with(".csv") {
                continue;
            }
            let twin = f.with_file_name(name.replace(".csv", ".fixed.csv"));
            assert!(twin.exists(), "{} has no .fixed.csv twin", f.display());
            out.push((format.clone(), f, twin));
        }
    }
    out.sort();
    out
}

fn json_findings(out: &[u8]) -> Vec<Value> {
    let doc: Value = serde_json::from_slice(out).expect("JSON");
    doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().cloned().unwrap_or_default())
        .collect()
}

#[test]
fn every_fixture_fixes_to_its_twin_once_and_for_all() {
    let pairs = pairs();
    assert!(pairs.len() >= 10, "{pairs:?}");
    for (format, before, after) in pairs {
        let name = before.file_name().and_then(|n| n.to_str()).expect("utf-8");
        let unsafe_ = name.contains("unsafe");
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join(name);
        std::fs::copy(&before, &file).expect("copy");
        let fix = |extra: &[&str]| {
            let mut c = bdxlint();
            c.current_dir(dir.path())
                .args(["check", "--fix", "--format", &format])
                .args(extra)
                .arg(name);
            if unsafe_ {
                c.arg("--unsafe-fixes");
            }
            c.assert().get_output().clone()
        };
        let out = fix(&["--output-format", "json"]);
        let fixed = std::fs::read(&file).expect("read");
        let want = std::fs::read(&after).expect("read");
        assert!(
            fixed == want,
            "{name}: fixed\n{}\nexpected\n{}",
            String::from_utf8_lossy(&fixed),
            String::from_utf8_lossy(&want)
        );
        // The report is the fixed file's: what a check of it finds.
        let checked = bdxlint()
            .current_dir(dir.path())
            .args([
                "check",
                "--output-format",
                "json",
                "--format",
                &format,
                name,
            ])
            .output()
            .expect("runs");
        assert_eq!(
            json_findings(&out.stdout),
            json_findings(&checked.stdout),
            "{name}: the report of --fix is not the check of the fixed file"
        );
        // After --fix no finding is left that this fixing would fix.
        for d in json_findings(&out.stdout) {
            let fixable = match d["fix"]["applicability"].as_str() {
                Some("safe") => true,
                Some("unsafe") => unsafe_,
                _ => false,
            };
            assert!(!fixable, "{name}: left fixable: {d}");
        }
        // A second --fix changes nothing and says it fixed nothing.
        let again = fix(&["--color", "never"]);
        assert_eq!(std::fs::read(&file).expect("read"), want, "{name}");
        let summary = String::from_utf8_lossy(&again.stdout);
        assert!(
            summary.lines().any(|l| l.starts_with("fixed 0 (")),
            "{name}: {summary}"
        );
        // The diff of the damaged file, as a reviewer reads it.
        std::fs::copy(&before, &file).expect("copy");
        let mut c = bdxlint();
        c.current_dir(dir.path())
            .args(["check", "--diff", "--format", &format, name]);
        if unsafe_ {
            c.arg("--unsafe-fixes");
        }
        let diff = c.assert().code(1).get_output().stdout.clone();
        assert_eq!(
            std::fs::read(&before).expect("read"),
            std::fs::read(&file).expect("read")
        );
        // The diff is a patch: applied to the damaged file, it makes the
        // twin (where `patch` is installed).
        if let Ok(mut p) = std::process::Command::new("patch")
            .arg("--quiet")
            .arg("--binary")
            .arg(&file)
            .stdin(std::process::Stdio::piped())
            .spawn()
        {
            use std::io::Write as _;
            p.stdin
                .take()
                .expect("stdin")
                .write_all(&diff)
                .expect("patch reads");
            assert!(
                p.wait().expect("patch runs").success(),
                "{name}: patch failed"
            );
            let patched = std::fs::read(&file).expect("read");
            assert!(patched == want, "{name}: the patched file is not the twin");
            std::fs::copy(&before, &file).expect("copy");
        }
        insta::assert_snapshot!(
            format!("{format}__{}", name.trim_end_matches(".csv")),
            // insta keeps no CR: shown, a line-ending fix stays visible.
            String::from_utf8_lossy(&diff).replace('\r', "␍")
        );
    }
}

#[test]
fn every_rule_with_a_fix_has_a_fixture_pair() {
    let stems: Vec<String> = pairs()
        .iter()
        .map(|(_, f, _)| {
            let name = f.file_name().and_then(|n| n.to_str()).expect("utf-8");
            name.split('.').next().expect("stem").to_owned()
        })
        .collect();
    for r in bdxlint::rules::ALL.iter().filter(|r| r.fix.is_some()) {
        assert!(
            stems.iter().any(|s| s == r.name),
            "{} ({}) has a fix but no testdata/fixes fixture",
            r.code,
            r.name
        );
    }
}

const DAMAGED: &str =
    "Full Name,Work Email,Start Date\nAda,ada@example.com,2024-03-07\nBob,bob@example,01/02/2024\n";
const FIXED: &str =
    "Full Name,Work Email,Start Date\nAda,ada@example.com,03/07/2024\nBob,bob@example,01/02/2024\n";

#[test]
fn standard_input_is_fixed_to_standard_output_and_reported_on_standard_error() {
    let out = bdxlint()
        .args(["check", "--fix", "--color", "never", "-"])
        .write_stdin(DAMAGED)
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(String::from_utf8_lossy(&out.stdout), FIXED);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error(C003) invalid-email"), "{err}");
    assert!(err.contains("fixed 1 (1 remaining)"), "{err}");
    // Nothing to fix: the input comes out as it went in.
    bdxlint()
        .args(["check", "--fix", "-q", "-"])
        .write_stdin(FIXED)
        .assert()
        .stdout(FIXED);
}

#[test]
fn diff_writes_nothing_and_exits_by_whether_anything_would_change() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("employees.csv");
    std::fs::write(&f, DAMAGED).expect("write");
    let out = bdxlint()
        .current_dir(dir.path())
        .args(["check", "--diff", "employees.csv"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "--- employees.csv\n+++ employees.csv\n@@ -1,3 +1,3 @@\n Full Name,Work Email,Start Date\n-Ada,ada@example.com,2024-03-07\n+Ada,ada@example.com,03/07/2024\n Bob,bob@example,01/02/2024\n"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("would fix 1 (1 remaining)"));
    assert_eq!(std::fs::read_to_string(&f).expect("read"), DAMAGED);
    // Nothing would change: exit 0, though a finding remains.
    std::fs::write(&f, FIXED).expect("write");
    bdxlint()
        .current_dir(dir.path())
        .args(["check", "--diff", "employees.csv"])
        .assert()
        .code(0)
        .stdout("");
}

#[test]
fn fix_only_lists_no_findings_and_fails_only_on_what_remains() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("employees.csv");
    std::fs::write(&f, DAMAGED).expect("write");
    bdxlint()
        .current_dir(dir.path())
        .args(["check", "--fix-only", "employees.csv"])
        .assert()
        .code(1)
        .stdout("fixed 1 (1 remaining); 1 error, 0 warnings, 0 infos in 1 file\n");
    assert_eq!(std::fs::read_to_string(&f).expect("read"), FIXED);
    let clean = DAMAGED.replace("bob@example,", "bob@example.com,");
    std::fs::write(&f, clean).expect("write");
    bdxlint()
        .current_dir(dir.path())
        .args(["check", "--fix-only", "--show-fixes", "employees.csv"])
        .assert()
        .code(0)
        .stdout(
            "fixed 1 (0 remaining); 0 errors, 0 warnings, 0 infos in 1 file\n\
             Fixed 1 finding:\n- employees.csv:\n    1 × C004 (invalid-date)\n",
        );
}

#[test]
fn unsafe_fixes_wait_for_their_flag_and_are_counted_apart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("employees.csv");
    let text =
        "Full Name,Work Email,Start Date,Platform Roles\nAda,ada@example.com,2024-03-07,reviewr\n";
    std::fs::write(&f, text).expect("write");
    let out = bdxlint()
        .current_dir(dir.path())
        .args(["check", "--output-format", "concise", "employees.csv"])
        .assert()
        .get_output()
        .clone();
    let out = String::from_utf8_lossy(&out.stdout).into_owned();
    let summary = bdxlint()
        .current_dir(dir.path())
        .args(["check", "-q", "employees.csv"])
        .assert()
        .get_output()
        .stdout
        .clone();
    let summary = String::from_utf8_lossy(&summary).into_owned();
    // The safe fix is marked, the unsafe one is not.
    assert!(out.contains("C004 [error] [*] `2024-03-07`"), "{out}");
    assert!(out.contains("C008 [warning] `reviewr`"), "{out}");
    assert!(
        summary.ends_with("; 1 fixable with --fix (1 more with --fix --unsafe-fixes)\n"),
        "{summary}"
    );
    bdxlint()
        .current_dir(dir.path())
        .args(["check", "--fix", "-q", "employees.csv"])
        .assert()
        .stdout("fixed 1 (1 remaining; 1 more fixable with --unsafe-fixes); 0 errors, 1 warning, 0 infos in 1 file\n");
    bdxlint()
        .current_dir(dir.path())
        .args(["check", "--fix", "--unsafe-fixes", "-q", "employees.csv"])
        .assert()
        .code(0)
        .stdout("fixed 1 (0 remaining); 0 errors, 0 warnings, 0 infos in 1 file\n");
    assert_eq!(
        std::fs::read_to_string(&f).expect("read"),
        text.replace("2024-03-07", "03/07/2024")
            .replace("reviewr", "reviewer")
    );
}

#[cfg(unix)]
#[test]
fn permissions_are_kept_and_a_link_keeps_pointing_at_the_fixed_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("employees.csv");
    std::fs::write(&f, DAMAGED).expect("write");
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink("employees.csv", &link).expect("symlink");
    bdxlint()
        .current_dir(dir.path())
        .args(["check", "--fix", "-q", "--format", "employees", "link.csv"])
        .assert()
        .code(1);
    assert!(std::fs::symlink_metadata(&link)
        .expect("stat")
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&f).expect("read"), FIXED);
    let mode = std::fs::metadata(&f).expect("stat").permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
    // No temporary file is left beside it.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[cfg(unix)]
#[test]
fn a_fix_that_cannot_be_written_leaves_the_original_intact() {
    use std::os::unix::fs::PermissionsExt;
    // Running as root, a read-only directory is writable all the same: then
    // only the size limit below is tried.
    let root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0"));
    let dir = tempfile::tempdir().expect("tempdir");
    let sub = dir.path().join("ro");
    std::fs::create_dir(&sub).expect("mkdir");
    let f = sub.join("employees.csv");
    std::fs::write(&f, DAMAGED).expect("write");
    if !root {
        std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o555)).expect("chmod");
        bdxlint()
            .args(["check", "--fix", "-q"])
            .arg(&f)
            .assert()
            .code(2)
            .stderr(predicates::str::contains("employees.csv"));
        assert_eq!(std::fs::read_to_string(&f).expect("read"), DAMAGED);
        std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    // A write that fails part way (a file-size limit of 4 KiB, the file is
    // bigger): the process stops, the original is whole.
    let big: String = std::iter::once("Full Name,Work Email,Start Date\n".to_owned())
        .chain((0..400).map(|i| format!("P{i},p{i}@example.com,2024-03-07\n")))
        .collect();
    std::fs::write(&f, &big).expect("write");
    let bin = assert_cmd::cargo::cargo_bin("bdxlint");
    let status = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -f 4; exec '{}' check --fix -q '{}'",
            bin.display(),
            f.display()
        ))
        .status()
        .expect("bash runs");
    assert!(!status.success(), "{status:?}");
    assert_eq!(std::fs::read_to_string(&f).expect("read"), big);
}

#[test]
fn json_edits_applied_by_another_tool_give_what_fix_writes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = fixes_dir().join("employees/several-per-row.csv");
    let f = dir.path().join("e.csv");
    std::fs::copy(&src, &f).expect("copy");
    let out = bdxlint()
        .args(["check", "--format", "employees", "--output-format", "json"])
        .arg(&f)
        .assert()
        .get_output()
        .clone();
    let mut edits: Vec<(usize, usize, String)> = json_findings(&out.stdout)
        .iter()
        .filter(|d| d["fix"]["applicability"] == "safe")
        .flat_map(|d| d["fix"]["edits"].as_array().cloned().unwrap_or_default())
        .map(|e| {
            (
                e["span"]["start"].as_u64().expect("start") as usize,
                e["span"]["end"].as_u64().expect("end") as usize,
                e["content"].as_str().expect("content").to_owned(),
            )
        })
        .collect();
    assert!(edits.len() >= 3, "{edits:?}");
    edits.sort();
    let bytes = std::fs::read(&src).expect("read");
    let mut applied = Vec::new();
    let mut at = 0;
    for (s, e, c) in edits {
        applied.extend_from_slice(&bytes[at..s]);
        applied.extend_from_slice(c.as_bytes());
        at = e;
    }
    applied.extend_from_slice(&bytes[at..]);
    let want =
        std::fs::read(fixes_dir().join("employees/several-per-row.fixed.csv")).expect("read");
    assert_eq!(
        String::from_utf8_lossy(&applied),
        String::from_utf8_lossy(&want)
    );
}

#[test]
fn bundles_are_reported_not_rewritten() {
    let dir = tempfile::tempdir().expect("tempdir");
    let zip_path = dir.path().join("entity-rbac.zip");
    {
        let file = std::fs::File::create(&zip_path).expect("create");
        let mut z = zip::ZipWriter::new(file);
        let opts: zip::write::SimpleFileOptions = Default::default();
        z.start_file("entities.csv", opts).expect("member");
        std::io::Write::write_all(
            &mut z,
            b"app,Name,Entity Type,Source System,Source ID,Source Type\nokta,admins,role,okta,r-1,group\n",
        )
        .expect("write");
        z.start_file("relations.csv", opts).expect("member");
        std::io::Write::write_all(
            &mut z,
            b"Parent Entity Source ID,Parent Entity Type,Entity Source ID,Entity Type\nr-1,role,ada@example.com,employee\n",
        )
        .expect("write");
        z.finish().expect("finish");
    }
    let before = std::fs::read(&zip_path).expect("read");
    let out = bdxlint()
        .args(["check", "--fix", "--color", "never"])
        .arg(&zip_path)
        .assert()
        .get_output()
        .clone();
    assert_eq!(std::fs::read(&zip_path).expect("read"), before);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("warning(H005) column-name-variant\n"),
        "{text}"
    );
    assert!(!text.contains("[*]"), "{text}");
    assert!(
        text.contains("; 1 fix in ZIP bundles not applied"),
        "{text}"
    );
}

#[test]
fn split_sends_rows_with_errors_to_bad_and_the_rest_to_good() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    // CRLF, a quoted cell across lines, a cross-row conflict (the later
    // row is the one in error) and a row-once finding on two rows: the
    // column Connection Type is missing and two rows have a Connection.
    let text = "Project,Privilege Name,Privilege Value,Email,User ID,Username,Connection\r\n\
                p,admin,true,ada@example.com,583231,ada,\r\n\
                p,read,\"tr\nue\",grace@example.com,583240,ghopper,\r\n\
                p,read,true,ada@example.com,583231,alovelace,\r\n\
                p,write,true,bob@example.com,583250,bob,db-admins\r\n\
                p,write,true,eve@example.com,583260,eve,db-admins\r\n\
                p,read,true,kim@example.com,583270,kim,\r\n";
    std::fs::write(d.join("ent.csv"), text).expect("write");
    let out = bdxlint()
        .current_dir(d)
        .args(["check", "-q", "--split", "good.csv", "bad.csv", "ent.csv"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("split ent.csv: 2 rows without errors to good.csv, 4 to bad.csv"),
        "{err}"
    );
    let lines: Vec<&str> = text.split_inclusive("\r\n").collect();
    let good = std::fs::read_to_string(d.join("good.csv")).expect("good");
    let bad = std::fs::read_to_string(d.join("bad.csv")).expect("bad");
    assert_eq!(good, [lines[0], lines[1], lines[6]].concat());
    assert_eq!(
        bad,
        [lines[0], lines[2], lines[3], lines[4], lines[5]].concat()
    );
    // Both halves check as their rows did: GOOD has no error at all.
    bdxlint()
        .current_dir(d)
        .args(["check", "-q", "--format", "entitlements", "good.csv"])
        .assert()
        .code(0);
}

#[test]
fn split_refuses_a_header_in_error_and_what_it_cannot_split() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::write(d.join("e.csv"), "Full Name,Start Date\nAda,03/07/2024\n").expect("write");
    bdxlint()
        .current_dir(d)
        .args([
            "check",
            "-q",
            "--split",
            "g.csv",
            "b.csv",
            "--format",
            "employees",
            "e.csv",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("the header has errors"));
    assert!(!d.join("g.csv").exists() && !d.join("b.csv").exists());
    std::fs::write(d.join("f.csv"), "Full Name,Start Date\nAda,03/07/2024\n").expect("write");
    for args in [
        &["--diff", "e.csv"][..],
        &["e.csv", "f.csv"][..],
        &["-"][..],
    ] {
        bdxlint()
            .current_dir(d)
            .args(["check", "--split", "g.csv", "b.csv"])
            .args(args)
            .assert()
            .code(2)
            .stderr(predicates::str::contains("--split:"));
    }
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Issue 28: a split writes both files or neither. A BAD that cannot be
/// written is found before the input is read (no report, nothing
/// written), and GOOD, here an earlier split's file, stays as it was;
/// before, GOOD was renamed into place first, and a BAD that then could
/// not be was half a split.
#[test]
fn split_writes_nothing_unless_both_targets_can_be_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::write(
        d.join("e.csv"),
        "Employee ID,Full Name,Work Email,Start Date\n\
         E-1,Ada,ada@example.com,03/07/2024\n\
         E-2,Bob,bob@example.com,13/45/2024\n",
    )
    .expect("write");
    std::fs::write(d.join("good.csv"), "an earlier split's good rows\n").expect("write");
    std::fs::create_dir(d.join("ro")).expect("mkdir");
    std::fs::create_dir(d.join("a-dir.csv")).expect("mkdir");
    std::fs::write(d.join("a-file"), "").expect("write");
    let mut targets = vec!["a-dir.csv", "a-file/bad.csv"];
    // A read-only directory, where it is one: root writes in it anyway.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let ro = d.join("ro");
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).expect("chmod");
        if std::fs::write(ro.join("probe"), "").is_err() {
            targets.push("ro/bad.csv");
        } else {
            std::fs::remove_file(ro.join("probe")).expect("rm");
        }
    }
    let before = names_in(d);
    for bad in targets {
        let out = bdxlint()
            .current_dir(d)
            .args([
                "check",
                "--format",
                "employees",
                "--split",
                "good.csv",
                bad,
                "e.csv",
            ])
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            std::fs::read_to_string(d.join("good.csv")).expect("good"),
            "an earlier split's good rows\n",
            "{bad}: {err}"
        );
        assert_eq!(names_in(d), before, "{bad}");
        assert!(names_in(&d.join("ro")).is_empty());
        assert!(
            err.contains("bdxlint: --split") && err.contains(bad),
            "{bad}: {err}"
        );
        // Refused before the check: no report.
        assert!(
            out.stdout.is_empty(),
            "{bad}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d.join("ro"), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
    }
}

/// A Windows-1252 export of 40 rows, a few with errors (one of which
/// `--fix` repairs): the encoding is the file's, not a row's. `--split`
/// alone sends no row to BAD for it, and says both halves keep it and what
/// removes it; `--split` with `--fix --unsafe-fixes` splits a fixed copy:
/// GOOD passes `check`, BAD holds exactly the rows still in error, and the
/// input is left byte for byte as it was.
#[test]
fn split_of_a_windows_1252_export_says_what_good_keeps_and_with_fix_keeps_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let row = |i: usize| -> Vec<u8> {
        let date: &[u8] = match i {
            5 | 17 | 30 => b"13/45/2024",
            10 => b"2024-03-07",
            _ => b"03/07/2024",
        };
        let email = if i == 22 {
            "not-an-email".to_owned()
        } else {
            format!("jose{i}@example.com")
        };
        let name: Vec<u8> = if i.is_multiple_of(3) {
            format!("Ada Lovelace {i}").into_bytes()
        } else {
            // José Núñez, in Windows-1252.
            [&b"Jos\xe9 N\xfa\xf1ez "[..], i.to_string().as_bytes()].concat()
        };
        [
            format!("E-{},", 1000 + i).as_bytes(),
            &name,
            format!(",{email},").as_bytes(),
            date,
            b"\r\n",
        ]
        .concat()
    };
    let header = b"Employee ID,Full Name,Work Email,Start Date\r\n".to_vec();
    let rows: Vec<Vec<u8>> = (0..40).map(row).collect();
    let input = [header.clone(), rows.concat()].concat();
    std::fs::write(d.join("export.csv"), &input).expect("write");
    let of = |picked: &[usize]| -> Vec<u8> {
        let mut v = header.clone();
        for &i in picked {
            v.extend_from_slice(&rows[i]);
        }
        v
    };
    let in_error = [5, 10, 17, 22, 30];

    let out = bdxlint()
        .current_dir(d)
        .args(["check", "-q", "--format", "employees"])
        .args(["--split", "good.csv", "bad.csv", "export.csv"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("split export.csv: 35 rows without errors to good.csv, 5 to bad.csv"),
        "{err}"
    );
    assert!(
        err.contains("good.csv and bad.csv keep what was found of the whole file, not of a row (a check of good.csv reports it again where its rows still show it): F012 not-utf8 (error; --split with --fix --unsafe-fixes removes it)"),
        "{err}"
    );
    let good: Vec<usize> = (0..40).filter(|i| !in_error.contains(i)).collect();
    assert_eq!(std::fs::read(d.join("good.csv")).expect("good"), of(&good));
    assert_eq!(
        std::fs::read(d.join("bad.csv")).expect("bad"),
        of(&in_error)
    );

    let out = bdxlint()
        .current_dir(d)
        .args([
            "check",
            "-q",
            "--format",
            "employees",
            "--fix",
            "--unsafe-fixes",
        ])
        .args(["--split", "good.csv", "bad.csv", "export.csv"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("split export.csv as fixed (the file itself left as it was): 36 rows without errors to good.csv, 4 to bad.csv"),
        "{err}"
    );
    assert!(!err.contains("whole file"), "{err}");
    assert_eq!(std::fs::read(d.join("export.csv")).expect("input"), input);
    let utf8 = |b: Vec<u8>| -> String { b.iter().map(|&c| char::from(c)).collect::<String>() };
    let fixed = |i: usize| utf8(rows[i].clone()).replace("2024-03-07", "03/07/2024");
    let text = |picked: &[usize]| -> String {
        let mut s = utf8(header.clone());
        for &i in picked {
            s.push_str(&fixed(i));
        }
        s
    };
    let good: Vec<usize> = (0..40).filter(|i| ![5, 17, 22, 30].contains(i)).collect();
    let good_text = std::fs::read_to_string(d.join("good.csv")).expect("good is UTF-8");
    assert_eq!(good_text, text(&good));
    assert!(good_text.contains("José Núñez 1,"));
    assert_eq!(
        std::fs::read_to_string(d.join("bad.csv")).expect("bad is UTF-8"),
        text(&[5, 17, 22, 30])
    );
    bdxlint()
        .current_dir(d)
        .args(["check", "-q", "--format", "employees", "good.csv"])
        .assert()
        .code(0);
    assert_eq!(names_in(d), ["bad.csv", "export.csv", "good.csv"]);
}

/// A file in another delimiter splits in it (its rows are no worse for
/// it), and `--fix --split` splits it rewritten with commas.
#[test]
fn split_of_a_semicolon_file_keeps_its_delimiter_unless_fixed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let text = "Employee ID;Full Name;Work Email;Start Date\n\
                E-1;Ada;ada@example.com;03/07/2024\n\
                E-2;Bob;bob@example.com;13/45/2024\n";
    std::fs::write(d.join("semi.csv"), text).expect("write");
    let split = |fix: &[&str]| {
        let out = bdxlint()
            .current_dir(d)
            .args(["check", "-q", "--format", "employees"])
            .args(fix)
            .args(["--split", "good.csv", "bad.csv", "semi.csv"])
            .assert()
            .code(1)
            .get_output()
            .clone();
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = split(&[]);
    assert!(
        err.contains("F010 delimiter (error; --split with --fix removes it)"),
        "{err}"
    );
    let read = |p: &str| std::fs::read_to_string(d.join(p)).expect("read");
    assert_eq!(
        read("good.csv"),
        "Employee ID;Full Name;Work Email;Start Date\nE-1;Ada;ada@example.com;03/07/2024\n"
    );
    assert_eq!(
        read("bad.csv"),
        "Employee ID;Full Name;Work Email;Start Date\nE-2;Bob;bob@example.com;13/45/2024\n"
    );
    let err = split(&["--fix"]);
    assert!(!err.contains("whole file"), "{err}");
    assert_eq!(
        read("good.csv"),
        "Employee ID,Full Name,Work Email,Start Date\nE-1,Ada,ada@example.com,03/07/2024\n"
    );
    assert_eq!(
        read("bad.csv"),
        "Employee ID,Full Name,Work Email,Start Date\nE-2,Bob,bob@example.com,13/45/2024\n"
    );
    assert_eq!(read("semi.csv"), text);
}

/// Rows fixed inside the check move every later offset, across chunks and
/// threads: the report of `--fix` on a file of many chunks, with fixes that
/// lengthen and shorten rows and cross-row findings between rows in
/// different chunks, is what a check of the fixed file says, in JSON and
/// as a person reads it (snippets included), at one thread and two.
#[test]
fn the_report_of_a_fix_over_many_chunks_is_the_check_of_the_fixed_file() {
    let mut s = String::from("Full Name,Work Email,Title,Start Date,End Date,Platform Roles\n");
    for i in 0..12_000 {
        let date = match i % 5 {
            0 => "3/7/2024",     // lengthened
            1 => " 12/31/2023 ", // shortened
            2 => "2024-03-07",   // same length
            // Not fixable: no date either way (`31/12/2024` would make the
            // column day-first and written both ways, its dates findings
            // without fixes, and a check of it at two threads would keep
            // too many findings ahead to be made again: see `check::dates`).
            3 => "31/13/2024",
            _ => "03/07/2024",
        };
        let roles = if i % 11 == 0 { "Reviewer" } else { "reviewer" };
        // Every e-mail comes back 5,000 rows later: a cross-row finding in
        // a later chunk about a row in an earlier one.
        s.push_str(&format!(
            "P{i},user{}@example.com,Engineer,{date},,{roles}\n",
            i % 5_000
        ));
    }
    for threads in ["1", "2"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("e.csv");
        std::fs::write(&file, &s).expect("write");
        let run = |args: &[&str]| {
            bdxlint()
                .current_dir(dir.path())
                .args(["check", "--format", "employees", "--threads", threads])
                .args(["--max-diagnostics", "0", "--color", "never"])
                .args(args)
                .arg("e.csv")
                .output()
                .expect("runs")
        };
        let fixed_json = run(&["--fix", "--output-format", "json"]);
        let checked_json = run(&["--output-format", "json"]);
        let reported = json_findings(&fixed_json.stdout);
        assert!(reported.len() > 7_000, "{}", reported.len());
        assert_eq!(
            reported,
            json_findings(&checked_json.stdout),
            "{threads} threads"
        );

        std::fs::write(&file, &s).expect("write");
        let human = |out: std::process::Output| {
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            // All but the summary, which says what was fixed.
            text.lines()
                .filter(|l| !l.contains(" errors, "))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let fixed_human = human(run(&["--fix"]));
        assert_eq!(fixed_human, human(run(&[])), "{threads} threads");
    }
}

/// Issue 34: the head's fixes (a BOM, a `sep=,` line, header names
/// written otherwise) are made in the pass that fixes the rows, which then
/// reads the rest of the file as the fixed file: the `sep=` line gone moves
/// every line up by one and the renames and the BOM move every offset, so
/// the report of `--fix` on a file of many chunks, with cross-row findings
/// between chunks, is what a check of the fixed file says, at one thread
/// and two, in JSON and as a person reads it; and nothing is left to fix.
#[test]
fn the_report_of_a_header_and_rows_fixed_in_one_pass_is_the_check_of_the_fixed_file() {
    let heads = [
        // Longer names: every later offset moves forward.
        "full name,Work Email*,title,START DATE,End Date,platform roles\n",
        // A BOM and a `sep=,` line go: offsets move back, lines up.
        "\u{feff}sep=,\nfull name,Work Email,Title,Start Date,End Date,Platform Roles\n",
    ];
    for head in heads {
        let mut s = String::from(head);
        for i in 0..6_000 {
            let date = match i % 4 {
                0 => "3/7/2024",
                1 => " 12/31/2023 ",
                2 => "31/13/2024",
                _ => "03/07/2024",
            };
            s.push_str(&format!(
                "P{i},user{}@example.com,Engineer,{date},,reviewer\n",
                i % 2_500
            ));
        }
        for threads in ["1", "2"] {
            let dir = tempfile::tempdir().expect("tempdir");
            let file = dir.path().join("e.csv");
            let run = |args: &[&str]| {
                bdxlint()
                    .current_dir(dir.path())
                    .args(["check", "--format", "employees", "--threads", threads])
                    .args(["--max-diagnostics", "0", "--color", "never"])
                    .args(args)
                    .arg("e.csv")
                    .output()
                    .expect("runs")
            };
            std::fs::write(&file, &s).expect("write");
            let fixed_json = run(&["--fix", "--output-format", "json"]);
            let fixed = std::fs::read_to_string(&file).expect("read");
            assert!(
                fixed.starts_with(
                    "Full Name,Work Email,Title,Start Date,End Date,Platform Roles\nP0,user0@example.com,Engineer,03/07/2024,,reviewer\nP1,user1@example.com,Engineer,12/31/2023,,reviewer\n"
                ),
                "{}",
                &fixed[..200]
            );
            let reported = json_findings(&fixed_json.stdout);
            assert!(reported.len() > 3_000, "{}", reported.len());
            assert!(
                reported.iter().all(|d| d["fix"].is_null()),
                "a fix was left: {head:?}, {threads} threads"
            );
            let checked = json_findings(&run(&["--output-format", "json"]).stdout);
            assert_eq!(reported, checked, "{head:?}, {threads} threads");

            std::fs::write(&file, &s).expect("write");
            let human = |out: std::process::Output| {
                let text = String::from_utf8_lossy(&out.stdout).into_owned();
                text.lines()
                    .filter(|l| !l.contains(" errors, "))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            let fixed_human = human(run(&["--fix"]));
            assert_eq!(fixed_human, human(run(&[])), "{head:?}, {threads} threads");
        }
    }
}

/// A fix that removes the bytes the file's encoding was told from (the
/// first bytes above ASCII are no-break spaces around an e-mail, the next
/// are Latin-1) makes the fixed file read otherwise: the report is the
/// fixed file's (`not-utf8`), not the original's (`invalid-utf8`).
#[test]
fn a_fix_that_changes_how_the_file_is_read_reports_the_file_as_it_is_read_after() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("e.csv");
    let original: &[u8] = b"Full Name,Work Email,Title,Start Date,End Date,Platform Roles\n\
        P1,\xc2\xa0a@example.com\xc2\xa0,Eng,03/07/2024,,reviewer\n\
        P2,b@example.com,Caf\xe9 \xad\xad,03/07/2024,,reviewer\n";
    std::fs::write(&file, original).expect("write");
    let run = |extra: &[&str]| {
        let out = bdxlint()
            .current_dir(dir.path())
            .args(["check", "--format", "employees", "--output-format", "json"])
            .args(extra)
            .arg("e.csv")
            .output()
            .expect("runs");
        json_findings(&out.stdout)
    };
    let before: Vec<Value> = run(&[]);
    assert!(before.iter().any(|d| d["code"] == "F003"), "{before:?}");
    let fixed = run(&["--fix"]);
    assert!(fixed.iter().any(|d| d["code"] == "F012"), "{fixed:?}");
    assert_eq!(fixed, run(&[]));
}

/// Runs `check` on `name` in `dir` with `args`, JSON findings.
fn findings_of(dir: &Path, name: &str, args: &[&str]) -> Vec<Value> {
    let out = bdxlint()
        .current_dir(dir)
        .args(["check", "--output-format", "json", "--format", "employees"])
        .args(args)
        .arg(name)
        .output()
        .expect("runs");
    json_findings(&out.stdout)
}

/// The encoding of a file is decided by its first line holding a byte
/// above ASCII. A row fix that removes the only such bytes of an earlier
/// line (a no-break space around an e-mail) makes a later Latin-1 line
/// decide: the fixed file is read as Windows-1252 (`not-utf8`), while the
/// check that fixed the rows read the original as UTF-8 (`invalid-utf8`).
#[test]
fn a_row_fix_that_removes_the_first_non_ascii_bytes_is_reported_as_the_fixed_file_reads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let original: &[u8] = b"Full Name,Work Email\nAda,\xc2\xa0a@x.com\nJos\xe9,b@x.com\n";
    std::fs::write(dir.path().join("e.csv"), original).expect("write");
    let reported = findings_of(dir.path(), "e.csv", &["--fix"]);
    assert_ne!(
        std::fs::read(dir.path().join("e.csv")).expect("read"),
        original
    );
    assert_eq!(
        reported,
        findings_of(dir.path(), "e.csv", &[]),
        "the report of --fix is not the check of the fixed file"
    );

    // With --unsafe-fixes the re-encoding the fixed file asks for is not
    // made: a second --fix changes the file again.
    std::fs::write(dir.path().join("e.csv"), original).expect("write");
    findings_of(dir.path(), "e.csv", &["--fix", "--unsafe-fixes"]);
    let once = std::fs::read(dir.path().join("e.csv")).expect("read");
    findings_of(dir.path(), "e.csv", &["--fix", "--unsafe-fixes"]);
    assert_eq!(
        once,
        std::fs::read(dir.path().join("e.csv")).expect("read"),
        "a second --fix --unsafe-fixes changed the file"
    );
}

/// The delimiter is told from the first 64 KiB (the records wholly in
/// them). Row fixes that shorten rows pull a ragged record into that head:
/// the fixed `;` file is then read with commas, while the check that fixed
/// its rows read the original with `;`. (`--ignore F010` keeps the
/// delimiter's own fix out, so the in-check pass is the report.)
#[test]
fn row_fixes_that_move_a_record_into_the_sniffed_head_are_reported_as_the_fixed_file_reads() {
    let header = "Full Name;Work Email;Title;Start Date;End Date;Platform Roles";
    let title = "x".repeat(1561);
    let mut s = format!("{header}\n");
    for i in 0..40 {
        // `12/31/2023 ` loses its trailing space: 1 byte shorter a row.
        s.push_str(&format!("P{i};u{i}@x.com;{title};12/31/2023 ;;reviewer\n"));
    }
    // A ragged record across byte 65,536 of the original, inside the first
    // 64 KiB of the fixed file.
    s.push_str(&format!("R;r@x.com;{title};12/31/2023;;reviewer;EXTRA\n"));
    assert!(s.len() > 65_536 && s.len() - 40 < 65_536, "{}", s.len());
    for j in 0..10 {
        s.push_str(&format!("Q{j};q{j}@x.com;T;12/31/2023;;reviewer\n"));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("e.csv"), &s).expect("write");
    let reported = findings_of(dir.path(), "e.csv", &["--fix", "--ignore", "F010"]);
    assert_ne!(
        std::fs::read(dir.path().join("e.csv")).expect("read"),
        s.as_bytes()
    );
    assert_eq!(
        reported,
        findings_of(dir.path(), "e.csv", &["--ignore", "F010"]),
        "the report of --fix is not the check of the fixed file"
    );
}

/// A relations file's references are read after its check; its report
/// after `--fix` is still what `check` says of the fixed file, in the same
/// order (a file checked ahead has them sorted among its own findings).
#[test]
fn a_fixed_relations_file_is_reported_as_check_reports_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("relations.csv");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/entity-relations/invalid-enum.csv"),
        &file,
    )
    .expect("copy");
    let run = |extra: &[&str]| {
        let out = bdxlint()
            .current_dir(dir.path())
            .args(["check", "--output-format", "json"])
            .args(extra)
            .arg("relations.csv")
            .output()
            .expect("runs");
        json_findings(&out.stdout)
    };
    let fixed = run(&["--fix"]);
    assert!(fixed.iter().any(|d| d["code"] == "B010"), "{fixed:?}");
    assert_eq!(fixed, run(&[]));
}

/// Runs `bdxlint check --fix` (and `extra`) on `name` in `dir` as
/// employees: JSON findings and the exit code.
fn fix_run(dir: &Path, name: &str, extra: &[&str]) -> (Vec<Value>, Option<i32>) {
    let out = bdxlint()
        .current_dir(dir)
        .args([
            "check",
            "--fix",
            "--output-format",
            "json",
            "--format",
            "employees",
        ])
        .args(extra)
        .arg(name)
        .output()
        .expect("runs");
    (json_findings(&out.stdout), out.status.code())
}

/// A whole-file rewrite is refused when a record reads two ways: the file
/// is left byte for byte, the findings that asked for the rewrite carry no
/// fix, and their help names the line and what to do; `--diff` has nothing
/// to show.
fn assert_refused(dir: &Path, name: &str, original: &[u8], codes: &[&str], why: &str) {
    std::fs::write(dir.join(name), original).expect("write");
    let (findings, code) = fix_run(dir, name, &[]);
    assert_eq!(code, Some(1), "{findings:#?}");
    assert!(
        std::fs::read(dir.join(name)).expect("read") == original,
        "{name} was rewritten:\n{}",
        String::from_utf8_lossy(&std::fs::read(dir.join(name)).expect("read"))
    );
    for c in codes {
        let asked: Vec<&Value> = findings.iter().filter(|d| d["code"] == *c).collect();
        assert!(!asked.is_empty(), "{name}: no {c} in {findings:#?}");
        for d in asked {
            assert!(d["fix"].is_null(), "{name}: {d}");
            let help = d["help"].as_str().expect("help");
            assert!(
                help.contains("--fix did not rewrite the file: ") && help.contains(why),
                "{name}: {help}"
            );
        }
    }
    // Nothing safe is left to fix: a second run and `--diff` agree.
    assert_eq!(fix_run(dir, name, &[]).0, findings);
    bdxlint()
        .current_dir(dir)
        .args(["check", "--diff", "--format", "employees", name])
        .assert()
        .code(0)
        .stdout("");
}

/// Issue 28: a tab- or `|`-separated export with an unescaped `"`
/// (`27" monitor`) got the safe comma rewrite anyway, which copied the
/// field the stray quote opened (tabs, line breaks and all) as one field:
/// rows came out half tab, half comma. The quote toggles the tokenizer's
/// quoted mode, so the record it is in reads otherwise to every other
/// reader: no rewrite while it stands.
#[test]
fn a_stray_quote_in_a_tab_or_bar_separated_file_refuses_the_comma_rewrite() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Tabs, told from the first rows (the quotes come after the sample).
    let mut tab = String::from("Full Name\tWork Email\tTitle\tStart Date\n");
    for i in 0..60 {
        tab.push_str(&format!("P{i}\tp{i}@example.com\tEngineer\t03/07/2024\n"));
    }
    tab.push_str("Ada\tada@example.com\t27\" monitor buyer\t03/07/2024\n");
    tab.push_str("Bob\tbob@example.com\tEngineer\t03/07/2024\n");
    tab.push_str("Cy\tcy@example.com\t32\" screen buyer\t03/07/2024\n");
    assert_refused(
        dir.path(),
        "tab.csv",
        tab.as_bytes(),
        &["F010"],
        "line 62 has a quote inside an unquoted field",
    );
    // `|`, named by Excel's `sep=` line: the `sep=` line's fix is the same
    // rewrite, refused the same.
    let bar = "sep=|\nFull Name|Work Email|Title|Start Date\n\
        Ada|ada@example.com|27\" monitor|03/07/2024\n\
        Bob|bob@example.com|Engineer|03/07/2024\n";
    assert_refused(
        dir.path(),
        "bar.csv",
        bar.as_bytes(),
        &["F010", "F011"],
        "line 3 has a quote inside an unquoted field",
    );
    // The same files with the quotes doubled and their fields quoted are
    // rewritten, every field kept.
    let bar = bar.replace("|27\" monitor|", "|\"27\"\" monitor\"|");
    std::fs::write(dir.path().join("bar.csv"), &bar).expect("write");
    fix_run(dir.path(), "bar.csv", &[]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("bar.csv")).expect("read"),
        "Full Name,Work Email,Title,Start Date\n\
         Ada,ada@example.com,\"27\"\" monitor\",03/07/2024\n\
         Bob,bob@example.com,Engineer,03/07/2024\n"
    );
}

/// Issue 28: removing trailing empty columns copied a row of another width
/// as it was, so a short row kept its shifted cells and a long one kept its
/// extra fields while the header lost its own: the rows no longer lined up
/// with the header. A ragged row refuses the rewrite.
#[test]
fn trailing_empty_columns_are_not_removed_while_a_row_is_ragged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ragged = "Full Name,Work Email,Title,,\n\
        Ada,ada@example.com,Engineer,,\n\
        Bob,bob@example.com\n\
        Cy,cy@example.com,Engineer,,\n";
    assert_refused(
        dir.path(),
        "short.csv",
        ragged.as_bytes(),
        &["H003"],
        "line 3 has 2 fields where the header has 5",
    );
    let long = "Full Name,Work Email,Title,,\n\
        Ada,ada@example.com,Engineer,,\n\
        Bob,bob@example.com,Engineer,,,\n";
    assert_refused(
        dir.path(),
        "long.csv",
        long.as_bytes(),
        &["H003"],
        "line 3 has 6 fields where the header has 5",
    );
    // Every row as wide as the header: the columns go.
    let even = "Full Name,Work Email,Title,,\n\
        Ada,ada@example.com,Engineer,,\n\
        Bob,bob@example.com,Engineer,,\n";
    std::fs::write(dir.path().join("even.csv"), even).expect("write");
    fix_run(dir.path(), "even.csv", &[]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("even.csv")).expect("read"),
        "Full Name,Work Email,Title\n\
         Ada,ada@example.com,Engineer\n\
         Bob,bob@example.com,Engineer\n"
    );
}

/// A line-ending rewrite is refused where a stray quote makes which line
/// breaks end records a guess, and so is the re-encoding, as every
/// whole-file rewrite is; other fixes of the file still apply.
#[test]
fn line_endings_and_encoding_are_not_rewritten_while_a_quote_is_stray_but_cells_are_fixed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mixed = "Full Name,Work Email,Title,Start Date\r\n\
        Ada,ada@example.com,Engineer,2024-03-07\r\n\
        Bob,bob@example.com,Engineer,03/07/2024\n\
        Cy,cy@example.com,\"27\"\" monitor\",03/07/2024\r\n\
        Dan,dan@example.com,27\" monitor,03/07/2024\r\n\
        Eve,eve@example.com,32\" screen,03/07/2024\r\n";
    std::fs::write(dir.path().join("mixed.csv"), mixed).expect("write");
    let (findings, _) = fix_run(dir.path(), "mixed.csv", &[]);
    let f005: Vec<&Value> = findings.iter().filter(|d| d["code"] == "F005").collect();
    assert_eq!(f005.len(), 1, "{findings:#?}");
    assert!(f005[0]["fix"].is_null());
    assert!(
        f005[0]["help"]
            .as_str()
            .is_some_and(|h| h.contains("line 5 has a quote inside an unquoted field")),
        "{f005:?}"
    );
    // The date in a row that reads one way was fixed; the line endings
    // were not touched.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("mixed.csv")).expect("read"),
        mixed.replace("2024-03-07", "03/07/2024")
    );
    let legacy: &[u8] = b"Full Name,Work Email,Title\n\
        Jos\xe9,jose@example.com,27\" monitor\n\
        Bob,bob@example.com,Engineer\n";
    assert_refused(dir.path(), "legacy.csv", legacy, &[], "");
    let (findings, _) = fix_run(dir.path(), "legacy.csv", &["--unsafe-fixes"]);
    assert_eq!(
        std::fs::read(dir.path().join("legacy.csv")).expect("read"),
        legacy
    );
    let f012: Vec<&Value> = findings.iter().filter(|d| d["code"] == "F012").collect();
    assert_eq!(f012.len(), 1, "{findings:#?}");
    assert!(f012[0]["fix"].is_null(), "{f012:?}");
    assert!(
        f012[0]["help"]
            .as_str()
            .is_some_and(|h| h.contains("line 2 has a quote inside an unquoted field")),
        "{f012:?}"
    );
}

/// A `sep=;` line names the delimiter, but every row is one field holding
/// tabs: written with commas, the file's first bytes would tell tabs, and
/// it would be read in fields it never had. The rewrite checks the dialect
/// its copy is told, and refuses.
#[test]
fn a_comma_rewrite_whose_copy_would_read_as_tabs_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert_refused(
        dir.path(),
        "sep.csv",
        b"sep=;\nFull Name\tWork Email\nAda\tada@example.com\n",
        &["F010", "F011"],
        "the rewritten file would be read with TAB as its delimiter, not `,` (comma)",
    );
}

/// A day-first export (`d/mm/yyyy`, as Australian and French systems write
/// dates) of `rows` rows whose first cell that reads only day first comes
/// at row `proof`: the cells before it and after it that read as two dates
/// must never get a month-first fix. Each row's date is `(day, month)` of
/// 2019-2021; `write` writes it as the export does.
fn day_first_export(
    header: &str,
    row: impl Fn(usize, &str) -> String,
    write: impl Fn(u32, u32, i32) -> String,
    rows: usize,
    proof: usize,
) -> (String, Vec<(u32, u32, i32)>) {
    let mut s = format!("{header}\n");
    let mut dates = Vec::new();
    for i in 0..rows {
        // Day and month both 12 or less (ambiguous, or the same date both
        // ways) before the proof, any day after it.
        let (d, m) = if i < proof {
            (1 + (i % 12) as u32, 1 + ((i / 12) % 12) as u32)
        } else {
            (1 + (i % 28) as u32, 1 + (i % 12) as u32)
        };
        let (d, m) = if i == proof { (26, 7) } else { (d, m) };
        let y = 2019 + (i % 3) as i32;
        dates.push((d, m, y));
        s.push_str(&row(i, &write(d, m, y)));
        s.push('\n');
    }
    (s, dates)
}

/// The Australian export: employees with `Start Date` as `d/mm/yyyy`, a
/// name with spaces around it on every 7th row (a safe fix, so the file is
/// rewritten), 20,000 rows (several chunks) whose first day-first-only
/// date comes at row 15,000.
#[test]
fn a_day_first_column_never_gets_a_month_first_fix() {
    let header = "Full Name,Work Email,Title,Start Date,End Date,Platform Roles";
    let (s, dates) = day_first_export(
        header,
        |i, date| {
            let name = if i % 7 == 0 {
                format!(" P{i} ")
            } else {
                format!("P{i}")
            };
            format!("{name},user{i}@example.com,Engineer,{date},,reviewer")
        },
        |d, m, y| format!("{d}/{m:02}/{y}"),
        20_000,
        15_000,
    );
    for threads in ["1", "2"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("e.csv");
        std::fs::write(&file, &s).expect("write");
        let run = |args: &[&str]| {
            bdxlint()
                .current_dir(dir.path())
                .args(["check", "--format", "employees", "--threads", threads])
                .args(["--max-diagnostics", "0", "--output-format", "json"])
                .args(args)
                .arg("e.csv")
                .output()
                .expect("runs")
        };
        let fixed = run(&["--fix"]);
        let text = std::fs::read_to_string(&file).expect("read");
        assert_ne!(text, s, "the names' spaces are fixed");
        // No date changed but those that read the same both ways: each
        // cell that reads as two dates has only an unsafe (day-first)
        // reading, and a day-first-only one too.
        let cells: Vec<&str> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(3).expect("Start Date"))
            .collect();
        for (cell, (d, m, y)) in cells.iter().zip(&dates) {
            let want = if d == m {
                format!("{m:02}/{d:02}/{y}")
            } else {
                format!("{d}/{m:02}/{y}")
            };
            assert_eq!(*cell, want, "{threads} threads");
        }
        let reported = json_findings(&fixed.stdout);
        let checked = json_findings(&run(&[]).stdout);
        assert_eq!(reported, checked, "{threads} threads");
        let first = reported
            .iter()
            .find(|d| d["code"] == "C004")
            .expect("an ambiguous date");
        assert_eq!(first["line"], 3);
        assert_eq!(
            first["message"],
            "`2/01/2020` is not MM/DD/YYYY (e.g. 03/07/2024); other cells of `Start Date` are day-first (line 15002: `26/07/2019`)"
        );
        assert_eq!(first["fix"]["applicability"], "unsafe");
        assert_eq!(first["fix"]["edits"][0]["content"], "01/02/2020");
        // The rows --fix leaves without an error (those --split would put
        // in GOOD) are read month first by the platform: each whose date
        // reads as two (`10/01/2019`, 10 January) draws a warning, with
        // the day-first reading as its unsafe fix.
        let errors: std::collections::HashSet<u64> = reported
            .iter()
            .filter(|d| d["severity"] == "error")
            .filter_map(|d| d["line"].as_u64())
            .collect();
        let warned: std::collections::HashMap<u64, &serde_json::Value> = reported
            .iter()
            .filter(|d| d["code"] == "C020")
            .filter_map(|d| Some((d["line"].as_u64()?, d)))
            .collect();
        let mut good_two_way = 0;
        for (i, (d, m, y)) in dates.iter().enumerate() {
            let line = i as u64 + 2;
            if errors.contains(&line) {
                assert!(!warned.contains_key(&line), "line {line}");
                continue;
            }
            if d == m {
                assert!(!warned.contains_key(&line), "line {line}");
                continue;
            }
            good_two_way += 1;
            let w = warned
                .get(&line)
                .unwrap_or_else(|| panic!("line {line}: no warning"));
            assert_eq!(w["fix"]["applicability"], "unsafe", "line {line}");
            assert_eq!(
                w["fix"]["edits"][0]["content"],
                format!("{m:02}/{d:02}/{y}"),
                "line {line}"
            );
        }
        assert!(good_two_way > 1_000, "{good_two_way}");
        assert_eq!(warned.len(), good_two_way, "{threads} threads");
        let w = warned.values().find(|w| w["line"] == 11).expect("line 11");
        assert_eq!(
            w["message"],
            "`10/01/2019` is read month first, as October 1, 2019, but other cells of `Start Date` are day-first (line 15002: `26/07/2019`): it most likely means January 10, 2019"
        );
        // A second --fix changes nothing.
        let again = run(&["--fix"]);
        assert_eq!(std::fs::read_to_string(&file).expect("read"), text);
        assert_eq!(json_findings(&again.stdout), checked);

        // With the unsafe fixes every date is written as it was meant,
        // those already in the column's shape too (`10/01/2019` becomes
        // `01/10/2019`), and the file is clean.
        let unsafe_fixed = run(&["--fix", "--unsafe-fixes"]);
        let text = std::fs::read_to_string(&file).expect("read");
        for (l, (d, m, y)) in text.lines().skip(1).zip(&dates) {
            let cell = l.split(',').nth(3).expect("Start Date");
            assert_eq!(cell, format!("{m:02}/{d:02}/{y}"), "{threads} threads");
        }
        assert_eq!(json_findings(&unsafe_fixed.stdout), Vec::<Value>::new());
        assert_eq!(json_findings(&run(&[]).stdout), Vec::<Value>::new());
        run(&["--fix", "--unsafe-fixes"]);
        assert_eq!(std::fs::read_to_string(&file).expect("read"), text);
    }
}

/// The French export: reviews with `Updated At` (`YYYY-MM-DD`) written
/// `dd/mm/yyyy` and, on every 5th row, `dd.mm.yyyy`; the first date that
/// reads only day first at row 9,000 of 12,000. `--fix` writes only the
/// dates that read the same both ways: a day-first-only one (safe alone,
/// since `YYYY-MM-DD` states no order of its own) is what the others are
/// read by, so its fix is unsafe, made with theirs (fixed alone, the fixed
/// file would show no order, and a later check would read the others
/// month first). The unsafe fixes read every date day first.
#[test]
fn a_day_first_column_of_iso_dates_is_read_day_first_whole() {
    let header = "ID,Identity ID,Identity Name,Identity Email,Identity Username,Job Title,Department,Manager,Employment Type,Campaign Name,Campaign ID,Request ID,Application ID,Application Name,Application Description,Connection,Connection Type,Reviewer ID,Created At,Review Status,Updated By,Updated At,Resource,Resource Type,Permission Name,Permission Value,Project,Review Type,Recommendation";
    let (s, dates) = day_first_export(
        header,
        |i, date| {
            format!(",,Katherine Johnson,,kj{i},,,,contractor,,,req-{i},github,GitHub,,,,dorothy.vaughan@example.com,,,dorothy.vaughan@example.com,{date},acme-org/payments,repository,write,true,,revoke,")
        },
        |d, m, y| {
            if (d + m) % 5 == 0 {
                format!("{d:02}.{m:02}.{y}")
            } else {
                format!("{d:02}/{m:02}/{y}")
            }
        },
        12_000,
        9_000,
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("r.csv");
    std::fs::write(&file, &s).expect("write");
    let run = |args: &[&str]| {
        bdxlint()
            .current_dir(dir.path())
            .args(["check", "--format", "reviews", "--max-diagnostics", "0"])
            .args(["--output-format", "json"])
            .args(args)
            .arg("r.csv")
            .output()
            .expect("runs")
    };
    let before = json_findings(&run(&[]).stdout);
    let ambiguous = before
        .iter()
        .find(|d| d["code"] == "C004" && d["line"] == 3)
        .expect("row 2's date");
    assert_eq!(
        ambiguous["message"],
        "`02/01/2020` is not YYYY-MM-DD (e.g. 2024-03-07); other cells of `Updated At` are day-first (line 9002: `26/07/2019`)"
    );
    assert_eq!(ambiguous["fix"]["edits"][0]["content"], "2020-01-02");
    let fixed = run(&["--fix"]);
    let text = std::fs::read_to_string(&file).expect("read");
    for (l, (d, m, y)) in text.lines().skip(1).zip(&dates) {
        let cell = l.split(',').nth(21).expect("Updated At");
        if d == m {
            assert_eq!(cell, format!("{y}-{m:02}-{d:02}"));
        } else {
            assert!(!cell.starts_with(&y.to_string()), "{cell}");
        }
    }
    let proof = json_findings(&fixed.stdout)
        .into_iter()
        .find(|d| d["line"] == 9002)
        .expect("the first day-first date");
    assert_eq!(
        proof["message"],
        "`26/07/2019` is not YYYY-MM-DD (e.g. 2024-03-07); other cells of `Updated At` read as two dates (line 3) and are read by the order this one shows, so its fix is unsafe, made with theirs"
    );
    assert_eq!(
        json_findings(&fixed.stdout),
        json_findings(&run(&[]).stdout)
    );
    run(&["--fix"]);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), text);
    run(&["--fix", "--unsafe-fixes"]);
    let text = std::fs::read_to_string(&file).expect("read");
    for (l, (d, m, y)) in text.lines().skip(1).zip(&dates) {
        let cell = l.split(',').nth(21).expect("Updated At");
        assert_eq!(cell, format!("{y}-{m:02}-{d:02}"));
    }
}

/// A column written both ways (a month-first-only date and a
/// day-first-only one) gives a date that reads either way no fix at all,
/// and says why; a small file is checked again for it, a stream gets a
/// note instead.
#[test]
fn a_column_written_both_ways_gives_no_reading() {
    let s = "Full Name,Work Email,Title,Start Date,End Date,Platform Roles\n\
        A,a@example.com,Eng,6/07/2019,,reviewer\n\
        B,b@example.com,Eng,03/25/2024,,reviewer\n\
        C,c@example.com,Eng,26/07/2021,,reviewer\n";
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("e.csv"), s).expect("write");
    let found = findings_of(dir.path(), "e.csv", &[]);
    let first = &found[0];
    assert_eq!(
        (first["code"].as_str(), first["line"].as_u64()),
        (Some("C004"), Some(2))
    );
    assert_eq!(
        first["message"],
        "`6/07/2019` is not MM/DD/YYYY (e.g. 03/07/2024); it reads as two dates, and cells of `Start Date` are written both month first (line 3: `03/25/2024`) and day first (line 4: `26/07/2021`)"
    );
    assert!(first["fix"].is_null(), "{first}");
    // `--fix` leaves it, and the cell that shows the column day-first
    // too: a person must look at the column.
    bdxlint()
        .current_dir(dir.path())
        .args([
            "check",
            "--fix",
            "--unsafe-fixes",
            "--format",
            "employees",
            "e.csv",
        ])
        .assert()
        .code(1);
    let text = std::fs::read_to_string(dir.path().join("e.csv")).expect("read");
    assert!(text.contains(",6/07/2019,"), "{text}");
    assert!(text.contains(",26/07/2021,"), "{text}");

    // Standard input is read once: its findings stand, and a note says
    // what was learned after them.
    let out = bdxlint()
        .args([
            "check",
            "--format",
            "employees",
            "--output-format",
            "json",
            "-",
        ])
        .write_stdin(s)
        .output()
        .expect("runs");
    let found = json_findings(&out.stdout);
    assert_eq!(found[0]["fix"]["edits"][0]["content"], "06/07/2019");
    let note = found
        .iter()
        .find(|d| d["severity"] == "info")
        .expect("the note");
    assert_eq!(
        (note["code"].as_str(), note["severity"].as_str()),
        (Some("C004"), Some("info"))
    );
    assert_eq!(note["line"], 2);
    assert!(
        note["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("the cells of `Start Date` are written both month first (line 3: `03/25/2024`) and day first (line 4: `26/07/2021`), which the check learned only at the end of the file: 1 cell")),
        "{note}"
    );
}

/// A spreadsheet's display of a date-time (`7/1/2024 9:00`) reads as two
/// dates: it is read as its column is written, as `invalid-date` reads a
/// date. In a day-first `YYYY-MM-DD` column its unsafe fix is the
/// day-first reading, and a display only day first reads (`13/1/2024
/// 9:00`) is what shows the column day-first; in a column written both
/// ways, no fix.
#[test]
fn a_spreadsheet_date_is_read_as_its_column_is_written() {
    let header = "ID,Identity ID,Identity Name,Identity Email,Identity Username,Job Title,Department,Manager,Employment Type,Campaign Name,Campaign ID,Request ID,Application ID,Application Name,Application Description,Connection,Connection Type,Reviewer ID,Created At,Review Status,Updated By,Updated At,Resource,Resource Type,Permission Name,Permission Value,Project,Review Type,Recommendation";
    let row = |i: usize, date: &str| {
        format!(",,Katherine Johnson,,kj{i},,,,contractor,,,req-{i},github,GitHub,,,,dorothy.vaughan@example.com,,,dorothy.vaughan@example.com,{date},acme-org/payments,repository,write,true,,revoke,\n")
    };
    let file = |dates: &[&str]| {
        let mut s = format!("{header}\n");
        for (i, d) in dates.iter().enumerate() {
            s.push_str(&row(i, d));
        }
        s
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("r.csv");
    let run = |args: &[&str]| {
        bdxlint()
            .current_dir(dir.path())
            .args(["check", "--format", "reviews", "--output-format", "json"])
            .args(args)
            .arg("r.csv")
            .output()
            .expect("runs")
    };
    let cell = |text: &str, line: usize| {
        text.lines()
            .nth(line - 1)
            .and_then(|l| l.split(',').nth(21))
            .expect("Updated At")
            .to_owned()
    };

    // Day-first: the display that reads as two comes before the evidence,
    // which is itself a display.
    std::fs::write(&path, file(&["7/1/2024 9:00", "13/1/2024 9:00"])).expect("write");
    let found = json_findings(&run(&[]).stdout);
    let first = found
        .iter()
        .find(|d| d["line"] == 2)
        .expect("the display that reads as two");
    assert_eq!(first["code"], "C018");
    assert_eq!(first["fix"]["applicability"], "unsafe");
    assert_eq!(first["fix"]["edits"][0]["content"], "2024-01-07");
    assert!(
        first["help"].as_str().is_some_and(|h| h.contains(
            "read day first, as other cells of `Updated At` are (line 3: `13/1/2024 9:00`)"
        )),
        "{first}"
    );
    run(&["--fix", "--unsafe-fixes"]);
    let text = std::fs::read_to_string(&path).expect("read");
    assert_eq!(cell(&text, 2), "2024-01-07");
    assert_eq!(cell(&text, 3), "2024-01-13");

    // Written both ways: no reading is written.
    let mixed = file(&["7/1/2024 9:00", "1/13/2024 9:00", "13/1/2024 9:00"]);
    std::fs::write(&path, &mixed).expect("write");
    let found = json_findings(&run(&[]).stdout);
    let first = found.iter().find(|d| d["line"] == 2).expect("line 2");
    assert!(first["fix"].is_null(), "{first}");
    assert_eq!(
        first["message"],
        "`7/1/2024 9:00` is a date-time as a spreadsheet displays it, not YYYY-MM-DD (e.g. 2024-03-07); it reads as two dates, `2024-07-01` or `2024-01-07`, and cells of `Updated At` are written both month first (line 3: `1/13/2024 9:00`) and day first (line 4: `13/1/2024 9:00`)"
    );
    // The cells that read one way keep the order the other is read by.
    for line in [3, 4] {
        let d = found.iter().find(|d| d["line"] == line).expect("evidence");
        assert!(d["fix"].is_null(), "{d}");
    }
    run(&["--fix", "--unsafe-fixes"]);
    assert_eq!(std::fs::read_to_string(&path).expect("read"), mixed);
}

/// The ordinary US file: valid dates that read as two, in columns that
/// show no order or month first, draw nothing; nor do they in a
/// `YYYY-MM-DD` column, where a valid date reads one way.
#[test]
fn valid_dates_that_read_as_two_draw_nothing_without_day_first_cells() {
    let s = "Full Name,Work Email,Title,Start Date,End Date,Platform Roles\n\
        A,a@example.com,Eng,06/07/2019,10/01/2020,reviewer\n\
        B,b@example.com,Eng,03/25/2024,,reviewer\n\
        C,c@example.com,Eng,12/11/2021,01/02/2022,reviewer\n";
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("e.csv"), s).expect("write");
    assert_eq!(findings_of(dir.path(), "e.csv", &[]), Vec::<Value>::new());
}

/// `--fix --unsafe-fixes` writes `2024-03-07` of a day-first column as
/// `03/07/2024` (March 7); the mixed line endings' rewrite then forces a
/// second pass, which must not read that cell day first and swap it to
/// `07/03/2024` (July 3): `day-first-date`'s swap belongs to the first
/// pass, whose cells were all the user's.
#[test]
fn a_later_pass_never_swaps_a_date_a_fix_wrote() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("d.csv");
    std::fs::write(
        &file,
        "Full Name,Work Email,Start Date\r\nA,a@x.com,2024-03-07\r\nB,b@x.com,13/01/2024\n",
    )
    .expect("write");
    bdxlint()
        .current_dir(dir.path())
        .args(["check", "--fix", "--unsafe-fixes", "d.csv"])
        .output()
        .expect("runs");
    let fixed = std::fs::read_to_string(&file).expect("read");
    assert_eq!(
        fixed,
        "Full Name,Work Email,Start Date\r\nA,a@x.com,03/07/2024\r\nB,b@x.com,01/13/2024\r\n"
    );
}

/// A date a fix wrote in a day-first column (`03/07/2024` from
/// ` 03/07/2024 `, trimmed; `2024-03-07` written month first with the
/// unsafe fixes) reads as two dates, and a check of the fixed file warns
/// on it (`day-first-date`): `--fix`'s report says so too, as it says
/// everything such a check says. A swap never undoes what a fix wrote:
/// with the unsafe fixes, ` 03/07/2024 ` is the user's day-first date,
/// swapped once (to July 3), and `2024-03-08` stays March 8.
#[test]
fn a_date_a_fix_wrote_keeps_its_day_first_warning_in_the_report() {
    let original = "Full Name,Work Email,Start Date\n\
        A,a@x.com,26/07/2019\n\
        B,b@x.com, 03/07/2024 \n\
        C,c@x.com,2024-03-08\n\
        D,d@x.com,04/09/2024\n";
    for (args, dates) in [
        (&["--fix"][..], [" 03/07/2024 ", "2024-03-08", "04/09/2024"]),
        (
            &["--fix", "--unsafe-fixes"][..],
            ["07/03/2024", "03/08/2024", "09/04/2024"],
        ),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("e.csv");
        std::fs::write(&file, original).expect("write");
        let reported = findings_of(dir.path(), "e.csv", args);
        let fixed = std::fs::read_to_string(&file).expect("read");
        let cells: Vec<&str> = fixed
            .lines()
            .skip(2)
            .filter_map(|l| l.split(',').nth(2))
            .collect();
        // The trim is safe, so the safe run writes ` 03/07/2024 ` trimmed;
        // the unsafe run also reads every cell day first, and the date
        // it wrote from `2024-03-08` stays March 8.
        let want: Vec<&str> = if args.len() == 1 {
            vec!["03/07/2024", dates[1], dates[2]]
        } else {
            dates.to_vec()
        };
        assert_eq!(cells, want, "{args:?}");
        let checked = findings_of(dir.path(), "e.csv", &[]);
        assert_eq!(reported, checked, "{args:?}");
    }
}

/// The passes read dates by the original's orders, but the fixed file can
/// read otherwise, and the report is what a check of it says:
/// - with the unsafe fixes and a second pass (the CRLF header's line
///   endings), a day-first column written month first: no `day-first-date`
///   swap of the ISO date a fix wrote (`2024-11-05` as `11/05/2024`, which
///   the swap would make May 11);
/// - a safe fix writing a month-first date (`2024-12-25` as `12/25/2024`)
///   into a day-first column: the column is written both ways now, and the
///   day-first cell's finding has no fix to offer.
#[test]
fn the_report_reads_dates_as_the_fixed_file_does() {
    for (args, original, fixed) in [
        (
            &["--fix", "--unsafe-fixes"][..],
            "Full Name,Work Email,Start Date\r\nA,a@x.com,13/01/2020\nB,b@x.com,2024-11-05\n",
            "Full Name,Work Email,Start Date\nA,a@x.com,01/13/2020\nB,b@x.com,11/05/2024\n",
        ),
        (
            &["--fix"][..],
            "Full Name,Work Email,Start Date\nA,a@x.com,26/07/2019\nB,b@x.com,2024-12-25\nC,c@x.com,04/09/2024\n",
            "Full Name,Work Email,Start Date\nA,a@x.com,26/07/2019\nB,b@x.com,12/25/2024\nC,c@x.com,04/09/2024\n",
        ),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("e.csv"), original).expect("write");
        let reported = findings_of(dir.path(), "e.csv", args);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("e.csv")).expect("read"),
            fixed
        );
        assert_eq!(reported, findings_of(dir.path(), "e.csv", &[]), "{args:?}");
        // No fix offered would change a date a fix wrote, or read a column
        // written both ways one way.
        assert!(
            reported.iter().all(|d| d["fix"].is_null()),
            "{args:?}: {reported:?}"
        );
    }
}

/// `day-first-date`'s swaps are made with `invalid-date`'s unsafe fixes,
/// which write the column's day-first cells month first. With
/// `invalid-date` ignored those cells stay, so the column still reads day
/// first: swapped alone, the dates would be swapped back by the next run,
/// and again by the one after. They are left, warned about, and a second
/// run changes nothing.
#[test]
fn day_first_swaps_are_not_made_without_the_day_first_cells_fixes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("e.csv");
    std::fs::write(
        &file,
        "Full Name,Work Email,Start Date\nA,a@x.com,26/07/2019\nB,b@x.com, 03/07/2024 \nD,d@x.com,04/09/2024\n",
    )
    .expect("write");
    let args = ["--fix", "--unsafe-fixes", "--ignore", "C004"];
    let first = findings_of(dir.path(), "e.csv", &args);
    let once = std::fs::read_to_string(&file).expect("read");
    assert_eq!(
        once,
        "Full Name,Work Email,Start Date\nA,a@x.com,26/07/2019\nB,b@x.com,03/07/2024\nD,d@x.com,04/09/2024\n"
    );
    let codes: Vec<&str> = first.iter().filter_map(|d| d["code"].as_str()).collect();
    assert_eq!(codes, ["C020", "C020"]);
    assert_eq!(
        first,
        findings_of(dir.path(), "e.csv", &["--ignore", "C004"])
    );
    assert_eq!(findings_of(dir.path(), "e.csv", &args), first);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), once);
    // A spreadsheet's date (`26/7/2019 9:00`) shows the order too, and
    // `spreadsheet-date`'s fix writes it month first: the same holds.
    let sheet = "Full Name,Work Email,Start Date\nA,a@x.com,26/7/2019 9:00\nB,b@x.com,03/07/2024\n";
    std::fs::write(&file, sheet).expect("write");
    for _ in 0..2 {
        findings_of(
            dir.path(),
            "e.csv",
            &["--fix", "--unsafe-fixes", "--ignore", "C018"],
        );
        assert_eq!(std::fs::read_to_string(&file).expect("read"), sheet);
    }
}

/// Read from standard input, `--fix`'s report cannot be made again once
/// streamed: the result's date orders are learned first, so a day-first
/// column's dates that read as two still get a warning each (not one note
/// that the order was learned late), and `--fail-on warning` fails.
#[test]
fn a_fixed_standard_input_warns_on_each_day_first_date() {
    let out = bdxlint()
        .args(["check", "--fix", "--format", "employees", "--output-format", "json"])
        .args(["--fail-on", "warning", "--stdin-filename", "e.csv", "-"])
        .write_stdin(
            "Full Name,Work Email,Start Date\nA,a@x.com,26/07/2019\nC,c@x.com, 03/07/2024 \nD,d@x.com,04/09/2024\n",
        )
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    // The fixed file goes to standard output, the report to standard error.
    let found = json_findings(&out.stderr);
    let warned: Vec<(u64, &str)> = found
        .iter()
        .filter(|d| d["code"] == "C020")
        .filter_map(|d| Some((d["line"].as_u64()?, d["severity"].as_str()?)))
        .collect();
    assert_eq!(warned, [(3, "warning"), (4, "warning")]);
}

/// Deleting an Excel `sep=,` line is safe only if the rest reads with
/// commas without it: here the sniffer would pick `;`, and the 2-field
/// records would be read as 4 fields. The line stays, its finding says
/// why, and the file is left as it is.
#[test]
fn a_sep_line_whose_removal_changes_the_delimiter_is_not_deleted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("e.csv");
    let original = "sep=,\nFull Name;Work Email;Start Date;Title,x\n\
        a;a@x.com;03/07/2024;t,y\nb;b@x.com;03/07/2024;t,y,z\n";
    std::fs::write(&file, original).expect("write");
    let found = findings_of(dir.path(), "e.csv", &["--fix"]);
    let sep = found.iter().find(|d| d["code"] == "F011").expect("F011");
    assert!(sep["fix"].is_null(), "{sep:?}");
    assert!(
        sep["help"].as_str().is_some_and(|h| h.contains("`;`")),
        "{sep:?}"
    );
    assert_eq!(std::fs::read_to_string(&file).expect("read"), original);
}
