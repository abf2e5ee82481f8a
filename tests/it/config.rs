//! `bdxlint.toml` end to end, as a user lays out a repository: overrides
//! on loose CSV files and on ZIP bundles, `exclude` and `--force-exclude`,
//! errors that point into the file, and baselines.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use zip::write::SimpleFileOptions;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn bdxlint(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("bdxlint").expect("binary builds");
    c.current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("BDXLINT_OUTPUT_FORMAT");
    c
}

fn write(dir: &Path, name: &str, text: &[u8]) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(&p, text).expect("write fixture");
    p
}

fn fixture(rel: &str) -> Vec<u8> {
    std::fs::read(Path::new(ROOT).join("testdata").join(rel)).expect("fixture")
}

fn zip_of(dir: &Path, name: &str, members: &[(&str, &[u8])]) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    let file = std::fs::File::create(&path).expect("create zip");
    let mut w = zip::ZipWriter::new(file);
    let opts = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (n, data) in members {
        w.start_file(*n, opts).expect("start member");
        w.write_all(data).expect("write member");
    }
    w.finish().expect("finish zip");
    path
}

/// Runs and returns stdout, asserting the exit code.
fn stdout(c: &mut Command, code: i32) -> String {
    let out = c.assert().code(code).get_output().stdout.clone();
    String::from_utf8(out).expect("utf-8")
}

/// `path:line:col: CODE` of every concise line, the message dropped.
fn findings(concise: &str) -> Vec<String> {
    concise
        .lines()
        .map(|l| {
            let mut parts = l.splitn(2, " [");
            parts.next().expect("a line").to_owned()
        })
        .collect()
}

/// (path, member, format) of every report of a JSON document.
fn formats(json: &str) -> Vec<(String, Option<String>, String)> {
    let doc: Value = serde_json::from_str(json).expect("one JSON document");
    doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().expect("path").to_owned(),
                f["member"].as_str().map(str::to_owned),
                f["format"].as_str().unwrap_or("?").to_owned(),
            )
        })
        .collect()
}

/// A repository with two bundles whose relations reference entities the
/// bundle lacks (B006 in the entities-bulk one), an entity-rbac bundle (B007
/// warnings, B010 info, and B014 warnings: its employee ends are not Work
/// Emails of the run's employees CSV) and a loose employees CSV with errors.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    zip_of(
        d,
        "uploads/rbac.zip",
        &[
            ("entities.csv", &fixture("entities/valid.csv")),
            ("rel.csv", &fixture("entity-rbac-relations/valid.csv")),
        ],
    );
    zip_of(
        d,
        "uploads/bulk.zip",
        &[
            ("e.csv", &fixture("entities/surrounding-whitespace.csv")),
            ("r.csv", &fixture("entity-relations/valid.csv")),
        ],
    );
    write(
        d,
        "uploads/employees.csv",
        &fixture("example/employees.csv"),
    );
    dir
}

#[test]
fn overrides_map_zip_files_to_a_bundle_kind_and_csv_files_to_a_format() {
    let dir = repo();
    let d = dir.path();
    // The bundle kind of one glob applies to the ZIP files, the CSV format
    // of the same glob to the CSV file: forced to entity-rbac, the
    // entities-bulk ZIP's relations member is read as RBAC relations.
    write(
        d,
        "bdxlint.toml",
        b"[[overrides]]\npaths = [\"uploads/*\"]\nformat = \"entity-rbac\"\n\
          [[overrides]]\npaths = [\"uploads/*\"]\nformat = \"entitlements\"\n",
    );
    let out = stdout(
        bdxlint(d).args(["check", "--output-format", "json", "uploads"]),
        1,
    );
    assert_eq!(
        formats(&out),
        [
            ("uploads/bulk.zip", None, "entity-rbac"),
            ("uploads/bulk.zip", Some("e.csv"), "entities"),
            ("uploads/bulk.zip", Some("r.csv"), "entity-rbac-relations"),
            ("uploads/employees.csv", None, "entitlements"),
            ("uploads/rbac.zip", None, "entity-rbac"),
            ("uploads/rbac.zip", Some("entities.csv"), "entities"),
            ("uploads/rbac.zip", Some("rel.csv"), "entity-rbac-relations"),
        ]
        .map(|(p, m, f)| (p.to_owned(), m.map(str::to_owned), f.to_owned()))
    );
    // `--format` still wins over the overrides.
    let out = stdout(
        bdxlint(d).args([
            "check",
            "--output-format",
            "json",
            "--format",
            "entities-bulk",
            "uploads/bulk.zip",
        ]),
        1,
    );
    assert_eq!(formats(&out)[2].2, "entity-relations");
}

