//! Files as spreadsheets save them: another delimiter, Excel's `sep=`
//! line, a Windows-1252 encoding. Each is one file-level finding, and the
//! file's other findings are those of the file saved right.

use bdxlint::check::{check_reader, Options};
use bdxlint::diagnostic::Diagnostic;

fn example() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/example/employees.csv"
    ))
    .expect("the example exists")
}

fn check(data: &[u8]) -> Vec<Diagnostic> {
    let opts = Options {
        snippets: false,
        ..Options::default()
    };
    check_reader(data, "employees.csv", Some("employees.csv"), &opts)
        .expect("checks")
        .diagnostics
}

/// What a finding says, apart from its byte span: rule, line (less
/// `shift`), column (unless the copy quotes other cells: `col` false),
/// header name, message, help.
fn said(d: &Diagnostic, shift: u64, col: bool) -> String {
    format!(
        "{} {}:{} {:?} {} / {:?}",
        d.rule.code,
        d.line - shift,
        if col { d.col } else { 0 },
        d.column,
        d.message,
        d.help
    )
}

/// The findings of `copy` are those of `original` and one of `rule`,
/// lines shifted by `shift`. Returns that one.
fn one_more(original: &[u8], copy: &[u8], rule: &str, shift: u64, col: bool) -> Diagnostic {
    let want: Vec<String> = check(original).iter().map(|d| said(d, 0, col)).collect();
    assert!(!want.is_empty(), "the example has findings to compare");
    let found = check(copy);
    let (extra, rest): (Vec<_>, Vec<_>) = found.into_iter().partition(|d| d.rule.code == rule);
    let got: Vec<String> = rest.iter().map(|d| said(d, shift, col)).collect();
    assert_eq!(got, want);
    assert_eq!(extra.len(), 1, "{extra:?}");
    extra.into_iter().next().expect("one")
}

/// `data`'s records written again with `delim` (quoted only where needed).
fn with_delimiter(data: &[u8], delim: u8) -> Vec<u8> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(data);
    let mut w = csv::WriterBuilder::new()
        .delimiter(delim)
        .from_writer(Vec::new());
    for rec in r.byte_records() {
        w.write_byte_record(&rec.expect("the example is CSV"))
            .expect("write");
    }
    w.into_inner().expect("flush")
}

#[test]
fn a_semicolon_copy_is_one_finding_and_the_same_content_findings() {
    let original = example();
    for delim in [b';', b'\t', b'|'] {
        let copy = with_delimiter(&original, delim);
        // A cell quoted for its comma is not quoted any more: its column
        // moves.
        let d = one_more(&original, &copy, "F010", 0, false);
        assert_eq!(d.line, 1);
        assert_eq!(copy[d.span.start as usize], delim, "on the first delimiter");
    }
}

#[test]
fn a_sep_line_is_one_finding_and_skipped() {
    let original = example();
    let mut copy = b"sep=,\r\n".to_vec();
    copy.extend_from_slice(&original);
    let d = one_more(&original, &copy, "F011", 1, true);
    assert_eq!((d.line, d.span.clone()), (1, 0..5));
    // `sep=;` above a `;` file: the line and the delimiter, each once.
    let mut semi = b"sep=;\n".to_vec();
    semi.extend_from_slice(&with_delimiter(&original, b';'));
    let found = check(&semi);
    let codes: Vec<&str> = found.iter().map(|d| d.rule.code).collect();
    assert_eq!(codes.iter().filter(|c| **c == "F011").count(), 1);
    assert_eq!(codes.iter().filter(|c| **c == "F010").count(), 1);
    assert_eq!(found.len(), check(&original).len() + 2);
}

/// The example with accented names, in UTF-8.
fn accented() -> String {
    String::from_utf8(example())
        .expect("UTF-8")
        .replace("Ada Lovelace", "Adà Lovelacé")
        .replace("Charles Babbage", "Charlés Babbagé")
        .replace("Research", "Recherche – Développement")
        .replace("Alan Turing", "Alan Türing")
}

