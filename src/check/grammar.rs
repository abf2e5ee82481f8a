//! Checks a parsed JSON cell against a schema of `rules/json.toml`
//! (metadata, labels, recommendations, integration settings).
//!
//! Findings carry spans in the document's text. The row checker parses a
//! cell as it stands in the file (`""` escapes included, see
//! [`Doc::parse_as`]), so those are offsets into the cell's raw bytes.

use super::shapes;
use crate::json::{Doc, Kind, NodeId};
use crate::rules::{self, Rule};
use crate::schema::json::{JsonType, Spec, StringShape, Unknown};
use std::fmt::Write;
use std::ops::Range;

/// Findings reported per cell before the rest are only counted.
pub(crate) const MAX_CELL_FINDINGS: usize = 10;

/// A finding inside a JSON cell, on offsets into the document's text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JsonFinding {
    pub rule: &'static Rule,
    pub span: Range<usize>,
    pub message: String,
    pub help: Option<String>,
}

/// The findings of one cell, capped.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    pub list: Vec<JsonFinding>,
    /// How many more were found but not kept.
    pub hidden: usize,
    /// The walk's path, kept to be reused by the next cell.
    path: Vec<Step>,
}

impl Findings {
    pub(crate) fn clear(&mut self) {
        self.list.clear();
        self.hidden = 0;
    }

    pub(crate) fn push(
        &mut self,
        rule: &'static Rule,
        span: Range<usize>,
        message: String,
        help: Option<String>,
    ) {
        if self.list.len() < MAX_CELL_FINDINGS {
            self.list.push(JsonFinding {
                rule,
                span,
                message,
                help,
            });
        } else {
            self.hidden += 1;
        }
    }
}

/// A step from a JSON value to one inside it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step {
    /// An object member (the node whose key it is).
    Key(NodeId),
    Index(usize),
}

/// Renders a path like `location.address` or `[0][1].key`.
pub(crate) fn render_path(doc: &Doc<'_>, path: &[Step]) -> String {
    // A deep path (a hostile filter nests hundreds of levels) keeps its
    // first two and last four steps.
    const HEAD: usize = 2;
    const TAIL: usize = 4;
    let mut out = String::new();
    for (n, step) in path.iter().enumerate() {
        if path.len() > HEAD + TAIL + 1 && n >= HEAD && n < path.len() - TAIL {
            if n == HEAD {
                out.push_str(".…");
            }
            continue;
        }
        match step {
            Step::Key(id) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&doc.key(*id).unwrap_or_default());
            }
            Step::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    out
}

/// How a message names the value at `path` in `column`.
pub(crate) fn place(doc: &Doc<'_>, column: &str, path: &[Step]) -> String {
    if path.is_empty() {
        format!("`{column}`")
    } else {
        format!("`{}` in `{column}`", render_path(doc, path))
    }
}

fn type_name(t: JsonType) -> &'static str {
    match t {
        JsonType::Any => "any value",
        JsonType::String => "a string",
        JsonType::Number => "a number",
        JsonType::Boolean => "a boolean (true or false, unquoted)",
        JsonType::Object => "an object",
        JsonType::Array => "an array",
        JsonType::Null => "null",
    }
}

/// Whether a value of kind `kind` meets `spec` whatever it holds: a
/// scalar of the right type with no allowed values or shape to check. The
/// walk asks [`Spec::accepts_as_is`], a bit mask made from the same rule;
/// this is the rule as stated, which the tests hold the mask to.
#[cfg(test)]
fn accepts_as_is(spec: &Spec, kind: Kind) -> bool {
    spec.ty.fits(kind)
        && match kind {
            Kind::Object => spec.ty != JsonType::Object,
            Kind::Array => spec.items.is_none(),
            Kind::String => spec.values.is_none() && spec.shape.is_none(),
            Kind::Null | Kind::Bool | Kind::Number => true,
        }
}

/// Checks the value `id` of `doc` against `spec`.
pub(crate) fn check(doc: &Doc<'_>, column: &str, spec: &Spec, out: &mut Findings) {
    let mut path = std::mem::take(&mut out.path);
    path.clear();
    walk(doc, doc.root(), spec, column, &mut path, out);
    out.path = path;
}

