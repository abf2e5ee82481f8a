//! Every check a table makes, as `bdxlint formats` lists them and the
//! traceability test holds them to the spec.

use super::bindings::Grammar;
use super::columns::Requirement;
use super::shape::Shape;
use super::table::Table;
use super::trace::Trace;
use crate::diagnostic::Severity;

/// One check a table makes, as `bdxlint formats` and the traceability
/// test see it: what it is, the severities its findings can have, and the
/// spec words it rests on.
#[derive(Debug)]
pub struct Check<'a> {
    /// `column "Start Date"`, `requires (every employee needs a name)`, ...
    pub what: String,
    /// Whether some finding of the check is an error.
    pub errs: bool,
    /// Whether some finding of the check is a warning (or softer).
    pub warns: bool,
    /// Whether every finding of the check is an info (what could not be
    /// checked).
    pub infos: bool,
    pub trace: &'a Trace,
}

impl Check<'_> {
    /// What its severity rests on: the spec's words, or a clause of the
    /// principle where it only warns (`bdxlint formats` and the HTML
    /// report say it so).
    pub fn verdict(&self) -> String {
        let level = match (self.errs, self.warns) {
            (true, true) => "error and warning",
            (true, false) => "error",
            (false, _) if self.infos => "info",
            (false, _) => "warning",
        };
        let why = if self.infos { "notes" } else { "warns" };
        match self.trace.clause {
            Some(c) => format!(
                "{level}; {why} because {} (clause 4: {})",
                c.describe(),
                c.name()
            ),
            None => level.to_owned(),
        }
    }
}

impl Table {
    /// Every check the table makes, in table order: columns that require,
    /// shape or ask for something (not optional free text), then each
    /// `[[requires]]`, `[[equal]]`, `[[one_or_all]]`, `[[json]]`,
    /// `[[order]]`, `[[unique]]`, `[[exclusive]]`, `[identity]` and each
    /// `[[references]]`.
    /// Severities are the table's where it sets one, else the rule's
    /// default.
    pub fn checks(&self) -> Vec<Check<'_>> {
        use crate::rules;
        let mut out = Vec::new();
        let mut push = |what: String, sevs: &[Severity], trace| {
            out.push(Check {
                what,
                errs: sevs.contains(&Severity::Error),
                warns: sevs.iter().any(|s| *s != Severity::Error),
                infos: !sevs.is_empty() && sevs.iter().all(|s| *s == Severity::Info),
                trace,
            })
        };
        for c in &self.columns {
            let mut sevs = Vec::new();
            if c.requirement == Requirement::Required || c.header == Requirement::Required {
                sevs.push(rules::EMPTY_REQUIRED_CELL.severity);
            }
            if c.header == Requirement::Recommended {
                sevs.push(rules::MISSING_RECOMMENDED_COLUMN.severity);
            }
            if c.shape != Shape::Text {
                // Every shape rule is an error by default.
                let shape = c.severity.unwrap_or(Severity::Error);
                sevs.push(shape);
                match c.shape {
                    Shape::List { ref values, .. } => {
                        sevs.push(c.repeat_severity.unwrap_or(shape));
                        if values.is_some() {
                            sevs.push(c.values_severity.unwrap_or(shape));
                        }
                    }
                    Shape::Integer { min, max } if min.is_some() || max.is_some() => {
                        sevs.push(c.range_severity.unwrap_or(shape))
                    }
                    // Another scheme than http(s) is a URL all the same.
                    Shape::Url => sevs.push(Severity::Warning),
                    _ => {}
                }
            }
            if !sevs.is_empty() {
                push(format!("column {:?}", c.name), &sevs, &c.trace);
            }
        }
        for r in &self.requires {
            let rule = if r.any.is_empty() {
                &rules::MISSING_DEPENDENT_VALUE
            } else {
                &rules::MISSING_ONE_OF
            };
            let sev = r.severity.unwrap_or(rule.severity);
            push(format!("requires ({})", r.reason), &[sev], &r.trace);
        }
        for e in &self.equal {
            let sev = e.severity.unwrap_or(rules::MISMATCHED_VALUES.severity);
            // Values equal only without case warn.
            let sevs: &[Severity] = if e.ignore_case {
                &[sev, Severity::Warning]
            } else {
                &[sev]
            };
            push(format!("equal ({})", e.reason), sevs, &e.trace);
        }
        for o in &self.one_or_all {
            let sev = o.severity.unwrap_or(rules::PARTIAL_COLUMN_GROUP.severity);
            push(format!("one_or_all ({})", o.reason), &[sev], &o.trace);
        }
        for j in &self.json {
            let name = &self.columns[j.column].name;
            // Syntax and stated types are errors; a grammar may also warn
            // (unknown keys, soft types). The filter grammar only fails.
            let warns = match &j.grammar {
                Grammar::Schema(spec) => spec.can_warn(),
                Grammar::Filter { .. } => false,
            };
            let sevs: &[Severity] = if warns {
                &[Severity::Error, Severity::Warning]
            } else {
                &[Severity::Error]
            };
            push(format!("json {name:?}"), sevs, &j.trace);
        }
        for o in &self.order {
            let sev = o.severity.unwrap_or(rules::DATE_ORDER.severity);
            push(format!("order ({})", o.reason), &[sev], &o.trace);
        }
        for u in &self.unique {
            let sev = u.severity.unwrap_or(rules::DUPLICATE_VALUE.severity);
            push(format!("unique ({})", u.reason), &[sev], &u.trace);
        }
        for e in &self.exclusive {
            let sev = rules::INCOMPATIBLE_ROWS.severity;
            push(format!("exclusive ({})", e.reason), &[sev], &e.trace);
        }
        if let Some(i) = &self.identity {
            let mut sevs = vec![
                rules::IDENTITY_CONFLICT.severity,
                rules::IDENTITY_COMBINATION.severity,
                rules::IDENTITY_PARTNER_MISMATCH.severity,
            ];
            // An e-mail column is compared without case too, which warns.
            if i.columns
                .iter()
                .any(|&c| self.columns[c].shape == Shape::Email)
            {
                sevs.push(rules::IDENTITY_EMAIL_CASE.severity);
            }
            push("identity".into(), &sevs, &i.trace);
        }
        for r in &self.references {
            let rules: Vec<String> = r
                .sources
                .iter()
                .map(|s| format!("{} {}", s.rule.code, s.rule.name))
                .fold(Vec::new(), |mut v, x| {
                    if !v.contains(&x) {
                        v.push(x);
                    }
                    v
                });
            let what = format!(
                "references {:?} -> {} {:?} ({})",
                self.columns[r.column].name,
                r.target,
                r.key,
                rules.join(", ")
            );
            let sevs: Vec<Severity> = r.sources.iter().map(|s| s.rule.severity).collect();
            push(what, &sevs, &r.trace);
        }
        for u in &self.unchecked {
            let what = format!(
                "unchecked references to {} ({} {})",
                u.targets.join(" and "),
                u.rule.code,
                u.rule.name
            );
            push(what, &[u.rule.severity], &u.trace);
        }
        out
    }
}
