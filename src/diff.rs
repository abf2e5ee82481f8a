//! The streamed line diff `--diff` writes: what a fixed copy changes,
//! as `diff -u` shows it. Its own file, beside `apply.rs`, because
//! comparing two files is a job of its own, which knows nothing of fixes.
//!
//! [`unified_diff`] compares two files line by line, streamed: where lines
//! differ it looks a window of lines ahead on both sides for where they
//! agree again, which is exact for what fixes do (lines changed in place,
//! rows removed) and always a correct, if not minimal, diff.
//!
//! A line is held in memory up to [`LONG_LINE`] bytes; a longer one (a
//! file of CR line endings is one line to a diff) is spilled as it is read
//! and compared by its length and a 128-bit hash, so no line of any length
//! is held whole.

use crate::report::spill::Spill;
use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use xxhash_rust::xxh3::Xxh3;

/// Lines of context around each change, as `diff -u` shows them.
const CONTEXT: usize = 3;
/// How far ahead a diff looks for where two files agree again: lines, and
/// bytes of them.
const WINDOW: usize = 64;
const WINDOW_BYTES: usize = 8 << 20;
/// Lines longer than this are spilled, not held.
const LONG_LINE: usize = 1 << 20;

/// A line of one side, with its line ending.
enum Line {
    Held(Vec<u8>),
    /// Longer than [`LONG_LINE`]: its bytes in a spill (a temporary file),
    /// its length, its hash (XXH3, 128 bits), and whether it ends with a
    /// line feed.
    Long {
        bytes: Spill,
        len: u64,
        hash: u128,
        lf: bool,
    },
}

impl Line {
    /// The bytes it counts for in a window: a spilled line holds little.
    fn held(&self) -> usize {
        match self {
            Line::Held(l) => l.len(),
            Line::Long { .. } => LONG_LINE,
        }
    }
}

impl PartialEq for Line {
    fn eq(&self, other: &Line) -> bool {
        match (self, other) {
            (Line::Held(a), Line::Held(b)) => a == b,
            // A line is spilled by its length alone, so equal lines are
            // both held or both spilled.
            (
                Line::Long {
                    len: a, hash: ha, ..
                },
                Line::Long {
                    len: b, hash: hb, ..
                },
            ) => a == b && ha == hb,
            _ => false,
        }
    }
}

/// Writes a unified diff of `old` and `new` (labelled `old_name` and
/// `new_name`) to `out`; whether they differ. The labels are quoted as git
/// quotes an unusual name (`"a\033b"`), terminal or not: a name must not
/// write to a terminal, nor start a line of a CI log. With `escape`,
/// control characters in lines are shown escaped (the diff goes to a
/// terminal), so a cell cannot write escape sequences to it; a CR before
/// the line feed is kept, shown as `␍` when escaping.
pub(crate) fn unified_diff(
    old: impl BufRead,
    new: impl BufRead,
    old_name: &str,
    new_name: &str,
    escape: bool,
    out: &mut dyn Write,
) -> io::Result<bool> {
    let mut d = Differ {
        old: Side::new(old),
        new: Side::new(new),
        before: VecDeque::new(),
        hunk: None,
        out,
        header: Some((
            crate::report::git_quoted(old_name).into_owned(),
            crate::report::git_quoted(new_name).into_owned(),
        )),
        escape,
    };
    d.run()?;
    Ok(d.header.is_none())
}

struct Side<R> {
    reader: R,
    ahead: VecDeque<Line>,
    /// 1-based number of the first line in `ahead`.
    line: u64,
    /// Bytes held in `ahead`.
    bytes: usize,
    done: bool,
}

impl<R: BufRead> Side<R> {
    fn new(reader: R) -> Self {
        Side {
            reader,
            ahead: VecDeque::new(),
            line: 1,
            bytes: 0,
            done: false,
        }
    }

    /// Reads lines ahead until `n` are held, or [`WINDOW_BYTES`] of them
    /// (one at least): a file of huge lines is not held whole.
    fn fill(&mut self, n: usize) -> io::Result<()> {
        while self.ahead.len() < n
            && !self.done
            && (self.ahead.is_empty() || self.bytes < WINDOW_BYTES)
        {
            match self.read_line()? {
                None => self.done = true,
                Some(l) => {
                    self.bytes += l.held();
                    self.ahead.push_back(l);
                }
            }
        }
        Ok(())
    }

