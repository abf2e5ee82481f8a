//! Cross-row rules: identity consistency (`X001`-`X003`), unique values
//! (`X004`), duplicate rows (`X005`) and rows of two kinds one file cannot
//! hold under one key (`X006`).
//!
//! Chunks are checked in parallel, but "earlier" means earlier in the file,
//! so the work is split in two:
//!
//! - [`CrossPlan::event`] runs in `check_chunk`, in parallel, once per row
//!   whose cells were decoded: it fingerprints what the rules compare and
//!   appends one compact [`Event`]. All hashing happens here.
//! - [`CrossState`] runs in the fold, sequentially in file order, so the
//!   findings are the same at any chunk size or thread count. It keeps one
//!   small map entry per distinct value, never a copy of a row. Only when a
//!   finding is due does it re-scan that one record from the chunk's bytes
//!   (still in memory while its batch is folded) to quote values and point
//!   at cells through the same [`Emitter`] as every other finding.
//!
//! What is stored and what a fingerprint collision can do is documented in
//! `rules/README.md`, "Cross-row state and its memory".

use super::chunk::Chunk;
use super::emit::{Emitter, Snippets};
use super::finding::{Finding, FixBuilder};
use super::fptable::FpTable;
use super::options::CrossRules;
use super::row::{Cells, Plan};
use super::text::quote;
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules;
use crate::scan::{unescape, Record, Scanner};
use crate::schema::{Condition, Table};
use std::hash::Hasher;
use std::sync::Arc;
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed, Xxh3Default};

/// A `Hasher` for keys that already are uniformly distributed hashes: it
/// passes their bits through instead of hashing them again. (The fold's
/// own tables take fingerprints as they are; `batch` uses this.)
#[derive(Default)]
pub(crate) struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // A `u64` key arrives as its 8 bytes in one write: the hash is
        // then the fingerprint itself. Folding 8-byte words keeps any other
        // input working too.
        if let Ok(word) = <[u8; 8]>::try_from(bytes) {
            self.0 = u64::from_le_bytes(word);
            return;
        }
        for word in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..word.len()].copy_from_slice(word);
            self.0 = self.0.rotate_left(32) ^ u64::from_le_bytes(w);
        }
    }

    fn write_usize(&mut self, _len: usize) {
        // Only slice length prefixes arrive here, and every key of a map has
        // the same length.
    }
}

/// 0 means "absent" in events, so a real fingerprint is never 0.
fn nonzero(fp: u64) -> u64 {
    fp.max(1)
}

/// The 32-bit form of a partner's fingerprint stored with each identity
/// value: its low half, forced nonzero (0 = the partner cell is empty).
fn partner(fp: u64) -> u32 {
    if fp == 0 {
        0
    } else {
        (fp as u32).max(1)
    }
}

/// A line as stored in the maps; files past 4 billion lines saturate.
fn line32(line: u64) -> u32 {
    u32::try_from(line).unwrap_or(u32::MAX)
}

