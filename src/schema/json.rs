//! Grammars of JSON cells, as data: `rules/json.toml` describes metadata,
//! labels and recommendation values as small schemas, and holds the field
//! lists of the filter-expression grammar. Format tables bind a column to a
//! grammar with `[[json]]`. The checks live in `check::grammar` and
//! `check::filter_grammar`.

use crate::json::{lex, Kind};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::sync::OnceLock;

const TEXT: &str = include_str!("../../rules/json.toml");

/// The type a JSON value must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum JsonType {
    Any,
    String,
    Number,
    Boolean,
    Object,
    Array,
    Null,
}

impl JsonType {
    /// Whether a value of kind `kind` has this type.
    pub(crate) fn fits(self, kind: Kind) -> bool {
        matches!(
            (self, kind),
            (JsonType::Any, _)
                | (JsonType::String, Kind::String)
                | (JsonType::Number, Kind::Number)
                | (JsonType::Boolean, Kind::Bool)
                | (JsonType::Object, Kind::Object)
                | (JsonType::Array, Kind::Array)
                | (JsonType::Null, Kind::Null)
        )
    }
}

/// What a key that a schema does not list gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Unknown {
    #[default]
    Warn,
    Allow,
}

/// A string shape checked inside JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum StringShape {
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
    #[serde(default)]
    null: Option<NullIs>,
    #[serde(default)]
    severity: Option<crate::diagnostic::Severity>,
}

/// What a `null` gets where a schema wants another type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum NullIs {
    /// A `json-invalid-value` warning: the spec allows an empty value, and
    /// `null` may be what it means.
    Warning,
}

/// A compiled schema node.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    pub(crate) ty: JsonType,
    /// Object members, sorted by key.
    pub(crate) keys: Vec<(String, Spec)>,
    pub(crate) unknown: Unknown,
    pub(crate) required: bool,
    pub(crate) items: Option<Box<Spec>>,
    pub(crate) values: Option<Vec<String>>,
    pub(crate) shape: Option<StringShape>,
    /// A `null` here is a warning, not a type mismatch.
    pub(crate) null_warns: bool,
    /// Severity of a wrong type or value here, where the spec's words are
    /// soft about it; `None` keeps the rule's.
    pub(crate) severity: Option<crate::diagnostic::Severity>,
    /// `keys` as words to match member keys on, by length, each with its
    /// index in `keys`: a member key is compared only with the keys of its
    /// length (at most one or two), not with every key.
    words: Vec<(KeyWords, usize)>,
    /// Where the keys of each length are in `words`, by length.
    by_len: Vec<(usize, usize)>,
    /// The required keys among the first 64, as bits of their indexes.
    pub(crate) required_keys: u64,
    /// The kinds of value that meet this spec whatever they hold, as bits
    /// of `Kind as u8`: see [`Spec::accepts_as_is`].
    as_is: u8,
    /// The keys as [`Spec::key_token`] matches them, for a quote of 1 and
    /// of 2 bytes, sorted by their first byte.
    tokens: [Vec<KeyToken>; 2],
    /// By first byte, where the tokens starting with it are in `tokens`
    /// (256 entries, or none when no key has a token).
    lead_spans: Vec<(u16, u16)>,
}

/// A key as it stands in a JSON text after its opening quote, when it
/// needs no escapes: its bytes, the closing quote and the colon.
#[derive(Debug, Clone, PartialEq)]
struct KeyToken {
    /// The token's bytes as two little-endian numbers, zero past its end.
    bytes: [u128; 2],
    /// Ones over the token's bytes.
    masks: [u128; 2],
    /// Its length in bytes, at most 32.
    len: usize,
    /// The key's index in `keys`.
    at: usize,
}

