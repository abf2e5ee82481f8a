//! The shapes a cell can be required to have, compiled from a table's
//! `shape = "..."` plus its parameters (`values`, `min`, `max`, `braces`).

use serde::Deserialize;

/// How `true`/`false` are spelled in a format. Other case variants of the
/// same words are a warning (a lenient parser reads them; a strict one may
/// not); anything else is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoolSpelling {
    Lower,
    Upper,
}

impl BoolSpelling {
    pub(crate) fn words(self) -> (&'static str, &'static str) {
        match self {
            BoolSpelling::Lower => ("true", "false"),
            BoolSpelling::Upper => ("TRUE", "FALSE"),
        }
    }
}

/// Whether a list is written inside `{...}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Braces {
    Required,
    Optional,
    Forbidden,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonKind {
    Object,
    Array,
    Any,
}

/// Date and time shapes, each named after what the spec says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateShape {
    /// `MM/DD/YYYY` (employees).
    Mdy,
    /// `YYYY-MM-DD` (reviews Updated At).
    Ymd,
    /// ISO 8601 date-time with a required offset (campaigns).
    DateTimeOffset,
    /// ISO 8601 date-time with required fractional seconds (findings).
    DateTimeFraction,
    /// ISO 8601 date or date-time; time, fraction and offset optional.
    DateTimeIso,
    /// `YYYY-MM-DD HH:MM:SS +0000 UTC` (downloads' Timestamp).
    TimestampUtc,
    /// `YYYY-MM-DD HH:MM:SS` (playbook templates).
    DateTimeLocal,
}

impl DateShape {
    /// What the shape looks like, for messages.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            DateShape::Mdy => "MM/DD/YYYY (e.g. 03/07/2024)",
            DateShape::Ymd => "YYYY-MM-DD (e.g. 2024-03-07)",
            DateShape::DateTimeOffset => {
                "an ISO 8601 date-time with a time-zone offset (e.g. 2024-03-07T09:30:00+01:00 or 2024-03-07T08:30:00Z)"
            }
            DateShape::DateTimeFraction => {
                "an ISO 8601 date-time with fractional seconds (e.g. 2024-03-07T09:30:00.000Z)"
            }
            DateShape::DateTimeIso => "an ISO 8601 date or date-time (e.g. 2024-03-07T09:30:00Z)",
            DateShape::TimestampUtc => "YYYY-MM-DD HH:MM:SS +0000 UTC (e.g. 2024-03-07 09:30:00 +0000 UTC)",
            DateShape::DateTimeLocal => "YYYY-MM-DD HH:MM:SS (e.g. 2024-03-07 09:30:00)",
        }
    }
}

/// A compiled cell shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Text,
    Email,
    Date(DateShape),
    Bool(BoolSpelling),
    Integer {
        min: Option<i64>,
        max: Option<i64>,
    },
    Enum(Vec<String>),
    /// Comma-separated list; `values` restricts the elements when given.
    List {
        values: Option<Vec<String>>,
        braces: Braces,
    },
    /// `<app>/<integration_id>`.
    IntegrationRef,
    Json(JsonKind),
    /// A colon-separated resource name.
    Brn,
    /// An absolute http(s) URL.
    Url,
}

