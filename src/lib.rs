//! bdxlint: an offline validator and linter for the CSV files (and ZIP
//! bundles) of the Bulk Data Exchange API.
//!
//! The library does the work and never prints; `src/main.rs` is glue. A
//! format is a schema table in `rules/` ([`schema`]); [`check`] streams a
//! file's records through the table's compiled checks and yields
//! [`diagnostic::Diagnostic`]s; [`report`] renders them.
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod apply;
pub mod baseline;
pub mod bounded_read;
pub mod bundle;
pub mod check;
pub mod config;
pub mod diagnostic;
pub mod diff;
pub mod error;
pub mod json;
pub mod names;
pub mod output;
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
