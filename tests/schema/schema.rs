//! Output documents against their formats' own grammars: the SARIF log
//! against the official SARIF 2.1.0 schema, rdjsonl lines against
//! reviewdog's schema of a Diagnostic, JUnit output through an XML
//! parser. A package of its own (see its `Cargo.toml`): it runs the binary
//! the main package's tests built (`target/<profile>/bdxlint`, or the path
//! in `BDXLINT_BIN`), so run it after them, as `.ci/run` does.

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The main package's directory (this one is `tests/schema/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `bdxlint`, as the root's tests built it: beside this test's own
/// directory in the shared target directory (`target/debug/deps/schema-…`
/// runs `target/debug/bdxlint`).
fn bdxlint() -> Command {
    let bin = std::env::var_os("BDXLINT_BIN").map_or_else(
        || {
            let exe = std::env::current_exe().expect("the test's path");
            let profile = exe
                .parent()
                .and_then(Path::parent)
                .expect("target/<profile>/deps/");
            profile.join(format!("bdxlint{}", std::env::consts::EXE_SUFFIX))
        },
        PathBuf::from,
    );
    assert!(
        bin.is_file(),
        "{}: no binary; build it first (`cargo build`, or the root's `cargo test`)",
        bin.display()
    );
    let mut c = Command::new(bin);
    c.env_remove("NO_COLOR").env_remove("BDXLINT_OUTPUT_FORMAT");
    c
}

/// Runs `bdxlint check --output-format FORMAT testdata/example/` from the
/// package root (so paths are relative), as `tests/it/outputs.rs` does.
fn run(format: &str) -> (String, i32) {
    let out = bdxlint()
        .current_dir(root())
        .args(["check", "--output-format", format, "testdata/example/"])
        .output()
        .expect("runs");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    (stdout, out.status.code().expect("exit code"))
}

fn sarif_validator() -> jsonschema::Validator {
    // The published schema has a stray `]` in one pattern that the regex
    // engine rejects; this is the only change (tests/data/README.md).
    let raw = include_str!("../data/sarif-schema-2.1.0.json").replace(
        r#"^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$"#,
        r#"^[a-zA-Z]{2}(-[a-zA-Z]{2})?$"#,
    );
    let schema: Value = serde_json::from_str(&raw).expect("schema is JSON");
    // Formats too: `artifactLocation.uri` must be a URI reference.
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("schema compiles")
}

