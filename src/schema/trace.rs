//! Where a check stands in the spec: the quote it rests on and, for a
//! check that only warns, the reason it does (`spec` and `clause` on every
//! entry of a table).

use serde::Deserialize;

/// Why a check is a warning although it sits in a table: the reasons of
/// clause 4 of the severity principle (top of `rules/README.md`). A check
/// whose findings are errors names none; a check that warns must name one,
/// and a test holds every table to that.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Clause {
    /// The spec's words are soft: "values used", "usually", "in the
    /// sample", "e.g.".
    Soft,
    /// The spec says nothing that rejects it (repeats, order, a shape it
    /// does not state).
    Silent,
    /// The spec contradicts itself.
    Contradiction,
    /// The verdict depends on platform state or upload order that one run
    /// cannot see.
    PlatformState,
}

impl Clause {
    pub fn name(self) -> &'static str {
        match self {
            Clause::Soft => "soft",
            Clause::Silent => "silent",
            Clause::Contradiction => "contradiction",
            Clause::PlatformState => "platform-state",
        }
    }

    /// Why the check warns, in a sentence fragment.
    pub fn describe(self) -> &'static str {
        match self {
            Clause::Soft => "the spec's words are soft (values used, usually, in the sample)",
            Clause::Silent => "the spec says nothing that rejects it",
            Clause::Contradiction => "the spec contradicts itself",
            Clause::PlatformState => "the verdict depends on platform state or upload order",
        }
    }
}

/// What a check enforces, in the spec's words: `spec` quotes the spec (one
/// or more fragments joined by ` … `, each found verbatim in the spec), and
/// `clause` says why the check only warns, where it does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    pub(crate) spec: Option<String>,
    pub clause: Option<Clause>,
}

impl Trace {
    pub(super) fn new(spec: Option<String>, clause: Option<Clause>) -> Trace {
        Trace { spec, clause }
    }

    /// The quoted fragments, in order.
    pub fn fragments(&self) -> impl Iterator<Item = &str> {
        self.spec
            .as_deref()
            .into_iter()
            .flat_map(|s| s.split(" … "))
            .map(str::trim)
            .filter(|f| !f.is_empty())
    }
}

/// The spec text as quotes are compared with it: backticks dropped and
/// whitespace runs collapsed to one space, so a quote may cross a line
/// break and leave out code marks.
pub fn normalize_quote(text: &str) -> String {
    text.replace('`', "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
