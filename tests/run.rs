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
