//! What a report writer holds as findings arrive: run it under
//! `/usr/bin/time -v` at two sizes and divide the difference in peak memory
//! by the difference in findings.
//!
//! Usage:
//! - `cargo run --release --example report_memory -- OUTPUT-FORMAT FILE [FORMAT]`
//!   checks FILE (as FORMAT if given) and hands each finding to the writer
//!   as it is made, as a streamed run does.
//! - `cargo run --release --example report_memory -- OUTPUT-FORMAT --synthetic N`
//!   feeds the writer N copies of one finding of `testdata/example/`, each
//!   on its own line with its own message (so its own fingerprint: the
//!   per-file fingerprint table's worst case), in one file: the writer's
//!   memory alone.
//!
//! The report goes to standard output.

use bdxlint::check::{check_path, check_reader_with, Options};
use bdxlint::diagnostic::Severity;
use bdxlint::report::{self, HumanOptions, OutputFormat, Summary};
use std::io::{self, BufWriter, Write};

fn format(name: &str) -> Result<OutputFormat, String> {
    serde_json::from_value(serde_json::Value::String(name.to_owned()))
        .map_err(|_| format!("no output format {name:?}"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: report_memory OUTPUT-FORMAT (FILE [FORMAT] | --synthetic N)";
    let (Some(output), Some(what)) = (args.first(), args.get(1)) else {
        return Err(usage.into());
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut w = report::writer(&mut out, format(output)?, &HumanOptions::default())?;
    let mut s = Summary {
        files: 1,
        ..Summary::default()
    };
    let mut error = None;
    if what == "--synthetic" {
        let n: u64 = args.get(2).ok_or(usage)?.parse()?;
        let example = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/example/employees.csv"
        );
        let found = check_path(example.as_ref(), &Options::default())?;
        let mut d = found.diagnostics.first().ok_or("no finding")?.clone();
        d.snippet = None;
        w.start_file("synthetic.csv", None);
        for i in 0..n {
            d.line = i + 2;
            d.message = format!("value {i} is wrong");
            w.diagnostic(&d)?;
        }
        w.end_file(Some("employees"), n)?;
        s.errors = n as usize;
    } else {
        let opts = Options {
            format: args.get(2).cloned(),
            ..Options::default()
        };
        let file = std::fs::File::open(what)?;
        w.start_file(what, None);
        let rep = check_reader_with(file, what, Some(what), &opts, &mut |d| {
            match d.severity {
                Severity::Error => s.errors += 1,
                Severity::Warning => s.warnings += 1,
                Severity::Info => s.infos += 1,
            }
            if error.is_none() {
                if let Err(e) = w.diagnostic(&d) {
                    error = Some(e);
                }
            }
        })?;
        if let Some(e) = error {
            return Err(e.into());
        }
        w.end_file(rep.format, rep.records)?;
    }
    w.finish(&[], &s)?;
    drop(w);
    out.flush()?;
    Ok(())
}
