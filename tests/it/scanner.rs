//! Properties of the tokenizer and the chunked reader.

use bdxlint::check::{check_reader, Options};
use bdxlint::scan::{unescape, Record, RecordBoundaries, Scanner};
use proptest::prelude::*;

fn scan_all(input: &[u8]) -> Vec<Vec<String>> {
    let mut s = Scanner::new(input, 0, 1);
    let mut rec = Record::default();
    let mut out = Vec::new();
    while s.next_record(&mut rec) {
        out.push(
            rec.fields
                .iter()
                .map(|f| {
                    let (a, b) = f.content();
                    let text = std::str::from_utf8(&input[a..b]).expect("utf-8");
                    unescape(text, f.escapes).into_owned()
                })
                .collect(),
        );
    }
    out
}

proptest! {
    /// Whatever the csv crate writes, the scanner reads back unchanged, with
    /// no quote problems.
    #[test]
    fn reads_back_what_the_csv_crate_writes(
        rows in prop::collection::vec(
            prop::collection::vec("[a-z\",\n\r é{}:]{0,12}", 3),
            1..8,
        ),
        crlf in any::<bool>(),
    ) {
        let mut w = csv::WriterBuilder::new()
            .terminator(if crlf { csv::Terminator::CRLF } else { csv::Terminator::Any(b'\n') })
            .from_writer(Vec::new());
        for r in &rows {
            w.write_record(r).expect("write");
        }
        let bytes = w.into_inner().expect("flush");
        let mut s = Scanner::new(&bytes, 0, 1);
        let mut rec = Record::default();
        while s.next_record(&mut rec) {
            prop_assert!(rec.problems.is_empty(), "{:?}", rec.problems);
        }
        // The csv crate writes a record of three empty fields as `""`-less
        // `,,`, never a blank line, so no record is skipped.
        prop_assert_eq!(scan_all(&bytes), rows);
    }

    /// The quote-parity boundary scan agrees with the tokenizer on any
    /// bytes, fed in any pieces.
    #[test]
    fn boundaries_agree_with_the_scanner_on_any_input(
        input in prop::collection::vec(prop::sample::select(b"ab,\"\n\r".to_vec()), 0..80),
        cut in 0usize..80,
    ) {
        let mut s = Scanner::new(&input, 0, 1);
        let mut rec = Record::default();
        let mut ends = vec![];
        while s.next_record(&mut rec) {
            if rec.ending != Some(bdxlint::scan::LineEnding::Eof) {
                ends.push(s.position());
            }
        }
        let cut = cut.min(input.len());
        let mut b = RecordBoundaries::default();
        let first = b.last_boundary(&input[..cut]);
        let second = b.last_boundary(&input[cut..]).map(|p| p + cut);
        let last = second.or(first);
        // The last boundary the scan sees is the end of the last terminated
        // record (blank lines after it are boundaries too).
        if let Some(&e) = ends.last() {
            prop_assert!(last.is_some_and(|l| l >= e));
        }
        if let Some(l) = last {
            // Everything before a boundary tokenizes to whole records.
            let head = scan_all_lossy(&input[..l]);
            let whole = scan_all_lossy(&input);
            prop_assert_eq!(&whole[..head.len()], &head[..]);
        }
    }
}

fn scan_all_lossy(input: &[u8]) -> Vec<Vec<(usize, usize)>> {
    let mut s = Scanner::new(input, 0, 1);
    let mut rec = Record::default();
    let mut out = Vec::new();
    while s.next_record(&mut rec) {
        out.push(rec.fields.iter().map(|f| (f.start, f.end)).collect());
    }
    out
}

/// A file with errors spread through it, including multi-line quoted cells,
/// so chunk boundaries land everywhere.
fn spread_errors() -> Vec<u8> {
    let mut s = String::from("Full Name,Work Email,Start Date,Platform Roles\r\n");
    for i in 0..400 {
        let date = if i % 7 == 0 { "3/7/2024" } else { "03/07/2024" };
        let email = if i % 11 == 0 {
            "nobody"
        } else {
            "a@example.com"
        };
        let name = if i % 5 == 0 {
            format!("\"Name \"\"{i}\"\"\nsecond line\"")
        } else {
            format!("Name {i}")
        };
        let roles = if i % 13 == 0 {
            "reviewer,,admin"
        } else {
            "reviewer"
        };
        let end = if i % 97 == 0 { "\n" } else { "\r\n" };
        s.push_str(&format!("{name},{email},{date},{roles}{end}"));
    }
    s.into_bytes()
}

#[test]
fn output_is_identical_whatever_the_chunk_size() {
    let data = spread_errors();
    let run = |chunk_size: usize| {
        let opts = Options {
            chunk_size,
            ..Options::default()
        };
        check_reader(&data[..], "f.csv", None, &opts).expect("checks")
    };
    let reference = run(1 << 20);
    assert!(
        reference.diagnostics.len() > 100,
        "the file has many findings"
    );
    assert_eq!(reference.records, 400);
    for size in [1, 7, 64, 333, 4096] {
        let r = run(size);
        assert_eq!(r.records, reference.records, "chunk size {size}");
        assert_eq!(r.diagnostics, reference.diagnostics, "chunk size {size}");
    }
}

#[test]
fn positions_point_at_the_bytes_they_name() {
    let data = spread_errors();
    let r = check_reader(&data[..], "f.csv", None, &Options::default()).expect("checks");
    let text = String::from_utf8(data.clone()).expect("utf-8");
    let lines: Vec<&str> = text.split('\n').collect();
    for d in r.diagnostics.iter().filter(|d| d.rule.code == "C004") {
        assert_eq!(
            &data[d.span.start as usize..d.span.end as usize],
            b"3/7/2024"
        );
        let line = lines[d.line as usize - 1];
        let col_byte = line
            .char_indices()
            .nth(d.col as usize - 1)
            .map(|(i, _)| i)
            .expect("col within line");
        assert!(
            line[col_byte..].starts_with("3/7/2024"),
            "{line:?} at {}",
            d.col
        );
    }
}

#[test]
fn a_runaway_quote_stops_the_file_with_a_diagnostic_not_unbounded_memory() {
    let mut data = b"Full Name,Work Email,Start Date\n\"Ada,ada@example.com,03/07/2024\n".to_vec();
    data.extend(std::iter::repeat_n(b'x', 5000));
    let opts = Options {
        chunk_size: 256,
        max_record_bytes: 1024,
        ..Options::default()
    };
    let r = check_reader(&data[..], "f.csv", None, &opts).expect("checks");
    assert!(
        r.diagnostics
            .iter()
            .any(|d| d.rule.name == "unterminated-quote"),
        "{:?}",
        r.diagnostics
    );
}
