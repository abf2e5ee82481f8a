//! ZIP bundles and references. The archives are built here, with the `zip`
//! writer, into a temporary directory: no binary fixtures in the repository.

use bdxlint::bundle::{check_zip, Kind, Limits};
use bdxlint::check::refs::{self, Keys};
use bdxlint::check::{FileReport, Options};
use bdxlint::diagnostic::Severity;
use bdxlint::rules;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use zip::write::SimpleFileOptions;

const ENTITIES: &str = "App,Name,Entity Type,Source System,Source ID,Source Type,Metadata Version,Metadata\n\
github,ada,identity,github,583231,user,,\n\
github,admins,connection,github,team-admins,team,,\n\
okta,platform-admin,role,okta,role-admin,role,v1,\"{\"\"description\"\":\"\"Admins\"\",\"\"integrations\"\":[\"\"okta/0b6c1e2a\"\"]}\"\n";

const RELATIONS: &str = "App,Parent Entity Source ID,Parent Entity Type,Entity Source ID,Entity Type,Source System,Metadata Version,Metadata\n\
github,583231,identity,team-admins,connection,github,,\n";

const RBAC: &str = "Parent Entity Integration ID,Parent Entity Source ID,Parent Entity Type,Entity Integration ID,Entity Source ID,Entity Type,Source System,Metadata Version,Metadata\n\
okta/0b6c1e2a,role-admin,role,github/int-0001,team-admins,connection,okta,,\n";

fn zip_of(dir: &Path, name: &str, members: &[(&str, &[u8])]) -> PathBuf {
    let path = dir.join(name);
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

fn opts() -> Options {
    Options {
        snippets: false,
        ..Options::default()
    }
}

fn check(path: &Path, kind: Option<Kind>, limits: &Limits) -> Vec<FileReport> {
    check_zip(path, kind, &opts(), limits, None, None).expect("checks")
}

/// A bundle checked as one run with `--entities` and employees CSV files
/// checks it.
fn check_with(path: &Path, external: Option<&Keys>, employees: Option<&Keys>) -> Vec<FileReport> {
    check_zip(path, None, &opts(), &Limits::default(), external, employees).expect("checks")
}

/// The Work Emails of an employees CSV, as a run that holds bundles
/// loads them.
fn employees(csv: &str) -> Keys {
    let mut keys = Keys::default();
    let referring = refs::formats_checked_after();
    let read = refs::collect_run_file(
        csv.as_bytes(),
        &opts(),
        "employees.csv",
        "employees",
        &referring,
        &mut keys,
    )
    .expect("reads");
    assert!(read);
    keys
}

/// An entity RBAC relation from role `role-admin` to an employee, by e-mail.
const RBAC_EMPLOYEE: &str =
    "okta/0b6c1e2a,role-admin,role,,ada.lovelace@example.com,Employee,okta,,\n";

const EMPLOYEES: &str =
    "Full Name,Work Email,Start Date\nAda Lovelace,Ada.Lovelace@Example.com ,03/07/2024\n";

/// (member, code, line, col) of every finding.
fn findings(reports: &[FileReport]) -> Vec<(String, &'static str, u64, u64)> {
    reports
        .iter()
        .flat_map(|r| {
            r.diagnostics.iter().map(move |d| {
                (
                    r.member.clone().unwrap_or_default(),
                    d.rule.code,
                    d.line,
                    d.col,
                )
            })
        })
        .collect()
}

fn codes(reports: &[FileReport]) -> BTreeSet<&'static str> {
    findings(reports).into_iter().map(|f| f.1).collect()
}

#[test]
fn clean_bundles_of_both_kinds_are_detected_and_clean() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bulk = zip_of(
        dir.path(),
        "bulk.zip",
        &[
            ("a.csv", ENTITIES.as_bytes()),
            ("b.csv", RELATIONS.as_bytes()),
        ],
    );
    let reps = check(&bulk, None, &Limits::default());
    assert_eq!(reps[0].format, Some("entities-bulk"));
    assert_eq!(findings(&reps), vec![]);
    let rbac = zip_of(
        dir.path(),
        "rbac.zip",
        &[("x.csv", RBAC.as_bytes()), ("y.csv", ENTITIES.as_bytes())],
    );
    let reps = check(&rbac, None, &Limits::default());
    assert_eq!(reps[0].format, Some("entity-rbac"));
    assert_eq!(findings(&reps), vec![]);
}

