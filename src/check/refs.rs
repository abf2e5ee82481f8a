//! References between files, the one engine: a cell that names a record
//! another file defines. Which cell refers to which key is table data, the
//! `[[references]]` entries of `rules/*.toml` (grammar in
//! `rules/README.md`); this module collects the keys each target file
//! holds and checks every referring cell against them.
//!
//! A reference's keys come from its `sources`: the CSV files of the run
//! (`run`), the other member of the ZIP bundle (`bundle`), or the files
//! given with `--entities`. A key no available source defines gets the
//! rule and message of the first available source that decides for the
//! row's type; where none does, the reference went unchecked, which the
//! table's `[[unchecked]]` entries say once a file, last.
//!
//! Two callers: the batch checks ([`super::batch`]) run the references of
//! formats that say nothing when unchecked, for every CSV file of the run
//! before any is checked; the formats with `[[unchecked]]` (relations)
//! have theirs checked in a second pass of the file after its own check,
//! on its own or as a ZIP bundle's member ([`check_references_into`]).
//!
//! Both passes stream, through the chunk reader, scanner and emitter of
//! the main check, so findings carry the same line, column and span as any
//! other cell finding. A target file is read into sets of 64-bit xxh3
//! fingerprints of its trimmed keys: 8 bytes in a hash set with a
//! pass-through hasher plus a control byte, 10-21 bytes a distinct key
//! (hashbrown keeps its load between 7/16 and 7/8). A key that a row
//! deletes, or a campaign a row publishes or drafts, also keeps where that
//! row is (file number and line, two `u32`), 19-39 bytes a key in each such
//! map. References that agree on target, key columns, case and deleting
//! rows share one set. The referring files keep nothing per row. A false
//! "defined" needs a 64-bit collision.

use super::chunk::{Cancellable, ChunkReader};
use super::cross::IdentityHasher;
use super::emit::{Emitter, Snippets};
use super::finding::{file_diag, rebase, Finding};
use super::options::Options;
use super::preamble::read_dialect;
use super::text::quote;
use crate::check::shapes::integration_ref_problem;
use crate::diagnostic::Diagnostic;
use crate::rules::Rule;
use crate::scan::{raw_offset, unescape, FieldSpan, Record};
use crate::schema::{
    self, normalize_name, KeySource, Part, Reference, SpanOf, Table, UncheckedMode, Values,
};
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;
use std::io::{self, Read};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use xxhash_rust::xxh3::xxh3_64;

/// Which keys a set holds: a target format's key column (and type column,
/// for a compound key), compared as the reference says, without the rows
/// `gone` drops.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Spec {
    pub(crate) target: &'static str,
    pub(crate) key: &'static str,
    pub(crate) type_key: Option<&'static str>,
    pub(crate) ignore_case: bool,
    pub(crate) gone: Option<&'static Values>,
    /// Every file of the target format is a source, one whose header lacks
    /// the key columns defining no key: so for references that say what
    /// went unchecked, for which such a file is no reason to be silent (it
    /// is broken, and its own check says so). A reference that says
    /// nothing when unchecked takes only files whose header has the key
    /// columns as sources: a file may leave an optional or undeclared key
    /// out when it creates records whose keys the platform assigns (new
    /// filters, the campaigns upload), and then nothing can be checked.
    any_file: bool,
}

impl Spec {
    pub(crate) fn of(r: &'static Reference) -> Spec {
        Spec {
            target: &r.target,
            key: &r.key,
            type_key: r.type_key.as_deref(),
            ignore_case: r.ignore_case,
            gone: r.gone.as_ref(),
            any_file: r.unchecked.is_some(),
        }
    }

    /// Keys compare trimmed, exactly unless `ignore_case` (then as the
    /// employees file's own unique check of Work Email compares them); the
    /// type of a compound key compares without case, as the enum shapes of
    /// the tables read types.
    pub(crate) fn fingerprint(&self, ty: Option<&str>, key: &str) -> u64 {
        let key = key.trim();
        match ty {
            None if self.ignore_case => xxh3_64(key.to_lowercase().as_bytes()),
            None => xxh3_64(key.as_bytes()),
            Some(ty) => {
                let ty = ty.trim();
                let mut buf = Vec::with_capacity(ty.len() + key.len() + 1);
                buf.extend(ty.bytes().map(|b| b.to_ascii_lowercase()));
                // A separator that cannot occur in a decoded cell's text
                // keeps ("ab", "c") and ("a", "bc") apart.
                buf.push(0);
                if self.ignore_case {
                    buf.extend_from_slice(key.to_lowercase().as_bytes());
                } else {
                    buf.extend_from_slice(key.as_bytes());
                }
                xxh3_64(&buf)
            }
        }
    }

    /// The key as a near miss compares: without case and without any
    /// whitespace, so that `Role-Admin`, `role- admin` and `role-admin`
    /// are one. Only a key [`Spec::fingerprint`] did not find is looked up
    /// so, to say which defined key it probably means.
    pub(crate) fn loose_fingerprint(&self, ty: Option<&str>, key: &str) -> u64 {
        let mut buf = Vec::with_capacity(key.len() + ty.map_or(0, str::len) + 1);
        if let Some(ty) = ty {
            buf.extend(ty.trim().bytes().map(|b| b.to_ascii_lowercase()));
            buf.push(0);
        }
        for c in key
            .chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_lowercase)
        {
            let mut b = [0u8; 4];
            buf.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
        }
        xxh3_64(&buf)
    }
}

type FpSet = HashSet<u64, BuildHasherDefault<IdentityHasher>>;
/// Fingerprint -> (defining file number, line).
type Places = HashMap<u64, (u32, u32), BuildHasherDefault<IdentityHasher>>;

