//! A strict JSON (RFC 8259) parser that keeps byte spans.
//!
//! serde_json tells where a syntax error is, but not where a well-formed
//! value sits, and the grammars of JSON cells (filter values, labels,
//! metadata) must point at the key or value at fault. This parser builds a
//! flat tree of [`Node`]s, each with its byte span in the text and, for
//! object members, the span of its key. It is iterative, so nesting depth
//! costs heap, never stack; depth is still capped at [`MAX_DEPTH`] (the
//! limit of Go's `encoding/json`, which the platform most likely uses).
//!
//! Offsets are `u32`: a cell is capped far below 4 GiB by the record limit,
//! and [`parse`] refuses longer text rather than truncating offsets.

use std::borrow::Cow;
use std::ops::Range;

/// Deepest nesting accepted.
pub const MAX_DEPTH: usize = 10_000;

const NO_KEY: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

impl Kind {
    /// The kind as a message names it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool => "a boolean",
            Kind::Number => "a number",
            Kind::String => "a string",
            Kind::Array => "an array",
            Kind::Object => "an object",
        }
    }
}

/// One value. Children of an array or object follow it directly; `next` is
/// the index just past its subtree, so siblings are found by jumping.
#[derive(Debug, Clone, Copy)]
pub struct Node {
    pub kind: Kind,
    /// A string value without `\` escapes, whose text is its decoding.
    plain: bool,
    /// The same for the member key.
    plain_key: bool,
    start: u32,
    end: u32,
    key_start: u32,
    key_end: u32,
    next: u32,
}

impl Node {
    /// The value's bytes (a string's include its quotes).
    pub fn span(&self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The member key's bytes, quotes included, for an object member.
    pub fn key_span(&self) -> Option<Range<usize>> {
        (self.key_start != NO_KEY).then_some(self.key_start as usize..self.key_end as usize)
    }
}

/// A syntax error: what, and the byte where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub offset: usize,
    pub message: String,
}

/// A parsed JSON text.
#[derive(Debug)]
pub struct Doc<'t> {
    text: &'t str,
    nodes: Vec<Node>,
    /// The text is written inside a quoted CSV cell, every `"` doubled.
    doubled: bool,
}

/// Node indexes in a [`Doc`].
pub type NodeId = usize;

impl<'t> Doc<'t> {
    /// Parses `text`, reusing `nodes` as storage (taken back with
    /// [`Doc::into_nodes`]) so a checker allocates once per thread, not per
    /// cell.
    pub fn parse(text: &'t str, nodes: Vec<Node>) -> Result<Doc<'t>, (SyntaxError, Vec<Node>)> {
        Self::parse_as(text, false, nodes)
    }

    /// Parses JSON as it stands in a quoted CSV cell, with every `"`
    /// written `""` (`doubled`), or as it is (`!doubled`). Offsets and
    /// spans are then the cell's raw bytes, which is what findings point
    /// at in the file: no unescaped copy of the cell is made, and no
    /// offset needs mapping back through the escaping.
    pub fn parse_as(
        text: &'t str,
        doubled: bool,
        mut nodes: Vec<Node>,
    ) -> Result<Doc<'t>, (SyntaxError, Vec<Node>)> {
        nodes.clear();
        let parsed = if doubled {
            parse_into::<2>(text, &mut nodes)
        } else {
            parse_into::<1>(text, &mut nodes)
        };
        match parsed {
            Ok(()) => Ok(Doc {
                text,
                nodes,
                doubled,
            }),
            Err(e) => Err((e, nodes)),
        }
    }

    pub(crate) fn into_nodes(self) -> Vec<Node> {
        self.nodes
    }

    pub(crate) fn text(&self) -> &'t str {
        self.text
    }

    pub fn root(&self) -> NodeId {
        0
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    pub fn kind(&self, id: NodeId) -> Kind {
        self.nodes[id].kind
    }

    /// Children of an array or object, in order (empty for scalars).
    pub fn children(&self, id: NodeId) -> Children<'_> {
        let n = &self.nodes[id];
        let (at, end) = match n.kind {
            Kind::Array | Kind::Object => (id + 1, n.next as usize),
            _ => (0, 0),
        };
        Children {
            nodes: &self.nodes,
            at,
            end,
        }
    }

    /// The decoded key of an object member.
    #[inline]
    pub fn key(&self, id: NodeId) -> Option<Cow<'t, str>> {
        let n = &self.nodes[id];
        let span = n.key_span()?;
        Some(decoded(&self.text[span], n.plain_key, self.doubled))
    }

    /// Where the key of member `id` sits in [`Doc::text`], quotes left
    /// out, when those bytes are its decoding (no `\` escapes). A schema
    /// matches keys on this without building a `Cow` per member, and may
    /// read the text just past a short key.
    #[inline]
    pub(crate) fn plain_key_span(&self, id: NodeId) -> Option<Range<usize>> {
        let n = &self.nodes[id];
        if n.key_start == NO_KEY || !n.plain_key {
            return None;
        }
        let q = if self.doubled { 2 } else { 1 };
        Some(n.key_start as usize + q..n.key_end as usize - q)
    }

    /// The decoded value of a string node.
    #[inline]
    pub fn str(&self, id: NodeId) -> Option<Cow<'t, str>> {
        let n = &self.nodes[id];
        (n.kind == Kind::String).then(|| decoded(&self.text[n.span()], n.plain, self.doubled))
    }

    /// The member of object `id` named `key` (the first, if repeated).
    pub(crate) fn get(&self, id: NodeId, key: &str) -> Option<NodeId> {
        if self.kind(id) != Kind::Object {
            return None;
        }
        self.children(id)
            .find(|&c| self.key(c).is_some_and(|k| k == key))
    }

    /// The number a number node holds, as f64.
    #[cfg(test)]
    pub(crate) fn number(&self, id: NodeId) -> Option<f64> {
        let n = &self.nodes[id];
        (n.kind == Kind::Number)
            .then(|| self.text[n.span()].parse().ok())
            .flatten()
    }

    /// Whether a boolean node is `true`.
    #[cfg(test)]
    pub(crate) fn is_true(&self, id: NodeId) -> bool {
        let n = &self.nodes[id];
        n.kind == Kind::Bool && self.text.as_bytes()[n.start as usize] == b't'
    }
}