#[test]
fn each_bundle_rule_fires() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let lim = Limits::default();
    let mut fired = BTreeSet::new();

    zip_of(
        d,
        "bulk-clean.zip",
        &[
            ("e.csv", ENTITIES.as_bytes()),
            ("r.csv", RELATIONS.as_bytes()),
        ],
    );
    let missing = zip_of(d, "missing.zip", &[("e.csv", ENTITIES.as_bytes())]);
    let reps = check(&missing, Some(Kind::EntitiesBulk), &lim);
    assert_eq!(findings(&reps), vec![("".into(), "B001", 1, 1)]);
    fired.extend(codes(&reps));

    let unknown = zip_of(
        d,
        "unknown.zip",
        &[
            ("e.csv", ENTITIES.as_bytes()),
            ("r.csv", RELATIONS.as_bytes()),
            ("notes.txt", b"hello"),
            ("emp.csv", b"Employee ID,Email\n1,a@b.c\n"),
        ],
    );
    let reps = check(&unknown, None, &lim);
    assert_eq!(
        findings(&reps),
        vec![("".into(), "B002", 1, 1), ("".into(), "B002", 1, 1)]
    );
    fired.extend(codes(&reps));

    // What macOS Finder and Windows Explorer add: one warning, no member.
    let apple_double = b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        ";
    let junk = zip_of(
        d,
        "finder.zip",
        &[
            ("e.csv", ENTITIES.as_bytes()),
            ("r.csv", RELATIONS.as_bytes()),
            ("__MACOSX/._r.csv", apple_double),
            ("__MACOSX/._e.csv", apple_double),
            (".DS_Store", b"\x00\x00\x00\x01Bud1\x00\x00"),
            ("sub/Thumbs.db", b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1"),
            // Known by its bytes alone.
            ("copy.csv", apple_double),
        ],
    );
    let reps = check(&junk, None, &lim);
    assert_eq!(findings(&reps), vec![("".into(), "B015", 1, 1)]);
    let d015 = &reps[0].diagnostics[0];
    // A file the platform does not expect in the ZIP, as B002 is.
    assert_eq!(d015.severity, Severity::Error);
    assert_eq!(
        d015.message,
        "the archive holds 5 files the operating system added, not part of the bundle: `__MACOSX/._r.csv`, `__MACOSX/._e.csv`, `.DS_Store`, `sub/Thumbs.db`, `copy.csv`"
    );
    assert_eq!(
        d015.help.as_deref(),
        Some("remove them: `zip -d 'finder.zip' '__MACOSX/*' '*.DS_Store' '*Thumbs.db' 'copy.csv'` (bdxlint ignores them)")
    );
    fired.extend(codes(&reps));

    let dup = zip_of(
        d,
        "dup.zip",
        &[
            ("e.csv", ENTITIES.as_bytes()),
            ("e2.csv", ENTITIES.as_bytes()),
            ("r.csv", RELATIONS.as_bytes()),
        ],
    );
    let reps = check(&dup, None, &lim);
    assert!(codes(&reps).contains("B003"), "{:?}", findings(&reps));
    fired.extend(codes(&reps));

    let csv = d.join("relations.csv");
    std::fs::write(&csv, RBAC).expect("write csv");
    let reps = check(&csv, Some(Kind::EntityRbac), &lim);
    assert_eq!(findings(&reps), vec![("".into(), "B004", 1, 1)]);
    fired.extend(codes(&reps));

    let dangling = RELATIONS.replace("team-admins", "team-nobody");
    let bulk = zip_of(
        d,
        "dangling.zip",
        &[
            ("e.csv", ENTITIES.as_bytes()),
            ("r.csv", dangling.as_bytes()),
        ],
    );
    let reps = check(&bulk, None, &lim);
    // Line 2, the cell after `github,583231,identity,`.
    assert_eq!(findings(&reps), vec![("r.csv".into(), "B006", 2, 24)]);
    fired.extend(codes(&reps));

    let undefined = RBAC.replace("role-admin", "role-nobody");
    let rbac = zip_of(
        d,
        "undefined.zip",
        &[
            ("e.csv", ENTITIES.as_bytes()),
            ("r.csv", undefined.as_bytes()),
        ],
    );
    let reps = check(&rbac, None, &lim);
    assert_eq!(findings(&reps), vec![("r.csv".into(), "B007", 2, 15)]);
    fired.extend(codes(&reps));

    // A connection the bundle does not define may exist from an earlier
    // sync: left to --entities, and said so once.
    let elsewhere = RBAC.replace("team-admins", "team-synced");
    let rbac = zip_of(
        d,
        "elsewhere.zip",
        &[
            ("e.csv", ENTITIES.as_bytes()),
            ("r.csv", elsewhere.as_bytes()),
        ],
    );
    let reps = check(&rbac, None, &lim);
    assert_eq!(findings(&reps), vec![("r.csv".into(), "B010", 1, 1)]);
    fired.extend(codes(&reps));

    // An employee the run's employees CSV does not list.
    let rel = format!("{RBAC}{RBAC_EMPLOYEE}");
    let rbac = zip_of(
        d,
        "employee.zip",
        &[("e.csv", ENTITIES.as_bytes()), ("r.csv", rel.as_bytes())],
    );
    let others = employees("Full Name,Work Email,Start Date\nGrace,grace@example.com,03/07/2024\n");
    let reps = check_with(&rbac, None, Some(&others));
    assert_eq!(findings(&reps), vec![("r.csv".into(), "B014", 3, 32)]);
    fired.extend(codes(&reps));

    // A local entry the central directory does not list, before the rest.
    let lone = zip_of(d, "lone.zip", &[("x.csv", RELATIONS.as_bytes())]);
    let lone = std::fs::read(&lone).expect("zip");
    let bulk = std::fs::read(d.join("bulk-clean.zip")).expect("zip");
    let hidden = d.join("hidden.zip");
    std::fs::write(
        &hidden,
        [&lone[..central_headers(&lone)[0]], &bulk].concat(),
    )
    .expect("write");
    let reps = check(&hidden, None, &lim);
    assert_eq!(findings(&reps), vec![("".into(), "B016", 1, 1)]);
    fired.extend(codes(&reps));

    fired.extend(refused_cases(d));

    // The batch rules (references across the files of one run) are
    // asserted by tests/it/fixtures.rs on testdata/batch/.
    let b_rules: BTreeSet<&str> = rules::ALL
        .iter()
        .filter(|r| !bdxlint::check::batch::RULES.contains(r))
        .map(|r| r.code)
        .filter(|c| c.starts_with('B'))
        .collect();
    let missing: Vec<_> = b_rules.difference(&fired).collect();
    assert!(missing.is_empty(), "B rules never fired: {missing:?}");
}

