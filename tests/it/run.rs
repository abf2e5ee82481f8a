//! The run layer as a library call: a `Request` in, findings on `out`,
//! messages on `err`, an exit status back; nothing printed by the library.

use bdxlint::report::OutputFormat;
use bdxlint::run::{self, Request, EXIT_CLEAN, EXIT_FINDINGS, EXIT_TROUBLE};
use std::path::PathBuf;

fn at(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn check(req: &Request) -> (u8, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run::check(req, &mut out, &mut err).expect("writes to memory");
    (
        code,
        String::from_utf8(out).expect("utf-8"),
        String::from_utf8(err).expect("utf-8"),
    )
}

fn request(paths: &[PathBuf]) -> Request {
    Request {
        paths: paths.to_vec(),
        output_format: Some(OutputFormat::Concise),
        isolated: true,
        ..Request::default()
    }
}

#[test]
fn findings_go_to_out_and_set_the_exit_status() {
    let (code, out, err) = check(&request(&[at("testdata/example")]));
    assert_eq!(code, EXIT_FINDINGS);
    assert_eq!(out.lines().count(), 6, "{out}");
    assert!(err.is_empty(), "{err}");
    let (code, out, _) = check(&Request {
        exit_zero: true,
        ..request(&[at("testdata/example")])
    });
    assert_eq!(code, EXIT_CLEAN);
    assert_eq!(out.lines().count(), 6);
    let (code, out, err) = check(&request(&[at("testdata/employees/valid.csv")]));
    assert_eq!((code, out.as_str(), err.as_str()), (EXIT_CLEAN, "", ""));
}

#[test]
fn trouble_is_said_on_err_with_exit_2() {
    let (code, _, err) = check(&request(&[at("testdata/no-such-file.csv")]));
    assert_eq!(code, EXIT_TROUBLE);
    assert!(
        err.starts_with("bdxlint: ") && err.contains("no-such-file.csv"),
        "{err}"
    );
    let (code, _, err) = check(&Request {
        threads: Some(0),
        ..request(&[at("testdata/example")])
    });
    assert_eq!(code, EXIT_TROUBLE);
    assert_eq!(err, "bdxlint: --threads must be at least 1\n");
}

#[test]
fn threads_are_bounded() {
    let (code, _, err) = check(&Request {
        threads: Some(100_000_000),
        ..request(&[at("testdata/example")])
    });
    assert_eq!(code, EXIT_TROUBLE);
    assert!(err.contains("--threads 100000000 is more than"), "{err}");
    assert!(run::max_threads() >= 64);
}

#[test]
fn walks_skip_hidden_ignored_vendored_and_special_files_unless_hidden_or_no_ignore() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = "Employee ID,Full Name,Work Email\nE-1,,not-an-email\n";
    let put = |rel: &str| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, bad).expect("write");
    };
    put("uploads/employees.csv");
    put(".venv/lib/employees.csv");
    put(".config/employees.csv");
    put("uploads/.draft.csv");
    put(".git/employees.csv");
    put("node_modules/pkg/employees.csv");
    put("venv/employees.csv");
    put("exports/old/employees.csv");
    std::fs::write(dir.path().join(".ignore"), "exports/old/\n").expect("write");
    // A FIFO in a walk would block the run for ever: it is not read.
    let fifo = dir.path().join("uploads/pipe.csv");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs")
        .success());
    let files = |req: &Request| {
        let (_, out, err) = check(req);
        let mut found: Vec<String> = out
            .lines()
            .filter_map(|l| l.split(':').next())
            .map(|p| {
                p.strip_prefix(dir.path().to_str().expect("utf-8"))
                    .unwrap_or(p)
                    .to_owned()
            })
            .collect();
        found.dedup();
        (found, err)
    };
    let (found, err) = files(&request(&[dir.path().to_path_buf()]));
    assert_eq!(found, ["/uploads/employees.csv"], "{err}");
    let (found, _) = files(&Request {
        no_ignore: true,
        ..request(&[dir.path().to_path_buf()])
    });
    assert_eq!(
        found,
        [
            "/.config/employees.csv",
            "/.git/employees.csv",
            "/.venv/lib/employees.csv",
            "/exports/old/employees.csv",
            "/node_modules/pkg/employees.csv",
            "/uploads/.draft.csv",
            "/uploads/employees.csv",
            "/venv/employees.csv"
        ]
    );
    // --hidden lifts the hidden filter alone, as ripgrep's does: ignore
    // files and vendored directories still hold, and so do `.git` and
    // `.venv`, which hold no upload.
    let (found, _) = files(&Request {
        hidden: true,
        ..request(&[dir.path().to_path_buf()])
    });
    assert_eq!(
        found,
        [
            "/.config/employees.csv",
            "/uploads/.draft.csv",
            "/uploads/employees.csv"
        ]
    );
    // Named on the command line, a hidden file is checked.
    let (found, _) = files(&request(&[dir.path().join(".venv/lib/employees.csv")]));
    assert_eq!(found, ["/.venv/lib/employees.csv"]);
}