    /// The next line, held or, past [`LONG_LINE`] bytes, spilled as it is
    /// read.
    fn read_line(&mut self) -> io::Result<Option<Line>> {
        let mut held = Vec::new();
        let mut long: Option<(Spill, Xxh3, u64)> = None;
        let mut lf = false;
        loop {
            let buf = self.reader.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            let take = match memchr::memchr(b'\n', buf) {
                Some(i) => {
                    lf = true;
                    i + 1
                }
                None => buf.len(),
            };
            let part = &buf[..take];
            match &mut long {
                None if held.len() + take <= LONG_LINE => held.extend_from_slice(part),
                None => {
                    let mut spill = Spill::new();
                    let mut hash = Xxh3::new();
                    for b in [&held[..], part] {
                        spill.write_all(b)?;
                        hash.update(b);
                    }
                    long = Some((spill, hash, (held.len() + take) as u64));
                    held = Vec::new();
                }
                Some((spill, hash, len)) => {
                    spill.write_all(part)?;
                    hash.update(part);
                    *len += take as u64;
                }
            }
            self.reader.consume(take);
            if lf {
                break;
            }
        }
        Ok(match long {
            Some((bytes, hash, len)) => Some(Line::Long {
                bytes,
                len,
                hash: hash.digest128(),
                lf,
            }),
            None if held.is_empty() => None,
            None => Some(Line::Held(held)),
        })
    }

    fn pop(&mut self) -> Option<Line> {
        let l = self.ahead.pop_front()?;
        self.bytes -= l.held();
        self.line += 1;
        Some(l)
    }
}

/// A hunk being built. Its lines go out formatted into spills (memory,
/// then a temporary file), since its header counts them before they are
/// written: a change on every line of a large file is one hunk, and it must
/// not be held in memory.
struct Hunk {
    old_start: u64,
    new_start: u64,
    olds: u64,
    news: u64,
    /// The hunk's lines so far, each with its mark.
    body: Spill,
    /// The added lines of the change under way: they go out after its
    /// removed ones, as `diff -u` groups them.
    added: Spill,
    /// Equal lines since the last change, not yet in `body` (at most twice
    /// the context).
    pending: Vec<Line>,
}

impl Hunk {
    fn end_change(&mut self) -> io::Result<()> {
        self.added.drain_into(&mut self.body)
    }
}

struct Differ<'o, A, B> {
    old: Side<A>,
    new: Side<B>,
    /// The last equal lines before any hunk: its leading context.
    before: VecDeque<Line>,
    hunk: Option<Hunk>,
    out: &'o mut dyn Write,
    /// The file names, until the first hunk writes them.
    header: Option<(String, String)>,
    escape: bool,
}

