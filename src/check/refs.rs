//! References between files: the Source IDs a relations CSV names must be
//! entities that exist.
//!
//! Both passes stream: the entities file is read once into a set of 64-bit
//! xxh3 fingerprints of `(entity type, source id)` (8 bytes a key plus the
//! hash set's overhead, about 16 bytes an entity; a false "exists" needs a
//! 64-bit collision), then the relations file is read a second time, after
//! its own check, with the sets in hand. That second pass reuses the chunk
//! reader, scanner and emitter of the main check, so findings carry the
//! same line, column and span as any other cell finding.
//!
//! A relation end of type `employee` names an employee, which the employees
//! upload creates, not any entities file: it is looked up among the Work
//! Emails of the run's employees CSV files (a set of xxh3 fingerprints of
//! the trimmed, lowercased e-mail, 10-21 bytes an employee), never among
//! the entities.

use super::cross::IdentityHasher;
use super::{rebase, ChunkReader, Emitter, Options};
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules;
use crate::scan::{unescape, FieldSpan, Record};
use crate::schema::normalize_name;
use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::io::{self, Read};
use std::sync::Arc;
use xxhash_rust::xxh3::xxh3_64;

/// The entities a set of entities files defines, as fingerprints.
#[derive(Debug, Default)]
pub struct EntityKeys {
    pairs: HashSet<u64>,
}

impl EntityKeys {
    pub fn contains(&self, entity_type: &str, source_id: &str) -> bool {
        self.pairs.contains(&key(entity_type, source_id))
    }

    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

/// The employees the run's employees CSV files define: their Work Emails,
/// as fingerprints.
#[derive(Debug, Default)]
pub struct EmployeeKeys {
    // Keys are fingerprints already: a pass-through hasher, 8 bytes and a
    // control byte a bucket.
    emails: HashSet<u64, BuildHasherDefault<IdentityHasher>>,
}

impl EmployeeKeys {
    pub fn contains(&self, email: &str) -> bool {
        self.emails.contains(&email_key(email))
    }

    pub fn len(&self) -> usize {
        self.emails.len()
    }

