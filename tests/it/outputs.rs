//! Every output format on a fixed input (`testdata/example/`), snapshot by
//! snapshot, and the SARIF log against GitHub's stricter requirements (the
//! official SARIF 2.1.0 schema is checked in `tests/schema/`, a package of
//! its own, so `cargo test` does not build a JSON Schema validator).

use assert_cmd::Command;
use serde_json::Value;

/// Runs `bdxlint check --output-format FORMAT testdata/example/` from the
/// package root (so paths are relative and snapshots stable).
fn run(format: &str) -> (String, i32) {
    let out = Command::cargo_bin("bdxlint")
        .expect("binary builds")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["check", "--output-format", format, "testdata/example/"])
        .output()
        .expect("runs");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    (stdout, out.status.code().expect("exit code"))
}

#[test]
fn concise() {
    let (out, code) = run("concise");
    assert_eq!(code, 1);
    insta::assert_snapshot!(out);
}

#[test]
fn jsonl_is_one_diagnostic_per_line_with_its_path() {
    let (out, code) = run("jsonl");
    assert_eq!(code, 1);
    for line in out.lines() {
        let v: Value = serde_json::from_str(line).expect("each line is JSON");
        assert!(v["path"].is_string() && v["code"].is_string(), "{line}");
    }
    insta::assert_snapshot!(out);
}

#[test]
fn github_annotations() {
    let (out, code) = run("github");
    assert_eq!(code, 1);
    insta::assert_snapshot!(out);
}

#[test]
fn junit_xml() {
    let (out, code) = run("junit");
    assert_eq!(code, 1);
    insta::assert_snapshot!(out);
}

#[test]
fn gitlab_code_quality() {
    let (out, code) = run("gitlab");
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).expect("JSON");
    let prints: std::collections::HashSet<&str> = v
        .as_array()
        .expect("array")
        .iter()
        .map(|i| i["fingerprint"].as_str().expect("fingerprint"))
        .collect();
    assert_eq!(prints.len(), v.as_array().map_or(0, Vec::len), "unique");
    insta::assert_snapshot!(out);
}

#[test]
fn rdjsonl() {
    let (out, code) = run("rdjsonl");
    assert_eq!(code, 1);
    insta::assert_snapshot!(out);
}

/// The SARIF results in full; the rule list (the registry's text, checked
/// below) is reduced to its ids to keep the snapshot about the run.
#[test]
fn sarif_results() {
    let (out, code) = run("sarif");
    assert_eq!(code, 1);
    let mut v: Value = serde_json::from_str(&out).expect("JSON");
    let rules = &mut v["runs"][0]["tool"]["driver"]["rules"];
    let ids: Vec<Value> = rules
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    *rules = Value::Array(ids);
    insta::assert_json_snapshot!(v);
}

#[test]
fn sarif_meets_github_code_scanning_requirements() {
    let (out, _) = run("sarif");
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    let run = &doc["runs"][0];
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), bdxlint::rules::ALL.len());
    for (r, want) in rules.iter().zip(bdxlint::rules::ALL) {
        assert_eq!(r["id"], want.code);
        assert_eq!(r["name"], want.name);
        assert_eq!(r["shortDescription"]["text"], want.summary);
        assert_eq!(r["fullDescription"]["text"], want.explanation);
        for key in ["shortDescription", "fullDescription", "help"] {
            let t = r[key]["text"].as_str().expect("text");
            assert!(!t.is_empty() && t.len() <= 1024, "{} {key}", want.code);
        }
    }
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 6);
    for res in results {
        let idx = res["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[idx]["id"], res["ruleId"]);
        let region = &res["locations"][0]["physicalLocation"]["region"];
        for k in ["startLine", "startColumn", "endLine", "endColumn"] {
            assert!(region[k].as_u64().expect(k) >= 1, "{k}");
        }
        let hash = res["partialFingerprints"]["primaryLocationLineHash"]
            .as_str()
            .expect("fingerprint");
        assert!(!hash.is_empty());
    }
    // The example's first finding: `grace.hopper@example` (20 characters)
    // at line 4, column 21.
    let region = &results[0]["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (
            &region["startLine"],
            &region["startColumn"],
            &region["endLine"],
            &region["endColumn"]
        ),
        (
            &Value::from(4),
            &Value::from(21),
            &Value::from(4),
            &Value::from(41)
        )
    );
}

/// Every format on what is not a plain failing file: a clean CSV, a ZIP
/// bundle with one finding in a member, and a file that does not exist,
/// run from their directory so the paths are stable. The rule list of
/// SARIF is reduced to its length.
#[test]
fn every_format_on_a_clean_file_a_bundle_and_a_missing_file() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
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
    for format in [
        "human", "concise", "json", "jsonl", "sarif", "github", "gitlab", "junit", "rdjsonl",
        "html",
    ] {
        let out = Command::cargo_bin("bdxlint")
            .expect("binary builds")
            .current_dir(dir.path())
            .args([
                "check",
                "--isolated",
                "--color",
                "never",
                "--output-format",
                format,
            ])
            .args(["clean.csv", "rbac.zip", "missing.csv"])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{format}: {out:?}");
        let mut stdout = String::from_utf8(out.stdout).expect("UTF-8");
        if format == "sarif" {
            let mut v: Value = serde_json::from_str(&stdout).expect("JSON");
            let rules = &mut v["runs"][0]["tool"]["driver"]["rules"];
            *rules = Value::from(rules.as_array().map_or(0, Vec::len));
            stdout = serde_json::to_string_pretty(&v).expect("JSON");
        }
        if format == "html" {
            stdout = without_assets(&stdout);
        }
        insta::assert_snapshot!(format!("other_inputs_{format}"), stdout);
    }
}

