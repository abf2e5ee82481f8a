//! No escapes, forged log lines or secrets in what bdxlint prints (part of
//! issue 31). A file name, a config or a baseline holds whatever a
//! contributor put there, and bdxlint runs in CI on contributors' files:
//! every message and every output format is fed a name with ESC, BEL, CR,
//! LF and `::error::` in it, and must let no raw control character through
//! nor start a line with `::` that is not a workflow command of its own. A
//! `bdxlint.toml` that links out of the tree is not read.

#![cfg(unix)]

use assert_cmd::Command;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// A terminal title (OSC), a bell, then a line break that would start a
/// line of a GitHub log with a workflow command.
const EVIL: &str = "a\u{1b}]0;pwned\u{7}\r\n::error::b";
/// A name that itself begins with a workflow command.
const LEADING: &str = "::error::x.csv";

fn fixture() -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fixes/employees/invalid-date.csv");
    std::fs::read(p).expect("fixture")
}

fn evil(suffix: &str) -> String {
    format!("{EVIL}{suffix}")
}

/// Runs `bdxlint ARGS` in `dir`: exit code, and stdout and stderr as bytes.
fn run(dir: &Path, args: &[&OsStr]) -> (Option<i32>, Vec<u8>, Vec<u8>) {
    let out = Command::cargo_bin("bdxlint")
        .expect("binary builds")
        .current_dir(dir)
        .args(args)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .expect("runs");
    (out.status.code(), out.stdout, out.stderr)
}

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

/// Whether `line` is a workflow command bdxlint writes (`--output-format
/// github`): a command of ours, then properties.
fn ours(line: &str) -> bool {
    ["::error file=", "::warning file=", "::notice file="]
        .iter()
        .any(|p| line.starts_with(p))
}

/// Asserts that `bytes` (one stream of a run) hold no control character
/// but tab and line feed, and no line that a CI runner reads as a command
/// unless `commands` allows bdxlint's own.
fn assert_clean(what: &str, bytes: &[u8], commands: bool) {
    let text = String::from_utf8_lossy(bytes);
    if let Some(c) = text
        .chars()
        .find(|&c| c.is_control() && c != '\n' && c != '\t')
    {
        panic!("{what}: raw {c:?} in\n{text}");
    }
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("::") && !(commands && ours(t)) || t.starts_with("##") {
            panic!("{what}: a line reads as a command: {line:?}\n{text}");
        }
    }
}

fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join(evil(".csv"));
    let b = dir.path().join(LEADING);
    std::fs::write(&a, fixture()).expect("write");
    std::fs::write(&b, fixture()).expect("write");
    (dir, a, b)
}

const FORMATS: [&str; 9] = [
    "human", "concise", "json", "jsonl", "github", "gitlab", "rdjsonl", "sarif", "junit",
];