impl KeyToken {
    /// The token of `key` (index `at`) with quotes of `q` bytes, if the
    /// key is written as it is in JSON and the token fits in 32 bytes.
    fn of(key: &str, at: usize, q: usize) -> Option<KeyToken> {
        let plain = key.bytes().all(|c| c >= 0x20 && c != b'"' && c != b'\\');
        let mut token = key.as_bytes().to_vec();
        token.extend(std::iter::repeat_n(b'"', q));
        token.push(b':');
        if !plain || token.len() > 32 {
            return None;
        }
        let mut bytes = [0u8; 32];
        bytes[..token.len()].copy_from_slice(&token);
        let mut ones = [0u8; 32];
        ones[..token.len()].fill(0xFF);
        let halves = |a: &[u8; 32]| {
            let (lo, hi) = a.split_at(16);
            let num = |h: &[u8]| {
                let mut le = [0u8; 16];
                le.copy_from_slice(h);
                u128::from_le_bytes(le)
            };
            [num(lo), num(hi)]
        };
        Some(KeyToken {
            bytes: halves(&bytes),
            masks: halves(&ones),
            len: token.len(),
            at,
        })
    }
}

/// A key's length and its first 16 bytes as two little-endian words, zero
/// past its end. Keys are short: two word compares settle most of them
/// where a string compare calls `memcmp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct KeyWords {
    len: usize,
    head: [u64; 2],
}

impl KeyWords {
    /// The key at `key` in `text`. The text may go on past the key: a
    /// short key is then read with one 8-byte load and a mask.
    #[inline]
    fn of(text: &[u8], key: &Range<usize>) -> KeyWords {
        // The `n` bytes (1 to 8) from `from`.
        let word = |from: usize, n: usize| -> u64 {
            let w = match text.get(from..).and_then(<[u8]>::first_chunk::<8>) {
                Some(w) => u64::from_le_bytes(*w),
                None => text
                    .get(from..from + n)
                    .unwrap_or_default()
                    .iter()
                    .rev()
                    .fold(0, |w, &c| w << 8 | u64::from(c)),
            };
            if n == 8 {
                w
            } else {
                w & ((1 << (8 * n)) - 1)
            }
        };
        let len = key.len();
        let first = if len == 0 {
            0
        } else {
            word(key.start, len.min(8))
        };
        let second = if len <= 8 {
            0
        } else {
            word(key.start + 8, (len - 8).min(8))
        };
        KeyWords {
            len,
            head: [first, second],
        }
    }
}

impl Spec {
    /// Whether a value checked against this spec can get a warning: an
    /// unknown key of an object (`unknown = "warn"`), a `null` marked
    /// `null = "warning"`, or a node whose `severity` is a warning, here or
    /// below. Traceability asks such a binding to name its clause.
    pub(crate) fn can_warn(&self) -> bool {
        (self.ty == JsonType::Object && self.unknown == Unknown::Warn)
            || self.null_warns
            || self.severity == Some(crate::diagnostic::Severity::Warning)
            || self.keys.iter().any(|(_, k)| k.can_warn())
            || self.items.as_ref().is_some_and(|i| i.can_warn())
    }

    /// Which of `keys` is the member key at `key` in `text` (the text may
    /// go on past it). The same as comparing with each key as a string.
    #[inline]
    pub(crate) fn key_at(&self, text: &[u8], key: Range<usize>) -> Option<usize> {
        let &(from, to) = self.by_len.get(key.len())?;
        let w = KeyWords::of(text, &key);
        let candidates = self.words.get(from..to).unwrap_or_default();
        candidates.iter().find_map(|&(k, at)| {
            // Only a key longer than 16 bytes needs more than its words.
            let long = || {
                let name = self.keys.get(at).map(|(n, _)| n.as_bytes());
                text.get(key.start + 16..key.end) == name.and_then(|n| n.get(16..))
            };
            (k == w && (key.len() <= 16 || long())).then_some(at)
        })
    }

