//! The files bdxlint creates never destroy anything (part of issue 28):
//! an output (`--output-file`, `--write-baseline`, `--split`) that names an
//! input, or the file another output names, is refused before anything is
//! read; a device, a FIFO or a descriptor link is written in place, never
//! replaced by a renamed regular file; created files get the umask's mode,
//! and a replaced one keeps its own.

use assert_cmd::Command;
use std::path::Path;

/// One clean row and one with a date in error.
const MIXED: &str = "Full Name,Work Email,Start Date\n\
                     Ada Lovelace,ada@example.com,03/07/2024\n\
                     Bob Byron,bob@example.com,3/7/2024\n";

fn bdxlint(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("bdxlint").expect("binary builds");
    c.current_dir(dir);
    c
}

/// Runs `bdxlint check ARGS` in `dir`, returning (exit code, stdout, stderr).
fn check(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = bdxlint(dir)
        .arg("check")
        .args(args)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The names in `dir`, sorted: what a refused run must leave as it was
/// (no output created, no temporary file left).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("in.csv"), MIXED).expect("write");
    dir
}

/// Asserts a refusal: exit 2, the one line `bdxlint: {message}`, the input
/// as it was and nothing else in the directory.
fn assert_refused(dir: &Path, args: &[&str], message: &str) {
    let (code, out, err) = check(dir, args);
    assert_eq!(code, Some(2), "{args:?}: {err}");
    assert_eq!(err, format!("bdxlint: {message}\n"), "{args:?}");
    assert!(out.is_empty(), "{args:?}: {out}");
    assert_eq!(
        std::fs::read_to_string(dir.join("in.csv")).expect("input"),
        MIXED,
        "{args:?}"
    );
    assert_eq!(names(dir), ["in.csv"], "{args:?}");
}

#[test]
fn an_output_that_names_an_input_is_refused_before_anything_is_read() {
    let dir = setup();
    let d = dir.path();
    assert_refused(
        d,
        &["-o", "in.csv", "in.csv"],
        "--output-file in.csv is also an input",
    );
    // Another spelling of the same file, and a file a directory walk finds.
    assert_refused(
        d,
        &["--output-file", "./in.csv", "in.csv"],
        "--output-file ./in.csv is also an input",
    );
    assert_refused(
        d,
        &["-o", "in.csv", "."],
        "--output-file in.csv is also an input",
    );
    assert_refused(
        d,
        &["--write-baseline", "in.csv", "in.csv"],
        "--write-baseline in.csv is also an input",
    );
    assert_refused(
        d,
        &["--split", "in.csv", "bad.csv", "in.csv"],
        "--split GOOD in.csv is also an input",
    );
    assert_refused(
        d,
        &["--split", "good.csv", "in.csv", "in.csv"],
        "--split BAD in.csv is also an input",
    );
    // The other files a run reads.
    assert_refused(
        d,
        &["--entities", "in.csv", "-o", "in.csv", "other.csv"],
        "--output-file in.csv is also an --entities file",
    );
}

#[cfg(unix)]
#[test]
fn a_hard_or_symbolic_link_to_an_input_is_the_input() {
    let dir = setup();
    let d = dir.path();
    let sub = tempfile::tempdir().expect("tempdir");
    let hard = sub.path().join("hard.csv");
    std::fs::hard_link(d.join("in.csv"), &hard).expect("hard link");
    let soft = sub.path().join("soft.csv");
    std::os::unix::fs::symlink(d.join("in.csv"), &soft).expect("symlink");
    for link in [&hard, &soft] {
        let l = link.to_str().expect("utf-8");
        assert_refused(
            d,
            &["-o", l, "in.csv"],
            &format!("--output-file {l} is also an input"),
        );
    }
}

