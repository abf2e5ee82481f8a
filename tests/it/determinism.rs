//! The output is the same, byte for byte, at any thread count, and whether a
//! file's findings were streamed (files over 8 MiB) or collected first.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// About 10 MB of entitlements (so the file is streamed, in ten 1 MiB
/// chunks) with findings spread through it: bad booleans and e-mails,
/// identity conflicts and duplicate rows whose first sighting is several
/// chunks earlier, and a run of rows that are all wrong.
fn generate(path: &Path) {
    let mut text = String::from(
        "Project,Privilege Name,Privilege Value,Email,User ID,Username,Name,Connection,Connection Type,Resource,Resource Type\n",
    );
    let rows = 100_000;
    for i in 0..rows {
        let user = i % 5_000;
        let mut value = "true";
        let mut email = format!("user{user}@example.com");
        let mut id = format!("{}", 100_000 + user);
        if i % 997 == 0 {
            value = "yes";
        }
        if i % 1_499 == 0 {
            email = format!("user{user}.example.com");
        }
        // The same e-mail and username with another user ID, far from the
        // row that established them.
        if i % 9_973 == 0 && i > 0 {
            id = format!("{}", 900_000 + i);
        }
        if (60_000..60_050).contains(&i) {
            value = "maybe";
        }
        writeln!(
            text,
            "acme,perm.{},{value},{email},{id},u{user},\"User {user}, Jr.\",team-{},group,\"repo/{}\",repository",
            i % 40,
            i % 30,
            i % 7,
        )
        .expect("write to a String");
        if i % 12_007 == 0 && i > 0 {
            // A duplicate of a row from about 60,000 rows (chunks) earlier.
            let line = text.lines().nth(1 + i / 7).map(str::to_owned);
            if let Some(line) = line {
                text.push_str(&line);
                text.push('\n');
            }
        }
    }
    assert!(text.len() > 9 << 20, "streamed files are over 8 MiB");
    std::fs::write(path, text).expect("write the generated file");
}

/// A fresh directory of this test run's own.
fn scratch(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("bdxlint-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn run(args: &[&str]) -> (Vec<u8>, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_bdxlint"))
        .args(args)
        .output()
        .expect("bdxlint runs");
    (out.stdout, out.status.code().unwrap_or(-1))
}

/// Some identity conflict's earlier row is more than a chunk (1 MiB) away:
/// at over 60 bytes a row, 20,000 lines apart is more than 1.2 MB.
fn assert_conflicts_across_chunks(json: &[u8]) {
    let doc: serde_json::Value = serde_json::from_slice(json).expect("valid JSON");
    let far = doc["files"][0]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["code"] == "X001")
        .filter(|d| {
            let line = d["line"].as_u64().expect("line");
            let first = d["related"][0]["line"].as_u64().expect("related line");
            line > first + 20_000
        })
        .count();
    assert!(far > 0, "no identity conflict spans chunks");
}