fn schema_errors(v: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    v.iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

#[test]
fn sarif_validates_against_the_official_schema() {
    let validator = sarif_validator();
    let (out, _) = run("sarif");
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    let errs = schema_errors(&validator, &doc);
    assert!(errs.is_empty(), "{errs:#?}");
    // The fixes are part of what is validated.
    let fixes = doc["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r.get("fixes").is_some())
        .count();
    assert!(fixes >= 2, "{fixes} results with fixes");
    let mut bad = doc.clone();
    let with_fix = doc["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .position(|r| r.get("fixes").is_some())
        .expect("a result with a fix");
    bad["runs"][0]["results"][with_fix]["fixes"][0]["artifactChanges"][0]["replacements"][0]
        ["deletedRegion"]["byteOffset"] = Value::from(-2);
    assert!(!schema_errors(&validator, &bad).is_empty());
    // The validator can fail: a level SARIF does not define is rejected.
    let mut bad = doc.clone();
    bad["runs"][0]["results"][0]["level"] = Value::from("fatal");
    assert!(!schema_errors(&validator, &bad).is_empty());
}

/// Paths are not URIs: a space, a `%` or a `:` in a file name (and a ZIP
/// member's `archive:member` path) must be percent-encoded, or the log is
/// invalid and code scanning cannot resolve the file. A clean run and a
/// file that could not be checked validate too.
#[test]
fn sarif_uris_are_percent_encoded_and_every_run_validates() {
    let validator = sarif_validator();
    let dir = tempfile::tempdir().expect("tempdir");
    let example = std::fs::read(root().join("testdata/example/employees.csv")).expect("fixture");
    std::fs::create_dir(dir.path().join("up loads")).expect("mkdir");
    std::fs::write(dir.path().join("up loads/100% é:1.csv"), &example).expect("write");
    let clean = std::fs::read(root().join("testdata/employees/valid.csv")).expect("fixture");
    std::fs::write(dir.path().join("clean.csv"), clean).expect("write");
    let sarif = |args: &[&str]| -> Value {
        let out = bdxlint()
            .current_dir(dir.path())
            .args(["check", "--isolated", "--output-format", "sarif"])
            .args(args)
            .output()
            .expect("runs");
        serde_json::from_slice(&out.stdout).expect("JSON")
    };
    let doc = sarif(&["./up loads/100% é:1.csv"]);
    let errs = schema_errors(&validator, &doc);
    assert!(errs.is_empty(), "{errs:#?}");
    let uri = &doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"];
    assert_eq!(uri, "up%20loads/100%25%20%C3%A9%3A1.csv");
    for args in [&["clean.csv"][..], &["missing file.csv"][..]] {
        let doc = sarif(args);
        let errs = schema_errors(&validator, &doc);
        assert!(errs.is_empty(), "{args:?}: {errs:#?}");
    }
    let doc = sarif(&["missing file.csv"]);
    let notes = &doc["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    assert_eq!(
        notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "missing%20file.csv"
    );
}

/// A clean file, a ZIP bundle with one finding in a member and a file that
/// does not exist, in one run: the log validates.
#[test]
fn sarif_of_a_clean_file_a_bundle_and_a_missing_file_validates() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = root();
    std::fs::copy(
        root.join("testdata/employees/valid.csv"),
        dir.path().join("clean.csv"),
    )
    .expect("copy");
    let entities = std::fs::read(root.join("testdata/entities/valid.csv")).expect("fixture");
    let relations = "Parent Entity Integration ID,Parent Entity Source ID,Parent Entity Type,Entity Integration ID,Entity Source ID,Entity Type,Source System,Metadata Version,Metadata\n\
        okta/0b6c1e2a,no-such-role,role,github/int-0001,no-such-team,connection,okta,,\n";
    let file = std::fs::File::create(dir.path().join("rbac.zip")).expect("zip");
    let mut w = zip::ZipWriter::new(file);
    let opts = zip::write::SimpleFileOptions::default();
    for (name, data) in [
        ("entities.csv", &entities[..]),
        ("relations.csv", relations.as_bytes()),
    ] {
        w.start_file(name, opts).expect("member");
        w.write_all(data).expect("write");
    }
    w.finish().expect("finish");
    let out = bdxlint()
        .current_dir(dir.path())
        .args(["check", "--isolated", "--output-format", "sarif"])
        .args(["clean.csv", "rbac.zip", "missing.csv"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let errs = schema_errors(&sarif_validator(), &v);
    assert!(errs.is_empty(), "{errs:#?}");
}

/// A cell with characters XML forbids (an escape, U+FFFE) in a file whose
/// name holds a line break: the JUnit report parses as XML, and what XML
/// forbids shows as an escape (`tests/it/cli.rs` holds the other formats
/// to the same).
#[cfg(unix)]
#[test]
fn junit_with_characters_xml_forbids_parses() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("evil\n::error title=pwned::x.csv");
    let cell = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m\u{FFFE}@nowhere";
    std::fs::write(
        &path,
        format!("Full Name,Work Email,Start Date\nAda,{cell},03/07/2024\n"),
    )
    .expect("write fixture");
    let out = bdxlint()
        .args(["check", "--format", "employees", "--output-format", "junit"])
        .arg(&path)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let xml = String::from_utf8(out.stdout).expect("utf-8");
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}: {xml}"));
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .expect("a failure");
    let message = failure.attribute("message").expect("message");
    assert!(
        message.contains("\\u{fffe}@nowhere") && !message.contains('\u{1b}'),
        "{message}"
    );
}

/// The example's JUnit report parses as XML, a testsuite per file.
#[test]
fn junit_of_the_example_parses() {
    let (xml, code) = run("junit");
    assert_eq!(code, 1);
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}: {xml}"));
    assert!(doc.root_element().has_tag_name("testsuites"), "{xml}");
    assert!(
        doc.descendants().any(|n| n.has_tag_name("failure")),
        "{xml}"
    );
}

/// Every key of `v` (recursively, through the schema's `$ref`s, items and
/// properties) is a property the schema defines: the schema allows any
/// other key, so a misspelt `suggestion` would validate and be ignored.
fn keys_defined(schema: &Value, node: &Value, v: &Value, at: &str, bad: &mut Vec<String>) {
    let node = match node.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.trim_start_matches("#/definitions/");
            &schema["definitions"][name]
        }
        None => node,
    };
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                match node["properties"].get(k) {
                    Some(p) => keys_defined(schema, p, child, &format!("{at}.{k}"), bad),
                    None => bad.push(format!("{at}.{k}")),
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                keys_defined(schema, &node["items"], child, &format!("{at}[{i}]"), bad);
            }
        }
        _ => {}
    }
}

/// rdjsonl lines against reviewdog's schema of a Diagnostic, the
/// suggestions of safe fixes included.
#[test]
fn rdjsonl_validates_against_reviewdogs_schema() {
    let schema: Value = serde_json::from_str(include_str!("../data/reviewdog-rdf-diagnostic.json"))
        .expect("schema is JSON");
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .build(&schema)
        .expect("schema compiles");
    let (out, code) = run("rdjsonl");
    assert_eq!(code, 1);
    let mut suggested = 0;
    for line in out.lines() {
        let d: Value = serde_json::from_str(line).expect("a JSON line");
        let errs = schema_errors(&validator, &d);
        assert!(errs.is_empty(), "{line}: {errs:#?}");
        let mut bad = Vec::new();
        keys_defined(
            &schema,
            &schema["definitions"]["Diagnostic"],
            &d,
            "",
            &mut bad,
        );
        assert!(
            bad.is_empty(),
            "{line}: keys the schema does not define: {bad:?}"
        );
        if let Some(s) = d["suggestions"].as_array() {
            assert!(!s.is_empty(), "{line}");
            suggested += 1;
        }
    }
    assert!(suggested >= 2, "{suggested} findings with suggestions");
    // The validator can fail: a severity reviewdog does not define.
    let mut d: Value = serde_json::from_str(out.lines().next().expect("a line")).expect("JSON");
    d["severity"] = Value::from("FATAL");
    assert!(!schema_errors(&validator, &d).is_empty());
    d["severity"] = Value::from("ERROR");
    d["suggestions"] = serde_json::json!([{"range": {"start": {"line": "two"}}, "text": "x"}]);
    assert!(!schema_errors(&validator, &d).is_empty());
}
