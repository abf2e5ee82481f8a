//! Grammars of JSON cells, as data: `rules/json.toml` describes metadata,
//! labels and recommendation values as small schemas, and holds the field
//! lists of the filter-expression grammar. Format tables bind a column to a
//! grammar with `[[json]]`. The checks live in `check::grammar` and
//! `check::filter`.

use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

const TEXT: &str = include_str!("../../rules/json.toml");

/// The type a JSON value must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JsonType {
    Any,
    String,
    Number,
    Boolean,
    Object,
    Array,
    Null,
}

/// What a key that a schema does not list gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Unknown {
    #[default]
    Warn,
    Allow,
}

/// A string shape checked inside JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StringShape {
    IntegrationRef,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    #[serde(default, rename = "type")]
    ty: Option<JsonType>,
    #[serde(default)]
    keys: BTreeMap<String, RawSpec>,
    #[serde(default)]
    unknown: Option<Unknown>,
    #[serde(default)]
    required: bool,
    #[serde(default)]
    items: Option<Box<RawSpec>>,
    #[serde(default)]
    values: Option<Vec<String>>,
    #[serde(default)]
    shape: Option<StringShape>,
    #[serde(default, rename = "ref")]
    reference: Option<String>,
}

/// A compiled schema node.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    pub ty: JsonType,
    /// Object members, sorted by key.
    pub keys: Vec<(String, Spec)>,
    pub unknown: Unknown,
    pub required: bool,
    pub items: Option<Box<Spec>>,
    pub values: Option<Vec<String>>,
    pub shape: Option<StringShape>,
}

/// What a comparison operator takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Operand {
    String,
    /// An array of strings.
    Strings,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFilter {
    operators: BTreeMap<String, Operand>,
    nested: BTreeMap<String, String>,
    #[serde(default)]
    hints: BTreeMap<String, String>,
    fields: BTreeMap<String, Vec<String>>,
}

/// The data of the filter-expression grammar.
#[derive(Debug)]
pub struct FilterData {
    /// Comparison operators (`_eq`, `_in`) and what they take.
    pub operators: BTreeMap<String, Operand>,
    /// Field name -> the filter type whose fields it takes as sub-fields.
    pub nested: BTreeMap<String, String>,
    /// Help for fields that are near a listed one by more than spelling.
    pub hints: BTreeMap<String, String>,
    /// Filter type -> its fields.
    pub fields: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    schemas: BTreeMap<String, RawSpec>,
    filter: RawFilter,
}

/// Everything `rules/json.toml` defines.
#[derive(Debug)]
pub struct Grammars {
    pub schemas: HashMap<String, Spec>,
    pub filter: FilterData,
}

impl Grammars {
    pub fn parse(text: &str) -> Result<Grammars, String> {
        let raw: RawFile = toml::from_str(text).map_err(|e| e.to_string())?;
        let mut schemas = HashMap::new();
        for name in raw.schemas.keys() {
            let spec = compile(&raw.schemas, &raw.schemas[name], &mut vec![name.clone()])
                .map_err(|m| format!("schema {name:?}: {m}"))?;
            schemas.insert(name.clone(), spec);
        }
        let f = raw.filter;
        for (field, ty) in &f.nested {
            if !f.fields.contains_key(ty) {
                return Err(format!(
                    "filter.nested: {field:?} names type {ty:?}, which has no field list"
                ));
            }
        }
        Ok(Grammars {
            schemas,
            filter: FilterData {
                operators: f.operators,
                nested: f.nested,
                hints: f.hints,
                fields: f.fields,
            },
        })
    }
}

fn compile(
    all: &BTreeMap<String, RawSpec>,
    raw: &RawSpec,
    path: &mut Vec<String>,
) -> Result<Spec, String> {
    if let Some(name) = &raw.reference {
        let alone = raw.ty.is_none()
            && raw.keys.is_empty()
            && raw.unknown.is_none()
            && raw.items.is_none()
            && raw.values.is_none()
            && raw.shape.is_none();
        if !alone {
            return Err(format!(
                "`ref = {name:?}` takes no other keys but `required`"
            ));
        }
        if path.contains(name) {
            return Err(format!("`ref = {name:?}` refers to itself"));
        }
        let target = all
            .get(name)
            .ok_or_else(|| format!("`ref = {name:?}` names no schema"))?;
        path.push(name.clone());
        let mut spec = compile(all, target, path)?;
        path.pop();
        spec.required = raw.required;
        return Ok(spec);
    }
    let ty = raw.ty.ok_or("a schema needs `type` (or `ref`)")?;
    if !raw.keys.is_empty() && ty != JsonType::Object {
        return Err("`keys` needs type = \"object\"".into());
    }
    if raw.items.is_some() && ty != JsonType::Array {
        return Err("`items` needs type = \"array\"".into());
    }
    if (raw.values.is_some() || raw.shape.is_some()) && ty != JsonType::String {
        return Err("`values` and `shape` need type = \"string\"".into());
    }
    let mut keys = Vec::new();
    for (k, v) in &raw.keys {
        keys.push((
            k.clone(),
            compile(all, v, path).map_err(|m| format!("{k}: {m}"))?,
        ));
    }
    Ok(Spec {
        ty,
        keys,
        unknown: raw.unknown.unwrap_or_default(),
        required: raw.required,
        items: match &raw.items {
            Some(i) => Some(Box::new(compile(all, i, path)?)),
            None => None,
        },
        values: raw.values.clone(),
        shape: raw.shape,
    })
}

/// The grammars, parsed once. An error is a bug in `rules/json.toml`,
/// caught by the tests.
pub fn grammars() -> Result<&'static Grammars, &'static str> {
    static G: OnceLock<Result<Grammars, String>> = OnceLock::new();
    G.get_or_init(|| Grammars::parse(TEXT).map_err(|m| format!("rules/json.toml: {m}")))
        .as_ref()
        .map_err(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_grammars_parse() {
        let g = grammars().expect("rules/json.toml parses");
        let labels = &g.schemas["finding-labels"];
        let label = labels
            .items
            .as_ref()
            .and_then(|i| i.items.as_ref())
            .expect("array of arrays");
        assert_eq!(
            **label, g.schemas["label"],
            "ref resolves to the label schema"
        );
        assert!(g.filter.fields.contains_key("REVIEWS"));
    }

    #[test]
    fn bad_schemas_are_rejected() {
        let base = "[filter]\noperators={}\nnested={}\nfields={}\n";
        for (text, want) in [
            ("[schemas.a]\nref = \"a\"\n", "itself"),
            ("[schemas.a]\nref = \"b\"\n", "names no schema"),
            (
                "[schemas.a]\ntype = \"string\"\nkeys = { x = { type = \"any\" } }\n",
                "keys",
            ),
            ("[schemas.a]\ntype = \"strnig\"\n", "strnig"),
            ("[schemas.a]\ntype = \"object\"\nextra = 1\n", "extra"),
        ] {
            let e = Grammars::parse(&format!("{text}{base}")).expect_err(text);
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
