//! Eight bytes at a time in a `u64` (SWAR): the byte tests the tokenizer,
//! the JSON scanner, the cell checks and the JSON writer share, written
//! once. Words are little-endian, so byte `i` of a word is bits `8i..8i+8`
//! and the lowest marked byte is the first in the text.

/// 0x01 in every byte.
pub(crate) const ONES: u64 = 0x0101_0101_0101_0101;
/// 0x80 in every byte: the high bits the tests below mark.
pub(crate) const HIGHS: u64 = 0x8080_8080_8080_8080;
/// 0x7F in every byte.
const LOWS: u64 = 0x7F7F_7F7F_7F7F_7F7F;

/// `byte` in every byte of a word.
#[inline]
pub(crate) const fn splat(byte: u8) -> u64 {
    ONES * byte as u64
}

/// 0x80 in exactly the bytes of `w` that are 0: the add cannot carry
/// across bytes, so no other byte is marked.
#[inline]
pub(crate) const fn zero_bytes(w: u64) -> u64 {
    !(((w & LOWS).wrapping_add(LOWS)) | w | LOWS)
}

/// 0x80 in exactly the bytes of `w` that equal `byte`.
#[inline]
pub(crate) const fn equal_bytes(w: u64, byte: u8) -> u64 {
    zero_bytes(w ^ splat(byte))
}

/// 0x80 in the first byte of `w` below `n` (`n` at most 0x80), and maybe
/// in later bytes, which a borrow can mark: exact for "is there one?" and
/// for the lowest marked byte, two instructions fewer than the exact test.
#[inline]
pub(crate) const fn first_below(w: u64, n: u8) -> u64 {
    w.wrapping_sub(splat(n)) & !w & HIGHS
}

/// The eight high bits of `m` gathered into one byte (bit `i` = byte `i`).
#[inline]
pub(crate) const fn gather(m: u64) -> u64 {
    ((m >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every test against its byte-at-a-time meaning, over words built from
    /// the bytes that sit on their edges.
    #[test]
    fn the_word_tests_mean_what_their_loops_mean() {
        let edges = [0u8, 1, 0x1F, 0x20, b',', b'"', b'\\', 0x7F, 0x80, 0xFF];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let bytes: [u8; 8] =
                std::array::from_fn(|i| edges[((seed >> (6 * i)) % edges.len() as u64) as usize]);
            let w = u64::from_le_bytes(bytes);
            let mark = |f: &dyn Fn(u8) -> bool| {
                bytes
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| f(**b))
                    .fold(0u64, |m, (i, _)| m | 0x80 << (8 * i))
            };
            assert_eq!(zero_bytes(w), mark(&|b| b == 0), "{bytes:?}");
            assert_eq!(equal_bytes(w, b','), mark(&|b| b == b','), "{bytes:?}");
            for n in [1u8, 0x20] {
                let exact = mark(&|b| b < n);
                let got = first_below(w, n);
                assert_eq!(got != 0, exact != 0, "{bytes:?} below {n}");
                assert_eq!(got.trailing_zeros(), exact.trailing_zeros(), "{bytes:?}");
            }
            let m = mark(&|b| b == b'"');
            let g = gather(m);
            for i in 0..8 {
                assert_eq!(g >> i & 1 == 1, bytes[i] == b'"', "{bytes:?}");
            }
        }
    }
}
