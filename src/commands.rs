//! The subcommands that print what the registry and the tables say:
//! `explain` (a rule), `rules` (all of them), `formats` (a format's columns
//! and checks, with the spec words each enforces) and `template` (a header
//! row to start a file).

use crate::exit::{Failure, EXIT_CLEAN};
use bdxlint::bundle::Kind;
use bdxlint::diagnostic::Severity;
use bdxlint::{rules, schema};
use clap::ValueEnum;
use std::io::{self, Write};

/// `--output-format` of the listing subcommands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    /// A table (`human` is accepted too, as `check` names its text output).
    #[value(alias = "human")]
    Text,
    Json,
}

/// `bdxlint explain CODE|NAME`.
pub fn explain(rule: &str, out: &mut dyn Write) -> Result<u8, Failure> {
    let Some(r) = rules::lookup(rule) else {
        return Err(Failure::NoRule(rule.to_owned()));
    };
    writeln!(out, "{} {} ({})\n", r.code, r.name, r.severity)?;
    writeln!(out, "{}\n", r.summary)?;
    writeln!(out, "{}\n", r.explanation)?;
    // The finding's own words, from the template the check fills, so
    // what `explain` shows and what a check prints are one text.
    if let Some(m) = r.message_template() {
        writeln!(out, "Message: {m}")?;
        if let Some(h) = r.help_template() {
            writeln!(out, "Help: {h}")?;
        }
        writeln!(out)?;
    }
    if let Some(f) = &r.fix {
        writeln!(
            out,
            "{}: {} (`bdxlint check --fix`)\n",
            f.headline(),
            f.text
        )?;
    }
    writeln!(out, "Spec: {}", r.spec)?;
    Ok(EXIT_CLEAN)
}

/// `bdxlint rules`: a table, or the registry as JSON.
pub fn rules(as_: RulesFormat, out: &mut dyn Write) -> Result<u8, Failure> {
    match as_ {
        RulesFormat::Text => {
            // The rule-name column is as wide as the longest name.
            let width = rules::ALL.iter().map(|r| r.name.len()).max().unwrap_or(0);
            // `[*]`: the rule's findings can carry a fix (`check --fix`).
            for r in rules::ALL {
                writeln!(
                    out,
                    "{:<5} {:<width$} {:<8} {:<3} {}",
                    r.code,
                    r.name,
                    r.severity,
                    if r.fix.is_some() { "[*]" } else { "" },
                    r.summary
                )?;
            }
        }
        RulesFormat::Json => {
            /// A rule as JSON, fields in the registry's order.
            #[derive(serde::Serialize)]
            struct RuleJson {
                code: &'static str,
                name: &'static str,
                severity: Severity,
                summary: &'static str,
                explanation: &'static str,
                spec: &'static str,
                /// `{"availability": "always" | "sometimes", "applicability":
                /// "safe" | "unsafe" | "both", "text"}`, or null.
                fix: Option<serde_json::Value>,
            }
            let list: Vec<RuleJson> = rules::ALL
                .iter()
                .map(|r| RuleJson {
                    code: r.code,
                    name: r.name,
                    severity: r.severity,
                    summary: r.summary,
                    explanation: r.explanation,
                    spec: r.spec,
                    fix: r.fix.as_ref().map(|f| {
                        serde_json::json!({
                            "availability": match f.availability {
                                rules::FixAvailability::Always => "always",
                                rules::FixAvailability::Sometimes => "sometimes",
                            },
                            "applicability": f.safety.as_str(),
                            "text": f.text,
                        })
                    }),
                })
                .collect();
            serde_json::to_writer_pretty(&mut *out, &list)?;
            writeln!(out)?;
        }
    }
    Ok(EXIT_CLEAN)
}

fn tables() -> Result<&'static [&'static schema::Table], Failure> {
    schema::tables().map_err(|e| Failure::Table(e.to_string()))
}

