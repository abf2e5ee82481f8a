//! The JSON document: a stable contract, documented in the README.
//!
//! `{"version":1,"files":[{"path","diagnostics":[...],"format","records"}],
//! "summary":{"files","errors","warnings","infos"}}`. Fields are only ever
//! added, never renamed or removed, without bumping `version`.

use super::model::Summary;
use crate::diagnostic::Diagnostic;
use serde::Serialize;

#[derive(Serialize)]
pub(super) struct JsonSummary {
    files: usize,
    errors: usize,
    warnings: usize,
    infos: usize,
    /// Files that could not be checked (I/O or detection failures).
    unreadable: usize,
    /// Findings counted but not listed (`--max-diagnostics`); absent when 0.
    #[serde(skip_serializing_if = "is_zero")]
    hidden: usize,
    /// Findings left out because the baseline records them; absent when 0.
    #[serde(skip_serializing_if = "is_zero")]
    baselined: usize,
    /// Baseline entries that no longer occur; absent when 0.
    #[serde(skip_serializing_if = "is_zero")]
    stale_baseline: usize,
    /// Files `--fix` checked but left as they were (refused, or the copy
    /// not written); absent when 0.
    #[serde(skip_serializing_if = "is_zero")]
    not_fixed: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

pub(super) fn summary(s: &Summary) -> JsonSummary {
    JsonSummary {
        files: s.files,
        errors: s.errors,
        warnings: s.warnings,
        infos: s.infos,
        unreadable: s.failures,
        hidden: s.hidden,
        baselined: s.baselined,
        stale_baseline: s.stale_baseline,
        not_fixed: s.not_fixed,
    }
}

/// Writes one finding's JSON object into `buf`: the fields of the
/// contract, in its order, in serde_json's compact bytes (its escapes, no
/// spaces). `path` leads the object in JSON Lines.
///
/// Written by hand rather than derived: a file where every row is wrong
/// puts out a million of these on the one thread that also reads, and
/// serde_json's many small writes through `dyn Write` cost that thread
/// nearly three times what these few appends and one write do (5,600
/// instructions a finding, 2,000). A test holds the bytes to serde_json's.
pub(super) fn write_diag(
    buf: &mut Vec<u8>,
    d: &Diagnostic,
    path: Option<&str>,
    member: Option<&str>,
) {
    buf.push(b'{');
    if let Some(path) = path {
        buf.extend_from_slice(b"\"path\":");
        write_str(buf, path);
        buf.push(b',');
    }
    buf.extend_from_slice(b"\"code\":");
    write_str(buf, d.rule.code);
    buf.extend_from_slice(b",\"name\":");
    write_str(buf, d.rule.name);
    buf.extend_from_slice(b",\"severity\":");
    write_str(buf, d.severity.as_str());
    buf.extend_from_slice(b",\"message\":");
    write_str(buf, &d.message);
    buf.extend_from_slice(b",\"help\":");
    write_opt_str(buf, d.help.as_deref());
    buf.extend_from_slice(b",\"line\":");
    write_u64(buf, d.line);
    buf.extend_from_slice(b",\"col\":");
    write_u64(buf, d.col);
    buf.extend_from_slice(b",\"column\":");
    write_opt_str(buf, d.column.as_deref());
    buf.extend_from_slice(b",\"span\":");
    write_span(buf, &d.span);
    if let Some(member) = member {
        buf.extend_from_slice(b",\"member\":");
        write_str(buf, member);
    }
    if !d.related.is_empty() {
        buf.extend_from_slice(b",\"related\":[");
        for (i, r) in d.related.iter().enumerate() {
            if i > 0 {
                buf.push(b',');
            }
            buf.extend_from_slice(b"{\"line\":");
            write_u64(buf, r.line);
            buf.extend_from_slice(b",\"column\":");
            write_opt_str(buf, r.column.as_deref());
            buf.extend_from_slice(b",\"message\":");
            write_str(buf, &r.message);
            buf.push(b'}');
        }
        buf.push(b']');
    }
    if let Some(v) = &d.value {
        buf.extend_from_slice(b",\"value\":");
        write_str(buf, v);
    }
    if let Some(f) = &d.fix {
        buf.extend_from_slice(b",\"fix\":{\"applicability\":");
        write_str(buf, f.applicability.as_str());
        buf.extend_from_slice(b",\"message\":");
        write_str(buf, &f.message);
        buf.extend_from_slice(b",\"edits\":[");
        for (i, e) in f.edits.iter().enumerate() {
            if i > 0 {
                buf.push(b',');
            }
            buf.extend_from_slice(b"{\"span\":");
            write_span(buf, &e.span);
            buf.extend_from_slice(b",\"content\":");
            write_str(buf, &e.content);
            buf.push(b'}');
        }
        buf.extend_from_slice(b"]}");
    }
    buf.push(b'}');
}

/// `{"start":S,"end":E}`.
fn write_span(buf: &mut Vec<u8>, span: &std::ops::Range<u64>) {
    buf.extend_from_slice(b"{\"start\":");
    write_u64(buf, span.start);
    buf.extend_from_slice(b",\"end\":");
    write_u64(buf, span.end);
    buf.push(b'}');
}

fn write_u64(buf: &mut Vec<u8>, n: u64) {
    buf.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

fn write_opt_str(buf: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => write_str(buf, s),
        None => buf.extend_from_slice(b"null"),
    }
}

/// A JSON string as serde_json writes it: `"` and `\\` escaped with a
/// backslash, the control characters below U+0020 as `\b \t \n \f \r` or
/// `\u00xx` (lowercase hex), everything else (non-ASCII included) as is;
/// but for the C1 controls U+0080-U+009F, which serde_json leaves raw and
/// which are written `\u00xx` here: a cell's `value` may hold U+009B, a
/// terminal's CSI, and the document may be read on a terminal.
fn write_str(buf: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    buf.push(b'"');
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        // Eight bytes a step while none needs escaping: a message is a
        // few hundred bytes and rarely holds one.
        if let Some(word) = bytes[i..].first_chunk::<8>() {
            if !any_needs_escape(u64::from_le_bytes(*word)) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        i += 1;
        if b == 0xC2 && bytes.get(i).is_some_and(|n| (0x80..0xA0).contains(n)) {
            let c = bytes[i];
            buf.extend_from_slice(&bytes[start..i - 1]);
            buf.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(c >> 4)],
                HEX[usize::from(c & 0xF)],
            ]);
            i += 1;
            start = i;
            continue;
        }
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        buf.extend_from_slice(&bytes[start..i - 1]);
        start = i;
        match b {
            b'"' => buf.extend_from_slice(b"\\\""),
            b'\\' => buf.extend_from_slice(b"\\\\"),
            0x08 => buf.extend_from_slice(b"\\b"),
            0x09 => buf.extend_from_slice(b"\\t"),
            0x0A => buf.extend_from_slice(b"\\n"),
            0x0C => buf.extend_from_slice(b"\\f"),
            0x0D => buf.extend_from_slice(b"\\r"),
            _ => buf.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xF)],
            ]),
        }
    }
    buf.extend_from_slice(&bytes[start..]);
    buf.push(b'"');
}