impl<A: BufRead, B: BufRead> Differ<'_, A, B> {
    fn run(&mut self) -> io::Result<()> {
        loop {
            self.old.fill(1)?;
            self.new.fill(1)?;
            match (self.old.ahead.front(), self.new.ahead.front()) {
                (None, None) => break,
                (Some(a), Some(b)) if a == b => {
                    self.new.pop();
                    if let Some(l) = self.old.pop() {
                        self.same(l)?;
                    }
                }
                _ => self.change()?,
            }
        }
        self.close(true)
    }

    /// At lines that differ: the nearest pair of equal lines within the
    /// window (fewest lines changed), everything before it changed.
    fn change(&mut self) -> io::Result<()> {
        self.old.fill(WINDOW)?;
        self.new.fill(WINDOW)?;
        let (na, nb) = (self.old.ahead.len(), self.new.ahead.len());
        let mut best = None;
        let both = na > 0 && nb > 0;
        'search: for cost in 1..if both { na + nb } else { 1 } {
            for a in cost.saturating_sub(nb.saturating_sub(1))..=cost.min(na.saturating_sub(1)) {
                let b = cost - a;
                if b < nb && self.old.ahead[a] == self.new.ahead[b] {
                    best = Some((a, b));
                    break 'search;
                }
            }
        }
        // No agreement in sight: the whole window changed (a change on
        // every line then costs the search once a window, not once a line).
        let (a, b) = best.unwrap_or((na, nb));
        self.open()?;
        for _ in 0..a {
            if let Some(mut l) = self.old.pop() {
                self.put(b'-', &mut l)?;
            }
        }
        for _ in 0..b {
            if let Some(mut l) = self.new.pop() {
                self.put(b'+', &mut l)?;
            }
        }
        Ok(())
    }

    /// Starts a hunk, if none is open, with the lines before as context.
    fn open(&mut self) -> io::Result<()> {
        if self.hunk.is_none() {
            let n = self.before.len() as u64;
            self.hunk = Some(Hunk {
                old_start: self.old.line - n,
                new_start: self.new.line - n,
                olds: 0,
                news: 0,
                body: Spill::new(),
                added: Spill::new(),
                pending: self.before.drain(..).collect(),
            });
        }
        let pending = self
            .hunk
            .as_mut()
            .map(|h| std::mem::take(&mut h.pending))
            .unwrap_or_default();
        for mut l in pending {
            self.put(b' ', &mut l)?;
        }
        Ok(())
    }

    /// Adds a line to the open hunk: ` ` (context), `-` or `+`.
    fn put(&mut self, mark: u8, l: &mut Line) -> io::Result<()> {
        let escape = self.escape;
        let Some(h) = &mut self.hunk else {
            return Ok(());
        };
        let to = match mark {
            b'+' => {
                h.news += 1;
                &mut h.added
            }
            b'-' => {
                h.olds += 1;
                &mut h.body
            }
            _ => {
                h.olds += 1;
                h.news += 1;
                &mut h.body
            }
        };
        to.write_all(&[mark])?;
        match l {
            Line::Held(l) => write_line(to, l, escape),
            Line::Long { bytes, lf, .. } => write_long_line(to, bytes, *lf, escape),
        }
    }

    fn same(&mut self, l: Line) -> io::Result<()> {
        match &mut self.hunk {
            Some(h) => {
                h.end_change()?;
                h.pending.push(l);
                if h.pending.len() > 2 * CONTEXT {
                    self.close(false)?;
                }
            }
            None => {
                self.before.push_back(l);
                if self.before.len() > CONTEXT {
                    self.before.pop_front();
                }
            }
        }
        Ok(())
    }

    /// Writes the open hunk with its trailing context; the equal lines
    /// after that become the next hunk's leading context.
    fn close(&mut self, at_end: bool) -> io::Result<()> {
        let Some(h) = &mut self.hunk else {
            return Ok(());
        };
        h.end_change()?;
        let keep = h.pending.len().min(CONTEXT);
        let rest = h.pending.split_off(keep);
        let trailing = std::mem::take(&mut h.pending);
        for mut l in trailing {
            self.put(b' ', &mut l)?;
        }
        let Some(mut h) = self.hunk.take() else {
            return Ok(());
        };
        if !at_end {
            self.before = rest.into_iter().rev().take(CONTEXT).rev().collect();
        }
        if let Some((a, b)) = self.header.take() {
            writeln!(self.out, "--- {a}")?;
            writeln!(self.out, "+++ {b}")?;
        }
        // An empty side is numbered by the line before it, as diff does.
        let start = |s: u64, n: u64| if n == 0 { s - 1 } else { s };
        writeln!(
            self.out,
            "@@ -{},{} +{},{} @@",
            start(h.old_start, h.olds),
            h.olds,
            start(h.new_start, h.news),
            h.news
        )?;
        h.body.drain_into(&mut *self.out)
    }
}

/// One line of a diff, after its mark: control characters escaped when it
/// goes to a terminal, and diff's note when the file ends without a line
/// ending.
fn write_line(out: &mut dyn Write, l: &[u8], escape: bool) -> io::Result<()> {
    let (body, lf) = match l.strip_suffix(b"\n") {
        Some(b) => (b, true),
        None => (l, false),
    };
    if escape {
        let (body, cr) = match body.strip_suffix(b"\r") {
            Some(b) => (b, true),
            None => (body, false),
        };
        let text = String::from_utf8_lossy(body);
        out.write_all(crate::report::printable(&text).as_bytes())?;
        if cr {
            out.write_all("␍".as_bytes())?;
        }
    } else {
        out.write_all(body)?;
    }
    out.write_all(b"\n")?;
    if !lf {
        out.write_all(b"\\ No newline at end of file\n")?;
    }
    Ok(())
}

