//! Header sniffing reads a file's first record, not its first MiB, and
//! names the same columns as reading the whole MiB did.

use super::header;
use super::preamble::{header_names, MAX_HEADER};
use crate::scan::{Record, Scanner};
use std::io::Read;

/// The names as read from the whole first MiB at once: the former
/// `header_names`, kept as the oracle.
fn from_the_whole_mib(text: &[u8]) -> Vec<String> {
    let mut buf = Vec::new();
    text.take(MAX_HEADER).read_to_end(&mut buf).expect("reads");
    let data = buf.strip_prefix(&crate::scan::UTF8_BOM[..]).unwrap_or(&buf);
    let mut rec = Record::default();
    if !Scanner::new(data, 0, 1).next_record(&mut rec) {
        return Vec::new();
    }
    header::read_header(data, &rec).names
}

/// A reader that hands out `step` bytes a call and counts what it gave.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
    given: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(out.len()).min(self.data.len() - self.given);
        out[..n].copy_from_slice(&self.data[self.given..self.given + n]);
        self.given += n;
        Ok(n)
    }
}

#[test]
fn the_names_are_those_of_the_whole_mib_and_few_bytes_are_read() {
    let rows = "a,b,c\n".repeat(400_000);
    let long = "x".repeat(20_000);
    let quoted_newline = "\"Full\nName\",Work Email\r\n";
    let cases: Vec<Vec<u8>> = vec![
        format!("Full Name,Work Email,Start Date\n{rows}").into_bytes(),
        format!("\u{feff}\n\r\nFull Name,Work Email\r\n{rows}").into_bytes(),
        format!("{long},B\n{rows}").into_bytes(),
        format!("{quoted_newline}{rows}").into_bytes(),
        format!("\"{long}\n{long}\",B\n{rows}").into_bytes(),
        b"only,a,header".to_vec(),
        b"".to_vec(),
        b"\n\n".to_vec(),
        // A header longer than the MiB: cut where the former reading cut.
        format!("{},B\n", "y".repeat(2 << 20)).into_bytes(),
        // An unterminated quote runs to the MiB's end.
        format!("\"open,B\n{rows}").into_bytes(),
    ];
    for (i, text) in cases.iter().enumerate() {
        for step in [1 << 20, 8 << 10, 4093, 7] {
            let mut r = Trickle {
                data: text,
                step,
                given: 0,
            };
            let names = header_names(&mut r).expect("reads");
            assert_eq!(names, from_the_whole_mib(text), "case {i} step {step}");
            if i < 4 {
                assert!(r.given <= 64 << 10, "case {i}: read {} bytes", r.given);
            }
        }
    }
}