#[test]
fn a_windows_1252_copy_is_one_finding_and_the_same_content_findings() {
    let utf8 = accented();
    let cp1252: Vec<u8> = utf8
        .chars()
        .map(|c| match c {
            '–' => 0x96,
            c => u8::try_from(u32::from(c)).expect("Latin-1"),
        })
        .collect();
    let d = one_more(utf8.as_bytes(), &cp1252, "F012", 0, true);
    assert!(d.message.contains("Windows-1252"), "{}", d.message);
    assert!(cp1252[d.span.start as usize] >= 0x80);
    // Every other finding's span covers the same characters in the file's
    // bytes as in the UTF-8 twin's.
    let latin = |b: &[u8]| -> String {
        b.iter()
            .map(|&c| if c == 0x96 { '–' } else { char::from(c) })
            .collect()
    };
    let (a, b) = (check(utf8.as_bytes()), check(&cp1252));
    let b: Vec<_> = b.iter().filter(|d| d.rule.code != "F012").collect();
    for (x, y) in a.iter().zip(b) {
        let want = &utf8[x.span.start as usize..x.span.end as usize];
        let got = latin(&cp1252[y.span.start as usize..y.span.end as usize]);
        assert_eq!(got, want, "{}", x.message);
    }
}

/// A spreadsheet-saved file of `rows` employees: `;`, a `sep=;` line,
/// Windows-1252, a formatted empty row every 1,000 rows.
fn saved(rows: usize) -> Vec<u8> {
    let mut out =
        b"sep=;\r\nEmployee ID;Full Name;Work Email;Start Date;Platform Roles\r\n".to_vec();
    for i in 0..rows {
        out.extend_from_slice(
            format!("E-{i};Jos\u{e9} N\u{fa}\u{f1}ez {i};n{i}@example.com;03/07/2024;reviewer\r\n")
                .chars()
                .map(|c| u8::try_from(u32::from(c)).expect("Latin-1"))
                .collect::<Vec<u8>>()
                .as_slice(),
        );
        if i % 1_000 == 999 {
            out.extend_from_slice(b";;;;\r\n");
        }
    }
    out
}

#[test]
fn file_level_findings_do_not_grow_with_rows() {
    let count = |rows| {
        let found = check(&saved(rows));
        let mut codes: Vec<&str> = found.iter().map(|d| d.rule.code).collect();
        codes.sort();
        codes.dedup_by(|a, b| a == b && *a == "Q005");
        (
            codes,
            found.iter().filter(|d| d.rule.code == "Q005").count(),
        )
    };
    let (small, empty_small) = count(1_000);
    let (large, empty_large) = count(100_000);
    assert_eq!(small, ["F010", "F011", "F012", "Q005"]);
    assert_eq!(large, small);
    // One per empty row, which is a row's own finding.
    assert_eq!((empty_small, empty_large), (1, 100));
}

/// A decoded file's snippets are the file's bytes (a `?` for each byte
/// above ASCII), so the spans index them as they index the file.
#[test]
fn a_windows_1252_file_keeps_snippets_in_its_bytes() {
    let cp1252: Vec<u8> = accented()
        .replace("grace.hopper@example", "grâce.hopper@example")
        .chars()
        .map(|c| match c {
            '–' => 0x96,
            c => u8::try_from(u32::from(c)).expect("Latin-1"),
        })
        .collect();
    let report =
        check_reader(&cp1252[..], "employees.csv", None, &Options::default()).expect("checks");
    let mut seen = 0;
    for d in &report.diagnostics {
        let Some(s) = &d.snippet else { continue };
        let at = s.offset as usize;
        let want: String = cp1252[at..at + s.text.len()]
            .iter()
            .map(|&b| if b.is_ascii() { char::from(b) } else { '?' })
            .collect();
        assert_eq!(s.text, want, "{}", d.message);
        assert!(d.span.start >= s.offset && d.span.end <= s.offset + s.text.len() as u64);
        seen += 1;
    }
    assert!(seen > 0);
}
