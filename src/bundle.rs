//! ZIP bundles: the `entity-rbac` and `entities-bulk` uploads, each a ZIP
//! holding an entities CSV and a relations CSV.
//!
//! Members are identified by their header, never by their name (the spec
//! says the names are not used), and streamed out of the archive into
//! [`check::check_reader`]: nothing is extracted to disk. Every byte read
//! goes through a [`Guard`] that counts what was actually inflated, so a
//! lying header cannot smuggle a zip bomb past the size and ratio limits.

mod layout;

use crate::check::refs::{self, Keys, RefSources};
use crate::check::{self, FileReport, Options};
use crate::diagnostic::{Collector, Diagnostic, Reports};
use crate::error::Error;
use crate::rules::{self, Rule};
use crate::scan::RecordBoundaries;
use crate::schema::{self, Detection};
use std::cell::{Cell, RefCell};
use std::io::{self, Read, Seek};
use std::path::Path;

/// The two ZIP uploads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    EntityRbac,
    EntitiesBulk,
}

impl Kind {
    pub const NAMES: [&'static str; 2] = ["entity-rbac", "entities-bulk"];

    pub fn from_name(name: &str) -> Option<Kind> {
        match name {
            "entity-rbac" => Some(Kind::EntityRbac),
            "entities-bulk" => Some(Kind::EntitiesBulk),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::EntityRbac => "entity-rbac",
            Kind::EntitiesBulk => "entities-bulk",
        }
    }

    /// What `bdxlint formats` calls it.
    pub fn title(self) -> &'static str {
        match self {
            Kind::EntityRbac => "Entity RBAC ZIP (upload): entities + RBAC relations",
            Kind::EntitiesBulk => "Entities bulk ZIP (upload): entities + entity relations",
        }
    }

    /// The table of the relations member.
    pub fn relations(self) -> &'static str {
        match self {
            Kind::EntityRbac => "entity-rbac-relations",
            Kind::EntitiesBulk => "entity-relations",
        }
    }
}

const ENTITIES: &str = "entities";

/// What bdxlint agrees to inflate.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Uncompressed bytes of one member.
    pub max_member: u64,
    /// Uncompressed bytes of the whole archive, over every read of it
    /// (header sniffing and reference passes included).
    pub max_total: u64,
    /// Uncompressed / compressed size of a member. Applies once a member has
    /// inflated past [`RATIO_FLOOR`]: small, repetitive CSV files compress
    /// very well and are harmless.
    pub max_ratio: u64,
}

/// Bytes a member may inflate to before the ratio limit applies.
pub(crate) const RATIO_FLOOR: u64 = 1 << 20;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_member: 1 << 30,
            max_total: 4 << 30,
            max_ratio: 100,
        }
    }
}

/// Counts inflated bytes and ends the member once a limit is passed or the
/// archive turns out corrupt. It ends it as an end of file, not an error:
/// an error would make the check of the member fail and lose the findings
/// of everything read before. The reason is kept aside in `refused`, and
/// `boundary` says where the last whole record delivered ends, so findings
/// on the record cut in half can be told apart.
struct Guard<'a, R> {
    inner: R,
    /// Bytes delivered so far.
    read: u64,
    compressed: u64,
    limits: &'a Limits,
    total: &'a Cell<u64>,
    refused: &'a RefCell<Option<String>>,
    /// Set to `boundary` when the member is cut.
    cut_at: &'a Cell<Option<u64>>,
    /// The first bytes are sniffed for a nested archive.
    first: bool,
    /// Set once the member was cut: every later read is an end of file.
    stopped: bool,
    /// The cut was a size or ratio limit (not corruption or a nested
    /// archive): the bytes before it are sound.
    by_limit: bool,
    /// Offset just past the last record boundary delivered.
    boundary: u64,
    bounds: RecordBoundaries,
}

impl<'a, R> Guard<'a, R> {
    fn new(
        compressed: u64,
        inner: R,
        limits: &'a Limits,
        total: &'a Cell<u64>,
        refused: &'a RefCell<Option<String>>,
        cut_at: &'a Cell<Option<u64>>,
    ) -> Self {
        Guard {
            inner,
            read: 0,
            compressed,
            limits,
            total,
            refused,
            cut_at,
            first: true,
            stopped: false,
            by_limit: false,
            boundary: 0,
            bounds: RecordBoundaries::default(),
        }
    }
}

/// The limit a guard may hit next.
#[derive(Debug, Clone, Copy)]
enum Limit {
    Member,
    Total,
    Ratio,
}

