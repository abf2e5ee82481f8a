//! `--fix` replaces the file it read, or nothing: a file replaced or
//! written to while it is fixed is left as it is now; read-only and
//! hard-linked files are refused; the mode, owner, group and extended
//! attributes are kept; walks write through no link; FIFOs and devices are
//! refused rather than waited on; a copy that cannot be written still
//! leaves the file's findings reported. Every refusal is exit 2 with a
//! line saying why, and the file untouched.
#![cfg(target_os = "linux")]

use assert_cmd::Command;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

fn bdxlint() -> Command {
    let mut c = Command::cargo_bin("bdxlint").expect("binary builds");
    c.env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("BDXLINT_OUTPUT_FORMAT")
        .timeout(Duration::from_secs(120));
    c
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("bdxlint")
}

const DAMAGED: &str =
    "Full Name,Work Email,Start Date\nAda,ada@example.com,2024-03-07\nBob,bob@example,01/02/2024\n";
const FIXED: &str =
    "Full Name,Work Email,Start Date\nAda,ada@example.com,03/07/2024\nBob,bob@example,01/02/2024\n";

/// Starts `--fix` on a large file, waits until its copy is being written,
/// does `meddle` to the file, and returns the run's exit code and stderr.
fn meddle_while_fixing(dir: &Path, path: &Path, meddle: impl FnOnce()) -> (Option<i32>, String) {
    let mut child = std::process::Command::new(bin())
        .args(["check", "--fix", "--threads", "1", "--quiet"])
        .arg(path)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let start = Instant::now();
    while leftovers(dir).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary copy appeared"
        );
        if child.try_wait().expect("wait").is_some() {
            panic!("the run ended before the file could be changed: make the file larger");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    meddle();
    assert!(
        child.try_wait().expect("wait").is_none(),
        "the run ended while the file was being changed: make the file larger"
    );
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// An export job's rename (or an editor's save) while `--fix` runs: the
/// new file is what the path names afterwards, untouched; the run says so
/// and exits 2.
#[test]
fn a_file_replaced_while_it_is_fixed_is_left_as_it_is_now() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("employees.csv");
    fixable(&path, 100_000);
    let newer = dir.path().join("employees.csv.new");
    fixable(&newer, 10);
    let new_bytes = std::fs::read(&newer).expect("read");
    let (code, stderr) = meddle_while_fixing(dir.path(), &path, || {
        std::fs::rename(&newer, &path).expect("rename");
    });
    assert_eq!(code, Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains("was replaced while it was being fixed"),
        "{stderr}"
    );
    assert!(std::fs::read(&path).expect("read") == new_bytes);
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}

/// Rows appended in place while `--fix` runs are not lost: the file is
/// left with them, unfixed.
#[test]
fn a_file_appended_to_while_it_is_fixed_is_left_as_it_is_now() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("employees.csv");
    fixable(&path, 100_000);
    let mut want = std::fs::read(&path).expect("read");
    let more = b"E-new,Late Row,late@example.com,Engineering,Engineer,2024-03-07,,,reviewer,,\n";
    want.extend_from_slice(more);
    let (code, stderr) = meddle_while_fixing(dir.path(), &path, || {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open");
        f.write_all(more).expect("append");
    });
    assert_eq!(code, Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains("was written to while it was being fixed"),
        "{stderr}"
    );
    assert!(std::fs::read(&path).expect("read") == want);
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}

/// A link named on the command line is fixed through, so its target must
/// still be what the link names at the end: pointed elsewhere meanwhile,
/// neither file is touched.
#[test]
fn a_link_pointed_elsewhere_while_its_target_is_fixed_is_left_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let old = dir.path().join("old.csv");
    fixable(&old, 100_000);
    let old_bytes = std::fs::read(&old).expect("read");
    let new = dir.path().join("new.csv");
    fixable(&new, 10);
    let new_bytes = std::fs::read(&new).expect("read");
    let link = dir.path().join("employees.csv");
    std::os::unix::fs::symlink("old.csv", &link).expect("symlink");
    let (code, stderr) = meddle_while_fixing(dir.path(), &link, || {
        let next = dir.path().join("next-link");
        std::os::unix::fs::symlink("new.csv", &next).expect("symlink");
        std::fs::rename(&next, &link).expect("rename");
    });
    assert_eq!(code, Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains("the link now names another file"),
        "{stderr}"
    );
    assert!(std::fs::read(&old).expect("read") == old_bytes);
    assert!(std::fs::read(&new).expect("read") == new_bytes);
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}