    /// If the text `b` has, from `from` (just past a member key's opening
    /// quote, `Q` bytes a quote as in [`crate::json::Doc::parse_as`]), one
    /// of `keys` with no escapes, its closing quote and the colon with no
    /// space between, as nearly every member key stands: that key's index
    /// and the index just past the colon.
    ///
    /// One read of 16 bytes (two for a long key) and a compare settles
    /// it, where a scan for the end of the key and then a look-up would
    /// read the key twice. `None` says only that the key is not written
    /// so; the caller then scans it and asks [`Spec::key_at`].
    #[inline]
    pub(crate) fn key_token<const Q: usize>(
        &self,
        b: &[u8],
        from: usize,
    ) -> Option<(usize, usize)> {
        let lead = *b.get(from)?;
        let &(start, end) = self.lead_spans.get(usize::from(lead))?;
        let tokens = self
            .tokens
            .get(Q - 1)?
            .get(usize::from(start)..usize::from(end))?;
        let head = lex::chunk16(b, from)?;
        tokens.iter().find_map(|t| {
            if (head ^ t.bytes[0]) & t.masks[0] != 0 {
                return None;
            }
            if t.len > 16 {
                let rest = lex::chunk16(b, from + 16)?;
                if (rest ^ t.bytes[1]) & t.masks[1] != 0 {
                    return None;
                }
            }
            Some((t.at, from + t.len))
        })
    }

    /// Whether a value of kind `kind` meets this spec whatever it holds:
    /// a scalar of the right type with no allowed values or shape to
    /// check. Most object members are such leaves; one bit test settles
    /// them.
    #[inline]
    pub(crate) fn accepts_as_is(&self, kind: Kind) -> bool {
        self.as_is & 1 << kind as u8 != 0
    }

    /// Which of `keys` is `key`.
    pub(crate) fn key_named(&self, key: &str) -> Option<usize> {
        self.key_at(key.as_bytes(), 0..key.len())
    }
}

/// What a comparison operator takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Operand {
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
pub(crate) struct FilterData {
    /// Comparison operators (`_eq`, `_in`) and what they take.
    pub(crate) operators: BTreeMap<String, Operand>,
    /// Field name -> the filter type whose fields it takes as sub-fields.
    pub(crate) nested: BTreeMap<String, String>,
    /// Help for fields that are near a listed one by more than spelling.
    pub(crate) hints: BTreeMap<String, String>,
    /// Filter type -> its fields.
    pub(crate) fields: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    schemas: BTreeMap<String, RawSpec>,
    filter: RawFilter,
}

/// Everything `rules/json.toml` defines.
#[derive(Debug)]
pub(crate) struct Grammars {
    pub(crate) schemas: HashMap<String, Spec>,
    pub(crate) filter: FilterData,
}