impl<R: Read> Read for Guard<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stopped {
            return Ok(0);
        }
        // Never read further than one byte past the tightest limit: the
        // bytes within it are still delivered (their findings survive the
        // cut), and the one byte past tells a member that ends right at the
        // limit from one that goes on.
        let (room, limit) = self.room();
        let want = buf
            .len()
            .min(usize::try_from(room.saturating_add(1)).unwrap_or(usize::MAX));
        let n = match self.inner.read(&mut buf[..want]) {
            Ok(n) => n,
            Err(e) => return self.cut(format!("it cannot be read (corrupt or truncated): {e}")),
        };
        if self.first && n > 0 {
            self.first = false;
            if let Some(what) = archive_magic(&buf[..n]) {
                return self.cut(format!("it is a nested {what} archive"));
            }
        }
        let keep = n.min(usize::try_from(room).unwrap_or(usize::MAX));
        if let Some(b) = self.bounds.last_boundary(&buf[..keep]) {
            self.boundary = self.read + b as u64;
        }
        self.read += keep as u64;
        self.total.set(self.total.get() + keep as u64);
        if n > keep {
            let why = self.reason(limit);
            self.stopped = true;
            self.by_limit = true;
            self.cut_at.set(Some(self.boundary));
            self.refused.borrow_mut().get_or_insert(why);
        }
        Ok(keep)
    }
}

impl<R> Guard<'_, R> {
    /// Ends the member here; the bytes of this read are not delivered.
    fn cut(&mut self, why: String) -> io::Result<usize> {
        self.stopped = true;
        self.cut_at.set(Some(self.boundary));
        self.refused.borrow_mut().get_or_insert(why);
        Ok(0)
    }

    /// Bytes this member may still inflate to, and the limit that binds
    /// (the first of equals, in the order the limits are documented).
    fn room(&self) -> (u64, Limit) {
        // The ratio applies past RATIO_FLOOR only.
        let ratio_cap =
            RATIO_FLOOR.max(self.compressed.max(1).saturating_mul(self.limits.max_ratio));
        [
            (
                self.limits.max_member.saturating_sub(self.read),
                Limit::Member,
            ),
            (
                self.limits.max_total.saturating_sub(self.total.get()),
                Limit::Total,
            ),
            (ratio_cap.saturating_sub(self.read), Limit::Ratio),
        ]
        .into_iter()
        .min_by_key(|(room, _)| *room)
        .unwrap_or((0, Limit::Member))
    }

    fn reason(&self, limit: Limit) -> String {
        match limit {
            Limit::Member => format!(
                "it inflates past --max-member-size ({} bytes)",
                self.limits.max_member
            ),
            Limit::Total => format!(
                "the archive inflates past --max-total-size ({} bytes)",
                self.limits.max_total
            ),
            Limit::Ratio => format!(
                "it inflates more than --max-ratio ({}) times its compressed size of {} bytes (a zip bomb?)",
                self.limits.max_ratio, self.compressed
            ),
        }
    }
}

/// A member whose reading was cut short.
struct Cut {
    why: String,
    /// Where the last whole record read ends: findings from here on are
    /// about the record cut in half, not the data.
    boundary: u64,
    /// Bytes of a record cut in half were read (and counted as a record).
    partial: bool,
}

fn archive_magic(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Some("ZIP")
    } else if head.starts_with(&[0x1F, 0x8B]) {
        Some("gzip")
    } else if head.starts_with(b"7z\xBC\xAF") {
        Some("7z")
    } else if head.starts_with(b"Rar!") {
        Some("RAR")
    } else {
        None
    }
}

const ARCHIVE_EXTENSIONS: [&str; 8] =
    [".zip", ".gz", ".tgz", ".7z", ".rar", ".tar", ".jar", ".bz2"];

/// True when `path` should be checked as a bundle: a `.zip` name, or a
/// bundle format forced on it.
pub(crate) fn is_bundle_path(path: &Path, forced: Option<&str>) -> bool {
    forced.is_some_and(|f| Kind::from_name(f).is_some())
        || path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("zip"))
}

fn archive_diag(rule: &'static Rule, message: String, help: &str) -> Diagnostic {
    crate::check::file_diag(rule, 0..0, message, help)
}

/// Checks a ZIP bundle on disk. The first report is the archive's own
/// (bundle-level findings); then one per CSV member, with `member` set.
/// Only failing to open the file is an error: whatever is wrong inside the
/// archive is a finding. `external` are the keys of the `--entities`
/// exports, and `run_keys` those of the run's CSV files (the employees
/// that employee ends of the relations are checked against).
pub fn check_zip(
    path: &Path,
    forced: Option<Kind>,
    opts: &Options,
    limits: &Limits,
    external: Option<&Keys>,
    run_keys: Option<&Keys>,
) -> Result<Vec<FileReport>, Error> {
    let mut c = Collector::default();
    check_zip_into(path, forced, opts, limits, external, run_keys, &mut c)?;
    Ok(c.reports)
}