/// An event's index in its chunk, which holds fewer records than bytes.
fn event_index(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

struct IdentityPlan {
    /// The header field of each identity column, in checking order.
    fields: [Option<usize>; 3],
    /// The slot of the first e-mail column, whose values are also compared
    /// without case (`X007`): the spec does not say how the platform
    /// matches e-mails, so a difference only folding shows warns.
    case_slot: Option<usize>,
    /// Table column ids, mixed into the fingerprints so that the same text
    /// in two columns is two keys.
    seeds: [u64; 3],
    /// The spec's names, for messages.
    names: [&'static str; 3],
}

struct UniquePlan {
    /// The header field of each key column (`None`: the header lacks it, so
    /// it counts as empty).
    fields: Vec<Option<usize>>,
    names: Vec<&'static str>,
    ignore_case: bool,
    severity: Option<Severity>,
    reason: &'static str,
}

/// A condition of an `[[exclusive]]` side, on a header field (`None`: the
/// header lacks the column, so its cell is empty).
enum FieldCond {
    Present(Option<usize>),
    Empty(Option<usize>),
    In(Option<usize>, &'static [String]),
}

impl FieldCond {
    fn holds(&self, cells: &Cells<'_>) -> bool {
        match *self {
            FieldCond::Present(f) => f.is_some_and(|i| cells.is_filled(i)),
            FieldCond::Empty(f) => !f.is_some_and(|i| cells.is_filled(i)),
            FieldCond::In(f, values) => f
                .and_then(|i| trimmed(cells, i))
                .is_some_and(|v| values.iter().any(|x| x.as_bytes() == v)),
        }
    }
}

struct ExclusivePlan {
    /// The key's fields in order, with the column id its fingerprint is
    /// seeded with (a name and an ID never name the same key).
    key: Vec<(Option<usize>, u64)>,
    sides: [Vec<FieldCond>; 2],
    does: [&'static str; 2],
    reason: &'static str,
}

impl ExclusivePlan {
    /// The row's key with its side in the low two bits (1 or 2), or 0 when
    /// it is of neither side or names no key.
    fn event(&self, cells: &Cells<'_>) -> u64 {
        let side = if self.sides[0].iter().all(|c| c.holds(cells)) {
            1
        } else if self.sides[1].iter().all(|c| c.holds(cells)) {
            2
        } else {
            return 0;
        };
        self.key
            .iter()
            .find_map(|&(f, seed)| {
                let v = trimmed(cells, f?)?;
                Some(xxh3_64_with_seed(v, seed) & !3 | side)
            })
            .unwrap_or(0)
    }
}

/// The cross-row checks of one file, resolved against its header.
pub(crate) struct CrossPlan {
    identity: Option<IdentityPlan>,
    unique: Vec<UniquePlan>,
    exclusive: Vec<ExclusivePlan>,
    /// Whether rows are compared whole (`X005`).
    rows: bool,
    /// Header names by field, as diagnostics name columns.
    header: Vec<Arc<str>>,
    /// The file's delimiter.
    pub(crate) delim: u8,
}

/// One decoded row, as the fold needs it: where to find it again and the
/// fingerprints it compares. Unique keys live in [`Events::keys`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Event {
    /// Offset of the record in its chunk.
    start: usize,
    /// Chunk-relative line of the record's first line (a chunk is far
    /// smaller than 4 GiB, so its lines fit; see [`line32`]).
    line: u32,
    /// Fingerprint of each identity value, 0 when the cell is empty.
    identity: [u64; 3],
    /// Fingerprint of the three together (0 when all are empty).
    tuple: u64,
    /// Fingerprint of the whole row's decoded cells.
    row: u64,
}

/// An event whose e-mail has capitals (or is not its own lowercase): its
/// lowercased key and spelling, kept beside the events rather than in each,
/// since the usual file has none and every event would carry 16 bytes for
/// them (see [`fold_email`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Capitals {
    /// Index of the event in [`Events::rows`].
    event: u32,
    /// The e-mail lowercased, as a key of its own in the identity tables.
    folded: u64,
    /// The e-mail's spelling among those that lowercase alike.
    case: u32,
}

/// Where [`Events`] end at a moment: rows, keys and capitals.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mark(usize, usize, usize);

/// The events of one chunk.
pub(crate) struct Events {
    rows: Vec<Event>,
    /// The events whose e-mail is not its own lowercase, in event order.
    caps: Vec<Capitals>,
    /// `unique.len()` fingerprints per event, 0 for a key with no value,
    /// then `exclusive.len()` keys with their side (see
    /// `ExclusivePlan::event`).
    keys: Vec<u64>,
    hasher: Xxh3Default,
    /// A row's minimal CSV form, when it differs from its raw bytes.
    canonical: Vec<u8>,
}

impl Default for Events {
    fn default() -> Self {
        Events {
            rows: Vec::new(),
            caps: Vec::new(),
            keys: Vec::new(),
            hasher: Xxh3Default::new(),
            canonical: Vec::new(),
        }
    }
}

impl Events {
    /// Where the events end now, for [`Events::truncate`].
    pub(crate) fn mark(&self) -> Mark {
        Mark(self.rows.len(), self.keys.len(), self.caps.len())
    }

    /// Drops the events made since `mark`.
    pub(crate) fn truncate(&mut self, Mark(rows, keys, caps): Mark) {
        self.rows.truncate(rows);
        self.keys.truncate(keys);
        self.caps.truncate(caps);
    }

    /// Moves the records of the events made since `mark` by `by` bytes
    /// (a fixed row before them changed its length).
    pub(crate) fn shift_from(&mut self, Mark(rows, ..): Mark, by: i64) {
        for e in &mut self.rows[rows..] {
            e.start = e.start.saturating_add_signed(by as isize);
        }
    }

    /// Adds `other`'s events, their records `at` bytes further on.
    pub(crate) fn append_shifted(&mut self, other: &Events, at: usize) {
        let first = event_index(self.rows.len());
        self.caps.extend(other.caps.iter().map(|c| Capitals {
            event: c.event + first,
            ..*c
        }));
        self.rows.extend(other.rows.iter().map(|e| Event {
            start: e.start + at,
            ..*e
        }));
        self.keys.extend_from_slice(&other.keys);
    }
}

/// Whether `s` holds the delimiter `delim` (a `,` but in another dialect)
/// or a `\n`; inlined where `delim` is a constant. Quoted cells are short
/// (8-32 bytes) and usually quoted for a comma near the start, where
/// memchr's setup would cost more than the search; eight bytes at a time in
/// a word cost about a third of a byte loop.
fn has_delimiter_or_newline(s: &[u8], delim: u8) -> bool {
    use crate::swar::{first_below, splat};
    let hit = |w: &[u8]| {
        let w = u64::from_le_bytes(<[u8; 8]>::try_from(w).unwrap_or_default());
        (first_below(w ^ splat(delim), 1) | first_below(w ^ splat(b'\n'), 1)) != 0
    };
    if s.len() < 8 {
        return s.iter().any(|&c| c == delim || c == b'\n');
    }
    // The last word overlaps the others rather than leave a tail.
    s.chunks_exact(8).any(hit) || hit(&s[s.len() - 8..])
}

/// Fingerprint of a row's decoded cells, so that `a,"b"` and `a,b` are the
/// same row. It hashes the row's minimal CSV form (quotes only where a cell
/// holds `,`, `"` or a newline), which is one-to-one with the decoded cells
/// and is the raw record itself in the usual case of no quoted field: one
/// hash call per row instead of two per cell.
fn row_fingerprint<const D: u8>(data: &[u8], rec: &Record, buf: &mut Vec<u8>) -> u64 {
    // A quoted cell keeps its quotes in the minimal form when it needs them
    // (the usual reason to quote), so the raw record is often minimal even
    // with quotes, and is hashed without a copy.
    let needs_quotes = |f: &crate::scan::FieldSpan| {
        let (a, b) = f.content();
        f.escapes || has_delimiter_or_newline(&data[a..b], D)
    };
    let mut unneeded = rec.fields.iter().filter(|f| f.quoted && !needs_quotes(f));
    let Some(first) = unneeded.next() else {
        return row_hash(&data[rec.start..rec.end]);
    };
    // Copy the record, dropping the quotes of cells that do not need them.
    buf.clear();
    let mut from = rec.start;
    for f in std::iter::once(first).chain(unneeded) {
        let (a, b) = f.content();
        buf.extend_from_slice(&data[from..f.start]);
        buf.extend_from_slice(&data[a..b]);
        from = f.end;
    }
    buf.extend_from_slice(&data[from..rec.end]);
    row_hash(buf)
}

/// The duplicate-row fingerprint of a row's minimal form. Rows run to
/// hundreds of bytes, where xxh3 takes its long path (about 650
/// instructions for a 300-byte employees row); foldhash's quality hasher,
/// a folded multiply per 8 bytes and a final avalanche, takes about a
/// quarter of that. Its seeds are fixed, so a run is repeatable; the input
/// is the user's own file, so there is no adversary to randomise against.
#[inline]
fn row_hash(bytes: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::quality::FixedState::with_seed(0x005E_ED0F_0005).hash_one(bytes)
}

/// Field `i` trimmed, as identity and unique values are compared, or
/// `None` when it is empty. A cell that is not UTF-8 (already an
/// `invalid-utf8` error) is compared by its raw bytes, trimmed of ASCII
/// whitespace.
///
/// Always inlined, the trimming itself out of line: it runs for every
/// identity and key cell of every row, and as a call (callgrind, issue 30)
/// it cost more than its usual answer.
#[inline(always)]
fn trimmed<'c>(cells: &'c Cells<'_>, i: usize) -> Option<&'c [u8]> {
    let (v, utf8) = cells.filled_bytes(i)?;
    let visible = |b: Option<&u8>| b.is_some_and(|&b| b > b' ' && b < 0x7f);
    Some(if visible(v.first()) && visible(v.last()) {
        // `shapes::trim`'s shortcut: the usual cell has nothing to trim.
        v
    } else {
        trim_cell(v, utf8)
    })
}

/// The rest of [`trimmed`]: a cell with something at either end to trim.
#[cold]
#[inline(never)]
fn trim_cell(v: &[u8], utf8: bool) -> &[u8] {
    if utf8 {
        std::str::from_utf8(v).map_or(v, |s| s.trim().as_bytes())
    } else {
        v.trim_ascii()
    }
}

/// Mixes a row's three identity fingerprints (0 = empty) into one. They
/// are uniform hashes already, so an odd multiplier per slot (which keeps
/// each slot's values apart, and a value in another slot another tuple) and
/// a bijective finish that spreads the high bits down into the low ones
/// that the tables index by are enough; xxh3 over their 24 bytes cost
/// several times as much per row.
fn mix_tuple(t: [u64; 3]) -> u64 {
    let h = t[0].wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ t[1].wrapping_mul(0xC2B2_AE3D_27D4_EB4F).rotate_left(21)
        ^ t[2].wrapping_mul(0x1656_67B1_9E37_79F9).rotate_left(42);
    let h = (h ^ (h >> 32)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    h ^ (h >> 32)
}

/// Whether `b` is ASCII without a capital letter: the usual e-mail, whose
/// lowercased form is itself. It runs on every row's e-mail, so it looks
/// at sixteen bytes a step, the last step overlapping the others rather
/// than leave a tail (a `chunks_exact` loop of words with a copied tail
/// cost about 70 instructions a row; callgrind, issue 30).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn ascii_lowercase_only(b: &[u8]) -> bool {
    use safe_arch::{
        add_i8_m128i, bitor_m128i, cmp_lt_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i,
        set_splat_i8_m128i,
    };
    // A byte's high bit set if it is not ASCII or is a capital: the
    // capitals moved to start at -128 are the bytes below -128 + 26, as
    // signed bytes.
    let bad = |w: &[u8; 16]| {
        let v = load_unaligned_m128i(w);
        let moved = add_i8_m128i(v, set_splat_i8_m128i(i8::from_ne_bytes([0x80 - b'A'])));
        let capital = cmp_lt_mask_i8_m128i(moved, set_splat_i8_m128i(-128 + 26));
        move_mask_i8_m128i(bitor_m128i(v, capital))
    };
    let (Some(last), Some(first)) = (b.last_chunk::<16>(), b.first_chunk::<16>()) else {
        return b.iter().all(|&c| c.is_ascii() && !c.is_ascii_uppercase());
    };
    let mut acc = bad(last) | bad(first);
    let mut rest = &b[16..];
    while let Some((w, tail)) = rest.split_first_chunk::<16>() {
        acc |= bad(w);
        rest = tail;
    }
    acc == 0
}

/// Where there is no SSE2, a byte at a time.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn ascii_lowercase_only(b: &[u8]) -> bool {
    b.iter().all(|&c| c.is_ascii() && !c.is_ascii_uppercase())
}

/// The key of an e-mail lowercased and its spelling among the values that
/// lowercase alike, or `None` for an address that is its own lowercase
/// (the usual one). The key is the exact key (`xxh3_64_with_seed(v,
/// seed)`) of the lowercased text, so that for an address that is its own
/// lowercase it would be its exact key itself, with spelling 0: its exact
/// entry in the identity tables serves as the lowercased one (see
/// [`email_case`]). An ASCII address of up to 64 bytes with capitals is
/// told by where they are (a bit per byte, mixed into 32 bits), any other
/// by its exact bytes' fingerprint.
#[inline(always)]
fn fold_email(v: &[u8], seed: u64) -> Option<(u64, u32)> {
    if ascii_lowercase_only(v) {
        None
    } else {
        fold_capitals(v, seed)
    }
}

/// The rest of [`fold_email`]: an address that is not all lowercase ASCII.
#[cold]
#[inline(never)]
fn fold_capitals(v: &[u8], seed: u64) -> Option<(u64, u32)> {
    if v.is_ascii() && v.len() <= 64 {
        let mut buf = [0u8; 64];
        let buf = &mut buf[..v.len()];
        let mut capitals = 0u64;
        for (k, (d, s)) in buf.iter_mut().zip(v).enumerate() {
            capitals |= u64::from(s.is_ascii_uppercase()) << k;
            *d = s.to_ascii_lowercase();
        }
        let case = (capitals.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32;
        // Not 0: a capital is in there, and the odd multiplier keeps it
        // in the high half unless the bits collide, so force it apart.
        return Some((nonzero(xxh3_64_with_seed(buf, seed)), case.max(1)));
    }
    // Rare: lowercased the Unicode way, streamed with the column's seed.
    let text = String::from_utf8_lossy(v);
    let own_lowercase = matches!(text, std::borrow::Cow::Borrowed(_))
        && text.chars().all(|c| {
            let mut l = c.to_lowercase();
            l.next() == Some(c) && l.next().is_none()
        });
    if own_lowercase {
        return None;
    }
    let mut hasher = xxhash_rust::xxh3::Xxh3::with_seed(seed);
    let mut buf = [0u8; 4];
    for c in text.chars().flat_map(char::to_lowercase) {
        hasher.update(c.encode_utf8(&mut buf).as_bytes());
    }
    Some((nonzero(hasher.digest()), (xxh3_64(v) as u32).max(1)))
}

/// The two partners of an e-mail (by slot, as stored in its exact entry)
/// as one 32-bit value.
fn pair_of(a: u32, b: u32) -> u32 {
    ((u64::from(a) << 32 | u64::from(b)).wrapping_mul(0xC2B2_AE3D_27D4_EB4F) >> 32) as u32
}

/// Fingerprint of `bytes` lowercased, without allocating.
fn fp_lowercase(bytes: &[u8], hasher: &mut Xxh3Default) -> u64 {
    if bytes.is_ascii() && bytes.len() <= 64 {
        // The usual e-mail address: lowercase it on the stack.
        // Lowercased as it is copied: one pass, no memcpy call.
        let mut buf = [0u8; 64];
        let buf = &mut buf[..bytes.len()];
        for (d, s) in buf.iter_mut().zip(bytes) {
            *d = s.to_ascii_lowercase();
        }
        return xxh3_64(buf);
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return xxh3_64(bytes);
    };
    hasher.reset();
    let mut buf = [0u8; 64];
    let mut n = 0;
    for c in text.chars().flat_map(char::to_lowercase) {
        if n + 4 > buf.len() {
            hasher.update(&buf[..n]);
            n = 0;
        }
        n += c.encode_utf8(&mut buf[n..]).len();
    }
    hasher.update(&buf[..n]);
    hasher.digest()
}

impl CrossPlan {
    /// `delim` is the file's delimiter: rows are compared as cells, and
    /// their minimal form quotes a cell that holds it.
    pub(crate) fn new(table: &'static Table, plan: &Plan, on: CrossRules, delim: u8) -> CrossPlan {
        let name = |c: usize| table.columns[c].name.as_str();
        let identity = table
            .identity
            .as_ref()
            .filter(|_| on.identity)
            .and_then(|id| {
                let fields = id.columns.map(|c| plan.field_of(c));
                // A header without any identity column has nothing to compare
                // (and gets `missing-one-of` on the header).
                fields.iter().any(Option::is_some).then(|| IdentityPlan {
                    fields,
                    case_slot: id
                        .columns
                        .iter()
                        .position(|&c| table.columns[c].shape == crate::schema::Shape::Email),
                    seeds: id.columns.map(|c| c as u64),
                    names: id.columns.map(name),
                })
            });
        let unique = table
            .unique
            .iter()
            .filter(|_| on.unique)
            .map(|u| UniquePlan {
                fields: u.columns.iter().map(|c| plan.field_of(*c)).collect(),
                names: u.columns.iter().map(|c| name(*c)).collect(),
                ignore_case: u.ignore_case,
                severity: u.severity,
                reason: u.reason.as_str(),
            })
            // A key the header lacks entirely is empty on every row.
            .filter(|u| u.fields.iter().any(Option::is_some))
            .collect();
        let field_cond = |c: &'static Condition| match c {
            Condition::Present(c) => Some(FieldCond::Present(plan.field_of(*c))),
            Condition::Empty(c) => Some(FieldCond::Empty(plan.field_of(*c))),
            Condition::In(c, values) => Some(FieldCond::In(plan.field_of(*c), values)),
            Condition::Always => None,
        };
        let exclusive = table
            .exclusive
            .iter()
            .map(|e| ExclusivePlan {
                key: e
                    .key
                    .iter()
                    .map(|&c| (plan.field_of(c), c as u64))
                    .collect(),
                sides: [0, 1].map(|k| e.sides[k].when.iter().filter_map(field_cond).collect()),
                does: [0, 1].map(|k| e.sides[k].does.as_str()),
                reason: e.reason.as_str(),
            })
            .filter(|e| e.key.iter().any(|k| k.0.is_some()))
            .collect();
        CrossPlan {
            identity,
            unique,
            exclusive,
            rows: on.rows,
            header: plan.field_names().to_vec(),
            delim,
        }
    }

    /// Whether no cross-row rule runs, so rows need no events.
    pub(crate) fn is_empty(&self) -> bool {
        self.identity.is_none() && self.unique.is_empty() && self.exclusive.is_empty() && !self.rows
    }

    /// Fingerprints one decoded row and records it. Runs in parallel; does
    /// not allocate beyond the amortised growth of `out`.
    pub(crate) fn event(&self, data: &[u8], rec: &Record, cells: &Cells<'_>, out: &mut Events) {
        let mut identity = [0u64; 3];
        if let Some(id) = &self.identity {
            for (k, field) in id.fields.iter().enumerate() {
                if let Some(v) = field.and_then(|i| trimmed(cells, i)) {
                    identity[k] = nonzero(xxh3_64_with_seed(v, id.seeds[k]));
                    if id.case_slot == Some(k) {
                        if let Some((folded, case)) = fold_email(v, id.seeds[k]) {
                            out.caps.push(Capitals {
                                event: event_index(out.rows.len()),
                                folded,
                                case,
                            });
                        }
                    }
                }
            }
        }
        for (k, u) in self.unique.iter().enumerate() {
            // Chain the parts' fingerprints: a composite key is equal only
            // when every part is, and the key's index keeps keys apart.
            let mut key = k as u64;
            let mut any = false;
            for field in &u.fields {
                let part = match field.and_then(|i| trimmed(cells, i)) {
                    Some(v) => {
                        any = true;
                        if u.ignore_case {
                            fp_lowercase(v, &mut out.hasher)
                        } else {
                            xxh3_64(v)
                        }
                    }
                    None => 0,
                };
                key = xxh3_64_with_seed(&part.to_le_bytes(), key);
            }
            out.keys.push(if any { nonzero(key) } else { 0 });
        }
        for e in &self.exclusive {
            out.keys.push(e.event(cells));
        }
        let row = if self.rows {
            let buf = &mut out.canonical;
            // The delimiter a constant in each copy, as the comma was.
            nonzero(match self.delim {
                b';' => row_fingerprint::<b';'>(data, rec, buf),
                b'\t' => row_fingerprint::<b'\t'>(data, rec, buf),
                b'|' => row_fingerprint::<b'|'>(data, rec, buf),
                _ => row_fingerprint::<b','>(data, rec, buf),
            })
        } else {
            0
        };
        let tuple = if identity == [0; 3] {
            0
        } else {
            nonzero(mix_tuple(identity))
        };
        out.rows.push(Event {
            start: rec.start,
            line: line32(rec.line),
            identity,
            tuple,
            row,
        });
    }
}

/// Which identity rule a mismatch breaks, in order of preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum IdentityKind {
    /// Two values shared, the third differs: rules 2-4 (`X001`).
    Conflict,
    /// Same values, different columns filled: rule 1 (`X002`).
    Combination,
    /// One value shared, another differs (`X003`).
    PartnerMismatch,
    /// The e-mail equals an earlier row's only without case (`X007`, a
    /// warning): with the same other values, or with others.
    EmailCase { same_partners: bool },
}