/// Hostile archives: every case is a B005 finding, never a panic or error.
fn refused_cases(d: &Path) -> BTreeSet<&'static str> {
    let mut fired = BTreeSet::new();
    let refused = |reps: &[FileReport], what: &str| {
        let f = findings(reps);
        assert!(f.iter().any(|x| x.1 == "B005"), "{what}: no B005 in {f:?}");
    };
    // A zip bomb: an entities header, then 8 MB of zeros (~8 KB deflated).
    let mut zeros = ENTITIES.as_bytes().to_vec();
    zeros.resize(8 << 20, b'0');
    let bomb = zip_of(
        d,
        "bomb.zip",
        &[("e.csv", zeros.as_slice()), ("r.csv", RELATIONS.as_bytes())],
    );
    assert!(std::fs::metadata(&bomb).expect("bomb").len() < 1 << 20);
    let reps = check(&bomb, Some(Kind::EntitiesBulk), &Limits::default());
    refused(&reps, "bomb");
    fired.extend(codes(&reps));
    // The member-size limit, counted while reading.
    let small = Limits {
        max_member: 100,
        ..Limits::default()
    };
    let big = zip_of(
        d,
        "big.zip",
        &[
            ("e.csv", ENTITIES.as_bytes()),
            ("r.csv", RELATIONS.as_bytes()),
        ],
    );
    refused(&check(&big, None, &small), "member size");
    let small_total = Limits {
        max_total: 300,
        ..Limits::default()
    };
    refused(&check(&big, None, &small_total), "total size");

    // Truncated: the central directory is cut off.
    let bytes = std::fs::read(&big).expect("read zip");
    let cut = d.join("cut.zip");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).expect("write");
    refused(&check(&cut, None, &Limits::default()), "truncated");

    // Encrypted: set bit 0 of the general purpose flags in every local
    // (PK\3\4, flags at +6) and central (PK\1\2, flags at +8) header.
    let mut enc = bytes.clone();
    for i in 0..enc.len().saturating_sub(4) {
        if enc[i..].starts_with(b"PK\x03\x04") {
            enc[i + 6] |= 1;
        } else if enc[i..].starts_with(b"PK\x01\x02") {
            enc[i + 8] |= 1;
        }
    }
    let encp = d.join("enc.zip");
    std::fs::write(&encp, &enc).expect("write");
    refused(&check(&encp, None, &Limits::default()), "encrypted");

    // Nested: an archive inside, by name or by content.
    let nested = zip_of(
        d,
        "nested.zip",
        &[
            ("e.csv", ENTITIES.as_bytes()),
            ("r.csv", RELATIONS.as_bytes()),
            ("inner.zip", &bytes),
        ],
    );
    refused(&check(&nested, None, &Limits::default()), "nested by name");
    let disguised = zip_of(
        d,
        "disguised.zip",
        &[("e.csv", bytes.as_slice()), ("r.csv", RELATIONS.as_bytes())],
    );
    refused(
        &check(&disguised, Some(Kind::EntitiesBulk), &Limits::default()),
        "nested by content",
    );
    fired
}

#[test]
fn role_integrations_are_checked_inside_a_bundle() {
    // J004 (json-invalid-value) / C010 (invalid-integration-ref) already
    // enforce `<app>/<integration_id>`; this confirms they run on members.
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = ENTITIES.replace("okta/0b6c1e2a", "0b6c1e2a");
    // The parent's Integration ID is shaped `<app>/<integration_id>`; the
    // child's has no stated shape.
    let bad_rbac = RBAC.replacen("okta/0b6c1e2a", "0b6c1e2a", 1);
    let z = zip_of(
        dir.path(),
        "ints.zip",
        &[("e.csv", bad.as_bytes()), ("r.csv", bad_rbac.as_bytes())],
    );
    let c = codes(&check(&z, None, &Limits::default()));
    assert!(c.contains("J004") && c.contains("C010"), "{c:?}");
}