impl Grammars {
    pub(crate) fn parse(text: &str) -> Result<Grammars, GrammarError> {
        let raw: RawFile = toml::from_str(text).map_err(|e| GrammarError::Toml(e.to_string()))?;
        let mut schemas = HashMap::new();
        for name in raw.schemas.keys() {
            let spec = compile(&raw.schemas, &raw.schemas[name], &mut vec![name.clone()]).map_err(
                |source| GrammarError::Schema {
                    schema: name.clone(),
                    source,
                },
            )?;
            schemas.insert(name.clone(), spec);
        }
        let f = raw.filter;
        for (field, ty) in &f.nested {
            if !f.fields.contains_key(ty) {
                return Err(GrammarError::Nested {
                    field: field.clone(),
                    ty: ty.clone(),
                });
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
) -> Result<Spec, SpecError> {
    if let Some(name) = &raw.reference {
        let alone = raw.ty.is_none()
            && raw.keys.is_empty()
            && raw.unknown.is_none()
            && raw.items.is_none()
            && raw.values.is_none()
            && raw.shape.is_none()
            && raw.null.is_none()
            && raw.severity.is_none();
        if !alone {
            return Err(SpecProblem::RefNotAlone(name.clone()).into());
        }
        if path.contains(name) {
            return Err(SpecProblem::RefItself(name.clone()).into());
        }
        let target = all
            .get(name)
            .ok_or_else(|| SpecProblem::RefNone(name.clone()))?;
        path.push(name.clone());
        let mut spec = compile(all, target, path)?;
        path.pop();
        spec.required = raw.required;
        return Ok(spec);
    }
    let ty = raw.ty.ok_or(SpecProblem::NoType)?;
    if !raw.keys.is_empty() && ty != JsonType::Object {
        return Err(SpecProblem::Keys.into());
    }
    if raw.items.is_some() && ty != JsonType::Array {
        return Err(SpecProblem::Items.into());
    }
    if (raw.values.is_some() || raw.shape.is_some()) && ty != JsonType::String {
        return Err(SpecProblem::Strings.into());
    }
    let mut keys = Vec::new();
    for (k, v) in &raw.keys {
        keys.push((
            k.clone(),
            compile(all, v, path).map_err(|mut e| {
                e.keys.insert(0, k.clone());
                e
            })?,
        ));
    }
    let mut words: Vec<(KeyWords, usize)> = keys
        .iter()
        .enumerate()
        .map(|(at, (k, _))| (KeyWords::of(k.as_bytes(), &(0..k.len())), at))
        .collect();
    words.sort_by_key(|(w, _)| w.len);
    let longest = words.last().map_or(0, |(w, _)| w.len);
    let by_len = (0..=longest)
        .map(|len| {
            let from = words.partition_point(|(w, _)| w.len < len);
            (from, words.partition_point(|(w, _)| w.len <= len))
        })
        .collect();
    let required_keys = keys
        .iter()
        .take(64)
        .enumerate()
        .filter(|(_, (_, sub))| sub.required)
        .fold(0, |bits, (at, _)| bits | 1 << at);
    let as_is = [
        Kind::Null,
        Kind::Bool,
        Kind::Number,
        Kind::String,
        Kind::Array,
        Kind::Object,
    ]
    .into_iter()
    .filter(|&kind| {
        ty.fits(kind)
            && match kind {
                Kind::Object => ty != JsonType::Object,
                Kind::Array => raw.items.is_none(),
                Kind::String => raw.values.is_none() && raw.shape.is_none(),
                Kind::Null | Kind::Bool | Kind::Number => true,
            }
    })
    .fold(0, |bits, kind| bits | 1 << kind as u8);
    let mut leads: Vec<(u8, usize)> = keys
        .iter()
        .enumerate()
        .filter_map(|(at, (k, _))| Some((*k.as_bytes().first()?, at)))
        .filter(|&(_, at)| KeyToken::of(&keys[at].0, at, 2).is_some())
        .collect();
    leads.sort();
    let tokens = [1, 2].map(|q| {
        leads
            .iter()
            .filter_map(|&(_, at)| KeyToken::of(&keys[at].0, at, q))
            .collect::<Vec<_>>()
    });
    let lead_spans = if leads.is_empty() || leads.len() > usize::from(u16::MAX) {
        Vec::new()
    } else {
        (0..=255u8)
            .map(|c| {
                let from = leads.partition_point(|&(l, _)| l < c);
                let to = leads.partition_point(|&(l, _)| l <= c);
                (from as u16, to as u16)
            })
            .collect()
    };
    Ok(Spec {
        ty,
        as_is,
        tokens,
        lead_spans,
        words,
        by_len,
        required_keys,
        keys,
        unknown: raw.unknown.unwrap_or_default(),
        required: raw.required,
        items: match &raw.items {
            Some(i) => Some(Box::new(compile(all, i, path)?)),
            None => None,
        },
        values: raw.values.clone(),
        shape: raw.shape,
        null_warns: raw.null.is_some(),
        severity: raw.severity,
    })
}

/// The grammars, parsed once. An error is a bug in `rules/json.toml`,
/// caught by the tests.
pub(crate) fn grammars() -> Result<&'static Grammars, &'static GrammarError> {
    static G: OnceLock<Result<Grammars, GrammarError>> = OnceLock::new();
    G.get_or_init(|| Grammars::parse(TEXT)).as_ref()
}

/// Why `rules/json.toml` does not compile: a bug there, caught by the
/// tests.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrammarError {
    /// Not TOML of the grammar file's shape.
    #[error("rules/json.toml: {0}")]
    Toml(String),
    #[error("rules/json.toml: schema {schema:?}: {source}")]
    Schema {
        schema: String,
        #[source]
        source: SpecError,
    },
    #[error(
        "rules/json.toml: filter.nested: {field:?} names type {ty:?}, which has no field list"
    )]
    Nested { field: String, ty: String },
}