/// [`check_zip`], handing each report to `out` as it is made: the
/// archive's own findings (what was found while telling the members
/// apart), then the entities member's and the relations member's, each as
/// it is read, so memory does not grow with the findings. A member cut
/// short (a limit, corrupt bytes) ends with the finding that says so; the
/// relations member's references follow its own findings.
pub(crate) fn check_zip_into(
    path: &Path,
    forced: Option<Kind>,
    opts: &Options,
    limits: &Limits,
    external: Option<&Keys>,
    run_keys: Option<&Keys>,
    out: &mut dyn Reports,
) -> Result<(), Error> {
    let display = path.display().to_string();
    let Some((mut zip, mut archive)) = open_archive(path, &display, forced, out)? else {
        return Ok(());
    };
    let total = Cell::new(0u64);
    let refused = RefCell::new(None);
    let cut_at = Cell::new(None);
    let reading = Reading {
        limits,
        total: &total,
        refused: &refused,
        cut_at: &cut_at,
        last_read: Cell::new(0),
        opts,
        display: &display,
    };
    // Pass 1: identify each member by its header.
    let found = identify_members(&mut zip, &reading, path, forced, &mut archive)?;
    let members = Members::assign(found, forced, &mut archive);
    emit_archive(out, &display, archive, members.kind);
    // Pass 2: check each member as its table, streamed; the relations
    // member's references (pass 3) follow its own findings.
    let sources = RefSources {
        bundle: None,
        entities: external,
        run: run_keys,
    };
    check_members(&mut zip, &reading, &members, sources, out);
    Ok(())
}

/// The archive's own report: what was found while telling the members
/// apart, under the bundle's kind if it is known.
fn emit_archive(
    out: &mut dyn Reports,
    display: &str,
    archive: Vec<Diagnostic>,
    kind: Option<Kind>,
) {
    out.start_file(display, None, false);
    for d in archive {
        out.diagnostic(d);
    }
    out.end_file(kind.map(Kind::name), 0);
}

/// An archive opened, and the findings about its layout that do not stop
/// its reading.
type Opened = (zip::ZipArchive<std::fs::File>, Vec<Diagnostic>);

/// Opens the file as a ZIP archive, or says in the archive's own report
/// why it is not read: not a ZIP, unreadable, or built so that a member
/// would go unchecked or inflate without bound. An archive that is read
/// comes with the findings about its layout that do not stop its reading
/// (entries another reader would see and bdxlint does not). Only failing
/// to open or read the file is an error.
fn open_archive(
    path: &Path,
    display: &str,
    forced: Option<Kind>,
    out: &mut dyn Reports,
) -> Result<Option<Opened>, Error> {
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut head = [0u8; 4];
    let got = layout::read_up_to(&mut file, &mut head).map_err(|e| Error::io(path, e))?;
    file.rewind().map_err(|e| Error::io(path, e))?;
    let mut refuse = |d: Diagnostic| emit_archive(out, display, vec![d], forced);
    let is_zip = head[..got].starts_with(b"PK");
    if !is_zip {
        let csv_like = !path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("zip"));
        let (rule, msg) = if csv_like {
            (
                &rules::BUNDLE_NOT_ZIP,
                format!(
                    "{} uploads are ZIP archives; this is not one",
                    forced.map_or("bundle", Kind::name)
                ),
            )
        } else {
            (
                &rules::ARCHIVE_REFUSED,
                "the file is named .zip but is not a ZIP archive".to_owned(),
            )
        };
        refuse(archive_diag(
            rule,
            msg,
            "zip the entities CSV and the relations CSV together",
        ));
        return Ok(None);
    }
    // The archive's bytes are read beside the reader, through a handle of
    // the same open file (a path opened again may name another by then).
    let raw = file.try_clone().map_err(|e| Error::io(path, e))?;
    let mut zip = match zip::ZipArchive::new(file) {
        Ok(z) => z,
        Err(e) => {
            refuse(archive_diag(
                &rules::ARCHIVE_REFUSED,
                format!("the archive cannot be read (corrupt or truncated): {e}"),
                "rebuild the ZIP from the two CSV files",
            ));
            return Ok(None);
        }
    };
    let listed = layout::listed(&mut zip);
    let dir_start = zip.central_directory_start();
    let unread =
        layout::unread(&raw, dir_start, &listed, zip.len()).map_err(|e| Error::io(path, e))?;
    // The archive reader keeps one entry per name: a second member of the
    // same name hides the first, which would never be checked. Found from
    // the central directory itself, whatever its end record looks like.
    if !unread.shared.is_empty() {
        let found = unread.shared.iter().map(|s| refusal(shared_name(s)));
        emit_archive(out, display, found.collect(), forced);
        return Ok(None);
    }
    // Entries whose bytes overlap (many entries naming the same compressed
    // data) let a small archive inflate without bound; no writer makes them.
    if let Some((a, b)) = layout::overlapping(&listed) {
        let mut name = |k: usize| {
            zip.by_index_raw(k)
                .map_or_else(|_| format!("#{k}"), |f| f.name().to_owned())
        };
        let (a, b) = (name(a), name(b));
        refuse(refusal(format!(
            "entries {a} and {b} overlap: they share compressed bytes, which no archiver writes"
        )));
        return Ok(None);
    }
    let unlisted = layout::unlisted(&raw, dir_start, &listed).map_err(|e| Error::io(path, e))?;
    let found = [uncounted_finding(&unread), unlisted_finding(&unlisted)];
    Ok(Some((zip, found.into_iter().flatten().collect())))
}