    pub fn is_empty(&self) -> bool {
        self.emails.is_empty()
    }
}

/// E-mails compare trimmed and without case, as the employees file's own
/// unique check of Work Email compares them.
fn email_key(email: &str) -> u64 {
    xxh3_64(email.trim().to_lowercase().as_bytes())
}

/// Adds the Work Emails of an employees CSV to `keys`.
pub fn collect_employees<R: Read>(
    reader: R,
    opts: &Options,
    keys: &mut EmployeeKeys,
) -> io::Result<()> {
    stream(reader, opts, &["Work Email"], |emit, rec, c| {
        if let Some(f) = c[0].and_then(|i| rec.fields.get(i)) {
            let email = cell(emit.data, f);
            if !email.trim().is_empty() {
                keys.emails.insert(email_key(&email));
            }
        }
    })?;
    Ok(())
}

/// Types compare case-insensitively (`Role` and `role` are one type, as the
/// enum shapes of the tables read them); IDs compare exactly, trimmed.
fn key(entity_type: &str, source_id: &str) -> u64 {
    let mut buf = Vec::with_capacity(entity_type.len() + source_id.len() + 1);
    buf.extend(entity_type.trim().bytes().map(|b| b.to_ascii_lowercase()));
    // A separator that cannot occur in a decoded cell's text keeps
    // ("ab", "c") and ("a", "bc") apart.
    buf.push(0);
    buf.extend_from_slice(source_id.trim().as_bytes());
    xxh3_64(&buf)
}

/// Streams every record after the header, with the cells of `wanted`
/// columns (by header name) resolved to indexes. `f` gets the chunk's
/// emitter, the record and the column indexes (`None` when the header lacks
/// the column).
pub(crate) fn stream<R: Read>(
    reader: R,
    opts: &Options,
    wanted: &[&str],
    f: impl FnMut(&mut Emitter<'_>, &Record, &[Option<usize>]),
) -> io::Result<Vec<Diagnostic>> {
    let mut out = Vec::new();
    stream_into(reader, opts, wanted, f, &mut |d| out.push(d))?;
    Ok(out)
}

/// The index of each wanted column in the header, `None` where it lacks it.
pub(crate) type Columns = Vec<Option<usize>>;

/// [`stream`], also returning the column indexes the header resolved
/// (`None` for a file without a header row): a caller may need to know
/// that a column exists even when no row follows.
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
    let reader = super::Cancellable::new(reader, opts);
    let (dialect, reader) = super::read_dialect(reader)?;
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
        let mut emit = Emitter::new(data, super::Snippets::of(opts));
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

/// Adds the `(Entity Type, Source ID)` pairs of an entities CSV (upload or
/// download: both name the columns so) to `keys`.
pub fn collect_entities<R: Read>(
    reader: R,
    opts: &Options,
    keys: &mut EntityKeys,
) -> io::Result<()> {
    stream(
        reader,
        opts,
        &["Entity Type", "Source ID"],
        |emit, rec, c| {
            let (Some(t), Some(id)) = (c[0], c[1]) else {
                return;
            };
            if let (Some(t), Some(id)) = (rec.fields.get(t), rec.fields.get(id)) {
                let id = cell(emit.data, id);
                if !id.trim().is_empty() {
                    keys.pairs.insert(key(&cell(emit.data, t), &id));
                }
            }
        },
    )?;
    Ok(())
}

/// Where the entities a relations file points at come from.
#[derive(Debug, Clone, Copy)]
pub struct RefSources<'a> {
    /// The entities member of the same bundle.
    pub bundle: Option<&'a EntityKeys>,
    /// The exports given with `--entities`.
    pub external: Option<&'a EntityKeys>,
    /// An entity-rbac bundle: only its roles are its own; other types live
    /// in the last synced entities.
    pub rbac: bool,
    /// The employees CSV files of the run, if it has any: what `employee`
    /// ends are checked against.
    pub employees: Option<&'a EmployeeKeys>,
}

/// Whether a relation end's type names an employee.
fn is_employee(entity_type: &str) -> bool {
    entity_type.trim().eq_ignore_ascii_case("employee")
}

/// Checks the references of a relations CSV (entity relations or entity
/// RBAC relations). Returns the findings, in position order.
pub fn check_references<R: Read>(
    reader: R,
    opts: &Options,
    src: RefSources<'_>,
) -> io::Result<Vec<Diagnostic>> {
    let mut found = Vec::new();
    check_references_into(reader, opts, src, &mut |d| found.push(d))?;
    found.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Ok(found)
}

/// [`check_references`], handing the findings to `sink` as each chunk is
/// done, in file order; the one info on what went unchecked comes last
/// (it is known only at the end).
pub fn check_references_into<R: Read>(
    reader: R,
    opts: &Options,
    src: RefSources<'_>,
    sink: &mut dyn FnMut(Diagnostic),
) -> io::Result<()> {
    let mut unchecked = false;
    // Employee ends left unchecked for want of an employees CSV in the run.
    let mut employees_unchecked: u64 = 0;
    let pairs: [(&str, &str); 2] = [
        ("Parent Entity Source ID", "Parent Entity Type"),
        ("Entity Source ID", "Entity Type"),
    ];
    stream_into(
        reader,
        opts,
        &[pairs[0].0, pairs[0].1, pairs[1].0, pairs[1].1],
        |emit, rec, c| {
            for k in 0..2 {
                let (Some(ic), Some(tc)) = (c[2 * k], c[2 * k + 1]) else {
                    continue;
                };
                let (Some(idf), Some(tf)) = (rec.fields.get(ic), rec.fields.get(tc)) else {
                    continue;
                };
                let id = cell(emit.data, idf);
                let ty = cell(emit.data, tf);
                if id.trim().is_empty() || ty.trim().is_empty() {
                    // An empty required cell is the main check's finding.
                    continue;
                }
                // Employees come from the employees upload, not from an
                // entities file: whatever the entities hold, an employee end
                // is never dangling against them.
                if is_employee(&ty) {
                    match src.employees {
                        None => employees_unchecked += 1,
                        Some(e) if e.contains(&id) => {}
                        Some(_) => {
                            let (s, e) = idf.content();
                            emit.in_field(
                                &rules::UNDEFINED_EMPLOYEE,
                                None,
                                s..e,
                                idf,
                                Some(Arc::from(pairs[k].0)),
                                format!(
                                    "employee `{}` is not a Work Email of the run's employees CSV",
                                    id.trim()
                                ),
                                Some(
                                    "employee ends are matched with Work Email (ignoring case): correct the e-mail, or add the employee to the employees CSV; if the employee is already on the platform, ignore this"
                                        .to_owned(),
                                ),
                            );
                        }
                    }
                    continue;
                }
                let defined = src.bundle.is_some_and(|b| b.contains(&ty, &id))
                    || src.external.is_some_and(|e| e.contains(&ty, &id));
                if defined {
                    continue;
                }
                let is_role = ty.trim().eq_ignore_ascii_case("role");
                let (rule, sev) = if src.rbac && is_role && src.bundle.is_some() {
                    (&rules::UNDEFINED_ROLE, Severity::Warning)
                } else if src.external.is_some() || (src.bundle.is_some() && !src.rbac) {
                    (&rules::DANGLING_REFERENCE, Severity::Error)
                } else {
                    unchecked = true;
                    continue;
                };
                let (s, e) = idf.content();
                let column: Arc<str> = Arc::from(pairs[k].0);
                let whence = if src.bundle.is_some() && !src.rbac {
                    "the bundle's entities CSV"
                } else if rule == &rules::UNDEFINED_ROLE {
                    "the bundle's entities CSV (nor --entities)"
                } else {
                    "the --entities files"
                };
                emit.in_field(
                    rule,
                    Some(sev),
                    s..e,
                    idf,
                    Some(column),
                    format!("{} `{}` is not defined by {whence}", ty.trim(), id.trim()),
                    Some(format!(
                        "add a `{}` row with Source ID `{}` to the entities, or correct the ID or type",
                        ty.trim(),
                        id.trim()
                    )),
                );
            }
        },
        &mut *sink,
    )?;
    // One info a file, saying what went unchecked: entity ends for want of
    // entities, employee ends for want of an employees CSV, or both.
    let entities_unchecked = unchecked || (src.bundle.is_none() && src.external.is_none());
    let ends = |n: u64| {
        if n == 1 {
            "1 employee end".to_owned()
        } else {
            format!("{n} employee ends")
        }
    };
    let info = match (entities_unchecked, employees_unchecked) {
        (false, 0) => None,
        (true, 0) => Some((
            "the Source IDs of this relations file were not checked against any entities".to_owned(),
            "pass the entities export they point at with `--entities FILE`",
        )),
        (true, n) => Some((
            format!(
                "the Source IDs of this relations file were not checked against any entities, nor its {} (Entity Type `employee`) against an employees CSV",
                ends(n)
            ),
            "pass the entities export they point at with `--entities FILE`, and check the employees CSV in the same run (employee ends are matched with its Work Email)",
        )),
        (false, n) => Some((
            format!(
                "the {} of this relations file (Entity Type `employee`) {} not checked: employees come from the employees upload, and this run has no employees CSV",
                ends(n),
                if n == 1 { "was" } else { "were" }
            ),
            "check the employees CSV in the same run (`bdxlint check employees.csv relations.csv`); employee ends are matched with its Work Email",
        )),
    };
    if let Some((message, help)) = info {
        sink(super::file_diag(
            &rules::REFERENCES_UNCHECKED,
            0..0,
            message,
            help,
        ));
    }
    Ok(())
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
    fn work_emails_compare_trimmed_and_without_case() {
        let mut keys = EmployeeKeys::default();
        let csv = "Full Name,Work Email,Start Date\nAda, Ada.Lovelace@Example.COM ,03/07/2024\nNone,,03/07/2024\n";
        collect_employees(csv.as_bytes(), &opts(), &mut keys).expect("reads");
        assert_eq!(keys.len(), 1);
        assert!(keys.contains("ada.lovelace@example.com"));
        assert!(keys.contains(" ADA.LOVELACE@EXAMPLE.COM"));
        assert!(!keys.contains("ada.lovelace@example.co"));
    }

    #[test]
    fn an_employee_end_of_any_relations_format_is_never_a_dangling_entity() {
        // Entity relations (not RBAC) allow no `employee` type, which the
        // cell check reports; the reference is still an employee's.
        let rel = "Parent Entity Source ID,Parent Entity Type,Entity Source ID,Entity Type\n\
                   583231,identity,ada@example.com,EMPLOYEE\n";
        let mut entities = EntityKeys::default();
        let ent =
            "Name,Entity Type,Source System,Source ID,Source Type\nada,identity,gh,583231,user\n";
        collect_entities(ent.as_bytes(), &opts(), &mut entities).expect("reads");
        let employees = EmployeeKeys::default();
        for (rbac, with_employees) in [(false, false), (true, false), (false, true)] {
            let src = RefSources {
                bundle: None,
                external: Some(&entities),
                rbac,
                employees: with_employees.then_some(&employees),
            };
            let found = check_references(rel.as_bytes(), &opts(), src).expect("reads");
            let codes: Vec<&str> = found.iter().map(|d| d.rule.code).collect();
            let want = if with_employees { "B014" } else { "B010" };
            assert_eq!(codes, [want], "rbac {rbac}: {found:?}");
        }
        // Neither entities nor employees: still one info, saying both.
        let src = RefSources {
            bundle: None,
            external: None,
            rbac: true,
            employees: None,
        };
        let found = check_references(rel.as_bytes(), &opts(), src).expect("reads");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0].message,
            "the Source IDs of this relations file were not checked against any entities, nor its 1 employee end (Entity Type `employee`) against an employees CSV"
        );
    }
}
