//! What a reference finding says: the registry rule it reports and the
//! placeholders its message and help may use, held to what the engine
//! can fill in.

use crate::rules::Rule;

/// The placeholders a reference's message and help may use: the key as
/// quoted in messages, the whole value (element) it was taken from, the
/// key as written (trimmed, whole), the type of a compound key (trimmed)
/// and, for a `gone` key only, the file and line of the row that deletes
/// it.
pub(crate) const PLACEHOLDERS: [&str; 5] = ["{value}", "{cell}", "{key}", "{type}", "{place}"];

/// The placeholders of an `[[unchecked]]` message: the number of cells a
/// `count` target left unchecked, and `s` / `was` agreeing with it.
pub(crate) const COUNT_PLACEHOLDERS: [&str; 3] = ["{count}", "{s}", "{was}"];

/// Why a reference's or an `[[unchecked]]`'s rule or words do not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum WordsError {
    #[error("unknown placeholder in {text:?} (known here: {known:?})")]
    Placeholder {
        text: String,
        known: Vec<&'static str>,
    },
    #[error("{{place}} in {0:?}: only a gone_message or gone_help has a deleting row to name")]
    Place(String),
    #[error("{{type}} in {0:?}: only a compound key (`type_column`) has a type")]
    Type(String),
    #[error("no rule with code {0:?} in the registry")]
    Rule(String),
}

/// Checks that a message template uses only `known` placeholders.
pub(super) fn check_placeholders(text: &str, known: &[&'static str]) -> Result<(), WordsError> {
    let mut rest = text;
    while let Some(at) = rest.find('{') {
        let tail = &rest[at..];
        let p =
            known
                .iter()
                .find(|p| tail.starts_with(*p))
                .ok_or_else(|| WordsError::Placeholder {
                    text: text.to_owned(),
                    known: known.to_vec(),
                })?;
        rest = &tail[p.len()..];
    }
    Ok(())
}

/// Checks that a message template uses only known placeholders, `{place}`
/// only where a deleting row exists to name, `{type}` only with a compound
/// key.
#[cfg(test)]
pub(super) fn check_template(text: &str, gone: bool) -> Result<(), WordsError> {
    check_template_of(text, gone, true)
}

pub(super) fn check_template_of(text: &str, gone: bool, typed: bool) -> Result<(), WordsError> {
    let known: Vec<&str> = PLACEHOLDERS
        .iter()
        .copied()
        .filter(|p| (gone || *p != "{place}") && (typed || *p != "{type}"))
        .collect();
    check_placeholders(text, &known).map_err(|e| {
        if text.contains("{place}") && !gone {
            WordsError::Place(text.to_owned())
        } else if text.contains("{type}") && !typed {
            WordsError::Type(text.to_owned())
        } else {
            e
        }
    })
}

pub(super) fn find_rule(code: &str) -> Result<&'static Rule, WordsError> {
    crate::rules::ALL
        .iter()
        .copied()
        .find(|k| k.code == code)
        .ok_or_else(|| WordsError::Rule(code.to_owned()))
}