/// An identity finding, in identity slots (0, 1, 2 = the `[identity]`
/// columns in order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IdentityFinding {
    pub(crate) kind: IdentityKind,
    /// The slot whose value matched an earlier row.
    pub(crate) key: usize,
    /// The slot whose cell the finding points at.
    pub(crate) at: usize,
    /// The line that established the key's tuple.
    pub(crate) first: u32,
    /// Slots filled on this row.
    pub(crate) current: [bool; 3],
    /// Slots filled on the earlier row.
    pub(crate) earlier: [bool; 3],
}

/// Compares a row's tuple with the one established for its value in slot
/// `key`. Tuples are partner fingerprints by slot, 0 when empty; slot `key`
/// holds the same nonzero value in both.
fn classify(key: usize, t: [u32; 3], s: [u32; 3], first: u32) -> Option<IdentityFinding> {
    if t == s {
        return None;
    }
    let shared = [0, 1, 2].map(|j| t[j] != 0 && t[j] == s[j]);
    let differ = [0, 1, 2].map(|j| t[j] != 0 && s[j] != 0 && t[j] != s[j]);
    let only_one = [0, 1, 2].map(|j| (t[j] == 0) != (s[j] == 0));
    let first_of = |set: [bool; 3]| set.iter().position(|b| *b);
    let n_shared = shared.iter().filter(|b| **b).count();
    let (kind, at) = match first_of(differ) {
        Some(d) if n_shared >= 2 => (IdentityKind::Conflict, d),
        Some(d) => (IdentityKind::PartnerMismatch, d),
        None => (IdentityKind::Combination, first_of(only_one)?),
    };
    Some(IdentityFinding {
        kind,
        key,
        at,
        first,
        current: t.map(|x| x != 0),
        earlier: s.map(|x| x != 0),
    })
}

