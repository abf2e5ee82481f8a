//! `bdxlint explain` and `bdxlint rules` cover the whole registry: every
//! rule a finding can carry has its documentation one command away.

use assert_cmd::Command;
use bdxlint::rules;

fn run(args: &[&str]) -> String {
    let out = Command::cargo_bin("bdxlint")
        .expect("binary builds")
        .args(args)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).expect("utf-8")
}

/// The template `explain` shows is the one findings are made from: a
/// header without `Start Date` gets H001's message with the column filled
/// in, word for word.
#[test]
fn explain_shows_the_words_a_finding_is_made_from() {
    let h001 = rules::lookup("H001").expect("H001");
    let template = h001.message_template().expect("H001 has a template");
    assert!(run(&["explain", "H001"]).contains(&format!("Message: {template}\n")));
    let out = Command::cargo_bin("bdxlint")
        .expect("binary builds")
        .args([
            "check",
            "--format",
            "entitlements",
            "--output-format",
            "json",
            "-",
        ])
        .write_stdin("Integration ID,Entitlement ID,Name\n")
        .output()
        .expect("runs");
    let json = String::from_utf8(out.stdout).expect("utf-8");
    let want = template.replace("{column}", "Privilege Value");
    assert!(json.contains(&want), "{want:?} in {json}");
}

#[test]
fn explain_prints_every_rule_by_code_and_by_name() {
    for r in rules::ALL {
        let by_code = run(&["explain", r.code]);
        let fix = match &r.fix {
            Some(f) => format!("{}: {} (`bdxlint check --fix`)\n\n", f.headline(), f.text),
            None => String::new(),
        };
        // A rule whose findings' words are a template shows it.
        let words = match (r.message_template(), r.help_template()) {
            (Some(m), Some(h)) => format!("Message: {m}\nHelp: {h}\n\n"),
            (Some(m), None) => format!("Message: {m}\n\n"),
            _ => String::new(),
        };
        assert_eq!(
            by_code,
            format!(
                "{} {} ({})\n\n{}\n\n{}\n\n{words}{fix}Spec: {}\n",
                r.code, r.name, r.severity, r.summary, r.explanation, r.spec
            )
        );
        for section in ["What it does", "Why it matters", "Example"] {
            assert!(by_code.contains(section), "{}: {section}", r.code);
        }
        assert!(!r.spec.is_empty(), "{}", r.code);
        assert_eq!(run(&["explain", r.name]), by_code, "{}", r.name);
        assert_eq!(
            run(&["explain", &r.code.to_ascii_lowercase()]),
            by_code,
            "{}",
            r.code
        );
    }
}

#[test]
fn rules_lists_every_rule_as_text_and_as_json() {
    let text = run(&["rules"]);
    let codes: Vec<&str> = text
        .lines()
        .map(|l| l.split_whitespace().next().expect("a code"))
        .collect();
    let all: Vec<&str> = rules::ALL.iter().map(|r| r.code).collect();
    assert_eq!(codes, all);
    // A table: every summary starts in the same column, whatever the
    // lengths of the name and the severity.
    let column: std::collections::BTreeSet<Option<usize>> = text
        .lines()
        .zip(rules::ALL)
        .map(|(line, r)| line.find(r.summary))
        .collect();
    assert_eq!(column.len(), 1, "{column:?}\n{text}");
    let json: serde_json::Value =
        serde_json::from_str(&run(&["rules", "--output-format", "json"])).expect("JSON");
    let list = json.as_array().expect("an array");
    assert_eq!(list.len(), rules::ALL.len());
    for (j, r) in list.iter().zip(rules::ALL) {
        assert_eq!(
            j,
            &serde_json::json!({
                "code": r.code,
                "name": r.name,
                "severity": r.severity.as_str(),
                "summary": r.summary,
                "explanation": r.explanation,
                "spec": r.spec,
                "fix": r.fix.as_ref().map(|f| serde_json::json!({
                    "availability": match f.availability {
                        rules::FixAvailability::Always => "always",
                        rules::FixAvailability::Sometimes => "sometimes",
                    },
                    "applicability": f.safety.as_str(),
                    "text": f.text,
                })),
            })
        );
        // `[*]` marks the rules that can fix, and only those.
        let line = text
            .lines()
            .find(|l| l.starts_with(r.code))
            .expect("listed");
        assert_eq!(line.contains(" [*] "), r.fix.is_some(), "{line}");
    }
}

/// Every name `--format` accepts is listed by `formats`, and a bundle
/// kind explains its members instead of being "no format".
#[test]
fn formats_lists_every_name_check_accepts_including_bundle_kinds() {
    let list = run(&["formats"]);
    let names: Vec<&str> = list
        .lines()
        .map(|l| l.split_whitespace().next().expect("a name"))
        .collect();
    let mut want: Vec<&str> = bdxlint::schema::format_names().collect();
    want.extend(bdxlint::bundle::Kind::NAMES);
    assert_eq!(names, want);
    let rbac = run(&["formats", "entity-rbac"]);
    assert!(
        rbac.contains("`bdxlint formats entity-rbac-relations`"),
        "{rbac}"
    );
    Command::cargo_bin("bdxlint")
        .expect("binary builds")
        .args(["template", "entities-bulk"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "`bdxlint template entities` and `bdxlint template entity-relations`",
        ));
}

/// `formats NAME` shows, for every check of the table, the spec words it
/// enforces and why it only warns where it does; `--output-format json`
/// gives the same as data.
#[test]
fn formats_shows_the_spec_words_of_every_check_as_text_and_json() {
    for t in bdxlint::schema::tables().expect("tables parse") {
        let text = run(&["formats", &t.name]);
        let json: serde_json::Value =
            serde_json::from_str(&run(&["formats", &t.name, "--output-format", "json"]))
                .expect("JSON");
        assert_eq!(json["name"], t.name.as_str());
        let mut listed = 0;
        for c in json["columns"].as_array().expect("columns") {
            if !c["check"].is_null() {
                listed += 1;
            }
        }
        listed += json["checks"].as_array().expect("checks").len();
        let checks = t.checks();
        assert_eq!(listed, checks.len(), "{}", t.name);
        for c in &checks {
            for q in c.trace.fragments() {
                assert!(
                    text.contains(&format!("spec: \"{q}\"")),
                    "{}: {} quote {q:?} not shown",
                    t.name,
                    c.what
                );
            }
            if let Some(k) = c.trace.clause {
                assert!(text.contains(k.describe()), "{}: {}", t.name, c.what);
            }
        }
    }
}
