//! Files in a legacy 8-bit encoding (Windows-1252, Latin-1), as Excel's
//! plain "CSV" saves them on Windows: told once, then read decoded.
//!
//! The decision is made once per file: when bytes above 0x7F form no valid
//! UTF-8 character and hold a byte that is not UTF-8, the file is legacy;
//! a valid UTF-8 character makes it UTF-8 (a few bad bytes in it are then
//! reported cell by cell, `invalid-utf8`). The bytes that decide are the
//! whole lines of the file's first 64 KiB (the head every reader reads
//! before any chunk) when they hold any above 0x7F, else the first line
//! that does, from that byte to the line's end (chunks end at line ends,
//! so the chunk holding that byte holds the rest of its line). Either
//! depends on the bytes only, which keeps the decision the same at any
//! chunk size. Every chunk from there on is
//! decoded as Windows-1252 (the WHATWG reading, which is also what
//! "latin1" means on the web: its five undefined bytes map to the C1
//! controls); a chunk keeps its original bytes and a map from decoded
//! offsets back to file offsets, so findings point at the file's bytes.

/// What 0x80-0x9F stand for in Windows-1252 (Latin-1 has C1 controls
/// there; the five bytes Windows-1252 leaves undefined keep them).
const CP1252_80: [char; 32] = [
    '\u{20AC}', '\u{81}', '\u{201A}', '\u{192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{2C6}', '\u{2030}', '\u{160}', '\u{2039}', '\u{152}', '\u{8D}', '\u{17D}', '\u{8F}',
    '\u{90}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{2DC}', '\u{2122}', '\u{161}', '\u{203A}', '\u{153}', '\u{9D}', '\u{17E}', '\u{178}',
];

/// The character byte `b` stands for in Windows-1252.
pub(crate) fn cp1252(b: u8) -> char {
    match b {
        0x80..=0x9F => CP1252_80[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

/// What a reader knows of its file's encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    /// Only ASCII so far.
    Undecided,
    /// UTF-8 (a BOM, or a first non-ASCII line that is UTF-8): bytes that
    /// are not are reported cell by cell.
    Utf8,
    /// A legacy encoding: every chunk is decoded.
    Legacy,
}

/// The offset of the first byte above 0x7F in `data`. An ASCII file is
/// searched end to end on the reading thread, so 256 bytes are tested at
/// once: with SSE2, sixteen loads OR-ed and one gather of their high bits.
/// A byte loop cost three instructions a byte, a seventh of the whole
/// check of an entitlements file.
pub(crate) fn first_high(data: &[u8]) -> Option<usize> {
    let mut at = 0;
    for block in data.chunks_exact(BLOCK) {
        if <&[u8; BLOCK]>::try_from(block).is_ok_and(any_high) {
            break;
        }
        at += BLOCK;
    }
    data[at..].iter().position(|&x| x >= 0x80).map(|k| at + k)
}

/// Bytes [`first_high`] tests at once: one branch for 256.
const BLOCK: usize = 256;

/// Whether a byte of `block` is above 0x7F.
#[inline]
fn any_high(block: &[u8; BLOCK]) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        use safe_arch::{bitor_m128i, load_unaligned_m128i, move_mask_i8_m128i, zeroed_m128i};
        let or = block.chunks_exact(16).fold(zeroed_m128i(), |acc, part| {
            let mut bytes = [0u8; 16];
            bytes.copy_from_slice(part);
            bitor_m128i(acc, load_unaligned_m128i(&bytes))
        });
        move_mask_i8_m128i(or) != 0
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        block.chunks_exact(8).fold(0, |m, w| {
            let mut le = [0u8; 8];
            le.copy_from_slice(w);
            m | u64::from_le_bytes(le)
        }) & 0x8080_8080_8080_8080
            != 0
    }
}

/// Whether `bytes` (from a first non-ASCII byte to its line's end) read as
/// a legacy encoding: no valid UTF-8 character above ASCII, and some byte
/// that is not UTF-8.
pub(crate) fn looks_legacy(bytes: &[u8]) -> bool {
    let (mut valid, mut invalid) = (0, 0);
    for c in bytes.utf8_chunks() {
        valid += c.valid().chars().filter(|c| !c.is_ascii()).count();
        invalid += c.invalid().len();
    }
    invalid > 0 && valid == 0
}

/// The encoding the head of a file (its first bytes, `whole` if they are
/// all of it) shows: its non-ASCII bytes decide when it has some, as
/// [`looks_legacy`] decides a line; a UTF-8 BOM makes it UTF-8.
pub(crate) fn from_head(head: &[u8], whole: bool) -> State {
    if head.starts_with(&crate::scan::UTF8_BOM) {
        return State::Utf8;
    }
    // Whole lines only: the head may end inside a character.
    let head = match memchr::memrchr(b'\n', head) {
        Some(nl) if !whole => &head[..nl],
        None if !whole => &[],
        _ => head,
    };
    match first_high(head) {
        None => State::Undecided,
        Some(at) if looks_legacy(&head[at..]) => State::Legacy,
        Some(_) => State::Utf8,
    }
}

/// A chunk decoded from Windows-1252.
#[derive(Debug, Default)]
pub(crate) struct Decoded {
    /// The chunk's bytes as they are in the file.
    pub(crate) original: Vec<u8>,
    /// For each byte that decoded to several: the decoded offset just past
    /// its character, and the bytes gained up to there.
    pub(crate) grown: Vec<(usize, usize)>,
    /// Decoded offsets of the characters whose byte is not UTF-8 in the
    /// file, in order.
    pub(crate) bad: Vec<usize>,
    /// Bytes 0x80-0x9F: printable in Windows-1252, controls in Latin-1.
    pub(crate) c1: u64,
}