#[test]
fn an_override_on_a_bundle_applies_to_the_archive_and_every_member() {
    let dir = repo();
    let d = dir.path();
    write(
        d,
        "bdxlint.toml",
        b"output-format = \"concise\"\n\
          [[overrides]]\npaths = [\"uploads/bulk.zip\"]\nignore = [\"dangling-reference\"]\n\
          severity = { C015 = \"error\" }\n\
          [[overrides]]\npaths = [\"uploads/*.zip\"]\nignore = [\"B010\"]\n",
    );
    let out = stdout(
        bdxlint(d).args(["check", "--select", "B,C015", "uploads"]),
        1,
    );
    assert_eq!(
        out,
        "uploads/bulk.zip:e.csv:2:42: C015 [error] `v1 ` has spaces around it\n\
         uploads/rbac.zip:rel.csv:3:54: B014 [warning] employee `00u1a2b3c4` is not a Work Email of the run's employees CSV\n\
         uploads/rbac.zip:rel.csv:5:15: B007 [warning] role `role-auditor` is not defined by the bundle's entities CSV (nor --entities)\n\
         uploads/rbac.zip:rel.csv:8:15: B007 [warning] role `role-auditor` is not defined by the bundle's entities CSV (nor --entities)\n\
         uploads/rbac.zip:rel.csv:8:34: B014 [warning] employee `583232` is not a Work Email of the run's employees CSV\n"
    );
}

#[test]
fn a_config_value_naming_no_rule_exits_2_pointing_at_it() {
    let dir = repo();
    let d = dir.path();
    write(
        d,
        "bdxlint.toml",
        b"[[overrides]]\npaths = [\"uploads/*.zip\"]\nignore = [\"B010\", \"dangling-refs\"]\n",
    );
    bdxlint(d.join("uploads").as_path())
        .args(["check", "."])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "bdxlint.toml: invalid value at line 3, column 19\n  |\n3 | ignore = [\"B010\", \"dangling-refs\"]\n  |                   ^^^^^^^^^^^^^^^\noverrides[0].ignore: \"dangling-refs\" names no rule",
        ));
}

/// A repository with broken files under `fixtures/` (at any depth) and
/// `uploads/old/`, and a clean upload.
fn repo_with_excludes(extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let bad = fixture("example/employees.csv");
    write(d, "uploads/employees.csv", &fixture("employees/valid.csv"));
    write(d, "uploads/old/employees.csv", &bad);
    write(d, "uploads/fixtures/employees.csv", &bad);
    write(d, "fixtures/a/employees.csv", &bad);
    write(d, "uploads/employees.draft.csv", &bad);
    zip_of(
        d,
        "uploads/old/rbac.zip",
        &[("e.csv", &fixture("entities/surrounding-whitespace.csv"))],
    );
    write(
        d,
        "bdxlint.toml",
        format!(
            "output-format = \"concise\"\n\
             exclude = [\"fixtures\", \"uploads/old/**\", \"*.draft.csv\"]\n{extra}"
        )
        .as_bytes(),
    );
    dir
}

#[test]
fn exclude_prunes_directory_walks_but_not_named_files() {
    let dir = repo_with_excludes("");
    let d = dir.path();
    // Walked: only the clean file is left, from the root or a subdirectory.
    bdxlint(d)
        .args(["check", "--statistics", "."])
        .assert()
        .code(0)
        .stdout("0 errors, 0 warnings, 0 infos in 1 file\n");
    bdxlint(&d.join("uploads"))
        .args(["check", "-q", "."])
        .assert()
        .code(0)
        .stdout("");
    // Named files and directories are checked: the user asked for them.
    let out = stdout(
        bdxlint(d).args([
            "check",
            "--select",
            "C003",
            "uploads/old/employees.csv",
            "uploads/employees.draft.csv",
            "fixtures",
        ]),
        1,
    );
    assert_eq!(
        findings(&out),
        [
            "uploads/old/employees.csv:4:21: C003",
            "uploads/employees.draft.csv:4:21: C003",
            "fixtures/a/employees.csv:4:21: C003",
        ]
    );
    // --isolated reads no config, so nothing is excluded.
    let out = stdout(
        bdxlint(d).args(["check", "--isolated", "-q", "--select", "C003,C015", "."]),
        1,
    );
    assert_eq!(out, "4 errors, 1 warning, 0 infos in 6 files\n");
}

