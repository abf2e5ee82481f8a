//! The duplicate-row map: nonzero 64-bit fingerprints to a line, first one
//! wins.
//!
//! Why not `HashMap`: this map takes one insert per row of the file and
//! grows to a million entries, so nearly every insert is a cache miss, and
//! hashbrown's separate control bytes make it two. Here a slot is 12 bytes
//! (fingerprint and value, no control bytes; fingerprint 0 marks an empty
//! slot) and the probe is linear, so an insert usually touches one cache
//! line; and [`FpTable::touch`] lets the fold start the loads of a batch of
//! rows together, so that their misses overlap instead of queueing.

/// Open addressing with linear probing, at most 7/8 full.
#[derive(Debug, Default)]
pub(crate) struct FpTable {
    /// `[fingerprint low, fingerprint high, value]`; all 0 when empty.
    slots: Slots,
    len: usize,
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
enum Slots {
    Heap(Vec<[u32; 3]>),
    Mapped(memmap2::MmapMut),
}

impl Default for Slots {
    fn default() -> Self {
        Slots::Heap(Vec::new())
    }
}

impl Slots {
    /// `n` empty slots.
    fn zeroed(n: usize) -> Slots {
        let bytes = n.saturating_mul(std::mem::size_of::<[u32; 3]>());
        if bytes >= HUGE {
            // A mapping starts zeroed; if one cannot be made, the heap will do.
            if let Ok(map) = memmap2::MmapMut::map_anon(bytes) {
                #[cfg(target_os = "linux")]
                let _ = map.advise(memmap2::Advice::HugePage);
                return Slots::Mapped(map);
            }
        }
        Slots::Heap(vec![[0; 3]; n])
    }
}

impl std::ops::Deref for Slots {
    type Target = [[u32; 3]];
    #[inline]
    fn deref(&self) -> &[[u32; 3]] {
        match self {
            Slots::Heap(v) => v,
            // A mapping is page-aligned and holds whole slots.
            Slots::Mapped(m) => bytemuck::cast_slice(m),
        }
    }
}

impl std::ops::DerefMut for Slots {
    #[inline]
    fn deref_mut(&mut self) -> &mut [[u32; 3]] {
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

impl FpTable {
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

    fn home(&self, k: [u32; 2]) -> usize {
        // Fingerprints are hashes already: their bits are spread.
        (k[0] ^ k[1].rotate_left(16)) as usize & (self.slots.len() - 1)
    }

    /// Reads the slot where `fp` would start its probe, so that a later
    /// lookup finds it in cache. The value means nothing; pass it to
    /// `std::hint::black_box` so the load is kept.
    pub(crate) fn touch(&self, fp: u64) -> u32 {
        if self.slots.is_empty() {
            return 0;
        }
        self.slots[self.home(key(fp))][0]
    }

    /// The slot holding `k` (`Ok`), or the empty slot where it would go
    /// (`Err`). The table must have slots.
    #[inline]
    fn probe(&self, k: [u32; 2]) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(k);
        loop {
            match self.slots[i] {
                [a, b, _] if a == k[0] && b == k[1] => return Ok(i),
                [0, 0, _] => return Err(i),
                _ => i = (i + 1) & mask,
            }
        }
    }

    pub(crate) fn get(&self, fp: u64) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        self.probe(key(fp)).ok().map(|i| self.slots[i][2])
    }

    /// The value of `fp` if present; otherwise inserts `value` and returns
    /// `None`. One probe either way.
    // Called once a row from the fold, in another module: `#[inline]`
    // lets it be inlined there whichever codegen unit each lands in.
    #[inline]
    pub(crate) fn get_or_insert(&mut self, fp: u64, value: u32) -> Option<u32> {
        if (self.len + 1) * 8 > self.slots.len() * 7 {
            self.rebuild(slots_for(self.len + 1).max(self.slots.len() * 2));
        }
        let k = key(fp);
        match self.probe(k) {
            Ok(i) => Some(self.slots[i][2]),
            Err(i) => {
                self.slots[i] = [k[0], k[1], value];
                self.len += 1;
                None
            }
        }
    }

    fn rebuild(&mut self, slots: usize) {
        let old = std::mem::replace(&mut self.slots, Slots::zeroed(slots));
        for &s in old.iter().filter(|s| s[0] != 0 || s[1] != 0) {
            // Keys are distinct, so each finds an empty slot.
            if let Err(i) = self.probe([s[0], s[1]]) {
                self.slots[i] = s;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn agrees_with_a_hash_map_through_growth_and_collisions() {
        let mut table = FpTable::default();
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
            map.entry(fp).or_insert(line);
            assert_eq!(table.get(fp), want, "{fp:x}");
            assert_eq!(table.get_or_insert(fp, line), want, "{fp:x}");
            assert_eq!(table.len(), map.len());
        }
        for (fp, line) in &map {
            assert_eq!(table.get(*fp), Some(*line));
        }
        assert_eq!(table.get(u64::MAX), None);
    }

    #[test]
    fn a_big_table_is_mapped_and_keeps_its_entries_through_growth() {
        let mut table = FpTable::default();
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
        let mut table = FpTable::default();
        table.reserve(1000);
        let slots = table.slots.len();
        for fp in 1..=1000 {
            table.get_or_insert(fp, 0);
        }
        assert_eq!(table.slots.len(), slots, "no growth within the reservation");
        assert!(slots * 7 / 8 >= 1000);
    }
}