#[test]
fn every_output_format_escapes_a_file_name() {
    let (dir, _, _) = setup();
    let d = dir.path();
    // A missing file too: its failure is in every report.
    let missing = evil("-missing.csv");
    for format in FORMATS {
        for walk in [false, true] {
            let mut args = vec![os("check"), os("--output-format"), os(format)];
            let named = [evil(".csv"), LEADING.to_owned(), missing.clone()];
            if walk {
                args.push(os("."));
            } else {
                args.extend(named.iter().map(|s| os(s)));
            }
            let (code, out, err) = run(d, &args);
            let what = format!("{format} (walk: {walk})");
            let expected = if walk { 1 } else { 2 };
            assert_eq!(
                code,
                Some(expected),
                "{what}: {}",
                String::from_utf8_lossy(&err)
            );
            assert_clean(&format!("{what} stdout"), &out, format == "github");
            assert_clean(&format!("{what} stderr"), &err, false);
            let text = String::from_utf8(out).expect("UTF-8");
            match format {
                // The name intact, by JSON's own escaping.
                "json" => {
                    let v: serde_json::Value = serde_json::from_str(&text).expect(&what);
                    let paths: Vec<&str> = v["files"]
                        .as_array()
                        .expect("files")
                        .iter()
                        .filter_map(|f| f["path"].as_str())
                        .collect();
                    assert!(
                        paths.iter().any(|p| p.ends_with(&evil(".csv"))),
                        "{what}: {paths:?}"
                    );
                }
                "jsonl" | "rdjsonl" => {
                    for line in text.lines() {
                        let _: serde_json::Value = serde_json::from_str(line).expect(&what);
                    }
                    assert!(
                        text.contains("\\u001b]0;pwned\\u0007\\r\\n::error::b.csv"),
                        "{what}"
                    );
                }
                "sarif" | "gitlab" => {
                    let _: serde_json::Value = serde_json::from_str(&text).expect(&what);
                }
                "github" => {
                    assert!(
                        text.contains("a\\x1b]0;pwned\\x07%0D%0A%3A%3Aerror%3A%3Ab.csv"),
                        "{text}"
                    );
                }
                "human" | "concise" => {
                    assert!(
                        text.contains("a\\x1b]0;pwned\\x07\\r\\n::error::b.csv"),
                        "{text}"
                    );
                    assert!(text.contains("./::error::x.csv"), "{text}");
                }
                _ => {}
            }
        }
    }
}

#[test]
fn diff_headers_quote_a_name_as_git_does() {
    let (dir, _, _) = setup();
    let name = evil(".csv");
    let (code, out, err) = run(
        dir.path(),
        &[os("check"), os("--diff"), os(&name), os(LEADING)],
    );
    assert_eq!(code, Some(1), "{}", String::from_utf8_lossy(&err));
    assert_clean("--diff stdout", &out, false);
    assert_clean("--diff stderr", &err, false);
    let text = String::from_utf8(out).expect("UTF-8");
    assert!(
        text.contains("--- \"a\\033]0;pwned\\a\\r\\n::error::b.csv\"\n+++ \"a\\033]0;pwned\\a\\r\\n::error::b.csv\"\n"),
        "{text}"
    );
    assert!(text.contains("--- ::error::x.csv\n"), "{text}");
}

#[test]
fn split_baseline_and_output_messages_escape_names() {
    let (dir, _, _) = setup();
    let d = dir.path();
    let name = evil(".csv");
    let (good, bad) = (evil("-good.csv"), evil("-bad.csv"));
    let (code, out, err) = run(
        d,
        &[os("check"), os("--split"), os(&good), os(&bad), os(&name)],
    );
    assert_eq!(code, Some(1), "{}", String::from_utf8_lossy(&err));
    assert_clean("--split stdout", &out, false);
    assert_clean("--split stderr", &err, false);
    let err = String::from_utf8(err).expect("UTF-8");
    assert!(
        err.contains("rows without errors to a\\x1b]0;pwned\\x07\\r\\n::error::b-good.csv"),
        "{err}"
    );
    assert!(d.join(&good).exists() && d.join(&bad).exists());

    // A split that cannot be made: its target is a directory.
    std::fs::remove_file(d.join(&good)).expect("rm");
    std::fs::create_dir(d.join(&good)).expect("mkdir");
    let (code, _, err) = run(
        d,
        &[os("check"), os("--split"), os(&good), os(&bad), os(&name)],
    );
    assert_eq!(code, Some(2));
    assert_clean("--split refused", &err, false);

    let baseline = evil("-baseline.json");
    let (code, out, err) = run(
        d,
        &[
            os("check"),
            os("--write-baseline"),
            os(&baseline),
            os(&name),
        ],
    );
    // Writing a baseline records the findings: none fails the run.
    assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&err));
    assert_clean("--write-baseline stdout", &out, false);
    assert_clean("--write-baseline stderr", &err, false);
    let err = String::from_utf8_lossy(&err);
    assert!(err.contains("findings in a\\x1b]0;pwned"), "{err}");

    // A baseline that is not one, quoting a control character of its own.
    std::fs::write(d.join(&baseline), "{\"version\": \"\u{9b}2J\u{1b}[31m\"}").expect("write");
    let (code, _, err) = run(
        d,
        &[os("check"), os("--baseline"), os(&baseline), os(&name)],
    );
    assert_eq!(code, Some(2));
    assert_clean("--baseline", &err, false);
    assert!(String::from_utf8_lossy(&err).starts_with("bdxlint: baseline a\\x1b]0;pwned"));

    // Outputs refused before anything is read.
    for args in [
        vec![os("check"), os("-o"), os(&name), os(&name)],
        vec![os("check"), os("-o"), os(&good), os(&name)],
        vec![os("check"), os("--entities"), os(&bad), os(&name)],
        vec![os("check"), os(&evil("-gone.csv"))],
    ] {
        let (code, out, err) = run(d, &args);
        assert_eq!(code, Some(2), "{args:?}");
        assert_clean(&format!("{args:?} stdout"), &out, false);
        assert_clean(&format!("{args:?} stderr"), &err, false);
        let err = String::from_utf8_lossy(&err);
        assert!(err.contains("a\\x1b]0;pwned"), "{args:?}: {err}");
    }
}

