//! JSON cells: parsed as they stand in the file, held to their kind and to
//! every grammar of the table that applies to the row.

use super::cells::{Cells, JsonScratch};
use super::plan::Plan;
use crate::check::finding::{Finding, FixBuilder};
use crate::check::{cell_edits, emit::Emitter, filter_grammar, grammar};
use crate::diagnostic::Severity;
use crate::json::{self, Doc};
use crate::rules;
use crate::scan::FieldSpan;
use crate::schema::shape::JsonKind;
use crate::schema::{ColumnId, Grammar};

impl Plan {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check_json(
        &self,
        f: &FieldSpan,
        i: usize,
        raw: &str,
        kind: JsonKind,
        sev: Option<Severity>,
        cells: &Cells<'_>,
        emit: &mut Emitter<'_>,
    ) {
        let c = self.map.field_col[i].expect("mapped");
        if !self.json_is_clean(raw, f.escapes, kind, c, cells) {
            self.report_json(f, i, c, raw, kind, sev, cells, emit);
        }
    }

    /// The findings of JSON cell `raw` of column `c`, from a parse and a
    /// walk of every grammar that applies.
    // Out of line, and rare: the record loop, with the usual cell checks
    // inlined, stays small.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn report_json(
        &self,
        f: &FieldSpan,
        i: usize,
        c: ColumnId,
        raw: &str,
        kind: JsonKind,
        sev: Option<Severity>,
        cells: &Cells<'_>,
        emit: &mut Emitter<'_>,
    ) {
        let col = &self.table.columns[c];
        let mut scratch = cells.scratch.borrow_mut();
        let JsonScratch { nodes, findings } = &mut *scratch;
        // Offsets in `raw` are offsets in the file from here.
        let base = f.content().0;
        let doc = match Doc::parse_as(raw, f.escapes, std::mem::take(nodes)) {
            Ok(doc) => doc,
            Err((e, storage)) => {
                *nodes = storage;
                let at = e.offset.min(raw.len());
                // A quote is two bytes in the file when the cell escapes it.
                let width = if f.escapes && raw.as_bytes().get(at) == Some(&b'"') {
                    2
                } else {
                    1
                };
                let span = base + at..base + (at + width).min(raw.len());
                let mut finding = Finding::new(
                    &rules::INVALID_JSON,
                    format!("`{}` is not valid JSON: {}", col.name, e.message),
                )
                .severity(sev)
                .column(self.name(i))
                .help(
                    "write JSON with double quotes; in CSV, quote the whole cell and double every quote inside it: \"{\"\"key\"\":\"\"value\"\"}\"",
                );
                let text = if f.escapes {
                    std::borrow::Cow::Owned(raw.replace("\"\"", "\""))
                } else {
                    std::borrow::Cow::Borrowed(raw)
                };
                if let Some(fixed) = cell_edits::json(&text, kind) {
                    finding = finding.fix(
                        FixBuilder::unsafe_("rewrite the cell as the JSON it most likely means")
                            .edit(f.start..f.end, cell_edits::csv_field(&fixed)),
                    );
                }
                emit.report_in(span, f, finding);
                return;
            }
        };
        let root = doc.kind(doc.root());
        let want = match kind {
            JsonKind::Any => None,
            JsonKind::Object => (root != json::Kind::Object).then_some(("an object", "{...}")),
            JsonKind::Array => (root != json::Kind::Array).then_some(("an array", "[...]")),
        };
        if let Some((want, example)) = want {
            let span = doc.node(doc.root()).span();
            emit.report_in(
                base + span.start..base + span.end,
                f,
                Finding::new(
                    &rules::JSON_WRONG_TYPE,
                    format!(
                        "`{}` must be a JSON {}, not {}",
                        col.name,
                        &want[want.find(' ').map_or(0, |p| p + 1)..],
                        root.name()
                    ),
                )
                .severity(sev)
                .column(self.name(i))
                .help(format!("write {want}: {example}")),
            );
        } else {
            findings.clear();
            for rule in self.table.json.iter().filter(|r| r.column == c) {
                if !rule.when.iter().all(|w| self.holds(cells, w)) {
                    continue;
                }
                match &rule.grammar {
                    Grammar::Schema(spec) => grammar::check(&doc, &col.name, spec, findings),
                    Grammar::Filter { type_column } => {
                        if let Ok(g) = crate::schema::json::grammars() {
                            let ty = self.value(cells, *type_column);
                            filter_grammar::check(&doc, &col.name, ty, &g.filter, findings);
                        }
                    }
                }
            }
            let last = findings.list.len().saturating_sub(1);
            for (n, x) in findings.list.drain(..).enumerate() {
                let mut message = x.message;
                if n == last && findings.hidden > 0 {
                    message.push_str(&format!(
                        " (and {} more problems in this cell, not shown)",
                        findings.hidden
                    ));
                }
                emit.report_in(
                    base + x.span.start..base + x.span.end,
                    f,
                    Finding::new(x.rule, message)
                        .severity(x.severity)
                        .column(self.name(i))
                        .help_if(x.help),
                );
            }
        }
        *nodes = doc.into_nodes();
    }

    /// Whether the JSON cell `raw` of column `c` is one on which the full
    /// check below would report nothing, as [`grammar::clean`] settles in
    /// one pass; `false` when it cannot tell, and the full check runs.
    fn json_is_clean(
        &self,
        raw: &str,
        doubled: bool,
        kind: JsonKind,
        c: ColumnId,
        cells: &Cells<'_>,
    ) -> bool {
        let root_fits = |root: json::Kind| match kind {
            JsonKind::Any => true,
            JsonKind::Object => root == json::Kind::Object,
            JsonKind::Array => root == json::Kind::Array,
        };
        let mut checked = false;
        for rule in self.table.json.iter().filter(|r| r.column == c) {
            if !rule.when.iter().all(|w| self.holds(cells, w)) {
                continue;
            }
            // The filter grammar has no quick check.
            let Grammar::Schema(spec) = &rule.grammar else {
                return false;
            };
            if !grammar::clean(raw, doubled, Some(spec)).is_some_and(root_fits) {
                return false;
            }
            checked = true;
        }
        checked || grammar::clean(raw, doubled, None).is_some_and(root_fits)
    }
}
