//! Per-format schema tables.
//!
//! Every format of the spec is described by one TOML file in `rules/`, compiled
//! into the binary with `include_str!` and parsed into the typed [`Table`]
//! here. The raw serde structs reject unknown keys so a typo in a table is a
//! test failure, not a silently ignored rule. The grammar is documented in
//! `rules/README.md`; the two must change together.
//!
//! The files, bottom up (each imports only files above it in this list):
//! `shape.rs` (cell shapes), `json.rs` (the JSON grammars of
//! `rules/json.toml`), `trace.rs` (spec quotes and clauses), `registry.rs`
//! (the format names and their TOML), `words.rs` (placeholders and rule
//! codes of references' messages), `error.rs` (`TableError`); the parts of
//! a table, `columns.rs`, `conditions.rs`, `bindings.rs` (`[[json]]`),
//! `cross.rs` (`[identity]`, `[[unique]]`, `[[exclusive]]`), `references.rs` and
//! `unchecked.rs`; `table.rs` (`Table` and its parse, part by part),
//! `checks.rs` (`Table::checks`), `link.rs` (references against their
//! targets), `detect.rs` (a format from a header); this file keeps the
//! parsed tables.

mod bindings;
mod checks;
mod columns;
mod conditions;
mod cross;
mod detect;
mod error;
pub(crate) mod json;
mod link;
mod references;
mod registry;
pub(crate) mod shape;
mod table;
mod trace;
mod unchecked;
mod words;

#[cfg(test)]
mod tests;

pub use bindings::{Grammar, JsonRule};
pub use checks::Check;
pub use columns::{normalize_name, Column, ColumnId, Requirement};
pub(crate) use conditions::{Condition, Requires};
pub(crate) use detect::{detect_format, detect_format_among, evidence, Detection};
pub use error::TableError;
pub use references::{KeySource, Part, Reference, Source, SpanOf, UncheckedMode, Values};
pub use registry::format_names;
pub use shape::{BoolSpelling, Braces, Shape};
pub use table::{Direction, Table};
pub use trace::{normalize_quote, Clause, Trace};

use registry::TABLES;
use std::sync::OnceLock;

/// Each format's table, parsed the first time it is asked for: a run with
/// `--format` parses the one table it needs (parsing all of them was most
/// of start-up, about a millisecond). A table that fails to parse is a build
/// bug, so the error is kept and surfaced by the callers and by the tests.
fn parsed(i: usize) -> Result<&'static Table, &'static TableError> {
    static PARSED: [OnceLock<Result<Table, TableError>>; TABLES.len()] =
        [const { OnceLock::new() }; TABLES.len()];
    let (name, text) = TABLES[i];
    PARSED[i].get_or_init(|| Table::parse(name, text)).as_ref()
}

/// All format tables, in registry order.
pub fn tables() -> Result<&'static [&'static Table], &'static TableError> {
    static REGISTRY: OnceLock<Result<Vec<&'static Table>, TableError>> = OnceLock::new();
    REGISTRY
        .get_or_init(|| {
            let all = (0..TABLES.len())
                .map(parsed)
                .collect::<Result<Vec<_>, _>>()
                .map_err(Clone::clone)?;
            link::link(&all)?;
            Ok(all)
        })
        .as_ref()
        .map(Vec::as_slice)
}

/// Looks a table up by its `--format` name.
pub(crate) fn table(name: &str) -> Result<Option<&'static Table>, &'static TableError> {
    TABLES
        .iter()
        .position(|(n, _)| *n == name)
        .map(parsed)
        .transpose()
}