#[test]
fn a_member_cut_by_the_size_guard_keeps_the_findings_before_the_cut() {
    // Line 2 lacks its Name (C001); later rows quote theirs, so a cut
    // inside one leaves an open quote that must not become a finding.
    let mut entities = ENTITIES.lines().next().expect("header").to_owned() + "\n";
    entities.push_str("github,,identity,github,583232,user,,\n");
    let mut row_starts = Vec::new();
    for n in 0..20 {
        row_starts.push(entities.len());
        entities.push_str(&format!(
            "github,\"user, number {n}\",identity,github,u-{n},user,,\n"
        ));
    }
    // Inside the quoted Name of the 11th row.
    let cut_row = row_starts[10];
    let limit = (cut_row + 10) as u64;
    let dir = tempfile::tempdir().expect("tempdir");
    let z = zip_of(
        dir.path(),
        "cut.zip",
        &[
            ("e.csv", entities.as_bytes()),
            ("r.csv", RELATIONS.as_bytes()),
        ],
    );
    let small = Limits {
        max_member: limit,
        ..Limits::default()
    };
    let reps = check(&z, None, &small);
    // The refusal belongs to the member it cut (the archive's own report
    // is out before any member is read, when the archive streams).
    assert_eq!(
        findings(&reps),
        vec![
            ("e.csv".into(), "B005", 1, 1),
            ("e.csv".into(), "C001", 2, 8)
        ]
    );
    let refusal = &reps[1].diagnostics[0].message;
    assert!(
        refusal.contains("--max-member-size")
            && refusal.contains(&format!("only its first {cut_row} bytes were checked")),
        "{refusal}"
    );
    // The member the limit did not reach is checked whole; the references
    // are not checked against entities read in part.
    let members: Vec<(&str, u64)> = reps[1..]
        .iter()
        .map(|r| (r.member.as_deref().unwrap_or(""), r.records))
        .collect();
    assert_eq!(members, [("e.csv", 11), ("r.csv", 1)]);
}

fn bdxlint() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("bdxlint").expect("binary builds");
    c.env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR");
    c
}

/// Runs `bdxlint check` in `dir`; returns stdout, asserting the exit code.
fn run_in(dir: &Path, args: &[&str], code: i32) -> String {
    let out = bdxlint()
        .current_dir(dir)
        .arg("check")
        .args(args)
        .assert()
        .code(code)
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).expect("utf-8")
}

#[test]
fn the_binary_exits_0_on_a_valid_bundle_1_on_findings_and_2_when_it_cannot_read_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    zip_of(
        d,
        "valid.zip",
        &[
            ("e.csv", ENTITIES.as_bytes()),
            ("r.csv", RELATIONS.as_bytes()),
        ],
    );
    assert_eq!(
        run_in(d, &["--output-format", "concise", "valid.zip"], 0),
        ""
    );
    // A role the bundle does not define is a warning: still exit 0.
    let undefined = RBAC.replace("role-admin", "role-nobody");
    zip_of(
        d,
        "warn.zip",
        &[
            ("e.csv", ENTITIES.as_bytes()),
            ("r.csv", undefined.as_bytes()),
        ],
    );
    assert!(run_in(d, &["--output-format", "concise", "warn.zip"], 0)
        .starts_with("warn.zip:r.csv:2:15: B007 [warning]"));
    let dangling = RELATIONS.replace("team-admins", "team-nobody");
    zip_of(
        d,
        "dangling.zip",
        &[
            ("e.csv", ENTITIES.as_bytes()),
            ("r.csv", dangling.as_bytes()),
        ],
    );
    run_in(d, &["dangling.zip"], 1);
    // A hostile or corrupt archive is a finding about it (B005), not a
    // failure of the run.
    let bytes = std::fs::read(d.join("valid.zip")).expect("read zip");
    std::fs::write(d.join("cut.zip"), &bytes[..bytes.len() / 2]).expect("write");
    assert!(run_in(d, &["--output-format", "concise", "cut.zip"], 1)
        .starts_with("cut.zip:1:1: B005 [error] the archive cannot be read"));
    // An archive that is not there cannot be checked at all.
    bdxlint()
        .current_dir(d)
        .args(["check", "nope.zip"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("nope.zip"));
    // --format entity-rbac on standard input: bundles need a file.
    bdxlint()
        .current_dir(d)
        .args(["check", "--format", "entity-rbac", "-"])
        .write_stdin(RBAC)
        .assert()
        .code(2);
}

