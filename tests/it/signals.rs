//! A run that ends early leaves nothing behind: a signal (Ctrl-C, a CI
//! job's timeout) while `--fix` writes its copy removes the copy, and a
//! file-size limit (`ulimit -f`) is a write error (exit 2, a message), not
//! death by SIGXFSZ. Real processes, real signals.
#![cfg(target_os = "linux")]

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{fixable, leftovers};

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("bdxlint")
}

fn interrupted_fix_leaves_nothing(signal: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("employees.csv");
    fixable(&path, 200_000);
    let before = std::fs::read(&path).expect("read");
    let mut child = Command::new(bin())
        .args(["check", "--fix", "--threads", "1", "--quiet"])
        .arg(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    // Wait until the fixed copy is being written, then interrupt.
    let start = Instant::now();
    while leftovers(dir.path()).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary copy appeared"
        );
        if child.try_wait().expect("wait").is_some() {
            panic!("the run ended before it could be interrupted: make the file larger");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let status = child.wait().expect("wait");
    assert!(!status.success(), "{signal}: {status:?}");
    assert_eq!(
        leftovers(dir.path()),
        Vec::<String>::new(),
        "{signal} left temporary files"
    );
    assert!(
        std::fs::read(&path).expect("read") == before,
        "{signal}: the original changed"
    );
}

#[test]
fn sigint_during_fix_removes_the_copy() {
    interrupted_fix_leaves_nothing("INT");
}

#[test]
fn sigterm_during_fix_removes_the_copy() {
    interrupted_fix_leaves_nothing("TERM");
}

#[test]
fn file_size_limit_is_an_error_not_a_death() {
    let dir = tempfile::tempdir().expect("tempdir");
    // About 17 MB against a limit of 4 MiB (ulimit -f counts 1 KiB blocks
    // in bash).
    let path = dir.path().join("employees.csv");
    fixable(&path, 200_000);
    let before = std::fs::read(&path).expect("read");
    let out = Command::new("bash")
        .arg("-c")
        .arg("ulimit -f 4096; exec \"$0\" check --fix --quiet \"$1\"")
        .arg(bin())
        .arg(&path)
        .output()
        .expect("bash runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(stderr.contains("File too large"), "stderr: {stderr}");
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
    assert!(std::fs::read(&path).expect("read") == before);
}