#[test]
fn two_outputs_that_name_one_file_are_refused() {
    let dir = setup();
    let d = dir.path();
    assert_refused(
        d,
        &["--split", "out.csv", "out.csv", "in.csv"],
        "--split GOOD out.csv and --split BAD out.csv are one file",
    );
    assert_refused(
        d,
        &["--split", "out.csv", "./sub/../out.csv", "in.csv"],
        "--split GOOD out.csv and --split BAD ./sub/../out.csv are one file",
    );
    assert_refused(
        d,
        &["-o", "r.json", "--write-baseline", "r.json", "in.csv"],
        "--output-file r.json and --write-baseline r.json are one file",
    );
    assert_refused(
        d,
        &["-o", "r.json", "--split", "g.csv", "r.json", "in.csv"],
        "--output-file r.json and --split BAD r.json are one file",
    );
}

#[test]
fn a_directory_as_output_is_refused() {
    let dir = setup();
    let d = dir.path();
    assert_refused(d, &["-o", ".", "in.csv"], "--output-file . is a directory");
}

/// The baseline a run reads may be the one `--write-baseline` replaces
/// (report against the old, record the new), but no other output's.
#[test]
fn only_write_baseline_may_replace_the_baseline_read() {
    let dir = setup();
    let d = dir.path();
    let (code, _, err) = check(d, &["--write-baseline", "b.json", "in.csv"]);
    assert_eq!(code, Some(0), "{err}");
    let recorded = std::fs::read_to_string(d.join("b.json")).expect("baseline");
    let (code, out, err) = check(d, &["--baseline", "b.json", "-o", "b.json", "in.csv"]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            Some(2),
            "",
            "bdxlint: --output-file b.json is also the --baseline file\n"
        )
    );
    assert_eq!(
        std::fs::read_to_string(d.join("b.json")).expect("baseline"),
        recorded
    );
    let (code, _, err) = check(
        d,
        &[
            "--baseline",
            "b.json",
            "--write-baseline",
            "b.json",
            "in.csv",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
}

/// Standard input redirected from a file is that file.
#[cfg(unix)]
#[test]
fn an_output_that_is_standard_inputs_file_is_refused() {
    let dir = setup();
    let d = dir.path();
    // A redirect (`< in.csv`), not a pipe fed from the file.
    let stdin = std::fs::File::open(d.join("in.csv")).expect("open");
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("bdxlint"))
        .current_dir(d)
        .args(["check", "-o", "in.csv", "-"])
        .stdin(stdin)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "bdxlint: --output-file in.csv is also standard input\n"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("in.csv")).expect("input"),
        MIXED
    );
}

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
}

#[cfg(unix)]
fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(path)
        .expect("stat")
        .file_type()
        .is_fifo()
}

/// A reading process, killed if the test fails before it is waited for.
struct Reader(Option<std::process::Child>);