/// The refusal of entries that share a name.
fn shared_name(shared: &layout::Shared) -> String {
    let name = &shared.name;
    let listed: Vec<String> = shared.numbers.iter().map(|n| format!("#{n}")).collect();
    let listed = format!("{}{}", listed.join(", "), more(shared.total, listed.len()));
    if shared.total > 1 {
        format!(
            "{} entries of the central directory are named `{name}` ({listed}): the archive reader keeps only the last, so the others would never be checked",
            shared.total
        )
    } else {
        format!(
            "entry {listed} of the central directory (`{name}`) is hidden by a later entry of the same name: it would never be checked"
        )
    }
}

/// Entries of the central directory past the end record's count: one
/// reader lists them, another (bdxlint's) does not.
fn uncounted_finding(unread: &layout::Unread) -> Option<Diagnostic> {
    let total = unread.uncounted_total;
    if total == 0 {
        return None;
    }
    let shown: Vec<String> = unread
        .uncounted
        .iter()
        .map(|(n, name)| format!("`{name}` (#{n})"))
        .collect();
    Some(hidden_entries(format!(
        "the central directory holds {total} {} past the count of its end record, which bdxlint does not read but a reader that walks the directory does: {}{}",
        if total == 1 { "entry" } else { "entries" },
        shown.join(", "),
        more(total, shown.len()),
    )))
}

/// Local entries no central directory entry lists: a reader that streams
/// the archive takes them, bdxlint (and any reader of the directory) does
/// not.
fn unlisted_finding(unlisted: &layout::Unlisted) -> Option<Diagnostic> {
    let total = unlisted.total;
    if total == 0 {
        return None;
    }
    let shown: Vec<String> = unlisted
        .shown
        .iter()
        .map(|(at, name)| format!("`{name}` at byte {at}"))
        .collect();
    Some(hidden_entries(format!(
        "the archive holds {total} local {} its central directory does not list, which a reader that streams the archive takes for members and bdxlint never checks: {}{}",
        if total == 1 { "entry" } else { "entries" },
        shown.join(", "),
        more(total, shown.len()),
    )))
}

/// ", and N more" past the entries named.
fn more(total: u64, shown: usize) -> String {
    match total.saturating_sub(shown as u64) {
        0 => String::new(),
        n => format!(", and {n} more"),
    }
}

fn hidden_entries(message: String) -> Diagnostic {
    archive_diag(
        &rules::ARCHIVE_HIDDEN_ENTRY,
        message,
        "rebuild the ZIP from the two CSV files (`zip bundle.zip entities.csv relations.csv`), so that every reader sees the same members",
    )
}

/// A CSV member identified by its header as one of the bundle's tables.
struct Member {
    index: usize,
    name: String,
    table: &'static str,
}

/// Pass 1: every member's header read and matched against the tables a
/// member of this bundle can be (both kinds' relations unless the kind is
/// forced). What is not a CSV member of those tables is said in `archive`,
/// with one finding for all the files the operating system added.
fn identify_members(
    zip: &mut zip::ZipArchive<std::fs::File>,
    reading: &Reading<'_>,
    path: &Path,
    forced: Option<Kind>,
    archive: &mut Vec<Diagnostic>,
) -> Result<Vec<Member>, Error> {
    let candidates: Vec<&str> = match forced {
        Some(k) => vec![ENTITIES, k.relations()],
        None => vec![
            ENTITIES,
            Kind::EntityRbac.relations(),
            Kind::EntitiesBulk.relations(),
        ],
    };
    let mut found: Vec<Member> = Vec::new();
    // Files the operating system added (Finder's `__MACOSX/`, `.DS_Store`):
    // one finding for all of them, and none is taken for a member.
    let mut junk: Vec<String> = Vec::new();
    for i in 0..zip.len() {
        let Some(name) = csv_member(zip, i, archive, &mut junk) else {
            continue;
        };
        let Some(header) = member_header(zip, reading, i, &name, archive) else {
            continue;
        };
        let names: Vec<&str> = header.iter().map(String::as_str).collect();
        let tables = schema::tables()?;
        match schema::detect_format_among(tables, &candidates, &names, Some(&name)) {
            Detection::Found(table) => found.push(Member {
                index: i,
                name,
                table,
            }),
            _ => archive.push(archive_diag(
                &rules::BUNDLE_UNKNOWN_MEMBER,
                format!(
                    "member {name} has a header that is neither {}",
                    candidates.join(" nor ")
                ),
                "a bundle holds only the entities CSV and the relations CSV: remove it or fix its header",
            )),
        }
    }
    if !junk.is_empty() {
        archive.push(junk_finding(path, &junk));
    }
    Ok(found)
}