/// Whether any of the eight bytes of `w` is below 0x20, `"`, `\\` or 0xC2
/// (the lead byte of the C1 controls). The
/// classic tests (a byte below n: `(w - n·0x01…) & !w & 0x80…`; a zero byte
/// after xor with the byte) may mark the wrong byte after a true one, but
/// are non-zero exactly when some byte matches, which is all this asks.
fn any_needs_escape(w: u64) -> bool {
    use crate::swar::{first_below, splat};
    (first_below(w, 0x20)
        | first_below(w ^ splat(b'"'), 1)
        | first_below(w ^ splat(b'\\'), 1)
        | first_below(w ^ splat(0xC2), 1))
        != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Related, Severity};
    use proptest::prelude::*;

    // The contract as serde derives it: the oracle `write_diag` answers to.
    #[derive(Serialize)]
    struct Diag<'a> {
        code: &'a str,
        name: &'a str,
        severity: &'a str,
        message: &'a str,
        help: Option<&'a str>,
        line: u64,
        col: u64,
        column: Option<&'a str>,
        span: Span,
        #[serde(skip_serializing_if = "Option::is_none")]
        member: Option<&'a str>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        related: Vec<Rel<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        value: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        fix: Option<FixJson<'a>>,
    }

    #[derive(Serialize)]
    struct FixJson<'a> {
        applicability: &'a str,
        message: &'a str,
        edits: Vec<EditJson<'a>>,
    }

    #[derive(Serialize)]
    struct EditJson<'a> {
        span: Span,
        content: &'a str,
    }

    #[derive(Serialize)]
    struct Span {
        start: u64,
        end: u64,
    }

    #[derive(Serialize)]
    struct Rel<'a> {
        line: u64,
        column: Option<&'a str>,
        message: &'a str,
    }

    #[derive(Serialize)]
    struct Line<'a> {
        path: &'a str,
        #[serde(flatten)]
        diag: Diag<'a>,
    }

    fn oracle<'a>(d: &'a Diagnostic, member: Option<&'a str>) -> Diag<'a> {
        Diag {
            code: d.rule.code,
            name: d.rule.name,
            severity: d.severity.as_str(),
            message: &d.message,
            help: d.help.as_deref(),
            line: d.line,
            col: d.col,
            column: d.column.as_deref(),
            span: Span {
                start: d.span.start,
                end: d.span.end,
            },
            member,
            related: d
                .related
                .iter()
                .map(|r| Rel {
                    line: r.line,
                    column: r.column.as_deref(),
                    message: &r.message,
                })
                .collect(),
            value: d.value.as_deref(),
            fix: d.fix.as_ref().map(|f| FixJson {
                applicability: f.applicability.as_str(),
                message: &f.message,
                edits: f
                    .edits
                    .iter()
                    .map(|e| EditJson {
                        span: Span {
                            start: e.span.start,
                            end: e.span.end,
                        },
                        content: &e.content,
                    })
                    .collect(),
            }),
        }
    }

    /// serde_json's bytes with the C1 controls escaped, as `write_str`
    /// writes them.
    fn c1_escaped(v: Vec<u8>) -> Vec<u8> {
        let s = String::from_utf8(v).expect("utf-8");
        let mut out = String::new();
        for c in s.chars() {
            if ('\u{80}'..'\u{a0}').contains(&c) {
                out.push_str(&format!("\\u{:04x}", c as u32));
            } else {
                out.push(c);
            }
        }
        out.into_bytes()
    }

    /// Text weighted towards what needs escaping: every control character,
    /// quotes, backslashes, DEL, `/` and multi-byte characters.
    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                (0u8..0x20).prop_map(char::from),
                Just('"'),
                Just('\\'),
                Just('/'),
                Just('\u{7f}'),
                Just('é'),
                Just('\u{2028}'),
                Just('\u{9b}'),
                Just('\u{85}'),
                Just('😀'),
                any::<char>(),
                prop::char::range('a', 'z'),
            ],
            0..24,
        )
        .prop_map(|v| v.into_iter().collect())
    }

    prop_compose! {
        fn diagnostic()(
            rule in 0..crate::rules::ALL.len(),
            severity in prop_oneof![Just(Severity::Info), Just(Severity::Warning), Just(Severity::Error)],
            message in text(),
            help in prop::option::of(text()),
            line in any::<u64>(),
            col in any::<u64>(),
            column in prop::option::of(text()),
            start in any::<u64>(),
            end in any::<u64>(),
            related in prop::collection::vec((any::<u64>(), prop::option::of(text()), text()), 0..3),
            value in prop::option::of(text()),
            fix in prop::option::of((any::<bool>(), text(), prop::collection::vec((any::<u64>(), any::<u64>(), text()), 0..3))),
        ) -> Diagnostic {
            Diagnostic {
                rule: crate::rules::ALL[rule],
                severity,
                message,
                help,
                line,
                col,
                column: column.map(Into::into),
                span: start..end,
                related: related
                    .into_iter()
                    .map(|(line, column, message)| Related { line, column: column.map(Into::into), message })
                    .collect(),
                snippet: None,
                once_per_file: false,
                shared: None,
                fix: fix.map(|(safe, message, edits)| Box::new(crate::diagnostic::Fix {
                    applicability: if safe {
                        crate::diagnostic::Applicability::Safe
                    } else {
                        crate::diagnostic::Applicability::Unsafe
                    },
                    message,
                    edits: edits
                        .into_iter()
                        .map(|(start, end, content)| crate::diagnostic::Edit { span: start..end, content })
                        .collect(),
                    transform: None,
                })),
                value: value.map(Into::into),
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn write_diag_gives_serde_jsons_bytes(
            d in diagnostic(),
            member in prop::option::of(text()),
            path in text(),
        ) {
            let member = member.as_deref();
            let mut buf = Vec::new();
            write_diag(&mut buf, &d, None, member);
            let want = c1_escaped(serde_json::to_vec(&oracle(&d, member)).expect("serialises"));
            prop_assert_eq!(String::from_utf8_lossy(&buf), String::from_utf8_lossy(&want));

            buf.clear();
            write_diag(&mut buf, &d, Some(&path), member);
            let want = c1_escaped(
                serde_json::to_vec(&Line { path: &path, diag: oracle(&d, member) })
                    .expect("serialises"),
            );
            prop_assert_eq!(String::from_utf8_lossy(&buf), String::from_utf8_lossy(&want));
        }
    }

    #[test]
    fn every_ascii_character_at_every_offset_is_escaped_as_serde_json_does() {
        let all: String = (0u8..0x80).map(char::from).collect();
        let mut buf = Vec::new();
        write_str(&mut buf, &all);
        assert_eq!(buf, serde_json::to_vec(&all).expect("serialises"));
        // One byte among plain ones, at each place of an eight-byte step,
        // with a non-ASCII neighbour (whose high bit the step must ignore).
        for c in (0u8..0x80).map(char::from) {
            for at in 0..17 {
                let s: String = (0..20)
                    .map(|j| {
                        if j == at {
                            c
                        } else if j == at + 1 {
                            'é'
                        } else {
                            'a'
                        }
                    })
                    .collect();
                buf.clear();
                write_str(&mut buf, &s);
                assert_eq!(buf, serde_json::to_vec(&s).expect("serialises"), "{s:?}");
            }
        }
    }
}