/// The keys of one [`Spec`] that the files of one source hold.
#[derive(Debug, Default)]
pub(crate) struct KeySet {
    /// Some file read is a source for the spec (see [`Spec::any_file`]);
    /// with none, the references to the set are not checked.
    pub(crate) defined: bool,
    /// Keys some row creates or updates.
    kept: FpSet,
    /// The same keys as [`Spec::loose_fingerprint`] reads them, and where
    /// the first row of each is: a "did you mean" for a reference that
    /// differs from a defined key only in case or spaces.
    loose: Places,
    /// Keys a `gone` row deletes, and where the first such row is.
    removed: Places,
    /// Batch state rules, campaigns: keys a row publishes, and where the
    /// first such row is.
    published: Places,
    /// Batch state rules, campaigns: keys a row writes as a draft, and
    /// where the first such row is.
    drafted: Places,
}

pub(crate) enum Found {
    Kept {
        published: Option<(u32, u32)>,
        drafted: Option<(u32, u32)>,
    },
    Removed((u32, u32)),
    Absent,
}

impl KeySet {
    fn add(&mut self, key: u64, loose: u64, removed: bool, published: bool, at: (u32, u32)) {
        if removed {
            self.removed.entry(key).or_insert(at);
        } else {
            self.kept.insert(key);
            self.loose.entry(loose).or_insert(at);
            if published {
                self.published.entry(key).or_insert(at);
            }
        }
    }

    /// A row writing the key as a draft. Only the first such row is kept:
    /// one is enough to name in a finding.
    fn add_draft(&mut self, key: u64, at: (u32, u32)) {
        self.drafted.entry(key).or_insert(at);
    }

    /// A key both kept and deleted (two rows) counts as kept: the finding
    /// would be about the contradiction, which is not this module's.
    pub(crate) fn find(&self, key: u64) -> Found {
        if self.kept.contains(&key) {
            Found::Kept {
                published: self.published.get(&key).copied(),
                drafted: self.drafted.get(&key).copied(),
            }
        } else if let Some(at) = self.removed.get(&key) {
            Found::Removed(*at)
        } else {
            Found::Absent
        }
    }

    /// Where the first row of a kept key that reads as `loose` is.
    pub(crate) fn near(&self, loose: u64) -> Option<(u32, u32)> {
        self.loose.get(&loose).copied()
    }

    fn merge(&mut self, other: KeySet) {
        self.defined |= other.defined;
        self.kept.extend(other.kept);
        for (k, v) in other.loose {
            self.loose.entry(k).or_insert(v);
        }
        for (k, v) in other.removed {
            self.removed.entry(k).or_insert(v);
        }
        for (k, v) in other.published {
            self.published.entry(k).or_insert(v);
        }
        for (k, v) in other.drafted {
            self.drafted.entry(k).or_insert(v);
        }
    }

    fn len(&self) -> usize {
        self.kept.len()
    }
}

/// The keys one source holds: a set per key spec, and the display paths
/// of the files read, by file number (for messages naming a row).
#[derive(Debug, Default)]
pub struct Keys {
    sets: Vec<(Spec, KeySet)>,
    files: Vec<String>,
}

impl Keys {
    pub(crate) fn get(&self, spec: &Spec) -> Option<&KeySet> {
        self.sets.iter().find(|(s, _)| s == spec).map(|(_, k)| k)
    }

    /// Adds the sets of one file, read with `specs` (in that order).
    pub(crate) fn merge(&mut self, specs: &[Spec], sets: Vec<KeySet>) {
        for (spec, set) in specs.iter().zip(sets) {
            match self.sets.iter_mut().find(|(s, _)| s == spec) {
                Some((_, into)) => into.merge(set),
                None => self.sets.push((*spec, set)),
            }
        }
    }

    pub(crate) fn add_file(&mut self, display: String) {
        self.files.push(display);
    }

    /// `path line N`, for messages naming a defining row.
    pub(crate) fn place(&self, (file, line): (u32, u32)) -> String {
        let path = self.files.get(file as usize).map_or("?", String::as_str);
        format!("{path} line {line}")
    }

    /// Distinct keys held, over every set (for tests and sizes).
    pub fn len(&self) -> usize {
        self.sets.iter().map(|(_, s)| s.len()).sum()
    }

    /// Whether no key was collected.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where a file's references find their keys.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RefSources<'a> {
    /// The CSV files of the run.
    pub(crate) run: Option<&'a Keys>,
    /// The other member of the ZIP bundle the file is a member of.
    pub(crate) bundle: Option<&'a Keys>,
    /// The files given with `--entities`.
    pub(crate) entities: Option<&'a Keys>,
}

impl<'a> RefSources<'a> {
    fn of(&self, from: KeySource) -> Option<&'a Keys> {
        match from {
            KeySource::Run => self.run,
            KeySource::Bundle => self.bundle,
            KeySource::EntitiesFlag => self.entities,
        }
    }
}

/// What a collecting pass also keeps of a target row beyond its key, for
/// the batch state rules: the header columns it reads, and whether a row
/// (`removed` when `gone` drops it) publishes and drafts its key.
pub(crate) struct Marker<'a> {
    pub(crate) columns: &'a [&'a str],
    #[allow(clippy::type_complexity)]
    pub(crate) mark: &'a dyn Fn(&[u8], &Record, &[Option<usize>], bool) -> (bool, bool),
}

/// Header names to stream, each once; `add` returns a name's index.
#[derive(Default)]
struct Wanted<'a>(Vec<&'a str>);

impl<'a> Wanted<'a> {
    fn add(&mut self, name: &'a str) -> usize {
        match self.0.iter().position(|n| *n == name) {
            Some(i) => i,
            None => {
                self.0.push(name);
                self.0.len() - 1
            }
        }
    }
}

