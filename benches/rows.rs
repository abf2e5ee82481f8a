//! Micro benchmarks of the row checker, per format: every format's valid
//! fixture repeated to about 4 MB, checked in memory (no I/O) on the global
//! rayon pool. Repeated rows are duplicates, so the cross-row findings path
//! runs too. Run with `cargo bench -p bdxlint-bench` (a package of its
//! own, so `cargo test` never builds divan); the whole-program benchmark
//! against the parse floor is `benches/whole-program.sh`.

use bdxlint::check::{check_reader, Options};
use std::path::Path;

fn main() {
    divan::main();
}

/// The fixture's header once, then its rows repeated to about `size` bytes.
fn data(format: &str, size: usize) -> Vec<u8> {
    // This package is `benches/`; the fixtures are the main package's.
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata")
        .join(format)
        .join("valid.csv");
    let text = std::fs::read(&path).expect("fixture is readable");
    let split = text
        .iter()
        .position(|b| *b == b'\n')
        .expect("a header line")
        + 1;
    let (header, rows) = text.split_at(split);
    let mut out = header.to_vec();
    while out.len() < size {
        out.extend_from_slice(rows);
        if !rows.ends_with(b"\n") {
            out.push(b'\n');
        }
    }
    out
}

// Every format of the registry, so that a new one is measured too (each
// has a valid fixture; tests/fixtures.rs requires it).
#[divan::bench(args = bdxlint::schema::format_names())]
fn check(bencher: divan::Bencher, format: &str) {
    let input = data(format, 4 << 20);
    let opts = Options {
        format: Some(format.to_owned()),
        snippets: false,
        ..Options::default()
    };
    bencher
        .counter(divan::counter::BytesCount::new(input.len()))
        .bench(|| {
            check_reader(divan::black_box(input.as_slice()), "bench.csv", None, &opts)
                .expect("checks")
        });
}