#[test]
fn findings_inside_a_member_name_the_archive_and_the_member() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let dangling = RELATIONS.replace("team-admins", "team-nobody");
    zip_of(
        d,
        "bundle.zip",
        &[
            ("entities.csv", ENTITIES.as_bytes()),
            ("relations.csv", dangling.as_bytes()),
        ],
    );
    let concise = run_in(d, &["--output-format", "concise", "bundle.zip"], 1);
    assert_eq!(
        concise,
        "bundle.zip:relations.csv:2:24: B006 [error] connection `team-nobody` is not defined by the bundle's entities CSV\n"
    );
    let human = run_in(d, &["--color", "never", "bundle.zip"], 1);
    insta::assert_snapshot!(human);
    let json: serde_json::Value =
        serde_json::from_str(&run_in(d, &["--output-format", "json", "bundle.zip"], 1))
            .expect("one JSON document");
    let files = json["files"].as_array().expect("files");
    let diags: Vec<&serde_json::Value> = files
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().expect("diagnostics"))
        .collect();
    assert_eq!(diags.len(), 1, "{json}");
    assert_eq!(diags[0]["member"], "relations.csv");
    assert_eq!(diags[0]["code"], "B006");
    assert_eq!(
        (&diags[0]["line"], &diags[0]["col"]),
        (&2.into(), &24.into())
    );
    assert!(files.iter().all(|f| f["path"] == "bundle.zip"), "{json}");
    // The span is relative to the member.
    let (a, b) = (
        diags[0]["span"]["start"].as_u64().expect("start") as usize,
        diags[0]["span"]["end"].as_u64().expect("end") as usize,
    );
    assert_eq!(&dangling[a..b], "team-nobody");
}

#[test]
fn employee_ends_are_checked_against_the_run_s_employees_never_against_entities() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lim = Limits::default();
    let rel = format!("{RBAC}{RBAC_EMPLOYEE}");
    let z = zip_of(
        dir.path(),
        "rbac.zip",
        &[("e.csv", ENTITIES.as_bytes()), ("r.csv", rel.as_bytes())],
    );
    let diags = |reps: &[FileReport]| -> Vec<(&'static str, Severity, u64, u64, String)> {
        reps.iter()
            .flat_map(|r| &r.diagnostics)
            .map(|d| (d.rule.code, d.severity, d.line, d.col, d.message.clone()))
            .collect()
    };
    let unchecked = (
        "B010",
        Severity::Info,
        1,
        1,
        "the 1 employee end of this relations file (Entity Type `employee`) was not checked: employees come from the employees upload, and this run has no employees CSV".to_owned(),
    );
    // No employees CSV in the run: not a dangling entity, one info.
    assert_eq!(diags(&check(&z, None, &lim)), vec![unchecked.clone()]);
    // Entities from --entities that lack the employee change nothing.
    let mut external = Keys::default();
    refs::collect_entities(ENTITIES.as_bytes(), &opts(), &mut external).expect("reads");
    assert_eq!(
        diags(&check_with(&z, Some(&external), None)),
        vec![unchecked]
    );
    // Listed by Work Email (trimmed, another case): nothing to say.
    let listed = employees(EMPLOYEES);
    assert_eq!(listed.len(), 1);
    assert_eq!(
        diags(&check_with(&z, Some(&external), Some(&listed))),
        vec![]
    );
    // Not listed: a warning on the Source ID cell (the employee may be on
    // the platform already).
    let other = employees("Full Name,Work Email,Start Date\nGrace,grace@example.com,03/07/2024\n");
    let reps = check_with(&z, None, Some(&other));
    assert_eq!(
        diags(&reps),
        vec![(
            "B014",
            Severity::Warning,
            3,
            32,
            "employee `ada.lovelace@example.com` is not a Work Email of the run's employees CSV"
                .to_owned()
        )]
    );
    let d = &reps
        .iter()
        .flat_map(|r| &r.diagnostics)
        .next()
        .expect("one")
        .span;
    assert_eq!(
        &rel[d.start as usize..d.end as usize],
        "ada.lovelace@example.com"
    );
}

/// The offset of the end-of-central-directory record of `zip` (the last
/// signature: the tests' archives have no comment holding one).
fn eocd(zip: &[u8]) -> usize {
    zip.windows(4)
        .rposition(|w| w == b"PK\x05\x06")
        .expect("an end record")
}

/// Offsets of the central directory headers of `zip`.
fn central_headers(zip: &[u8]) -> Vec<usize> {
    zip.windows(4)
        .enumerate()
        .filter(|(_, w)| *w == b"PK\x01\x02")
        .map(|(i, _)| i)
        .collect()
}

