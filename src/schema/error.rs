//! Why a table does not compile: a bug in `rules/`, caught by the tests.
//! Every variant names the file (the format), the part of the table it is
//! in (the key) and the reason, and reads as one line of the form
//! `rules/<format>.toml: <part>: <reason>`.

use super::json::GrammarError;
use super::shape::ShapeError;

/// A table that does not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// Not TOML of the table grammar (a typo in a key, a wrong type).
    #[error("rules/{format}.toml: {reason}")]
    Toml { format: String, reason: String },
    #[error("rules/{format}.toml: name = {name:?} does not match the registry name")]
    Name { format: String, name: String },
    #[error("rules/{format}.toml: column {column:?} is defined twice")]
    ColumnTwice { format: String, column: String },
    #[error("rules/{format}.toml: column {column:?}: {source}")]
    Shape {
        format: String,
        column: String,
        #[source]
        source: ShapeError,
    },
    /// A column's key that its requirement or shape does not take.
    #[error("rules/{format}.toml: column {column:?}: {reason}")]
    Column {
        format: String,
        column: String,
        reason: &'static str,
    },
    /// A condition, `[[requires]]`, `[[equal]]`, `[[one_or_all]]`,
    /// `[[json]]` or `[[order]]` names a column the table lacks.
    #[error("rules/{format}.toml: unknown column {column:?} in a condition")]
    UnknownColumn { format: String, column: String },
    #[error(
        "rules/{format}.toml: condition on {column:?} needs exactly one of `is` or a non-empty `in`"
    )]
    Condition { format: String, column: String },
    #[error("rules/{format}.toml: requires ({reason}) needs exactly one of `all` or `any`")]
    Requires { format: String, reason: String },
    #[error("rules/{format}.toml: one_or_all needs at least two columns")]
    OneOrAll { format: String },
    #[error("rules/{format}.toml: [[json]] binds {column:?}, whose shape is not JSON")]
    JsonShape { format: String, column: String },
    /// A `[[json]]` names a schema, and `rules/json.toml` does not compile.
    #[error("rules/{format}.toml: {source}")]
    Grammars {
        format: String,
        #[source]
        source: GrammarError,
    },
    #[error(
        "rules/{format}.toml: [[json]] on {column:?}: no schema {schema:?} in rules/json.toml"
    )]
    JsonSchema {
        format: String,
        column: String,
        schema: String,
    },
    #[error("rules/{format}.toml: [[json]] on {column:?} needs `schema = \"<name>\"` or `grammar = \"filter\"` with `type_column`")]
    JsonGrammar { format: String, column: String },
    #[error("rules/{format}.toml: [[order]] needs two columns of the same date shape: {earlier:?}, {later:?}")]
    Order {
        format: String,
        earlier: String,
        later: String,
    },
    /// `[identity]` or a `[[unique]]` (the `key`) names no column.
    #[error("rules/{format}.toml: {key} needs at least one column")]
    NoColumns { format: String, key: &'static str },
    #[error("rules/{format}.toml: {key} names unknown column {column:?}")]
    UnknownColumnIn {
        format: String,
        key: &'static str,
        column: String,
    },
    #[error("rules/{format}.toml: {key} names column {column:?} twice")]
    ColumnTwiceIn {
        format: String,
        key: &'static str,
        column: String,
    },
    #[error("rules/{format}.toml: identity needs exactly three columns (the cross-row state stores two partners per value)")]
    IdentityColumns { format: String },
    /// A `[[references]]` entry, by its referring column; the target's
    /// side too, once every table is parsed.
    #[error("rules/{format}.toml: [[references]] on {column:?}: {reason}")]
    Reference {
        format: String,
        column: String,
        reason: String,
    },
    #[error("rules/{format}.toml: [[references]] to {target:?} disagree on `unchecked`")]
    UncheckedDisagree { format: String, target: String },
    #[error("rules/{format}.toml: at most one target is counted (`unchecked = \"count\"`)")]
    UncheckedCounts { format: String },
    #[error("rules/{format}.toml: too many targets say what went unchecked")]
    UncheckedTargets { format: String },
    /// A set of targets the engine may meet has no `[[unchecked]]` words.
    #[error("rules/{format}.toml: no [[unchecked]] for targets {targets:?}")]
    UncheckedMissing {
        format: String,
        targets: Vec<String>,
    },
    /// An `[[unchecked]]` entry, by its targets.
    #[error("rules/{format}.toml: [[unchecked]] {targets:?}: {reason}")]
    Unchecked {
        format: String,
        targets: Vec<String>,
        reason: String,
    },
}
