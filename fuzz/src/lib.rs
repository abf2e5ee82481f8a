//! The fuzz targets' entry points, in one place for the two builds that run
//! them: the cargo-fuzz binaries (`fuzz_targets/*.rs`, nightly, libFuzzer)
//! and the replay test of the main crate (`tests/it/fuzz_replay.rs` includes
//! this file as a module), which runs every corpus and regression file on
//! stable with `cargo test`. Each entry point takes arbitrary bytes and
//! panics on a bug: a panic in the library, or a broken invariant.
//!
//! Only the library's public API is used (and the `#[doc(hidden)]` hooks
//! of `bdxlint::check` for its private filter grammar), so this file builds
//! in either crate unchanged.

use bdxlint::check::{check_reader, FileReport, Options};
use bdxlint::diagnostic::Diagnostic;
use bdxlint::json::Doc;
use bdxlint::report::{render, HumanOptions, OutputFormat, Summary};
use std::sync::OnceLock;

/// A fuzz target's entry point.
pub type Target = fn(&[u8]);

/// Every target by name, as `fuzz/Cargo.toml` names its binaries and
/// `fuzz/corpus/<name>/` its corpus.
pub const TARGETS: &[(&str, Target)] = &[
    ("check_file", check_file),
    ("json_cell", json_cell),
    ("filter_grammar", filter_grammar),
    ("chunk_boundary", chunk_boundary),
    ("zip_bundle", zip_bundle),
    ("row_fix", row_fix),
];

/// A pool of `n` threads (1 or 2), built once. One thread takes the
/// sequential path of the chunk pipeline, two the parallel one; a pool per
/// input would cost more than the check.
fn pool(n: usize) -> &'static rayon::ThreadPool {
    static POOLS: [OnceLock<rayon::ThreadPool>; 2] = [OnceLock::new(), OnceLock::new()];
    let i = n.clamp(1, 2) - 1;
    POOLS[i].get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(i + 1)
            .build()
            .expect("a thread pool")
    })
}

/// The format byte `b` picks: every table in turn, and detection from the
/// header.
fn format_of(b: u8) -> Option<String> {
    let tables = bdxlint::schema::tables().expect("the compiled-in tables parse");
    let pick = usize::from(b) % (tables.len() + 1);
    tables.get(pick).map(|t| t.name.clone())
}

/// The chunk size of a whole-file check: one chunk holding the whole input,
/// as the default 1 MiB gives for any input under 1 MiB (the chunk reader
/// reads `chunk_size` bytes, then finds the end). Not 1 MiB itself: the
/// reader zeroes a buffer of the chunk size, and under the sanitizer a
/// megabyte per input was a fifth of the time of a run.
fn whole(data: &[u8]) -> usize {
    (data.len() + 1).min(1 << 20)
}

fn check(data: &[u8], format: Option<String>, chunk_size: usize) -> Result<FileReport, String> {
    let opts = Options {
        format,
        chunk_size,
        ..Options::default()
    };
    check_reader(data, "fuzz.csv", Some("fuzz.csv"), &opts).map_err(|e| e.to_string())
}

/// Findings must point into the input, at a real line and column.
fn assert_in_bounds(diags: &[Diagnostic], len: usize) {
    for d in diags {
        assert!(
            d.span.start <= d.span.end && d.span.end <= len as u64,
            "{} span {:?} outside {len} bytes",
            d.rule.code,
            d.span
        );
        assert!(
            d.line >= 1 && d.col >= 1,
            "{} at {}:{}",
            d.rule.code,
            d.line,
            d.col
        );
    }
}

/// Renders `reports` in every output format: arbitrary spans and messages
/// must not make a renderer panic, and every format is UTF-8 text.
fn render_all(reports: &[FileReport]) {
    let summary = Summary::of(reports, &[]);
    for format in OutputFormat::ALL {
        let mut out = Vec::new();
        render(
            &mut out,
            format,
            reports,
            &[],
            &summary,
            &HumanOptions::default(),
        )
        .expect("rendering to memory does not fail");
        assert!(
            std::str::from_utf8(&out).is_ok(),
            "{format:?} output is not UTF-8"
        );
    }
}

