//! The registry of formats: each name users pass to `--format`, with its
//! table's text, compiled in.

/// One registry line per format: the name users pass to `--format` and the
/// table text. Adding a format is a TOML file and a line here.
pub(super) const TABLES: &[(&str, &str)] = &[
    ("employees", include_str!("../../rules/employees.toml")),
    ("entities", include_str!("../../rules/entities.toml")),
    (
        "entities-download",
        include_str!("../../rules/entities-download.toml"),
    ),
    (
        "entity-relations",
        include_str!("../../rules/entity-relations.toml"),
    ),
    (
        "entity-relations-download",
        include_str!("../../rules/entity-relations-download.toml"),
    ),
    (
        "entity-rbac-relations",
        include_str!("../../rules/entity-rbac-relations.toml"),
    ),
    (
        "entitlements",
        include_str!("../../rules/entitlements.toml"),
    ),
    ("reviews", include_str!("../../rules/reviews.toml")),
    ("campaigns", include_str!("../../rules/campaigns.toml")),
    ("findings", include_str!("../../rules/findings.toml")),
    ("filters", include_str!("../../rules/filters.toml")),
    ("rules", include_str!("../../rules/rules.toml")),
    ("rbac2", include_str!("../../rules/rbac2.toml")),
    (
        "integrations",
        include_str!("../../rules/integrations.toml"),
    ),
    (
        "playbook-templates",
        include_str!("../../rules/playbook-templates.toml"),
    ),
];

/// Names of every format, in registry order (for `--format` and messages).
pub fn format_names() -> impl Iterator<Item = &'static str> {
    TABLES.iter().map(|(n, _)| *n)
}