/// What the duplicate-row check made of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RowSeen {
    /// Not seen before, and remembered.
    New,
    /// Repeats the row on this line.
    Repeat(u32),
    /// Not seen before, but the map is full: reported once, on this row.
    CapReached,
    /// Not seen before, not remembered (the cap was reached earlier).
    Forgotten,
}

/// Clean identity tuples remembered at most: the set only saves lookups,
/// so it stops growing rather than add to the memory bound; this many fit a
/// table of 2^20 slots (8 MiB).
const CLEAN_TUPLES_CAP: usize = (1 << 20) / 8 * 7;

/// Most rows the duplicate-row map is sized for up front (a 400 MB
/// table); the default cap is far below.
const MAX_RESERVED_ROWS: usize = 1 << 25;

/// Most unique-key values the unique table is sized for up front: a table
/// of 2^21 slots (24 MiB), the most that a wrong estimate can cost. Past
/// that the table grows as it fills.
const MAX_RESERVED_KEYS: usize = 1_500_000;

/// How many rows ahead the fold asks for the slots their lookups will
/// read. A miss costs the work of several rows, so a slot must be asked
/// for well before its lookup: 8, 16 and 32 rows ahead ran alike, asking
/// just before the lookup took half as long again.
const AHEAD: usize = 16;

/// Shards of the identity tables. A key's whole history lives in one
/// shard (the shard is a function of its fingerprint) and every key is
/// first-row-wins, so shards could be folded in parallel and still give
/// the findings of a sequential fold (see `CrossState::fold` for why they
/// are not, for now). They also keep growth in small steps: a table that
/// doubles holds its old and new slots for a moment, and identity values
/// run to millions.
const SHARDS: usize = 16;

/// The shard of a fingerprint: bits above those a shard's table indexes
/// by while it is below 2^24 slots (its low bits), so that each shard's
/// table still sees well-spread fingerprints.
fn shard(fp: u64) -> usize {
    (fp >> 40) as usize % SHARDS
}

/// The state the fold carries from row to row.
pub(crate) struct CrossState {
    /// (identity column, value) -> the two partners' fingerprints, in slot
    /// order, and the line that established them; by shard.
    identity: Vec<FpTable<[u32; 5]>>,
    /// Lowercased e-mail -> (partners as one, spelling, line) of its first
    /// row, where that row's e-mail had capitals. An address that is its own
    /// lowercase needs no entry here: its exact entry in `identity` serves
    /// (see [`email_case`]), so the usual file leaves this empty.
    email_caps: FpTable<[u32; 5]>,
    /// (key index, value) -> first line, for every unique key. One table:
    /// every row looks it up, in file order, usually to insert a new value.
    unique: FpTable,
    /// Identity tuples (all three values together) already seen without a
    /// finding. The tables above never change an established value, so such
    /// a tuple is clean every time it comes back: its rows skip the three
    /// slot lookups for one lookup in this smaller set. Rows of one
    /// identity usually repeat its tuple.
    clean_tuples: FpTable<[u32; 2]>,
    /// (exclusive key, side) -> the first line of that side under the key:
    /// one entry per side a key has, so a few per campaign.
    exclusive: FpTable,
    /// Row fingerprint -> first line. One table, not sharded: its cap
    /// counts distinct rows in file order.
    rows: FpTable,
    row_cap: usize,
    cap_reached: bool,
    /// The rows the input is expected to have, until the first chunk has
    /// shown how many distinct unique-key values they hold.
    expected_rows: Option<usize>,
    snippets: Snippets,
    /// Reused to re-scan a record that has a finding.
    scratch: Record,
    /// Reused per chunk, so that once they have grown the fold allocates
    /// only for findings: the events whose tuple went to the slot lookups.
    looked_up: Vec<u32>,
    /// Reused per chunk: the identity findings, (event, finding).
    ids: Vec<(u32, IdentityFinding)>,
    /// Reused per chunk: the duplicate-row findings, (event, what it is).
    seen: Vec<(u32, RowSeen)>,
    /// Reused per chunk: the unique-key findings, (event, key index, first
    /// line).
    uniques: Vec<(u32, u8, u32)>,
    /// Reused per chunk: the exclusive findings, (event, entry index, the
    /// earlier line of the other side).
    exclusives: Vec<(u32, u8, u32)>,
}

/// Checks slot `k` of a row's identity tuple against the tuple established
/// for its value, and establishes it if the value is new.
fn identity_slot(
    map: &mut FpTable<[u32; 5]>,
    k: usize,
    t: [u64; 3],
    t32: [u32; 3],
    line: u32,
) -> Option<IdentityFinding> {
    let others = others(k);
    let mine = [t32[others[0]], t32[others[1]], line];
    let stored = map.get_or_insert(t[k], mine)?;
    if stored == mine {
        return None;
    }
    let mut s = t32;
    s[others[0]] = stored[0];
    s[others[1]] = stored[1];
    classify(k, t32, s, stored[2])
}

/// Checks a row's lowercased e-mail (`folded`, not 0, with its spelling
/// `case`, 0 for the lowercase one) against the first row whose e-mail
/// lowercases alike, and establishes it if it is new: a finding only where
/// the two e-mails differ in case, since exact ones are the slot lookups'
/// to judge. `slot` is the e-mail's. A lowercase e-mail needs no call
/// while `caps` is empty: it could only find an entry there.
///
/// The first row is kept in one of two places, so that the two kinds of
/// entry are never mistaken for each other. An e-mail that is its own
/// lowercase is keyed by the lowercased key already (see [`fold_email`]):
/// its exact entry in `shards` (partners, line; spelling 0) is the first
/// row, unless a spelling with capitals came before it, which is then in
/// `caps`. An entry is made in `caps` only while the lowercase spelling
/// has no exact entry, so where both exist, `caps` holds the first.
fn email_case(
    shards: &[FpTable<[u32; 5]>],
    caps: &mut FpTable<[u32; 5]>,
    slot: usize,
    identity: [u64; 3],
    (folded, case): (u64, u32),
    line: u32,
) -> Option<IdentityFinding> {
    // The other two slots' partners as one, as the e-mail's exact entry
    // holds them; worked out only past the usual row's return.
    let pair = || {
        let [a, b] = others(slot).map(|j| partner(identity[j]));
        pair_of(a, b)
    };
    let stored = if case == 0 {
        // The lowercase spelling: its own exact entry, just looked up or
        // made, has its spelling, so only a capitals one before it is a
        // finding.
        caps.get(folded)?
    } else if let Some(first) = caps.get(folded) {
        first
    } else if let Some([a, b, first]) = shards[shard(folded)].get(folded) {
        [pair_of(a, b), 0, first]
    } else {
        caps.get_or_insert(folded, [pair(), case, line]);
        return None;
    };
    if stored[1] == case {
        return None;
    }
    let same_partners = stored[0] == pair();
    let filled = identity.map(|x| x != 0);
    // The same e-mail alone in both rows pairs it with nothing: two
    // spellings of one address, each consistent on whatever reading.
    if same_partners && filled.iter().filter(|f| **f).count() < 2 {
        return None;
    }
    Some(IdentityFinding {
        kind: IdentityKind::EmailCase { same_partners },
        key: slot,
        at: slot,
        first: stored[2],
        current: filled,
        earlier: filled,
    })
}

/// Checks a row's identity tuple (fingerprints by slot, 0 = empty)
/// against the tuples established for its values, and establishes those
/// seen for the first time. At most one finding: the preferred kind, ties
/// to the earliest slot.
///
/// `email` is the e-mail slot and its lowercased key, given when the
/// e-mail has capitals (a lowercase one is its own key): as a partner, an
/// e-mail compares without case, so that a row whose e-mail differs from
/// an earlier one's only in case is not an error on the readings where the
/// two are one identity (`email_case` warns); as a key of its own it stays
/// exact, so that rows with the same spelling are held to each other.
fn identity_row(
    shards: &mut [FpTable<[u32; 5]>],
    t: [u64; 3],
    email: Option<(usize, u64)>,
    line: u32,
) -> Option<IdentityFinding> {
    let mut t32 = t.map(partner);
    if let Some((slot, folded)) = email.filter(|&(slot, _)| t[slot] != 0) {
        t32[slot] = partner(folded);
    }
    let mut best: Option<IdentityFinding> = None;
    for (k, &fp) in t.iter().enumerate() {
        if fp == 0 {
            continue;
        }
        if let Some(f) = identity_slot(&mut shards[shard(fp)], k, t, t32, line) {
            // A more serious kind wins; of equal kinds, the earlier slot,
            // which came first.
            if best.is_none_or(|b| f.kind < b.kind) {
                best = Some(f);
            }
        }
    }
    best
}

