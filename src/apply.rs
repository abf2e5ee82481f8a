//! Applying fixes to a file: one streamed copy with the edits made. Named
//! for that one job (it was `fix.rs`, one of five files about fixing): the
//! fixes are made by the checks (`check/`), the passes that use this copy
//! are `run/passes.rs`, and showing what changed is `diff.rs`.
//!
//! Fixes arrive as the check makes them, in file order. [`Applier`] copies
//! the original to the output up to each edit, writes the edit, skips what
//! it replaces, and at the end copies the rest: one pass, memory that does
//! not grow with the file or the number of fixes, and every byte no fix
//! names copied as it was (quoting, line endings, invalid UTF-8, all of it).
//! A fix that starts before the end of the last one applied overlaps it
//! (or came out of order) and is refused, whole: the caller reports it and
//! checks the output again.

use crate::diagnostic::{Applicability, Edit, Fix};
use std::io::{self, Read, Write};

/// Copies `src` to `out` with fixes applied, as they are offered.
///
/// Fixes come in the order of their findings, and the edits of a fix lie
/// at or after its finding's start (its anchor), or at least after the
/// anchor before it (a JSON cell's repair starts at the cell, its finding at
/// the error): so once a finding at `a` is offered, the edits that end by
/// `a` can be written, and a later fix that reaches into them is refused
/// (and applied by the next pass). Edits of fixes on one cell (the spaces around a value,
/// the value itself) wait until the next anchor passes them, so that fixes
/// of one cell that do not overlap all apply, whichever comes first.
pub(crate) struct Applier<R, W> {
    src: R,
    out: W,
    /// Offset in `src` copied or skipped up to.
    pos: u64,
    /// Accepted edits not yet written, in file order, none overlapping.
    pending: Vec<Edit>,
    /// The latest anchor offered: findings come in file order.
    anchor: u64,
    /// Fixes applied.
    pub(crate) applied: usize,
}

impl<R: Read, W: Write> Applier<R, W> {
    pub(crate) fn new(src: R, out: W) -> Self {
        Applier {
            src,
            out,
            pos: 0,
            pending: Vec::new(),
            anchor: 0,
            applied: 0,
        }
    }

    /// Whether `fix` may still be applied: its edits are in order, start
    /// where nothing was written yet, and overlap no edit accepted before
    /// (a fix is applied whole or not at all).
    pub(crate) fn fits(&self, fix: &Fix) -> bool {
        let overlaps = |a: &Edit, b: &Edit| {
            a.span.start < b.span.end && b.span.start < a.span.end
                // Two edits at one point: which goes first is not defined.
                || a.span.start == b.span.start
        };
        !fix.edits.is_empty()
            && fix.edits.iter().all(|e| e.span.start <= e.span.end)
            && fix
                .edits
                .windows(2)
                .all(|w| w[0].span.end <= w[1].span.start)
            && fix.edits[0].span.start >= self.pos
            && !fix
                .edits
                .iter()
                .any(|e| self.pending.iter().any(|p| overlaps(e, p)))
    }

    /// Applies `fix`, whose finding starts at `anchor`, if it
    /// [`fits`](Self::fits); `Ok(false)` if it does not.
    pub(crate) fn offer(&mut self, fix: &Fix, anchor: u64) -> io::Result<bool> {
        // A finding out of order, or an edit before its own finding, would
        // break the order the writing relies on.
        if anchor < self.anchor {
            return Ok(false);
        }
        self.anchor = anchor;
        self.advance(anchor)?;
        if !self.fits(fix) {
            return Ok(false);
        }
        // Mostly the fix lies after every pending edit: then no sort.
        let in_order = self
            .pending
            .last()
            .is_none_or(|p| p.span.start < fix.edits[0].span.start);
        self.pending.extend(fix.edits.iter().cloned());
        if !in_order {
            self.pending.sort_by_key(|e| e.span.start);
        }
        self.applied += 1;
        Ok(true)
    }

    /// Writes the edits that end by `anchor`: no later fix reaches before
    /// it.
    pub(crate) fn advance(&mut self, anchor: u64) -> io::Result<()> {
        let n = self
            .pending
            .iter()
            .take_while(|e| e.span.end <= anchor)
            .count();
        for i in 0..n {
            let (start, end) = (self.pending[i].span.start, self.pending[i].span.end);
            self.copy_to(start)?;
            self.out.write_all(self.pending[i].content.as_bytes())?;
            self.skip_to(end)?;
        }
        self.pending.drain(..n);
        Ok(())
    }

    fn copy_to(&mut self, at: u64) -> io::Result<()> {
        let want = at.saturating_sub(self.pos);
        let n = io::copy(&mut (&mut self.src).take(want), &mut self.out)?;
        self.pos += n;
        if n < want {
            return Err(short());
        }
        Ok(())
    }

    fn skip_to(&mut self, at: u64) -> io::Result<()> {
        let want = at.saturating_sub(self.pos);
        let n = io::copy(&mut (&mut self.src).take(want), &mut io::sink())?;
        self.pos += n;
        if n < want {
            return Err(short());
        }
        Ok(())
    }

    /// Writes what is pending, copies the rest of the source and hands back
    /// the output.
    pub(crate) fn finish(mut self) -> io::Result<W> {
        self.advance(u64::MAX)?;
        io::copy(&mut self.src, &mut self.out)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

fn short() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "the file changed while it was being fixed",
    )
}

/// Whether `fix` is applied in a run that takes `unsafe_fixes` too.
pub(crate) fn applies(fix: &Fix, unsafe_fixes: bool) -> bool {
    fix.applicability == Applicability::Safe || unsafe_fixes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(edits: &[(u64, u64, &str)]) -> Fix {
        Fix {
            applicability: Applicability::Safe,
            message: String::new(),
            edits: edits
                .iter()
                .map(|&(s, e, c)| Edit {
                    span: s..e,
                    content: c.to_owned(),
                })
                .collect(),
            transform: None,
        }
    }

    #[test]
    fn fixes_of_one_cell_apply_in_any_order_and_overlaps_are_refused_whole() {
        let src = b"a, TRUE ,x\r\nb,b\n";
        let mut ap = Applier::new(&src[..], Vec::new());
        // The value first, then the spaces around it: both apply.
        assert!(ap.offer(&fix(&[(3, 7, "true")]), 2).expect("io"));
        assert!(ap.offer(&fix(&[(2, 3, ""), (7, 8, "")]), 2).expect("io"));
        // Overlaps the first fix: refused, nothing of it written.
        assert!(!ap
            .offer(&fix(&[(2, 5, "zz"), (12, 13, "c")]), 2)
            .expect("io"));
        assert!(ap.offer(&fix(&[(12, 13, "c")]), 12).expect("io"));
        // Before what is written already, or offered out of order.
        assert!(!ap.offer(&fix(&[(5, 6, "y")]), 12).expect("io"));
        assert!(!ap.offer(&fix(&[(9, 10, "y")]), 9).expect("io"));
        assert_eq!(ap.applied, 3);
        let out = ap.finish().expect("io");
        assert_eq!(out, b"a,true,x\r\nc,b\n");
    }

    #[test]
    fn an_edit_past_the_end_is_an_error_not_a_panic() {
        let ap = Applier::new(&b"abc"[..], Vec::new());
        let mut ap = ap;
        assert!(ap.offer(&fix(&[(5, 6, "x")]), 5).expect("accepted"));
        assert!(ap.finish().is_err());
    }
}
