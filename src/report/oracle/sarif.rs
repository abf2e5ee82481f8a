//! The pre-streaming `sarif` renderer, verbatim, as a test oracle.

use crate::diagnostic::FileReport;
use crate::diagnostic::Severity;
use crate::report::{fingerprint, position, Failure};
use crate::rules::{self, Rule};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{self, Write};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool,
    invocations: [Invocation<'a>; 1],
    column_kind: &'static str,
    results: Vec<SarifResult<'a>>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    semantic_version: &'static str,
    rules: Vec<RuleDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RuleDescriptor {
    id: &'static str,
    name: &'static str,
    short_description: Text<'static>,
    full_description: Text<'static>,
    help: Text<'static>,
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
    locations: [Location; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Text<'a>,
    locations: [Location; 1],
    partial_fingerprints: BTreeMap<&'static str, String>,
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
fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A path as a relative URI: forward slashes, no leading `./`. GitHub
/// resolves it against the repository root, so run bdxlint from there.
fn uri(path: &str) -> String {
    let p = path.replace('\\', "/");
    let mut p = p.as_str();
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    p.to_owned()
}

/// `path` as SARIF's `artifactLocation.uri`, which must be a URI
/// reference: [`uri`], then every byte outside RFC 3986's unreserved
/// characters, sub-delimiters, `@` and `/` percent-encoded. A space or a `%`
/// in a file name would otherwise make the log invalid, and a `:` in the
/// first segment (`bundle.zip:member.csv`) would read as a URI scheme.
fn artifact_uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for &b in uri(path).as_bytes() {
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
        default_configuration: Configuration {
            level: level(r.severity),
        },
        properties: RuleProperties { tags: [r.spec] },
    }
}

pub(super) fn render(
    out: &mut dyn Write,
    reports: &[FileReport],
    failures: &[Failure],
) -> io::Result<()> {
    let mut results = Vec::new();
    for r in reports {
        let prints = fingerprint::numbered(&r.location(), &r.diagnostics);
        for (d, print) in r.diagnostics.iter().zip(prints) {
            let g = position::region(d);
            results.push(SarifResult {
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
                            uri: artifact_uri(&r.location()),
                        },
                        region: Some(Region {
                            start_line: g.start_line,
                            start_column: g.start_col,
                            end_line: g.end_line,
                            end_column: g.end_col,
                        }),
                    },
                }],
                partial_fingerprints: BTreeMap::from([("primaryLocationLineHash", print)]),
            });
        }
    }
    let notifications = failures
        .iter()
        .map(|f| Notification {
            level: "error",
            message: Text { text: &f.reason },
            locations: [Location {
                physical_location: PhysicalLocation {
                    artifact_location: ArtifactLocation {
                        uri: artifact_uri(&f.path),
                    },
                    region: None,
                },
            }],
        })
        .collect::<Vec<_>>();
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "bdxlint",
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    rules: rules::ALL.iter().copied().map(descriptor).collect(),
                },
            },
            invocations: [Invocation {
                execution_successful: notifications.is_empty(),
                tool_execution_notifications: notifications,
            }],
            column_kind: "unicodeCodePoints",
            results,
        }],
    };
    serde_json::to_writer_pretty(&mut *out, &log)?;
    writeln!(out)
}
