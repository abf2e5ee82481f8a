//! Replays the fuzz corpora and regression files on stable: every file of
//! `fuzz/corpus/<target>/` and `fuzz/regressions/<target>/` goes through
//! the entry point its fuzz target calls (`fuzz/src/lib.rs`, included
//! here), so a crash the fuzzers once found stays fixed under `cargo test`.

#[path = "../../fuzz/src/lib.rs"]
mod fuzzing;

use std::path::{Path, PathBuf};

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != ".gitkeep"))
        .collect();
    out.sort();
    out
}

#[test]
fn every_corpus_and_regression_file_passes_its_target() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut replayed = 0;
    for (name, target) in fuzzing::TARGETS {
        for kind in ["corpus", "regressions"] {
            for path in files(&fuzz.join(kind).join(name)) {
                let data = match std::fs::read(&path) {
                    Ok(data) => data,
                    // A fuzzer running on the local corpus replaces files
                    // as it shrinks them.
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                    Err(e) => panic!("{}: {e}", path.display()),
                };
                let run = std::panic::catch_unwind(|| target(&data));
                assert!(run.is_ok(), "{name}: {} fails", path.display());
                replayed += 1;
            }
        }
    }
    assert!(replayed > 0, "no fuzz input found under {}", fuzz.display());
}