fn walk(
    doc: &Doc<'_>,
    id: NodeId,
    spec: &Spec,
    column: &str,
    path: &mut Vec<Step>,
    out: &mut Findings,
) {
    let kind = doc.kind(id);
    if !spec.ty.fits(kind) {
        type_mismatch(doc, id, spec, column, path, out);
        return;
    }
    // The findings are made out of line (`#[cold]`), so that the loop over
    // members, which nearly always finds nothing, keeps its registers.
    match kind {
        Kind::Object if spec.ty == JsonType::Object => {
            // The spec's keys (the first 64) this object has, so that
            // required keys need no second pass over its members.
            let mut seen = 0u64;
            let text = doc.text().as_bytes();
            for child in doc.children(id) {
                // A plain key is matched on its bytes in the text, with no
                // `Cow` made for it.
                let at = match doc.plain_key_span(child) {
                    Some(key) => spec.key_at(text, key),
                    None => spec.key_named(&doc.key(child).unwrap_or_default()),
                };
                match at {
                    Some(at) => {
                        seen |= 1u64.checked_shl(at as u32).unwrap_or(0);
                        let sub = &spec.keys[at].1;
                        // Most members are leaves of the right type that
                        // nothing more is asked of: no walk, no path step.
                        if sub.accepts_as_is(doc.kind(child)) {
                            continue;
                        }
                        path.push(Step::Key(child));
                        walk(doc, child, sub, column, path, out);
                        path.pop();
                    }
                    None if spec.unknown == Unknown::Warn => {
                        unknown_key(doc, id, child, spec, column, path, out);
                    }
                    None => {}
                }
            }
            // Most objects have every required key, or none is required.
            if seen & spec.required_keys != spec.required_keys || spec.keys.len() > 64 {
                missing_keys(doc, id, spec, seen, column, path, out);
            }
        }
        Kind::Array => {
            if let Some(items) = &spec.items {
                for (i, child) in doc.children(id).enumerate() {
                    path.push(Step::Index(i));
                    walk(doc, child, items, column, path, out);
                    path.pop();
                }
            }
        }
        Kind::String if spec.values.is_some() || spec.shape.is_some() => {
            let span = doc.node(id).span();
            let Some(text) = doc.str(id) else { return };
            if let Some(values) = &spec.values {
                if !values.iter().any(|v| *v == text) {
                    let list = values
                        .iter()
                        .map(|v| format!("`\"{v}\"`"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let help = match shapes::suggest(&text, values) {
                        Some(near) if !near.is_empty() => {
                            format!("did you mean `\"{near}\"`? allowed: {list}")
                        }
                        _ => format!("allowed: {list}"),
                    };
                    out.push(
                        &rules::JSON_INVALID_VALUE,
                        span,
                        format!(
                            "{} is `\"{text}\"`, which is not allowed",
                            place(doc, column, path)
                        ),
                        Some(help),
                    );
                    return;
                }
            }
            if spec.shape == Some(StringShape::IntegrationRef) {
                if let Some(problem) = shapes::integration_ref_problem(&text) {
                    out.push(
                        &rules::JSON_INVALID_VALUE,
                        span,
                        format!(
                            "{} must be shaped `<app>/<integration_id>`: {problem}",
                            place(doc, column, path)
                        ),
                        Some("write the application, a slash and the integration ID, e.g. `github/int-0001`".into()),
                    );
                }
            }
        }
        _ => {}
    }
}

/// The finding for value `id`, whose kind `spec` does not take.
#[cold]
#[inline(never)]
fn type_mismatch(
    doc: &Doc<'_>,
    id: NodeId,
    spec: &Spec,
    column: &str,
    path: &[Step],
    out: &mut Findings,
) {
    let kind = doc.kind(id);
    let quoted_bool =
        spec.ty == JsonType::Boolean && doc.str(id).is_some_and(|s| s == "true" || s == "false");
    let help = if quoted_bool {
        "write the boolean without quotes: true or false".to_owned()
    } else {
        format!("write {} here", type_name(spec.ty))
    };
    out.push(
        &rules::JSON_TYPE_MISMATCH,
        doc.node(id).span(),
        format!(
            "{} must be {}, not {}",
            place(doc, column, path),
            type_name(spec.ty),
            kind.name()
        ),
        Some(help),
    );
}

/// The finding for member `child` of object `id`, whose key `spec` does
/// not list.
#[cold]
#[inline(never)]
fn unknown_key(
    doc: &Doc<'_>,
    id: NodeId,
    child: NodeId,
    spec: &Spec,
    column: &str,
    path: &[Step],
    out: &mut Findings,
) {
    let key = doc.key(child).unwrap_or_default();
    let known: Vec<String> = spec.keys.iter().map(|(k, _)| k.clone()).collect();
    let help = match shapes::suggest(&key, &known) {
        Some(near) => format!("did you mean `{near}`?"),
        None => format!(
            "known keys: {}",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    out.push(
        &rules::JSON_UNKNOWN_KEY,
        doc.node(child).key_span().unwrap_or(doc.node(id).span()),
        format!("{} has an unknown key `{key}`", place(doc, column, path)),
        Some(help),
    );
}

/// The findings for the required keys of `spec` that object `id` lacks;
/// `seen` has the bits of the first 64 keys it has.
#[cold]
#[inline(never)]
fn missing_keys(
    doc: &Doc<'_>,
    id: NodeId,
    spec: &Spec,
    seen: u64,
    column: &str,
    path: &[Step],
    out: &mut Findings,
) {
    let span = doc.node(id).span();
    for (at, (k, sub)) in spec.keys.iter().enumerate() {
        if !sub.required {
            continue;
        }
        let present = match 1u64.checked_shl(at as u32) {
            Some(bit) => seen & bit != 0,
            None => doc.get(id, k).is_some(),
        };
        if !present {
            out.push(
                &rules::JSON_MISSING_KEY,
                span.clone(),
                format!("{} has no `{k}`", place(doc, column, path)),
                Some(format!("add `\"{k}\": ...` ({})", type_name(sub.ty))),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::json::grammars;

    fn run(schema: &str, text: &str) -> Vec<(&'static str, String, String)> {
        let g = grammars().expect("grammars");
        let doc = Doc::parse(text, Vec::new())
            .map_err(|(e, _)| e)
            .expect("valid JSON");
        let mut out = Findings::default();
        check(&doc, "Metadata", &g.schemas[schema], &mut out);
        out.list
            .into_iter()
            .map(|f| (f.rule.code, text[f.span].to_owned(), f.message))
            .collect()
    }

    /// Every spec node of the shipped grammars, depth first.
    fn all_specs<'s>(spec: &'s Spec, out: &mut Vec<&'s Spec>) {
        out.push(spec);
        for (_, sub) in &spec.keys {
            all_specs(sub, out);
        }
        if let Some(items) = &spec.items {
            all_specs(items, out);
        }
    }

    #[test]
    fn members_skipped_as_is_would_have_no_findings() {
        let g = grammars().expect("grammars");
        let values = [
            "null",
            "true",
            "1.5",
            "\"\"",
            "\"x\"",
            "\"github/int-1\"",
            "\"bad ref\"",
            "[]",
            "[1]",
            "[\"x\"]",
            "{}",
            "{\"a\":1}",
            "{\"description\":1}",
        ];
        let mut specs = Vec::new();
        for spec in g.schemas.values() {
            all_specs(spec, &mut specs);
        }
        let mut skipped = 0;
        for spec in specs {
            for text in values {
                let doc = Doc::parse(text, Vec::new())
                    .map_err(|(e, _)| e)
                    .expect(text);
                let root = doc.root();
                assert_eq!(
                    spec.accepts_as_is(doc.kind(root)),
                    accepts_as_is(spec, doc.kind(root)),
                    "{text} vs {spec:?}"
                );
                if !accepts_as_is(spec, doc.kind(root)) {
                    continue;
                }
                skipped += 1;
                let mut out = Findings::default();
                walk(&doc, root, spec, "C", &mut Vec::new(), &mut out);
                assert!(out.list.is_empty(), "{text} vs {spec:?}: {:?}", out.list);
            }
        }
        assert!(skipped > 20, "the test exercises the skip ({skipped})");
    }

    #[test]
    fn employee_metadata() {
        assert!(run(
            "employee-metadata-v1",
            r#"{"location":{"address":"1 Main St"},"role id":"r1","tenant":"t"}"#
        )
        .is_empty());
        let f = run(
            "employee-metadata-v1",
            r#"{"locaton":{},"location":{"address":5},"manager id":7}"#,
        );
        assert_eq!(
            f,
            vec![
                (
                    "J001",
                    "\"locaton\"".into(),
                    "`Metadata` has an unknown key `locaton`".into()
                ),
                (
                    "J002",
                    "5".into(),
                    "`location.address` in `Metadata` must be a string, not a number".into()
                ),
                (
                    "J002",
                    "7".into(),
                    "`manager id` in `Metadata` must be a string, not a number".into()
                ),
            ]
        );
    }

    #[test]
    fn labels_need_a_key_and_objects() {
        assert!(run(
            "finding-labels",
            r#"[[{"key":"sod","value":{"text":"x"},"explanation":{"a":1}}],[]]"#
        )
        .is_empty());
        let f = run(
            "finding-labels",
            r#"[[{"value":{"text":"x"}}],[{"key":1,"value":"x"}],{}]"#,
        );
        let codes: Vec<_> = f.iter().map(|(c, s, _)| (*c, s.as_str())).collect();
        assert_eq!(
            codes,
            vec![
                ("J003", r#"{"value":{"text":"x"}}"#),
                ("J002", "1"),
                ("J002", "\"x\""),
                ("J002", "{}"),
            ]
        );
        assert_eq!(
            f[1].2,
            "`[1][0].key` in `Metadata` must be a string, not a number"
        );
    }

    #[test]
    fn restricted_strings() {
        assert!(run("recommendation", r#"{"value":"","explanation":"low risk"}"#).is_empty());
        let f = run("recommendation", r#"{"value":"approved"}"#);
        assert_eq!(f[0].0, "J004");
        let f = run(
            "role-metadata",
            r#"{"integrations":["github/int-1","nope"]}"#,
        );
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].1, "\"nope\"");
        let f = run("relation-metadata", r#"{"privilegeValue":"true"}"#);
        assert_eq!(f[0].0, "J002");
    }

    #[test]
    fn findings_are_capped() {
        let text = format!(
            "{{{}}}",
            (0..50)
                .map(|i| format!("\"k{i}\":1"))
                .collect::<Vec<_>>()
                .join(",")
        );
        let g = grammars().expect("grammars");
        let doc = Doc::parse(&text, Vec::new())
            .map_err(|(e, _)| e)
            .expect("valid");
        let mut out = Findings::default();
        check(
            &doc,
            "Metadata",
            &g.schemas["provisioning-options"],
            &mut out,
        );
        assert_eq!(out.list.len(), MAX_CELL_FINDINGS);
        assert_eq!(out.hidden, 40);
    }
}