pub struct Children<'d> {
    nodes: &'d [Node],
    at: usize,
    end: usize,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        if self.at >= self.end {
            return None;
        }
        let id = self.at;
        self.at = self.nodes[id].next as usize;
        Some(id)
    }
}

/// A string token (quotes included) decoded; `plain` says the parser saw
/// no `\` in it, so decoding is taking off the quotes (a plain string has
/// no `"` inside, doubled or not).
#[inline]
fn decoded(token: &str, plain: bool, doubled: bool) -> Cow<'_, str> {
    let q = if doubled { 2 } else { 1 };
    match token.get(q..token.len().saturating_sub(q)) {
        Some(inner) if plain => Cow::Borrowed(inner),
        Some(inner) if doubled => {
            // Rare: an escape inside a doubled cell. Undo the CSV escaping,
            // then the JSON one.
            let json = format!("\"{}\"", inner.replace("\"\"", "\""));
            Cow::Owned(decode_string(&json).into_owned())
        }
        _ => decode_string(token),
    }
}

/// Decodes a string token (quotes included). Invalid `\u` surrogates become
/// U+FFFD, as Go's decoder does.
fn decode_string(token: &str) -> Cow<'_, str> {
    let inner = token
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(token);
    // A byte loop: keys and values are short, where a search's setup
    // costs more than the search.
    if !inner.bytes().any(|b| b == b'\\') {
        return Cow::Borrowed(inner);
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hex = |chars: &mut std::str::Chars<'_>| -> Option<u32> {
                    let s: String = chars.by_ref().take(4).collect();
                    u32::from_str_radix(&s, 16).ok()
                };
                let Some(hi) = hex(&mut chars) else {
                    out.push('\u{fffd}');
                    continue;
                };
                let code = if (0xD800..0xDC00).contains(&hi) {
                    let rest = chars.as_str();
                    match rest
                        .strip_prefix("\\u")
                        .and_then(|r| r.get(..4))
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                        .filter(|lo| (0xDC00..0xE000).contains(lo))
                    {
                        Some(lo) => {
                            chars = rest[6..].chars();
                            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                        }
                        None => 0xFFFD,
                    }
                } else {
                    hi
                };
                out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    Cow::Owned(out)
}

fn err(offset: usize, message: impl Into<String>) -> SyntaxError {
    SyntaxError {
        offset,
        message: message.into(),
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(c) = b.get(i) {
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            _ => break,
        }
    }
    i
}

/// A `"` that is not doubled, in a text parsed as doubled. The CSV reader
/// only hands over cells whose quotes are all doubled, so this is a bug
/// guard more than a finding.
const LONE_QUOTE: &str =
    "a `\"` that is not doubled: inside a quoted CSV cell, every quote is written twice";

/// Bytes 8 at a time, as a `u64`, with 0x80 set in each byte of `x` that a
/// string scan must stop at: `"`, `\` or a control character. Only the
/// lowest set bit is exact (a borrow can mark bytes above a real hit),
/// which is the one the scan takes.
fn string_stops(x: u64) -> u64 {
    use crate::swar::{first_below, splat};
    first_below(x ^ splat(b'"'), 1) | first_below(x ^ splat(b'\\'), 1) | first_below(x, 0x20)
}

/// Why a string token is malformed; turned into a message only when it
/// is (a small error keeps the usual, successful return cheap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StringError {
    Unclosed,
    LoneQuote,
    BadHex,
    BadEscape,
    Control,
}

/// The syntax error for `e` at `at`, in a string that is `what`.
#[cold]
fn string_error((at, e): (usize, StringError), what: &str) -> SyntaxError {
    match e {
        StringError::Unclosed => err(at, format!("{what} is never closed: a `\"` is missing")),
        StringError::LoneQuote => err(at, LONE_QUOTE),
        StringError::BadHex => err(at, "`\\u` must be followed by four hex digits"),
        StringError::BadEscape => err(
            at,
            "invalid escape: JSON knows \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX",
        ),
        StringError::Control => err(
            at,
            "control character (such as a raw newline or tab) inside a string: write it as \\n or \\t",
        ),
    }
}

