//! Renderers: one file per output format, all reading the same
//! [`crate::diagnostic::Diagnostic`]s. The library never prints; renderers
//! write into any `io::Write` the binary hands them.

pub(crate) mod fingerprint;
pub(crate) mod fold;
mod github;
mod gitlab;
mod html;
mod human;
mod json;
mod jsonl;
mod junit;
mod model;
pub(crate) mod position;
mod pretty;
mod rdjsonl;
mod safe;
mod sarif;
mod sink;
pub(crate) mod spill;
mod stream;

use crate::diagnostic::FileReport;
use std::io::{self, Write};

pub use human::HumanOptions;
pub use model::{stale_baseline_note, summary_line, uri, Failure, OutputFormat, Report, Summary};
pub use safe::{display_name, display_path, excerpt, git_quoted, printable};
pub(crate) use sink::Statistics;
pub use stream::StreamWriter;

/// The writer of `format`, writing to `out` as findings arrive.
pub fn writer<'w>(
    out: &'w mut dyn Write,
    format: OutputFormat,
    human: &HumanOptions,
) -> io::Result<Box<dyn Report + 'w>> {
    writer_capped(out, format, human, None)
}

/// [`writer`], with `--max-diagnostics`: the most results a SARIF log
/// takes (`None`: the 25,000 GitHub code scanning accepts in a run), the
/// samples the HTML report shows of each rule × column (`None`: 10).
pub(crate) fn writer_capped<'w>(
    out: &'w mut dyn Write,
    format: OutputFormat,
    human: &HumanOptions,
    cap: Option<usize>,
) -> io::Result<Box<dyn Report + 'w>> {
    Ok(match format {
        OutputFormat::Human | OutputFormat::Concise | OutputFormat::Json | OutputFormat::Jsonl => {
            Box::new(StreamWriter::new(out, format, human)?)
        }
        OutputFormat::Sarif => {
            let mut w = sarif::SarifWriter::new(out);
            w.max_results = cap.unwrap_or(sarif::MAX_RESULTS);
            Box::new(w)
        }
        OutputFormat::Github => Box::new(github::GithubWriter::new(out)),
        OutputFormat::Gitlab => Box::new(gitlab::GitlabWriter::new(out)),
        OutputFormat::Junit => Box::new(junit::JunitWriter::new(out)),
        OutputFormat::Rdjsonl => Box::new(rdjsonl::RdjsonlWriter::new(out)),
        OutputFormat::Html => Box::new(html::HtmlWriter::new(out, cap.unwrap_or(html::SAMPLES))),
    })
}

/// Renders a whole collected run through [`writer`], so a collected run
/// and a streamed one are the same bytes by construction. `failures` are
/// also reported on stderr by the binary; machine formats carry them so a
/// consumer sees every file. `summary` is passed in rather than recounted:
/// it may count findings the caller chose not to print (`hidden`).
pub fn render(
    out: &mut dyn Write,
    format: OutputFormat,
    reports: &[FileReport],
    failures: &[Failure],
    summary: &Summary,
    human: &HumanOptions,
) -> io::Result<()> {
    let mut w = writer(out, format, human)?;
    replay(&mut *w, reports, failures, summary)
}

