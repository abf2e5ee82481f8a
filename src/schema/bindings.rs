//! A table's `[[json]]`: JSON columns bound to a grammar of
//! `rules/json.toml` (a schema, or the filter-expression grammar), on the
//! rows where their conditions hold.

use super::columns::{ColumnId, Scope};
use super::conditions::{condition, Condition, RawCondition};
use super::error::TableError;
use super::json;
use super::shape::Shape;
use super::trace::{Clause, Trace};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawJson {
    column: String,
    #[serde(default)]
    schema: Option<String>,
    #[serde(default)]
    grammar: Option<String>,
    #[serde(default)]
    type_column: Option<String>,
    #[serde(default)]
    when: Vec<RawCondition>,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

/// Which grammar a JSON cell follows.
#[derive(Debug)]
pub enum Grammar {
    /// A schema of `rules/json.toml`.
    Schema(&'static json::Spec),
    /// The filter-expression grammar; the fields allowed depend on the
    /// filter type in `type_column`.
    Filter { type_column: ColumnId },
}

/// A JSON column bound to a grammar, checked on rows where every `when`
/// condition holds.
#[derive(Debug)]
pub struct JsonRule {
    pub(crate) column: ColumnId,
    pub(crate) grammar: Grammar,
    pub(crate) when: Vec<Condition>,
    pub(crate) trace: Trace,
}

/// Compiles the `[[json]]` bindings: each names a JSON column and exactly
/// one grammar.
pub(super) fn json_rules(
    scope: &Scope<'_>,
    raw: Vec<RawJson>,
) -> Result<Vec<JsonRule>, TableError> {
    let mut rules = Vec::with_capacity(raw.len());
    for j in raw {
        let column = scope.find(&j.column)?;
        if !matches!(scope.columns[column].shape, Shape::Json(_)) {
            return Err(TableError::JsonShape {
                format: scope.format.to_owned(),
                column: j.column,
            });
        }
        let grammar = grammar(
            scope,
            &j.column,
            j.schema,
            j.grammar.as_deref(),
            j.type_column,
        )?;
        let when = j
            .when
            .into_iter()
            .map(|c| condition(scope, c))
            .collect::<Result<_, _>>()?;
        rules.push(JsonRule {
            column,
            grammar,
            when,
            trace: Trace::new(j.spec, j.clause),
        });
    }
    Ok(rules)
}

/// The grammar a `[[json]]` on `column` names.
fn grammar(
    scope: &Scope<'_>,
    column: &str,
    schema: Option<String>,
    grammar: Option<&str>,
    type_column: Option<String>,
) -> Result<Grammar, TableError> {
    let format = || scope.format.to_owned();
    match (schema, grammar, type_column) {
        (Some(name), None, None) => {
            let g = json::grammars().map_err(|e| TableError::Grammars {
                format: format(),
                source: e.clone(),
            })?;
            let spec = g.schemas.get(&name).ok_or_else(|| TableError::JsonSchema {
                format: format(),
                column: column.to_owned(),
                schema: name,
            })?;
            Ok(Grammar::Schema(spec))
        }
        (None, Some("filter"), Some(t)) => Ok(Grammar::Filter {
            type_column: scope.find(&t)?,
        }),
        _ => Err(TableError::JsonGrammar {
            format: format(),
            column: column.to_owned(),
        }),
    }
}