#[test]
fn force_exclude_skips_named_paths_as_pre_commit_passes_them() {
    let dir = repo_with_excludes("");
    let d = dir.path();
    let named = [
        "uploads/employees.csv",
        "uploads/old/employees.csv",
        "uploads/old/rbac.zip",
        "uploads/fixtures/employees.csv",
        "./uploads/employees.draft.csv",
        "fixtures",
    ];
    bdxlint(d)
        .args(["check", "--force-exclude", "--statistics"])
        .args(named)
        .assert()
        .code(0)
        .stdout("0 errors, 0 warnings, 0 infos in 1 file\n");
    // From a subdirectory, paths resolve against the config's directory.
    bdxlint(&d.join("uploads"))
        .args([
            "check",
            "--force-exclude",
            "-q",
            "old/employees.csv",
            "employees.csv",
        ])
        .assert()
        .code(0)
        .stdout("");
    // Only excluded files named: nothing to check, and that is not a failure.
    bdxlint(d)
        .args([
            "check",
            "--force-exclude",
            "-q",
            "uploads/old/employees.csv",
        ])
        .assert()
        .code(0)
        .stdout("");
    // The config can ask for it too.
    let dir = repo_with_excludes("force-exclude = true\n");
    bdxlint(dir.path())
        .args(["check", "-q"])
        .args(named)
        .assert()
        .code(0)
        .stdout("");
}

/// The summary line of a `--statistics` run.
fn summary(c: &mut Command) -> String {
    let out = c.assert().get_output().stdout.clone();
    let out = String::from_utf8(out).expect("utf-8");
    let last = out.lines().last().unwrap_or_default();
    // The counts, without what follows them (fixable findings).
    last.split("; ").next().unwrap_or_default().to_owned()
}

#[test]
fn exclude_flags_replace_and_extend_the_config_s() {
    let dir = repo_with_excludes("extend-exclude = [\"old\"]\n");
    let d = dir.path();
    // How many files were checked.
    let count = |dir: &Path, args: &[&str]| {
        let s = summary(bdxlint(dir).args(["check", "--statistics"]).args(args));
        s[s.find(" in ").expect("a summary") + 4..].to_owned()
    };
    assert_eq!(count(d, &["."]), "1 file");
    // --exclude replaces `exclude`; `extend-exclude` still holds.
    assert_eq!(count(d, &["--exclude", "*.draft.csv", "."]), "3 files");
    assert_eq!(
        count(d, &["--exclude", "fixtures,*.draft.csv", "."]),
        "1 file"
    );
    // --extend-exclude adds to both.
    assert_eq!(
        count(d, &["--extend-exclude", "employees.csv", "."]),
        "0 files"
    );
    // The command line's globs are relative to the working directory.
    assert_eq!(
        count(
            &d.join("uploads"),
            &["--isolated", "--exclude", "old/employees.csv", "."]
        ),
        "4 files"
    );
    bdxlint(d)
        .args(["check", "--exclude", "ok,a[", "."])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--exclude \"a[\""));
}

