//! Helpers for the unit tests.

/// A xorshift64 generator from `seed` (non-zero): the tests that compare a
/// fast path with the rule written plainly draw their inputs from it, so a
/// failure is the same on every run.
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

/// JSON texts at the edges of the grammar, valid and not, that the parser
/// and every quick check built on its grammar must agree on.
pub(crate) const JSON_SYNTAX_CASES: &[&str] = &[
    "{}",
    "[]",
    "0",
    "-0.5e+3",
    "\"\\u00e9\\ud83d\\ude00\"",
    "[1,]",
    "{\"a\":1,}",
    "{'a':1}",
    "01",
    "1.",
    "1e",
    "[1 2]",
    "{\"a\" 1}",
    "{\"a\":}",
    "tru",
    "nul",
    "\"a\tb\"",
    "\"\\x\"",
    "{} x",
    "",
    "  ",
    "[",
    "{\"a\":[}",
    "\"abc",
    "[[[]]]",
    "{\"a\":{\"b\":[true,false,null]}}",
    "1.5E-7",
    "-",
    "[-]",
    "{\"\":0}",
    "[\"\\u12\"]",
    "truex",
    "[true]x",
];

/// A finding of rule `code` at `line`, column 1, with `message` and no
/// span, help, snippet or column: what the writers' tests feed them.
pub(crate) fn finding(code: &str, line: u64, message: String) -> crate::diagnostic::Diagnostic {
    let rule = crate::rules::lookup(code).expect("a rule of the registry");
    crate::diagnostic::Diagnostic {
        rule,
        severity: rule.severity,
        message,
        help: None,
        line,
        col: 1,
        column: None,
        span: 0..0,
        related: Vec::new(),
        snippet: None,
        once_per_file: false,
        shared: None,
        fix: None,
        value: None,
    }
}
