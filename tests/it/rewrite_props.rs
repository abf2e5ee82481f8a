//! Whole-file rewrites keep every field (issue 28), over generated files:
//! records with quotes, embedded delimiters, line breaks (LF and CRLF)
//! inside quotes, empty fields, trailing empty columns, mixed line endings,
//! Windows-1252 bytes, in each dialect (`,`, `;`, tab, `|`, with or without
//! Excel's `sep=` line), some damaged (a stray quote, a ragged row, a value
//! in a trailing column, a carriage return outside quotes). After any
//! rewrite `bdxlint check --fix` makes, every record read back by an
//! independent reader (the csv crate) in the new dialect has exactly the
//! fields it had in the old one (less the empty trailing columns removed);
//! when it cannot promise that, the file is not rewritten, and the report
//! says why.

use assert_cmd::Command;
use proptest::prelude::*;
use serde_json::Value;

fn bdxlint() -> Command {
    let mut c = Command::cargo_bin("bdxlint").expect("binary builds");
    c.env_remove("BDXLINT_OUTPUT_FORMAT");
    c
}

/// The rules whose fixes rewrite the whole file (and `sep=,`'s deletion).
const REWRITES: &str = "F005,F010,F011,F012,H003";

/// A cell's text: plain, or holding what needs quoting.
fn content() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z]{0,5}",
        1 => Just(String::new()),
        2 => prop::collection::vec(
            prop_oneof![
                Just("a"), Just(" "), Just(","), Just(";"), Just("\t"), Just("|"),
                Just("\""), Just("\n"), Just("\r\n"), Just("é"), Just("x"),
            ],
            1..6,
        )
        .prop_map(|parts| parts.concat()),
    ]
}

/// How a generated file is damaged, if it is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Damage {
    None,
    /// An unescaped quote in an unquoted field: `27" monitor`.
    StrayQuote,
    /// A carriage return alone in an unquoted field.
    LoneCr,
    /// A row one field short, or one long.
    Ragged(bool),
    /// A value in a trailing unnamed column.
    TrailingValue,
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        6 => Just(Damage::None),
        1 => Just(Damage::StrayQuote),
        1 => Just(Damage::LoneCr),
        1 => any::<bool>().prop_map(Damage::Ragged),
        1 => Just(Damage::TrailingValue),
    ]
}

#[derive(Debug, Clone)]
struct Spec {
    delim: u8,
    sep: bool,
    bom: bool,
    latin1: bool,
    trailing: usize,
    rows: Vec<(Vec<String>, bool, bool)>,
    endings: Vec<bool>,
    last_ending: bool,
    damage: Damage,
    damaged_row: usize,
}

prop_compose! {
    fn spec()(
        delim in prop::sample::select(vec![b',', b';', b'\t', b'|']),
        sep in prop::bool::weighted(0.3),
        bom in prop::bool::weighted(0.2),
        latin1 in prop::bool::weighted(0.25),
        trailing in 0usize..3,
        rows in prop::collection::vec(
            (prop::collection::vec(content(), 4), any::<bool>(), prop::bool::weighted(0.2)),
            1..8,
        ),
        endings in prop::collection::vec(prop::bool::weighted(0.3), 9),
        last_ending in prop::bool::weighted(0.8),
        damage in damage(),
        damaged_row in 0usize..8,
    ) -> Spec {
        Spec { delim, sep, bom, latin1, trailing, rows, endings, last_ending, damage, damaged_row }
    }
}

/// A field as a careful writer writes it: quoted where it must be (or
/// where `quote_anyway`), quotes doubled.
fn field(text: &str, delim: char, quote_anyway: bool) -> String {
    let needs = text.contains([delim, '"', '\n', '\r']);
    if needs || quote_anyway {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

impl Spec {
    fn bytes(&self) -> Vec<u8> {
        let d = char::from(self.delim);
        let nl = |k: usize| {
            if self.endings[k % self.endings.len()] {
                "\r\n"
            } else {
                "\n"
            }
        };
        let mut s = String::new();
        if self.sep {
            s.push_str(&format!("sep={d}{}", nl(0)));
        }
        let mut header: Vec<String> = ["Full Name", "Title", "Department", "Location"]
            .iter()
            .map(|h| (*h).to_owned())
            .collect();
        header.extend((0..self.trailing).map(|_| String::new()));
        s.push_str(&header.join(&d.to_string()));
        s.push_str(nl(1));
        let last = self.rows.len() - 1;
        for (k, (cells, quote_all, quote_empty)) in self.rows.iter().enumerate() {
            let mut fields: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    // A Windows-1252 file has a byte above ASCII to tell.
                    let c = if self.latin1 && k == 0 && i == 0 {
                        format!("é{c}")
                    } else {
                        c.clone()
                    };
                    field(&c, d, *quote_all || (*quote_empty && c.is_empty()))
                })
                .collect();
            fields.extend((0..self.trailing).map(|_| String::new()));
            if k == self.damaged_row.min(last) {
                match self.damage {
                    Damage::None => {}
                    Damage::StrayQuote => fields[1] = "27\" monitor".into(),
                    Damage::LoneCr => fields[2] = "a\rb".into(),
                    Damage::Ragged(true) => fields.push("x".into()),
                    Damage::Ragged(false) => {
                        fields.pop();
                    }
                    Damage::TrailingValue => {
                        if let Some(f) = fields.get_mut(4) {
                            *f = "v".into();
                        }
                    }
                }
            }
            s.push_str(&fields.join(&d.to_string()));
            if k < last || self.last_ending {
                s.push_str(nl(k + 2));
            }
        }
        let mut out = Vec::new();
        if self.bom {
            out.extend_from_slice(&[0xEF, 0xBB, 0xBF]);
        }
        if self.latin1 {
            // Windows-1252, where `é` is one byte.
            out.extend(s.chars().map(|c| if c == 'é' { 0xE9 } else { c as u8 }));
        } else {
            out.extend_from_slice(s.as_bytes());
        }
        out
    }
}

