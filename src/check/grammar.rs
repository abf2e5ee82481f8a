//! Checks a parsed JSON cell against a schema of `rules/json.toml`
//! (metadata, labels, recommendations, integration settings).
//!
//! Findings carry spans in the document's text. The row checker parses a
//! cell as it stands in the file (`""` escapes included, see
//! [`Doc::parse_as`]), so those are offsets into the cell's raw bytes.

use super::shapes;
use crate::diagnostic::Severity;
use crate::json::{lex, Doc, Kind, NodeId};
use crate::rules::{self, Rule};
use crate::schema::json::{JsonType, Spec, StringShape, Unknown};
use std::fmt::Write;
use std::ops::Range;

/// Findings reported per cell before the rest are only counted.
pub(crate) const MAX_CELL_FINDINGS: usize = 10;

/// A finding inside a JSON cell, on offsets into the document's text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JsonFinding {
    pub(crate) rule: &'static Rule,
    /// `None` keeps the rule's.
    pub(crate) severity: Option<Severity>,
    pub(crate) span: Range<usize>,
    pub(crate) message: String,
    pub(crate) help: Option<String>,
}

/// The findings of one cell, capped.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    pub(crate) list: Vec<JsonFinding>,
    /// How many more were found but not kept.
    pub(crate) hidden: usize,
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
        self.push_as(rule, None, span, message, help);
    }

    pub(crate) fn push_as(
        &mut self,
        rule: &'static Rule,
        severity: Option<Severity>,
        span: Range<usize>,
        message: String,
        help: Option<String>,
    ) {
        if self.list.len() < MAX_CELL_FINDINGS {
            self.list.push(JsonFinding {
                rule,
                severity,
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

/// Nesting [`clean`] follows before it gives the cell to the full path; a
/// real cell is a few levels deep, and the recursion stays well within
/// the stack.
const CLEAN_DEPTH: usize = 32;

/// Whether `text` is JSON (every `"` written `""` if `doubled`, as in
/// [`Doc::parse_as`]) on which [`check`] against `spec` would find
/// nothing; if so, the kind of its root. With no `spec`, whether it is
/// JSON at all.
///
/// Nearly every cell is such a text, and this settles it in one pass over
/// its bytes: no nodes, no findings, no allocation. It answers `None` on
/// anything it does not follow to the end (an escaped key, a string with
/// allowed values written with escapes, deep nesting) as readily as on a
/// real problem, and the caller then parses and walks the cell to say what
/// is wrong, if anything: `None` never means the cell is bad, and
/// `Some` must mean that the full check is silent.
pub(crate) fn clean(text: &str, doubled: bool, spec: Option<&Spec>) -> Option<Kind> {
    if doubled {
        Clean::<2> { text }.doc(spec)
    } else {
        Clean::<1> { text }.doc(spec)
    }
}

/// [`clean`] over a text whose quotes take `Q` bytes.
struct Clean<'t, const Q: usize> {
    text: &'t str,
}

impl<const Q: usize> Clean<'_, Q> {
    fn doc(&self, spec: Option<&Spec>) -> Option<Kind> {
        let b = self.text.as_bytes();
        if b.len() >= lex::MAX_LEN {
            return None;
        }
        let at = lex::ws_end(b, 0);
        let kind = kind_at(b, at)?;
        let end = self.value(at, spec, 0)?;
        (lex::ws_end(b, end) == b.len()).then_some(kind)
    }

    /// The end of the value at `i` (past any whitespace before it), if it
    /// is well-formed and meets `spec` (`None`: any value).
    // Inlined, so that an object in an object is one call, not two.
    #[inline(always)]
    fn value(&self, i: usize, spec: Option<&Spec>, depth: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let kind = kind_at(b, i)?;
        // What is left of the spec once the kind is known: nothing for a
        // value that meets it whatever it holds, as in `walk`.
        let spec = match spec {
            Some(s) if !s.ty.fits(kind) => return None,
            Some(s) if s.accepts_as_is(kind) => None,
            s => s,
        };
        match kind {
            Kind::Object => self.object(i, spec, depth),
            // A spec left for an array has `items`.
            Kind::Array => self.array(i, spec.and_then(|s| s.items.as_deref()), depth),
            Kind::String => self.string(i, spec),
            Kind::Bool | Kind::Null => lex::literal_end(b, i).map(|(end, _)| end),
            Kind::Number => lex::number_end(b, i),
        }
    }

    /// The end of the string at `i`; a `spec` left for it has allowed
    /// values or a shape.
    #[inline(always)]
    fn string(&self, i: usize, spec: Option<&Spec>) -> Option<usize> {
        let Some(s) = spec else {
            return lex::string_end_fast::<Q>(self.text.as_bytes(), i);
        };
        let (end, plain) = lex::string_end::<Q>(self.text.as_bytes(), i)?;
        // Compared on the text, which is the string's decoding when it is
        // plain.
        let inner = self.text.get(i + Q..end - Q).filter(|_| plain)?;
        let allowed = s
            .values
            .as_ref()
            .is_none_or(|values| values.iter().any(|v| v == inner));
        let shaped = s.shape != Some(StringShape::IntegrationRef)
            || shapes::integration_ref_problem(inner).is_none();
        (allowed && shaped).then_some(end)
    }

    /// The end of the object at `i`; a `spec` left for it has type object.
    fn object(&self, i: usize, spec: Option<&Spec>, depth: usize) -> Option<usize> {
        if depth >= CLEAN_DEPTH {
            return None;
        }
        let b = self.text.as_bytes();
        let mut seen = 0u64;
        let mut j = lex::ws_end(b, i + 1);
        if b.get(j) != Some(&b'}') {
            loop {
                if b.get(j) != Some(&b'"') {
                    return None;
                }
                let sub = match spec {
                    None => {
                        j = self.colon(lex::string_end_fast::<Q>(b, j)?)?;
                        None
                    }
                    Some(s) => {
                        let at = match s.key_token::<Q>(b, j + Q) {
                            // The opening quote's second byte is checked
                            // here, the rest by the token.
                            Some((at, past_colon)) if Q == 1 || b.get(j + 1) == Some(&b'"') => {
                                j = past_colon;
                                Some(at)
                            }
                            _ => {
                                let (end, plain) = lex::string_end::<Q>(b, j)?;
                                // An escaped key is matched on its decoding,
                                // which the full path makes.
                                if !plain {
                                    return None;
                                }
                                let at = s.key_at(b, j + Q..end - Q);
                                j = self.colon(end)?;
                                at
                            }
                        };
                        match at {
                            Some(at) => {
                                seen |= 1u64.checked_shl(at as u32).unwrap_or(0);
                                Some(&s.keys.get(at)?.1)
                            }
                            None if s.unknown == Unknown::Warn => return None,
                            None => None,
                        }
                    }
                };
                j = lex::ws_end(b, j);
                // Most members are strings that nothing more is asked of:
                // scanned here, with no call.
                j = if b.get(j) == Some(&b'"') && sub.is_none_or(|s| s.accepts_as_is(Kind::String))
                {
                    lex::string_end_fast::<Q>(b, j)?
                } else {
                    self.value(j, sub, depth + 1)?
                };
                j = lex::ws_end(b, j);
                match b.get(j) {
                    Some(b',') => j = lex::ws_end(b, j + 1),
                    Some(b'}') => break,
                    _ => return None,
                }
            }
        }
        if let Some(s) = spec {
            if seen & s.required_keys != s.required_keys || s.keys.len() > 64 {
                return None;
            }
        }
        Some(j + 1)
    }

    /// The index past the `:` after a key that ends at `i`.
    #[inline(always)]
    fn colon(&self, i: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let at = lex::ws_end(b, i);
        (b.get(at) == Some(&b':')).then_some(at + 1)
    }

    /// The end of the array at `i`, whose elements meet `items`.
    fn array(&self, i: usize, items: Option<&Spec>, depth: usize) -> Option<usize> {
        if depth >= CLEAN_DEPTH {
            return None;
        }
        let b = self.text.as_bytes();
        let mut j = lex::ws_end(b, i + 1);
        if b.get(j) == Some(&b']') {
            return Some(j + 1);
        }
        loop {
            j = lex::ws_end(b, self.value(j, items, depth + 1)?);
            match b.get(j) {
                Some(b',') => j = lex::ws_end(b, j + 1),
                Some(b']') => return Some(j + 1),
                _ => return None,
            }
        }
    }
}

/// The kind of the value starting with the byte at `i`, if one can.
#[inline]
fn kind_at(b: &[u8], i: usize) -> Option<Kind> {
    Some(match b.get(i)? {
        b'{' => Kind::Object,
        b'[' => Kind::Array,
        b'"' => Kind::String,
        b't' | b'f' => Kind::Bool,
        b'n' => Kind::Null,
        b'-' | b'0'..=b'9' => Kind::Number,
        _ => return None,
    })
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
        if kind == Kind::Null && spec.null_warns {
            null_for_empty(doc, id, spec, column, path, out);
        } else {
            type_mismatch(doc, id, spec, column, path, out);
        }
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
                    let help = match crate::names::suggest(&text, values) {
                        Some(near) if !near.is_empty() => {
                            format!("did you mean `\"{near}\"`? allowed: {list}")
                        }
                        _ => format!("allowed: {list}"),
                    };
                    out.push_as(
                        &rules::JSON_INVALID_VALUE,
                        spec.severity,
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
    out.push_as(
        &rules::JSON_TYPE_MISMATCH,
        spec.severity,
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

/// The finding for a `null` where `spec` (marked `null = "warning"`)
/// allows an empty value: `null` may be what the spec calls empty, or may
/// not (clause 4 of the severity principle, rules/README.md).
#[cold]
#[inline(never)]
fn null_for_empty(
    doc: &Doc<'_>,
    id: NodeId,
    spec: &Spec,
    column: &str,
    path: &[Step],
    out: &mut Findings,
) {
    out.push_as(
        &rules::JSON_INVALID_VALUE,
        Some(Severity::Warning),
        doc.node(id).span(),
        format!(
            "{} is null, which may or may not count as empty",
            place(doc, column, path)
        ),
        Some(format!(
            "write {} (the spec allows the empty string `\"\"`)",
            type_name(spec.ty)
        )),
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
    let help = match crate::names::suggest(&key, &known) {
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

    /// What the full path says of `text`: the root's kind when it parses
    /// and `check` against `spec` finds nothing.
    fn full(text: &str, doubled: bool, spec: Option<&Spec>) -> Option<Kind> {
        let doc = Doc::parse_as(text, doubled, Vec::new()).ok()?;
        if let Some(spec) = spec {
            let mut out = Findings::default();
            check(&doc, "C", spec, &mut out);
            if !out.list.is_empty() || out.hidden > 0 {
                return None;
            }
        }
        Some(doc.kind(doc.root()))
    }

    /// JSON texts shaped like the schemas, with the slips real cells have:
    /// missing and unknown keys, wrong types, escapes, odd numbers and
    /// whitespace.
    struct Gen<R: FnMut() -> u64> {
        next: R,
        /// Keys of every schema, for objects the schema does not describe.
        keys: Vec<String>,
    }

    impl<R: FnMut() -> u64> Gen<R> {
        fn below(&mut self, n: usize) -> usize {
            ((self.next)() % n as u64) as usize
        }

        fn chance(&mut self, percent: u64) -> bool {
            (self.next)() % 100 < percent
        }

        fn some_key(&mut self) -> String {
            let at = self.below(self.keys.len());
            self.keys[at].clone()
        }

        fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from[self.below(from.len())]
        }

        fn ws(&mut self, out: &mut String) {
            if self.chance(12) {
                out.push_str(self.pick(&[" ", "  ", "\n", "\t", "\r\n "]));
            }
        }

        /// A string's content, sometimes with escapes and non-ASCII.
        fn content(&mut self, out: &mut String) {
            // Lengths on both sides of the 8- and 16-byte reads.
            let n = self.below(26);
            for _ in 0..n {
                let piece = match self.below(60) {
                    0 => "\\\"",
                    1 => "\\\\",
                    2 => "\\n",
                    3 => "\\u00e9",
                    4 => "\\ud83d\\ude00",
                    5 => "é",
                    6 => "😀",
                    7 => "/",
                    8 => " ",
                    9 => "-",
                    _ => self.pick(&["a", "b", "e", "r", "t", "0", "1", "9", "Z"]),
                };
                out.push_str(piece);
            }
        }

        fn string(&mut self, out: &mut String) {
            out.push('"');
            self.content(out);
            out.push('"');
        }

        /// A key: `name` as it is, or now and then with an escape that
        /// decodes to it, or another name altogether.
        fn key(&mut self, name: &str, out: &mut String) {
            out.push('"');
            match self.below(40) {
                0 if !name.is_empty() => {
                    let at = self.below(name.len());
                    for (i, c) in name.char_indices() {
                        if i == at && c.is_ascii() {
                            out.push_str(&format!("\\u{:04x}", c as u32));
                        } else {
                            out.push(c);
                        }
                    }
                }
                1 => self.content(out),
                2 => {
                    out.push_str(name);
                    out.push('s');
                }
                _ => out.push_str(name),
            }
            out.push('"');
        }

        fn number(&mut self, out: &mut String) {
            out.push_str(self.pick(&[
                "0",
                "-0",
                "7",
                "42",
                "-13",
                "1.5",
                "0.25",
                "-3e10",
                "2E+3",
                "1e-2",
                "10.0e0",
                "123456789012345678901234567890",
                "6.02e23",
            ]));
        }

        /// Any JSON value.
        fn any(&mut self, depth: usize, out: &mut String) {
            let top = if depth > 3 { 6 } else { 9 };
            match self.below(top) {
                0 => out.push_str("null"),
                1 => out.push_str(self.pick(&["true", "false"])),
                2 | 3 => self.number(out),
                4 | 5 => self.string(out),
                6 => {
                    out.push('[');
                    for n in 0..self.below(4) {
                        if n > 0 {
                            out.push(',');
                        }
                        self.ws(out);
                        self.any(depth + 1, out);
                        self.ws(out);
                    }
                    out.push(']');
                }
                _ => {
                    out.push('{');
                    for n in 0..self.below(4) {
                        if n > 0 {
                            out.push(',');
                        }
                        self.ws(out);
                        let name = self.some_key();
                        self.key(&name, out);
                        out.push(':');
                        self.ws(out);
                        self.any(depth + 1, out);
                    }
                    self.ws(out);
                    out.push('}');
                }
            }
        }

        /// A value meant to meet `spec`, now and then not.
        fn value(&mut self, spec: &Spec, depth: usize, out: &mut String) {
            if self.chance(3) {
                self.any(depth, out);
                return;
            }
            match spec.ty {
                JsonType::Any => self.any(depth, out),
                JsonType::Null => out.push_str("null"),
                JsonType::Number => self.number(out),
                JsonType::Boolean => {
                    let b = self.pick(&["true", "false", "\"true\""]);
                    out.push_str(b);
                }
                JsonType::String => match (&spec.values, spec.shape) {
                    (Some(values), _) if self.chance(85) => {
                        let v = values[self.below(values.len())].clone();
                        out.push_str(&format!("\"{v}\""));
                    }
                    (_, Some(StringShape::IntegrationRef)) if self.chance(85) => {
                        let r =
                            self.pick(&["github/int-1", "okta/x", "a/b", "nope", "/x", "a b/c"]);
                        out.push_str(&format!("\"{r}\""));
                    }
                    _ => self.string(out),
                },
                JsonType::Array => {
                    out.push('[');
                    self.ws(out);
                    for n in 0..self.below(4) {
                        if n > 0 {
                            out.push(',');
                            self.ws(out);
                        }
                        match &spec.items {
                            Some(items) => self.value(items, depth + 1, out),
                            None => self.any(depth + 1, out),
                        }
                        self.ws(out);
                    }
                    out.push(']');
                }
                JsonType::Object => {
                    let mut members: Vec<(String, Option<&Spec>)> = Vec::new();
                    for (k, sub) in &spec.keys {
                        if self.chance(if sub.required { 97 } else { 60 }) {
                            members.push((k.clone(), Some(sub)));
                        }
                    }
                    let extra = if spec.unknown == Unknown::Allow {
                        30
                    } else {
                        4
                    };
                    while self.chance(extra) {
                        let name = self.some_key();
                        members.push((name, None));
                    }
                    if !members.is_empty() && self.chance(3) {
                        let again = members[self.below(members.len())].clone();
                        members.push(again);
                    }
                    for i in (1..members.len()).rev() {
                        let j = self.below(i + 1);
                        members.swap(i, j);
                    }
                    out.push('{');
                    self.ws(out);
                    for (n, (k, sub)) in members.iter().enumerate() {
                        if n > 0 {
                            out.push(',');
                            self.ws(out);
                        }
                        self.key(k, out);
                        self.ws(out);
                        out.push(':');
                        self.ws(out);
                        match sub {
                            Some(sub) => self.value(sub, depth + 1, out),
                            None => self.any(depth + 1, out),
                        }
                        self.ws(out);
                    }
                    out.push('}');
                }
            }
        }

        /// `text` with one byte changed, removed, doubled or added, if
        /// the result is still UTF-8.
        fn mutate(&mut self, text: &str) -> Option<String> {
            let mut b = text.as_bytes().to_vec();
            let alphabet = b"\"\\{}[]:,0123456789-+.eEtrufalsn x\t\n\r\x01\x1f\x7f/";
            let byte = alphabet[self.below(alphabet.len())];
            let at = self.below(b.len() + 1);
            match self.below(5) {
                0 if at < b.len() => b[at] = byte,
                1 if at < b.len() => {
                    b.remove(at);
                }
                2 if at < b.len() => b.insert(at, b[at]),
                3 if at + 1 < b.len() => b.swap(at, at + 1),
                _ => b.insert(at, byte),
            }
            String::from_utf8(b).ok()
        }
    }

    #[test]
    fn clean_is_only_said_of_texts_the_full_check_passes() {
        let shipped = grammars().expect("grammars");
        // The shipped grammars, and one that they do not have: unknown
        // keys allowed beside typed ones.
        let own = crate::schema::json::Grammars::parse(concat!(
            "[schemas.open]\ntype = \"object\"\nunknown = \"allow\"\n",
            "[schemas.open.keys]\nn = { type = \"number\", required = true }\n",
            "s = { type = \"string\", values = [\"on\", \"off\"] }\n",
            "o = { type = \"object\", keys = { \"a key longer than sixteen\" = { type = \"null\" } } }\n",
            "b = { type = \"array\", items = { type = \"boolean\" } }\n",
            "[filter]\noperators={}\nnested={}\nfields={}\n",
        ))
        .expect("parses");
        let mut names: Vec<(&String, &Spec)> = shipped.schemas.iter().chain(&own.schemas).collect();
        names.sort_by_key(|(name, _)| name.as_str());
        let mut specs = Vec::new();
        for (_, spec) in &names {
            all_specs(spec, &mut specs);
        }
        let mut keys: Vec<String> = specs
            .iter()
            .flat_map(|s| s.keys.iter().map(|(k, _)| k.clone()))
            .collect();
        keys.extend(["", "x", "locaton", "a longer key than sixteen"].map(String::from));
        let mut gen = Gen {
            next: crate::testutil::xorshift(0x9e37_79b9_7f4a_7c15u64),
            keys,
        };
        // (valid documents, of which clean) and (broken by a mutation,
        // mutated and still passing, of which clean).
        let (mut valid, mut valid_clean) = (0, 0);
        let (mut broken, mut kept, mut kept_clean) = (0, 0, 0);
        for (name, spec) in names {
            for _ in 0..600 {
                let mut text = String::new();
                gen.ws(&mut text);
                gen.value(spec, 0, &mut text);
                gen.ws(&mut text);
                for doubled in [false, true] {
                    let raw = if doubled {
                        text.replace('"', "\"\"")
                    } else {
                        text.clone()
                    };
                    let mut texts = vec![(raw.clone(), false)];
                    for _ in 0..6 {
                        texts.extend(gen.mutate(&raw).map(|t| (t, true)));
                    }
                    for (t, mutated) in &texts {
                        for spec in [Some(spec), None] {
                            let fast = clean(t, doubled, spec);
                            let want = full(t, doubled, spec);
                            if fast.is_some() {
                                assert_eq!(fast, want, "{name} {doubled} {t:?}");
                            }
                            match (mutated, want.is_some()) {
                                (false, true) => {
                                    valid += 1;
                                    valid_clean += usize::from(fast.is_some());
                                }
                                (false, false) => {}
                                (true, false) => broken += 1,
                                (true, true) => {
                                    kept += 1;
                                    kept_clean += usize::from(fast.is_some());
                                }
                            }
                        }
                    }
                }
            }
        }
        // The test means something only if both answers come up often,
        // and the quick check is worth having only if it settles most
        // valid documents.
        assert!(broken > 10_000, "{broken}");
        assert!(
            kept > 5_000 && kept_clean > kept / 2,
            "{kept_clean} of {kept}"
        );
        assert!(valid > 10_000, "{valid}");
        assert!(valid_clean * 10 > valid * 8, "{valid_clean} of {valid}");
    }

    #[test]
    fn clean_settles_the_usual_cells() {
        let g = grammars().expect("grammars");
        let meta = &g.schemas["employee-metadata-v1"];
        let cell = r#"{"location":{"address":"4935 Main St, Springfield"},"role id":"r-24","manager id":"E-233326","tenant":"acme"}"#;
        for (text, doubled) in [(cell.to_owned(), false), (cell.replace('"', "\"\""), true)] {
            assert_eq!(clean(&text, doubled, Some(meta)), Some(Kind::Object));
            assert_eq!(clean(&text, doubled, None), Some(Kind::Object));
            // At the very end of the text, where the 8- and 16-byte reads
            // do not fit, and in a text that goes on.
            for cut in [1, 3, 9, 17] {
                let (head, tail) = text.split_at(text.len() - cut);
                let _ = tail;
                assert_eq!(clean(head, doubled, Some(meta)), None, "{head}");
            }
        }
        let labels = &g.schemas["finding-labels"];
        let text = r#"[[{"key":"sod","value":{"text":"x"},"explanation":{"a":[1,{}]}}],[]]"#;
        assert_eq!(clean(text, false, Some(labels)), Some(Kind::Array));
        let recommendation = &g.schemas["recommendation"];
        let text = r#"{"value":"deny","explanation":"low risk"}"#;
        assert_eq!(clean(text, false, Some(recommendation)), Some(Kind::Object));
        let role = &g.schemas["role-metadata"];
        let text = r#"{"integrations":["github/int-1"]}"#;
        assert_eq!(clean(text, false, Some(role)), Some(Kind::Object));
        // Each of these the full path flags or does not follow here.
        for text in [
            r#"{"value":"approved"}"#,
            r#"{"value":"de\u006ey"}"#,
            r#"{"integrations":["nope"]}"#,
            r#"{"locaton":{}}"#,
            r#"{"privilegeValue":"true"}"#,
            r#"{"a":1,}"#,
            "[1]x",
        ] {
            for spec in [recommendation, role, meta, &g.schemas["relation-metadata"]] {
                assert_eq!(clean(text, false, Some(spec)), None, "{text}");
            }
        }
        let deep = "[".repeat(CLEAN_DEPTH + 1) + &"]".repeat(CLEAN_DEPTH + 1);
        assert_eq!(clean(&deep, false, None), None);
        assert!(full(&deep, false, None).is_some());
    }

    #[test]
    fn clean_agrees_with_the_parser_on_syntax() {
        // The parser's own cases, plain and doubled.
        let more = ["nulls", "[true,]", " \t\r\n1 \n"];
        for &text in crate::testutil::JSON_SYNTAX_CASES.iter().chain(&more) {
            for doubled in [false, true] {
                let t = if doubled {
                    text.replace('"', "\"\"")
                } else {
                    text.to_owned()
                };
                let want = full(&t, doubled, None);
                assert_eq!(clean(&t, doubled, None), want, "{t:?}");
            }
        }
    }
}