/// The name of member `i` if it is a plain CSV file to identify; a
/// directory, an operating system's file (kept in `junk`), an encrypted
/// member, a nested archive or a file of another type is not, and all but
/// the first two are said in `archive`.
fn csv_member(
    zip: &mut zip::ZipArchive<std::fs::File>,
    i: usize,
    archive: &mut Vec<Diagnostic>,
    junk: &mut Vec<String>,
) -> Option<String> {
    let (name, encrypted, is_dir) = match zip.by_index_raw(i) {
        Ok(f) => (f.name().to_owned(), f.encrypted(), f.is_dir()),
        Err(e) => {
            archive.push(refusal(format!("member #{i} cannot be read: {e}")));
            return None;
        }
    };
    if is_dir {
        return None;
    }
    if junk_name(&name) || (!encrypted && junk_content(zip, i)) {
        junk.push(name);
        return None;
    }
    let lower = name.to_ascii_lowercase();
    if encrypted {
        archive.push(refusal(format!("member {name} is encrypted")));
        return None;
    }
    if ARCHIVE_EXTENSIONS.iter().any(|x| lower.ends_with(x)) {
        archive.push(refusal(format!("member {name} is a nested archive")));
        return None;
    }
    if !lower.ends_with(".csv") {
        archive.push(archive_diag(
            &rules::BUNDLE_UNKNOWN_MEMBER,
            format!("member {name} is not a CSV file"),
            "a bundle holds only the entities CSV and the relations CSV: remove it",
        ));
        return None;
    }
    Some(name)
}

/// The header of member `i`, read through a guard; a member whose header
/// cannot be read whole is said in `archive`.
fn member_header(
    zip: &mut zip::ZipArchive<std::fs::File>,
    reading: &Reading<'_>,
    i: usize,
    name: &str,
    archive: &mut Vec<Diagnostic>,
) -> Option<Vec<String>> {
    let (header, cut) = match zip.by_index(i) {
        Ok(f) => {
            let mut guard = reading.guard(f.compressed_size(), f);
            let header = check::header_names(&mut guard);
            // Past a whole first record, a limit leaves the header
            // sound: the member is identified, and its check in pass 2
            // stops at the same limit with the findings before it.
            let header_read = guard.by_limit && guard.boundary > 0;
            let cut = reading.take_cut();
            (header, cut.filter(|_| !header_read))
        }
        Err(e) => (Err(io::Error::other(e)), None),
    };
    // Otherwise a header cut short reads as a short header: the
    // refusal decides, not what was read.
    match (header, cut) {
        (_, Some(why)) => {
            archive.push(refusal(format!("member {name}: {why}")));
            None
        }
        (Ok(h), None) => Some(h),
        (Err(e), None) => {
            archive.push(refusal(format!(
                "member {name}: it cannot be read (corrupt or truncated): {e}"
            )));
            None
        }
    }
}

/// The bundle's kind and its two members, as pass 1 found them.
struct Members {
    kind: Option<Kind>,
    entities: Option<Member>,
    relations: Option<Member>,
}