/// Feeds a collected run to a report, as a streamed run would.
fn replay(
    w: &mut dyn Report,
    reports: &[FileReport],
    failures: &[Failure],
    summary: &Summary,
) -> io::Result<()> {
    for r in reports {
        w.start_file(&r.path, r.member.as_deref());
        for d in &r.diagnostics {
            w.diagnostic(d)?;
        }
        w.end_file(r.format, r.records)?;
    }
    w.finish(failures, summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check_path, Options};

    /// The names serde derives (each variant's and its aliases): what a
    /// config accepts. serde lists them when it refuses a name.
    fn serde_names() -> Vec<String> {
        let e = serde_json::from_str::<OutputFormat>("\"?\"")
            .expect_err("no format is named ?")
            .to_string();
        let list = e
            .split("expected one of ")
            .nth(1)
            .unwrap_or_else(|| panic!("serde's message changed: {e}"));
        list.split(", ")
            .map(|n| n.trim_matches(|c: char| c == '`' || !c.is_ascii_graphic()))
            .map(|n| n.split('`').next().unwrap_or(n).to_owned())
            .collect()
    }

    #[test]
    fn every_format_is_in_all_under_its_serde_name() {
        let mut names: Vec<&str> = OutputFormat::ALL
            .iter()
            .flat_map(|f| std::iter::once(f.name()).chain(f.aliases().iter().copied()))
            .collect();
        names.sort_unstable();
        let mut derived = serde_names();
        derived.sort_unstable();
        assert_eq!(derived, names);
        for f in OutputFormat::ALL {
            for n in std::iter::once(f.name()).chain(f.aliases().iter().copied()) {
                let read: OutputFormat =
                    serde_json::from_value(serde_json::Value::from(n)).expect("a format");
                assert_eq!(read, f, "{n}");
            }
        }
    }

    fn example() -> FileReport {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/example/employees.csv"
        );
        let mut r = check_path(path.as_ref(), &Options::default()).expect("checks");
        r.path = "testdata/example/employees.csv".into();
        assert!(r.diagnostics.len() > 2);
        r
    }

    /// A file that fails part way after some of its findings went out ends
    /// well-formed, as if it had held just those findings (with no format
    /// or records, which the reading never reached); one that failed
    /// before any leaves no trace. Either is also listed as a failure.
    #[test]
    fn an_abandoned_file_ends_as_a_file_of_the_findings_that_went_out() {
        let whole = example();
        let partial = FileReport {
            path: "partial.csv".into(),
            format: None,
            records: 0,
            diagnostics: whole.diagnostics[..2].to_vec(),
            member: None,
        };
        let failures = [
            Failure {
                path: "partial.csv".into(),
                reason: "read failed".into(),
            },
            Failure {
                path: "none.csv".into(),
                reason: "read failed".into(),
            },
        ];
        let collected = [whole, partial];
        let s = Summary::of(&collected, &failures);
        for format in OutputFormat::ALL {
            let h = HumanOptions::default();
            let mut want = Vec::new();
            render(&mut want, format, &collected, &failures, &s, &h).expect("renders");
            let mut got = Vec::new();
            {
                let mut w = writer(&mut got, format, &h).expect("writer");
                let whole = &collected[0];
                w.start_file(&whole.path, None);
                for d in &whole.diagnostics {
                    w.diagnostic(d).expect("writes");
                }
                w.end_file(whole.format, whole.records).expect("writes");
                w.start_file("partial.csv", None);
                for d in &collected[1].diagnostics {
                    w.diagnostic(d).expect("writes");
                }
                assert!(w.abandon_file().expect("ends"), "{format:?}");
                w.start_file("none.csv", None);
                assert!(!w.abandon_file().expect("ends"), "{format:?}");
                w.finish(&failures, &s).expect("writes");
            }
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
                "{format:?}"
            );
        }
    }

    /// SARIF and JUnit hold what waits for the end in memory up to a bound,
    /// then in a temporary file: either way the same bytes.
    #[test]
    fn a_spill_on_disk_gives_the_bytes_of_one_in_memory() {
        let reports = [example(), example()];
        let failures = [Failure {
            path: "gone.csv".into(),
            reason: "read failed".into(),
        }];
        let s = Summary::of(&reports, &failures);
        for format in [OutputFormat::Sarif, OutputFormat::Junit] {
            let mut want = Vec::new();
            render(
                &mut want,
                format,
                &reports,
                &failures,
                &s,
                &HumanOptions::default(),
            )
            .expect("renders");
            let mut got = Vec::new();
            {
                let mut w: Box<dyn Report> = match format {
                    OutputFormat::Sarif => Box::new(sarif::SarifWriter::spilling(
                        &mut got,
                        spill::Spill::with_limit(0),
                    )),
                    OutputFormat::Junit => Box::new(junit::JunitWriter::spilling(
                        &mut got,
                        spill::Spill::with_limit(0),
                        spill::Spill::with_limit(0),
                    )),
                    OutputFormat::Human
                    | OutputFormat::Concise
                    | OutputFormat::Json
                    | OutputFormat::Jsonl
                    | OutputFormat::Github
                    | OutputFormat::Gitlab
                    | OutputFormat::Rdjsonl
                    | OutputFormat::Html => unreachable!("spills nothing"),
                };
                replay(&mut *w, &reports, &failures, &s).expect("renders");
            }
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
                "{format:?}"
            );
        }
    }
}