impl Shape {
    /// The name used in tables and docs.
    pub fn name(&self) -> &'static str {
        match self {
            Shape::Text => "text",
            Shape::Email => "email",
            Shape::Date(DateShape::Mdy) => "date-mdy",
            Shape::Date(DateShape::Ymd) => "date-ymd",
            Shape::Date(DateShape::DateTimeOffset) => "datetime-offset",
            Shape::Date(DateShape::DateTimeFraction) => "datetime-fraction",
            Shape::Date(DateShape::DateTimeIso) => "datetime-iso",
            Shape::Date(DateShape::TimestampUtc) => "timestamp-utc",
            Shape::Date(DateShape::DateTimeLocal) => "datetime-local",
            Shape::Bool(BoolSpelling::Lower) => "boolean",
            Shape::Bool(BoolSpelling::Upper) => "boolean-upper",
            Shape::Integer { .. } => "integer",
            Shape::Enum(_) => "enum",
            Shape::List { .. } => "list",
            Shape::IntegrationRef => "integration-ref",
            Shape::Json(JsonKind::Object) => "json-object",
            Shape::Json(JsonKind::Array) => "json-array",
            Shape::Json(JsonKind::Any) => "json",
            Shape::Brn => "brn",
            Shape::Url => "url",
        }
    }

    /// A one-line description for `bdxlint formats` and messages.
    pub fn describe(&self) -> String {
        match self {
            Shape::Text => "text".into(),
            Shape::Email => "e-mail address".into(),
            Shape::Date(d) => d.describe().into(),
            Shape::Bool(s) => {
                let (t, f) = s.words();
                format!("{t} or {f}")
            }
            Shape::Integer { min, max } => match (min, max) {
                (Some(a), Some(b)) => format!("integer from {a} to {b}"),
                (Some(a), None) => format!("integer of at least {a}"),
                (None, Some(b)) => format!("integer of at most {b}"),
                (None, None) => "integer".into(),
            },
            Shape::Enum(v) => format!("one of {}", v.join(", ")),
            Shape::List { values, braces } => {
                let inner = match values {
                    Some(v) => format!("comma-separated list of {}", v.join(", ")),
                    None => "comma-separated list".into(),
                };
                match braces {
                    Braces::Required => format!("{inner}, inside {{...}}"),
                    Braces::Optional => format!("{inner}, optionally inside {{...}}"),
                    Braces::Forbidden => inner,
                }
            }
            Shape::IntegrationRef => "<app>/<integration_id>".into(),
            Shape::Json(JsonKind::Object) => "JSON object".into(),
            Shape::Json(JsonKind::Array) => "JSON array".into(),
            Shape::Json(JsonKind::Any) => "JSON text".into(),
            Shape::Brn => "colon-separated resource name".into(),
            Shape::Url => "http(s) URL".into(),
        }
    }

    pub(crate) fn compile(
        name: &str,
        values: Option<Vec<String>>,
        min: Option<i64>,
        max: Option<i64>,
        braces: Option<Braces>,
    ) -> Result<Shape, ShapeError> {
        let takes_values = matches!(name, "enum" | "list");
        if values.is_some() && !takes_values {
            return Err(ShapeError::NoValues(name.to_owned()));
        }
        if (min.is_some() || max.is_some()) && name != "integer" {
            return Err(ShapeError::NoRange(name.to_owned()));
        }
        if braces.is_some() && name != "list" {
            return Err(ShapeError::NoBraces(name.to_owned()));
        }
        let shape = match name {
            "text" => Shape::Text,
            "email" => Shape::Email,
            "date-mdy" => Shape::Date(DateShape::Mdy),
            "date-ymd" => Shape::Date(DateShape::Ymd),
            "datetime-offset" => Shape::Date(DateShape::DateTimeOffset),
            "datetime-fraction" => Shape::Date(DateShape::DateTimeFraction),
            "datetime-iso" => Shape::Date(DateShape::DateTimeIso),
            "timestamp-utc" => Shape::Date(DateShape::TimestampUtc),
            "datetime-local" => Shape::Date(DateShape::DateTimeLocal),
            "boolean" => Shape::Bool(BoolSpelling::Lower),
            "boolean-upper" => Shape::Bool(BoolSpelling::Upper),
            "integer" => {
                if let (Some(min), Some(max)) = (min, max) {
                    if min > max {
                        return Err(ShapeError::MinOverMax { min, max });
                    }
                }
                Shape::Integer { min, max }
            }
            "enum" => match values {
                Some(v) if !v.is_empty() => Shape::Enum(v),
                _ => return Err(ShapeError::EnumValues),
            },
            "list" => Shape::List {
                values,
                braces: braces.unwrap_or(Braces::Forbidden),
            },
            "integration-ref" => Shape::IntegrationRef,
            "json-object" => Shape::Json(JsonKind::Object),
            "json-array" => Shape::Json(JsonKind::Array),
            "json" => Shape::Json(JsonKind::Any),
            "brn" => Shape::Brn,
            "url" => Shape::Url,
            other => return Err(ShapeError::Unknown(other.to_owned())),
        };
        Ok(shape)
    }
}

