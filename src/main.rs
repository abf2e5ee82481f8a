//! The `bdxlint` binary: parse arguments, run, map the outcome to an exit code.

mod cli;
mod commands;
mod fix_args;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cli::run(cli) {
        // A closed standard output (`| head`) never gets here: the run goes
        // on without it and exits with its own status (see cli::ClosedPipe).
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("bdxlint: {e}");
            ExitCode::from(cli::EXIT_TROUBLE)
        }
    }
}