/// The mode bits decide, even for root (who could write the file anyway):
/// the file is not rewritten, its findings are reported, the run says why
/// and exits 2, and the summary counts it as not fixed, not unchecked.
#[test]
fn a_read_only_file_is_refused_and_its_findings_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("employees.csv");
    std::fs::write(&f, DAMAGED).expect("write");
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    let out = bdxlint()
        .current_dir(dir.path())
        .args([
            "check",
            "--fix",
            "--format",
            "employees",
            "--color",
            "never",
        ])
        .args(["--output-format", "concise", "employees.csv"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("employees.csv:2:"), "{stdout}");
    assert!(stdout.contains("C004"), "{stdout}");
    assert!(
        stderr.contains(
            "employees.csv: read-only (its mode gives its owner no write permission): not fixed"
        ),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&f).expect("read"), DAMAGED);
    assert_eq!(
        std::fs::metadata(&f).expect("stat").permissions().mode() & 0o777,
        0o444
    );
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
    // A diff writes nothing: a read-only file is diffed as any other.
    bdxlint()
        .current_dir(dir.path())
        .args(["check", "--diff", "--format", "employees", "employees.csv"])
        .assert()
        .code(1)
        .stdout(predicates::str::contains("+Ada,ada@example.com,03/07/2024"));
}

#[test]
fn the_summary_counts_a_file_not_fixed_apart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("employees.csv");
    std::fs::write(&f, DAMAGED).expect("write");
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    let out = bdxlint()
        .current_dir(dir.path())
        .args([
            "check",
            "--fix",
            "--quiet",
            "--format",
            "employees",
            "employees.csv",
        ])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(" in 1 file; 1 file not fixed"), "{stdout}");
    assert!(!stdout.contains("not checked"), "{stdout}");
    assert!(!stdout.contains("0 errors"), "{stdout}");
    // JSON lists the file once, with its findings, and counts it apart.
    let out = bdxlint()
        .current_dir(dir.path())
        .args(["check", "--fix", "--output-format", "json"])
        .args(["--format", "employees", "employees.csv"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["files"].as_array().expect("files").len(), 1, "{doc}");
    assert_eq!(
        doc["files"][0]["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .len(),
        2
    );
    assert_eq!(doc["summary"]["not_fixed"], 1, "{doc}");
    assert_eq!(doc["summary"]["unreadable"], 0, "{doc}");
}

/// A rename would give one name the fixed bytes and leave the other the
/// old ones.
#[test]
fn a_hard_linked_file_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("employees.csv");
    std::fs::write(&f, DAMAGED).expect("write");
    let other = dir.path().join("backup.csv");
    std::fs::hard_link(&f, &other).expect("link");
    let ino = std::fs::metadata(&f).expect("stat").ino();
    bdxlint()
        .current_dir(dir.path())
        .args(["check", "--fix", "--format", "employees", "employees.csv"])
        .assert()
        .code(2)
        .stdout(predicates::str::contains("C004"))
        .stderr(predicates::str::contains(
            "employees.csv: has 2 hard links: replacing it would leave the other names with the old bytes, so it was not fixed",
        ));
    for p in [&f, &other] {
        assert_eq!(std::fs::read_to_string(p).expect("read"), DAMAGED);
        assert_eq!(std::fs::metadata(p).expect("stat").ino(), ino);
    }
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}

/// Owner and group (root may give files away), and the mode with its
/// set-group-ID bit, which a change of owner would clear if it came last.
#[test]
fn owner_group_and_mode_are_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("employees.csv");
    std::fs::write(&f, DAMAGED).expect("write");
    if std::fs::metadata(&f).expect("stat").uid() != 0 {
        eprintln!("skipped: only root can give a file to another owner to test this");
        return;
    }
    std::os::unix::fs::chown(&f, Some(1234), Some(5678)).expect("chown");
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o2664)).expect("chmod");
    bdxlint()
        .current_dir(dir.path())
        .args([
            "check",
            "--fix",
            "-q",
            "--format",
            "employees",
            "employees.csv",
        ])
        .assert()
        .code(1);
    assert_eq!(std::fs::read_to_string(&f).expect("read"), FIXED);
    let m = std::fs::metadata(&f).expect("stat");
    assert_eq!((m.uid(), m.gid()), (1234, 5678));
    assert_eq!(m.mode() & 0o7777, 0o2664);
}

/// A user's attribute (a tag an export job set) survives the rename.
#[test]
fn extended_attributes_are_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("employees.csv");
    std::fs::write(&f, DAMAGED).expect("write");
    let name = "user.bdxlint.origin";
    match rustix::fs::setxattr(&f, name, b"export-job 42", rustix::fs::XattrFlags::empty()) {
        Ok(()) => {}
        Err(e) if e == rustix::io::Errno::OPNOTSUPP => {
            eprintln!(
                "skipped: the file system of the temporary directory keeps no user attributes"
            );
            return;
        }
        Err(e) => panic!("setxattr: {e}"),
    }
    bdxlint()
        .current_dir(dir.path())
        .args([
            "check",
            "--fix",
            "-q",
            "--format",
            "employees",
            "employees.csv",
        ])
        .assert()
        .code(1);
    assert_eq!(std::fs::read_to_string(&f).expect("read"), FIXED);
    let mut buf = [0u8; 64];
    let n = rustix::fs::getxattr(&f, name, &mut buf[..]).expect("the attribute is kept");
    assert_eq!(&buf[..n], b"export-job 42");
}