#[test]
fn extend_select_adds_to_the_select_in_force() {
    let dir = repo_with_excludes("select = [\"C003\"]\nextend-select = [\"C015\"]\n");
    let d = dir.path();
    let count = |args: &[&str]| {
        summary(
            bdxlint(d)
                .args(["check", "--statistics"])
                .args(args)
                .args(["uploads/old/employees.csv", "uploads/old/rbac.zip"]),
        )
    };
    assert_eq!(count(&[]), "1 error, 1 warning, 0 infos in 2 files");
    // --select replaces `select` and `extend-select`, as ruff's does.
    assert_eq!(
        count(&["--select", "C003"]),
        "1 error, 0 warnings, 0 infos in 2 files"
    );
    assert_eq!(
        count(&["--select", "C003", "--extend-select", "C015"]),
        "1 error, 1 warning, 0 infos in 2 files"
    );
    assert_eq!(
        count(&["--select", "C015", "--extend-select", "invalid-email"]),
        "1 error, 1 warning, 0 infos in 2 files"
    );
    // With no select every rule is on: extending it narrows nothing.
    assert_eq!(
        count(&["--isolated", "--extend-select", "C015"]),
        count(&["--isolated"])
    );
    bdxlint(d)
        .args(["check", "--extend-select", "Z9", "uploads"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("\"Z9\" names no rule"));
    write(d, "bdxlint.toml", b"extend-select = [\"C\", \"nope\"]\n");
    bdxlint(d)
        .args(["check", "uploads"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("line 1, column 23"))
        .stderr(predicate::str::contains("extend-select: \"nope\""));
}

#[test]
fn per_file_ignores_drop_rules_in_the_files_their_globs_cover() {
    let dir = repo_with_excludes(
        "[per-file-ignores]\n\"uploads/old/*.csv\" = [\"C003\", \"invalid-date\"]\n\
         \"*.draft.csv\" = [\"C\"]\n\"fixtures\" = [\"C004\"]\n",
    );
    let d = dir.path();
    let files = [
        "uploads/old/employees.csv",
        "uploads/employees.draft.csv",
        "uploads/fixtures/employees.csv",
    ];
    let out = stdout(bdxlint(d).arg("check").args(files), 1);
    assert_eq!(
        findings(&out),
        [
            "uploads/old/employees.csv:5:111: C008",
            "uploads/fixtures/employees.csv:4:21: C003",
            "uploads/fixtures/employees.csv:5:111: C008",
        ]
    );
    // From a subdirectory the table's globs stay relative to its file.
    let out = stdout(
        bdxlint(&d.join("uploads")).args(["check", "old/employees.csv"]),
        0,
    );
    assert_eq!(findings(&out), ["old/employees.csv:5:111: C008"]);
    // The flag replaces the table; its globs are relative to the
    // working directory.
    let out = stdout(
        bdxlint(&d.join("uploads")).args([
            "check",
            "--per-file-ignores",
            "old/*.csv:C008",
            "--per-file-ignores",
            "fixtures:C003,C004",
            "old/employees.csv",
            "fixtures/employees.csv",
        ]),
        1,
    );
    assert_eq!(
        findings(&out),
        [
            "old/employees.csv:4:21: C003",
            "old/employees.csv:4:70: C004",
            "old/employees.csv:5:64: C004",
            "fixtures/employees.csv:5:111: C008",
        ]
    );
    for (arg, says) in [
        ("old/*.csv", "expected GLOB:RULE"),
        ("old/*.csv:", "at least one rule"),
        ("old/*.csv:Z9", "\"Z9\" names no rule"),
        ("a[:C004", "--per-file-ignores \"a[:C004\""),
    ] {
        bdxlint(d)
            .args(["check", "--per-file-ignores", arg, "uploads"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says));
    }
    write(
        d,
        "bdxlint.toml",
        b"[per-file-ignores]\n\"a/*.csv\" = [\"C004\", \"nope\"]\n",
    );
    bdxlint(d)
        .args(["check", "uploads"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("line 2, column 22"))
        .stderr(predicate::str::contains("\"nope\" names no rule"));
}

#[test]
fn each_file_takes_the_nearest_config_as_ruff_s_hierarchy_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let bad = fixture("example/employees.csv");
    for f in [
        "uploads/employees.csv",
        "skipme/employees.csv",
        "sub/employees.csv",
        "sub/old/employees.csv",
        "sub/skipme/employees.csv",
        "broken/employees.csv",
    ] {
        write(d, f, &bad);
    }
    write(
        d,
        "bdxlint.toml",
        b"select = [\"C003\"]\nexclude = [\"skipme\"]\n",
    );
    // Not inherited: the root's select and exclude do not hold below it.
    write(
        d,
        "sub/.bdxlint.toml",
        b"ignore = [\"C003\"]\nexclude = [\"old\"]\n",
    );
    write(d, "broken/bdxlint.toml", b"selec = [\"C\"]\n");
    let concise = |dir: &Path, args: &[&str], code: i32| {
        findings(&stdout(
            bdxlint(dir)
                .args(["check", "--output-format", "concise"])
                .args(args),
            code,
        ))
    };
    let sub = |p: &str| {
        [
            format!("{p}:4:70: C004"),
            format!("{p}:5:64: C004"),
            format!("{p}:5:111: C008"),
        ]
    };
    let mut want = sub("./sub/employees.csv").to_vec();
    want.extend(sub("./sub/skipme/employees.csv"));
    want.push("./uploads/employees.csv:4:21: C003".to_owned());
    let out = bdxlint(d)
        .args(["check", "--output-format", "concise", "."])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("broken/bdxlint.toml"))
        .stderr(predicate::str::contains("unknown field `selec`"))
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).expect("utf-8");
    assert_eq!(stderr.lines().filter(|l| l.contains("selec")).count(), 1);
    assert_eq!(
        findings(&String::from_utf8(out.stdout).expect("utf-8")),
        want
    );
    std::fs::remove_file(d.join("broken/bdxlint.toml")).expect("rm");
    // A named file takes its own directory's config too.
    assert_eq!(
        concise(d, &["sub/employees.csv"], 1),
        sub("sub/employees.csv")
    );
    assert_eq!(
        concise(d, &["--force-exclude", "sub/old/employees.csv"], 0),
        Vec::<String>::new()
    );
    // From below, the same files take the same configs.
    assert_eq!(concise(&d.join("sub"), &["."], 1), {
        let mut w = sub("./employees.csv").to_vec();
        w.extend(sub("./skipme/employees.csv"));
        w
    });
    // --config puts one file over every input.
    assert_eq!(
        concise(
            d,
            &["--config", "bdxlint.toml", "broken", "sub", "uploads"],
            1
        ),
        [
            "broken/employees.csv:4:21: C003",
            "sub/employees.csv:4:21: C003",
            "sub/old/employees.csv:4:21: C003",
            "uploads/employees.csv:4:21: C003",
        ]
    );
}