/// An archive of `members`, built by the zip writer, then `s.csv`
/// renamed `r.csv` and `t.csv` renamed `e.csv` in their local headers and
/// the central directory (same length: the offsets stay right). `zip64` writes ZIP64 end records and
/// points the classic one at them, as archivers do past 65,535 entries.
fn renamed(dir: &Path, name: &str, members: &[(&str, &[u8])], zip64: bool) -> Vec<u8> {
    let path = dir.join(name);
    let mut w = zip::ZipWriter::new(std::fs::File::create(&path).expect("create"));
    if zip64 {
        w.set_zip64_comment(Some("zip64"));
    }
    let opts = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (n, data) in members {
        w.start_file(*n, opts).expect("start member");
        w.write_all(data).expect("write member");
    }
    w.finish().expect("finish zip");
    let mut out = std::fs::read(&path).expect("zip");
    for i in 0..out.len().saturating_sub(5) {
        match &out[i..i + 5] {
            b"s.csv" => out[i] = b'r',
            b"t.csv" => out[i] = b'e',
            _ => {}
        }
    }
    if zip64 {
        let at = eocd(&out);
        assert!(
            out[..at].windows(4).any(|w| w == b"PK\x06\x06"),
            "a ZIP64 record"
        );
        // Entry counts 0xFFFF, directory offset 0xFFFFFFFF: "see ZIP64".
        out[at + 8..at + 12].fill(0xFF);
        out[at + 16..at + 20].fill(0xFF);
    }
    out
}

/// Two members of one name: the archive reader keeps one entry per name,
/// so the first would never be checked and a bad file could hide behind a
/// good one. The archive is refused instead, with each name that entries
/// share, whatever the end record looks like: bytes after it, or ZIP64
/// records (the central directory is walked, not counted from the record).
#[test]
fn members_that_share_a_name_are_refused_not_hidden() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = RELATIONS.replace("team-admins", "");
    let members: &[(&str, &[u8])] = &[
        ("e.csv", ENTITIES.as_bytes()),
        ("r.csv", bad.as_bytes()),
        ("s.csv", RELATIONS.as_bytes()),
    ];
    let plain = renamed(dir.path(), "plain.zip", members, false);
    let mut trailing = plain.clone();
    trailing.extend_from_slice(b"trailing bytes after the end record\n");
    let zip64 = renamed(dir.path(), "zip64.zip", members, true);
    let mut zip64_trailing = zip64.clone();
    zip64_trailing.extend_from_slice(&[0u8; 100]);
    for (name, bytes) in [
        ("plain.zip", plain),
        ("trailing.zip", trailing),
        ("zip64.zip", zip64),
        ("zip64-trailing.zip", zip64_trailing),
    ] {
        let z = dir.path().join(name);
        std::fs::write(&z, &bytes).expect("write");
        // The archive reader opens it, and lists one entry of two.
        let zip = zip::ZipArchive::new(std::fs::File::open(&z).expect("open")).expect("reads");
        assert_eq!(zip.len(), 2, "{name}");
        let reps = check(&z, None, &Limits::default());
        assert_eq!(
            findings(&reps),
            vec![("".into(), "B005", 1, 1)],
            "{name}: {reps:?}"
        );
        assert_eq!(
            reps[0].diagnostics[0].message,
            "2 entries of the central directory are named `r.csv` (#2, #3): the archive reader keeps only the last, so the others would never be checked",
            "{name}"
        );
    }
    // Every name that entries share is said.
    let many = renamed(
        dir.path(),
        "many.zip",
        &[
            ("e.csv", ENTITIES.as_bytes()),
            ("r.csv", bad.as_bytes()),
            ("s.csv", RELATIONS.as_bytes()),
            ("t.csv", ENTITIES.as_bytes()),
        ],
        false,
    );
    let z = dir.path().join("many.zip");
    std::fs::write(&z, &many).expect("write");
    let reps = check(&z, None, &Limits::default());
    let messages: Vec<&str> = reps[0]
        .diagnostics
        .iter()
        .map(|d| d.message.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(
        messages,
        [
            "2 entries of the central directory are named `e.csv` (#1, #4)",
            "2 entries of the central directory are named `r.csv` (#2, #3)"
        ],
        "{reps:?}"
    );
    // An entry whose local header is broken is not hidden by a name: it
    // is a member that cannot be read.
    let broken = zip_of(
        dir.path(),
        "broken.zip",
        &[
            ("e.csv", ENTITIES.as_bytes()),
            ("x.csv", b"x"),
            ("r.csv", RELATIONS.as_bytes()),
        ],
    );
    let mut bytes = std::fs::read(&broken).expect("zip");
    let second = bytes
        .windows(4)
        .enumerate()
        .filter(|(_, w)| *w == b"PK\x03\x04")
        .map(|(i, _)| i)
        .nth(1)
        .expect("a second local header");
    bytes[second + 3] = 5;
    std::fs::write(&broken, &bytes).expect("write");
    let reps = check(&broken, None, &Limits::default());
    let messages: Vec<&str> = reps[0]
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert!(
        messages.len() == 1 && messages[0].starts_with("member #1 cannot be read"),
        "{messages:?}"
    );
}

