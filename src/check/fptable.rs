//! Fingerprint-keyed tables: nonzero 64-bit fingerprints to a small value,
//! first one wins. The cross-row fold keeps all its state in them.
//!
//! Why not `HashMap`: the fold looks a table up for nearly every row, and
//! the big ones grow to millions of entries, so nearly every lookup is a
//! cache miss, and hashbrown's separate control bytes make it two. Here a
//! slot is the fingerprint and the value together (no control bytes;
//! fingerprint 0 marks an empty slot) and the probe is linear, so a lookup
//! usually touches one cache line; and a slot's address follows from the
//! fingerprint alone, so [`FpTable::prefetch`] lets the fold start the
//! loads of rows ahead of the one it is on, and their misses overlap
//! instead of queueing.

/// A slot: a fingerprint (two words, both 0 when the slot is empty) and
/// its value, as plain words so that a mapping can hold them.
pub(crate) trait Slot: bytemuck::Pod {
    type Value: Copy + PartialEq + std::fmt::Debug;
    fn new(key: [u32; 2], value: Self::Value) -> Self;
    fn key(&self) -> [u32; 2];
    fn value(&self) -> Self::Value;
}

/// A set: 8 bytes a slot.
impl Slot for [u32; 2] {
    type Value = ();
    #[inline]
    fn new(key: [u32; 2], _: ()) -> Self {
        key
    }
    #[inline]
    fn key(&self) -> [u32; 2] {
        *self
    }
    #[inline]
    fn value(&self) {}
}

/// A line (or any `u32`): 12 bytes a slot.
impl Slot for [u32; 3] {
    type Value = u32;
    #[inline]
    fn new(key: [u32; 2], value: u32) -> Self {
        [key[0], key[1], value]
    }
    #[inline]
    fn key(&self) -> [u32; 2] {
        [self[0], self[1]]
    }
    #[inline]
    fn value(&self) -> u32 {
        self[2]
    }
}

/// Three words: 20 bytes a slot.
impl Slot for [u32; 5] {
    type Value = [u32; 3];
    #[inline]
    fn new(key: [u32; 2], v: [u32; 3]) -> Self {
        [key[0], key[1], v[0], v[1], v[2]]
    }
    #[inline]
    fn key(&self) -> [u32; 2] {
        [self[0], self[1]]
    }
    #[inline]
    fn value(&self) -> [u32; 3] {
        [self[2], self[3], self[4]]
    }
}

/// Open addressing with linear probing, at most 7/8 full.
#[derive(Debug)]
pub(crate) struct FpTable<S: Slot = [u32; 3]> {
    slots: Slots<S>,
    len: usize,
}

impl<S: Slot> Default for FpTable<S> {
    fn default() -> Self {
        FpTable {
            slots: Slots::Heap(Vec::new()),
            len: 0,
        }
    }
}

/// Tables this big or bigger live in their own mapping, advised for
/// transparent huge pages (2 MiB).
const HUGE: usize = 2 << 20;

/// The slot array. A table of a million rows is tens of MiB probed at
/// random, one probe per row: on 4 KiB pages nearly every probe also misses
/// the TLB, and every page is a fault when first touched. A big table is
/// therefore an anonymous mapping advised for huge pages (where the kernel
/// has them on `madvise`, as is common); a small one is a `Vec`.
#[derive(Debug)]
enum Slots<S> {
    Heap(Vec<S>),
    Mapped(memmap2::MmapMut),
}

impl<S: Slot> Slots<S> {
    /// `n` empty slots.
    fn zeroed(n: usize) -> Slots<S> {
        let bytes = n.saturating_mul(std::mem::size_of::<S>());
        if bytes >= HUGE {
            // A mapping starts zeroed; if one cannot be made, the heap will do.
            if let Ok(map) = memmap2::MmapMut::map_anon(bytes) {
                #[cfg(target_os = "linux")]
                {
                    let _ = map.advise(memmap2::Advice::HugePage);
                    // Fault every page in for writing now. Left to the
                    // probes, a page's first touch is usually a read, which
                    // maps the shared zero page (the huge one, here), and
                    // the write after it copies that page: it splits a
                    // huge zero page into small pages, and with a second
                    // thread running, every such copy interrupts the other
                    // core to flush its TLB. Populated for writing, the
                    // table gets huge pages where the kernel has them and
                    // no copies. Older kernels refuse the advice: then the
                    // pages fault in as before.
                    let _ = map.advise(memmap2::Advice::PopulateWrite);
                }
                return Slots::Mapped(map);
            }
        }
        // Written, not `calloc`ed: a large `calloc` is a fresh mapping whose
        // pages would first be read by a probe, the same copy as above.
        let mut v = Vec::with_capacity(n);
        v.resize(n, S::zeroed());
        Slots::Heap(v)
    }
}

