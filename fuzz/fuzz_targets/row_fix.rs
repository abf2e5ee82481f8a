#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bdxlint_fuzz::row_fix(data));
