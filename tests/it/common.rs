//! Helpers the tests of writing share.

use std::io::Write;
use std::path::Path;

/// Writes an employees file of `rows` rows to `path`, each with a safe fix
/// (a year-first date), so `--fix` writes a copy as large as it.
pub fn fixable(path: &Path, rows: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    f.write_all(b"Employee ID,Full Name,Work Email,Department,Title,Start Date,End Date,Manager Work Email,Platform Roles,Metadata Version,Metadata\n")
        .expect("write");
    for i in 0..rows {
        writeln!(
            f,
            "E-{i},Ada Lovelace {i},ada{i}@example.com,Engineering,Engineer,2024-03-07,,,reviewer,,"
        )
        .expect("write");
    }
    f.flush().expect("flush");
}

/// The hidden temporary files bdxlint left in `dir`.
pub fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("read dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".bdxlint"))
        .collect()
}