/// Scans a string starting at the quote at `i`; returns the index past the
/// closing quote and whether the string has no `\` escapes. `Q` is how
/// many bytes a quote takes: 1, or 2 in a doubled text.
///
/// Nearly every key and value is short and closes at its first stop byte.
/// That path is inlined into the parser: out of line, the call's prologue
/// and the result written through memory cost as much as the scan. Any
/// other stop goes on in [`scan_string_rest`], from the same byte.
#[inline(always)]
fn scan_string<const Q: usize>(b: &[u8], i: usize) -> Result<(usize, bool), (usize, StringError)> {
    if Q == 2 && b.get(i + 1) != Some(&b'"') {
        return Err((i, StringError::LoneQuote));
    }
    let mut j = i + Q;
    loop {
        let Some(w) = b.get(j..).and_then(<[u8]>::first_chunk::<8>) else {
            // The text's last bytes, too few for a read of 8: the last
            // value of a cell often ends there. Only there: a stop found
            // by the 8-byte read needs no second look.
            while b
                .get(j)
                .is_some_and(|&c| c >= 0x20 && c != b'"' && c != b'\\')
            {
                j += 1;
            }
            break;
        };
        let stops = string_stops(u64::from_le_bytes(*w));
        if stops != 0 {
            j += (stops.trailing_zeros() / 8) as usize;
            break;
        }
        j += 8;
    }
    if b.get(j) == Some(&b'"') && (Q == 1 || b.get(j + 1) == Some(&b'"')) {
        return Ok((j + Q, true));
    }
    scan_string_rest::<Q>(b, i, j)
}

/// The rest of [`scan_string`] for the string opened at `i`, from `j`,
/// with no escape seen before `j`: escapes and errors.
#[inline(never)]
fn scan_string_rest<const Q: usize>(
    b: &[u8],
    i: usize,
    mut j: usize,
) -> Result<(usize, bool), (usize, StringError)> {
    let mut plain = true;
    loop {
        // Most bytes of a string are ordinary: skip them 8 at a time.
        while let Some(w) = b.get(j..).and_then(<[u8]>::first_chunk::<8>) {
            let stops = string_stops(u64::from_le_bytes(*w));
            if stops != 0 {
                j += (stops.trailing_zeros() / 8) as usize;
                break;
            }
            j += 8;
        }
        let Some(&c) = b.get(j) else {
            return Err((i, StringError::Unclosed));
        };
        match c {
            b'"' => {
                if Q == 2 && b.get(j + 1) != Some(&b'"') {
                    return Err((j, StringError::LoneQuote));
                }
                return Ok((j + Q, plain));
            }
            b'\\' => {
                plain = false;
                match b.get(j + 1) {
                    Some(b'"') => {
                        if Q == 2 && b.get(j + 2) != Some(&b'"') {
                            return Err((j + 1, StringError::LoneQuote));
                        }
                        j += 1 + Q;
                    }
                    Some(b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => j += 2,
                    Some(b'u') => {
                        let hex = b.get(j + 2..j + 6);
                        if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                            return Err((j, StringError::BadHex));
                        }
                        j += 6;
                    }
                    _ => return Err((j, StringError::BadEscape)),
                }
            }
            0..=0x1F => return Err((j, StringError::Control)),
            _ => j += 1,
        }
    }
}

fn scan_number(b: &[u8], i: usize) -> Result<usize, SyntaxError> {
    number_token(b, i).map_err(|(at, message)| err(at, message))
}

/// The end of the `true`, `false` or `null` at `i` (whose first byte is
/// `t`, `f` or `n`) and its kind, or `None` if the word is not one.
#[inline]
fn literal_end(b: &[u8], i: usize) -> Option<(usize, Kind)> {
    let (word, kind): (&[u8], Kind) = match b.get(i) {
        Some(b't') => (b"true", Kind::Bool),
        Some(b'f') => (b"false", Kind::Bool),
        _ => (b"null", Kind::Null),
    };
    let end = i + word.len();
    let whole = b.get(i..).is_some_and(|r| r.starts_with(word));
    (whole && !b.get(end).is_some_and(u8::is_ascii_alphanumeric)).then_some((end, kind))
}