#[test]
fn a_bad_exclude_glob_exits_2_pointing_at_it() {
    let dir = repo();
    write(dir.path(), "bdxlint.toml", b"exclude = [\"ok\", \"a[\"]\n");
    bdxlint(dir.path())
        .args(["check", "uploads"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("line 1, column 18"))
        .stderr(predicate::str::contains("exclude: "));
}

/// `text` with `rows` inserted after its header.
fn insert_rows(text: &[u8], rows: &str) -> Vec<u8> {
    let text = String::from_utf8(text.to_vec()).expect("utf-8");
    let (header, body) = text.split_once('\n').expect("a header");
    format!("{header}\n{rows}{body}").into_bytes()
}

/// A ZIP member's name may take 65,535 bytes, and escaping grows it past
/// any line of a baseline: an upload with such a name was the whole run's
/// "not written". Its findings are recorded under `file-hash` and matched.
#[test]
fn a_member_of_a_long_name_is_baselined_by_its_hashes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let long = format!("{}.csv", "\u{1}".repeat(65_531));
    assert_eq!(long.len(), 65_535);
    zip_of(
        d,
        "uploads/bulk.zip",
        &[
            (&long, &fixture("entities/surrounding-whitespace.csv")),
            ("r.csv", &fixture("entity-relations/valid.csv")),
        ],
    );
    let write = bdxlint(d)
        .args(["check", "--isolated", "--write-baseline", "base", "uploads"])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&write.stderr);
    assert_eq!(write.status.code(), Some(0), "{err}");
    assert!(err.contains("recorded"), "{err}");
    let base = std::fs::read_to_string(d.join("base")).expect("written");
    let files: Vec<&str> = base.lines().filter(|l| l.starts_with("file")).collect();
    assert!(
        files.iter().any(|l| l.starts_with("file-hash ")),
        "{files:?}"
    );
    assert!(files.iter().all(|l| l.len() < 100), "{files:?}");
    let concise = |args: &[&str]| {
        let out = bdxlint(d)
            .args(["check", "--isolated", "--output-format", "concise"])
            .args(args)
            .arg("uploads")
            .output()
            .expect("runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(concise(&[]).contains("C015"));
    assert_eq!(concise(&["--baseline", "base"]), "");
}

#[test]
fn baselines_record_bundle_members_and_survive_rows_inserted_above_findings() {
    let dir = repo();
    let d = dir.path();
    let run = |args: &[&str]| {
        let mut c = bdxlint(d);
        c.args(["check", "--output-format", "concise"])
            .args(args)
            .arg("uploads");
        c
    };
    run(&["--write-baseline", "base.json"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            // 2 of them B014: the RBAC bundle's employee ends are not
            // Work Emails of the run's employees CSV.
            "recorded 19 findings in base.json",
        ));
    // Each entry under its file's line: the archive and the member.
    let base = std::fs::read_to_string(d.join("base.json")).expect("written");
    let mut file = "";
    let mut where_: Vec<(&str, &str)> = Vec::new();
    for line in base.lines().skip(2) {
        match line.strip_prefix("file ") {
            Some(f) => file = f,
            None => where_.push((file, line.split(' ').next().expect("code"))),
        }
    }
    assert!(where_.contains(&("\"uploads/bulk.zip\" \"r.csv\"", "B006")));
    assert!(where_.contains(&("\"uploads/bulk.zip\" \"e.csv\"", "C015")));
    assert!(where_.contains(&("\"uploads/employees.csv\"", "C003")));

    // Rows inserted above every finding move them all down; none is new.
    let employees = d.join("uploads/employees.csv");
    let text = std::fs::read(&employees).expect("read");
    std::fs::write(
        &employees,
        insert_rows(
            &text,
            "E-1901,Ann Byron,ann.byron@example.com,Engineering,Engineer,03/07/2024,,charles.babbage@example.com,reviewer,,\n\
             E-1902,Bob Byron,bob.byron@example.com,Engineering,Engineer,03/07/2024,,charles.babbage@example.com,reviewer,,\n",
        ),
    )
    .expect("write");
    let entities = insert_rows(
        &fixture("entities/surrounding-whitespace.csv"),
        "bob,identity,github,583239,user,,\n",
    );
    zip_of(
        d,
        "uploads/bulk.zip",
        &[
            ("e.csv", &entities),
            ("r.csv", &fixture("entity-relations/valid.csv")),
        ],
    );
    let moved = stdout(
        bdxlint(d).args([
            "check",
            "--isolated",
            "--output-format",
            "concise",
            "--select",
            "C003,C015",
            "uploads",
        ]),
        1,
    );
    assert_eq!(
        findings(&moved),
        [
            "uploads/bulk.zip:e.csv:3:42: C015",
            "uploads/employees.csv:6:21: C003"
        ]
    );
    run(&["--baseline", "base.json"])
        .assert()
        .code(0)
        .stdout("");

    // Fixing the whitespace leaves one entry that no longer matches.
    let fixed = String::from_utf8(entities)
        .expect("utf-8")
        .replace("v1 ,", "v1,");
    zip_of(
        d,
        "uploads/bulk.zip",
        &[
            ("e.csv", fixed.as_bytes()),
            ("r.csv", &fixture("entity-relations/valid.csv")),
        ],
    );
    run(&["--baseline", "base.json"])
        .assert()
        .code(0)
        .stdout("")
        .stderr(predicate::str::contains(
            "bdxlint: 1 baseline entry no longer matches (rewrite it with --write-baseline)\n",
        ));
}

#[test]
fn a_baseline_written_by_walking_dot_matches_files_named_as_pre_commit_names_them() {
    let dir = repo();
    let d = dir.path();
    bdxlint(d)
        .args(["check", "--write-baseline", "base.json", "."])
        .assert()
        .code(0);
    for args in [
        &["uploads/employees.csv", "uploads/bulk.zip"][..],
        &["./uploads/"][..],
        &["uploads"][..],
    ] {
        bdxlint(d)
            .args([
                "check",
                "--output-format",
                "concise",
                "--baseline",
                "base.json",
            ])
            .args(args)
            .assert()
            .code(0)
            .stdout("")
            .stderr("");
    }
    // The same finding has the same SARIF fingerprint either way.
    let print = |path: &str| {
        let out = stdout(
            bdxlint(d).args(["check", "--output-format", "sarif", path]),
            1,
        );
        let doc: Value = serde_json::from_str(&out).expect("JSON");
        doc["runs"][0]["results"][0]["partialFingerprints"]["primaryLocationLineHash"].clone()
    };
    assert_eq!(
        print("./uploads/employees.csv"),
        print("uploads/employees.csv")
    );
}
