//! Which findings a run reports, and at which severity: `--select`,
//! `--ignore` and `--severity` (and the same keys in `bdxlint.toml`).
//! Named `select` for that job (it was `filter.rs`, a name `check/filter.rs`
//! also had for the Filters JSON grammar).
//!
//! This is a filter over finished [`FileReport`]s, not an option of the
//! checker: the checks stay simple and fast, and a rule switched off costs
//! only its findings' allocation. A selector is a rule code or a code prefix
//! (`C004`, `C00`, `J`), a rule name (`invalid-date`), or `ALL`,
//! case-insensitive. A selector that matches no rule is an error, so a typo
//! never silently selects nothing.

use crate::diagnostic::Severity;
use crate::rules::{self, Rule};
use serde::Deserialize;
use std::fmt;

/// A severity a rule can be set to; `off` drops its findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Off,
    Info,
    Warning,
    Error,
}

impl Level {
    fn severity(self) -> Option<Severity> {
        match self {
            Level::Off => None,
            Level::Info => Some(Severity::Info),
            Level::Warning => Some(Severity::Warning),
            Level::Error => Some(Severity::Error),
        }
    }
}

/// A selector that names no rule (or a malformed `CODE=level`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError(pub String);

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SelectorError {}

/// Whether `selector` names `rule`.
pub(crate) fn matches(selector: &str, rule: &Rule) -> bool {
    selector.eq_ignore_ascii_case("all")
        || rule.name.eq_ignore_ascii_case(selector)
        || (!selector.is_empty()
            && rule.code.len() >= selector.len()
            && rule.code[..selector.len()].eq_ignore_ascii_case(selector))
}

/// Checks that `selector` names at least one rule.
pub(crate) fn validate(selector: &str) -> Result<(), SelectorError> {
    if rules::ALL.iter().any(|r| matches(selector, r)) {
        Ok(())
    } else {
        Err(SelectorError(format!(
            "{selector:?} names no rule (give a code like C004, a code prefix like C or J00, a name like invalid-date, or ALL; `bdxlint rules` lists them)"
        )))
    }
}

/// Parses `--severity CODE=level`.
pub fn parse_severity(arg: &str) -> Result<(String, Level), SelectorError> {
    let (sel, level) = arg.split_once('=').ok_or_else(|| {
        SelectorError(format!(
            "--severity {arg:?}: expected CODE=off|info|warning|error"
        ))
    })?;
    let level = match level.trim().to_ascii_lowercase().as_str() {
        "off" => Level::Off,
        "info" => Level::Info,
        "warning" => Level::Warning,
        "error" => Level::Error,
        other => {
            return Err(SelectorError(format!(
                "--severity {arg:?}: {other:?} is not off, info, warning or error"
            )))
        }
    };
    let sel = sel.trim().to_owned();
    validate(&sel)?;
    Ok((sel, level))
}

/// Select, ignore and severity settings, applied in that order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RuleFilter {
    /// Keep only findings of rules matching one of these; empty keeps all.
    pub(crate) select: Vec<String>,
    /// Drop findings of rules matching one of these (after `select`).
    pub(crate) ignore: Vec<String>,
    /// Severity overrides; a later entry wins over an earlier one.
    pub(crate) severity: Vec<(String, Level)>,
}

impl RuleFilter {
    /// Checks every selector.
    pub(crate) fn validate(&self) -> Result<(), SelectorError> {
        for s in self.select.iter().chain(&self.ignore) {
            validate(s)?;
        }
        for (s, _) in &self.severity {
            validate(s)?;
        }
        Ok(())
    }

    /// What happens to findings of `rule`: dropped (`None`) or reported at
    /// a severity (`Some`); `default` is the finding's own severity.
    pub(crate) fn judge(&self, rule: &Rule, default: Severity) -> Option<Severity> {
        if !self.select.is_empty() && !self.select.iter().any(|s| matches(s, rule)) {
            return None;
        }
        if self.ignore.iter().any(|s| matches(s, rule)) {
            return None;
        }
        match self.severity.iter().rev().find(|(s, _)| matches(s, rule)) {
            Some((_, level)) => level.severity(),
            None => Some(default),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{BOOLEAN_CASE, INVALID_DATE, INVALID_EMAIL, JSON_UNKNOWN_KEY};

    #[test]
    fn selectors_are_codes_prefixes_names_or_all() {
        assert!(matches("C004", &INVALID_DATE));
        assert!(matches("c00", &INVALID_DATE));
        assert!(matches("C", &INVALID_DATE));
        assert!(matches("invalid-date", &INVALID_DATE));
        assert!(matches("ALL", &INVALID_DATE));
        assert!(!matches("C003", &INVALID_DATE));
        assert!(!matches("J", &INVALID_DATE));
        assert!(!matches("", &INVALID_DATE));
        assert!(validate("X9").is_err());
        assert!(validate("invalid").is_err());
    }

    #[test]
    fn select_then_ignore_then_severity() {
        let f = RuleFilter {
            select: vec!["C".into(), "J".into()],
            ignore: vec!["C003".into()],
            severity: vec![
                ("C".into(), Level::Warning),
                ("boolean-case".into(), Level::Off),
            ],
        };
        assert_eq!(
            f.judge(&INVALID_DATE, Severity::Error),
            Some(Severity::Warning)
        );
        assert_eq!(f.judge(&INVALID_EMAIL, Severity::Error), None);
        assert_eq!(f.judge(&BOOLEAN_CASE, Severity::Warning), None);
        assert_eq!(
            f.judge(&JSON_UNKNOWN_KEY, Severity::Warning),
            Some(Severity::Warning)
        );
        assert_eq!(f.judge(&crate::rules::EMPTY_FILE, Severity::Error), None);
    }

    #[test]
    fn severity_arguments() {
        assert_eq!(
            parse_severity("C004=warning"),
            Ok(("C004".into(), Level::Warning))
        );
        assert!(parse_severity("C004").is_err());
        assert!(parse_severity("C004=fatal").is_err());
        assert!(parse_severity("Z1=off").is_err());
    }
}
