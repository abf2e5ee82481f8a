//! bdxlint: an offline validator and linter for the CSV files (and ZIP
//! bundles) of the Bulk Data Exchange API.
//!
//! The library does the work and never prints; `src/main.rs` is glue. A
//! format is a schema table in `rules/` ([`schema`]); [`check`] streams a
//! file's records through the table's compiled checks and yields
//! [`diagnostic::Diagnostic`]s; [`report`] renders them.
//!
//! Visibility is `pub(crate)` by default, so the compiler reports code
//! nothing uses. An item is `pub` only when a user outside the library
//! needs it: the binary, the integration tests (`tests/it/`), the benches
//! (`benches/`), the schema checks (`tests/schema/`) or the fuzz targets
//! (`fuzz/`, whose entry points `tests/it/fuzz_replay.rs` compiles too).
//! Modules none of them names are private.
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub(crate) mod apply;
pub(crate) mod baseline;
pub(crate) mod bounded_read;
pub mod bundle;
pub mod check;
pub mod config;
pub mod diagnostic;
pub(crate) mod diff;
pub(crate) mod error;
pub mod json;
pub(crate) mod names;
pub(crate) mod output;
pub mod report;
pub mod rules;
pub mod run;
pub mod scan;
pub mod schema;
pub mod select;
mod swar;
pub mod tempfiles;
#[cfg(test)]
mod testutil;
