//! The `bdxlint` binary: parse arguments, run, map the outcome to an exit code.

mod cli;
mod commands;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cli::run(cli) {
        Ok(code) => ExitCode::from(code),
        // A closed pipe (`bdxlint check ... | head`) is the reader's choice.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(cli::EXIT_CLEAN),
        Err(e) => {
            eprintln!("bdxlint: {e}");
            ExitCode::from(cli::EXIT_TROUBLE)
        }
    }
}
