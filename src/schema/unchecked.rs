//! A table's `[[unchecked]]`: what a file says, once and last, about the
//! references no source could check, one entry for every set of targets
//! the engine may meet.

use super::error::TableError;
use super::references::{Reference, UncheckedMode};
use super::trace::{Clause, Trace};
use super::words::{check_placeholders, find_rule, COUNT_PLACEHOLDERS};
use crate::rules::Rule;
use serde::Deserialize;

/// One `[[unchecked]]`: what a file says when references to `targets`
/// went unchecked.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawUnchecked {
    targets: Vec<String>,
    rule: String,
    message: String,
    help: String,
    #[serde(default)]
    spec: Option<String>,
    #[serde(default)]
    clause: Option<Clause>,
}

/// A table's `[[unchecked]]`: one info a file, after its references, when
/// references to exactly `targets` went unchecked.
#[derive(Debug)]
pub(crate) struct Unchecked {
    pub(crate) targets: Vec<String>,
    pub(crate) rule: &'static Rule,
    pub(crate) message: String,
    pub(crate) help: String,
    pub(crate) trace: Trace,
}

/// The `[[unchecked]]` entries of a table, held to its references: every
/// non-empty set of the targets whose references say what went unchecked
/// has exactly one entry, counts are asked only where a `count` target
/// gives one, and one rule says it all.
pub(super) fn unchecked(
    format: &str,
    raw: Vec<RawUnchecked>,
    refs: &[Reference],
) -> Result<Vec<Unchecked>, TableError> {
    let targets = targets(format, refs)?;
    let mut out: Vec<Unchecked> = Vec::with_capacity(raw.len());
    for u in raw {
        let entry = entry(format, u, &targets, &out)?;
        out.push(entry);
    }
    every_combination(format, &targets, &out)?;
    Ok(out)
}

/// The targets whose references say what went unchecked, each with its
/// one mode; at most one of them counted.
fn targets<'r>(
    format: &str,
    refs: &'r [Reference],
) -> Result<Vec<(&'r str, UncheckedMode)>, TableError> {
    let mut targets: Vec<(&str, UncheckedMode)> = Vec::new();
    for r in refs {
        let Some(mode) = r.unchecked else { continue };
        match targets.iter().find(|(t, _)| *t == r.target) {
            Some((_, m)) if *m != mode => {
                return Err(TableError::UncheckedDisagree {
                    format: format.to_owned(),
                    target: r.target.clone(),
                })
            }
            Some(_) => {}
            None => targets.push((&r.target, mode)),
        }
    }
    if targets
        .iter()
        .filter(|(_, m)| *m == UncheckedMode::Count)
        .count()
        > 1
    {
        return Err(TableError::UncheckedCounts {
            format: format.to_owned(),
        });
    }
    Ok(targets)
}

/// One `[[unchecked]]`, held to the targets and to the entries before it.
fn entry(
    format: &str,
    u: RawUnchecked,
    targets: &[(&str, UncheckedMode)],
    before: &[Unchecked],
) -> Result<Unchecked, TableError> {
    let at = |reason: String| TableError::Unchecked {
        format: format.to_owned(),
        targets: u.targets.clone(),
        reason,
    };
    if u.targets.is_empty() {
        return Err(at("`targets` is empty".into()));
    }
    let mut counted = false;
    for (i, t) in u.targets.iter().enumerate() {
        match targets.iter().find(|(x, _)| x == t) {
            None => return Err(at(format!("no [[references]] to {t:?} sets `unchecked`"))),
            Some((_, m)) => counted |= *m == UncheckedMode::Count,
        }
        if u.targets[..i].contains(t) {
            return Err(at(format!("{t:?} is listed twice")));
        }
    }
    let mut set = u.targets.clone();
    set.sort();
    if before.iter().any(|o| {
        let mut x = o.targets.clone();
        x.sort();
        x == set
    }) {
        return Err(at("a second entry for the same targets".into()));
    }
    let rule = find_rule(&u.rule).map_err(|e| at(e.to_string()))?;
    if before.first().is_some_and(|o| !std::ptr::eq(o.rule, rule)) {
        return Err(at("every [[unchecked]] reports one rule".into()));
    }
    let known: &[&str] = if counted { &COUNT_PLACEHOLDERS } else { &[] };
    for text in [&u.message, &u.help] {
        check_placeholders(text, known).map_err(|e| at(e.to_string()))?;
    }
    Ok(Unchecked {
        targets: u.targets,
        rule,
        message: u.message,
        help: u.help,
        trace: Trace::new(u.spec, u.clause),
    })
}

/// Every combination of targets the engine may meet has its words.
fn every_combination(
    format: &str,
    targets: &[(&str, UncheckedMode)],
    entries: &[Unchecked],
) -> Result<(), TableError> {
    let n = targets.len();
    if n > 8 {
        return Err(TableError::UncheckedTargets {
            format: format.to_owned(),
        });
    }
    for mask in 1u32..(1 << n) {
        let mut set: Vec<&str> = (0..n)
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| targets[i].0)
            .collect();
        set.sort_unstable();
        let has = entries.iter().any(|o| {
            let mut x: Vec<&str> = o.targets.iter().map(String::as_str).collect();
            x.sort_unstable();
            x == set
        });
        if !has {
            return Err(TableError::UncheckedMissing {
                format: format.to_owned(),
                targets: set.into_iter().map(str::to_owned).collect(),
            });
        }
    }
    Ok(())
}