#[test]
fn config_errors_escape_names_and_quote_a_short_escaped_excerpt() {
    let (dir, _, _) = setup();
    let d = dir.path();
    let name = evil(".csv");
    // A name, and a value holding CSI (allowed raw in a TOML string).
    let config = evil(".toml");
    let value = format!("select = [\"C\", \"\u{9b}2J{}\"]\n", "Z".repeat(500));
    std::fs::write(d.join(&config), &value).expect("write");
    let (code, out, err) = run(d, &[os("check"), os("--config"), os(&config), os(&name)]);
    assert_eq!(code, Some(2));
    assert!(out.is_empty());
    assert_clean("--config", &err, false);
    let err = String::from_utf8(err).expect("UTF-8");
    assert!(err.starts_with("bdxlint: a\\x1b]0;pwned\\x07\\r\\n::error::b.toml: invalid value at line 1, column 16\n"), "{err}");
    assert!(err.contains("\\u{9b}2J"), "{err}");
    assert!(err.lines().all(|l| l.chars().count() < 400), "{err}");

    // Found by discovery, for the run and for a file below.
    std::fs::create_dir(d.join("sub")).expect("mkdir");
    std::fs::write(d.join("sub/e.csv"), fixture()).expect("write");
    std::fs::write(d.join("sub/bdxlint.toml"), &value).expect("write");
    let (code, _, err) = run(d, &[os("check"), os("sub/e.csv")]);
    assert_eq!(code, Some(2));
    assert_clean("nearest config", &err, false);
    std::fs::rename(d.join("sub/bdxlint.toml"), d.join("bdxlint.toml")).expect("mv");
    let (code, _, err) = run(d, &[os("check"), os(&name)]);
    assert_eq!(code, Some(2));
    assert_clean("discovered config", &err, false);
}

