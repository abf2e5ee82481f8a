//! How the binary ends: the exit codes, and why a command failed. The
//! bottom of the binary (`cli.rs` and `commands.rs` both use it, it uses
//! neither), and the one place a failure becomes a message and a status:
//! [`Failure::exit`], called by `main.rs`.

use bdxlint::report::printable;
use std::io::{self, Write};

/// Exit codes: findings are not failures of the tool.
pub use bdxlint::run::{EXIT_CLEAN, EXIT_TROUBLE};

/// Why a command did not do what it was asked. `bdxlint check` says its
/// own troubles (a config that does not parse, a file it could not read)
/// on the `err` the binary hands it and returns their status: the library
/// reports those, the binary only ends.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// Writing the output (or reading standard input) failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error("no rule {0:?}; `bdxlint rules` lists them")]
    NoRule(String),
    #[error("no format {0:?}; `bdxlint formats` lists them")]
    NoFormat(String),
    #[error("no subcommand {0:?}; `bdxlint --help` lists them")]
    NoSubcommand(String),
    /// A bundle kind asked of `template`, which writes one CSV file.
    #[error("{name} is a ZIP of two CSV files; start each with `bdxlint template entities` and `bdxlint template {relations}`")]
    BundleTemplate {
        name: String,
        relations: &'static str,
    },
    /// A compiled-in table that does not parse (a bug of the build).
    #[error("{0}")]
    Table(String),
}

impl Failure {
    /// Says why on `err`, escaped (an I/O error's text may name a file),
    /// and gives the status to exit with.
    pub(crate) fn exit(&self, err: &mut dyn Write) -> u8 {
        let text = match self {
            Failure::Io(_) => printable(&self.to_string()).into_owned(),
            // What the user typed, quoted as Rust quotes a string: no
            // control character reaches the terminal raw.
            _ => self.to_string(),
        };
        // Nowhere left to say it if stderr is gone: the status still says.
        let _ = writeln!(err, "bdxlint: {text}");
        EXIT_TROUBLE
    }
}

impl From<serde_json::Error> for Failure {
    /// As an I/O error, as `io::Error` takes it (the JSON of a listing
    /// fails only to be written).
    fn from(e: serde_json::Error) -> Failure {
        Failure::Io(e.into())
    }
}