/// A spilled line, written as [`write_line`] writes a held one: copied
/// from its spill, through [`Printable`] when escaping.
fn write_long_line(
    out: &mut dyn Write,
    line: &mut Spill,
    lf: bool,
    escape: bool,
) -> io::Result<()> {
    if escape {
        let mut p = Printable {
            out: &mut *out,
            carry: Vec::new(),
        };
        line.drain_into(&mut p)?;
        p.finish()?;
    } else {
        line.drain_into(&mut *out)?;
        if !lf {
            out.write_all(b"\n")?;
        }
    }
    if !lf {
        out.write_all(b"\\ No newline at end of file\n")?;
    }
    Ok(())
}

/// Writes a line given in pieces as [`write_line`] writes it escaped, in
/// bounded memory: text decoded as `String::from_utf8_lossy` decodes the
/// whole (a character cut between two pieces waits for the rest), made
/// [`printable`](crate::report::printable); the last two bytes wait for
/// the end, where a line feed ends the line and a CR before it is shown as
/// `␍`.
struct Printable<'o> {
    out: &'o mut dyn Write,
    carry: Vec<u8>,
}

impl Printable<'_> {
    /// Writes `carry[..upto]` decoded, but an unfinished character at its
    /// end (which stays in `carry`, with what follows `upto`).
    fn emit(&mut self, upto: usize) -> io::Result<()> {
        let mut pos = 0;
        while pos < upto {
            match std::str::from_utf8(&self.carry[pos..upto]) {
                Ok(text) => {
                    write_printable(self.out, text)?;
                    pos = upto;
                }
                Err(e) => {
                    let valid = pos + e.valid_up_to();
                    let text = std::str::from_utf8(&self.carry[pos..valid]).unwrap_or_default();
                    write_printable(self.out, text)?;
                    match e.error_len() {
                        Some(n) => {
                            write_printable(self.out, "\u{fffd}")?;
                            pos = valid + n;
                        }
                        // Unfinished: the rest comes with the next piece.
                        None => {
                            pos = valid;
                            break;
                        }
                    }
                }
            }
        }
        self.carry.drain(..pos);
        Ok(())
    }

    /// The end of the line: the bytes that waited, as [`write_line`] ends
    /// a line.
    fn finish(mut self) -> io::Result<()> {
        let body = match self.carry.strip_suffix(b"\n") {
            Some(b) => b.to_vec(),
            None => std::mem::take(&mut self.carry),
        };
        let (body, cr) = match body.strip_suffix(b"\r") {
            Some(b) => (b, true),
            None => (&body[..], false),
        };
        write_printable(self.out, &String::from_utf8_lossy(body))?;
        if cr {
            self.out.write_all("␍".as_bytes())?;
        }
        self.out.write_all(b"\n")
    }
}

impl Write for Printable<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.carry.extend_from_slice(buf);
        self.emit(self.carry.len().saturating_sub(2))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