/// The decoded, trimmed-non-empty text of column `col` of `rec`.
pub(crate) fn filled<'r>(
    data: &[u8],
    rec: &'r Record,
    col: Option<usize>,
) -> Option<(String, &'r FieldSpan)> {
    let f = rec.fields.get(col?)?;
    let text = cell(data, f);
    (!text.trim().is_empty()).then_some((text, f))
}

/// Whether column `col` of `rec` holds one of `values`.
fn matches(data: &[u8], rec: &Record, col: Option<usize>, values: &Values) -> bool {
    filled(data, rec, col).is_some_and(|(t, _)| values.matches(&t))
}

fn saturate(line: u64) -> u32 {
    u32::try_from(line).unwrap_or(u32::MAX)
}

/// Reads the keys one target file holds for each of `specs` (the marked
/// ones also keep what `marker` says of their rows); `file` numbers it for
/// messages.
pub(crate) fn collect<R: Read>(
    reader: R,
    opts: &Options,
    file: u32,
    specs: &[(Spec, bool)],
    marker: Option<&Marker<'_>>,
) -> io::Result<Vec<KeySet>> {
    let mut sets: Vec<KeySet> = specs.iter().map(|_| KeySet::default()).collect();
    let mut wanted = Wanted::default();
    // (key, type, gone) columns of each spec.
    let cols_of: Vec<(usize, Option<usize>, Option<usize>)> = specs
        .iter()
        .map(|(s, _)| {
            (
                wanted.add(s.key),
                s.type_key.map(|t| wanted.add(t)),
                s.gone.map(|g| wanted.add(&g.column)),
            )
        })
        .collect();
    let marks: Option<(Vec<usize>, &Marker<'_>)> =
        marker.map(|m| (m.columns.iter().map(|c| wanted.add(c)).collect(), m));
    let (_, header) = stream_with_columns(reader, opts, &wanted.0, |emit, rec, c| {
        let at = (file, saturate(rec.line));
        for (n, &(key, ty, gone)) in cols_of.iter().enumerate() {
            let (spec, marked) = &specs[n];
            let Some((text, _)) = filled(emit.data, rec, c[key]) else {
                continue;
            };
            let ty = match ty {
                Some(t) => {
                    let Some(f) = c[t].and_then(|i| rec.fields.get(i)) else {
                        continue;
                    };
                    Some(cell(emit.data, f))
                }
                None => None,
            };
            let removed = match (spec.gone, gone) {
                (Some(values), Some(col)) => matches(emit.data, rec, c[col], values),
                _ => false,
            };
            let fp = spec.fingerprint(ty.as_deref(), &text);
            let loose = spec.loose_fingerprint(ty.as_deref(), &text);
            let set = &mut sets[n];
            match (&marks, marked) {
                (Some((mc, m)), true) => {
                    let cols: Vec<Option<usize>> = mc.iter().map(|&i| c[i]).collect();
                    let (published, drafted) = (m.mark)(emit.data, rec, &cols, removed);
                    set.add(fp, loose, removed, published, at);
                    if drafted {
                        set.add_draft(fp, at);
                    }
                }
                _ => set.add(fp, loose, removed, false, at),
            }
        }
    })?;
    for (n, &(key, ty, _)) in cols_of.iter().enumerate() {
        let has = header
            .as_ref()
            .is_some_and(|h| h[key].is_some() && ty.is_none_or(|t| h[t].is_some()));
        sets[n].defined = has || specs[n].0.any_file;
    }
    Ok(sets)
}

/// The specs the references of `formats` read from `from`, each once.
fn specs_from(formats: &[&str], from: KeySource, target: Option<&str>) -> Vec<Spec> {
    let mut out: Vec<Spec> = Vec::new();
    for f in formats {
        let Some(table) = schema::table(f).ok().flatten() else {
            continue;
        };
        for r in &table.references {
            if r.sources.iter().any(|s| s.from == from) && target.is_none_or(|t| t == r.target) {
                let spec = Spec::of(r);
                if !out.contains(&spec) {
                    out.push(spec);
                }
            }
        }
    }
    out
}

/// Whether `format`'s references are checked in a pass of their own after
/// the file's check (a format whose table says what went unchecked), not
/// with the batch.
pub(crate) fn checked_after(format: &str) -> bool {
    schema::table(format)
        .ok()
        .flatten()
        .is_some_and(|t| !t.unchecked.is_empty())
}

/// Every format [`checked_after`].
pub fn formats_checked_after() -> Vec<&'static str> {
    schema::tables()
        .map(|ts| {
            ts.iter()
                .filter(|t| !t.unchecked.is_empty())
                .map(|t| t.name.as_str())
                .collect()
        })
        .unwrap_or_default()
}

/// Adds the keys an `--entities` file holds, for every reference that
/// reads that source, to `keys`.
pub fn collect_entities<R: Read>(reader: R, opts: &Options, keys: &mut Keys) -> io::Result<()> {
    let all: Vec<&str> = schema::format_names().collect();
    let specs = specs_from(&all, KeySource::EntitiesFlag, None);
    let marked: Vec<(Spec, bool)> = specs.iter().map(|s| (*s, false)).collect();
    let sets = collect(reader, opts, keys.files.len() as u32, &marked, None)?;
    keys.merge(&specs, sets);
    Ok(())
}

/// The keys a bundle member of format `member` holds for the references
/// of `referring` (the other member's format) that read the bundle.
pub(crate) fn collect_bundle<R: Read>(
    reader: R,
    opts: &Options,
    referring: &str,
    member: &str,
) -> io::Result<Keys> {
    let specs = specs_from(&[referring], KeySource::Bundle, Some(member));
    let marked: Vec<(Spec, bool)> = specs.iter().map(|s| (*s, false)).collect();
    let mut keys = Keys::default();
    let sets = collect(reader, opts, 0, &marked, None)?;
    keys.merge(&specs, sets);
    Ok(keys)
}