impl CrossState {
    pub(crate) fn new(row_cap: usize, snippets: impl Into<Snippets>) -> Self {
        CrossState {
            identity: (0..SHARDS).map(|_| FpTable::default()).collect(),
            email_caps: FpTable::default(),
            unique: FpTable::default(),
            exclusive: FpTable::default(),
            clean_tuples: FpTable::default(),
            rows: FpTable::default(),
            row_cap,
            cap_reached: false,
            expected_rows: None,
            snippets: snippets.into(),
            scratch: Record::default(),
            looked_up: Vec::new(),
            ids: Vec::new(),
            seen: Vec::new(),
            uniques: Vec::new(),
            exclusives: Vec::new(),
        }
    }

    #[cfg(test)]
    pub(crate) fn identity(&mut self, t: [u64; 3], line: u32) -> Option<IdentityFinding> {
        identity_row(&mut self.identity, t, None, line)
    }

    /// The first line of a unique key's value, or `None` (and remembers it)
    /// if this is its first row.
    #[cfg(test)]
    pub(crate) fn unique(&mut self, key: u64, line: u32) -> Option<u32> {
        self.unique.get_or_insert(key, line)
    }

    #[cfg(test)]
    pub(crate) fn row(&mut self, fp: u64, line: u32) -> RowSeen {
        row_seen(
            &mut self.rows,
            self.row_cap,
            &mut self.cap_reached,
            fp,
            line,
        )
    }

    /// Sizes the duplicate-row map for about `rows` rows (at most the cap)
    /// at once: growing to a million entries rehashes them all about
    /// twice. The table it makes is the one growth would reach. An estimate
    /// is only an estimate (a size hint can be wrong), so it never reserves
    /// more than `MAX_RESERVED_ROWS`; past that the table grows as it fills.
    /// The unique-key table is sized after the first chunk
    /// (see [`CrossState::fold`]).
    pub(crate) fn expect_rows(&mut self, plan: &CrossPlan, rows: usize) {
        if plan.rows {
            self.rows
                .reserve(rows.min(self.row_cap).min(MAX_RESERVED_ROWS));
        }
        if !plan.unique.is_empty() {
            self.expected_rows = Some(rows);
        }
    }

    /// Runs one chunk's events through the state, in file order, and
    /// appends the findings (file offsets, absolute lines) to `out`.
    /// `shift` turns the chunk's lines into the file's.
    ///
    /// One pass over the rows looks up the row table, the unique-key table
    /// and the clean tuples; the identity shards are looked up after it,
    /// one after the other, then the findings are merged back in row order.
    /// The shards could be folded in parallel (a key's history lives in one
    /// shard); the fold runs on a worker that holds it while others check
    /// chunks, and a join there could make it take up a chunk check while
    /// holding the fold, so it does not.
    pub(crate) fn fold(
        &mut self,
        plan: &CrossPlan,
        events: &Events,
        chunk: &Chunk,
        shift: u64,
        out: &mut Vec<Diagnostic>,
    ) {
        let data = chunk.data.as_slice();
        let n_unique = plan.unique.len();
        let stride = n_unique + plan.exclusive.len();
        let CrossState {
            identity,
            email_caps,
            unique,
            exclusive,
            clean_tuples,
            rows,
            row_cap,
            cap_reached,
            expected_rows,
            snippets,
            scratch,
            looked_up,
            ids,
            seen,
            uniques,
            exclusives,
        } = self;
        looked_up.clear();
        ids.clear();
        seen.clear();
        uniques.clear();
        exclusives.clear();
        let line_of = |n: u32| line32(u64::from(events.rows[n as usize].line) + shift);
        let (rows_on, identity_on) = (plan.rows, plan.identity.is_some());
        let case_slot = plan.identity.as_ref().and_then(|id| id.case_slot);
        let keys_of = |n: usize| &events.keys[n * stride..(n + 1) * stride];
        // Nearly every lookup misses the cache: ask for the slots of the
        // rows `AHEAD` of this one, so that their misses overlap.
        let ahead = |n: usize, rows: &FpTable, unique: &FpTable, clean: &FpTable<[u32; 2]>| {
            let Some(ev) = events.rows.get(n) else {
                return;
            };
            if rows_on {
                rows.prefetch(ev.row);
            }
            for &key in &keys_of(n)[..n_unique] {
                unique.prefetch(key);
            }
            if identity_on && ev.tuple != 0 {
                clean.prefetch(ev.tuple);
            }
        };
        for n in 0..AHEAD {
            ahead(n, rows, unique, clean_tuples);
        }
        for (n, ev) in events.rows.iter().enumerate() {
            ahead(n + AHEAD, rows, unique, clean_tuples);
            let n32 = n as u32;
            if rows_on {
                match row_seen(rows, *row_cap, cap_reached, ev.row, line_of(n32)) {
                    RowSeen::New | RowSeen::Forgotten => {}
                    other => seen.push((n32, other)),
                }
            }
            let (unique_keys, exclusive_keys) = keys_of(n).split_at(n_unique);
            for (k, &key) in unique_keys.iter().enumerate() {
                if key != 0 {
                    if let Some(first) = unique.get_or_insert(key, line_of(n32)) {
                        uniques.push((n32, k as u8, first));
                    }
                }
            }
            for (k, &key) in exclusive_keys.iter().enumerate() {
                if key != 0 {
                    // The key's first row of this side, then its first of
                    // the other (sides are 1 and 2 in the low bits).
                    exclusive.get_or_insert(key, line_of(n32));
                    if let Some(other) = exclusive.get(key & !3 | (3 - (key & 3))) {
                        exclusives.push((n32, k as u8, other));
                    }
                }
            }
            if identity_on && ev.tuple != 0 && clean_tuples.get(ev.tuple).is_none() {
                looked_up.push(n32);
            }
        }
        if let Some(rows) = expected_rows.take() {
            // The whole input's distinct values, at this chunk's proportion
            // of new ones: a file of distinct keys is sized once, as the
            // row table is, and one whose keys repeat is not sized for
            // values it does not have. Capped, since a proportion is only
            // an estimate.
            let distinct = rows.saturating_mul(unique.len()) / events.rows.len().max(1);
            unique.reserve(distinct.min(MAX_RESERVED_KEYS));
        }
        // The rows whose tuple is not known clean, in file order: each
        // value in its shard, and a tuple without a finding is clean from
        // now on.
        let ahead = |i: usize, identity: &[FpTable<[u32; 5]>], clean: &FpTable<[u32; 2]>| {
            let Some(&n) = looked_up.get(i) else {
                return;
            };
            let ev = &events.rows[n as usize];
            // The lowercased e-mail is its exact value unless it had
            // capitals, which is rare enough to wait for.
            for &fp in ev.identity.iter().filter(|&&fp| fp != 0) {
                identity[shard(fp)].prefetch(fp);
            }
            clean.prefetch(ev.tuple);
        };
        for i in 0..AHEAD {
            ahead(i, identity, clean_tuples);
        }
        // The capitals of the looked-up events, met in the same order.
        let mut capitals = events.caps.iter().peekable();
        for (i, &n) in looked_up.iter().enumerate() {
            ahead(i + AHEAD, identity, clean_tuples);
            let ev = &events.rows[n as usize];
            while capitals.next_if(|c| c.event < n).is_some() {}
            let folded = capitals
                .next_if(|c| c.event == n)
                .map(|c| (c.folded, c.case));
            let email = case_slot.zip(folded).map(|(slot, (f, _))| (slot, f));
            let mut found = identity_row(identity, ev.identity, email, line_of(n));
            if let Some(slot) = case_slot.filter(|&slot| ev.identity[slot] != 0) {
                // Looked up for capitals always, so that the first row
                // establishes the lowercased e-mail; for the lowercase
                // spelling only once some capitals came first. Reported
                // only where nothing worse is.
                let own = (ev.identity[slot], 0);
                if folded.is_some() || email_caps.len() != 0 {
                    let case = email_case(
                        identity,
                        email_caps,
                        slot,
                        ev.identity,
                        folded.unwrap_or(own),
                        line_of(n),
                    );
                    found = found.or(case);
                }
            }
            match found {
                Some(f) => ids.push((n, f)),
                None if clean_tuples.len() < CLEAN_TUPLES_CAP => {
                    clean_tuples.get_or_insert(ev.tuple, ());
                }
                None => {}
            }
        }

        let mut emit = Emitter::new(data, snippets.clone());
        let (mut ids, mut uniques, mut seen, mut exclusives) = (
            ids.iter().copied().peekable(),
            uniques.iter().copied().peekable(),
            seen.iter().copied().peekable(),
            exclusives.iter().copied().peekable(),
        );
        loop {
            let next = [
                ids.peek().map(|e| e.0),
                uniques.peek().map(|e| e.0),
                seen.peek().map(|e| e.0),
                exclusives.peek().map(|e| e.0),
            ];
            let Some(n) = next.into_iter().flatten().min() else {
                break;
            };
            let ev = &events.rows[n as usize];
            Scanner::with_delimiter(data, ev.start, u64::from(ev.line), plan.delim)
                .next_record(scratch);
            if let Some((_, f)) = ids.next_if(|e| e.0 == n) {
                report_identity(plan, data, scratch, &f, &mut emit);
            }
            while let Some((_, k, first)) = uniques.next_if(|e| e.0 == n) {
                report_unique(plan, k as usize, data, scratch, first, &mut emit);
            }
            while let Some((_, k, other)) = exclusives.next_if(|e| e.0 == n) {
                let key = events.keys[n as usize * stride + n_unique + k as usize];
                let side = (key & 3) as usize - 1;
                report_exclusive(plan, k as usize, side, data, scratch, other, &mut emit);
            }
            match seen.next_if(|e| e.0 == n).map(|e| e.1) {
                Some(RowSeen::Repeat(first)) => {
                    // The row and its line ending go; unsafe, as removing a
                    // row is a decision (the two may be meant as one).
                    let end = scratch.end
                        + match scratch.ending {
                            Some(crate::scan::LineEnding::Lf) => 1,
                            Some(crate::scan::LineEnding::CrLf) => 2,
                            _ => 0,
                        };
                    emit.report_row(
                        scratch,
                        Finding::new(
                            &rules::DUPLICATE_ROW,
                            [
                                "this row repeats line ",
                                itoa::Buffer::new().format(first),
                                " exactly",
                            ]
                            .concat(),
                        )
                        .help("remove one of the two rows")
                        .fix(FixBuilder::unsafe_("remove this row").edit(scratch.start..end, ""))
                        .related(
                            u64::from(first),
                            None,
                            "first written here".into(),
                        ),
                    );
                }
                Some(RowSeen::CapReached) => {
                    emit.report_row(
                        scratch,
                        Finding::new(
                            &rules::DUPLICATE_ROW,
                            format!(
                                "the duplicate-row check remembers only the first {} distinct rows; rows from here on are compared with those, but not with each other",
                                thousands(*row_cap)
                            ),
                        )
                        .severity(Some(Severity::Info))
                        .help("split the file to check all of it for repeated rows"),
                    );
                }
                _ => {}
            }
        }
        for d in emit.diags {
            let mut d = chunk.rebase(d);
            // Related lines are already absolute (the maps store them so).
            d.line += shift;
            if let Some(s) = &mut d.snippet {
                s.line += shift;
            }
            out.push(d);
        }
    }
}