/// The end of the number at `i`, or where it goes wrong and why: the
/// message is static, so a caller that only asks whether the number is
/// valid allocates nothing.
#[inline]
fn number_token(b: &[u8], i: usize) -> Result<usize, (usize, &'static str)> {
    let err = |at: usize, message: &'static str| (at, message);
    let digits = |mut j: usize| {
        let from = j;
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        (j, j - from)
    };
    let mut j = i;
    if b.get(j) == Some(&b'-') {
        j += 1;
    }
    match b.get(j) {
        Some(b'0') => {
            j += 1;
            if b.get(j).is_some_and(u8::is_ascii_digit) {
                return Err(err(i, "invalid number: no leading zeros"));
            }
        }
        Some(b'1'..=b'9') => j = digits(j).0,
        _ => return Err(err(i, "invalid number")),
    }
    if b.get(j) == Some(&b'.') {
        let (k, n) = digits(j + 1);
        if n == 0 {
            return Err(err(
                j,
                "invalid number: digits must follow the decimal point",
            ));
        }
        j = k;
    }
    if matches!(b.get(j), Some(b'e' | b'E')) {
        let mut k = j + 1;
        if matches!(b.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        let (k, n) = digits(k);
        if n == 0 {
            return Err(err(j, "invalid number: digits must follow the exponent"));
        }
        j = k;
    }
    Ok(j)
}

fn parse_into<const Q: usize>(text: &str, nodes: &mut Vec<Node>) -> Result<(), SyntaxError> {
    let b = text.as_bytes();
    if b.len() >= lex::MAX_LEN {
        return Err(err(0, "JSON text longer than 4 GiB"));
    }
    // The open containers, innermost first: each one's `next` holds the
    // one around it until it closes, so nesting needs no stack of its own
    // (no allocation per cell).
    let mut open = Open {
        top: NO_PARENT,
        depth: 0,
    };
    const NONE: (u32, u32, bool) = (NO_KEY, NO_KEY, true);
    let mut key = NONE;
    let mut i = 0;
    'value: loop {
        i = skip_ws(b, i);
        let idx = nodes.len();
        let node = |kind, start: usize, end: usize, key: (u32, u32, bool)| Node {
            kind,
            plain: true,
            plain_key: key.2,
            start: start as u32,
            end: end as u32,
            key_start: key.0,
            key_end: key.1,
            next: idx as u32 + 1,
        };
        let this_key = std::mem::replace(&mut key, NONE);
        let Some(&c) = b.get(i) else {
            return Err(match open.top() {
                None if b.iter().all(u8::is_ascii_whitespace) => {
                    err(0, "empty: expected a JSON value")
                }
                _ => err(i, "the text ends where a value was expected"),
            });
        };
        match c {
            b'{' | b'[' => {
                if open.depth >= MAX_DEPTH {
                    return Err(err(i, format!("nested deeper than {MAX_DEPTH} levels")));
                }
                let kind = if c == b'{' { Kind::Object } else { Kind::Array };
                nodes.push(node(kind, i, i + 1, this_key));
                open.push(nodes, idx);
                i = skip_ws(b, i + 1);
                let close = if c == b'{' { b'}' } else { b']' };
                if b.get(i) == Some(&close) {
                    open.close(nodes, i);
                    i += 1;
                } else if kind == Kind::Object {
                    key = parse_key::<Q>(b, &mut i)?;
                    continue 'value;
                } else {
                    continue 'value;
                }
            }
            b'"' => {
                let (end, plain) =
                    scan_string::<Q>(b, i).map_err(|e| string_error(e, "a string"))?;
                nodes.push(Node {
                    plain,
                    ..node(Kind::String, i, end, this_key)
                });
                i = end;
            }
            b't' | b'f' | b'n' => {
                let Some((end, kind)) = literal_end(b, i) else {
                    return Err(err(i, "expected a JSON value (true, false and null are lowercase; strings need double quotes)"));
                };
                nodes.push(node(kind, i, end, this_key));
                i = end;
            }
            b'-' | b'0'..=b'9' => {
                let end = scan_number(b, i)?;
                nodes.push(node(Kind::Number, i, end, this_key));
                i = end;
            }
            b'\'' => return Err(err(i, "single quotes: JSON strings need double quotes")),
            _ => {
                return Err(err(
                    i,
                    "expected a JSON value (a string in double quotes, number, true, false, null, [ or {)",
                ))
            }
        }
        // After a value: close containers or move to the next member.
        loop {
            let Some(top) = open.top() else {
                let end = skip_ws(b, i);
                if end < b.len() {
                    return Err(err(end, "text after the JSON value"));
                }
                return Ok(());
            };
            let object = nodes[top].kind == Kind::Object;
            let close = if object { b'}' } else { b']' };
            i = skip_ws(b, i);
            match b.get(i) {
                Some(b',') => {
                    let after = skip_ws(b, i + 1);
                    if b.get(after) == Some(&close) {
                        return Err(err(i, "trailing comma"));
                    }
                    i += 1;
                    if object {
                        i = after;
                        key = parse_key::<Q>(b, &mut i)?;
                    }
                    continue 'value;
                }
                Some(&c) if c == close => {
                    open.close(nodes, i);
                    i += 1;
                }
                Some(_) => {
                    return Err(err(
                        i,
                        if object {
                            "expected `,` or `}` after an object member"
                        } else {
                            "expected `,` or `]` after an array element"
                        },
                    ))
                }
                None => {
                    let open = nodes[top].start as usize;
                    return Err(err(
                        open,
                        if object {
                            "this object is never closed: a `}` is missing"
                        } else {
                            "this array is never closed: a `]` is missing"
                        },
                    ));
                }
            }
        }
    }
}

/// `Node::next` of an open container with none around it.
const NO_PARENT: u32 = u32::MAX;

/// The open containers, linked through their nodes' `next`.
struct Open {
    top: u32,
    depth: usize,
}

impl Open {
    fn top(&self) -> Option<usize> {
        (self.top != NO_PARENT).then_some(self.top as usize)
    }

    fn push(&mut self, nodes: &mut [Node], idx: usize) {
        nodes[idx].next = self.top;
        self.top = idx as u32;
        self.depth += 1;
    }

