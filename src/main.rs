//! The `bdxlint` binary: parse arguments, run, map the outcome to an exit code.

mod cli;
mod commands;
mod exit;
mod repair_flags;

use clap::Parser;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    clean_up_on_signals();
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => match cli::misused_flag(&e) {
            // One line, not clap's list of every format and the usage.
            Some(hint) => {
                let _ = writeln!(std::io::stderr(), "bdxlint: {hint}");
                return ExitCode::from(exit::EXIT_TROUBLE);
            }
            None => e.exit(),
        },
    };
    match cli::run(cli) {
        // A closed standard output (`| head`) never gets here: the run goes
        // on without it and exits with its own status (see cli::ClosedPipe).
        Ok(code) => ExitCode::from(code),
        Err(e) => ExitCode::from(e.exit(&mut std::io::stderr())),
    }
}

/// A run ended by a signal (Ctrl-C, a CI job's timeout) removes the
/// temporary copies it was writing (`tempfiles`), then dies of the signal
/// as it would have; a file-size limit (`ulimit -f`) turns into the write
/// error it is (`File too large`, exit 2) instead of killing the process
/// with its copies left behind. If the handlers cannot be installed the run
/// goes on without them.
#[cfg(unix)]
fn clean_up_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGXFSZ};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    // Caught (and ignored) rather than fatal: the write that passes the
    // limit then fails with EFBIG.
    let _ = signal_hook::flag::register(SIGXFSZ, Arc::new(AtomicBool::new(false)));
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                bdxlint::tempfiles::remove_all();
                let _ = signal_hook::low_level::emulate_default_handler(sig);
                // A default action that did not end the process.
                std::process::exit(128 + sig);
            }
        });
}

#[cfg(not(unix))]
fn clean_up_on_signals() {}