impl<S: Slot> std::ops::Deref for Slots<S> {
    type Target = [S];
    #[inline]
    fn deref(&self) -> &[S] {
        match self {
            Slots::Heap(v) => v,
            // A mapping is page-aligned and holds whole slots.
            Slots::Mapped(m) => bytemuck::cast_slice(m),
        }
    }
}

impl<S: Slot> std::ops::DerefMut for Slots<S> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [S] {
        match self {
            Slots::Heap(v) => v,
            Slots::Mapped(m) => bytemuck::cast_slice_mut(m),
        }
    }
}

/// Slots of the smallest table that holds `n` entries.
fn slots_for(n: usize) -> usize {
    (n.saturating_mul(8) / 7 + 1).next_power_of_two().max(16)
}

/// Fingerprint 0 marks an empty slot; callers never pass it, but if one
/// did it would share a key with 1 rather than vanish.
fn key(fp: u64) -> [u32; 2] {
    let fp = fp.max(1);
    [fp as u32, (fp >> 32) as u32]
}

impl<S: Slot> FpTable<S> {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Makes room for `more` entries without growing.
    pub(crate) fn reserve(&mut self, more: usize) {
        let want = slots_for(self.len.saturating_add(more));
        if want > self.slots.len() {
            self.rebuild(want);
        }
    }

    /// Asks for the slot where `fp` would start its probe to be brought
    /// into cache, so that a lookup of `fp` a little later finds it there.
    /// It does not wait for the loads, nor change anything.
    #[inline]
    pub(crate) fn prefetch(&self, fp: u64) {
        let slots = &*self.slots;
        if slots.is_empty() {
            return;
        }
        let home = home(slots, key(fp));
        prefetch(&slots[home]);
        // And the next line: a probe often runs past the home slot's line
        // (slots do not divide a line, and a lookup reads two or three at
        // the usual load), and it stalled there nearly as often as on the
        // home line when only that was asked for.
        let next = home + 64 / std::mem::size_of::<S>();
        prefetch(&slots[next & (slots.len() - 1)]);
    }

    #[inline]
    pub(crate) fn get(&self, fp: u64) -> Option<S::Value> {
        let slots = &*self.slots;
        if slots.is_empty() {
            return None;
        }
        probe(slots, key(fp)).ok().map(|i| slots[i].value())
    }

    /// The value of `fp` if present; otherwise inserts `value` and returns
    /// `None`. One probe either way.
    // Called once a row from the fold, in another module: as a call it
    // cost about a tenth more than inlined (callgrind, issue 30), and the
    // fold grew past where the compiler would inline it unasked.
    #[inline(always)]
    pub(crate) fn get_or_insert(&mut self, fp: u64, value: S::Value) -> Option<S::Value> {
        if (self.len + 1) * 8 > self.slots.len() * 7 {
            self.grow();
        }
        let k = key(fp);
        let slots = &mut *self.slots;
        match probe(slots, k) {
            Ok(i) => Some(slots[i].value()),
            Err(i) => {
                slots[i] = S::new(k, value);
                self.len += 1;
                None
            }
        }
    }

    #[cold]
    fn grow(&mut self) {
        self.rebuild(slots_for(self.len + 1).max(self.slots.len() * 2));
    }

    fn rebuild(&mut self, slots: usize) {
        let old = std::mem::replace(&mut self.slots, Slots::zeroed(slots));
        let slots = &mut *self.slots;
        for &s in old.iter().filter(|s| s.key() != [0, 0]) {
            // Keys are distinct, so each finds an empty slot.
            if let Err(i) = probe(slots, s.key()) {
                slots[i] = s;
            }
        }
    }
}

