//! Input that is not clean gets diagnostics, never a panic.

use bdxlint::check::{check_reader, FileReport, Options};
use bdxlint::report::{render, HumanOptions, OutputFormat};
use proptest::prelude::*;

const HEADER: &str = "Full Name,Work Email,Start Date,Metadata Version,Metadata\n";

fn check(data: &[u8]) -> FileReport {
    let opts = Options {
        format: Some("employees".into()),
        ..Options::default()
    };
    check_reader(data, "f.csv", None, &opts).expect("checks")
}

fn names(r: &FileReport) -> Vec<&'static str> {
    r.diagnostics.iter().map(|d| d.rule.name).collect()
}

#[test]
fn header_only_file_is_valid_with_zero_records() {
    for data in [
        HEADER.trim_end().as_bytes(),
        HEADER.as_bytes(),
        b"Full Name,Work Email,Start Date\r\n\r\n\n",
    ] {
        let r = check(data);
        assert_eq!(r.records, 0);
        assert!(r.diagnostics.is_empty(), "{:?}", names(&r));
    }
}

#[test]
fn blank_trailing_lines_and_crlf_are_fine() {
    let r = check(b"Full Name,Work Email,Start Date\r\nAda,ada@example.com,03/07/2024\r\n\r\n\r\n");
    assert_eq!(r.records, 1);
    assert!(r.diagnostics.is_empty(), "{:?}", names(&r));
    let r = check(b"Full Name,Work Email,Start Date\nAda,ada@example.com,03/07/2024");
    assert_eq!(r.records, 1, "last row without a line ending");
    assert!(r.diagnostics.is_empty(), "{:?}", names(&r));
}

#[test]
fn huge_cells_are_checked_and_quoted_briefly() {
    let big = "x".repeat(8 << 20);
    let data = format!("{HEADER}\"{big}\",{big}@,03/07/2024,,\n");
    let r = check(data.as_bytes());
    assert_eq!(names(&r), ["invalid-email"]);
    assert!(
        r.diagnostics[0].message.len() < 200,
        "message quotes a prefix"
    );
    let snippet = r.diagnostics[0].snippet.as_ref().expect("snippet");
    assert!(snippet.text.len() <= 8192, "snippets are capped");
}

#[test]
fn deep_json_neither_overflows_nor_misreports() {
    // Within Go's encoding/json limit (10,000 levels): parsed, and only the
    // unknown key is reported (the value under it is not walked).
    let deep = format!("{}{}", "[".repeat(9_000), "]".repeat(9_000));
    let data = format!("{HEADER}Ada,ada@example.com,03/07/2024,v1,\"{{\"\"a\"\":{deep}}}\"\n");
    let r = check(data.as_bytes());
    assert_eq!(names(&r), ["json-unknown-key"]);
    // Far past it: one finding at the first byte past the limit, no crash.
    for close in [100_000, 99_999] {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(close));
        let data = format!("{HEADER}Ada,ada@example.com,03/07/2024,v1,\"{{\"\"a\"\":{deep}}}\"\n");
        let r = check(data.as_bytes());
        assert_eq!(names(&r), ["invalid-json"]);
        let d = &r.diagnostics[0];
        assert!(
            d.message.contains("nested deeper than 10000"),
            "{}",
            d.message
        );
        let at = d.span.start as usize;
        assert_eq!(data.as_bytes()[at], b'[');
        // The object around the arrays is the first of the 10,000 levels.
        assert_eq!(data[..at].matches('[').count(), 9_999);
    }
}

#[test]
fn utf16_is_refused_with_one_finding() {
    let mut data = vec![0xFF, 0xFE];
    for c in HEADER.encode_utf16() {
        data.extend(c.to_le_bytes());
    }
    let r = check(&data);
    assert_eq!(names(&r), ["unsupported-encoding"]);
}

#[test]
fn a_runaway_first_record_is_not_called_empty() {
    let mut data = b"\"Full Name,Work Email".to_vec();
    data.extend(std::iter::repeat_n(b'x', 4096));
    let opts = Options {
        format: Some("employees".into()),
        chunk_size: 256,
        max_record_bytes: 1024,
        ..Options::default()
    };
    let r = check_reader(&data[..], "f.csv", None, &opts).expect("checks");
    assert_eq!(names(&r), ["unterminated-quote"]);
}

fn render_all(r: FileReport) -> String {
    let mut out = Vec::new();
    let reports = std::slice::from_ref(&r);
    let summary = bdxlint::report::Summary::of(reports, &[]);
    // Every output format, the CI ones included: spans over arbitrary bytes
    // must never make a renderer panic (end columns, fingerprints, escaping).
    for format in OutputFormat::ALL {
        render(
            &mut out,
            format,
            reports,
            &[],
            &summary,
            &HumanOptions::default(),
        )
        .expect("renders");
    }
    String::from_utf8(out).expect("outputs are UTF-8")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any bytes after a valid header: no panic, in checking or rendering.
    #[test]
    fn arbitrary_rows_never_panic(
        body in prop::collection::vec(
            prop::sample::select(b"a1@./,\"\n\r\t {}[]:\xe9\xff\xc3".to_vec()),
            0..200,
        ),
        chunk_size in 1usize..64,
    ) {
        let mut data = HEADER.as_bytes().to_vec();
        data.extend(&body);
        let opts = Options {
            format: Some("employees".into()),
            chunk_size,
            ..Options::default()
        };
        let r = check_reader(&data[..], "f.csv", None, &opts).expect("checks");
        for d in &r.diagnostics {
            prop_assert!(d.span.start <= d.span.end && d.span.end <= data.len() as u64);
            prop_assert!(d.line >= 1 && d.col >= 1);
        }
        render_all(r);
    }

    /// Any bytes at all, header included, with detection.
    #[test]
    fn arbitrary_files_never_panic(data in prop::collection::vec(any::<u8>(), 0..300)) {
        match check_reader(&data[..], "f.csv", None, &Options::default()) {
            Ok(r) => { render_all(r); }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}

/// A NUL byte is one `nul-byte` finding per cell, at the first NUL, in the
/// header as in the rows, and in rows whose cells are otherwise not
/// checked (a ragged row).
#[test]
fn nul_bytes_are_one_finding_per_cell_at_the_first() {
    let data = b"Full Name,Work\0 Email,Start Date\n\
        Ada\0\0 Lovelace,ada@example.com,03/07/2024\n\
        Grace,\"g\0@example.com\",02/29/2024,\0extra\n\
        Alan,alan@example.com,06/23/2024\n";
    for chunk_size in [1, 1 << 20] {
        let opts = Options {
            format: Some("employees".into()),
            chunk_size,
            ..Options::default()
        };
        let r = check_reader(&data[..], "f.csv", None, &opts).expect("checks");
        let nul: Vec<(u64, u64, &str)> = r
            .diagnostics
            .iter()
            .filter(|d| d.rule.name == "nul-byte")
            .map(|d| {
                assert_eq!(d.span.end - d.span.start, 1);
                assert_eq!(data[d.span.start as usize], 0);
                (d.line, d.col, d.message.as_str())
            })
            .collect();
        assert_eq!(
            nul,
            [
                (1, 15, "a NUL byte (0x00) in this cell"),
                (2, 4, "2 NUL bytes (0x00) in this cell, the first here"),
                (3, 9, "a NUL byte (0x00) in this cell"),
                (3, 35, "a NUL byte (0x00) in this cell"),
            ],
            "chunk size {chunk_size}"
        );
    }
}
