//! The flags of `bdxlint check` that repair files, ruff's names and
//! meanings: `--fix`, `--unsafe-fixes`, `--fix-only`, `--diff`,
//! `--show-fixes`; and `--split`, which sorts rows for the same user.
//! Named for the flags (it was `fix_args.rs`, one of five files about
//! fixing): the library's `apply.rs` and `run/passes.rs` do the work.

use bdxlint::run::FixRequest;
use std::io::IsTerminal;

#[derive(clap::Args, Debug, Clone, Default)]
#[command(next_help_heading = "Fixing")]
pub(crate) struct FixArgs {
    /// Apply the safe fixes, in place: each file is written beside itself
    /// and renamed over the original (permissions kept); rows no fix
    /// touches stay byte for byte. Standard input is fixed to standard
    /// output (the report then goes to standard error). ZIP bundles are not
    /// rewritten.
    #[arg(long)]
    pub(crate) fix: bool,

    /// Also apply the unsafe fixes (guesses a person should review: a
    /// header typo, an enum near miss, a repeated row removed), with --fix,
    /// --fix-only or --diff; alone, counts them as fixable.
    #[arg(long)]
    pub(crate) unsafe_fixes: bool,

    /// Like --fix, but list no findings: only the summary line, and exit 1
    /// only if findings at --fail-on remain.
    #[arg(long, conflicts_with = "diff")]
    pub(crate) fix_only: bool,

    /// Print a unified diff of what --fix would change and change nothing;
    /// exit 1 if anything would change.
    #[arg(long)]
    pub(crate) diff: bool,

    /// After fixing, list what was fixed, per file and rule.
    #[arg(long)]
    pub(crate) show_fixes: bool,

    /// Write the rows of one CSV file that carry no error to GOOD and the
    /// others to BAD, the header in both and every byte as it was, so the
    /// clean rows can be uploaded now; both files or neither. With --fix
    /// (and --unsafe-fixes) a fixed copy is split, the file left as it
    /// was. The report is printed as usual.
    #[arg(long, num_args = 2, value_names = ["GOOD", "BAD"])]
    pub(crate) split: Option<Vec<std::path::PathBuf>>,
}

impl FixArgs {
    /// `--split GOOD BAD`, if given.
    pub(crate) fn split(&self) -> Option<(std::path::PathBuf, std::path::PathBuf)> {
        match self.split.as_deref() {
            Some([good, bad]) => Some((good.clone(), bad.clone())),
            _ => None,
        }
    }

    /// The fixing asked for, if any.
    pub(crate) fn request(&self) -> Option<FixRequest> {
        (self.fix || self.fix_only || self.diff).then(|| FixRequest {
            unsafe_fixes: self.unsafe_fixes,
            diff: self.diff,
            only: self.fix_only,
            show_fixes: self.show_fixes,
            // A diff on a terminal shows control characters escaped; piped
            // (to `patch`, to a file) it keeps the bytes.
            escape: std::io::stdout().is_terminal(),
        })
    }
}