fn write_printable(out: &mut dyn Write, text: &str) -> io::Result<()> {
    out.write_all(crate::report::printable(text).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff(a: &str, b: &str) -> String {
        let mut out = Vec::new();
        let changed =
            unified_diff(a.as_bytes(), b.as_bytes(), "a", "b", false, &mut out).expect("io");
        assert_eq!(changed, a != b);
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn diffs_show_changed_and_removed_lines_with_context() {
        let a: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let b = a
            .replace("l2\n", "L2\n")
            .replace("l15\n", "")
            .replace("l20\n", "l20");
        assert_eq!(
            diff(&a, &b),
            "--- a\n+++ b\n@@ -1,5 +1,5 @@\n l1\n-l2\n+L2\n l3\n l4\n l5\n\
             @@ -12,9 +12,8 @@\n l12\n l13\n l14\n-l15\n l16\n l17\n l18\n l19\n-l20\n+l20\n\\ No newline at end of file\n"
        );
        assert_eq!(diff(&a, &a), "");
        assert_eq!(diff("", "x\n"), "--- a\n+++ b\n@@ -0,0 +1,1 @@\n+x\n");
        assert_eq!(diff("x\n", ""), "--- a\n+++ b\n@@ -1,1 +0,0 @@\n-x\n");
    }

    #[test]
    fn diff_headers_quote_unusual_names_as_git_does() {
        for escape in [false, true] {
            let mut out = Vec::new();
            let name = "a\u{1b}]0;x\u{7}\r\n::error::b.csv";
            unified_diff(&b"a\n"[..], &b"b\n"[..], name, name, escape, &mut out).expect("io");
            let s = String::from_utf8(out).expect("utf-8");
            assert_eq!(
                s,
                "--- \"a\\033]0;x\\a\\r\\n::error::b.csv\"\n\
                 +++ \"a\\033]0;x\\a\\r\\n::error::b.csv\"\n@@ -1,1 +1,1 @@\n-a\n+b\n"
            );
        }
    }

    #[test]
    fn diffs_to_a_terminal_escape_control_characters() {
        let mut out = Vec::new();
        unified_diff(
            &b"a\x1b[2J\r\n"[..],
            &b"b\r\n"[..],
            "a",
            "b",
            true,
            &mut out,
        )
        .expect("io");
        let s = String::from_utf8(out).expect("utf-8");
        assert!(s.contains("-a\\x1b[2J␍\n+b␍\n"), "{s}");
    }
    /// A line as [`write_line`] writes it, whole.
    fn rendered(l: &[u8], escape: bool) -> Vec<u8> {
        let mut out = Vec::new();
        write_line(&mut out, l, escape).expect("io");
        out
    }

    #[test]
    fn long_lines_are_spilled_and_written_as_held_ones_are() {
        // Past the limit, with escapes, characters of two to four bytes
        // (cut anywhere between the pieces a copy writes), invalid UTF-8,
        // CR before LF, and a last line without one.
        let mut unit = Vec::new();
        unit.extend_from_slice("ab\u{1b}[2Jé€𝄞,\r".as_bytes());
        unit.extend_from_slice(b"\xff\xe2\x82 x\t");
        let long = |n: usize, end: &[u8]| {
            let mut l = Vec::new();
            while l.len() < LONG_LINE + n {
                l.extend_from_slice(&unit);
            }
            l.extend_from_slice(end);
            l
        };
        for (end_old, end_new) in [
            (&b"\r\n"[..], &b"\n"[..]),
            (b"\n", b""),
            (b"\xe2\x82", b"\r"),
        ] {
            let (l1, l2) = (long(5, end_old), long(11, end_new));
            let same = long(3, b"\n");
            for escape in [false, true] {
                let mut old = b"a\n".to_vec();
                old.extend_from_slice(&same);
                old.extend_from_slice(b"b\n");
                old.extend_from_slice(&l1);
                let mut new = b"a\n".to_vec();
                new.extend_from_slice(&same);
                new.extend_from_slice(b"B\n");
                new.extend_from_slice(&l2);
                let mut out = Vec::new();
                assert!(unified_diff(&old[..], &new[..], "a", "b", escape, &mut out).expect("io"));
                let mut want = b"--- a\n+++ b\n@@ -1,4 +1,4 @@\n a\n ".to_vec();
                want.extend(rendered(&same, escape));
                want.extend_from_slice(b"-b\n-");
                want.extend(rendered(&l1, escape));
                want.extend_from_slice(b"+B\n+");
                want.extend(rendered(&l2, escape));
                assert!(out == want, "escape {escape}, ends {end_old:?} {end_new:?}");
            }
        }
        // Equal long lines are equal, unequal ones of one length are not.
        let (a, mut b) = (long(0, b"\n"), long(0, b"\n"));
        let mut out = Vec::new();
        assert!(!unified_diff(&a[..], &b[..], "a", "b", false, &mut out).expect("io"));
        b[7] ^= 1;
        assert!(unified_diff(&a[..], &b[..], "a", "b", false, &mut out).expect("io"));
    }
}
