//! A compiled format table and its parse: the TOML of `rules/<format>.toml`
//! read into raw serde structs (`deny_unknown_fields`, so that a typo in a
//! table is a test failure, not a silently ignored rule), then each part
//! of the table compiled against the columns.

use super::bindings::{json_rules, JsonRule, RawJson};
use super::columns::{columns, Column, ColumnId, RawColumn, Scope};
use super::conditions::{
    equal, one_or_all, order, requires, Equal, OneOrAll, Order, RawEqual, RawOneOrAll, RawOrder,
    RawRequires, Requires,
};
use super::cross::{
    exclusive, identity, unique, Exclusive, Identity, RawExclusive, RawIdentity, RawUnique, Unique,
};
use super::error::TableError;
use super::references::{references, RawReference, Reference};
use super::unchecked::{unchecked, RawUnchecked, Unchecked};
use serde::Deserialize;

/// Which way a file travels: it decides nothing in the checker, but `formats`
/// and the docs show it, and detection prefers nothing by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    Upload,
    Download,
    /// A CSV that only travels inside a ZIP upload.
    ZipMember,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    name: String,
    title: String,
    spec_section: String,
    // Upload or download: the grammar asks every table to say which, and
    // serde holds it to the two values; no check depends on it.
    #[allow(dead_code)]
    direction: Direction,
    #[serde(default)]
    file_hints: Vec<String>,
    #[serde(default)]
    deprecated: Option<String>,
    #[serde(default)]
    notes: Vec<String>,
    columns: Vec<RawColumn>,
    #[serde(default)]
    requires: Vec<RawRequires>,
    #[serde(default)]
    equal: Vec<RawEqual>,
    #[serde(default)]
    one_or_all: Vec<RawOneOrAll>,
    #[serde(default)]
    json: Vec<RawJson>,
    #[serde(default)]
    order: Vec<RawOrder>,
    #[serde(default)]
    identity: Option<RawIdentity>,
    #[serde(default)]
    unique: Vec<RawUnique>,
    #[serde(default)]
    exclusive: Vec<RawExclusive>,
    #[serde(default)]
    references: Vec<RawReference>,
    #[serde(default)]
    unchecked: Vec<RawUnchecked>,
}

/// A compiled format table.
#[derive(Debug)]
pub struct Table {
    pub name: String,
    pub title: String,
    pub spec_section: String,
    pub(crate) file_hints: Vec<String>,
    pub deprecated: Option<String>,
    pub notes: Vec<String>,
    pub columns: Vec<Column>,
    pub(crate) requires: Vec<Requires>,
    pub(crate) equal: Vec<Equal>,
    pub(crate) one_or_all: Vec<OneOrAll>,
    pub(crate) json: Vec<JsonRule>,
    pub(crate) order: Vec<Order>,
    /// Columns that together identify a person across rows (cross-row
    /// consistency, `identity-*` rules).
    pub(crate) identity: Option<Identity>,
    /// Values (or composites) that must not repeat in a file.
    pub(crate) unique: Vec<Unique>,
    /// Two kinds of row one file cannot hold under one key.
    pub(crate) exclusive: Vec<Exclusive>,
    /// Cells that name a record another file defines: the run's files, a
    /// bundle's other member, `--entities` (the engine of
    /// `src/check/refs.rs`).
    pub(crate) references: Vec<Reference>,
    /// What a file says, once and last, about references no source could
    /// check. A format that has these has its references checked in a pass
    /// after the file's own check (`src/check/refs.rs`), not with the batch.
    pub(crate) unchecked: Vec<Unchecked>,
}

impl Table {
    /// Parses and validates one table, part by part: the columns first,
    /// as every other part names them.
    pub(crate) fn parse(format: &str, text: &str) -> Result<Table, TableError> {
        let raw: RawTable = toml::from_str(text).map_err(|e| TableError::Toml {
            format: format.to_owned(),
            reason: e.to_string(),
        })?;
        if raw.name != format {
            return Err(TableError::Name {
                format: format.to_owned(),
                name: raw.name,
            });
        }
        let columns = columns(format, raw.columns)?;
        let scope = Scope {
            format,
            columns: &columns,
        };
        let requires = requires(&scope, raw.requires)?;
        let equal = equal(&scope, raw.equal)?;
        let one_or_all = one_or_all(&scope, raw.one_or_all)?;
        let json = json_rules(&scope, raw.json)?;
        let order = order(&scope, raw.order)?;
        let identity = identity(&scope, raw.identity)?;
        let unique = unique(&scope, raw.unique)?;
        let exclusive = exclusive(&scope, raw.exclusive)?;
        let references = references(&scope, raw.references)?;
        let unchecked = unchecked(format, raw.unchecked, &references)?;
        Ok(Table {
            name: raw.name,
            title: raw.title,
            spec_section: raw.spec_section,
            file_hints: raw.file_hints,
            deprecated: raw.deprecated,
            notes: raw.notes,
            columns,
            requires,
            equal,
            one_or_all,
            json,
            order,
            identity,
            unique,
            exclusive,
            references,
            unchecked,
        })
    }

    pub(crate) fn column(&self, name: &str) -> Option<ColumnId> {
        self.columns.iter().position(|c| c.name == name)
    }
}