impl Members {
    /// The kind (forced, else from the relations member found) and one
    /// member of each role; a member of the other kind's relations, a
    /// second member of a role and a missing member are said in
    /// `archive`.
    fn assign(found: Vec<Member>, forced: Option<Kind>, archive: &mut Vec<Diagnostic>) -> Members {
        let kind = forced.or_else(|| {
            found.iter().find_map(|m| {
                [Kind::EntityRbac, Kind::EntitiesBulk]
                    .into_iter()
                    .find(|k| k.relations() == m.table)
            })
        });
        let mut entities: Option<Member> = None;
        let mut relations: Option<Member> = None;
        for m in found {
            let slot = if m.table == ENTITIES {
                &mut entities
            } else if kind.is_some_and(|k| k.relations() == m.table) {
                &mut relations
            } else {
                archive.push(archive_diag(
                    &rules::BUNDLE_UNKNOWN_MEMBER,
                    format!(
                        "member {} is a {} CSV, which this bundle does not hold",
                        m.name, m.table
                    ),
                    "a bundle holds one kind of relations CSV: remove the other",
                ));
                continue;
            };
            match slot {
                Some(first) => archive.push(archive_diag(
                    &rules::BUNDLE_DUPLICATE_ROLE,
                    format!(
                        "members {} and {} are both {} CSV files",
                        first.name, m.name, m.table
                    ),
                    "a bundle holds one of each: keep one",
                )),
                None => *slot = Some(m),
            }
        }
        let bundle_name = kind.map_or("bundle", Kind::name);
        if entities.is_none() {
            archive.push(archive_diag(
                &rules::BUNDLE_MISSING_MEMBER,
                format!("the {bundle_name} ZIP has no entities CSV"),
                "add the entities CSV (its header names Entity Type, Source ID, ...)",
            ));
        }
        if relations.is_none() {
            archive.push(archive_diag(
                &rules::BUNDLE_MISSING_MEMBER,
                format!("the {bundle_name} ZIP has no relations CSV"),
                "add the relations CSV (its header names Parent Entity Source ID, ...)",
            ));
        }
        Members {
            kind,
            entities,
            relations,
        }
    }
}

/// Pass 2: each member checked as its table into a report of its own, the
/// entities member first; once the relations member was read whole after
/// it, its references (pass 3) end its report.
fn check_members(
    zip: &mut zip::ZipArchive<std::fs::File>,
    reading: &Reading<'_>,
    members: &Members,
    sources: RefSources<'_>,
    out: &mut dyn Reports,
) {
    let mut entities_read = None;
    for m in members.entities.iter().chain(members.relations.iter()) {
        out.start_file(reading.display, Some(&m.name), true);
        let (res, found) = read_member(zip, reading, m, out);
        let (format, mut records) = found
            .as_ref()
            .map_or((Some(m.table), 0), |rep| (rep.format, rep.records));
        match res {
            Ok(None) => {
                let bytes = reading.last_read.get();
                if Some(m.index) == members.entities.as_ref().map(|e| e.index) {
                    entities_read = Some(bytes);
                } else if let (Some(kind), Some(entities), Some(ent_bytes)) =
                    (members.kind, &members.entities, entities_read)
                {
                    member_references(
                        zip,
                        reading,
                        (entities, m),
                        kind,
                        ent_bytes.saturating_add(bytes),
                        sources,
                        out,
                    );
                }
            }
            Ok(Some(Cut {
                why,
                boundary,
                partial,
            })) => {
                if partial {
                    records = records.saturating_sub(1);
                }
                let checked = if boundary > 0 {
                    format!("; only its first {boundary} bytes were checked")
                } else {
                    String::new()
                };
                out.diagnostic(refusal(format!("member {}: {why}{checked}", m.name)));
            }
            Err(why) => out.diagnostic(refusal(format!("member {}: {why}", m.name))),
        }
        out.end_file(format, records);
    }
}

/// Reads member `m` through a guard and checks it as its table, its
/// findings to `out`: the read's outcome, and the member's report if its
/// check ran.
fn read_member(
    zip: &mut zip::ZipArchive<std::fs::File>,
    reading: &Reading<'_>,
    m: &Member,
    out: &mut dyn Reports,
) -> (Result<Option<Cut>, MemberError>, Option<FileReport>) {
    let member_opts = Options {
        format: Some(m.table.to_owned()),
        ..reading.opts.clone()
    };
    let mut found = None;
    let res = reading.open(zip, m.index, &mut |r| {
        let mut sink = |d: Diagnostic| {
            // The standalone entity relations upload is deprecated in
            // favour of this very bundle: inside it, the notice is noise.
            // Past a cut, the record cut in half would read as an
            // unterminated quote or a short row: not the data's fault.
            if d.rule.code != rules::DEPRECATED_FORMAT.code
                && reading.cut_at.get().is_none_or(|b| d.span.start < b)
            {
                out.diagnostic(d);
            }
        };
        found = Some(check_member(
            r,
            reading.display,
            &m.name,
            &member_opts,
            &mut sink,
        )?);
        Ok(())
    });
    (res, found)
}

/// Pass 3 for the relations member read whole: it reads both members
/// again (`again` bytes), so it fits the total limit or is not started (a
/// half-read pass would give false references).
fn member_references(
    zip: &mut zip::ZipArchive<std::fs::File>,
    reading: &Reading<'_>,
    (entities, relations): (&Member, &Member),
    kind: Kind,
    again: u64,
    sources: RefSources<'_>,
    out: &mut dyn Reports,
) {
    let name = &relations.name;
    let room = reading.limits.max_total.saturating_sub(reading.total.get());
    if again > room {
        out.diagnostic(refusal(format!(
            "member {name}: its references were not checked: reading the two members again would inflate the archive past --max-total-size ({} bytes)",
            reading.limits.max_total
        )));
    } else if let Err(why) = references(
        reading,
        zip,
        (entities.index, relations.index),
        (ENTITIES, kind.relations()),
        sources,
        out,
    ) {
        out.diagnostic(refusal(format!("member {name}: {why}")));
    }
}