    /// Closes the innermost container at the bracket at `at`.
    fn close(&mut self, nodes: &mut [Node], at: usize) {
        let Some(top) = self.top() else { return };
        let next = nodes.len() as u32;
        let n = &mut nodes[top];
        self.top = n.next;
        self.depth -= 1;
        n.end = at as u32 + 1;
        n.next = next;
    }
}

/// Parses `"key" :` at `*i`, leaving `*i` after the colon.
/// Returns the key's span and whether it has no `\` escapes.
#[inline(always)]
fn parse_key<const Q: usize>(b: &[u8], i: &mut usize) -> Result<(u32, u32, bool), SyntaxError> {
    let at = skip_ws(b, *i);
    match b.get(at) {
        Some(b'"') => {}
        Some(b'\'') => return Err(err(at, "single quotes: JSON keys need double quotes")),
        Some(_) => return Err(err(at, "expected a key (a string in double quotes)")),
        None => return Err(err(at, "the text ends where a key was expected")),
    }
    let (end, plain) = scan_string::<Q>(b, at).map_err(|e| string_error(e, "a key"))?;
    let colon = skip_ws(b, end);
    if b.get(colon) != Some(&b':') {
        return Err(err(colon, "expected `:` after the key"));
    }
    *i = colon + 1;
    Ok((at as u32, end as u32, plain))
}

/// The parser's lexical pieces, for a check that validates a text in one
/// pass without building nodes (`check::grammar::clean`). They are the
/// parser's own functions, so that check takes the same whitespace,
/// strings, numbers and words as [`Doc::parse_as`], by construction.
pub(crate) mod lex {
    use super::Kind;

    /// Texts this long or longer are refused by the parser.
    pub(crate) const MAX_LEN: usize = u32::MAX as usize;

    /// The index of the first byte at or after `i` that is not JSON
    /// whitespace.
    #[inline(always)]
    pub(crate) fn ws_end(b: &[u8], i: usize) -> usize {
        // Most tokens follow each other with no space between.
        match b.get(i) {
            Some(b' ' | b'\t' | b'\n' | b'\r') => super::skip_ws(b, i + 1),
            _ => i,
        }
    }

    /// The end of the string whose opening quote is at `i` (`Q` bytes a
    /// quote, as in the parser) and whether it has no `\` escapes, or
    /// `None` if it is malformed.
    #[inline(always)]
    pub(crate) fn string_end<const Q: usize>(b: &[u8], i: usize) -> Option<(usize, bool)> {
        super::scan_string::<Q>(b, i).ok()
    }

    /// The 16 bytes of `b` from `at`, as a little-endian number with
    /// zeros past the end of `b`; `None` if `at` is not inside `b`, or `b`
    /// is shorter than 16 bytes.
    ///
    /// Near the end of the text, the last 16 bytes are read and shifted:
    /// the last key or value of a cell is usually there.
    #[inline(always)]
    pub(crate) fn chunk16(b: &[u8], at: usize) -> Option<u128> {
        if let Some(w) = b.get(at..).and_then(<[u8]>::first_chunk::<16>) {
            return Some(u128::from_le_bytes(*w));
        }
        let tail = b.len().checked_sub(16)?;
        let skip = at.checked_sub(tail).filter(|&k| k < 16)?;
        let last = b.get(tail..).and_then(<[u8]>::first_chunk::<16>)?;
        Some(u128::from_le_bytes(*last) >> (8 * skip))
    }