/// `zip` without the central directory record of member `name`: its local
/// entry stays where it is, and the end record counts one entry fewer.
fn unlist(zip: &[u8], name: &str) -> Vec<u8> {
    let len = |b: &[u8], i: usize| usize::from(u16::from_le_bytes([b[i], b[i + 1]]));
    let at = central_headers(zip)
        .into_iter()
        .find(|&h| &zip[h + 46..h + 46 + len(zip, h + 28)] == name.as_bytes())
        .expect("a record of the name");
    let size = 46 + len(zip, at + 28) + len(zip, at + 30) + len(zip, at + 32);
    let mut out = [&zip[..at], &zip[at + size..]].concat();
    let end = eocd(&out);
    for field in [end + 8, end + 10] {
        let n = u16::from_le_bytes([out[field], out[field + 1]]) - 1;
        out[field..field + 2].copy_from_slice(&n.to_le_bytes());
    }
    let cd = u32::from_le_bytes(out[end + 12..end + 16].try_into().expect("4 bytes"));
    out[end + 12..end + 16].copy_from_slice(&(cd - size as u32).to_le_bytes());
    out
}

/// A local entry the central directory does not list is never checked by
/// bdxlint, which reads the directory, while a reader that streams the
/// archive takes it for a member: the two read different bundles. One
/// warning says so, naming the entries; the listed members are checked as
/// before. So do directory records past the end record's count.
#[test]
fn entries_one_reader_sees_and_another_does_not_are_warned() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let bad = RELATIONS.replace("team-admins", "");
    let hidden_codes = |reps: &[FileReport]| -> Vec<(String, &'static str)> {
        findings(reps).into_iter().map(|f| (f.0, f.1)).collect()
    };
    // In the middle: between the listed members.
    let z = zip_of(
        d,
        "middle.zip",
        &[
            ("e.csv", ENTITIES.as_bytes()),
            ("x.csv", bad.as_bytes()),
            ("r.csv", RELATIONS.as_bytes()),
        ],
    );
    let bytes = std::fs::read(&z).expect("zip");
    let at = bytes
        .windows(4)
        .enumerate()
        .filter(|(_, w)| *w == b"PK\x03\x04")
        .map(|(i, _)| i)
        .nth(1)
        .expect("the second local header");
    std::fs::write(&z, unlist(&bytes, "x.csv")).expect("write");
    let reps = check(&z, None, &Limits::default());
    assert_eq!(hidden_codes(&reps), vec![("".into(), "B016")], "{reps:?}");
    let d16 = &reps[0].diagnostics[0];
    assert_eq!(d16.severity, Severity::Warning);
    assert_eq!(
        d16.message,
        format!("the archive holds 1 local entry its central directory does not list, which a reader that streams the archive takes for members and bdxlint never checks: `x.csv` at byte {at}")
    );
    assert_eq!(reps.len(), 3, "both listed members are checked");

    // Before the archive: a streaming reader meets it first.
    let lone = zip_of(d, "lone.zip", &[("x.csv", bad.as_bytes())]);
    let lone = std::fs::read(&lone).expect("zip");
    let local = &lone[..central_headers(&lone)[0]];
    let valid = zip_of(
        d,
        "valid.zip",
        &[
            ("e.csv", ENTITIES.as_bytes()),
            ("r.csv", RELATIONS.as_bytes()),
        ],
    );
    let prepended = [local, &std::fs::read(&valid).expect("zip")].concat();
    let z = d.join("prepended.zip");
    std::fs::write(&z, prepended).expect("write");
    let reps = check(&z, None, &Limits::default());
    assert_eq!(hidden_codes(&reps), vec![("".into(), "B016")], "{reps:?}");
    assert!(
        reps[0].diagnostics[0]
            .message
            .ends_with("`x.csv` at byte 0"),
        "{reps:?}"
    );

    // A directory record past the count of the end record.
    let mut short = std::fs::read(&valid).expect("zip");
    let end = eocd(&short);
    short[end + 8] -= 1;
    short[end + 10] -= 1;
    let z = d.join("uncounted.zip");
    std::fs::write(&z, &short).expect("write");
    let reps = check(&z, None, &Limits::default());
    let messages: Vec<(&str, &str)> = reps[0]
        .diagnostics
        .iter()
        .map(|d| (d.rule.code, d.message.as_str()))
        .collect();
    assert!(
        messages.contains(&("B016", "the central directory holds 1 entry past the count of its end record, which bdxlint does not read but a reader that walks the directory does: `r.csv` (#2)")),
        "{messages:?}"
    );
    assert!(messages.iter().any(|m| m.0 == "B001"), "{messages:?}");

    // Nothing of the kind in an archive as archivers write it, data
    // descriptors and all.
    let reps = check(&valid, None, &Limits::default());
    assert_eq!(findings(&reps), vec![]);
}