pub fn formats(name: Option<&str>, as_: RulesFormat, out: &mut dyn Write) -> Result<u8, Failure> {
    let tables = tables()?;
    match (name, name.and_then(Kind::from_name)) {
        (None, _) if as_ == RulesFormat::Json => {
            let mut list: Vec<serde_json::Value> = tables
                .iter()
                .map(|t| serde_json::json!({"name": t.name, "title": t.title}))
                .collect();
            for k in [Kind::EntityRbac, Kind::EntitiesBulk] {
                list.push(serde_json::json!({"name": k.name(), "title": k.title()}));
            }
            serde_json::to_writer_pretty(&mut *out, &list)?;
            writeln!(out)?;
        }
        (None, _) => {
            for t in tables {
                writeln!(out, "{:<27} {}", t.name, t.title)?;
            }
            for k in [Kind::EntityRbac, Kind::EntitiesBulk] {
                writeln!(out, "{:<27} {}", k.name(), k.title())?;
            }
        }
        (Some(_), Some(k)) if as_ == RulesFormat::Json => {
            let v = serde_json::json!({
                "name": k.name(),
                "title": k.title(),
                "members": ["entities", k.relations()],
            });
            serde_json::to_writer_pretty(&mut *out, &v)?;
            writeln!(out)?;
        }
        (Some(_), Some(k)) => {
            writeln!(out, "{} ({})\n", k.title(), k.name())?;
            writeln!(
                out,
                "A ZIP archive of two CSV files, told apart by their headers (member\n\
                 names are not used): an entities CSV (`bdxlint formats entities`)\n\
                 and a relations CSV (`bdxlint formats {}`).\n\
                 Relations must point at entities of the archive.",
                k.relations()
            )?;
        }
        (Some(name), None) => {
            let Some(t) = tables.iter().find(|t| t.name == name) else {
                return Err(Failure::NoFormat(name.to_owned()));
            };
            match as_ {
                RulesFormat::Text => format_text(t, out)?,
                RulesFormat::Json => {
                    serde_json::to_writer_pretty(&mut *out, &format_json(t))?;
                    writeln!(out)?;
                }
            }
        }
    }
    Ok(EXIT_CLEAN)
}

/// How a column's requirement reads in `formats`.
fn requirement_word(c: &schema::Column) -> &'static str {
    match (c.requirement, c.header) {
        (schema::Requirement::Required, _) => "required",
        (schema::Requirement::Recommended, _) => "recommended",
        (_, schema::Requirement::Required) => "column required",
        (_, schema::Requirement::Recommended) => "column recommended",
        _ => "optional",
    }
}

fn format_text(t: &schema::Table, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{} ({})", t.title, t.name)?;
    writeln!(out, "Spec: {}", t.spec_section)?;
    if let Some(d) = &t.deprecated {
        writeln!(out, "Deprecated: {d}")?;
    }
    writeln!(out)?;
    let checks = t.checks();
    let column_check = |name: &str| {
        let what = format!("column {name:?}");
        checks.iter().find(|c| c.what == what)
    };
    for c in &t.columns {
        writeln!(
            out,
            "  {:<32} {:<18} {}",
            c.name,
            requirement_word(c),
            c.shape.describe()
        )?;
        if let Some(n) = &c.note {
            writeln!(out, "  {:<32} {:<18} {}", "", "", n)?;
        }
        if let Some(check) = column_check(&c.name) {
            for q in check.trace.fragments() {
                writeln!(out, "  {:<32} {:<18} spec: \"{q}\"", "", "")?;
            }
            writeln!(out, "  {:<32} {:<18} severity: {}", "", "", check.verdict())?;
        }
    }
    let rest: Vec<_> = checks
        .iter()
        .filter(|c| !c.what.starts_with("column "))
        .collect();
    if !rest.is_empty() {
        writeln!(out, "\nChecks across cells and rows:")?;
        for check in rest {
            writeln!(out, "  {}", check.what)?;
            for q in check.trace.fragments() {
                writeln!(out, "      spec: \"{q}\"")?;
            }
            writeln!(out, "      severity: {}", check.verdict())?;
        }
    }
    for n in &t.notes {
        writeln!(out, "\nNote: {n}")?;
    }
    Ok(())
}

