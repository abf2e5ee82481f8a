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
            panic!("README rule table is stale; run `BDXLINT_BLESS=1 cargo test --test it readme`");
        }
    }
}

/// Every flag of `bdxlint check --help` has its row in the README's option
/// table (a mention elsewhere is not enough: the table is where a reader
/// looks), and every `--flag` the table names exists.
#[test]
fn readme_documents_every_check_flag() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bdxlint"))
        .args(["check", "--help"])
        .output()
        .expect("runs");
    let help = String::from_utf8(out.stdout).expect("utf-8");
    let flag = regex::Regex::new(r"--[a-z][a-z-]*").expect("regex");
    let long_flags = |text: &str| -> std::collections::BTreeSet<String> {
        flag.find_iter(text)
            .map(|m| m.as_str().to_owned())
            .collect()
    };
    let in_help: std::collections::BTreeSet<String> = help
        .lines()
        .filter(|l| l.trim_start().starts_with('-'))
        .flat_map(&long_flags)
        .filter(|f| f != "--help")
        .collect();
    assert!(in_help.contains("--force-exclude"), "{help}");
    let start = readme
        .find("Options of `check`:")
        .expect("the option table");
    let end = start + readme[start..].find("\n\n`-`").expect("the table's end");
    // The flags each row opens with, in its first cell.
    let in_table: std::collections::BTreeSet<String> = readme[start..end]
        .lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(" | ").next())
        .flat_map(&long_flags)
        .collect();
    let missing: Vec<&String> = in_help.difference(&in_table).collect();
    assert!(
        missing.is_empty(),
        "README's option table has no row for {missing:?}"
    );
    for f in long_flags(&readme[start..end]) {
        assert!(
            in_help.contains(&f),
            "README's option table names {f}, which check lacks"
        );
    }
}

/// The README's example `bdxlint.toml` is a valid config.
#[test]
fn readme_config_example_parses() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let section = readme.find("## Configuration").expect("the section");
    let start = section + readme[section..].find("```toml\n").expect("a toml block") + 8;
    let end = start + readme[start..].find("```").expect("block end");
    let config = bdxlint::config::Config::parse(
        &readme[start..end],
        std::path::Path::new("/repo/bdxlint.toml"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config.overrides.len(), 2);
    assert!(config.is_excluded(
        std::path::Path::new("exports/old/a.csv"),
        std::path::Path::new("/repo")
    ));
}

/// The names a list of formats in `line` gives, from `human` on: backticked
/// names joined by `, `, `and` or `or`, a name possibly
/// followed by ` (default)`. Empty unless it lists three or more, so prose
/// naming one or two formats is not a list.
fn format_list(line: &str) -> Vec<String> {
    let Some(start) = line.find("`human`") else {
        return Vec::new();
    };
    let mut rest = &line[start..];
    let mut names = Vec::new();
    while let Some(after) = rest.strip_prefix('`') {
        let Some(end) = after.find('`') else { break };
        names.push(after[..end].to_owned());
        rest = &after[end + 1..];
        rest = rest.strip_prefix(" (default)").unwrap_or(rest);
        let Some(next) = [", and ", ", or ", ", ", " and ", " or "]
            .iter()
            .find_map(|sep| rest.strip_prefix(sep))
        else {
            break;
        };
        rest = next;
    }
    if names.len() < 3 {
        names.clear();
    }
    names
}

/// Every list of output formats in the README, if it has one (a line such
/// as "`human` (default), `concise`, `json`, ..."), and its table of
/// formats, which it must have (a
/// Markdown table whose header opens with `| Format |`, a format in
/// backticks opening each row) name every format the library has, in the
/// order of `OutputFormat::ALL`, which is `--help`'s.
#[test]
fn readme_lists_every_output_format() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let want: Vec<String> = bdxlint::report::OutputFormat::ALL
        .iter()
        .map(|f| f.name().to_owned())
        .collect();
    let lists: Vec<(usize, Vec<String>)> = readme
        .lines()
        .enumerate()
        .map(|(n, l)| (n + 1, format_list(l)))
        .filter(|(_, names)| !names.is_empty())
        .collect();
    // A prose list is optional (the table below is the reference), but
    // any there is must be whole.
    for (line, names) in lists {
        assert_eq!(names, want, "README.md line {line}");
    }
    let table: Vec<String> = readme
        .lines()
        .skip_while(|l| !l.starts_with("| Format |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| l.split('|').nth(1))
        .map(|cell| cell.trim().trim_matches('`').to_owned())
        .collect();
    assert!(
        !table.is_empty(),
        "README.md has no table of output formats (`| Format |`)"
    );
    assert_eq!(table, want, "README.md's table of output formats");
}

#[test]
fn a_format_list_is_read_only_where_it_is_one() {
    assert_eq!(
        format_list("| `--output-format F` | `human` (default), `concise`, `json`: see"),
        ["human", "concise", "json"]
    );
    assert_eq!(
        format_list("`human`, `concise` or `json`"),
        ["human", "concise", "json"]
    );
    assert_eq!(
        format_list("`human`, `concise`, and `json`."),
        ["human", "concise", "json"]
    );
    assert!(format_list("in `human` and `concise` output").is_empty());
}
