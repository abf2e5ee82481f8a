#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bdxlint_fuzz::json_cell(data));