    /// The bytes of `w` (bit `k` for byte `k`) that a string scan stops
    /// at (`"`, `\\` or a control character), and the `"` among them.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    pub(crate) fn stops16(w: u128) -> (u32, u32) {
        use safe_arch::{
            bitor_m128i, cmp_eq_mask_i8_m128i, m128i, max_u8_m128i, move_mask_i8_m128i,
            set_splat_i8_m128i,
        };
        let splat = |c: u8| set_splat_i8_m128i(i8::from_ne_bytes([c]));
        let v = m128i::from(w);
        let quote = cmp_eq_mask_i8_m128i(v, splat(b'"'));
        let backslash = cmp_eq_mask_i8_m128i(v, splat(b'\\'));
        // A byte is below 0x20 when its unsigned max with 0x1F is 0x1F.
        let control = cmp_eq_mask_i8_m128i(max_u8_m128i(v, splat(0x1F)), splat(0x1F));
        let stops = bitor_m128i(bitor_m128i(quote, backslash), control);
        // One bit per lane, in the low 16 bits.
        let bits = |m| move_mask_i8_m128i(m) as u32 & 0xFFFF;
        (bits(stops), bits(quote))
    }

    /// [`stops16`] without SSE2.
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    #[inline(always)]
    pub(crate) fn stops16(w: u128) -> (u32, u32) {
        stops16_swar(w)
    }

    /// [`stops16`] eight bytes at a time. Every bit is exact (not only
    /// the lowest, as in `string_stops`): the byte after a stop is read
    /// from the quote bits.
    #[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
    pub(crate) fn stops16_swar(w: u128) -> (u32, u32) {
        use crate::swar::{equal_bytes, splat, zero_bytes};
        let gather = |m: u64| crate::swar::gather(m) as u32;
        let mut stops = 0;
        let mut quotes = 0;
        for k in 0..2 {
            let x = (w >> (64 * k)) as u64;
            let quote = equal_bytes(x, b'"');
            let backslash = equal_bytes(x, b'\\');
            let control = zero_bytes(x & splat(0xE0));
            stops |= gather(quote | backslash | control) << (8 * k);
            quotes |= gather(quote) << (8 * k);
        }
        (stops, quotes)
    }

    /// The end of the string whose opening quote is at `i`, or `None` if
    /// it is malformed: [`string_end`], 16 bytes a step while the string
    /// is plain.
    #[inline(always)]
    pub(crate) fn string_end_fast<const Q: usize>(b: &[u8], i: usize) -> Option<usize> {
        // The closing quote's bits: one quote, or two in a row.
        let closing = if Q == 1 { 1 } else { 3 };
        if Q == 1 || b.get(i + 1) == Some(&b'"') {
            let mut from = i + Q;
            // Bytes past the text are zeros, which stop the scan.
            while let Some(w) = chunk16(b, from) {
                let (stops, quotes) = stops16(w);
                if stops == 0 {
                    from += 16;
                    continue;
                }
                let at = stops.trailing_zeros();
                if quotes >> at & closing == closing {
                    return Some(from + at as usize + Q);
                }
                break;
            }
        }
        // An escape, a problem, a doubled quote split by the 16-byte read or
        // a short text: the parser's scan, from the start.
        string_end::<Q>(b, i).map(|(end, _)| end)
    }

    /// The end of the number at `i`, or `None` if it is malformed.
    #[inline]
    pub(crate) fn number_end(b: &[u8], i: usize) -> Option<usize> {
        super::number_token(b, i).ok()
    }

    /// The end of the `true`, `false` or `null` at `i` and its kind.
    #[inline]
    pub(crate) fn literal_end(b: &[u8], i: usize) -> Option<(usize, Kind)> {
        super::literal_end(b, i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Doc<'_>, SyntaxError> {
        Doc::parse(text, Vec::new()).map_err(|(e, _)| e)
    }

    #[test]
    fn spans_and_keys() {
        let text = r#" {"a": [1, "x\"y", {"b": null}], "c": true} "#;
        let doc = parse(text).expect("valid");
        let root = doc.root();
        assert_eq!(doc.kind(root), Kind::Object);
        assert_eq!(&text[doc.node(root).span()], text.trim());
        let kids: Vec<_> = doc.children(root).collect();
        assert_eq!(kids.len(), 2);
        assert_eq!(doc.key(kids[0]).as_deref(), Some("a"));
        assert_eq!(&text[doc.node(kids[0]).key_span().expect("key")], "\"a\"");
        let arr: Vec<_> = doc.children(kids[0]).collect();
        assert_eq!(arr.len(), 3);
        assert_eq!(doc.str(arr[1]).as_deref(), Some("x\"y"));
        assert_eq!(&text[doc.node(arr[1]).span()], r#""x\"y""#);
        let inner = doc.get(arr[2], "b").expect("b");
        assert_eq!(doc.kind(inner), Kind::Null);
        assert!(doc.is_true(doc.get(root, "c").expect("c")));
        assert_eq!(doc.number(arr[0]), Some(1.0));
        // Escaped keys and values are decoded; plain ones are taken as is.
        let doc = parse(r#"{"k\u0065y": "v\u0061l", "plain": "x"}"#).expect("valid");
        let kids: Vec<_> = doc.children(doc.root()).collect();
        assert_eq!(doc.key(kids[0]).as_deref(), Some("key"));
        assert_eq!(doc.plain_key_span(kids[0]), None);
        assert_eq!(
            doc.plain_key_span(kids[1]).map(|r| &doc.text[r]),
            Some("plain")
        );
        assert_eq!(doc.plain_key_span(doc.root()), None);
        assert_eq!(doc.str(kids[0]).as_deref(), Some("val"));
        assert_eq!(doc.key(kids[1]).as_deref(), Some("plain"));
        assert_eq!(doc.str(kids[1]).as_deref(), Some("x"));
    }

    #[test]
    fn agrees_with_serde_json_on_validity() {
        for &text in crate::testutil::JSON_SYNTAX_CASES {
            let ours = parse(text).is_ok();
            let theirs = serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
            assert_eq!(ours, theirs, "{text:?}");
        }
    }

    /// Texts for the doubled-mode test: the validity cases plus escapes,
    /// quotes next to each other and strings longer than the 8-byte skip.
    const DOUBLED_CASES: &[&str] = &[
        r#"{"location":{"address":"4935 Main St, Springfield"},"role id":"r-24"}"#,
        r#"{"a\"b":"x\"\"y","":"","long key of many bytes":"\u00e9 and more text here"}"#,
        r#"["","\"",  "a\\", "\\\"" , 1.5, true, null, {"k": []}]"#,
        r#"{"a": "b\tc"}"#,
        r#"{"a": "never closed}"#,
        r#"{"a": "bad \q escape"}"#,
        r#"{"a": "x", }"#,
        r#"{"a" "x"}"#,
        r#"["12345678\"12345678"]"#,
        "\"ctl\u{1}inside\"",
        r#""ends with backslash\"#,
        "",
    ];

    #[test]
    fn doubled_text_parses_like_its_unescaped_form() {
        use crate::scan::raw_offset;
        let plain = ["{}", "[1,]", "{'a':1}", "\"abc", "{\"\":0}", "[\"\\u12\"]"];
        for text in DOUBLED_CASES.iter().chain(plain.iter()) {
            let raw = text.replace('"', "\"\"");
            let at = |offset: usize| raw_offset(raw.as_bytes(), true, offset);
            let ours = Doc::parse_as(&raw, true, Vec::new()).map_err(|(e, _)| e);
            match (parse(text), ours) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a.nodes.len(), b.nodes.len(), "{text}");
                    for id in 0..a.nodes.len() {
                        let (x, y) = (a.node(id), b.node(id));
                        assert_eq!(x.kind, y.kind, "{text}");
                        let span = x.span();
                        assert_eq!(at(span.start)..at(span.end), y.span(), "{text}");
                        assert_eq!(
                            x.key_span().map(|s| at(s.start)..at(s.end)),
                            y.key_span(),
                            "{text}"
                        );
                        assert_eq!(a.key(id), b.key(id), "{text}");
                        for doc in [&a, &b] {
                            let plain = doc.plain_key_span(id).map(|r| &doc.text[r]);
                            if plain.is_some() {
                                assert_eq!(plain, doc.key(id).as_deref(), "{text}");
                            }
                        }
                        assert_eq!(a.str(id), b.str(id), "{text}");
                        assert_eq!(a.number(id), b.number(id), "{text}");
                    }
                }
                (Err(a), Err(b)) => {
                    assert_eq!(a.message, b.message, "{text}");
                    assert_eq!(at(a.offset), b.offset, "{text}");
                }
                (a, b) => panic!("{text}: {a:?} vs {b:?}"),
            }
        }
        // A quote that is not doubled is an error, not a misread.
        for raw in [r#"""a"x"#, r#""a"""#, r#"{""a"":"b"}"#, r#"""\"x"""#] {
            let e = Doc::parse_as(raw, true, Vec::new()).map_err(|(e, _)| e);
            assert_eq!(e.expect_err(raw).message, LONE_QUOTE, "{raw}");
        }
    }

    #[test]
    fn the_eight_byte_skip_stops_where_a_byte_loop_would() {
        // Every stop byte at every position of a 20-byte string.
        for stop in [b'"', b'\\', 0x00, 0x1F, b'\n'] {
            for pos in 0..20 {
                let mut s = vec![b'"'];
                s.extend(std::iter::repeat_n(b'a', 20));
                s[1 + pos] = stop;
                if stop == b'\\' {
                    // An escape `\n`, so the string still closes.
                    s.insert(2 + pos, b'n');
                }
                s.push(b'"');
                let text = String::from_utf8(s).expect("ascii");
                let got = scan_string::<1>(text.as_bytes(), 0);
                let want = match stop {
                    b'"' => Ok((2 + pos, true)),
                    b'\\' => Ok((text.len(), false)),
                    _ => Err(1 + pos),
                };
                assert_eq!(got.map_err(|e| e.0), want, "{text:?}");
            }
        }
        // Bytes above 0x7F are ordinary, whatever their bits.
        for c in ["é", "\u{80}", "\u{7ff}", "😀", "\u{ffff}"] {
            let text = format!("\"{}\"", c.repeat(9));
            assert_eq!(scan_string::<1>(text.as_bytes(), 0), Ok((text.len(), true)));
        }
    }

    #[test]
    fn the_inlined_string_path_agrees_with_the_general_scan() {
        // The general scan from the opening quote is the plain statement;
        // the inlined path must give its answer for every string, however
        // it ends, wherever it sits against the 8-byte reads, and wherever
        // the text ends.
        fn general<const Q: usize>(b: &[u8]) -> Result<(usize, bool), (usize, StringError)> {
            if Q == 2 && b.get(1) != Some(&b'"') {
                return Err((0, StringError::LoneQuote));
            }
            scan_string_rest::<Q>(b, 0, Q)
        }
        let bodies = string_bodies(5);
        let mut checked = 0;
        for body in &bodies {
            for pad in [0, 1, 6, 7, 8, 9] {
                let mut s = vec![b'"'];
                s.extend(std::iter::repeat_n(b'a', pad));
                s.extend(body);
                assert_eq!(scan_string::<1>(&s, 0), general::<1>(&s), "{s:?}");
                let mut d = Vec::new();
                for &c in &s {
                    d.push(c);
                    if c == b'"' {
                        d.push(c);
                    }
                }
                assert_eq!(scan_string::<2>(&d, 0), general::<2>(&d), "{d:?}");
                assert_eq!(scan_string::<2>(&s, 0), general::<2>(&s), "{s:?}");
                checked += 1;
            }
        }
        assert!(checked > 50_000, "{checked}");
    }

    #[test]
    fn the_16_byte_reads_agree_with_a_byte_loop() {
        // Reads at every offset, the text's end included, padded with
        // zeros past it.
        let text: Vec<u8> = (1..=40).collect();
        for len in [0, 5, 15, 16, 17, 31, 40] {
            let b = &text[..len];
            for at in 0..len + 2 {
                let want = (len >= 16 && at < len).then(|| {
                    let mut w = [0u8; 16];
                    for (k, d) in w.iter_mut().enumerate() {
                        *d = b.get(at + k).copied().unwrap_or(0);
                    }
                    u128::from_le_bytes(w)
                });
                assert_eq!(lex::chunk16(b, at), want, "{len} {at}");
            }
        }
        // Stops and quotes, each bit on its own byte: every byte value
        // at every position, over a background of ordinary bytes and of
        // other stops.
        let by_bytes = |w: u128| {
            let (mut stops, mut quotes) = (0, 0);
            for (k, c) in w.to_le_bytes().into_iter().enumerate() {
                if c < 0x20 || c == b'"' || c == b'\\' {
                    stops |= 1 << k;
                }
                if c == b'"' {
                    quotes |= 1 << k;
                }
            }
            (stops, quotes)
        };
        let mut next = crate::testutil::xorshift(0x2545_f491_4f6c_dd1du64);
        let mut words: Vec<u128> = Vec::new();
        for c in 0..=255u8 {
            for at in 0..16 {
                let mut w = [b'a'; 16];
                w[at] = c;
                words.push(u128::from_le_bytes(w));
                w = [b'"'; 16];
                w[at] = c;
                words.push(u128::from_le_bytes(w));
                w = [0x01; 16];
                w[at] = c;
                words.push(u128::from_le_bytes(w));
            }
        }
        let alphabet = [
            b'"', b'\\', 0, 0x1F, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x80, 0xFF, b'a',
        ];
        for _ in 0..20_000 {
            let w: [u8; 16] = std::array::from_fn(|_| alphabet[(next() % 13) as usize]);
            words.push(u128::from_le_bytes(w));
        }
        for w in words {
            assert_eq!(lex::stops16(w), by_bytes(w), "{:?}", w.to_le_bytes());
            assert_eq!(lex::stops16_swar(w), by_bytes(w), "{:?}", w.to_le_bytes());
        }
    }

    /// Every string body of up to `len` bytes over the bytes a string scan
    /// stops at or steps over (a quote, a backslash, a control byte, an
    /// escape letter, a UTF-8 lead byte).
    fn string_bodies(len: usize) -> Vec<Vec<u8>> {
        let alphabet = [b'a', b'"', b'\\', 0x01, b'n', 0xC3];
        let mut bodies: Vec<Vec<u8>> = vec![Vec::new()];
        let mut last = bodies.clone();
        for _ in 0..len {
            last = last
                .iter()
                .flat_map(|s| {
                    alphabet.iter().map(move |&c| {
                        let mut t = s.clone();
                        t.push(c);
                        t
                    })
                })
                .collect();
            bodies.extend(last.iter().cloned());
        }
        bodies
    }

    #[test]
    fn the_fast_string_end_agrees_with_the_scan() {
        // Strings of every ending about the 16-byte reads, alone, at the
        // end of a text long enough for the read from its end, and
        // followed by more text.
        let bodies = string_bodies(4);
        let mut checked = 0;
        for body in &bodies {
            for pad in [0, 1, 7, 12, 13, 14, 15, 16, 17, 30] {
                for (before, after) in [(0, 0), (20, 0), (20, 3), (0, 20)] {
                    let mut s = vec![b' '; before];
                    s.push(b'"');
                    s.extend(std::iter::repeat_n(b'a', pad));
                    s.extend(body);
                    s.extend(std::iter::repeat_n(b'}', after));
                    let mut d = Vec::new();
                    for &c in &s {
                        d.push(c);
                        if c == b'"' {
                            d.push(c);
                        }
                    }
                    let ends = |b: &[u8], doubled: bool| {
                        if doubled {
                            let want = lex::string_end::<2>(b, before).map(|(end, _)| end);
                            (lex::string_end_fast::<2>(b, before), want)
                        } else {
                            let want = lex::string_end::<1>(b, before).map(|(end, _)| end);
                            (lex::string_end_fast::<1>(b, before), want)
                        }
                    };
                    for (b, doubled) in [(&s, false), (&d, true), (&s, true)] {
                        let (got, want) = ends(b, doubled);
                        assert_eq!(got, want, "{doubled} {:?}", String::from_utf8_lossy(b));
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
    }

    #[test]
    fn errors_point_at_the_byte() {
        let e = |t: &str| parse(t).expect_err(t);
        assert_eq!(e("[1,]").offset, 2);
        assert_eq!(e("[1,]").message, "trailing comma");
        assert_eq!(e("{\"a\" 1}").offset, 5);
        assert_eq!(e("{\"a\":1").offset, 0);
        assert_eq!(e("\"abc").offset, 0);
        assert_eq!(e("{} x").offset, 3);
        assert_eq!(e("[1 2]").offset, 3);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        let e = parse(&deep).expect_err("too deep");
        assert!(e.message.contains("nested deeper"), "{e:?}");
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse(&ok).is_ok());
    }

    #[test]
    fn decodes_surrogate_pairs() {
        assert_eq!(decode_string("\"\\ud83d\\ude00!\""), "😀!");
        assert_eq!(decode_string("\"\\ud83d!\""), "\u{fffd}!");
    }
}