fn format_json(t: &schema::Table) -> serde_json::Value {
    let checks = t.checks();
    let check_json = |c: &schema::Check<'_>| {
        serde_json::json!({
            "what": c.what,
            "errors": c.errs,
            "warnings": c.warns,
            "spec": c.trace.fragments().collect::<Vec<_>>(),
            "clause": c.trace.clause.map(|k| k.name()),
        })
    };
    let columns: Vec<serde_json::Value> = t
        .columns
        .iter()
        .map(|c| {
            let what = format!("column {:?}", c.name);
            let check = checks.iter().find(|k| k.what == what);
            serde_json::json!({
                "name": c.name,
                "requirement": requirement_word(c),
                "shape": c.shape.name(),
                "describe": c.shape.describe(),
                "note": c.note,
                "example": c.example,
                "check": check.map(check_json),
            })
        })
        .collect();
    let rest: Vec<serde_json::Value> = checks
        .iter()
        .filter(|c| !c.what.starts_with("column "))
        .map(check_json)
        .collect();
    serde_json::json!({
        "name": t.name,
        "title": t.title,
        "spec_section": t.spec_section,
        "deprecated": t.deprecated,
        "columns": columns,
        "checks": rest,
        "notes": t.notes,
    })
}

pub fn template(format: &str, example: bool, out: &mut dyn Write) -> Result<u8, Failure> {
    let tables = tables()?;
    if let Some(k) = Kind::from_name(format) {
        return Err(Failure::BundleTemplate {
            name: format.to_owned(),
            relations: k.relations(),
        });
    }
    let Some(t) = tables.iter().find(|t| t.name == format) else {
        return Err(Failure::NoFormat(format.to_owned()));
    };
    let mut w = csv::WriterBuilder::new().from_writer(out);
    let header: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
    w.write_record(&header).map_err(io::Error::other)?;
    if example {
        let row: Vec<&str> = t
            .columns
            .iter()
            .map(|c| c.example.as_deref().unwrap_or(""))
            .collect();
        w.write_record(&row).map_err(io::Error::other)?;
    }
    w.flush()?;
    Ok(EXIT_CLEAN)
}

/// `bdxlint completions SHELL`: the script that completes `cmd`'s
/// subcommands, flags and their values in that shell, made from the flag
/// definitions `--help` shows (clap_complete), so the two cannot differ.
pub fn completions(
    shell: clap_complete::Shell,
    cmd: &mut clap::Command,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    clap_complete::generate(shell, cmd, "bdxlint", out);
    Ok(EXIT_CLEAN)
}

/// `bdxlint man [SUBCOMMAND]`: the man page of `cmd` (bdxlint(1)), or of
/// one of its subcommands (bdxlint-check(1) ...), in roff, made from the
/// same definitions as `--help` (clap_mangen). Printed rather than shipped
/// as a file, so it is always the binary's own.
pub fn man(
    cmd: clap::Command,
    subcommand: Option<&str>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    // Subcommands' pages are named `bdxlint-check` as git's are, and
    // their usage lines read `bdxlint check`.
    let cmd = cmd.bin_name("bdxlint");
    let page = match subcommand {
        None => clap_mangen::Man::new(cmd),
        Some(name) => {
            let Some(sub) = cmd.find_subcommand(name).cloned() else {
                return Err(Failure::NoSubcommand(name.to_owned()));
            };
            let title = format!("bdxlint-{}", sub.get_name());
            clap_mangen::Man::new(sub.bin_name(format!("bdxlint {name}"))).title(title)
        }
    };
    page.render(out)?;
    Ok(EXIT_CLEAN)
}