/// The keys the run's CSV `files` (path and format) hold for the
/// references of `referring` formats [`checked_after`] that read the run.
/// `None` when a file cannot be read (its own check reports that; a
/// partial set would make false findings) or nothing needs reading.
pub(crate) fn collect_run(
    files: &[(&Path, &str)],
    referring: &[&str],
    opts: &Options,
) -> Option<Keys> {
    let after: Vec<&str> = referring
        .iter()
        .copied()
        .filter(|f| checked_after(f))
        .collect();
    let mut keys = Keys::default();
    let mut any = false;
    for (path, format) in files {
        // Only a file something refers to is opened.
        if specs_from(&after, KeySource::Run, Some(format)).is_empty() {
            continue;
        }
        let file = std::fs::File::open(path).ok()?;
        let display = path.display().to_string();
        any |= collect_run_file(file, opts, &display, format, &after, &mut keys).ok()?;
    }
    any.then_some(keys)
}

/// Adds to `keys` what one CSV file of the run, of `format`, holds for the
/// references of `referring` formats [`checked_after`] that read the run.
/// Returns whether the file was read (whether anything refers to its
/// format).
pub fn collect_run_file<R: Read>(
    reader: R,
    opts: &Options,
    display: &str,
    format: &str,
    referring: &[&str],
    keys: &mut Keys,
) -> io::Result<bool> {
    let referring: Vec<&str> = referring
        .iter()
        .copied()
        .filter(|f| checked_after(f))
        .collect();
    let mine = specs_from(&referring, KeySource::Run, Some(format));
    if mine.is_empty() {
        return Ok(false);
    }
    let marked: Vec<(Spec, bool)> = mine.iter().map(|s| (*s, false)).collect();
    let sets = collect(reader, opts, keys.files.len() as u32, &marked, None)?;
    keys.add_file(display.to_owned());
    keys.merge(&mine, sets);
    Ok(true)
}

/// One `[[references]]` entry a referring file is checked for.
#[derive(Clone, Copy)]
pub(crate) struct Active {
    pub(crate) reference: &'static Reference,
    /// The referring column's name, as findings name it.
    pub(crate) column: &'static str,
    /// The referring type column's name, for a compound key.
    pub(crate) type_column: Option<&'static str>,
    pub(crate) spec: Spec,
    /// The batch state rules ride on this reference's found keys.
    pub(crate) state: bool,
}

impl Active {
    pub(crate) fn of(table: &'static Table, reference: &'static Reference) -> Active {
        Active {
            reference,
            column: &table.columns[reference.column].name,
            type_column: reference
                .type_column
                .map(|t| table.columns[t].name.as_str()),
            spec: Spec::of(reference),
            state: false,
        }
    }
}

/// Where a reference finding points: `span`, inside field `f` of `column`.
pub(crate) struct At<'a> {
    pub(crate) f: &'a FieldSpan,
    pub(crate) span: Range<usize>,
    pub(crate) column: &'a str,
}

/// A finding of `rule` at `at`; `severity` `None` keeps the rule's default.
pub(crate) fn report(
    emit: &mut Emitter<'_>,
    rule: &'static Rule,
    severity: Option<crate::diagnostic::Severity>,
    at: &At<'_>,
    message: String,
    help: String,
) {
    emit.report_in(
        at.span.clone(),
        at.f,
        Finding::new(rule, message)
            .severity(severity)
            .help(help)
            .column(Some(Arc::from(at.column))),
    );
}

/// What the batch state rules do with the keys a file's references find.
pub(crate) trait Hook {
    /// Header columns the hook reads.
    fn columns(&self) -> &[&'static str];
    /// Each row, before its references, with the hook's columns.
    fn row(&mut self, data: &[u8], rec: &Record, cols: &[Option<usize>]);
    /// A key a `state` reference found kept in the run's `keys`.
    fn kept(&mut self, emit: &mut Emitter<'_>, at: &At<'_>, key: &str, found: Found, keys: &Keys);
}

/// What went unchecked in one file, per target (in first-met order): the
/// file as a whole, or cells counted.
#[derive(Debug, Default)]
struct Left {
    targets: Vec<(&'static str, bool, u64)>,
}

impl Left {
    fn whole(&mut self, target: &'static str) {
        match self.targets.iter_mut().find(|(t, ..)| *t == target) {
            Some(e) => e.1 = true,
            None => self.targets.push((target, true, 0)),
        }
    }