/// The findings of `bdxlint check` (and `extra`) on `f.csv` in `dir`.
fn check(dir: &std::path::Path, extra: &[&str]) -> Vec<Value> {
    let out = bdxlint()
        .current_dir(dir)
        .args([
            "check",
            "--format",
            "employees",
            "--output-format",
            "json",
            "--select",
            REWRITES,
        ])
        .args(extra)
        .arg("f.csv")
        .output()
        .expect("runs");
    assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    doc["files"][0]["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The dialect the check read a file in, from its findings: another
/// delimiter is `F010`, a `sep=` line `F011`.
fn dialect(findings: &[Value], delim: u8) -> (u8, bool) {
    let has = |code: &str| findings.iter().any(|d| d["code"] == code);
    (if has("F010") { delim } else { b',' }, has("F011"))
}

/// Every record's fields, read by the csv crate in `dialect`, after a BOM
/// and a `sep=` line; bytes decoded as UTF-8 or (`latin1`) Latin-1.
fn fields(bytes: &[u8], (delim, sep): (u8, bool), latin1: bool) -> Vec<Vec<String>> {
    let mut body = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(bytes);
    if sep {
        let nl = body.iter().position(|&b| b == b'\n').expect("a sep= line");
        body = &body[nl + 1..];
    }
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delim)
        .from_reader(body);
    let decode = |b: &[u8]| -> String {
        if latin1 {
            b.iter().map(|&c| char::from(c)).collect()
        } else {
            String::from_utf8_lossy(b).into_owned()
        }
    };
    r.byte_records()
        .map(|rec| rec.expect("csv reads").iter().map(decode).collect())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn a_rewrite_keeps_every_field_or_is_refused(spec in spec()) {
        let original = spec.bytes();
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f.csv");
        std::fs::write(&path, &original).expect("write");
        let before = check(dir.path(), &[]);
        let report = check(dir.path(), &["--fix", "--unsafe-fixes"]);
        let fixed = std::fs::read(&path).expect("read");

        // Nothing that could be fixed is left: a rewrite either happened,
        // or its findings lost their fix and say why.
        for d in &report {
            prop_assert!(d["fix"].is_null(), "left with a fix: {}", d);
        }
        // A rewrite is a fix of no edits.
        let asked = before
            .iter()
            .any(|d| d["fix"]["edits"].as_array().is_some_and(|e| e.is_empty()));
        let noted = report.iter().any(|d| d["help"].as_str()
            .is_some_and(|h| h.contains("--fix did not rewrite the file: ")));
        // A record that reads two ways: no rewrite; only `sep=,`'s line
        // (an edit, not a rewrite) may go.
        if matches!(spec.damage, Damage::StrayQuote | Damage::LoneCr) {
            let kept = if spec.sep && spec.delim == b',' {
                let body = original.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(&original);
                let nl = body.iter().position(|&b| b == b'\n').expect("sep line") + 1;
                let bom = original.len() - body.len();
                [&original[..bom], &body[nl..]].concat()
            } else {
                original.clone()
            };
            prop_assert!(fixed == original || fixed == kept,
                "rewritten:\n{:?}\n{:?}", String::from_utf8_lossy(&original), String::from_utf8_lossy(&fixed));
            if asked && fixed == original {
                prop_assert!(noted, "refused without a word: {:#?}", report);
            }
        }
        if fixed == original {
            return Ok(());
        }

        // The fields, as an independent reader reads them before and after.
        let old_dialect = dialect(&before, spec.delim);
        let new_dialect = dialect(&report, spec.delim);
        let reencoded = std::str::from_utf8(&original).is_err()
            && std::str::from_utf8(&fixed).is_ok();
        let old = fields(&original, old_dialect, reencoded);
        let new = fields(&fixed, new_dialect, false);
        prop_assert_eq!(old.len(), new.len(), "records: {:?} -> {:?}", old, new);
        // Trailing columns removed: as many from every record, all empty.
        let dropped = old[0].len() - new[0].len();
        for (o, n) in old.iter().zip(&new) {
            prop_assert_eq!(o.len(), n.len() + dropped, "{:?} -> {:?}", o, n);
            prop_assert_eq!(&o[..n.len()], &n[..], "{:?} -> {:?}", old, new);
            prop_assert!(o[n.len()..].iter().all(String::is_empty), "{:?} -> {:?}", o, n);
        }
    }
}