/// Entries that share compressed bytes (a central directory pointing many
/// entries at one member) let a small archive inflate without bound: the
/// archive is refused.
#[test]
fn overlapping_entries_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let z = zip_of(
        dir.path(),
        "overlap.zip",
        &[
            ("e.csv", ENTITIES.as_bytes()),
            ("r.csv", RELATIONS.as_bytes()),
        ],
    );
    let mut bytes = std::fs::read(&z).expect("zip");
    // Point the second central-directory record at the first member's
    // local header (its offset field is 42 bytes into the record).
    let records: Vec<usize> = bytes
        .windows(4)
        .enumerate()
        .filter(|(_, w)| *w == b"PK\x01\x02")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(records.len(), 2);
    let first: [u8; 4] = bytes[records[0] + 42..records[0] + 46]
        .try_into()
        .expect("4 bytes");
    bytes[records[1] + 42..records[1] + 46].copy_from_slice(&first);
    std::fs::write(&z, &bytes).expect("write");
    let reps = check(&z, None, &Limits::default());
    assert!(codes(&reps).contains("B005"), "{reps:?}");
    assert!(
        reps[0].diagnostics[0].message.contains("overlap"),
        "{}",
        reps[0].diagnostics[0].message
    );
}

/// Checks `path` with the binary under the address-space bound the README
/// states (256 MiB, as `tests/it/memory.rs` measures it): it must end with
/// its verdict, not be killed.
fn bounded(path: &Path) {
    if !cfg!(target_os = "linux") {
        return;
    }
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg("ulimit -v 262144; exec \"$0\" check --threads 2 --quiet \"$1\"")
        .arg(assert_cmd::cargo::cargo_bin("bdxlint"))
        .arg(path)
        .env("MALLOC_ARENA_MAX", "2")
        .output()
        .expect("bash runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Archives of 100,000 entries are read in time linear in their bytes,
/// whatever they hold: members each followed by a data descriptor (a
/// gap to search after every one), one member's bytes named by every entry
/// (an overlap bomb), one name shared by every entry; and in bounded
/// memory.
#[test]
#[ignore = "scale: minutes unoptimised; .ci/run runs it in release"]
fn archives_of_a_hundred_thousand_entries_stay_linear() {
    const N: usize = 100_000;
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let timed = |path: &Path| {
        let t = std::time::Instant::now();
        let reps = check(path, None, &Limits::default());
        let took = t.elapsed();
        // Seconds on a loaded two-core machine; a walk quadratic in the
        // entries takes hours.
        assert!(took.as_secs() < 20, "{}: {took:?}", path.display());
        bounded(path);
        reps
    };

    // Streamed: every member's sizes follow its data.
    let many = d.join("many.zip");
    let mut w = zip::ZipWriter::new_stream(std::fs::File::create(&many).expect("create"));
    w.start_file("e.csv", stored).expect("member");
    w.write_all(ENTITIES.as_bytes()).expect("write");
    w.start_file("r.csv", stored).expect("member");
    w.write_all(RELATIONS.as_bytes()).expect("write");
    for i in 0..N {
        w.start_file(format!("__MACOSX/._{i:06}"), stored)
            .expect("member");
        w.write_all(b"\x00\x05\x16\x07").expect("write");
    }
    w.finish().expect("zip");
    let reps = timed(&many);
    assert_eq!(findings(&reps), vec![("".into(), "B015", 1, 1)]);
    assert!(
        reps[0].diagnostics[0]
            .message
            .starts_with(&format!("the archive holds {N} files")),
        "{}",
        reps[0].diagnostics[0].message
    );

    // Every entry names the first member's bytes.
    let bomb = d.join("bomb.zip");
    let mut w = zip::ZipWriter::new(std::fs::File::create(&bomb).expect("create"));
    w.start_file("e.csv", stored).expect("member");
    w.write_all(ENTITIES.as_bytes()).expect("write");
    for i in 0..N {
        w.shallow_copy_file("e.csv", &format!("{i:06}.csv"))
            .expect("copy");
    }
    w.finish().expect("zip");
    let reps = timed(&bomb);
    assert_eq!(findings(&reps), vec![("".into(), "B005", 1, 1)]);
    assert!(reps[0].diagnostics[0].message.contains("overlap"));

    // Every entry of one name: one finding, the first five numbers.
    let shared = d.join("shared.zip");
    let mut w = zip::ZipWriter::new(std::fs::File::create(&shared).expect("create"));
    for i in 0..N {
        w.start_file(format!("{i:06}.csv"), stored).expect("member");
        w.write_all(b"x").expect("write");
    }
    w.finish().expect("zip");
    let mut bytes = std::fs::read(&shared).expect("zip");
    for at in central_headers(&bytes) {
        bytes[at + 46..at + 52].copy_from_slice(b"000000");
    }
    std::fs::write(&shared, &bytes).expect("write");
    let reps = timed(&shared);
    assert_eq!(findings(&reps), vec![("".into(), "B005", 1, 1)]);
    assert_eq!(
        reps[0].diagnostics[0].message,
        format!("{N} entries of the central directory are named `000000.csv` (#1, #2, #3, #4, #5, and {} more): the archive reader keeps only the last, so the others would never be checked", N - 5)
    );
}