/// Why a column's `shape` and its parameters do not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    #[error("shape {0:?} takes no `values`")]
    NoValues(String),
    #[error("shape {0:?} takes no `min`/`max`")]
    NoRange(String),
    #[error("shape {0:?} takes no `braces`")]
    NoBraces(String),
    #[error("min {min} is greater than max {max}")]
    MinOverMax { min: i64, max: i64 },
    #[error("shape \"enum\" needs non-empty `values`")]
    EnumValues,
    #[error("unknown shape {0:?}")]
    Unknown(String),
}

#[cfg(test)]
mod documented {
    use super::*;

    /// One shape of each name. The match has no catch-all, so a new shape
    /// (or a new date, spelling or JSON kind) does not compile until it is
    /// listed here too, and then the test below asks for its row in the
    /// Shapes table of `rules/README.md`.
    fn every_shape() -> Vec<Shape> {
        use DateShape as D;
        let all = vec![
            Shape::Text,
            Shape::Email,
            Shape::Date(D::Mdy),
            Shape::Date(D::Ymd),
            Shape::Date(D::DateTimeOffset),
            Shape::Date(D::DateTimeFraction),
            Shape::Date(D::DateTimeIso),
            Shape::Date(D::TimestampUtc),
            Shape::Date(D::DateTimeLocal),
            Shape::Bool(BoolSpelling::Lower),
            Shape::Bool(BoolSpelling::Upper),
            Shape::Integer {
                min: None,
                max: None,
            },
            Shape::Enum(vec!["a".into()]),
            Shape::List {
                values: None,
                braces: Braces::Forbidden,
            },
            Shape::IntegrationRef,
            Shape::Json(JsonKind::Object),
            Shape::Json(JsonKind::Array),
            Shape::Json(JsonKind::Any),
            Shape::Brn,
            Shape::Url,
        ];
        for s in &all {
            match s {
                Shape::Text
                | Shape::Email
                | Shape::Date(
                    D::Mdy
                    | D::Ymd
                    | D::DateTimeOffset
                    | D::DateTimeFraction
                    | D::DateTimeIso
                    | D::TimestampUtc
                    | D::DateTimeLocal,
                )
                | Shape::Bool(BoolSpelling::Lower | BoolSpelling::Upper)
                | Shape::Integer { .. }
                | Shape::Enum(_)
                | Shape::List { .. }
                | Shape::IntegrationRef
                | Shape::Json(JsonKind::Object | JsonKind::Array | JsonKind::Any)
                | Shape::Brn
                | Shape::Url => {}
            }
        }
        all
    }

    /// The names in the first column of the Shapes table of
    /// `rules/README.md` (a row may name several: `json-object`, `json`).
    fn documented() -> Vec<String> {
        let readme = include_str!("../../rules/README.md");
        let start = readme.find("### Shapes").expect("a Shapes section");
        readme[start..]
            .lines()
            .skip_while(|l| !l.starts_with('|'))
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .filter_map(|l| l.split('|').nth(1))
            .flat_map(|cell| cell.split(','))
            .map(|n| n.trim().trim_matches('`').to_owned())
            .collect()
    }

    #[test]
    fn the_shapes_table_names_every_shape_and_only_those() {
        let mut code: Vec<&str> = every_shape().iter().map(Shape::name).collect();
        let mut doc = documented();
        for name in &doc {
            let values = matches!(name.as_str(), "enum" | "list").then(|| vec!["a".to_owned()]);
            let shape = Shape::compile(name, values, None, None, None)
                .unwrap_or_else(|e| panic!("rules/README.md names {name:?}: {e}"));
            assert_eq!(shape.name(), name);
        }
        code.sort_unstable();
        doc.sort_unstable();
        assert_eq!(doc, code, "the Shapes table of rules/README.md");
    }
}
