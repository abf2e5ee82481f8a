//! The filter-expression grammar of the Filters CSV's Value column.
//!
//! A condition is an object; each member is either a logical operator
//! (`_and`: array of conditions; `_not`: a condition, or an array of them as
//! some writers use) or a field mapped to an object of comparison operators
//! (`_eq`: string, `_in`: array of strings). Fields named in
//! `filter.nested` (`employee`, `entitlement`) hold a condition over another
//! type's fields; `labels` holds an array of `{key, val}` objects. Which
//! fields a type has is data (`rules/json.toml`); types without a list get
//! the structural checks only.

use super::grammar::{place, Findings, Step};
use crate::json::{Doc, Kind, NodeId};
use crate::rules;
use crate::schema::json::{FilterData, Operand};

/// Deepest nesting of conditions checked. Deeper filters get one finding
/// instead of a walk, so a hostile cell cannot exhaust the stack.
pub(crate) const MAX_FILTER_DEPTH: usize = 64;

const AND: &str = "_and";
const NOT: &str = "_not";
const LABELS: &str = "labels";

struct Walker<'a, 'd, 't> {
    doc: &'d Doc<'t>,
    column: &'a str,
    data: &'a FilterData,
    out: &'a mut Findings,
    path: Vec<Step>,
}

/// Checks a parsed filter Value whose row has filter type `ty`.
pub(crate) fn check(
    doc: &Doc<'_>,
    column: &str,
    ty: Option<&str>,
    data: &FilterData,
    out: &mut Findings,
) {
    let fields = ty.and_then(|t| data.fields.get(t)).map(Vec::as_slice);
    let mut w = Walker {
        doc,
        column,
        data,
        out,
        path: Vec::new(),
    };
    w.condition(doc.root(), fields, ty, 0);
}

