#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bdxlint_fuzz::zip_bundle(data));
