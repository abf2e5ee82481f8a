#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bdxlint_fuzz::chunk_boundary(data));
