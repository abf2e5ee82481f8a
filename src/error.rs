//! Fatal errors: what stops a file (or the run) from being checked at all.
//! Findings about a file's content are never errors; they are diagnostics.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: cannot tell the format from the header; {candidates}; pass --format NAME")]
    Detect { path: PathBuf, candidates: String },
    #[error("unknown format {name:?}; known formats: {known}")]
    UnknownFormat { name: String, known: String },
    #[error("{0}")]
    Table(#[from] crate::schema::TableError),
    #[error("{0}")]
    Usage(String),
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

impl From<&crate::schema::TableError> for Error {
    fn from(e: &crate::schema::TableError) -> Self {
        Error::Table(e.clone())
    }
}
