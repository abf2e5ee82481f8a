//! The integration tests, one crate: one link of the library and the test
//! harness instead of one per file. Each module was a test binary of its
//! own; helpers they share live in `common`.
//!
//! The scale tests (every memory bound, determinism and cross-row findings
//! on large files at many chunk sizes and thread counts), minutes each
//! unoptimised, are `#[ignore = "scale: …"]`: `.ci/run` runs them
//! in release (`cargo test --release --test it -- --ignored`).

#[cfg(target_os = "linux")]
mod common;

mod architecture;
mod batch;
mod bundle;
mod cli;
mod config;
mod cross;
mod determinism;
mod escapes;
mod explain;
mod fix;
mod fix_props;
mod fixtures;
mod fuzz_replay;
mod grammar;
mod integrations;
mod json_doubled;
mod memory;
mod memory_settings;
mod outputs;
mod outputs_safety;
mod readme;
mod replace;
mod rewrite_props;
mod robustness;
mod run;
mod scanner;
mod sheets;
mod signals;
mod spreadsheet;
mod traceability;
