//! Checking files against schema tables.
pub mod header;
