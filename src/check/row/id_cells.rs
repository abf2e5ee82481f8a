//! Identifiers and addresses: e-mail addresses, integration references
//! (`<app>/<integration_id>`), resource names (BRNs) and URLs.

use super::at::CellAt;
use crate::check::emit::Emitter;
use crate::check::shapes;
use crate::check::text::{name_invisible, quote, quote_bare};
use crate::diagnostic::Severity;
use crate::rules;

/// E-mail cell `v` (trimmed).
pub(super) fn check_email(at: &CellAt<'_>, v: &str, emit: &mut Emitter<'_>) {
    if !shapes::is_email(v) {
        let invisible = name_invisible(v);
        let mailto = v
            .get(..7)
            .filter(|p| p.eq_ignore_ascii_case("mailto:"))
            .map(|_| &v[7..]);
        let (message, help) = if let Some(address) = mailto.filter(|a| shapes::is_email(a)) {
            (
                format!("{} is a `mailto:` link, not an e-mail address", quote(v)),
                format!("write the address alone: {}", quote(address)),
            )
        } else if invisible.is_empty() {
            (
                format!("{} is not an e-mail address", quote(v)),
                format!(
                    "write `{}` as a full address, like name@example.com",
                    at.col.name
                ),
            )
        } else {
            (
                format!(
                    "{} is not an e-mail address: it holds {invisible}",
                    quote_bare(v)
                ),
                "retype the address: the invisible character makes it another address, which no mail server knows".into(),
            )
        };
        at.report(
            emit,
            at.finding(&rules::INVALID_EMAIL, message)
                .severity(at.col.severity)
                .help(help),
        );
    }
}

/// Integration reference cell `v` (trimmed): `<app>/<integration_id>`.
pub(super) fn check_integration_ref(at: &CellAt<'_>, v: &str, emit: &mut Emitter<'_>) {
    if let Some(why) = shapes::integration_ref_problem(v) {
        at.report(
            emit,
            at.finding(
                &rules::INVALID_INTEGRATION_REF,
                format!("{} is not shaped `<app>/<integration_id>`: {why}", quote(v)),
            )
            .severity(at.col.severity)
            .help(
                "write the app and the integration ID separated by one `/`, e.g. `okta/0b6c1e2a`",
            ),
        );
    }
}

/// Resource name cell `v` (trimmed).
pub(super) fn check_brn(at: &CellAt<'_>, v: &str, emit: &mut Emitter<'_>) {
    if let Some(why) = shapes::brn_problem(v) {
        at.report(
            emit,
            at.finding(
                &rules::INVALID_BRN,
                format!("{} is not a resource name: {why}", quote(v)),
            )
            .severity(at.col.severity)
            .help("keep the BRN exactly as the download wrote it"),
        );
    }
}

/// URL cell `v` (trimmed).
pub(super) fn check_url(at: &CellAt<'_>, v: &str, emit: &mut Emitter<'_>) {
    let (severity, message, help) = match shapes::url_problem(v) {
        None => return,
        Some(shapes::UrlProblem::NotUrl) => (
            at.col.severity,
            format!("{} is not a URL", quote(v)),
            "write an absolute URL, e.g. `https://playbooks.example.com/run`",
        ),
        // The spec says "URL", not which scheme: another scheme is
        // a URL, and only probably not what the platform calls
        // (clause 4 of the severity principle, rules/README.md).
        Some(shapes::UrlProblem::NotHttp(n)) => (
            Some(Severity::Warning),
            format!("{} has the scheme `{}`, not http(s)", quote(v), &v[..n]),
            "the platform most likely calls the playbook over HTTP: write an `https://` URL unless you know it takes this scheme",
        ),
    };
    at.report(
        emit,
        at.finding(&rules::INVALID_URL, message)
            .severity(severity)
            .help(help),
    );
}