fn row_seen(rows: &mut FpTable, cap: usize, cap_reached: &mut bool, fp: u64, line: u32) -> RowSeen {
    if rows.len() < cap {
        // One probe for the usual new row, not a lookup and an insert.
        return match rows.get_or_insert(fp, line) {
            Some(first) => RowSeen::Repeat(first),
            None => RowSeen::New,
        };
    }
    if let Some(first) = rows.get(fp) {
        RowSeen::Repeat(first)
    } else if !*cap_reached {
        *cap_reached = true;
        RowSeen::CapReached
    } else {
        RowSeen::Forgotten
    }
}

/// The two slots other than `k`, in order.
fn others(k: usize) -> [usize; 2] {
    match k {
        0 => [1, 2],
        1 => [0, 2],
        _ => [0, 1],
    }
}

/// Field `i` of a re-scanned record, decoded and trimmed.
fn decoded(data: &[u8], rec: &Record, i: usize) -> String {
    let f = &rec.fields[i];
    let (a, b) = f.content();
    let text = String::from_utf8_lossy(&data[a..b]);
    unescape(&text, f.escapes).trim().to_owned()
}

/// Field `i` of a re-scanned record, quoted for a message.
fn quoted(data: &[u8], rec: &Record, i: usize) -> String {
    quote(&decoded(data, rec, i))
}

/// Reports `finding` on field `field` of `rec` (named after its column),
/// or on the row when the header lacks the column.
fn on_field(
    plan: &CrossPlan,
    rec: &Record,
    field: Option<usize>,
    finding: Finding,
    emit: &mut Emitter<'_>,
) {
    match field.and_then(|i| Some((i, rec.fields.get(i)?))) {
        Some((i, f)) => emit.report_in(
            f.start..f.end,
            f,
            finding.column(Some(plan.header[i].clone())),
        ),
        None => emit.report_row(rec, finding),
    }
}

/// `alone`, `with User ID`, `with User ID and Username`.
fn combination(names: &[&str; 3], filled: [bool; 3], key: usize) -> String {
    let with: Vec<&str> = (0..3)
        .filter(|j| *j != key && filled[*j])
        .map(|j| names[j])
        .collect();
    if with.is_empty() {
        "alone".into()
    } else {
        format!("with {}", with.join(" and "))
    }
}

fn report_identity(
    plan: &CrossPlan,
    data: &[u8],
    rec: &Record,
    f: &IdentityFinding,
    emit: &mut Emitter<'_>,
) {
    let Some(id) = &plan.identity else {
        return;
    };
    let names = &id.names;
    // Slot `j`'s value in this row (filled whenever the finding names it).
    let value = |j: usize| id.fields[j].map_or_else(String::new, |i| quoted(data, rec, i));
    let header = |j: usize| id.fields[j].map(|i| plan.header[i].clone());
    let (k, at, first) = (f.key, f.at, f.first);
    let mut line = itoa::Buffer::new();
    let first_s = line.format(first);
    // Messages are joined from their parts at their exact length, not with
    // `format!`, which guesses the length and grows the string several
    // times: this runs on the fold, one chunk at a time, and a file where
    // every row conflicts builds three of them per row.
    let (rule, message, help, note, column, shared) = match f.kind {
        IdentityKind::Conflict => {
            let [a, b] = others(at);
            let (va, vb) = (value(a), value(b));
            let pair = [names[a], " ", &va, " and ", names[b], " ", &vb].concat();
            let shared = xxhash_rust::xxh3::xxh3_64(pair.as_bytes());
            (
                &rules::IDENTITY_CONFLICT,
                [
                    &pair,
                    " were paired with a different ",
                    names[at],
                    " on line ",
                    first_s,
                ]
                .concat(),
                [
                    "use the same ",
                    names[at],
                    " on every row with this ",
                    names[a],
                    " and ",
                    names[b],
                    ", or correct the ",
                    names[a],
                    " or ",
                    names[b],
                ]
                .concat(),
                [&pair, " first appear here with another ", names[at]].concat(),
                header(at),
                shared,
            )
        }
        IdentityKind::PartnerMismatch => {
            let vk = value(k);
            (
                &rules::IDENTITY_PARTNER_MISMATCH,
                [
                    names[k], " ", &vk, " was paired with a different ", names[at], " on line ",
                    first_s,
                ]
                .concat(),
                [
                    "correct the ", names[at],
                    " if this is the same identity; if it is not, one of the two rows has the wrong ",
                    names[k],
                ]
                .concat(),
                [names[k], " ", &vk, " first appears here with another ", names[at]].concat(),
                header(at),
                xxhash_rust::xxh3::xxh3_64([names[k], " ", &vk].concat().as_bytes()),
            )
        }
        IdentityKind::Combination => {
            let before = combination(names, f.earlier, k);
            let now = combination(names, f.current, k);
            let vk = value(k);
            let help = if f.earlier[at] {
                format!("fill {} here as on line {first}", names[at])
            } else {
                format!(
                    "leave {} empty here as on line {first}, or fill it on every row with this {}",
                    names[at], names[k]
                )
            };
            (
                &rules::IDENTITY_COMBINATION,
                format!(
                    "{} {vk} appears {before} on line {first} but {now} here: rows that share an identity value must fill the same identity columns",
                    names[k],
                ),
                help,
                format!("{} {vk} first appears here, {before}", names[k]),
                header(k),
                xxhash_rust::xxh3::xxh3_64([names[k], " ", &vk].concat().as_bytes()),
            )
        }
        IdentityKind::EmailCase { same_partners } => {
            let vk = value(k);
            let (message, help) = if same_partners {
                let with = combination(names, f.current, k).replacen("with ", "with the same ", 1);
                (
                    [
                        names[k], " ", &vk, " is written with other capitals on line ", first_s,
                        ", ", &with,
                        ": the spec does not say whether the platform matches e-mails without case, so the two rows may be taken for two identities",
                    ]
                    .concat(),
                    ["write the ", names[k], " exactly as on line ", first_s].concat(),
                )
            } else {
                (
                    [
                        names[k], " ", &vk, " equals the ", names[k], " of line ", first_s,
                        " only without case, and line ", first_s,
                        " pairs it with other identity values: if the platform matches e-mails without case, the two rows are one identity written two ways",
                    ]
                    .concat(),
                    [
                        "if this is the identity of line ", first_s, ", write its ", names[k],
                        " and identity values as there; if it is another one, it needs an e-mail that differs in more than case",
                    ]
                    .concat(),
                )
            };
            (
                &rules::IDENTITY_EMAIL_CASE,
                message,
                help,
                [names[k], " first appears here, with other capitals"].concat(),
                header(k),
                xxhash_rust::xxh3::xxh3_64([names[k], " ", &vk.to_lowercase()].concat().as_bytes()),
            )
        }
    };
    let finding = Finding::new(rule, message)
        .help(help)
        .shared(shared)
        .related(u64::from(first), column, note);
    on_field(plan, rec, id.fields[at], finding, emit);
}