/// Checks member `name` of archive `display`, read from `r`. A member is
/// read once, streamed from the archive, as standard input is: what its
/// check learned too late for its findings (the order of day and month in
/// a date column) can only be said after them, in the notes
/// [`check::dates::late_notes`] makes.
fn check_member<R: Read>(
    r: R,
    display: &str,
    name: &str,
    opts: &Options,
    sink: &mut dyn FnMut(Diagnostic),
) -> Result<FileReport, Error> {
    let (rep, dates) = check::check_reader_dated(r, display, Some(name), opts, sink)?;
    if dates.late() {
        for d in check::dates::late_notes(&dates, rep.format) {
            sink(d);
        }
    }
    Ok(rep)
}

/// Why a member was not read, or not checked, to its end: said after
/// `member <name>: ` in the archive's refusal.
#[derive(Debug, thiserror::Error)]
enum MemberError {
    #[error("it cannot be read: {0}")]
    Open(#[source] zip::result::ZipError),
    #[error("it cannot be checked: {0}")]
    Check(#[source] Error),
    /// A guard cut short a read that had to be whole (a references pass).
    #[error("{0}")]
    Cut(String),
}

/// What every read of one archive shares: the limits, the bytes inflated
/// so far, and what the last guard had to say.
struct Reading<'a> {
    limits: &'a Limits,
    total: &'a Cell<u64>,
    refused: &'a RefCell<Option<String>>,
    /// Where the last record boundary before a cut was, once a read is cut.
    cut_at: &'a Cell<Option<u64>>,
    /// Bytes the last `open` delivered.
    last_read: Cell<u64>,
    opts: &'a Options,
    display: &'a str,
}

impl<'a> Reading<'a> {
    fn guard<R>(&self, compressed: u64, inner: R) -> Guard<'a, R> {
        self.cut_at.set(None);
        Guard::new(
            compressed,
            inner,
            self.limits,
            self.total,
            self.refused,
            self.cut_at,
        )
    }

    fn take_cut(&self) -> Option<String> {
        self.refused.borrow_mut().take()
    }

    /// Reads member `i` through a guard. `Ok(Some(cut))`: the guard ended
    /// the member early; what `f` made of the part before is still valid.
    fn open(
        &self,
        zip: &mut zip::ZipArchive<std::fs::File>,
        i: usize,
        f: &mut dyn FnMut(&mut dyn Read) -> Result<(), Error>,
    ) -> Result<Option<Cut>, MemberError> {
        let member = zip.by_index(i).map_err(MemberError::Open)?;
        let mut guard = self.guard(member.compressed_size(), member);
        let res = f(&mut guard);
        self.last_read.set(guard.read);
        let cut = self.take_cut().map(|why| Cut {
            why,
            boundary: guard.boundary,
            partial: guard.read > guard.boundary,
        });
        match (res, cut) {
            (_, Some(cut)) => Ok(Some(cut)),
            (Ok(()), None) => Ok(None),
            (Err(e), None) => Err(MemberError::Check(e)),
        }
    }
}

/// Pass 3: the relations member's references, against the entities
/// member's keys (read again) and `src`'s other sources, to `out`.
/// `formats` are the two members' (entities, relations).
fn references(
    reading: &Reading<'_>,
    zip: &mut zip::ZipArchive<std::fs::File>,
    (entities, relations): (usize, usize),
    (entities_format, relations_format): (&str, &str),
    src: RefSources<'_>,
    out: &mut dyn Reports,
) -> Result<(), MemberError> {
    let whole = |res: Result<Option<Cut>, MemberError>| match res {
        Ok(None) => Ok(()),
        Ok(Some(cut)) => Err(MemberError::Cut(cut.why)),
        Err(e) => Err(e),
    };
    let opts = reading.opts;
    let mut keys = Keys::default();
    whole(reading.open(zip, entities, &mut |r| {
        keys = refs::collect_bundle(r, opts, relations_format, entities_format)
            .map_err(|e| Error::io(reading.display, e))?;
        Ok(())
    }))?;
    let src = RefSources {
        bundle: Some(&keys),
        ..src
    };
    whole(reading.open(zip, relations, &mut |r| {
        refs::check_references_into(r, opts, relations_format, src, &mut |d| out.diagnostic(d))
            .map_err(|e| Error::io(reading.display, e))
    }))
}

