//! The README stays true: its rule table is what the registry renders.

#[test]
fn readme_rule_table_matches_the_registry() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let start = "<!-- rules:start -->\n";
    let end = "<!-- rules:end -->";
    let a = readme.find(start).expect("rules:start marker") + start.len();
    let b = readme.find(end).expect("rules:end marker");
    let want = bdxlint::rules::markdown_table();
    if readme[a..b] != want {
        if std::env::var_os("BDXLINT_BLESS").is_some() {
            let fixed = format!("{}{}{}", &readme[..a], want, &readme[b..]);
            std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"), fixed)
                .expect("write README.md");
        } else {
            panic!("README rule table is stale; run `BDXLINT_BLESS=1 cargo test --test readme`");
        }
    }
}
