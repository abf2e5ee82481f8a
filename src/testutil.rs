//! Helpers for the unit tests.

/// A xorshift64 generator from `seed` (non-zero): the tests that compare a
/// fast path with the rule written plainly draw their inputs from it, so a
/// failure is the same on every run.
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
