//! SARIF 2.1.0, as GitHub code scanning reads it.
//!
//! Hand-written structs rather than the `serde-sarif` crate: its generated,
//! all-optional types cost a heavy build for the dozen objects we emit.
//! Every rule of the registry is listed (so `ruleIndex` is the registry
//! index and stays stable); results carry a full region (end derived from
//! the snippet, see [`super::position`]) and a line-independent
//! `primaryLocationLineHash`. Files that could not be checked become
//! error-level tool notifications, and the invocation is then unsuccessful.
//!
//! The log names those files (`invocations`) before its `results`, so
//! results are spilled ([`super::spill`]) in their final pretty-printed form
//! as they arrive and copied out at the end, after the head: memory does
//! not grow with the number of findings.

use super::fingerprint::Numbering;
use super::model::{uri, Failure, Report, Summary};
use super::spill::Spill;
use super::{position, pretty};
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{self, Rule};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{self, Write};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    semantic_version: &'static str,
    /// The project's home, when the package names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    information_uri: Option<&'static str>,
    rules: Vec<RuleDescriptor>,
}

/// Where the package says it lives (`repository` in Cargo.toml, else
/// `homepage`); `None` while it names neither. SARIF's `informationUri` and
/// each rule's `helpUri` point there: a relative or made-up address would
/// fail SARIF's `uri` format, or send readers nowhere.
fn home() -> Option<&'static str> {
    [env!("CARGO_PKG_REPOSITORY"), env!("CARGO_PKG_HOMEPAGE")]
        .into_iter()
        .find(|u| !u.is_empty())
}

/// A rule's documentation under `home`: the README's rule table, where
/// every rule is a row (`bdxlint explain CODE` prints the same text).
fn help_uri(home: &str) -> String {
    format!("{}#rules", home.trim_end_matches('/'))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RuleDescriptor {
    id: &'static str,
    name: &'static str,
    short_description: Text<'static>,
    full_description: Text<'static>,
    help: Text<'static>,
    #[serde(skip_serializing_if = "Option::is_none")]
    help_uri: Option<String>,
    default_configuration: Configuration,
    properties: RuleProperties,
}

#[derive(Serialize)]
struct RuleProperties {
    tags: [&'static str; 1],
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct Text<'a> {
    text: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation<'a> {
    execution_successful: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification<'a>>,
}

#[derive(Serialize)]
struct Notification<'a> {
    level: &'static str,
    message: Text<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<Location>,
}

/// The most results a log carries: GitHub code scanning refuses an upload
/// with more in a run (and shows the 5,000 most severe of those it takes).
pub(crate) const MAX_RESULTS: usize = 25_000;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Text<'a>,
    locations: [Location; 1],
    partial_fingerprints: BTreeMap<&'static str, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fixes: Vec<SarifFix<'a>>,
}