    fn count(&mut self, target: &'static str) {
        match self.targets.iter_mut().find(|(t, ..)| *t == target) {
            Some(e) => e.2 += 1,
            None => self.targets.push((target, false, 1)),
        }
    }
}

/// Checks the references `refs` of one referring file against `src`,
/// handing each chunk's findings to `sink` in file order. Returns what
/// went unchecked.
fn check_into<R: Read>(
    reader: R,
    opts: &Options,
    refs: &[Active],
    src: &RefSources<'_>,
    mut hook: Option<&mut dyn Hook>,
    sink: &mut dyn FnMut(Diagnostic),
) -> io::Result<Left> {
    let mut left = Left::default();
    let mut wanted = Wanted::default();
    struct Plan<'r> {
        a: &'r Active,
        col: usize,
        ty: Option<usize>,
        skip: Option<usize>,
        when: Option<usize>,
        /// Per source of the reference, its set when available.
        sets: Vec<Option<&'r KeySet>>,
    }
    let mut plans: Vec<Plan<'_>> = Vec::new();
    for a in refs {
        let r = a.reference;
        let sets: Vec<Option<&KeySet>> = r
            .sources
            .iter()
            .map(|s| {
                src.of(s.from)
                    .and_then(|k| k.get(&a.spec))
                    .filter(|k| k.defined)
            })
            .collect();
        if sets.iter().all(Option::is_none) {
            match r.unchecked {
                // Nothing can be checked, and nothing is said: running a
                // single file is the common case.
                None => continue,
                Some(UncheckedMode::File) => {
                    left.whole(a.spec.target);
                    continue;
                }
                // Each cell is counted.
                Some(UncheckedMode::Count) => {}
            }
        }
        let skip = r.skip.as_ref().map(|s| wanted.add(&s.column));
        let when = r.when.as_ref().map(|s| wanted.add(&s.column));
        let ty = a.type_column.map(|t| wanted.add(t));
        plans.push(Plan {
            a,
            col: wanted.add(a.column),
            ty,
            skip,
            when,
            sets,
        });
    }
    if plans.is_empty() {
        return Ok(left);
    }
    let hook_cols: Option<Vec<usize>> = hook
        .as_ref()
        .map(|h| h.columns().iter().map(|c| wanted.add(c)).collect());
    let run = src.run;
    stream_into(
        reader,
        opts,
        &wanted.0,
        |emit, rec, c| {
            if let (Some(h), Some(hc)) = (hook.as_mut(), &hook_cols) {
                let cols: Vec<Option<usize>> = hc.iter().map(|&i| c[i]).collect();
                h.row(emit.data, rec, &cols);
            }
            for p in &plans {
                let r = p.a.reference;
                if let (Some(values), Some(skip)) = (&r.skip, p.skip) {
                    if matches(emit.data, rec, c[skip], values) {
                        continue;
                    }
                }
                if let (Some(values), Some(when)) = (&r.when, p.when) {
                    if !matches(emit.data, rec, c[when], values) {
                        continue;
                    }
                }
                let Some((text, f)) = filled(emit.data, rec, c[p.col]) else {
                    continue;
                };
                let ty = match p.ty {
                    None => None,
                    // An empty required cell is the main check's finding.
                    Some(t) => match filled(emit.data, rec, c[t]) {
                        Some((ty, _)) => Some(ty),
                        None => continue,
                    },
                };
                let ty = ty.as_deref();
                for (from, to) in elements(&text, r.list) {
                    let value = &text[from..to];
                    let Some((start, end)) = key_of(value, r.part) else {
                        continue;
                    };
                    let key = &value[start..end];
                    let at = At {
                        f,
                        span: match r.span {
                            SpanOf::Key => part_span(emit.data, f, from + start, from + end),
                            SpanOf::Cell => {
                                let (s, e) = f.content();
                                s..e
                            }
                        },
                        column: p.a.column,
                    };
                    let fp = p.a.spec.fingerprint(ty, key);
                    let mut removed = None;
                    let mut kept = None;
                    for (i, set) in p.sets.iter().enumerate() {
                        let Some(set) = set else { continue };
                        match set.find(fp) {
                            Found::Kept { published, drafted } => {
                                kept = Some((i, Found::Kept { published, drafted }));
                                break;
                            }
                            Found::Removed(first) => {
                                removed.get_or_insert((i, first));
                            }
                            Found::Absent => {}
                        }
                    }
                    if let Some((i, found)) = kept {
                        if let (true, Some(h), Some(keys)) = (p.a.state, hook.as_mut(), run) {
                            if r.sources[i].from == KeySource::Run {
                                h.kept(emit, &at, key, found, keys);
                            }
                        }
                        continue;
                    }
                    let fill = |m: &str, place: Option<&str>| render(m, key, value, ty, place);
                    let (rule, message, help) = if let Some((i, first)) = removed {
                        // Only a `run` source has a `gone`, and rows of its
                        // files are what remove a key.
                        let place = run.map_or_else(String::new, |k| k.place(first));
                        let (m, h) = (
                            r.gone_message.as_deref().unwrap_or_default(),
                            r.gone_help.as_deref().unwrap_or_default(),
                        );
                        (
                            r.sources[i].rule,
                            fill(m, Some(&place)),
                            fill(h, Some(&place)),
                        )
                    } else {
                        let decides = r
                            .sources
                            .iter()
                            .zip(&p.sets)
                            .find(|(s, set)| set.is_some() && s.covers(ty));
                        match decides {
                            Some((s, _)) => {
                                let mut message = fill(&s.message, None);
                                let loose = p.a.spec.loose_fingerprint(ty, key);
                                let near = r.sources.iter().zip(&p.sets).find_map(|(s, set)| {
                                    Some((s.from, set.as_ref()?.near(loose)?))
                                });
                                if let Some((from, at)) = near {
                                    let place = match (from, run) {
                                        (KeySource::Run, Some(k)) => k.place(at),
                                        _ => {
                                            format!("line {} of the {} CSV", at.1, p.a.spec.target)
                                        }
                                    };
                                    message.push_str(&format!(
                                        "; did you mean the `{}` of {place}? It differs from this one only in case or spaces",
                                        p.a.spec.key
                                    ));
                                }
                                (s.rule, message, fill(&s.help, None))
                            }
                            None => {
                                match r.unchecked {
                                    Some(UncheckedMode::File) => left.whole(p.a.spec.target),
                                    Some(UncheckedMode::Count) => left.count(p.a.spec.target),
                                    None => {}
                                }
                                continue;
                            }
                        }
                    };
                    report(emit, rule, None, &at, message, help);
                }
            }
        },
        &mut *sink,
    )?;
    Ok(left)
}

/// The index of each wanted column in the header, `None` where it lacks it.
pub(crate) type Columns = Vec<Option<usize>>;

/// Streams every record after the header, with the cells of `wanted`
/// columns (by header name) resolved to indexes: `f` gets the chunk's
/// emitter, the record and the indexes (`None` where the header lacks a
/// column). Also returns the indexes (`None` for a file without a header
/// row): a caller may need to know that a column exists even when no row
/// follows.
pub(crate) fn stream_with_columns<R: Read>(
    reader: R,
    opts: &Options,
    wanted: &[&str],
    f: impl FnMut(&mut Emitter<'_>, &Record, &[Option<usize>]),
) -> io::Result<(Vec<Diagnostic>, Option<Columns>)> {
    let mut out = Vec::new();
    let cols = stream_into(reader, opts, wanted, f, &mut |d| out.push(d))?;
    Ok((out, cols))
}

/// [`stream_with_columns`], handing each chunk's findings to `sink` in file
/// order as the chunk is done, so that memory does not grow with them.
pub(crate) fn stream_into<R: Read>(
    reader: R,
    opts: &Options,
    wanted: &[&str],
    mut f: impl FnMut(&mut Emitter<'_>, &Record, &[Option<usize>]),
    sink: &mut dyn FnMut(Diagnostic),
) -> io::Result<Option<Columns>> {
    let reader = Cancellable::new(reader, opts);
    let (dialect, reader) = read_dialect(reader)?;
    let mut chunks = ChunkReader::new(reader, opts.chunk_size, opts.max_record_bytes);
    let mut cols: Option<Columns> = None;
    let mut line = 1 + dialect.skip_lines;
    let mut rec = Record::default();
    // The header's field count.
    let mut width = 0;
    while let Some(chunk) = chunks.next_chunk()? {
        let data = chunk.data.as_slice();
        // A BOM and a `sep=` line are skipped as the check skips them (a
        // chunk may hold nothing else).
        let skip = usize::try_from((dialect.skip as u64).saturating_sub(chunk.base)).unwrap_or(0);
        let mut scanner = dialect.scanner(data, skip.min(data.len()), line);
        let mut emit = Emitter::new(data, Snippets::of(opts));
        while scanner.next_record(&mut rec) {
            match &cols {
                None => {
                    width = rec.fields.len();
                    // The names as the check reads them, compared as
                    // detection compares them.
                    let names: Vec<String> = super::header::read_header(data, &rec)
                        .names
                        .iter()
                        .map(|n| normalize_name(n))
                        .collect();
                    cols = Some(
                        wanted
                            .iter()
                            .map(|w| {
                                let w = normalize_name(w);
                                names.iter().position(|n| *n == w)
                            })
                            .collect(),
                    );
                }
                // A ragged row's cells may have shifted (the main check
                // reports its field count): a key or reference read from it
                // would be another column's value.
                Some(_) if rec.fields.len() != width => {}
                Some(c) => f(&mut emit, &rec, c),
            }
        }
        line = scanner.line();
        for d in emit.diags {
            sink(rebase(d, chunk.base));
        }
    }
    Ok(cols)
}

/// A cell's decoded text (lossy: an invalid byte is reported by the main
/// check, and here only makes a key that matches nothing).
pub(crate) fn cell(data: &[u8], f: &FieldSpan) -> String {
    let (s, e) = f.content();
    let raw = String::from_utf8_lossy(&data[s..e]);
    unescape(&raw, f.escapes).into_owned()
}

/// Checks the references `refs` of one file for the batch: nothing is
/// said of what went unchecked (those formats have no `[[unchecked]]`).
pub(crate) fn check_batch_file<R: Read>(
    reader: R,
    opts: &Options,
    refs: &[Active],
    run: &Keys,
    hook: Option<&mut dyn Hook>,
    sink: &mut dyn FnMut(Diagnostic),
) -> io::Result<()> {
    let src = RefSources {
        run: Some(run),
        ..RefSources::default()
    };
    check_into(reader, opts, refs, &src, hook, sink).map(|_| ())
}

/// Checks the references of a file of `format` in the pass after its own
/// check (a format [`checked_after`]; nothing for others), handing the
/// findings to `sink` as each chunk is done, in file order; the table's
/// one info on what went unchecked comes last (it is known only at the
/// end).
pub(crate) fn check_references_into<R: Read>(
    reader: R,
    opts: &Options,
    format: &str,
    src: RefSources<'_>,
    sink: &mut dyn FnMut(Diagnostic),
) -> io::Result<()> {
    let Some(table) = schema::table(format).ok().flatten() else {
        return Ok(());
    };
    let refs: Vec<Active> = table
        .references
        .iter()
        .map(|r| Active::of(table, r))
        .collect();
    let left = check_into(reader, opts, &refs, &src, None, &mut *sink)?;
    let mut targets: Vec<&str> = Vec::new();
    let mut count = 0;
    for &(target, whole, n) in &left.targets {
        if whole || n > 0 {
            targets.push(target);
            count += n;
        }
    }
    if targets.is_empty() {
        return Ok(());
    }
    targets.sort_unstable();
    let said = table.unchecked.iter().find(|u| {
        let mut t: Vec<&str> = u.targets.iter().map(String::as_str).collect();
        t.sort_unstable();
        t == targets
    });
    // The table parser sees to an entry for every combination.
    if let Some(u) = said {
        let message = render_count(&u.message, count);
        let help = render_count(&u.help, count);
        sink(file_diag(u.rule, 0..0, message, &help));
    }
    Ok(())
}

/// Checks the references of a file of `format`, returning the findings in
/// position order (the info on what went unchecked last).
#[cfg(test)]
pub(crate) fn check_references<R: Read>(
    reader: R,
    opts: &Options,
    format: &str,
    src: RefSources<'_>,
) -> io::Result<Vec<Diagnostic>> {
    let mut found = Vec::new();
    check_references_into(reader, opts, format, src, &mut |d| found.push(d))?;
    Ok(found)
}

/// An `[[unchecked]]` template with its count filled: `{count}`, and `{s}`
/// and `{was}` agreeing with it.
fn render_count(template: &str, n: u64) -> String {
    let one = n == 1;
    template
        .replace("{count}", &n.to_string())
        .replace("{s}", if one { "" } else { "s" })
        .replace("{was}", if one { "was" } else { "were" })
}

/// File span of bytes `from..to` of a cell's decoded text. A cell that is
/// not valid UTF-8 decodes with replacement characters, which shift
/// offsets: the whole cell is pointed at then.
fn part_span(data: &[u8], f: &FieldSpan, from: usize, to: usize) -> Range<usize> {
    let (a, b) = f.content();
    let raw = &data[a..b];
    if std::str::from_utf8(raw).is_err() {
        return a..b;
    }
    a + raw_offset(raw, f.escapes, from)..a + raw_offset(raw, f.escapes, to)
}

/// `(start, end)` of each trimmed, non-empty element of a comma-separated
/// list, braces dropped (a list written with braces is the cell check's
/// finding, not a reason to miss its references).
fn list_elements(text: &str) -> Vec<(usize, usize)> {
    let t = text.trim_end();
    let (inner, base) = match t.trim_start().strip_prefix('{') {
        Some(rest) => {
            let start = t.len() - rest.len();
            (rest.strip_suffix('}').unwrap_or(rest), start)
        }
        None => (t, 0),
    };
    let mut out = Vec::new();
    let mut pos = base;
    for part in inner.split(',') {
        let lead = part.len() - part.trim_start().len();
        let el = part.trim();
        if !el.is_empty() {
            out.push((pos + lead, pos + lead + el.len()));
        }
        pos += part.len() + 1;
    }
    out
}

/// `(start, end)` of the values a referring cell holds: each element of a
/// list, or the trimmed cell.
fn elements(text: &str, list: bool) -> Vec<(usize, usize)> {
    if list {
        return list_elements(text);
    }
    let lead = text.len() - text.trim_start().len();
    vec![(lead, lead + text.trim().len())]
}

/// The key a value names, as `(start, end)` inside the value: all of it,
/// or the part `part` says. `None`: the value is malformed for its part,
/// which the cell check reports (`invalid-integration-ref`), so there is no
/// key to look up.
fn key_of(value: &str, part: Option<Part>) -> Option<(usize, usize)> {
    match part {
        None => Some((0, value.len())),
        Some(Part::IntegrationId) => {
            if integration_ref_problem(value).is_some() {
                return None;
            }
            let (_, id) = value.split_once('/')?;
            Some((value.len() - id.len(), value.len()))
        }
    }
}

/// A message template of a `[[references]]` entry with its placeholders
/// filled, in one pass (a value that happens to contain `{place}` stays as
/// written).
fn render(template: &str, key: &str, cell: &str, ty: Option<&str>, place: Option<&str>) -> String {
    let mut out = String::with_capacity(template.len() + key.len() + cell.len());
    let mut rest = template;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let (fill, len) = if tail.starts_with("{value}") {
            (quote(key), "{value}".len())
        } else if tail.starts_with("{cell}") {
            (quote(cell), "{cell}".len())
        } else if tail.starts_with("{key}") {
            (key.to_owned(), "{key}".len())
        } else if let (true, Some(ty)) = (tail.starts_with("{type}"), ty) {
            (ty.trim().to_owned(), "{type}".len())
        } else if let (true, Some(place)) = (tail.starts_with("{place}"), place) {
            (place.to_owned(), "{place}".len())
        } else {
            // The table parser admits no other brace; kept as text.
            ("{".to_owned(), 1)
        };
        out.push_str(&fill);
        rest = &tail[len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> Options {
        Options {
            snippets: false,
            ..Options::default()
        }
    }

    #[test]
    fn list_elements_trim_and_skip_braces_and_empties() {
        let t = "flt-1, flt-2,,flt-3 ";
        let els: Vec<&str> = list_elements(t).iter().map(|&(a, b)| &t[a..b]).collect();
        assert_eq!(els, ["flt-1", "flt-2", "flt-3"]);
        let t = " {a, b}";
        let els: Vec<&str> = list_elements(t).iter().map(|&(a, b)| &t[a..b]).collect();
        assert_eq!(els, ["a", "b"]);
    }

    #[test]
    fn values_and_keys_are_cut_as_the_cell_checks_read_them() {
        let t = "  Q2 review ";
        assert_eq!(elements(t, false), [(2, 11)]);
        let t = " {a, b}";
        assert_eq!(elements(t, true), list_elements(t));
        let v = "github/int-0001";
        assert_eq!(key_of(v, None), Some((0, v.len())));
        assert_eq!(key_of(v, Some(Part::IntegrationId)), Some((7, v.len())));
        for malformed in ["int-0001", "a/b/c", "/int-1", "a b/c"] {
            assert_eq!(key_of(malformed, Some(Part::IntegrationId)), None);
        }
    }

    #[test]
    fn templates_fill_their_placeholders_once() {
        assert_eq!(
            render(
                "x {value} of {cell} at {place}",
                "id",
                "a/id",
                None,
                Some("f line 2")
            ),
            "x `id` of `a/id` at f line 2"
        );
        // A value holding a placeholder is not filled again.
        assert_eq!(
            render("{value} {cell}", "{cell}", "c", None, None),
            "`{cell}` `c`"
        );
        assert_eq!(render("{place} {", "v", "c", None, None), "{place} {");
        // The key as written is whole, where {value} is cut for messages.
        let long = "k".repeat(70);
        assert_eq!(
            render("{type} `{key}`", &long, &long, Some(" Role "), None),
            format!("Role `{long}`")
        );
        assert!(render("{value}", &long, &long, None, None).ends_with("…`"));
        assert_eq!(render_count("{count} end{s} {was}", 1), "1 end was");
        assert_eq!(render_count("{count} end{s} {was}", 2), "2 ends were");
    }

    #[test]
    fn a_key_kept_by_one_row_and_deleted_by_another_is_kept() {
        let mut s = KeySet::default();
        let spec = |ignore_case| Spec {
            target: "t",
            key: "k",
            type_key: None,
            ignore_case,
            gone: None,
            any_file: false,
        };
        let fp = |k: &str| spec(false).fingerprint(None, k);
        let loose = |k: &str| spec(false).loose_fingerprint(None, k);
        s.add(fp("x"), loose("x"), true, false, (0, 2));
        assert!(matches!(s.find(fp("x")), Found::Removed((0, 2))));
        s.add(fp(" x "), loose(" x "), false, true, (0, 3));
        assert!(matches!(
            s.find(fp("x")),
            Found::Kept {
                published: Some((0, 3)),
                drafted: None,
            }
        ));
        s.add(fp("x"), loose("x"), false, false, (1, 2));
        s.add_draft(fp("x"), (1, 2));
        s.add_draft(fp("x"), (1, 5));
        assert!(matches!(
            s.find(fp("x")),
            Found::Kept {
                published: Some((0, 3)),
                drafted: Some((1, 2)),
            }
        ));
        assert!(matches!(s.find(fp("X")), Found::Absent));
        // A near miss finds the first row that keeps the key, not the one
        // that deletes it.
        assert_eq!(s.near(loose("X")), Some((0, 3)));
        assert_eq!(s.near(loose(" x\u{a0}")), Some((0, 3)));
        assert_eq!(s.near(loose("y")), None);
        assert_eq!(loose("Role Admin"), loose("roleadmin"));
        assert_ne!(
            spec(false).loose_fingerprint(Some("role"), "a"),
            spec(false).loose_fingerprint(Some("identity"), "a")
        );
        let ci = spec(true);
        assert_eq!(
            ci.fingerprint(None, " Ada@Example.COM"),
            ci.fingerprint(None, "ada@example.com")
        );
        let typed = Spec {
            type_key: Some("T"),
            ..spec(false)
        };
        assert_eq!(
            typed.fingerprint(Some(" ROLE "), "a"),
            typed.fingerprint(Some("role"), " a ")
        );
        assert_ne!(
            typed.fingerprint(Some("role"), "A"),
            typed.fingerprint(Some("role"), "a")
        );
        assert_ne!(
            typed.fingerprint(Some("ab"), "c"),
            typed.fingerprint(Some("a"), "bc")
        );
    }

    fn entities_keys(csv: &str) -> Keys {
        let mut keys = Keys::default();
        collect_entities(csv.as_bytes(), &opts(), &mut keys).expect("reads");
        keys
    }

    #[test]
    fn work_emails_compare_trimmed_and_without_case() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("employees.csv");
        std::fs::write(
            &path,
            "Full Name,Work Email,Start Date\nAda, Ada.Lovelace@Example.COM ,03/07/2024\nNone,,03/07/2024\n",
        )
        .expect("writes");
        let keys = collect_run(&[(&path, "employees")], &["entity-rbac-relations"], &opts())
            .expect("reads");
        assert_eq!(keys.len(), 1);
        let rel = "Parent Entity Source ID,Parent Entity Type,Entity Source ID,Entity Type\n\
                   role-1,role, ADA.LOVELACE@EXAMPLE.COM,employee\n\
                   role-1,role,ada.lovelace@example.co,Employee\n";
        let entities = entities_keys(
            "Name,Entity Type,Source System,Source ID,Source Type\nr,Role,gh,role-1,role\n",
        );
        let src = RefSources {
            run: Some(&keys),
            entities: Some(&entities),
            ..RefSources::default()
        };
        let found =
            check_references(rel.as_bytes(), &opts(), "entity-rbac-relations", src).expect("reads");
        let got: Vec<(&str, u64)> = found.iter().map(|d| (d.rule.code, d.line)).collect();
        assert_eq!(got, [("B014", 3)], "{found:?}");
    }

    #[test]
    fn an_employee_end_of_any_relations_format_is_never_a_dangling_entity() {
        // Entity relations (not RBAC) allow no `employee` type, which the
        // cell check reports; the reference is still an employee's.
        let rel = "Parent Entity Source ID,Parent Entity Type,Entity Source ID,Entity Type\n\
                   583231,identity,ada@example.com,EMPLOYEE\n";
        let entities = entities_keys(
            "Name,Entity Type,Source System,Source ID,Source Type\nada,identity,gh,583231,user\n",
        );
        assert_eq!(entities.len(), 1);
        let employees = Keys::default();
        let none = Keys {
            sets: specs_from(&["entity-relations"], KeySource::Run, None)
                .into_iter()
                .map(|s| {
                    (
                        s,
                        KeySet {
                            defined: true,
                            ..KeySet::default()
                        },
                    )
                })
                .collect(),
            files: Vec::new(),
        };
        for format in ["entity-relations", "entity-rbac-relations"] {
            for (run, want) in [
                (None, "B010"),
                (Some(&none), "B014"),
                (Some(&employees), "B010"),
            ] {
                let src = RefSources {
                    run,
                    entities: Some(&entities),
                    ..RefSources::default()
                };
                let found = check_references(rel.as_bytes(), &opts(), format, src).expect("reads");
                let codes: Vec<&str> = found.iter().map(|d| d.rule.code).collect();
                assert_eq!(codes, [want], "{format}: {found:?}");
            }
        }
        // Neither entities nor employees: still one info, saying both.
        let found = check_references(
            rel.as_bytes(),
            &opts(),
            "entity-rbac-relations",
            RefSources::default(),
        )
        .expect("reads");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0].message,
            "the Source IDs of this relations file were not checked against any entities, nor its 1 employee end (Entity Type `employee`) against an employees CSV"
        );
    }
}