impl Drop for Reader {
    fn drop(&mut self) {
        if let Some(c) = &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A FIFO as `-o`, `--write-baseline` or a `--split` half: a process
/// reading it gets what was written, and it stays a FIFO.
#[cfg(unix)]
#[test]
fn a_fifo_output_is_written_to_its_reader_and_stays_a_fifo() {
    let dir = setup();
    let d = dir.path();
    let fifo = d.join("fifo");
    mkfifo(&fifo);
    let (_, expected, _) = check(d, &["--output-format", "concise", "in.csv"]);
    assert!(expected.contains("C004"), "{expected}");
    let cases: [(&[&str], &str); 3] = [
        (&["--output-format", "concise", "-o", "fifo"], "C004"),
        (&["--write-baseline", "fifo"], "bdxlint baseline 2\n"),
        (&["-q", "--split", "good.csv", "fifo"], "Bob Byron"),
    ];
    for (args, wanted) in cases {
        // A real process, reading until the writer closes.
        let mut reader = Reader(Some(
            std::process::Command::new("cat")
                .arg(&fifo)
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("cat runs"),
        ));
        let mut all = args.to_vec();
        all.push("in.csv");
        let (code, _, err) = check(d, &all);
        // Before waiting for the reader, which waits for a writer: a FIFO
        // replaced, or never opened, would leave it waiting for ever.
        assert!(matches!(code, Some(0 | 1)), "{args:?}: {err}");
        assert!(is_fifo(&fifo), "{args:?}");
        let got = reader
            .0
            .take()
            .expect("reader")
            .wait_with_output()
            .expect("cat ends");
        let got = String::from_utf8_lossy(&got.stdout);
        assert!(got.contains(wanted), "{args:?}: {got}");
        if args.contains(&"-o") {
            assert_eq!(got, expected);
        }
        assert!(is_fifo(&fifo), "{args:?}");
        let _ = std::fs::remove_file(d.join("good.csv"));
        assert_eq!(names(d), ["fifo", "in.csv"], "{args:?}");
    }
}

/// A symbolic link to a device (as `/dev/stdout` is, or a CI script's
/// `report -> /dev/null`) is followed: the device is written, the link
/// stays a link.
#[cfg(unix)]
#[test]
fn a_link_to_a_device_is_written_through_and_stays_a_link() {
    let dir = setup();
    let d = dir.path();
    std::os::unix::fs::symlink("/dev/null", d.join("null")).expect("symlink");
    for args in [
        &["-o", "null", "in.csv"][..],
        &["--write-baseline", "null", "in.csv"],
        &["--split", "null", "null", "in.csv"],
    ] {
        let (code, _, err) = check(d, args);
        assert!(matches!(code, Some(0 | 1)), "{args:?}: {err}");
        let m = std::fs::symlink_metadata(d.join("null")).expect("stat");
        assert!(m.file_type().is_symlink(), "{args:?}");
        assert_eq!(names(d), ["in.csv", "null"], "{args:?}");
    }
}

/// The real `/dev/null` (as root, replacing it would break every later
/// step of a CI job): written, never replaced.
#[cfg(unix)]
#[test]
fn dev_null_stays_a_character_device() {
    use std::os::unix::fs::FileTypeExt;
    let dir = setup();
    let d = dir.path();
    for args in [
        &["-o", "/dev/null", "in.csv"][..],
        &["--write-baseline", "/dev/null", "in.csv"],
        &["--split", "/dev/null", "/dev/null", "in.csv"],
    ] {
        let (code, _, err) = check(d, args);
        assert!(matches!(code, Some(0 | 1)), "{args:?}: {err}");
        let m = std::fs::symlink_metadata("/dev/null").expect("stat");
        assert!(m.file_type().is_char_device(), "{args:?}");
        assert_eq!(names(d), ["in.csv"], "{args:?}");
    }
}

/// `-o /dev/stdout` writes to the standard output the run was given: a
/// pipe, or a regular file the shell opened (written through, appending,
/// the same file afterwards).
#[cfg(target_os = "linux")]
#[test]
fn dev_stdout_is_written_through() {
    use std::os::unix::fs::MetadataExt;
    let dir = setup();
    let d = dir.path();
    let (_, expected, _) = check(d, &["--output-format", "concise", "in.csv"]);
    let (code, piped, _) = check(
        d,
        &["--output-format", "concise", "-o", "/dev/stdout", "in.csv"],
    );
    assert_eq!((code, piped.as_str()), (Some(1), expected.as_str()));
    let sink = tempfile::tempdir().expect("tempdir");
    let file = sink.path().join("x.txt");
    std::fs::write(&file, "before\n").expect("write");
    let ino = std::fs::metadata(&file).expect("stat").ino();
    let append = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .expect("open");
    let status = std::process::Command::new(assert_cmd::cargo::cargo_bin("bdxlint"))
        .current_dir(d)
        .args([
            "check",
            "--output-format",
            "concise",
            "-o",
            "/dev/stdout",
            "in.csv",
        ])
        .stdout(append)
        .stderr(std::process::Stdio::null())
        .status()
        .expect("runs");
    assert_eq!(status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        format!("before\n{expected}")
    );
    assert_eq!(std::fs::metadata(&file).expect("stat").ino(), ino);
}

/// Runs `bdxlint check ARGS` in `dir` under `umask`.
#[cfg(unix)]
fn check_under_umask(dir: &Path, umask: &str, args: &[&str]) -> Option<i32> {
    std::process::Command::new("sh")
        .current_dir(dir)
        .arg("-c")
        .arg(format!(
            "umask {umask}; exec \"$0\" check \"$@\" 2>/dev/null >/dev/null"
        ))
        .arg(assert_cmd::cargo::cargo_bin("bdxlint"))
        .args(args)
        .status()
        .expect("sh runs")
        .code()
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).expect("stat").permissions().mode() & 0o7777
}

/// Files bdxlint creates get `0o666 & !umask`, as `>` in a shell gives;
/// a file it replaces keeps its own mode.
#[cfg(unix)]
#[test]
fn created_files_get_the_umasks_mode_and_replaced_ones_keep_theirs() {
    use std::os::unix::fs::PermissionsExt;
    let args = [
        "-o",
        "r.txt",
        "--write-baseline",
        "b.json",
        "--split",
        "g.csv",
        "x.csv",
        "in.csv",
    ];
    for (umask, want) in [("022", 0o644), ("027", 0o640), ("002", 0o664)] {
        let dir = setup();
        let d = dir.path();
        // A baseline written: nothing new, exit 0.
        assert_eq!(check_under_umask(d, umask, &args), Some(0), "umask {umask}");
        for f in ["r.txt", "b.json", "g.csv", "x.csv"] {
            assert_eq!(mode(&d.join(f)), want, "umask {umask}: {f}");
        }
        // Replaced: each keeps the mode it had, whatever the umask.
        for (f, m) in [
            ("r.txt", 0o604),
            ("b.json", 0o600),
            ("g.csv", 0o660),
            ("x.csv", 0o640),
        ] {
            std::fs::write(d.join(f), "OLD").expect("write");
            std::fs::set_permissions(d.join(f), std::fs::Permissions::from_mode(m)).expect("chmod");
        }
        assert_eq!(check_under_umask(d, umask, &args), Some(0), "umask {umask}");
        for (f, m) in [
            ("r.txt", 0o604),
            ("b.json", 0o600),
            ("g.csv", 0o660),
            ("x.csv", 0o640),
        ] {
            assert_eq!(mode(&d.join(f)), m, "umask {umask}: {f}");
            assert_ne!(
                std::fs::read_to_string(d.join(f)).expect("read"),
                "OLD",
                "{f} replaced"
            );
        }
    }
}

/// A symbolic link to a regular file as an output: its target is replaced
/// (with its mode), the link stays a link, as `--fix` treats an input.
#[cfg(unix)]
#[test]
fn a_link_to_a_regular_file_keeps_the_link_and_replaces_its_target() {
    let dir = setup();
    let d = dir.path();
    std::fs::create_dir(d.join("reports")).expect("mkdir");
    std::fs::write(d.join("reports/r.txt"), "OLD").expect("write");
    std::os::unix::fs::symlink("reports/r.txt", d.join("latest")).expect("symlink");
    let (code, _, err) = check(d, &["--output-format", "concise", "-o", "latest", "in.csv"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(std::fs::symlink_metadata(d.join("latest"))
        .expect("stat")
        .file_type()
        .is_symlink());
    let report = std::fs::read_to_string(d.join("reports/r.txt")).expect("read");
    assert!(report.contains("C004"), "{report}");
    assert_eq!(names(&d.join("reports")), ["r.txt"]);
}

/// An output is replaced only where `--fix` would replace a file: not a
/// read-only one (root included), not one with other names.
#[cfg(unix)]
#[test]
fn read_only_or_hard_linked_outputs_are_refused_and_left() {
    use std::os::unix::fs::PermissionsExt;
    for (flag, target) in [("-o", "r.txt"), ("--write-baseline", "b.json")] {
        let dir = setup();
        let d = dir.path();
        std::fs::write(d.join(target), "OLD").expect("write");
        std::fs::set_permissions(d.join(target), std::fs::Permissions::from_mode(0o444))
            .expect("chmod");
        let (code, _, err) = check(d, &[flag, target, "in.csv"]);
        assert_eq!(code, Some(2), "{flag}: {err}");
        assert!(err.contains("read-only"), "{flag}: {err}");
        assert_eq!(
            std::fs::read_to_string(d.join(target)).expect("read"),
            "OLD"
        );
        std::fs::set_permissions(d.join(target), std::fs::Permissions::from_mode(0o644))
            .expect("chmod");
        std::fs::hard_link(d.join(target), d.join("other-name")).expect("link");
        let (code, _, err) = check(d, &[flag, target, "in.csv"]);
        assert_eq!(code, Some(2), "{flag}: {err}");
        assert!(err.contains("hard links"), "{flag}: {err}");
        assert_eq!(
            std::fs::read_to_string(d.join(target)).expect("read"),
            "OLD"
        );
        assert_eq!(
            std::fs::read_to_string(d.join("other-name")).expect("read"),
            "OLD"
        );
    }
}

/// A `bdxlint.toml` found on its own is read like `--config`: no output may
/// replace it.
#[test]
fn a_config_found_by_discovery_is_not_an_output() {
    for flag in ["-o", "--write-baseline"] {
        let dir = setup();
        let d = dir.path();
        let config = "ignore = [\"X004\"]\n";
        std::fs::write(d.join("bdxlint.toml"), config).expect("write");
        let (code, _, err) = check(d, &[flag, "bdxlint.toml", "in.csv"]);
        assert_eq!(code, Some(2), "{flag}: {err}");
        assert!(err.contains("config file"), "{flag}: {err}");
        assert_eq!(
            std::fs::read_to_string(d.join("bdxlint.toml")).expect("read"),
            config
        );
    }
}

/// A run that could not check every file writes no baseline: it would drop
/// the entries of the file it did not see.
#[test]
fn a_baseline_is_not_rewritten_by_a_run_that_missed_a_file() {
    let dir = setup();
    let d = dir.path();
    std::fs::write(d.join("b.csv"), MIXED).expect("write");
    let (code, _, err) = check(d, &["--write-baseline", "base.json", "in.csv", "b.csv"]);
    assert_eq!(code, Some(0), "{err}");
    let before = std::fs::read_to_string(d.join("base.json")).expect("baseline");
    std::fs::rename(d.join("b.csv"), d.join("b.away")).expect("mv");
    let (code, _, err) = check(d, &["--write-baseline", "base.json", "in.csv", "b.csv"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("baseline base.json not written"), "{err}");
    assert_eq!(
        std::fs::read_to_string(d.join("base.json")).expect("baseline"),
        before
    );
}

/// Devices as `--split` halves are written in place: nothing is made in
/// their directory (as root, a probe or a copy in `/dev`).
#[cfg(unix)]
#[test]
fn split_into_dev_null_makes_nothing_in_dev() {
    let in_dev = || -> Vec<String> {
        std::fs::read_dir("/dev")
            .expect("/dev")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".bdxlint"))
            .collect()
    };
    let dir = setup();
    let d = dir.path();
    let (code, _, err) = check(d, &["--split", "/dev/null", "/dev/null", "in.csv"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("1 rows without errors to /dev/null"), "{err}");
    assert!(in_dev().is_empty());
    let (code, _, err) = check(d, &["--fix", "--split", "/dev/null", "/dev/null", "in.csv"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(in_dev().is_empty());
    assert_eq!(
        std::fs::read_to_string(d.join("in.csv")).expect("in"),
        MIXED
    );
}

/// The file split is the file checked: one replaced (a rename, as an
/// export job makes) while it is checked is not split with the other's
/// verdicts. Real processes: a large file, the rename mid-run.
///
/// The rename has to land after the halves are opened and before the
/// check ends. Under a full parallel run this thread can wait its turn
/// past that window (it did, about once in a few dozen loaded runs); the
/// run then splits the first file whole into GOOD, as it should for a
/// file read to its end before it was replaced. Only that outcome, exactly,
/// counts as a lost race and is tried again: a split with any row of the
/// other file, a failed run, or five lost races fail the test.
#[test]
fn a_file_replaced_while_it_is_checked_is_not_split() {
    for _ in 0..5 {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        let Some(out) = replace_while_checking(d) else {
            continue;
        };
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("changed while it was checked"), "{err}");
        assert!(!d.join("g.csv").exists() && !d.join("b.csv").exists());
        assert_eq!(names(d), ["in.csv"]);
        return;
    }
    panic!(
        "in 5 attempts the rename never landed while the check ran, or the run never noticed it"
    );
}

/// Splits `in.csv` in `d` and renames another file over it once the
/// halves are opened: the run's output, or `None` when the race was lost
/// (the run ended first, having split the first file whole into GOOD).
fn replace_while_checking(d: &Path) -> Option<std::process::Output> {
    let rows = |email: &str| {
        let mut s = String::from("Full Name,Work Email,Start Date\n");
        // Long enough that the rename usually lands while the check runs.
        for i in 0..1_000_000 {
            s.push_str(&format!("Ada {i},{email},03/07/2024\n"));
        }
        s
    };
    let first = rows("ada@example.com");
    std::fs::write(d.join("in.csv"), &first).expect("write");
    // A lost race: the run read the first file to its end, every row to
    // GOOD, BAD the header alone, and exited without an error.
    let split_the_first = |status: std::process::ExitStatus, err: &[u8]| {
        let err = String::from_utf8_lossy(err);
        assert!(status.success(), "{status}: {err}");
        let read = |n: &str| std::fs::read_to_string(d.join(n)).expect(n);
        assert!(read("g.csv") == first, "GOOD is not the first file: {err}");
        assert_eq!(read("b.csv"), "Full Name,Work Email,Start Date\n", "{err}");
    };
    // Every row in error: split with the first file's verdicts, all would
    // go to GOOD.
    std::fs::write(d.join("next.csv"), rows("not-an-email")).expect("write");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("bdxlint"))
        .current_dir(d)
        .args(["check", "--quiet", "--split", "g.csv", "b.csv", "in.csv"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    // The halves are opened (their temporary files made) once the input's
    // identity is taken, before the check: then the file is replaced.
    let start = std::time::Instant::now();
    while !names(d).iter().any(|n| n.starts_with(".bdxlint-split-")) {
        if child.try_wait().expect("try_wait").is_some() {
            let out = child.wait_with_output().expect("wait");
            split_the_first(out.status, &out.stderr);
            return None;
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(60));
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::fs::rename(d.join("next.csv"), d.join("in.csv")).expect("mv");
    let out = child.wait_with_output().expect("wait");
    // Exit 2 is the verdict under test; anything else must be a split of
    // the first file read to its end before the rename.
    if out.status.code() == Some(2) {
        return Some(out);
    }
    split_the_first(out.status, &out.stderr);
    None
}

/// A run that cannot start (a baseline that does not read, `--entities`
/// that is not an entities file) changes no output: an `--output-file`
/// report from an earlier run stays as it was, and none is created.
#[test]
fn a_run_that_cannot_start_leaves_the_report_file_as_it_was() {
    let dir = setup();
    std::fs::write(dir.path().join("not-entities.csv"), "a,b\n1,2\n").expect("write");
    for args in [
        &["--baseline", "missing.json"][..],
        &["--entities", "not-entities.csv"][..],
    ] {
        std::fs::remove_file(dir.path().join("report.json")).ok();
        let mut all = vec!["--output-format", "json", "--output-file", "report.json"];
        all.extend_from_slice(args);
        all.push("in.csv");
        let (code, _, err) = check(dir.path(), &all);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(
            !dir.path().join("report.json").exists(),
            "{args:?}: created"
        );
        std::fs::write(dir.path().join("report.json"), "earlier").expect("write");
        let (code, _, err) = check(dir.path(), &all);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("report.json")).expect("report"),
            "earlier",
            "{args:?}"
        );
        assert_eq!(
            names(dir.path()),
            ["in.csv", "not-entities.csv", "report.json"]
        );
    }
}