/// A finding's fix as SARIF's `fix`: one change to the file, its edits as
/// byte regions replaced.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifFix<'a> {
    description: Text<'a>,
    artifact_changes: [ArtifactChange<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactChange<'a> {
    artifact_location: ArtifactLocation,
    replacements: Vec<Replacement<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Replacement<'a> {
    deleted_region: ByteRegion,
    inserted_content: Text<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ByteRegion {
    byte_offset: u64,
    byte_length: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
struct ArtifactLocation {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u64,
    start_column: u64,
    end_line: u64,
    end_column: u64,
}

/// SARIF's level for a severity (`note` is SARIF's word for info).
pub(super) fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// `path` as SARIF's `artifactLocation.uri`, which must be a URI
/// reference: [`uri`], then every byte outside RFC 3986's unreserved
/// characters, sub-delimiters, `@` and `/` percent-encoded. A space or a `%`
/// in a file name would otherwise make the log invalid, and a `:` in the
/// first segment (`bundle.zip:member.csv`) would read as a URI scheme. An
/// absolute path is a `file://` URI (`/tmp/a.csv` is `file:///tmp/a.csv`,
/// `C:\a.csv` is `file:///C:/a.csv`): a bare absolute path is not one
/// (SARIF1004).
fn artifact_uri(path: &str) -> String {
    let p = uri(path);
    let b = p.as_bytes();
    let drive = b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'/';
    let (mut out, rest) = if p.starts_with('/') {
        (String::from("file://"), p.as_str())
    } else if drive {
        (format!("file:///{}:", char::from(b[0])), &p[2..])
    } else {
        (String::new(), p.as_str())
    };
    for &b in rest.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=@/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn descriptor(r: &'static Rule) -> RuleDescriptor {
    RuleDescriptor {
        id: r.code,
        name: r.name,
        short_description: Text { text: r.summary },
        full_description: Text {
            text: r.explanation,
        },
        help: Text {
            text: r.explanation,
        },
        help_uri: home().map(help_uri),
        default_configuration: Configuration {
            level: level(r.severity),
        },
        properties: RuleProperties { tags: [r.spec] },
    }
}

/// Where the log's parts sit: `runs[0]`'s members, and the results in it.
const RUN_MEMBER: &str = "      ";
const RESULT: &str = "        ";

/// Writes a SARIF log as findings arrive.
pub(super) struct SarifWriter<'w> {
    out: &'w mut dyn Write,
    /// The results written so far, each in its final form, while they
    /// fit the cap.
    results: Spill,
    count: usize,
    /// The first `max_results` results of each level (error, warning,
    /// note), each with its separator, and their lengths: past the cap the
    /// log keeps the most severe, then in file order.
    by_level: [Spill; 3],
    lengths: [Vec<u32>; 3],
    /// The current file as reports show it (`archive.zip:member.csv`), and
    /// as its `uri`.
    location: String,
    uri: String,
    numbering: Numbering,
    in_file: usize,
    /// The current file is a file of its own (not a bundle member), whose
    /// byte offsets a fix can name.
    fixable: bool,
    /// The most results the log takes ([`MAX_RESULTS`] unless told).
    pub(super) max_results: usize,
    /// Findings past `max_results`, counted and left out.
    left_out: usize,
    /// A result's text, built here and spilled in one write.
    buf: Vec<u8>,
}

impl<'w> SarifWriter<'w> {
    pub(super) fn new(out: &'w mut dyn Write) -> Self {
        Self::spilling(out, Spill::new())
    }

    pub(super) fn spilling(out: &'w mut dyn Write, results: Spill) -> Self {
        SarifWriter {
            out,
            by_level: [results.like(), results.like(), results.like()],
            lengths: Default::default(),
            results,
            count: 0,
            location: String::new(),
            uri: String::new(),
            numbering: Numbering::default(),
            in_file: 0,
            fixable: true,
            max_results: MAX_RESULTS,
            left_out: 0,
            buf: Vec::new(),
        }
    }
}

impl Report for SarifWriter<'_> {
    fn start_file(&mut self, path: &str, member: Option<&str>) {
        // A member's bytes are inside its archive: no byte offset in a
        // file names them.
        self.fixable = member.is_none();
        self.location = super::model::location(path, member);
        self.uri = artifact_uri(&self.location);
        self.numbering.clear();
        self.in_file = 0;
    }

    fn diagnostic(&mut self, d: &Diagnostic) -> io::Result<()> {
        let rank = match d.severity {
            Severity::Error => 0,
            Severity::Warning => 1,
            Severity::Info => 2,
        };
        self.count += 1;
        if self.lengths[rank].len() >= self.max_results {
            // Neither in file order nor among the most severe.
            return Ok(());
        }
        let g = position::region(d);
        let result = SarifResult {
            rule_id: d.rule.code,
            rule_index: rules::ALL
                .iter()
                .position(|x| std::ptr::eq(*x, d.rule))
                .unwrap_or_default(),
            level: level(d.severity),
            message: Text { text: &d.message },
            locations: [Location {
                physical_location: PhysicalLocation {
                    artifact_location: ArtifactLocation {
                        uri: self.uri.clone(),
                    },
                    region: Some(Region {
                        start_line: g.start_line,
                        start_column: g.start_col,
                        end_line: g.end_line,
                        end_column: g.end_col,
                    }),
                },
            }],
            partial_fingerprints: BTreeMap::from([(
                "primaryLocationLineHash",
                self.numbering.fingerprint(&self.location, d),
            )]),
            fixes: match &d.fix {
                // A whole-file rewrite has no replacements to list.
                Some(f) if self.fixable && !f.edits.is_empty() => vec![SarifFix {
                    description: Text { text: &f.message },
                    artifact_changes: [ArtifactChange {
                        artifact_location: ArtifactLocation {
                            uri: self.uri.clone(),
                        },
                        replacements: f
                            .edits
                            .iter()
                            .map(|e| Replacement {
                                deleted_region: ByteRegion {
                                    byte_offset: e.span.start,
                                    byte_length: e.span.end - e.span.start,
                                },
                                inserted_content: Text { text: &e.content },
                            })
                            .collect(),
                    }],
                }],
                _ => Vec::new(),
            },
        };
        self.buf.clear();
        pretty::element(&mut self.buf, false, RESULT);
        pretty::nested(&mut self.buf, &result, RESULT)?;
        if self.count <= self.max_results {
            // The first result of the log has no separator.
            let from = usize::from(self.count == 1);
            self.results.write_all(&self.buf[from..])?;
        }
        self.by_level[rank].write_all(&self.buf)?;
        self.lengths[rank].push(u32::try_from(self.buf.len()).unwrap_or(u32::MAX));
        self.in_file += 1;
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn end_file(&mut self, _format: Option<&str>, _records: u64) -> io::Result<()> {
        Ok(())
    }

    /// The file's results are complete as they stand.
    fn abandon_file(&mut self) -> io::Result<bool> {
        Ok(self.in_file > 0)
    }

    fn finish(&mut self, failures: &[Failure], _s: &Summary) -> io::Result<()> {
        self.left_out = self.count.saturating_sub(self.max_results);
        let notifications = failures
            .iter()
            .map(|f| Notification {
                level: "error",
                message: Text { text: &f.reason },
                locations: vec![Location {
                    physical_location: PhysicalLocation {
                        artifact_location: ArtifactLocation {
                            uri: artifact_uri(&f.path),
                        },
                        region: None,
                    },
                }],
            })
            .collect::<Vec<_>>();
        let cap = if self.max_results == MAX_RESULTS {
            format!(
                "{} findings past the {MAX_RESULTS} results GitHub code scanning accepts in a run were left out of this log (it keeps errors first, then warnings, then notes, each in file order): fix those, or see every finding with --output-format json",
                self.left_out
            )
        } else {
            format!(
                "{} findings past the {} results of --max-diagnostics were left out of this log (it keeps errors first, then warnings, then notes, each in file order)",
                self.left_out, self.max_results
            )
        };
        let mut notifications = notifications;
        if self.left_out > 0 {
            notifications.push(Notification {
                level: "warning",
                message: Text { text: &cap },
                locations: Vec::new(),
            });
        }
        let failed = !failures.is_empty();
        let tool = Tool {
            driver: Driver {
                name: "bdxlint",
                semantic_version: env!("CARGO_PKG_VERSION"),
                information_uri: home(),
                rules: rules::ALL.iter().copied().map(descriptor).collect(),
            },
        };
        let invocations = [Invocation {
            execution_successful: !failed,
            tool_execution_notifications: notifications,
        }];
        // The object serde_json would print for the whole log, member by
        // member: `{"$schema", "version", "runs": [{"tool", "invocations",
        // "columnKind", "results"}]}`.
        let mut head = b"{\n  \"$schema\": ".to_vec();
        serde_json::to_writer(&mut head, SCHEMA)?;
        head.extend_from_slice(b",\n  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n");
        head.extend_from_slice(RUN_MEMBER.as_bytes());
        head.extend_from_slice(b"\"tool\": ");
        pretty::nested(&mut head, &tool, RUN_MEMBER)?;
        head.extend_from_slice(b",\n");
        head.extend_from_slice(RUN_MEMBER.as_bytes());
        head.extend_from_slice(b"\"invocations\": ");
        pretty::nested(&mut head, &invocations, RUN_MEMBER)?;
        head.extend_from_slice(b",\n");
        head.extend_from_slice(RUN_MEMBER.as_bytes());
        head.extend_from_slice(b"\"columnKind\": \"unicodeCodePoints\",\n");
        head.extend_from_slice(RUN_MEMBER.as_bytes());
        head.extend_from_slice(b"\"results\": ");
        self.out.write_all(&head)?;
        if self.count == 0 {
            self.out.write_all(b"[]")?;
        } else if self.left_out == 0 {
            self.out.write_all(b"[")?;
            self.results.drain_into(&mut *self.out)?;
            write!(self.out, "\n{RUN_MEMBER}]")?;
        } else {
            // Over the cap: the errors first, then the warnings, then the
            // notes, each in file order, as many as the cap takes.
            self.out.write_all(b"[")?;
            let mut room = self.max_results;
            let mut first = true;
            for (spill, lengths) in self.by_level.iter_mut().zip(&self.lengths) {
                let take = room.min(lengths.len());
                if take == 0 {
                    continue;
                }
                let bytes: u64 = lengths[..take].iter().map(|&n| u64::from(n)).sum();
                // The log's first result has no separator.
                spill.copy_range(u64::from(first), bytes, &mut *self.out)?;
                first = false;
                room -= take;
            }
            write!(self.out, "\n{RUN_MEMBER}]")?;
        }
        self.out.write_all(b"\n    }\n  ]\n}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::FileReport;

    /// A collected run through this writer, as `report::render` would
    /// feed it (which this file cannot call: its parent uses it).
    fn write_run(w: &mut dyn Report, reports: &[FileReport], s: &Summary) {
        for r in reports {
            w.start_file(&r.path, r.member.as_deref());
            for d in &r.diagnostics {
                w.diagnostic(d).expect("writes");
            }
            w.end_file(r.format, r.records).expect("writes");
        }
        w.finish(&[], s).expect("renders");
    }

    #[test]
    fn absolute_paths_are_file_uris() {
        assert_eq!(artifact_uri("/tmp/a b.csv"), "file:///tmp/a%20b.csv");
        assert_eq!(artifact_uri("C:\\data\\a.csv"), "file:///C:/data/a.csv");
        assert_eq!(artifact_uri("./uploads/a.csv"), "uploads/a.csv");
        assert_eq!(artifact_uri("bundle.zip:m.csv"), "bundle.zip%3Am.csv");
    }

    /// A log GitHub would refuse (more than 25,000 results) is cut there,
    /// and says how many findings it left out.
    #[test]
    fn help_uris_point_at_the_readme_rule_table() {
        assert_eq!(
            help_uri("https://github.com/acme/bdxlint/"),
            "https://github.com/acme/bdxlint#rules"
        );
        // Until the package names its home, no address is made up.
        let named =
            !env!("CARGO_PKG_REPOSITORY").is_empty() || !env!("CARGO_PKG_HOMEPAGE").is_empty();
        assert_eq!(home().is_some(), named);
    }

    #[test]
    fn results_stop_at_what_code_scanning_accepts() {
        let d = |line: u64| crate::testutil::finding("C001", line, format!("line {line}"));
        let report = FileReport {
            path: "a.csv".into(),
            format: Some("employees"),
            records: 0,
            diagnostics: (1..=MAX_RESULTS as u64 + 3).map(d).collect(),
            member: None,
        };
        let mut out = Vec::new();
        let reports = [report];
        let s = Summary::of(&reports, &[]);
        write_run(&mut SarifWriter::new(&mut out), &reports, &s);
        let log: serde_json::Value = serde_json::from_slice(&out).expect("JSON");
        let run = &log["runs"][0];
        assert_eq!(run["results"].as_array().map(Vec::len), Some(MAX_RESULTS));
        assert_eq!(run["invocations"][0]["executionSuccessful"], true);
        let note = &run["invocations"][0]["toolExecutionNotifications"][0];
        assert_eq!(note["level"], "warning");
        assert!(
            note["message"]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("3 findings past the 25000 results")),
            "{note}"
        );
    }

    /// Past the cap the log keeps the most severe: errors, then warnings,
    /// then notes, each in file order, from memory and from a file alike.
    #[test]
    fn over_the_cap_the_most_severe_come_first() {
        let d =
            |code: &str, line: u64| crate::testutil::finding(code, line, format!("line {line}"));
        // F002 warns, C001 errs, B010 is a note.
        let findings = [
            d("F002", 1),
            d("C001", 2),
            d("B010", 3),
            d("C001", 4),
            d("F002", 5),
        ];
        for limit in [usize::MAX, 0] {
            let mut out = Vec::new();
            {
                let mut w = SarifWriter::spilling(&mut out, Spill::with_limit(limit));
                w.max_results = 3;
                w.start_file("a.csv", None);
                for f in &findings {
                    w.diagnostic(f).expect("writes");
                }
                w.end_file(Some("employees"), 5).expect("ends");
                w.finish(&[], &Summary::default()).expect("finishes");
            }
            let log: serde_json::Value = serde_json::from_slice(&out).expect("JSON");
            let lines: Vec<(String, u64)> = log["runs"][0]["results"]
                .as_array()
                .expect("results")
                .iter()
                .map(|r| {
                    (
                        r["ruleId"].as_str().unwrap_or("").to_owned(),
                        r["locations"][0]["physicalLocation"]["region"]["startLine"]
                            .as_u64()
                            .unwrap_or(0),
                    )
                })
                .collect();
            let want = [("C001", 2), ("C001", 4), ("F002", 1)].map(|(c, l)| (c.to_owned(), l));
            assert_eq!(lines, want, "limit {limit}");
            let note = &log["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
            assert!(
                note["message"]["text"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("2 findings")),
                "{note}"
            );
        }
    }
}