/// Whether a member's name is one an operating system adds to a ZIP: the
/// `__MACOSX/` folder and AppleDouble `._name` files of macOS Finder,
/// `.DS_Store`, and Windows Explorer's `Thumbs.db`.
fn junk_name(name: &str) -> bool {
    let mut parts = name.split(['/', '\\']);
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    parts.any(|p| p == "__MACOSX")
        || base.starts_with("._")
        || base == ".DS_Store"
        || base.eq_ignore_ascii_case("thumbs.db")
}

/// Whether member `i` holds what those files hold, whatever its name: an
/// AppleDouble header (`00 05 16 07`), a `.DS_Store` (`00 00 00 01 Bud1`)
/// or, named `*.db`, an OLE compound file, which `Thumbs.db` is (an
/// old `.xls` is one too: zipped by mistake, it stays an unknown member).
fn junk_content<R: Read + io::Seek>(zip: &mut zip::ZipArchive<R>, i: usize) -> bool {
    let Ok(f) = zip.by_index(i) else {
        return false;
    };
    let name_ends_db = f.name().to_ascii_lowercase().ends_with(".db");
    let mut head = [0u8; 8];
    // Eight bytes, whatever the limits: no bomb inflates far on those.
    let Ok(got) = layout::read_up_to(&mut f.take(8), &mut head) else {
        return false;
    };
    let head = &head[..got];
    head.starts_with(&[0x00, 0x05, 0x16, 0x07])
        || head.starts_with(b"\0\0\0\x01Bud1")
        || (name_ends_db && head.starts_with(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]))
}

/// The one `archive-junk` finding of an archive holding `junk`, with the
/// command that deletes them.
fn junk_finding(path: &Path, junk: &[String]) -> Diagnostic {
    const SHOWN: usize = 5;
    let mut patterns: Vec<String> = Vec::new();
    let mut add = |p: String| {
        if !patterns.contains(&p) {
            patterns.push(p);
        }
    };
    for name in junk {
        let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
        if name.split(['/', '\\']).any(|p| p == "__MACOSX") {
            add("__MACOSX/*".into());
        } else if base == ".DS_Store" {
            add("*.DS_Store".into());
        } else if base.eq_ignore_ascii_case("thumbs.db") {
            add(format!("*{base}"));
        } else {
            add(name.clone());
        }
    }
    let mut listed: Vec<String> = junk.iter().take(SHOWN).map(|n| format!("`{n}`")).collect();
    if junk.len() > SHOWN {
        listed.push(format!("and {} more", junk.len() - SHOWN));
    }
    let zip_name = path
        .file_name()
        .map_or_else(|| "bundle.zip".into(), |n| n.to_string_lossy().into_owned());
    let quoted: Vec<String> = std::iter::once(&zip_name)
        .chain(&patterns)
        .map(|p| format!("'{}'", p.replace('\'', "'\\''")))
        .collect();
    archive_diag(
        &rules::ARCHIVE_JUNK,
        format!(
            "the archive holds {} {} the operating system added, not part of the bundle: {}",
            junk.len(),
            if junk.len() == 1 { "file" } else { "files" },
            listed.join(", ")
        ),
        &format!(
            "remove them: `zip -d {}` (bdxlint ignores them)",
            quoted.join(" ")
        ),
    )
}

fn refusal(message: String) -> Diagnostic {
    archive_diag(
        &rules::ARCHIVE_REFUSED,
        message,
        "rebuild the ZIP from the two plain CSV files (no encryption, no archives inside)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A member is read once: a date column it shows day-first only after
    /// cells that read as two dates were reported ends with the notes that
    /// say so, as standard input does. (The bundles' own tables have no
    /// date columns today: an employees table stands in for a member's.)
    #[test]
    fn a_member_that_learns_its_date_order_late_ends_with_the_notes() {
        let csv = "Full Name,Work Email,Start Date\n\
            Ada,ada@example.com,6/07/2019\n\
            Bob,bob@example.com,06/07/2019\n\
            Cy,cy@example.com,26/07/2021\n";
        let opts = Options {
            format: Some("employees".into()),
            ..Options::default()
        };
        let mut found = Vec::new();
        check_member(csv.as_bytes(), "b.zip", "e.csv", &opts, &mut |d| {
            found.push(d)
        })
        .expect("checks");
        let notes: Vec<(&str, u64)> = found
            .iter()
            .filter(|d| d.severity == rules::Severity::Info)
            .map(|d| (d.rule.code, d.line))
            .collect();
        assert_eq!(notes, [("C004", 2), ("C020", 4)], "{found:#?}");
        // Nothing learned late, nothing said.
        let mut found = Vec::new();
        check_member(
            "Full Name,Work Email,Start Date\nAda,ada@example.com,06/07/2019\n".as_bytes(),
            "b.zip",
            "e.csv",
            &opts,
            &mut |d| found.push(d),
        )
        .expect("checks");
        assert!(found.is_empty(), "{found:#?}");
    }
}