/// Where the probe for `k` starts. `slots` is a power of two long.
#[inline]
fn home<S>(slots: &[S], k: [u32; 2]) -> usize {
    // Fingerprints are hashes already: their bits are spread.
    (k[0] ^ k[1].rotate_left(16)) as usize & (slots.len() - 1)
}

/// The slot holding `k` (`Ok`), or the empty slot where it would go
/// (`Err`). `slots` is not empty, nor full.
#[inline]
fn probe<S: Slot>(slots: &[S], k: [u32; 2]) -> Result<usize, usize> {
    let mask = slots.len() - 1;
    let mut i = home(slots, k);
    loop {
        match slots[i].key() {
            s if s == k => return Ok(i),
            [0, 0] => return Err(i),
            _ => i = (i + 1) & mask,
        }
    }
}

/// A hint to the cache; no effect on what the program computes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn prefetch<T>(at: &T) {
    safe_arch::prefetch_t0(at);
}

/// Where there is no safe prefetch, nothing: the lookup will just wait.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn prefetch<T>(_: &T) {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Runs one table of each slot kind against a `HashMap` through growth,
    /// with keys that collide on their home slot, differ only in their high
    /// half, or repeat.
    fn agrees_with_a_hash_map<S: Slot>(value: impl Fn(u32) -> S::Value) {
        let mut table = FpTable::<S>::default();
        let mut map = HashMap::new();
        let mut next = crate::testutil::xorshift(0x2545_f491_4f6c_dd1du64);
        for line in 0..20_000u32 {
            let seed = next();
            // Few distinct keys, many repeats; some share their home slot
            // (equal low bits), some differ only in the high half.
            let fp = match seed % 4 {
                0 => (seed % 3000) << 32 | 7,
                1 => seed % 3000 + 1,
                _ => seed % 9000 + 1,
            };
            let want = map.get(&fp).copied();
            map.entry(fp).or_insert(value(line));
            // Asking ahead changes nothing, wherever the slot is.
            table.prefetch(fp);
            assert_eq!(table.get(fp), want, "{fp:x}");
            assert_eq!(table.get_or_insert(fp, value(line)), want, "{fp:x}");
            assert_eq!(table.len(), map.len());
        }
        for (fp, v) in &map {
            assert_eq!(table.get(*fp), Some(*v));
        }
        assert_eq!(table.get(u64::MAX), None);
    }

    #[test]
    fn agrees_with_a_hash_map_through_growth_and_collisions() {
        agrees_with_a_hash_map::<[u32; 3]>(|line| line);
        agrees_with_a_hash_map::<[u32; 2]>(|_| ());
        // Values whose words differ, so a mixed-up word shows.
        agrees_with_a_hash_map::<[u32; 5]>(|line| [line, !line, line.rotate_left(7)]);
    }

    #[test]
    fn an_empty_table_finds_nothing_and_prefetches_nothing() {
        let table = FpTable::<[u32; 5]>::default();
        table.prefetch(12);
        assert_eq!(table.get(12), None);
        assert_eq!(table.len(), 0);
    }

    #[test]
    fn a_big_table_is_mapped_and_keeps_its_entries_through_growth() {
        let mut table: FpTable = FpTable::default();
        table.reserve(150_000);
        assert!(
            matches!(table.slots, Slots::Mapped(_)),
            "mapped at {} slots",
            table.slots.len()
        );
        let mut next = crate::testutil::xorshift(0x9e37_79b9_7f4a_7c15u64);
        let keys: Vec<u64> = (0..400_000).map(|_| next() | 1).collect();
        // Past the reservation: grows from a mapping into a bigger one.
        for (line, &fp) in keys.iter().enumerate() {
            assert_eq!(table.get_or_insert(fp, line as u32), None);
        }
        for (line, &fp) in keys.iter().enumerate() {
            assert_eq!(table.get(fp), Some(line as u32));
        }
        assert_eq!(table.len(), keys.len());
        assert_eq!(table.get(2), None);
    }

    #[test]
    fn reserving_sizes_once() {
        let mut table: FpTable = FpTable::default();
        table.reserve(1000);
        let slots = table.slots.len();
        for fp in 1..=1000 {
            table.get_or_insert(fp, 0);
        }
        assert_eq!(table.slots.len(), slots, "no growth within the reservation");
        assert!(slots * 7 / 8 >= 1000);
    }
}