fn report_unique(
    plan: &CrossPlan,
    k: usize,
    data: &[u8],
    rec: &Record,
    first: u32,
    emit: &mut Emitter<'_>,
) {
    let u = &plan.unique[k];
    // The filled key cells (at least one, or the key would be empty).
    let parts: Vec<(usize, String)> = u
        .fields
        .iter()
        .zip(&u.names)
        .filter_map(|(field, name)| {
            let i = (*field)?;
            let v = decoded(data, rec, i);
            (!v.is_empty()).then(|| (i, [name, " ", &quote(&v)].concat()))
        })
        .collect();
    let at = parts.first().map(|p| p.0);
    let text: Vec<&str> = parts.iter().map(|p| p.1.as_str()).collect();
    let (verb, first_verb, key) = if text.len() == 1 {
        ("appears", "appears", text.join(""))
    } else {
        ("appear together", "appear", text.join(" and "))
    };
    let case = if u.ignore_case {
        " (ignoring case)"
    } else {
        ""
    };
    let message = [
        &key,
        " already ",
        verb,
        " on line ",
        itoa::Buffer::new().format(first),
        case,
        ": ",
        u.reason,
    ]
    .concat();
    let finding = Finding::new(&rules::DUPLICATE_VALUE, message)
        .severity(u.severity)
        .help("remove the repeated row, or correct the value")
        .related(
            u64::from(first),
            at.map(|i| plan.header[i].clone()),
            [&key, " first ", first_verb, " here", case].concat(),
        );
    on_field(plan, rec, at, finding, emit);
}

/// A row of side `side` (0 or 1) of exclusive entry `k` under a key whose
/// first row of the other side is on line `other`.
fn report_exclusive(
    plan: &CrossPlan,
    k: usize,
    side: usize,
    data: &[u8],
    rec: &Record,
    other: u32,
    emit: &mut Emitter<'_>,
) {
    let e = &plan.exclusive[k];
    // The key cell, as the event took it: the first filled key column.
    let Some((i, value)) = e.key.iter().find_map(|&(f, _)| {
        let i = f?;
        rec.fields.get(i)?;
        let v = decoded(data, rec, i);
        (!v.is_empty()).then_some((i, v))
    }) else {
        return;
    };
    let column = &plan.header[i];
    let key = [column.as_ref(), " ", &quote(&value)].concat();
    let line = itoa::Buffer::new().format(other).to_owned();
    let message = [
        "this row is ",
        e.does[side],
        " under ",
        &key,
        ", and line ",
        &line,
        " is ",
        e.does[1 - side],
        " under it: ",
        e.reason,
    ]
    .concat();
    let help = [
        "split the file: the rows ",
        e.does[0],
        " in one upload, the rows ",
        e.does[1],
        " in another, each made when the state of what the key names allows it",
    ]
    .concat();
    let finding = Finding::new(&rules::INCOMPATIBLE_ROWS, message)
        .help(help)
        .related(
            u64::from(other),
            Some(column.clone()),
            [e.does[1 - side], " under ", &key, " here"].concat(),
        );
    on_field(plan, rec, Some(i), finding, emit);
}