/// The HTML report with its style sheet and script (the same in every
/// report) left out, so its snapshots are about the run. The policy's
/// hashes of them stay.
fn without_assets(html: &str) -> String {
    let mut out = html.to_owned();
    for (open, close) in [("<style>", "</style>"), ("<script>", "</script>")] {
        let a = out.find(open).expect("the page has it") + open.len();
        let b = a + out[a..].find(close).expect("closed");
        out.replace_range(a..b, "...");
    }
    out
}

/// The HTML report of the bundled example: the run's verdict, a table, a
/// chart and samples per rule × column of each file, the rules.
#[test]
fn html_report() {
    let (out, code) = run("html");
    assert_eq!(code, 1);
    assert!(out.starts_with("<!DOCTYPE html>"), "{out}");
    insta::assert_snapshot!(without_assets(&out));
}

/// The samples of a rule × column are the first `--max-diagnostics` of
/// them (10 by default), and every finding is counted all the same.
#[test]
fn html_samples_are_bounded_and_counts_are_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut csv = String::from("Project,Privilege Name,Privilege Value,Email,User ID,Username,Name,Connection,Connection Type,Resource,Resource Type,Project Aliases\n");
    for k in 0..40 {
        csv.push_str(&format!(
            "acme,s3:GetObject,{},u{k}@example.com,u-{k},u{k},User {k},readers,group,bucket,bucket,\n",
            if k % 4 == 0 { "TRUE" } else { "yes" }
        ));
    }
    std::fs::write(dir.path().join("many.csv"), csv).expect("write");
    let html = |extra: &[&str]| {
        let out = Command::cargo_bin("bdxlint")
            .expect("binary builds")
            .current_dir(dir.path())
            .args(["check", "--isolated", "--format", "entitlements"])
            .args(["--output-format", "html", "many.csv"])
            .args(extra)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        String::from_utf8(out.stdout).expect("UTF-8")
    };
    let samples = |page: &str| page.matches("<li data-line=").count();
    let page = html(&[]);
    // 30 `yes` (an error) and 10 `TRUE` (a warning): 10 samples each.
    assert!(
        page.contains("data-count=\"40\" data-errors=\"30\" data-warnings=\"10\""),
        "{page}"
    );
    assert!(
        page.contains("30 findings, the first 10 shown (of at most 10)"),
        "{page}"
    );
    assert!(page.contains("<li>30 × <code>yes</code></li>"), "{page}");
    assert_eq!(samples(&page), 20);
    let page = html(&["--max-diagnostics", "3"]);
    assert!(
        page.contains("data-count=\"40\" data-errors=\"30\" data-warnings=\"10\""),
        "{page}"
    );
    assert_eq!(samples(&page), 6);
    assert!(
        page.contains("the first 3 findings of each rule and column"),
        "{page}"
    );
}

/// Everything a file gives is text in the HTML report: cells and a file
/// name holding markup, quotes, a `javascript:` URL, a line separator, a
/// right-to-left override, ESC and NUL reach the page escaped and visible,
/// never as elements or as the characters themselves. (The browser tests
/// of `tests/browser/` open this page and check that nothing ran.)
#[test]
fn html_shows_hostile_cells_and_names_as_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let hostile = [
        "<script>document.title=\"pwned\"</script>",
        "<img src=x onerror=\"document.title=1\">",
        "</style><b>x</b>",
        "\"q'uo\"\"te",
        "javascript:alert(1)",
        "a\u{2028}b",
        "\u{202e}gnp.exe",
        "\u{1b}[31mred",
        "nul\0byte",
    ];
    let mut csv = String::from("Project,Privilege Name,Privilege Value,Email,User ID,Username,Name,Connection,Connection Type,Resource,Resource Type,Project Aliases\n");
    for (k, h) in hostile.iter().enumerate() {
        let q = format!("\"{}\"", h.replace('"', "\"\""));
        csv.push_str(&format!(
            "acme,s3:GetObject,{q},{q},u-{k},ada,Ada,readers,group,bucket,bucket,\n"
        ));
    }
    let name = "<img src=x onerror=alert(1)>\u{202e}.csv";
    std::fs::write(dir.path().join(name), csv).expect("write");
    let out = Command::cargo_bin("bdxlint")
        .expect("binary builds")
        .current_dir(dir.path())
        .args(["check", "--isolated", "--format", "entitlements"])
        .args(["--output-format", "html", "."])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let page = String::from_utf8(out.stdout).expect("UTF-8");
    // Ours, once each; none of the file's.
    for tag in ["<script", "</script>", "<style", "</style>", "<title>"] {
        assert_eq!(page.matches(tag).count(), 1, "{tag}");
    }
    assert!(page.contains("<title>bdxlint report</title>"));
    for markup in ["<img", "<b>x", "onerror=\"", "href=\"javascript"] {
        assert!(!page.contains(markup), "{markup}");
    }
    for raw in ['\u{2028}', '\u{202e}', '\u{1b}', '\0'] {
        assert!(!page.contains(raw), "{:?} reached the page", raw);
    }
    // Shown, escaped.
    for shown in [
        "&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;",
        "&lt;img src=x onerror=alert(1)&gt;<span class=\"esc\">\\u{202e}</span>.csv",
        "&lt;/style&gt;&lt;b&gt;x&lt;/b&gt;",
        "javascript:alert(1)",
        "a<span class=\"esc\">\\u{2028}</span>b",
        "<span class=\"esc\">\\x1b</span>[31mred",
        "nul<span class=\"esc\">\\x00</span>byte",
        "&#39;uo",
    ] {
        assert!(page.contains(shown), "{shown} not in {page}");
    }
    // Every link stays in the page.
    for (k, _) in page.match_indices("href=\"") {
        assert!(page[k + 6..].starts_with('#'), "{}", &page[k..k + 40]);
    }
}