/// A whole-file check of arbitrary bytes: the first byte picks the format
/// (or detection), the rest is the file. Every output format renders it.
pub fn check_file(data: &[u8]) {
    let Some((&pick, file)) = data.split_first() else {
        return;
    };
    let r = pool(1).install(|| check(file, format_of(pick), whole(file)));
    if let Ok(r) = r {
        assert_in_bounds(&r.diagnostics, file.len());
        render_all(std::slice::from_ref(&r));
    }
}

/// The same file checked as one chunk (as at 1 MiB) on one thread and in chunks of
/// 1-64 bytes (first byte) on one or two threads must give the same
/// verdict and the same findings, byte for byte. The second byte picks the
/// format, as in [`check_file`].
pub fn chunk_boundary(data: &[u8]) {
    let [size, pick, file @ ..] = data else {
        return;
    };
    let small = usize::from(size % 64) + 1;
    let threads = usize::from(size / 64 % 2) + 1;
    let format = format_of(*pick);
    let reference = pool(1).install(|| check(file, format.clone(), whole(file)));
    let chunked = pool(threads).install(|| check(file, format, small));
    match (&reference, &chunked) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.format, b.format, "format, chunk size {small}");
            assert_eq!(a.records, b.records, "records, chunk size {small}");
            assert_eq!(
                a.diagnostics, b.diagnostics,
                "findings, chunk size {small}, {threads} threads"
            );
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "errors, chunk size {small}"),
        _ => panic!("chunk size {small}: one chunk gives {reference:?}, {small} bytes {chunked:?}"),
    }
}