/// `check --fix tree/` never writes outside the tree: a walk follows no
/// link (as ripgrep's), so a link to a file elsewhere is neither checked
/// nor fixed; the files of the tree are.
#[test]
fn a_walk_follows_no_link_and_fixes_nothing_outside_its_tree() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tree = dir.path().join("tree");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&tree).expect("mkdir");
    std::fs::create_dir_all(&outside).expect("mkdir");
    let victim = outside.join("employees.csv");
    std::fs::write(&victim, DAMAGED).expect("write");
    std::os::unix::fs::symlink(&victim, tree.join("link.csv")).expect("symlink");
    let own = tree.join("employees.csv");
    std::fs::write(&own, DAMAGED).expect("write");
    bdxlint()
        .current_dir(dir.path())
        .args([
            "check",
            "--fix",
            "--format",
            "employees",
            "--output-format",
            "concise",
            "tree",
        ])
        .assert()
        .code(1)
        .stdout(predicates::str::contains("link.csv").not());
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), DAMAGED);
    assert_eq!(std::fs::read_to_string(&own).expect("read"), FIXED);
    assert!(std::fs::symlink_metadata(tree.join("link.csv"))
        .expect("stat")
        .file_type()
        .is_symlink());
    // Checking alone walks the same files.
    std::fs::write(&own, DAMAGED).expect("write");
    bdxlint()
        .current_dir(dir.path())
        .args([
            "check",
            "--format",
            "employees",
            "--output-format",
            "concise",
            "tree",
        ])
        .assert()
        .code(1)
        .stdout(predicates::str::contains("tree/employees.csv:2:"))
        .stdout(predicates::str::contains("link.csv").not());
}

use predicates::prelude::PredicateBooleanExt;

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
}

/// A FIFO would be waited on for ever (no writer) or read once and then
/// waited on again: `--fix` and `--diff` refuse it at once.
#[test]
fn fix_and_diff_refuse_a_fifo_instead_of_waiting() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("employees.csv");
    mkfifo(&fifo);
    for flag in ["--fix", "--diff"] {
        bdxlint()
            .current_dir(dir.path())
            .args(["check", flag, "--format", "employees", "employees.csv"])
            .timeout(Duration::from_secs(20))
            .assert()
            .code(2)
            .stderr(predicates::str::contains(
                "employees.csv: not a regular file (a FIFO): --fix and --diff read a file more than once and replace it",
            ));
        assert!(std::fs::symlink_metadata(&fifo)
            .expect("stat")
            .file_type()
            .is_fifo());
    }
    // Checking alone still reads it, once, as a stream.
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(&fifo, DAMAGED).expect("write the pipe"))
    };
    bdxlint()
        .current_dir(dir.path())
        .args([
            "check",
            "--format",
            "employees",
            "--output-format",
            "concise",
        ])
        .arg("employees.csv")
        .timeout(Duration::from_secs(20))
        .assert()
        .code(1)
        .stdout(predicates::str::contains(
            "employees.csv:2:21: C004 [error]",
        ));
    writer.join().expect("writer done");
}

use std::os::unix::fs::FileTypeExt;

use crate::common::{fixable, leftovers};

/// A device named through a link is refused, and stays a device.
#[test]
fn fix_refuses_a_device() {
    let dir = tempfile::tempdir().expect("tempdir");
    let link = dir.path().join("employees.csv");
    std::os::unix::fs::symlink("/dev/null", &link).expect("symlink");
    bdxlint()
        .current_dir(dir.path())
        .args(["check", "--fix", "--format", "employees", "employees.csv"])
        .timeout(Duration::from_secs(20))
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "employees.csv: not a regular file (a device)",
        ));
    assert!(std::fs::metadata("/dev/null")
        .expect("stat")
        .file_type()
        .is_char_device());
}

/// A copy that cannot be written (here a file-size limit: EFBIG) leaves
/// the file as it was, and its findings are still reported with the
/// error: not "0 errors ... 1 file not checked".
#[test]
fn a_copy_that_cannot_be_written_still_reports_the_findings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("employees.csv");
    // About 250 KB against a limit of 100 KiB.
    fixable(&path, 3_000);
    let before = std::fs::read(&path).expect("read");
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg("ulimit -f 100; exec \"$0\" check --fix --quiet \"$1\"")
        .arg(bin())
        .arg(&path)
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(stderr.contains("File too large"), "stderr: {stderr}");
    assert!(
        stderr.contains("not fixed, left as it was"),
        "stderr: {stderr}"
    );
    assert!(
        stdout.contains("fixed 0 (3000 remaining); 3000 errors, 0 warnings, 0 infos in 1 file; 1 file not fixed"),
        "stdout: {stdout}"
    );
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
    assert!(std::fs::read(&path).expect("read") == before);
}