/// A `bdxlint.toml` checked in as a link to the process's own environment:
/// the TOML error quoted the line, that is the whole environment of the CI
/// job. A link out of the tree is not read; `--config` errors quote
/// nothing of a file that is not TOML.
#[test]
fn a_config_linking_out_of_the_tree_is_not_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::create_dir_all(d.join("repo/.git")).expect("mkdir");
    std::fs::create_dir(d.join("elsewhere")).expect("mkdir");
    std::fs::write(d.join("repo/e.csv"), fixture()).expect("write");
    let secret = "ghp_SECRETSECRETSECRET";
    std::fs::write(
        d.join("elsewhere/credentials"),
        format!("[default]\naws_secret_access_key = {secret}\n"),
    )
    .expect("write");
    let env = Path::new("/proc/self/environ");
    let mut targets = vec![d.join("elsewhere/credentials")];
    if env.exists() {
        targets.push(env.to_path_buf());
    }
    for target in &targets {
        for at in ["repo/bdxlint.toml", "repo/sub/.bdxlint.toml"] {
            let link = d.join(at);
            std::fs::create_dir_all(link.parent().expect("dir")).expect("mkdir");
            std::os::unix::fs::symlink(target, &link).expect("symlink");
            let cwd = d.join("repo");
            let file = if at.contains("sub") {
                std::fs::write(d.join("repo/sub/e.csv"), fixture()).expect("write");
                "sub/e.csv"
            } else {
                "e.csv"
            };
            let out = Command::cargo_bin("bdxlint")
                .expect("binary")
                .current_dir(&cwd)
                .env("BDX_TEST_TOKEN", secret)
                .args(["check", file])
                .output()
                .expect("runs");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{target:?} {at}: {err}");
            assert!(!err.contains(secret), "{target:?} {at}: {err}");
            assert!(err.contains("not read"), "{err}");
            assert_clean("linked config", &out.stderr, false);
            std::fs::remove_file(&link).expect("rm");
        }
        // Named with --config: read, as the user asked, but its error
        // quotes none of a file that is not TOML.
        let out = Command::cargo_bin("bdxlint")
            .expect("binary")
            .current_dir(d.join("repo"))
            .env("BDX_TEST_TOKEN", secret)
            .arg("check")
            .arg("--config")
            .arg(target)
            .arg("e.csv")
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(!err.contains(secret), "{target:?}: {err}");
        assert_clean("--config", &out.stderr, false);
    }
    // A link that stays in the repository is read.
    std::fs::write(d.join("repo/shared.toml"), "select = [\"H\"]\n").expect("write");
    std::os::unix::fs::symlink("../shared.toml", d.join("repo/sub/bdxlint.toml")).expect("symlink");
    let out = Command::cargo_bin("bdxlint")
        .expect("binary")
        .current_dir(d.join("repo"))
        .args(["check", "--output-format", "concise", "sub/e.csv"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.code() != Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.lines().all(|l| l.contains(": H")), "{text}");
}

/// Bytes that are not UTF-8 in a name are shown as U+FFFD, never raw.
#[test]
fn a_name_that_is_not_utf8_is_shown_replaced() {
    let dir = tempfile::tempdir().expect("tempdir");
    let name = OsStr::from_bytes(b"x\xff\x1b[2J.csv");
    std::fs::write(dir.path().join(name), fixture()).expect("write");
    for format in FORMATS {
        let (_, out, err) = run(
            dir.path(),
            &[os("check"), os("--output-format"), os(format), name],
        );
        assert_clean(format, &out, format == "github");
        assert_clean(format, &err, false);
    }
}

/// A cell or a name with a right-to-left override shows its tail reversed
/// on a terminal ("Trojan Source"), and U+2028 breaks a line in some log
/// viewers: the text outputs show both as escapes, the source line as one
/// `?` a byte (its offsets kept).
#[test]
fn text_that_reads_reversed_or_breaks_a_line_is_escaped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let name = "rev\u{202e}vsc.csv";
    std::fs::write(
        dir.path().join(name),
        "Employee ID,Full Name,Work Email,Start Date\nE-1,Ada\u{202e} Lovelace\u{2028},ada@example.com,2024-13-01\n",
    )
    .expect("write");
    for format in ["human", "concise", "github"] {
        let (code, stdout, stderr) = run(
            dir.path(),
            &[
                os("check"),
                os("--isolated"),
                os("--format"),
                os("employees"),
                os("--output-format"),
                os(format),
                os(name),
            ],
        );
        assert_eq!(code, Some(1), "{format}");
        let text = String::from_utf8(stdout).expect("utf-8");
        assert!(
            text.contains("rev\\u{202e}vsc.csv") || text.contains("rev%E2%80%AEvsc.csv"),
            "{format}: {text}"
        );
        for c in ['\u{202e}', '\u{2028}'] {
            assert!(!text.contains(c), "{format}: {text}");
            assert!(!String::from_utf8_lossy(&stderr).contains(c), "{format}");
        }
    }
}