#[test]
#[ignore = "scale: minutes unoptimised; .ci/run runs it in release"]
fn identical_output_at_1_2_and_7_threads_streamed_or_collected() {
    let dir = scratch("determinism");
    let file = dir.join("entitlements.csv");
    generate(&file);
    let baseline = dir.join("empty-baseline.json");
    std::fs::write(&baseline, "bdxlint baseline 2\n").expect("baseline");
    let f = file.to_str().expect("utf-8 temp path");
    let b = baseline.to_str().expect("utf-8 temp path");
    for format in ["json", "concise"] {
        let (one, code) = run(&["check", "--threads", "1", "--output-format", format, f]);
        assert_eq!(code, 1);
        let text = String::from_utf8_lossy(&one);
        for code in ["C005", "C003", "X001", "X005"] {
            assert!(text.contains(code), "{format}: no {code} finding");
        }
        if format == "json" {
            assert_conflicts_across_chunks(&one);
        }
        for threads in ["2", "7"] {
            let (other, _) = run(&["check", "--threads", threads, "--output-format", format, f]);
            assert!(
                one == other,
                "{format}: --threads {threads} differs from --threads 1"
            );
        }
        // A baseline makes the run collect findings before writing them.
        let (collected, _) = run(&["check", "--baseline", b, "--output-format", format, f]);
        assert!(
            one == collected,
            "{format}: streamed and collected output differ"
        );
    }
    // Human output on a large file: the progress bar is for a terminal
    // only, so with stderr captured nothing is drawn there.
    let out = Command::new(env!("CARGO_BIN_EXE_bdxlint"))
        .args(["check", f])
        .output()
        .expect("bdxlint runs");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // Repeated findings of one rule on one column are folded into a line.
    assert!(
        text.contains(" findings, the first 5 shown above"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_large_file_that_fits_no_format_is_one_unreadable_entry_in_valid_json() {
    let dir = scratch("unknown");
    let file = dir.join("mystery.csv");
    let mut text = String::from("Colour,Flavour,Mood\n");
    while text.len() <= 9 << 20 {
        text.push_str("red,sweet,calm\n");
    }
    std::fs::write(&file, text).expect("write");
    let (out, code) = run(&[
        "check",
        "--output-format",
        "json",
        file.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 2);
    let doc: serde_json::Value = serde_json::from_slice(&out).expect("valid JSON");
    assert_eq!(doc["summary"]["files"], 1, "{doc}");
    assert_eq!(doc["summary"]["unreadable"], 1, "{doc}");
    let files = doc["files"].as_array().expect("files");
    assert_eq!(files.len(), 1, "{doc}");
    assert!(files[0]["error"].as_str().is_some(), "{doc}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A human report stops capturing source lines once it hides a finding
/// past `--max-diagnostics`. What it shows must not change: at any thread
/// count it is the start of the uncapped report (every finding shown with
/// its source lines), with the cap well past the first chunk.
#[test]
#[ignore = "scale: minutes unoptimised; .ci/run runs it in release"]
fn a_capped_human_report_is_the_start_of_the_full_one_at_any_thread_count() {
    let dir = scratch("capped");
    let file = dir.join("entitlements.csv");
    generate(&file);
    let f = file.to_str().expect("utf-8 temp path");
    let human = |threads: &str, max: &str| {
        let (out, code) = run(&[
            "check",
            "--color",
            "never",
            "--threads",
            threads,
            "--max-diagnostics",
            max,
            f,
        ]);
        assert_eq!(code, 1);
        String::from_utf8(out).expect("UTF-8 report")
    };
    let full = human("1", "0");
    for threads in ["1", "2", "7"] {
        let capped = human(threads, "200");
        let (shown, summary) = capped
            .trim_end()
            .rsplit_once('\n')
            .expect("findings, then the summary line");
        assert!(
            summary.contains("not shown (--max-diagnostics)"),
            "{summary}"
        );
        // Every finding shown has its source lines.
        let findings = shown
            .lines()
            .filter(|l| {
                l.starts_with("error(") || l.starts_with("warning(") || l.starts_with("info(")
            })
            .count();
        assert_eq!(findings, 200, "{shown}");
        assert_eq!(shown.matches(",-[").count(), findings);
        assert!(
            full.starts_with(shown),
            "--threads {threads}: the capped report differs from the start of the full one"
        );
        // The 200th finding is chunks into the file (lines of about 110
        // bytes, 1 MiB a chunk).
        let last_line: u64 = shown
            .rsplit_once(&format!("{f}:"))
            .and_then(|(_, rest)| rest.split(':').next())
            .and_then(|n| n.parse().ok())
            .expect("the last finding's line");
        assert!(last_line > 20_000, "the cap is reached at line {last_line}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// On a terminal, human output on a large file draws the progress bar on
/// stderr: bytes read of the total, and the time left. (`script` gives the
/// run a pseudo-terminal; util-linux has it on every Linux.)
#[cfg(target_os = "linux")]
#[test]
fn a_large_file_on_a_terminal_shows_the_progress_bar() {
    let dir = scratch("progress");
    let file = dir.join("entitlements.csv");
    generate(&file);
    let command = format!(
        "'{}' check --format entitlements --threads 1 '{}' >/dev/null",
        env!("CARGO_BIN_EXE_bdxlint"),
        file.display()
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .expect("script (util-linux) runs");
    let tty = String::from_utf8_lossy(&out.stdout);
    assert!(tty.contains("MiB/"), "no bytes of the total drawn: {tty:?}");
    assert!(tty.contains("ETA"), "no time left drawn: {tty:?}");
    // The same run with JSON output draws nothing.
    let command = command.replace("check ", "check --output-format json ");
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .expect("script (util-linux) runs");
    let tty = String::from_utf8_lossy(&out.stdout);
    assert!(
        !tty.contains("ETA"),
        "a bar drawn with JSON output: {tty:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The same bytes checked in 1 MiB chunks and in chunks of every size from
/// 1 to 64 bytes (on one thread and on several) must give the same
/// verdict: the same format or error, records and findings. Chunks end at
/// record boundaries, so a small chunk size puts a boundary after nearly
/// every record: before and after the header, inside runs of blank lines,
/// next to a BOM, between CRLF rows and around quoted cells with newlines.
fn assert_same_at_every_chunk_size(name: &str, data: &[u8], format: Option<&str>) {
    use bdxlint::check::{check_reader, Options};
    let run = |chunk_size: usize| {
        let opts = Options {
            format: format.map(str::to_owned),
            chunk_size,
            ..Options::default()
        };
        check_reader(data, "f.csv", None, &opts)
            .map(|r| (r.format, r.records, r.diagnostics))
            .map_err(|e| e.to_string())
    };
    let whole = run(1 << 20);
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        for size in 1..=64 {
            let chunked = pool.install(|| run(size));
            assert!(
                chunked == whole,
                "{name} ({format:?}): chunk size {size} on {threads} threads gives\n{chunked:#?}\n1 MiB gives\n{whole:#?}"
            );
        }
    }
}

const EMPLOYEES: &str = "Full Name,Work Email,Start Date,Platform Roles\n";

fn rows(n: usize, ending: &str) -> String {
    (0..n)
        .map(|i| {
            let date = if i % 3 == 0 { "3/7/2024" } else { "03/07/2024" };
            format!("Name {i},n{i}@example.com,{date},reviewer{ending}")
        })
        .collect()
}

#[test]
fn blank_lines_before_the_header_give_one_verdict_at_every_chunk_size() {
    let body = format!("{EMPLOYEES}{}", rows(5, "\n"));
    let cases: Vec<(&str, String)> = vec![
        ("empty lines, then the header", "\n".repeat(300) + &body),
        (
            "CRLF blank lines, then the header",
            "\r\n".repeat(300) + &body,
        ),
        ("empty lines only", "\n".repeat(300)),
        ("lines of spaces only", "  \n\t\n".repeat(100)),
        (
            "lines of spaces, then the header",
            "  \n".repeat(200) + &body,
        ),
        (
            "empty lines, a line of spaces, the header",
            "\n".repeat(90) + " \t \n" + &body,
        ),
        ("a lone CR line", "\r\n\r".repeat(3) + &body),
        ("spaces without a line ending", "\n\n   ".to_owned()),
    ];
    for (name, text) in &cases {
        for format in [None, Some("employees")] {
            assert_same_at_every_chunk_size(name, text.as_bytes(), format);
        }
    }
    // The reading: the header is the first record; blank lines before it
    // are skipped, a line of whitespace is not (a CSV reader takes it as
    // the header) and is one `empty-file` finding.
    use bdxlint::check::{check_reader, Options};
    let opts = Options {
        chunk_size: 7,
        ..Options::default()
    };
    let verdict = |text: &str| {
        let r = check_reader(text.as_bytes(), "f.csv", None, &opts).expect("checks");
        let found: Vec<String> = r
            .diagnostics
            .iter()
            .map(|d| format!("{}:{} {}", d.line, d.rule.name, d.message))
            .collect();
        (r.format, found)
    };
    let (format, found) = verdict(&cases[0].1);
    assert_eq!(format, Some("employees"));
    assert!(
        found.iter().all(|f| f.contains("invalid-date")),
        "{found:?}"
    );
    assert_eq!(
        verdict(&cases[3].1).1,
        ["1:empty-file the file has no header row, only blank lines"]
    );
    assert_eq!(
        verdict(&cases[4].1).1,
        ["1:empty-file the file has no header row: line 1 holds only whitespace"]
    );
    assert_eq!(
        verdict(&cases[5].1).1,
        ["91:empty-file the file has no header row: line 91 holds only whitespace"]
    );
}

#[test]
#[ignore = "scale: minutes unoptimised; .ci/run runs it in release"]
fn boms_crlf_quotes_and_nul_bytes_give_one_verdict_at_every_chunk_size() {
    let quoted: String = (0..40)
        .map(|i| {
            format!(
                "\"Name \"\"{i}\"\"\nsecond line\",\"n{i}@example.com\",03/07/2024,\"reviewer,\nadmin\"\r\n"
            )
        })
        .collect();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "BOM",
            [
                &b"\xEF\xBB\xBF"[..],
                EMPLOYEES.as_bytes(),
                rows(30, "\n").as_bytes(),
            ]
            .concat(),
        ),
        (
            "BOM, blank lines",
            [
                &b"\xEF\xBB\xBF\n\n\r\n"[..],
                EMPLOYEES.as_bytes(),
                rows(30, "\n").as_bytes(),
            ]
            .concat(),
        ),
        ("BOM only", b"\xEF\xBB\xBF".to_vec()),
        (
            "CRLF",
            (EMPLOYEES.replace('\n', "\r\n") + &rows(40, "\r\n")).into_bytes(),
        ),
        (
            "mixed endings",
            (EMPLOYEES.replace('\n', "\r\n") + &rows(20, "\r\n") + &rows(20, "\n")).into_bytes(),
        ),
        (
            "quotes across boundaries",
            (EMPLOYEES.to_owned() + &quoted).into_bytes(),
        ),
        (
            "an unterminated quote",
            (EMPLOYEES.to_owned() + &rows(5, "\n") + "\"Ada,a@example.com\n" + &rows(5, "\n"))
                .into_bytes(),
        ),
        (
            "NUL bytes in a short first row",
            [
                &b"A\0B\0C\0D\0\n"[..],
                EMPLOYEES.as_bytes(),
                rows(20, "\n").as_bytes(),
            ]
            .concat(),
        ),
        (
            "NUL bytes in the rows",
            [
                EMPLOYEES.as_bytes(),
                b"Ada\0,a@example.com,03/07/2024,\0\0reviewer\n",
                rows(20, "\n").as_bytes(),
            ]
            .concat(),
        ),
        (
            "UTF-16 without a BOM",
            EMPLOYEES
                .encode_utf16()
                .flat_map(u16::to_le_bytes)
                .collect(),
        ),
    ];
    for (name, data) in &cases {
        for format in [None, Some("employees")] {
            assert_same_at_every_chunk_size(name, data, format);
        }
    }
    // A UTF-8 file whose first row holds NUL bytes is not UTF-16 at any
    // chunk size: the encoding is sniffed from a fixed prefix.
    use bdxlint::check::{check_reader, Options};
    for chunk_size in [1, 9, 1 << 20] {
        let opts = Options {
            format: Some("employees".into()),
            chunk_size,
            ..Options::default()
        };
        let r = check_reader(&cases[7].1[..], "f.csv", None, &opts).expect("checks");
        assert!(
            r.diagnostics
                .iter()
                .all(|d| d.rule.name != "unsupported-encoding"),
            "chunk size {chunk_size}: {:?}",
            r.diagnostics
        );
    }
}

/// Findings reported once per file (with a count of the rows like them)
/// are held in a map until the end; several can share a row and a column,
/// and they must still come out in one order, run after run.
#[test]
fn findings_held_to_the_end_come_out_in_one_order() {
    use bdxlint::check::{check_reader, Options};
    // No Connection column, yet each row fills the three columns that
    // need it: three once-per-file findings on the same row and column.
    let mut text = String::from(
        "Project,Privilege Name,Privilege Value,Email,User ID,Username,Name,Connection Type,Connection Provider,Connection Provider Type,Resource,Resource Type\n",
    );
    for i in 0..4 {
        text.push_str(&format!(
            "acme,admin,true,u{i}@example.com,{i},u{i},User {i},role,team,group,db,database\n"
        ));
    }
    let opts = Options {
        format: Some("entitlements".into()),
        ..Options::default()
    };
    let order = || {
        let r = check_reader(text.as_bytes(), "f.csv", None, &opts).expect("checks");
        r.diagnostics
            .iter()
            .map(|d| format!("{}:{} {} {}", d.line, d.col, d.rule.code, d.message))
            .collect::<Vec<_>>()
    };
    let first = order();
    assert!(
        first.iter().filter(|d| d.starts_with("2:1 K002")).count() >= 3,
        "{first:#?}"
    );
    // Each check builds its map with a new random seed.
    for _ in 0..20 {
        assert_eq!(order(), first);
    }
}

/// Files as spreadsheets save them: read in their dialect and encoding,
/// which are told from the same bytes at any chunk size.
#[test]
#[ignore = "scale: minutes unoptimised; .ci/run runs it in release"]
fn spreadsheet_dialects_and_encodings_give_one_verdict_at_every_chunk_size() {
    let semi = |text: &str| text.replace(',', ";");
    let latin1 = |text: &str| -> Vec<u8> {
        text.chars()
            .map(|c| match c {
                '’' => 0x92,
                c => u8::try_from(u32::from(c)).unwrap_or(b'?'),
            })
            .collect()
    };
    let quoted: String = (0..30)
        .map(|i| format!("\"Name \"\"{i}\"\"\nsecond; line\";\"n{i}@example.com\";03/07/2024;\"reviewer,admin\"\r\n"))
        .collect();
    // Past the 64 KiB head, so the first non-ASCII line decides.
    let late = format!(
        "{EMPLOYEES}{}Ren\u{e9}e O’Brien,r@example.com,03/07/2024,reviewer\n{}",
        rows(1_500, "\n"),
        rows(20, "\n")
    );
    assert!(late.len() > 64 << 10);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "semicolons",
            semi(&format!("{EMPLOYEES}{}", rows(30, "\n"))).into_bytes(),
        ),
        (
            "semicolons, quotes across boundaries",
            (semi(EMPLOYEES) + &quoted).into_bytes(),
        ),
        (
            "tabs, CRLF",
            format!("{EMPLOYEES}{}", rows(30, "\r\n"))
                .replace(',', "\t")
                .into_bytes(),
        ),
        (
            "sep=; and semicolons",
            ("sep=;\r\n".to_owned() + &semi(&format!("{EMPLOYEES}{}", rows(30, "\n"))))
                .into_bytes(),
        ),
        (
            "BOM, sep=,",
            [
                &b"\xEF\xBB\xBFsep=,\n"[..],
                EMPLOYEES.as_bytes(),
                rows(30, "\n").as_bytes(),
            ]
            .concat(),
        ),
        ("sep= only", b"sep=;\n".to_vec()),
        (
            "Windows-1252 in the head",
            latin1(&format!(
                "{EMPLOYEES}Jos\u{e9} N\u{fa}\u{f1}ez,j@example.com,3/7/2024,reviewer\n{}Ren\u{e9}e O’Brien,r@example.com,03/07/2024,\n",
                rows(30, "\n")
            )),
        ),
        ("Windows-1252 past the head", latin1(&late)),
        (
            "UTF-8 with one bad byte",
            [
                EMPLOYEES.as_bytes(),
                "Jos\u{e9},j@example.com,03/07/2024,reviewer\n".as_bytes(),
                b"Ren\xe9e,r@example.com,03/07/2024,reviewer\n",
                rows(20, "\n").as_bytes(),
            ]
            .concat(),
        ),
        (
            "empty rows, an unnamed column with data",
            format!(
                "Full Name,Work Email,,Start Date\n,,,\n{},, ,\n,,,\n",
                (0..30)
                    .map(|i| format!("N {i},n{i}@example.com,{},03/07/2024\n", i % 3))
                    .collect::<String>()
            )
            .into_bytes(),
        ),
    ];
    for (name, data) in &cases {
        for format in [None, Some("employees")] {
            assert_same_at_every_chunk_size(name, data, format);
        }
    }
    // And the verdicts are the ones meant.
    use bdxlint::check::{check_reader, Options};
    let count = |data: &[u8], code: &str| {
        check_reader(data, "f.csv", None, &Options::default())
            .expect("checks")
            .diagnostics
            .iter()
            .filter(|d| d.rule.code == code)
            .count()
    };
    let want = [
        (0, "F010", 1),
        (1, "F010", 1),
        (2, "F010", 1),
        (3, "F011", 1),
        (3, "F010", 1),
        (4, "F011", 1),
        (4, "F010", 0),
        (6, "F012", 1),
        (6, "F003", 0),
        (7, "F012", 1),
        (7, "F003", 0),
        (8, "F012", 0),
        (8, "F003", 1),
        (9, "Q005", 3),
        (9, "H008", 1),
        (9, "Q004", 0),
    ];
    for (k, code, n) in want {
        assert_eq!(count(&cases[k].1, code), n, "{} {code}", cases[k].0);
    }
}