impl Walker<'_, '_, '_> {
    fn here(&self) -> String {
        place(self.doc, self.column, &self.path)
    }

    fn span(&self, id: NodeId) -> std::ops::Range<usize> {
        self.doc.node(id).span()
    }

    fn key_span(&self, id: NodeId) -> std::ops::Range<usize> {
        self.doc
            .node(id)
            .key_span()
            .unwrap_or_else(|| self.span(id))
    }

    fn operator_names(&self) -> Vec<String> {
        self.data.operators.keys().cloned().collect()
    }

    /// `id` must be a condition over `fields` (any field when `None`).
    fn condition(&mut self, id: NodeId, fields: Option<&[String]>, ty: Option<&str>, depth: usize) {
        if depth > MAX_FILTER_DEPTH {
            self.out.push(
                &rules::FILTER_STRUCTURE,
                self.span(id),
                format!(
                    "{} nests conditions deeper than {MAX_FILTER_DEPTH} levels",
                    self.here()
                ),
                Some("flatten the filter: `_and` takes any number of conditions".into()),
            );
            return;
        }
        if self.doc.kind(id) != Kind::Object {
            self.out.push(
                &rules::FILTER_STRUCTURE,
                self.span(id),
                format!(
                    "{} must be a condition object, not {}",
                    self.here(),
                    self.doc.kind(id).name()
                ),
                Some("write a condition as {\"<field>\": {\"_eq\": \"<value>\"}}".into()),
            );
            return;
        }
        let doc = self.doc;
        for member in doc.children(id) {
            let key = doc.key(member).unwrap_or_default();
            self.path.push(Step::Key(member));
            match key.as_ref() {
                AND => self.and(member, fields, ty, depth),
                NOT => match doc.kind(member) {
                    Kind::Array => self.each_condition(member, fields, ty, depth),
                    _ => self.condition(member, fields, ty, depth + 1),
                },
                LABELS if fields.is_none_or(|f| f.iter().any(|x| x == LABELS)) => {
                    self.labels(member)
                }
                k if k.starts_with('_') => self.operator_out_of_place(member, k),
                k => {
                    if let Some(f) = fields {
                        if !f.iter().any(|x| x == k) {
                            self.unknown_field(member, k, f, ty);
                        }
                    }
                    match self.data.nested.get(k) {
                        Some(sub) if fields.is_none_or(|f| f.iter().any(|x| x == k)) => {
                            let sub_fields = self.data.fields.get(sub).map(Vec::as_slice);
                            self.condition(member, sub_fields, Some(sub), depth + 1);
                        }
                        _ => self.comparisons(member, k),
                    }
                }
            }
            self.path.pop();
        }
    }

    fn and(&mut self, id: NodeId, fields: Option<&[String]>, ty: Option<&str>, depth: usize) {
        if self.doc.kind(id) == Kind::Array {
            self.each_condition(id, fields, ty, depth);
        } else {
            self.out.push(
                &rules::FILTER_STRUCTURE,
                self.span(id),
                format!(
                    "{} must be an array of conditions, not {}",
                    self.here(),
                    self.doc.kind(id).name()
                ),
                Some("write `\"_and\": [{...}, {...}]`".into()),
            );
        }
    }

    fn each_condition(
        &mut self,
        id: NodeId,
        fields: Option<&[String]>,
        ty: Option<&str>,
        depth: usize,
    ) {
        for (i, c) in self.doc.children(id).enumerate() {
            self.path.push(Step::Index(i));
            self.condition(c, fields, ty, depth + 1);
            self.path.pop();
        }
    }

    /// A key starting with `_` where a field belongs.
    fn operator_out_of_place(&mut self, member: NodeId, k: &str) {
        if self.data.operators.contains_key(k) {
            self.out.push(
                &rules::FILTER_STRUCTURE,
                self.key_span(member),
                format!("`{k}` compares a field, but stands where a field belongs"),
                Some(format!("write {{\"<field>\": {{\"{k}\": ...}}}}")),
            );
        } else {
            let logical = [AND.to_owned(), NOT.to_owned()];
            let help = match crate::names::suggest(k, &logical) {
                Some(near) => format!("did you mean `{near}`? the spec defines `_and` and `_not` here"),
                None if k == "_or" => "the spec defines no `_or`: use `_in` for either-or on one field, or write separate filters and combine them with a rule's `OR` Logic".into(),
                None => "the spec defines `_and` and `_not` to combine conditions".into(),
            };
            self.out.push(
                &rules::FILTER_UNKNOWN_OPERATOR,
                self.key_span(member),
                format!("`{k}` is not a filter operator"),
                Some(help),
            );
        }
    }

    fn unknown_field(&mut self, member: NodeId, k: &str, fields: &[String], ty: Option<&str>) {
        let help = match (self.data.hints.get(k), crate::names::suggest(k, fields)) {
            (Some(hint), _) => hint.clone(),
            (None, Some(near)) => format!("did you mean `{near}`?"),
            (None, None) => format!(
                "fields of {}: {}",
                ty.unwrap_or("this type"),
                fields
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        self.out.push(
            &rules::FILTER_UNKNOWN_FIELD,
            self.key_span(member),
            format!("{} filters have no field `{k}`", ty.unwrap_or("these")),
            Some(help),
        );
    }

    /// `id` must map comparison operators to values.
    fn comparisons(&mut self, id: NodeId, field: &str) {
        let doc = self.doc;
        if doc.kind(id) != Kind::Object {
            self.out.push(
                &rules::FILTER_STRUCTURE,
                self.span(id),
                format!(
                    "{} must map operators to values, not be {}",
                    self.here(),
                    doc.kind(id).name()
                ),
                Some(format!("write {{\"{field}\": {{\"_eq\": \"<value>\"}}}}")),
            );
            return;
        }
        if doc.children(id).next().is_none() {
            self.out.push(
                &rules::FILTER_STRUCTURE,
                self.span(id),
                format!("{} has no operator", self.here()),
                Some(format!(
                    "write {{\"{field}\": {{\"_eq\": \"<value>\"}}}}, or drop the field"
                )),
            );
        }
        for op in doc.children(id) {
            let name = doc.key(op).unwrap_or_default();
            self.path.push(Step::Key(op));
            match self.data.operators.get(name.as_ref()) {
                Some(operand) => self.operand(op, &name, *operand),
                None if name == AND || name == NOT => self.out.push(
                    &rules::FILTER_STRUCTURE,
                    self.key_span(op),
                    format!(
                        "`{name}` combines conditions; it cannot sit inside the field `{field}`"
                    ),
                    Some(format!(
                        "move it outside: {{\"{name}\": ...{{\"{field}\": {{...}}}}}}"
                    )),
                ),
                None => {
                    let ops = self.operator_names();
                    let near = crate::names::suggest(&name, &ops)
                        .map(str::to_owned)
                        .or_else(|| {
                            // `eq` for `_eq`: a missing underscore is beyond the typo budget of short names.
                            let with = format!("_{name}");
                            ops.iter().find(|o| **o == with).cloned()
                        });
                    let list = ops
                        .iter()
                        .map(|o| format!("`{o}`"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    self.out.push(
                        &rules::FILTER_UNKNOWN_OPERATOR,
                        self.key_span(op),
                        format!("`{name}` is not a filter operator"),
                        Some(match near {
                            Some(n) => format!("did you mean `{n}`? operators: {list}"),
                            None => format!("operators: {list}"),
                        }),
                    );
                }
            }
            self.path.pop();
        }
    }

    fn operand(&mut self, id: NodeId, op: &str, operand: Operand) {
        let doc = self.doc;
        match operand {
            Operand::String if doc.kind(id) != Kind::String => self.out.push(
                &rules::FILTER_OPERAND_TYPE,
                self.span(id),
                format!(
                    "{} takes a string, not {}",
                    self.here(),
                    doc.kind(id).name()
                ),
                Some(if doc.kind(id) == Kind::Array {
                    format!("to match any of several values use `_in`; `{op}` takes one string")
                } else {
                    "quote the value: \"...\"".into()
                }),
            ),
            Operand::Strings if doc.kind(id) != Kind::Array => self.out.push(
                &rules::FILTER_OPERAND_TYPE,
                self.span(id),
                format!(
                    "{} takes an array of strings, not {}",
                    self.here(),
                    doc.kind(id).name()
                ),
                Some(format!("wrap the value in brackets: `\"{op}\": [\"...\"]`")),
            ),
            Operand::Strings => {
                for (i, el) in doc.children(id).enumerate() {
                    if doc.kind(el) != Kind::String {
                        self.out.push(
                            &rules::FILTER_OPERAND_TYPE,
                            self.span(el),
                            format!(
                                "{} takes strings; element {i} is {}",
                                self.here(),
                                doc.kind(el).name()
                            ),
                            Some("quote the value: \"...\"".into()),
                        );
                    }
                }
            }
            Operand::String => {}
        }
    }

    fn labels(&mut self, id: NodeId) {
        let doc = self.doc;
        let example =
            "write `\"labels\": [{\"key\": \"<label id>\", \"val\": {\"_eq\": \"<label name>\"}}]`";
        if doc.kind(id) != Kind::Array {
            self.out.push(
                &rules::FILTER_MALFORMED_LABELS,
                self.span(id),
                format!(
                    "`labels` must be an array of {{key, val}} objects, not {}",
                    doc.kind(id).name()
                ),
                Some(example.into()),
            );
            return;
        }
        for (i, el) in doc.children(id).enumerate() {
            self.path.push(Step::Index(i));
            self.label(el, example);
            self.path.pop();
        }
    }

    fn label(&mut self, el: NodeId, example: &str) {
        let doc = self.doc;
        if doc.kind(el) != Kind::Object {
            self.out.push(
                &rules::FILTER_MALFORMED_LABELS,
                self.span(el),
                format!(
                    "{} must be a {{key, val}} object, not {}",
                    self.here(),
                    doc.kind(el).name()
                ),
                Some(example.into()),
            );
            return;
        }
        for m in doc.children(el) {
            let k = doc.key(m).unwrap_or_default();
            if k != "key" && k != "val" {
                let near = if k == "value" || crate::names::edit_distance(&k, "val") <= 1 {
                    " (did you mean `val`?)"
                } else {
                    ""
                };
                self.out.push(
                    &rules::FILTER_MALFORMED_LABELS,
                    self.key_span(m),
                    format!("{} has an unknown key `{k}`{near}", self.here()),
                    Some("a label condition has exactly `key` and `val`".into()),
                );
            }
        }
        match doc.get(el, "key") {
            None => self.out.push(
                &rules::FILTER_MALFORMED_LABELS,
                self.span(el),
                format!("{} has no `key`", self.here()),
                Some(example.into()),
            ),
            Some(k) if doc.kind(k) != Kind::String => self.out.push(
                &rules::FILTER_MALFORMED_LABELS,
                self.span(k),
                format!(
                    "the `key` of {} must be a string (the label's ID), not {}",
                    self.here(),
                    doc.kind(k).name()
                ),
                Some("quote the label ID: \"key\": \"...\"".into()),
            ),
            Some(_) => {}
        }
        match doc.get(el, "val") {
            None => self.out.push(
                &rules::FILTER_MALFORMED_LABELS,
                self.span(el),
                format!("{} has no `val`", self.here()),
                Some(example.into()),
            ),
            Some(v) if doc.kind(v) != Kind::Object => self.out.push(
                &rules::FILTER_MALFORMED_LABELS,
                self.span(v),
                format!(
                    "the `val` of {} must map an operator to a label name, not be {}",
                    self.here(),
                    doc.kind(v).name()
                ),
                Some("write \"val\": {\"_eq\": \"<label name>\"}".into()),
            ),
            Some(v) => {
                self.path.push(Step::Key(v));
                self.comparisons(v, "val");
                self.path.pop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::json::grammars;

    fn run(ty: Option<&str>, text: &str) -> Vec<(&'static str, String)> {
        let g = grammars().expect("grammars");
        let doc = Doc::parse(text, Vec::new())
            .map_err(|(e, _)| e)
            .expect("valid JSON");
        let mut out = Findings::default();
        check(&doc, "Value", ty, &g.filter, &mut out);
        out.list
            .into_iter()
            .map(|f| (f.rule.code, text[f.span].to_owned()))
            .collect()
    }

    #[test]
    fn the_vendor_sample_and_friends_are_clean() {
        for (ty, text) in [
            (
                Some("PEOPLE"),
                r#"{"_and":[{"department":{"_eq":"Sales"}},{"_not":{"title":{"_in":["CFO","CEO"]}}}]}"#,
            ),
            (Some("PEOPLE"), r#"{"_not":[{"title":{"_eq":"CFO"}}]}"#),
            (
                Some("IDENTITIES"),
                r#"{"employee":{"department":{"_eq":"Eng"}},"entitlement":{"permission":{"_eq":"admin"}}}"#,
            ),
            (
                Some("REVIEWS"),
                r#"{"idenetity_type":{"_eq":"human"},"labels":[{"key":"sod","val":{"_eq":"conflict"}}]}"#,
            ),
            (Some("CAMPAIGN"), r#"{"anything":{"_eq":"x"}}"#),
            (None, r#"{"anything":{"_in":[]}}"#),
            (Some("PEOPLE"), "{}"),
        ] {
            assert_eq!(run(ty, text), vec![], "{text}");
        }
    }

    #[test]
    fn each_problem_has_its_code_and_span() {
        let p = Some("PEOPLE");
        assert_eq!(
            run(p, r#"{"department":"Sales"}"#),
            vec![("J005", "\"Sales\"".into())]
        );
        assert_eq!(
            run(p, r#"{"_and":{"title":{"_eq":"x"}}}"#),
            vec![("J005", r#"{"title":{"_eq":"x"}}"#.into())]
        );
        assert_eq!(run(p, r#"{"_eq":"x"}"#), vec![("J005", "\"_eq\"".into())]);
        assert_eq!(
            run(p, r#"{"title":{"_equals":"CFO"}}"#),
            vec![("J006", "\"_equals\"".into())]
        );
        assert_eq!(run(p, r#"{"_or":[]}"#), vec![("J006", "\"_or\"".into())]);
        assert_eq!(
            run(p, r#"{"title":{"_in":"CFO"}}"#),
            vec![("J007", "\"CFO\"".into())]
        );
        assert_eq!(
            run(p, r#"{"title":{"_in":["CFO",3]}}"#),
            vec![("J007", "3".into())]
        );
        assert_eq!(
            run(p, r#"{"title":{"_eq":["CFO"]}}"#),
            vec![("J007", "[\"CFO\"]".into())]
        );
        assert_eq!(
            run(p, r#"{"departmnet":{"_eq":"x"}}"#),
            vec![("J008", "\"departmnet\"".into())]
        );
        assert_eq!(
            run(Some("REVIEWS"), r#"{"identity_type":{"_eq":"x"}}"#),
            vec![("J008", "\"identity_type\"".into())]
        );
        assert_eq!(
            run(p, r#"{"labels":{"_eq":"sod"}}"#),
            vec![("J009", r#"{"_eq":"sod"}"#.into())]
        );
        assert_eq!(
            run(p, r#"{"labels":[{"key":1,"value":{"_eq":"x"}}]}"#),
            vec![
                ("J009", "\"value\"".into()),
                ("J009", "1".into()),
                ("J009", r#"{"key":1,"value":{"_eq":"x"}}"#.into())
            ]
        );
        assert_eq!(
            run(p, r#"{"labels":[{"key":"a","val":{"eq":"x"}}]}"#),
            vec![("J006", "\"eq\"".into())]
        );
        // Sub-fields of `employee` are PEOPLE fields.
        assert_eq!(
            run(Some("IDENTITIES"), r#"{"employee":{"handle":{"_eq":"x"}}}"#),
            vec![("J008", "\"handle\"".into())]
        );
    }

    #[test]
    fn deep_filters_get_one_finding() {
        let text = "{\"_not\":".repeat(200) + "{}" + &"}".repeat(200);
        let f = run(Some("PEOPLE"), &text);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].0, "J005");
    }
}