impl Decoded {
    /// The original offset of decoded offset `o` (a character boundary).
    pub(crate) fn original_offset(&self, o: usize) -> usize {
        let k = self.grown.partition_point(|&(end, _)| end <= o);
        let extra = k.checked_sub(1).map_or(0, |k| self.grown[k].1);
        o.saturating_sub(extra)
    }

    /// The part of this chunk from decoded offset `at` on, `data` being
    /// its decoded bytes: what a chunk split there keeps.
    pub(crate) fn split_off(&self, at: usize) -> Decoded {
        let k = self.grown.partition_point(|&(end, _)| end <= at);
        let gained = k.checked_sub(1).map_or(0, |k| self.grown[k].1);
        let from = at - gained;
        Decoded {
            original: self.original[from.min(self.original.len())..].to_vec(),
            grown: self.grown[k..]
                .iter()
                .map(|&(end, extra)| (end - at, extra - gained))
                .collect(),
            bad: self
                .bad
                .iter()
                .filter(|&&b| b >= at)
                .map(|&b| b - at)
                .collect(),
            c1: 0,
        }
    }
}

/// Decodes `original` from Windows-1252 to UTF-8.
pub(crate) fn decode(original: Vec<u8>) -> (Vec<u8>, Decoded) {
    let mut bad_at = Vec::new();
    let mut at = 0;
    for c in original.utf8_chunks() {
        at += c.valid().len();
        bad_at.extend(at..at + c.invalid().len());
        at += c.invalid().len();
    }
    let mut out = Vec::with_capacity(original.len() + original.len() / 8);
    let mut dec = Decoded {
        bad: Vec::with_capacity(bad_at.len()),
        ..Decoded::default()
    };
    let mut bad_at = bad_at.into_iter().peekable();
    let mut gained = 0;
    let mut i = 0;
    while i < original.len() {
        let run = original[i..]
            .iter()
            .position(|&b| b >= 0x80)
            .unwrap_or(original.len() - i);
        out.extend_from_slice(&original[i..i + run]);
        i += run;
        let Some(&b) = original.get(i) else { break };
        if (0x80..=0x9F).contains(&b) {
            dec.c1 += 1;
        }
        if bad_at.next_if_eq(&i).is_some() {
            dec.bad.push(out.len());
        }
        let mut buf = [0u8; 4];
        let s = cp1252(b).encode_utf8(&mut buf);
        out.extend_from_slice(s.as_bytes());
        gained += s.len() - 1;
        dec.grown.push((out.len(), gained));
        i += 1;
    }
    dec.original = original;
    (out, dec)
}

/// The name of the encoding a file with `c1` bytes in 0x80-0x9F is most
/// likely in.
pub(crate) fn likely_name(c1: u64) -> &'static str {
    if c1 > 0 {
        "Windows-1252"
    } else {
        "Latin-1 (ISO-8859-1) or Windows-1252"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_keeps_a_map_back_to_the_file() {
        let original = b"a,Jos\xe9,\x80 5,\xc3\xa9\n".to_vec();
        let (data, dec) = decode(original.clone());
        assert_eq!(
            std::str::from_utf8(&data).expect("decoded"),
            "a,José,€ 5,Ã©\n"
        );
        // Every character maps back to its byte.
        let text = std::str::from_utf8(&data).expect("decoded");
        for (o, _) in text.char_indices().chain([(data.len(), ' ')]) {
            let before = text[..o].chars().count();
            assert_eq!(dec.original_offset(o), before, "{o}");
        }
        // `é` (0xE9) and `€` (0x80) are not UTF-8; `Ã©` is.
        let bad: Vec<Option<char>> = dec.bad.iter().map(|&b| text[b..].chars().next()).collect();
        assert_eq!(bad, [Some('é'), Some('€')]);
        assert_eq!(dec.c1, 1);
    }

    #[test]
    fn split_chunks_map_as_the_whole() {
        let original = b"x\xe9y\n\x93q\x94\nz\n".to_vec();
        let (data, dec) = decode(original);
        for at in [0, 1, 4, 5, 6, data.len()] {
            let rest = dec.split_off(at);
            for o in 0..=data.len() - at {
                if std::str::from_utf8(&data[at..]).is_ok_and(|s| s.is_char_boundary(o)) {
                    assert_eq!(
                        dec.original_offset(at) + rest.original_offset(o),
                        dec.original_offset(at + o),
                        "{at} {o}"
                    );
                }
            }
        }
    }

    #[test]
    fn legacy_lines_and_first_high_bytes() {
        assert!(looks_legacy(b"\xe9,x"));
        assert!(!looks_legacy("é,x".as_bytes()));
        // A UTF-8 character and a bad byte: a UTF-8 file with damage.
        assert!(!looks_legacy(b"\xc3\xa9 \xe9"));
        let mut long = vec![b'a'; 200];
        assert_eq!(first_high(&long), None);
        long[130] = 0xE9;
        assert_eq!(first_high(&long), Some(130));
        long[199] = 0x80;
        assert_eq!(first_high(&long[131..]), Some(68));
        // Each offset of a block, and the tail.
        for k in 0..200 {
            let mut v = vec![0x7Fu8; 200];
            v[k] = 0xC3;
            assert_eq!(first_high(&v), Some(k));
        }
    }
}