/// `--fix` inside the check: the file checked in chunks of 1-32 or 64-2048
/// bytes (first byte) on one or two threads with its rows' safe fixes applied as
/// it goes, its output made from the chunks the check hands out. When no
/// safe fix is left in its findings (else the run fixes the rest in a pass
/// of its own) and no fix changed how the output is read (else the run
/// checks it anew), they must be, byte for byte, the findings of a check
/// of the output. The second byte picks the format, as in [`check_file`].
pub fn row_fix(data: &[u8]) {
    use bdxlint::check::{FixedChunks, RowFixes};
    use bdxlint::diagnostic::Applicability;
    use std::sync::{Arc, Mutex};

    /// The output, made in memory as the run makes it on disk: the source
    /// up to each chunk, then the chunk's bytes; and the input as the check
    /// read it, if it fixed the file's head first.
    struct Output {
        source: Vec<u8>,
        out: Arc<Mutex<Made>>,
    }
    /// The output so far, the source offset written up to, whether a fix
    /// was unsettling, and the input as the check read it after its head.
    type Made = (Vec<u8>, usize, bool, Option<Vec<u8>>);
    impl FixedChunks for Output {
        fn chunk(
            &mut self,
            base: u64,
            len: u64,
            bytes: &[u8],
            _changed: bool,
            _applied: &[(&'static bdxlint::rules::Rule, u32)],
            unsettling: bool,
        ) {
            let mut o = self.out.lock().expect("not poisoned");
            o.2 |= unsettling;
            let (base, len) = (base as usize, len as usize);
            assert!(
                o.1 <= base && base + len <= self.source.len(),
                "chunk {base}+{len} out of order"
            );
            let gap = self.source[o.1..base].to_vec();
            o.0.extend_from_slice(&gap);
            o.0.extend_from_slice(bytes);
            o.1 = base + len;
        }
        fn head(
            &mut self,
            len: u64,
            bytes: &[u8],
            applied: &[(&'static bdxlint::rules::Rule, u32)],
        ) {
            let mut read = bytes.to_vec();
            read.extend_from_slice(&self.source[len as usize..]);
            self.out.lock().expect("not poisoned").3 = Some(read);
            self.chunk(0, len, bytes, true, applied, false);
        }
    }

    let [size, pick, file @ ..] = data else {
        return;
    };
    // 1-32 bytes (a row a chunk) or 64-2048 (rows fixed before others in
    // one chunk).
    let small = (usize::from(size % 32) + 1) * if size & 32 == 0 { 1 } else { 64 };
    let threads = usize::from(size / 64 % 2) + 1;
    let format = format_of(*pick);
    let out = Arc::new(Mutex::new((Vec::new(), 0, false, None)));
    let opts = Options {
        format: format.clone(),
        chunk_size: small,
        row_fixes: Some(Arc::new(RowFixes::new(
            Box::new(|d: &Diagnostic| {
                d.fix
                    .as_ref()
                    .is_some_and(|f| f.applicability == Applicability::Safe)
            }),
            Box::new(Output {
                source: file.to_vec(),
                out: Arc::clone(&out),
            }),
        ))),
        ..Options::default()
    };
    let Ok(fixed) =
        pool(threads).install(|| check_reader(file, "fuzz.csv", Some("fuzz.csv"), &opts))
    else {
        return;
    };
    let left = fixed.diagnostics.iter().any(|d| {
        d.fix.as_ref().is_some_and(|f| {
            f.applicability == Applicability::Safe && (f.transform.is_some() || !f.edits.is_empty())
        })
    });
    let (output, unsettled, read) = {
        let mut o = out.lock().expect("not poisoned");
        let rest = file[o.1.min(file.len())..].to_vec();
        o.0.extend_from_slice(&rest);
        let read = o.3.take().unwrap_or_else(|| file.to_vec());
        (std::mem::take(&mut o.0), o.2, read)
    };
    // A fix that may change how the output is read (its encoding, its
    // dialect) makes the run check the output anew, as does one whose
    // output's first 64 KiB tell another reading than the input's as the
    // check read it (after its head's fixes).
    let head = |b: &[u8]| b[..b.len().min(bdxlint::check::dialect::HEAD_LEN)].to_vec();
    if left || unsettled || !bdxlint::check::reads_alike(&head(&read), &head(&output)) {
        return;
    }
    let checked = pool(1)
        .install(|| check(&output, format, whole(&output)))
        .expect("the fixed file checks as the original did");
    assert_eq!(fixed.records, checked.records, "records");
    assert_eq!(
        fixed.diagnostics, checked.diagnostics,
        "findings of the fixing check, chunk size {small}, {threads} threads, against those of its output"
    );
}

/// serde_json's verdict on `text` as JSON, when it is a true agreement to
/// expect: `None` where the two parsers differ by design. `IgnoredAny`
/// validates syntax only (no number ranges, no surrogate pairing, no depth
/// limit), which is what `Doc::parse` checks; our parser also refuses
/// nesting past `json::MAX_DEPTH`, which serde_json does not.
fn serde_verdict(text: &str) -> Option<bool> {
    if text.len() >= bdxlint::json::MAX_DEPTH {
        return None;
    }
    Some(serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok())
}

/// The crate's JSON parser against serde_json (accept or reject), and
/// against itself on the same text written inside a quoted CSV cell
/// (every `"` doubled): same verdict, same nodes, spans moved through the
/// escaping.
pub fn json_cell(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let ours = Doc::parse(text, Vec::new()).map_err(|(e, _)| e);
    if let Some(theirs) = serde_verdict(text) {
        assert_eq!(
            ours.is_ok(),
            theirs,
            "Doc::parse says {ours:?}, serde_json {theirs}"
        );
    }
    let raw = text.replace('"', "\"\"");
    let at = |offset: usize| bdxlint::scan::raw_offset(raw.as_bytes(), true, offset);
    let doubled = Doc::parse_as(&raw, true, Vec::new()).map_err(|(e, _)| e);
    match (&ours, &doubled) {
        (Ok(a), Ok(b)) => {
            let (na, nb) = (nodes(a), nodes(b));
            assert_eq!(na.len(), nb.len(), "node counts");
            for (&x, &y) in na.iter().zip(&nb) {
                let (p, q) = (a.node(x), b.node(y));
                assert_eq!(p.kind, q.kind);
                let s = p.span();
                assert_eq!(at(s.start)..at(s.end), q.span(), "span of node {x}");
                assert_eq!(
                    p.key_span().map(|s| at(s.start)..at(s.end)),
                    q.key_span(),
                    "key span of node {x}"
                );
                assert!(text.get(s).is_some(), "a span off a character boundary");
                assert_eq!(a.key(x), b.key(y), "key of node {x}");
                assert_eq!(a.str(x), b.str(y), "string of node {x}");
            }
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.message, b.message, "error messages");
            assert_eq!(at(a.offset), b.offset, "error offsets");
        }
        _ => panic!("plain {ours:?}, doubled {doubled:?}"),
    }
}

/// The nodes of `doc` in document order.
fn nodes(doc: &Doc<'_>) -> Vec<usize> {
    let mut out = Vec::new();
    let mut stack = vec![doc.root()];
    while let Some(id) = stack.pop() {
        out.push(id);
        let kids: Vec<usize> = doc.children(id).collect();
        stack.extend(kids.into_iter().rev());
    }
    out
}

/// The filter grammar (Filters `Value`) on arbitrary text, for a row of no
/// type and of each listed type: findings point into the text, on
/// character boundaries, and the same text in a quoted cell (quotes
/// doubled) gets the same findings at the escaped offsets.
pub fn filter_grammar(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let raw = text.replace('"', "\"\"");
    let at = |offset: usize| bdxlint::scan::raw_offset(raw.as_bytes(), true, offset);
    let types = bdxlint::check::filter_types();
    for ty in std::iter::once(None).chain(types.iter().copied().map(Some)) {
        let plain = bdxlint::check::filter_findings(text, false, ty);
        let doubled = bdxlint::check::filter_findings(&raw, true, ty);
        match (&plain, &doubled) {
            (Ok(a), Ok(b)) => {
                for (code, span) in a {
                    assert!(
                        text.get(span.clone()).is_some(),
                        "{code} span {span:?} is not a slice of {} bytes",
                        text.len()
                    );
                }
                let moved: Vec<_> = a
                    .iter()
                    .map(|(code, s)| (*code, at(s.start)..at(s.end)))
                    .collect();
                assert_eq!(&moved, b, "type {ty:?}: plain and doubled findings");
            }
            (Err(a), Err(b)) => assert_eq!(at(*a), *b, "error offsets"),
            _ => panic!("type {ty:?}: plain {plain:?}, doubled {doubled:?}"),
        }
    }
}

/// Arbitrary bytes as a `.zip` file, checked as a bundle (the archive is
/// sniffed, members inflated under limits, identified and checked), and
/// every report rendered.
pub fn zip_bundle(data: &[u8]) {
    let file = tempfile::Builder::new()
        .prefix("bdxlint-fuzz-")
        .suffix(".zip")
        .tempfile()
        .expect("a temporary file");
    std::fs::write(file.path(), data).expect("write the temporary file");
    // Small limits: a few kilobytes of input may not inflate to gigabytes
    // in every run, and the limits' own paths get exercised.
    let limits = bdxlint::bundle::Limits {
        max_member: 4 << 20,
        max_total: 16 << 20,
        max_ratio: 100,
    };
    let reports = pool(1).install(|| {
        bdxlint::bundle::check_zip(file.path(), None, &Options::default(), &limits, None, None)
    });
    if let Ok(reports) = reports {
        render_all(&reports);
    }
}