/// What is wrong in a schema, under the member keys that lead to it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{problem}", keys.iter().map(|k| format!("{k}: ")).collect::<String>())]
pub struct SpecError {
    /// The member keys from the schema down to the node, outermost first.
    pub(crate) keys: Vec<String>,
    pub(crate) problem: SpecProblem,
}

impl From<SpecProblem> for SpecError {
    fn from(problem: SpecProblem) -> Self {
        SpecError {
            keys: Vec::new(),
            problem,
        }
    }
}

/// What a schema node gets wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SpecProblem {
    #[error("`ref = {0:?}` takes no other keys but `required`")]
    RefNotAlone(String),
    #[error("`ref = {0:?}` refers to itself")]
    RefItself(String),
    #[error("`ref = {0:?}` names no schema")]
    RefNone(String),
    #[error("a schema needs `type` (or `ref`)")]
    NoType,
    #[error("`keys` needs type = \"object\"")]
    Keys,
    #[error("`items` needs type = \"array\"")]
    Items,
    #[error("`values` and `shape` need type = \"string\"")]
    Strings,
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

    /// `spec` and every spec inside it, depth first.
    fn walk<'s>(spec: &'s Spec, out: &mut Vec<&'s Spec>) {
        out.push(spec);
        spec.keys.iter().for_each(|(_, sub)| walk(sub, out));
        spec.items.iter().for_each(|sub| walk(sub, out));
    }

    /// Grammars with one object schema whose keys (TOML-quoted) are `keys`.
    fn with_keys(keys: &[&str]) -> Grammars {
        let mut text = String::from("[schemas.a]\ntype = \"object\"\n[schemas.a.keys]\n");
        for k in keys {
            text.push_str(&format!("\"{k}\" = {{ type = \"any\" }}\n"));
        }
        text.push_str("[filter]\noperators={}\nnested={}\nfields={}\n");
        Grammars::parse(&text).expect("parses")
    }

    /// Every spec of the shipped grammars and of `extra`.
    fn all_specs(extra: &Grammars) -> Vec<&Spec> {
        let mut specs = Vec::new();
        for g in [grammars().expect("grammars"), extra] {
            g.schemas.values().for_each(|s| walk(s, &mut specs));
        }
        specs
    }

    #[test]
    fn key_matching_agrees_with_a_string_compare() {
        // Long keys alike in their first 16 bytes and length, which the
        // words alone cannot tell apart.
        let long = with_keys(&[
            "a key longer than sixteen X",
            "a key longer than sixteen Y",
            "a key longer than sixteen",
            "",
        ]);
        let specs = all_specs(&long);
        let mut checked = 0;
        for spec in &specs {
            let mut candidates: Vec<Vec<u8>> = vec![Vec::new(), b"zz".to_vec()];
            for (k, _) in specs.iter().flat_map(|s| &s.keys) {
                let k = k.as_bytes();
                candidates.push(k.to_vec());
                candidates.push(k[..k.len().saturating_sub(1)].to_vec());
                candidates.push([k, b"s"].concat());
                for i in 0..k.len() {
                    let mut c = k.to_vec();
                    c[i] ^= 0x20;
                    candidates.push(c);
                }
            }
            for key in &candidates {
                let want = spec.keys.iter().position(|(k, _)| k.as_bytes() == key);
                for (before, after) in [("", ""), ("\"", "\":1}"), ("{\"\"", "\"\":\"x\"}")] {
                    let text = [before.as_bytes(), key, after.as_bytes()].concat();
                    let span = before.len()..before.len() + key.len();
                    assert_eq!(spec.key_at(&text, span), want, "{key:?}");
                    checked += 1;
                }
                if let Ok(key) = std::str::from_utf8(key) {
                    assert_eq!(spec.key_named(key), want, "{key:?}");
                }
            }
            let required = spec.keys.iter().take(64).enumerate();
            for (at, (_, sub)) in required {
                assert_eq!(spec.required_keys & 1 << at != 0, sub.required);
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn key_tokens_agree_with_a_scan_and_key_at() {
        // Keys about the 16- and 32-byte reads, alike in their first bytes.
        let long = with_keys(&[
            "a key of thirteen",
            "a key of fourteen",
            "a key longer than sixteen X",
            "a key longer than sixteen XY",
            "a key longer than sixteen XYZ",
            "a key longer than thirty-two bytes",
            "tab\\tkey",
            "",
        ]);
        let specs = all_specs(&long);
        let mut candidates: Vec<String> = vec![String::new(), "zz".into(), "a\\u0020b".into()];
        for (k, _) in specs.iter().flat_map(|s| &s.keys) {
            candidates.push(k.clone());
            candidates.push(k[..k.len().saturating_sub(1)].to_owned());
            candidates.push(format!("{k}s"));
            candidates.push(format!("{k}\\n"));
        }
        let (mut matched, mut checked) = (0, 0);
        for spec in &specs {
            for key in &candidates {
                for (q, doubled) in [(1, false), (2, true)] {
                    for (sep, rest) in [
                        ("", "1}"),
                        ("", ""),
                        (" ", "1}"),
                        ("", "\"a longer value\"}"),
                    ] {
                        let quote = "\"".repeat(q);
                        let text = format!("{{{quote}{key}{quote}{sep}:{rest}");
                        let b = text.as_bytes();
                        let got = if doubled {
                            spec.key_token::<2>(b, 1 + q)
                        } else {
                            spec.key_token::<1>(b, 1 + q)
                        };
                        // What the parser's scan and a look-up say.
                        let end = if doubled {
                            lex::string_end::<2>(b, 1)
                        } else {
                            lex::string_end::<1>(b, 1)
                        };
                        let want = end.and_then(|(end, plain)| {
                            let at = spec.key_at(b, 1 + q..end - q).filter(|_| plain)?;
                            (b.get(end) == Some(&b':')).then_some((at, end + 1))
                        });
                        match got {
                            Some(_) => {
                                assert_eq!(got, want, "{text:?}");
                                matched += 1;
                            }
                            // Only keys that need escapes or do not fit
                            // in 32 bytes, and texts too short for a
                            // 16-byte read, are left to the caller.
                            None => assert!(
                                b.len() < 16
                                    || want.is_none_or(|(at, _)| {
                                        let k = &spec.keys[at].0;
                                        k.is_empty() || k.len() + q + 1 > 32 || k.contains('\t')
                                    }),
                                "{text:?}"
                            ),
                        }
                        checked += 1;
                    }
                }
            }
        }
        assert!(matched > 250 && checked > 10_000, "{matched} of {checked}");
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
            assert!(e.to_string().contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn errors_name_the_file_the_schema_and_the_keys_down_to_the_problem() {
        let base = "[filter]\noperators={}\nnested={}\nfields={}\n";
        for (text, want) in [
            (
                "[schemas.a]\ntype = \"object\"\n[schemas.a.keys]\nx = { type = \"object\", keys = { y = { type = \"string\", items = { type = \"any\" } } } }\n",
                "rules/json.toml: schema \"a\": x: y: `items` needs type = \"array\"",
            ),
            (
                "[schemas.a]\nref = \"b\"\n",
                "rules/json.toml: schema \"a\": `ref = \"b\"` names no schema",
            ),
            ("[schemas.a]\n", "rules/json.toml: schema \"a\": a schema needs `type` (or `ref`)"),
        ] {
            let e = Grammars::parse(&format!("{text}{base}")).expect_err(text);
            assert_eq!(e.to_string(), want, "{text}");
        }
        let e = Grammars::parse(
            "schemas = {}\n[filter]\noperators={}\nnested={ a = \"T\" }\nfields={}\n",
        )
        .expect_err("no T");
        assert_eq!(
            e.to_string(),
            "rules/json.toml: filter.nested: \"a\" names type \"T\", which has no field list"
        );
    }
}
