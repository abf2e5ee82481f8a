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

/// `bdxlint check --output-format concise ARGS` with `stdin`: its exit
/// code and output.
fn concise(dir: &std::path::Path, args: &[&str], stdin: &[u8]) -> (Option<i32>, String) {
    checked(dir, "concise", args, stdin)
}

/// `bdxlint check --output-format FORMAT ARGS` with `stdin`.
fn checked(
    dir: &std::path::Path,
    format: &str,
    args: &[&str],
    stdin: &[u8],
) -> (Option<i32>, String) {
    let out = assert_cmd::Command::cargo_bin("bdxlint")
        .expect("binary builds")
        .current_dir(dir)
        .args(["check", "--output-format", format])
        .args(args)
        .write_stdin(stdin)
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8(out.stdout).expect("utf-8"),
    )
}

/// An archive built in memory: each member stored under its name.
fn zip_bytes(members: &[(&str, &[u8])]) -> Vec<u8> {
    use std::io::Write;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, data) in members {
        w.start_file(*name, opts).expect("member");
        w.write_all(data).expect("write");
    }
    w.finish().expect("zip").into_inner()
}

/// A ZIP, a workbook, a PDF or gzip read as CSV is one finding that says
/// what the file is and what to do, and nothing else: a ZIP on standard
/// input was a bare quote or "UTF-16", an .xlsx named .csv "fits no known
/// format" (exit 2).
#[test]
fn a_file_that_is_not_csv_is_named_for_what_it_is() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let bundle = zip_bytes(&[("entities.csv", HEADER.as_bytes())]);
    let (code, out) = concise(d, &["-"], &bundle);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["-:1:1: F013 [error] the file is a ZIP archive, not a CSV file"]
    );
    let workbook = zip_bytes(&[
        ("[Content_Types].xml", b"<Types/>"),
        ("_rels/.rels", b"<Relationships/>"),
        ("xl/workbook.xml", b"<workbook/>"),
        ("xl/worksheets/sheet1.xml", b"<worksheet/>"),
    ]);
    std::fs::write(d.join("employees.csv"), &workbook).expect("write");
    let (code, out) = concise(d, &["employees.csv"], b"");
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["employees.csv:1:1: F013 [error] the file is an Excel workbook (.xlsx), not a CSV file"]
    );
    // The help says what to do.
    let (_, json) = checked(d, "json", &["employees.csv"], b"");
    assert!(json.contains("save it as CSV UTF-8"), "{json}");
    let mut ole = vec![0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];
    ole.resize(512, 0);
    for (bytes, what) in [
        (ole, "a legacy Excel workbook"),
        (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec(), "a PDF document"),
        (vec![0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3], "gzip-compressed"),
    ] {
        let (code, out) = concise(d, &["--format", "employees", "-"], &bytes);
        assert_eq!(code, Some(1), "{out}");
        assert_eq!(out.lines().count(), 1, "{out}");
        assert!(
            out.contains(&format!("F013 [error] the file is {what}")),
            "{out}"
        );
    }
    // UTF-16 and UTF-32 text keep their own finding.
    let mut utf32 = vec![0xFF, 0xFE, 0, 0];
    utf32.extend(HEADER.chars().flat_map(|c| (c as u32).to_le_bytes()));
    let (code, out) = concise(d, &["-"], &utf32);
    assert_eq!(code, Some(1));
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["-:1:1: F004 [error] the file is UTF-32, not UTF-8"]
    );
    // A .zip path is still a bundle.
    std::fs::write(d.join("bundle.zip"), &bundle).expect("write");
    let (code, out) = concise(d, &["bundle.zip"], b"");
    assert_eq!(code, Some(1));
    assert!(out.contains("B001"), "{out}");
    assert!(!out.contains("F013"), "{out}");
}

/// A first row of NULs within the 64 bytes the UTF-16 sniff reads is a
/// `nul-byte` finding, and the rest of the file is checked; UTF-16 without
/// a byte-order mark is still refused, in either byte order.
#[test]
fn nuls_in_a_first_row_are_not_utf16() {
    let mut data = b"Full Name,Work Email,Start Date\n".to_vec();
    data.extend_from_slice(&[0; 32]);
    data.extend_from_slice(b",ada@example.com,13/45/2024\n");
    let r = check(&data);
    assert_eq!(names(&r), ["nul-byte", "invalid-date"]);
    let mut alternating = b"Full Name,Work Email,Start Date\n".to_vec();
    alternating.extend(std::iter::repeat_n([b'A', 0], 16).flatten());
    alternating.extend_from_slice(b",ada@example.com,03/07/2024\n");
    assert_eq!(names(&check(&alternating)), ["nul-byte"]);
    for big_endian in [false, true] {
        let wide: Vec<u8> = HEADER
            .encode_utf16()
            .flat_map(|c| {
                if big_endian {
                    c.to_be_bytes()
                } else {
                    c.to_le_bytes()
                }
            })
            .collect();
        let r = check(&wide);
        assert_eq!(names(&r), ["unsupported-encoding"], "{big_endian}");
        assert!(r.diagnostics[0]
            .message
            .contains("without a byte-order mark"));
    }
}