/// `1500000` as `1,500,000`.
pub(super) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use IdentityKind::*;

    /// Fingerprints for test values: distinct per (slot, value), nonzero,
    /// and distinct in their low 32 bits too.
    fn fp(slot: usize, v: &str) -> u64 {
        nonzero(xxh3_64_with_seed(v.as_bytes(), slot as u64))
    }

    /// A tuple from `[email, user id, username]`, `""` = empty.
    fn tuple(t: [&str; 3]) -> [u64; 3] {
        [0, 1, 2].map(|j| if t[j].is_empty() { 0 } else { fp(j, t[j]) })
    }

    /// Feeds rows in order (line = index + 2) and returns each row's
    /// finding as (kind, key slot, pointed slot, related line).
    fn run(rows: &[[&str; 3]]) -> Vec<Option<(IdentityKind, usize, usize, u32)>> {
        let mut st = CrossState::new(10, false);
        rows.iter()
            .enumerate()
            .map(|(n, r)| {
                st.identity(tuple(*r), n as u32 + 2)
                    .map(|f| (f.kind, f.key, f.at, f.first))
            })
            .collect()
    }

    fn row_fp(line: &str) -> u64 {
        let mut sc = Scanner::new(line.as_bytes(), 0, 1);
        let mut rec = Record::default();
        assert!(sc.next_record(&mut rec));
        assert!(rec.problems.is_empty(), "{line}");
        row_fingerprint::<b','>(line.as_bytes(), &rec, &mut Vec::new())
    }

    #[test]
    fn tuple_mixes_keep_slots_and_values_apart() {
        let (a, b, c) = (fp(0, "a"), fp(1, "1"), fp(2, "x"));
        let (a2, b2) = (fp(0, "b"), fp(1, "2"));
        let tuples = [
            [a, b, c],
            [a, b, 0],
            [a, 0, c],
            [0, b, c],
            [a, 0, 0],
            [0, b, 0],
            [0, 0, c],
            [a2, b, c],
            [a, b2, c],
            [a2, b2, c],
            // The same values in other slots are other tuples.
            [b, a, c],
            [c, b, a],
            [a, c, b],
            [0, a, 0],
            [0, 0, a],
        ];
        let mut mixes: Vec<u64> = tuples.iter().map(|t| mix_tuple(*t)).collect();
        mixes.sort_unstable();
        mixes.dedup();
        assert_eq!(mixes.len(), tuples.len());
    }

    #[test]
    fn commas_and_newlines_are_found_anywhere() {
        let naive = |s: &[u8]| s.iter().any(|&c| c == b',' || c == b'\n');
        let mut cases: Vec<Vec<u8>> = vec![Vec::new()];
        for len in 1..40 {
            for at in 0..len {
                for c in [b',', b'\n', b'+', b'-', 0x8a, 0xac, b'\r'] {
                    let mut s = vec![b'x'; len];
                    s[at] = c;
                    cases.push(s);
                }
            }
            cases.push(vec![b'a'; len]);
            cases.push((0..len).map(|i| (i * 37 % 256) as u8).collect());
        }
        for s in &cases {
            assert_eq!(has_delimiter_or_newline(s, b','), naive(s), "{s:?}");
        }
    }

    #[test]
    fn row_fingerprints_compare_decoded_cells() {
        let same = [
            ("a,b,c", "a,\"b\",c"),
            ("a,b,c\r\n", "\"a\",\"b\",\"c\"\n"),
            (",,", "\"\",,\"\""),
            ("a,\"x,y\"", "\"a\",\"x,y\""),
            ("a,\"x\"\"y\"", "\"a\",\"x\"\"y\""),
        ];
        for (x, y) in same {
            assert_eq!(row_fp(x), row_fp(y), "{x:?} vs {y:?}");
        }
        let different = [
            ("\"a,b\",c", "a,\"b,c\""),
            ("a,b", "a,b,"),
            ("a,\"b\nc\"", "a,\"b c\""),
            ("ab,c", "a,bc"),
        ];
        for (x, y) in different {
            assert_ne!(row_fp(x), row_fp(y), "{x:?} vs {y:?}");
        }
    }

    #[test]
    fn e_mails_fold_to_one_key_whichever_way_they_are_lowercased() {
        let seed = 3;
        let fold = |v: &str| {
            // An address that is its own lowercase keeps its exact key.
            let exact = nonzero(xxh3_64_with_seed(v.as_bytes(), seed));
            fold_email(v.as_bytes(), seed).unwrap_or((exact, 0))
        };
        let long = format!("{}@example.com", "a".repeat(70));
        for (a, b) in [
            ("ada@example.com", "Ada@Example.COM"),
            ("ädä@bücher.de", "ÄDÄ@Bücher.de"),
            (long.as_str(), long.to_uppercase().as_str()),
        ] {
            let (fa, ca) = fold(a);
            let (fb, cb) = fold(b);
            assert_eq!(fa, fb, "{a} {b}");
            assert_ne!(ca, cb, "{a} {b}");
            assert_eq!(fold(b), (fb, cb));
            // The lowercase spelling's is its exact key, and no other's is.
            assert_eq!(
                (fa, ca),
                (nonzero(xxh3_64_with_seed(a.as_bytes(), seed)), 0)
            );
            assert_ne!(fb, nonzero(xxh3_64_with_seed(b.as_bytes(), seed)));
        }
        assert_eq!(fold("ada@example.com").1, 0);
        assert_ne!(fold("Ada@example.com").1, fold("aDa@example.com").1);
        assert!(ascii_lowercase_only(b"ada.lovelace+x@example.co.uk"));
        assert!(!ascii_lowercase_only(b"ada.lovelace+x@example.co.uK"));
        assert!(!ascii_lowercase_only(b"Z@b.c"));
        assert!(ascii_lowercase_only(b"[@`.{"));
        assert!(!ascii_lowercase_only("é@b.c".as_bytes()));
    }

    /// The sixteen-bytes-a-step test against a byte loop, at every length
    /// up to 80 and with the one odd byte anywhere: capitals, the bytes
    /// around them (`@`, `[`, `` ` ``, `{`), DEL and bytes past ASCII.
    #[test]
    fn the_lowercase_test_agrees_with_a_byte_loop() {
        let odd = b"AZ@[`{\x7f\x80\xc3\xff";
        let mut next = crate::testutil::xorshift(0x510e_527f_ade6_82d1u64);
        for len in 0..=80usize {
            for _ in 0..200 {
                let mut b: Vec<u8> = (0..len)
                    .map(|_| b"az09.@-_"[(next() % 8) as usize])
                    .collect();
                if len > 0 && !next().is_multiple_of(3) {
                    let at = (next() % len as u64) as usize;
                    b[at] = odd[(next() % odd.len() as u64) as usize];
                }
                let want = b.iter().all(|&c| c.is_ascii() && !c.is_ascii_uppercase());
                assert_eq!(ascii_lowercase_only(&b), want, "{b:?}");
            }
        }
    }

    #[test]
    fn consistent_rows_are_clean() {
        let got = run(&[
            ["a", "1", "x"],
            ["a", "1", "x"],
            ["", "2", ""],
            ["", "2", ""],
            ["b", "", ""],
            ["b", "", ""],
            ["B", "", ""],
            ["", "", "y"],
        ]);
        assert!(got.iter().all(Option::is_none), "{got:?}");
    }

    #[test]
    fn two_shared_values_and_a_different_third_is_a_conflict() {
        // Rule 2: Email + User ID with another Username.
        assert_eq!(
            run(&[["a", "1", "x"], ["a", "1", "z"]])[1],
            Some((Conflict, 0, 2, 2))
        );
        // Rule 3: Username + User ID with another Email.
        assert_eq!(
            run(&[["a", "1", "x"], ["c", "1", "x"]])[1],
            Some((Conflict, 1, 0, 2))
        );
        // Rule 4: Username + Email with another User ID.
        assert_eq!(
            run(&[["a", "1", "x"], ["a", "9", "x"]])[1],
            Some((Conflict, 0, 1, 2))
        );
    }

    #[test]
    fn a_different_combination_of_the_same_values() {
        // Column dropped: points at the now-empty User ID.
        assert_eq!(
            run(&[["a", "1", ""], ["a", "", ""]])[1],
            Some((Combination, 0, 1, 2))
        );
        // Column added.
        assert_eq!(
            run(&[["a", "1", ""], ["a", "1", "x"]])[1],
            Some((Combination, 0, 2, 2))
        );
        // A single value first, then a pair.
        assert_eq!(
            run(&[["a", "", ""], ["a", "1", ""]])[1],
            Some((Combination, 0, 1, 2))
        );
        // Found through the second column when the first is new.
        assert_eq!(
            run(&[["", "1", ""], ["a", "1", ""]])[1],
            Some((Combination, 1, 0, 2))
        );
    }

    #[test]
    fn one_shared_value_with_a_different_partner_is_a_mismatch() {
        assert_eq!(
            run(&[["a", "1", ""], ["a", "2", ""]])[1],
            Some((PartnerMismatch, 0, 1, 2))
        );
        // A differing partner outranks a missing one: still a mismatch,
        // pointing at the first differing cell.
        assert_eq!(
            run(&[["a", "1", "x"], ["a", "2", ""]])[1],
            Some((PartnerMismatch, 0, 1, 2))
        );
        assert_eq!(
            run(&[["a", "1", "x"], ["a", "2", "z"]])[1],
            Some((PartnerMismatch, 0, 1, 2))
        );
        assert_eq!(
            run(&[["", "1", "x"], ["", "2", "x"]])[1],
            Some((PartnerMismatch, 2, 1, 2))
        );
    }

    #[test]
    fn a_row_conflicting_on_several_keys_reports_the_preferred_one() {
        // Email a says mismatch (line 2); User ID 2 and Username x say
        // combination (line 3): combination wins, from User ID.
        assert_eq!(
            run(&[["a", "1", ""], ["", "2", "x"], ["a", "2", "x"]])[2],
            Some((Combination, 1, 0, 3))
        );
        // Email a says combination (line 2); User ID 1 and Username x say
        // conflict (line 3): conflict wins although Email comes first, and
        // of the two conflicts the one found through User ID.
        assert_eq!(
            run(&[["a", "", ""], ["b", "1", "x"], ["a", "1", "x"]])[2],
            Some((Conflict, 1, 0, 3))
        );
        // Two keys of equal rank: the first column wins.
        assert_eq!(
            run(&[["a", "1", ""], ["", "", "x"], ["a", "1", "x"]])[2],
            Some((Combination, 0, 2, 2))
        );
    }

    #[test]
    fn the_first_row_wins_and_conflicting_rows_still_establish_new_values() {
        let got = run(&[
            ["a", "1", ""], // line 2 establishes a and 1
            ["a", "2", ""], // line 3: mismatch; establishes 2 as (a, 2)
            ["a", "2", ""], // line 4: mismatch with line 2 again (a stays (a, 1))
            ["b", "2", ""], // line 5: 2 was established by line 3
        ]);
        assert_eq!(
            got,
            vec![
                None,
                Some((PartnerMismatch, 0, 1, 2)),
                Some((PartnerMismatch, 0, 1, 2)),
                Some((PartnerMismatch, 1, 0, 3)),
            ]
        );
    }

    #[test]
    fn classification_reports_which_slots_are_filled_where() {
        let f = classify(0, [5, 7, 0], [5, 0, 0], 4).expect("differs");
        assert_eq!(f.kind, Combination);
        assert_eq!(f.current, [true, true, false]);
        assert_eq!(f.earlier, [true, false, false]);
        assert_eq!(classify(0, [5, 7, 0], [5, 7, 0], 4), None);
    }

    #[test]
    fn the_row_cap_stops_remembering_and_says_so_once() {
        let mut st = CrossState::new(2, false);
        assert_eq!(st.row(11, 2), RowSeen::New);
        assert_eq!(st.row(12, 3), RowSeen::New);
        assert_eq!(st.row(11, 4), RowSeen::Repeat(2));
        assert_eq!(st.row(13, 5), RowSeen::CapReached);
        assert_eq!(st.row(13, 6), RowSeen::Forgotten);
        assert_eq!(st.row(14, 7), RowSeen::Forgotten);
        assert_eq!(st.row(12, 8), RowSeen::Repeat(3));
        assert_eq!(st.rows.len(), 2);
    }

    #[test]
    fn unique_keys_remember_the_first_line() {
        let mut st = CrossState::new(2, false);
        assert_eq!(st.unique(5, 2), None);
        assert_eq!(st.unique(6, 3), None);
        assert_eq!(st.unique(5, 9), Some(2));
        assert_eq!(st.unique(5, 10), Some(2));
    }

    #[test]
    fn lowercase_fingerprints_ignore_case_only() {
        let mut h = Xxh3Default::new();
        let a = fp_lowercase("Ada.Lovelace@Example.COM".as_bytes(), &mut h);
        assert_eq!(a, fp_lowercase(b"ada.lovelace@example.com", &mut h));
        assert_ne!(a, fp_lowercase(b"ada.lovelace@example.co", &mut h));
        // Longer than the buffer, with multi-byte characters.
        let long = "Ä".repeat(100);
        assert_eq!(
            fp_lowercase(long.as_bytes(), &mut h),
            xxh3_64("ä".repeat(100).as_bytes())
        );
        // The short-ASCII shortcut and the general path agree.
        for s in ["MiXeD@Case.Org", &"Q".repeat(64), &"Q".repeat(65), ""] {
            assert_eq!(
                fp_lowercase(s.as_bytes(), &mut h),
                xxh3_64(s.to_lowercase().as_bytes()),
                "{s}"
            );
        }
    }

    #[test]
    fn the_identity_hasher_passes_fingerprints_through() {
        use std::hash::{BuildHasher, BuildHasherDefault};
        let b = BuildHasherDefault::<IdentityHasher>::default();
        let x = b.hash_one(0x1234_5678_9abc_def0u64);
        let y = b.hash_one(0x1234_5678_9abc_def1u64);
        assert_eq!(x ^ y, 1, "one bit in, one bit out");
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(1_500_000), "1,500,000");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
    }
}
