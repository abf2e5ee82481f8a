//! Header checks: required, unknown, duplicate and near-miss column names.

/// The form in which header names are compared for near misses: trimmed,
/// without a trailing `*` (published templates mark required columns so),
/// ASCII-lowercased, inner whitespace runs collapsed to one space.
pub fn normalize_name(name: &str) -> String {
    let name = name.trim();
    let name = name.strip_suffix('*').unwrap_or(name).trim_end();
    let mut out = String::with_capacity(name.len());
    for word in name.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&word.to_lowercase());
    }
    out
}
