//! The pre-commit hook manifest and the GitHub Action's run script, as
//! pre-commit and the runner use them.

use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `key: value` of the manifest's single hook, read without a YAML crate:
/// the manifest is a flat list of scalars, and this test keeps it so.
fn hook() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(Path::new(ROOT).join(".pre-commit-hooks.yaml"))
        .expect(".pre-commit-hooks.yaml at the repository root");
    let mut items = Vec::new();
    let mut hooks = 0;
    for line in text.lines() {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let t = match t.strip_prefix("- ") {
            Some(rest) => {
                hooks += 1;
                rest
            }
            None => t,
        };
        let (k, v) = t.split_once(": ").expect("key: value");
        let v = v.trim();
        let v = v
            .strip_prefix('\'')
            .and_then(|v| v.strip_suffix('\''))
            .unwrap_or(v);
        items.push((k.to_owned(), v.to_owned()));
    }
    assert_eq!(hooks, 1, "one hook");
    items
}

fn get<'a>(hook: &'a [(String, String)], key: &str) -> &'a str {
    hook.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("hook has no {key}"))
}

#[test]
fn the_hook_manifest_has_what_pre_commit_needs() {
    let h = hook();
    assert_eq!(get(&h, "id"), "bdxlint");
    assert_eq!(get(&h, "language"), "rust");
    assert_eq!(get(&h, "require_serial"), "true");
    assert!(get(&h, "entry").starts_with("bdxlint "));
    // pre-commit matches `files` with Python's re.search; this regex means
    // the same in Rust's syntax.
    let files = regex::Regex::new(get(&h, "files")).expect("files is a regex");
    for yes in ["employees.csv", "uploads/a.b.csv", "rbac/bundle.zip"] {
        assert!(files.is_match(yes), "{yes}");
    }
    for no in ["notes.txt", "csv", "a.csv.bak"] {
        assert!(!files.is_match(no), "{no}");
    }
    let keys: Vec<&str> = h.iter().map(|(k, _)| k.as_str()).collect();
    for k in &keys {
        assert!(
            [
                "id",
                "name",
                "description",
                "entry",
                "language",
                "files",
                "require_serial"
            ]
            .contains(k),
            "unexpected key {k}"
        );
    }
}

/// Runs the hook's `entry` as pre-commit does: the entry's words, then the
/// file names.
fn run_entry(files: &[&str]) -> std::process::Output {
    let h = hook();
    let mut words = get(&h, "entry").split_whitespace();
    assert_eq!(words.next(), Some("bdxlint"));
    Command::new(env!("CARGO_BIN_EXE_bdxlint"))
        .current_dir(ROOT)
        .args(words)
        .args(files)
        .output()
        .expect("runs")
}

#[test]
fn the_hook_entry_fails_on_findings_and_passes_clean_files() {
    let out = run_entry(&[
        "testdata/example/employees.csv",
        "testdata/example/entitlements.csv",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("4 errors, 2 warnings, 0 infos in 2 files"),
        "{stdout}"
    );
    let out = run_entry(&[
        "testdata/employees/valid.csv",
        "testdata/entitlements/valid.csv",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

fn action(format: &str, dir: &Path) -> (std::process::Output, String) {
    let bin = Path::new(env!("CARGO_BIN_EXE_bdxlint"))
        .parent()
        .expect("binary directory")
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    let gh_output = dir.join("github_output");
    let out = Command::new("bash")
        .arg(Path::new(ROOT).join("scripts/action-run.sh"))
        .current_dir(ROOT)
        .env("PATH", path)
        .env(
            "BDXLINT_PATHS",
            "testdata/example/employees.csv testdata/example/entitlements.csv",
        )
        .env("BDXLINT_FORMAT", format)
        .env("BDXLINT_ARGS", "--ignore X")
        .env("BDXLINT_SARIF_FILE", dir.join("out.sarif"))
        .env("GITHUB_OUTPUT", &gh_output)
        .output()
        .expect("bash runs");
    let outputs = std::fs::read_to_string(&gh_output).unwrap_or_default();
    (out, outputs)
}

#[test]
fn the_action_script_annotates_and_fails_on_findings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, outputs) = action("github", dir.path());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 6);
    assert!(stdout.starts_with(
        "::error file=testdata/example/employees.csv,line=4,col=21,endColumn=41,title=C003 invalid-email::"
    ));
    assert_eq!(outputs, "exit-code=1\n");
}

#[test]
fn the_action_script_writes_sarif_for_upload() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, outputs) = action("sarif", dir.path());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let sarif = dir.path().join("out.sarif");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).expect("SARIF written"))
            .expect("JSON");
    assert_eq!(doc["runs"][0]["results"].as_array().map(Vec::len), Some(6));
    assert_eq!(
        outputs,
        format!("sarif-file={}\nexit-code=1\n", sarif.display())
    );
    let other = tempfile::tempdir().expect("tempdir");
    let (out, outputs) = action("xml", other.path());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(outputs, "exit-code=2\n");
}
