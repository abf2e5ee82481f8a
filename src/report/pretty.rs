//! Pretty-printed JSON written a piece at a time, in the bytes
//! `serde_json::to_writer_pretty` gives the whole document: the SARIF log
//! and the GitLab array are written element by element as findings arrive,
//! and consumers (and our snapshots) see the same document as before.

use serde::Serialize;
use std::io::{self, Write};

/// Appends `value` pretty-printed as serde_json prints it when it sits
/// `indent` deep in a bigger document: its own pretty form with `indent`
/// after every line break. That is exact because pretty JSON breaks lines
/// only between tokens (a line break inside a string is escaped).
pub(super) fn nested(buf: &mut Vec<u8>, value: &impl Serialize, indent: &str) -> io::Result<()> {
    let w = Indented {
        buf,
        indent: indent.as_bytes(),
    };
    serde_json::to_writer_pretty(w, value)?;
    Ok(())
}

struct Indented<'a> {
    buf: &'a mut Vec<u8>,
    indent: &'a [u8],
}

impl Write for Indented<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        for piece in bytes.split_inclusive(|&b| b == b'\n') {
            self.buf.extend_from_slice(piece);
            if piece.ends_with(b"\n") {
                self.buf.extend_from_slice(self.indent);
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Opens the next element of a pretty-printed array whose elements sit
/// `indent` deep (`[` is written by the caller before the first).
pub(super) fn element(buf: &mut Vec<u8>, first: bool, indent: &str) {
    if !first {
        buf.push(b',');
    }
    buf.push(b'\n');
    buf.extend_from_slice(indent.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// An array of objects built element by element is the array
    /// serde_json prints, nested in an object as SARIF's results are.
    #[test]
    fn elements_written_one_by_one_match_the_whole_document() {
        let items = [
            json!({"a": [1, {"b": "x\ny"}], "c": {}}),
            json!({"d": [], "e": "tab\there"}),
            json!([{"f": null}]),
        ];
        for n in 0..=items.len() {
            let whole = json!({"outer": {"items": &items[..n]}});
            let want = serde_json::to_vec_pretty(&whole).expect("serializes");
            let mut got = b"{\n  \"outer\": {\n    \"items\": ".to_vec();
            if n == 0 {
                got.extend_from_slice(b"[]");
            } else {
                got.push(b'[');
                for (i, item) in items[..n].iter().enumerate() {
                    element(&mut got, i == 0, "      ");
                    nested(&mut got, item, "      ").expect("serializes");
                }
                got.extend_from_slice(b"\n    ]");
            }
            got.extend_from_slice(b"\n  }\n}");
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want)
            );
        }
    }
}
