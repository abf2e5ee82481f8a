//! The tables as a whole: every shipped table parses and is registered,
//! each part of a table rejects what it must, with the message a reader
//! of `rules/` sees, and formats are detected from headers. These tests
//! sit above every file of `schema/`, so none of those imports the
//! registry of parsed tables for its tests.

use super::detect::Evidence;
use super::link::link;
use super::registry::TABLES;
use super::words::check_template;
use super::*;
use crate::diagnostic::Severity;

#[test]
fn every_table_parses_and_is_named_like_its_file() {
    let tables = tables().expect("every table in rules/ parses");
    assert_eq!(tables.len(), TABLES.len());
    for t in tables {
        assert!(!t.columns.is_empty(), "{} has columns", t.name);
    }
}

#[test]
fn every_rules_file_is_registered() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/rules");
    for entry in std::fs::read_dir(dir).expect("rules/ is readable") {
        let path = entry.expect("dir entry").path();
        if path.extension().is_some_and(|e| e == "toml") {
            let stem = path.file_stem().and_then(|s| s.to_str()).expect("utf-8");
            if stem == "json" {
                // The JSON grammars, not a format (see schema::json).
                continue;
            }
            assert!(
                format_names().any(|n| n == stem),
                "rules/{stem}.toml is not in the registry"
            );
        }
    }
}

#[test]
fn unknown_keys_are_rejected() {
    let text = "name = \"x\"\ntitle = \"x\"\nspec_section = \"x\"\ndirection = \"upload\"\n\
                [[columns]]\nname = \"A\"\nrequird = \"required\"\n";
    let e = Table::parse("x", text).expect_err("typo in key");
    assert!(e.to_string().contains("requird"), "{e}");
}

const HEAD: &str = "name = \"x\"\ntitle = \"x\"\nspec_section = \"x\"\ndirection = \"upload\"\n\
                    [[columns]]\nname = \"A\"\n[[columns]]\nname = \"B\"\n[[columns]]\nname = \"C\"\n";

#[test]
fn unique_and_identity_parse() {
    let text = format!(
        "{HEAD}[identity]\ncolumns = [\"C\", \"A\", \"B\"]\n\
         [[unique]]\ncolumns = [\"B\", \"A\"]\nseverity = \"warning\"\nignore_case = true\nreason = \"r\"\n"
    );
    let t = Table::parse("x", &text).expect("parses");
    assert_eq!(t.identity.map(|i| i.columns), Some([2, 0, 1]));
    assert_eq!(t.unique.len(), 1);
    assert_eq!(t.unique[0].columns, vec![1, 0]);
    assert_eq!(t.unique[0].severity, Some(Severity::Warning));
    assert!(t.unique[0].ignore_case);
}

#[test]
fn unique_and_identity_are_validated() {
    for (bad, want) in [
        (
            "[[unique]]\ncolumns = [\"D\"]\nreason = \"r\"\n",
            "unknown column \"D\"",
        ),
        (
            "[[unique]]\ncolumns = []\nreason = \"r\"\n",
            "at least one column",
        ),
        (
            "[[unique]]\ncolumns = [\"A\", \"A\"]\nreason = \"r\"\n",
            "twice",
        ),
        (
            "[[unique]]\ncolumns = [\"A\"]\nreason = \"r\"\nignorecase = true\n",
            "ignorecase",
        ),
        ("[identity]\ncolumns = [\"A\", \"B\"]\n", "exactly three"),
        (
            "[identity]\ncolumns = [\"A\", \"B\", \"Z\"]\n",
            "unknown column \"Z\"",
        ),
        (
            "[identity]\ncolumns = [\"A\", \"B\", \"C\"]\nseverity = \"error\"\n",
            "severity",
        ),
    ] {
        let e = Table::parse("x", &format!("{HEAD}{bad}")).expect_err(bad);
        assert!(e.to_string().contains(want), "{bad}: {e}");
    }
}

/// A referring table `x` (L a list, I an integration ref, S a status)
/// and what follows its columns.
fn referring(rest: &str) -> Result<Table, TableError> {
    let text = format!(
        "name = \"x\"\ntitle = \"x\"\nspec_section = \"x\"\ndirection = \"upload\"\n\
         [[columns]]\nname = \"L\"\nshape = \"list\"\n\
         [[columns]]\nname = \"I\"\nshape = \"integration-ref\"\n\
         [[columns]]\nname = \"S\"\n\
         [[references]]\ntarget = \"filters\"\nrule = \"B011\"\n\
         message = \"m {{value}}\"\nhelp = \"h\"\n{rest}"
    );
    Table::parse("x", &text)
}

#[test]
fn references_parse() {
    let t = referring(
        "column = \"L\"\nlist = true\nkey = \"ID\"\n\
         gone = { column = \"Status\", in = [\"deleted\"] }\n\
         skip = { column = \"S\", in = [\"deleted\"] }\n\
         gone_message = \"{value} at {place}\"\ngone_help = \"g\"\n",
    )
    .expect("parses");
    let r = &t.references[0];
    assert_eq!((r.column, r.list, r.part), (0, true, None));
    assert_eq!(r.sources[0].rule.code, "B011");
    assert!(r.skip.as_ref().is_some_and(|s| s.matches(" Deleted ")));
    assert!(r.gone.as_ref().is_some_and(|g| !g.matches("delete")));
    let filters = table("filters").expect("parses").expect("exists");
    assert!(link(&[&t, filters]).is_ok());
}

#[test]
fn references_are_validated() {
    for (bad, want) in [
        ("column = \"Z\"\nkey = \"ID\"\n", "unknown column"),
        (
            "column = \"S\"\nkey = \"ID\"\nlist = true\n",
            "`list = true`",
        ),
        ("column = \"L\"\nkey = \"ID\"\n", "`list = true`"),
        (
            "column = \"S\"\nkey = \"ID\"\npart = \"integration-id\"\n",
            "integration-ref",
        ),
        (
            "column = \"I\"\nkey = \"ID\"\npart = \"after-slash\"\n",
            "after-slash",
        ),
        ("column = \"I\"\nkey = \"ID\"\ncolum = \"I\"\n", "colum"),
        (
            "column = \"I\"\nkey = \"ID\"\nskip = { column = \"Q\", in = [\"x\"] }\n",
            "unknown column \"Q\"",
        ),
        (
            "column = \"I\"\nkey = \"ID\"\nskip = { column = \"S\", in = [] }\n",
            "non-empty",
        ),
        (
            "column = \"I\"\nkey = \"ID\"\ngone = { column = \"Status\", in = [\"deleted\"] }\n",
            "gone_message",
        ),
        (
            "column = \"I\"\nkey = \"ID\"\ngone_help = \"g\"\n",
            "gone_message",
        ),
        (
            "column = \"I\"\nkey = \"ID\"\nerror = \"at {place}\"\n",
            "error",
        ),
    ] {
        let e = referring(bad).expect_err(bad);
        assert!(e.to_string().contains(want), "{bad}: {e}");
    }
    let e = Table::parse(
        "x",
        "name = \"x\"\ntitle = \"x\"\nspec_section = \"x\"\ndirection = \"upload\"\n\
         [[columns]]\nname = \"A\"\n[[references]]\ncolumn = \"A\"\ntarget = \"nope\"\n\
         key = \"ID\"\nrule = \"B011\"\nmessage = \"m\"\nhelp = \"h\"\n",
    )
    .expect_err("unknown target");
    assert!(e.to_string().contains("no format \"nope\""), "{e}");
    for (bad, want) in [
        ("rule = \"B999\"\n", "B999"),
        ("rule = \"undefined-filter\"\n", "undefined-filter"),
    ] {
        let text = format!(
            "name = \"x\"\ntitle = \"x\"\nspec_section = \"x\"\ndirection = \"upload\"\n\
             [[columns]]\nname = \"A\"\n[[references]]\ncolumn = \"A\"\ntarget = \"filters\"\n\
             key = \"ID\"\nmessage = \"m\"\nhelp = \"h\"\n{bad}"
        );
        let e = Table::parse("x", &text).expect_err(bad);
        assert!(e.to_string().contains(want), "{bad}: {e}");
    }
    for (text, want) in [
        ("m {value", "unknown placeholder"),
        ("m {place}", "{place}"),
        ("m {vlaue}", "unknown placeholder"),
    ] {
        let e = check_template(text, false).expect_err(text);
        assert!(e.to_string().contains(want), "{text}: {e}");
    }
    let e = referring(
        "column = \"I\"\nkey = \"ID\"\npart = \"integration-id\"\n\
         gone = { column = \"Status\", in = [\"deleted\"] }\n\
         gone_message = \"{vlaue}\"\ngone_help = \"g\"\n",
    )
    .expect_err("typo in a placeholder");
    assert!(e.to_string().contains("unknown placeholder"), "{e}");
    assert!(check_template("m {value} {cell} {place}", true).is_ok());
}

/// A relations-like table `y`: an ID column `I`, a type column `T`,
/// and what follows.
fn typed(rest: &str) -> Result<Table, TableError> {
    let text = format!(
        "name = \"y\"\ntitle = \"y\"\nspec_section = \"y\"\ndirection = \"upload\"\n\
         [[columns]]\nname = \"I\"\n[[columns]]\nname = \"T\"\n{rest}"
    );
    Table::parse("y", &text)
}

const ENTITY_REF: &str = "[[references]]\ncolumn = \"I\"\ntype_column = \"T\"\n\
    target = \"entities\"\nkey = \"Source ID\"\ntype_key = \"Entity Type\"\n\
    rule = \"B006\"\nmessage = \"{type} `{key}`\"\nhelp = \"h\"\n";

#[test]
fn compound_keys_sources_and_unchecked_parse() {
    let t = typed(&format!(
        "{ENTITY_REF}skip = {{ column = \"T\", in = [\"employee\"] }}\nunchecked = \"file\"\n\
         sources = [{{ from = \"bundle\", types = [\"role\"], rule = \"B007\" }}, {{ from = \"--entities\" }}]\n\
         [[references]]\ncolumn = \"I\"\nwhen = {{ column = \"T\", in = [\"employee\"] }}\n\
         target = \"employees\"\nkey = \"Work Email\"\nignore_case = true\nunchecked = \"count\"\n\
         rule = \"B014\"\nmessage = \"m {{key}}\"\nhelp = \"h\"\n\
         [[unchecked]]\ntargets = [\"entities\"]\nrule = \"B010\"\nmessage = \"m\"\nhelp = \"h\"\n\
         [[unchecked]]\ntargets = [\"employees\", \"entities\"]\nrule = \"B010\"\nmessage = \"{{count}} end{{s}}\"\nhelp = \"h\"\n\
         [[unchecked]]\ntargets = [\"employees\"]\nrule = \"B010\"\nmessage = \"{{count}} {{was}}\"\nhelp = \"h\"\n"
    ))
    .expect("parses");
    let r = &t.references[0];
    assert_eq!(r.type_column, Some(1));
    let froms: Vec<_> = r.sources.iter().map(|s| (s.from, s.rule.code)).collect();
    assert_eq!(
        froms,
        [
            (KeySource::Bundle, "B007"),
            (KeySource::EntitiesFlag, "B006")
        ]
    );
    assert!(r.sources[0].covers(Some(" ROLE ")) && !r.sources[0].covers(Some("identity")));
    assert!(r.sources[1].covers(Some("identity")));
    // Without `sources`, the run, with the entry's rule and words.
    let e = &t.references[1];
    assert_eq!(e.sources.len(), 1);
    assert_eq!(
        (e.sources[0].from, e.sources[0].rule.code),
        (KeySource::Run, "B014")
    );
    assert_eq!(t.unchecked.len(), 3);
    let entities = table("entities").expect("parses").expect("exists");
    let employees = table("employees").expect("parses").expect("exists");
    assert!(link(&[&t, entities, employees]).is_ok());
}

#[test]
fn compound_keys_sources_and_unchecked_are_validated() {
    for (rest, want) in [
        (
            ENTITY_REF.replace("type_key = \"Entity Type\"\n", ""),
            "set together",
        ),
        (
            ENTITY_REF.replace("type_column = \"T\"\n", ""),
            "set together",
        ),
        (
            ENTITY_REF.replace("type_column = \"T\"", "type_column = \"Q\""),
            "\"Q\"",
        ),
        (format!("{ENTITY_REF}sources = []\n"), "empty"),
        (
            format!("{ENTITY_REF}sources = [{{ from = \"run\" }}, {{ from = \"run\" }}]\n"),
            "twice",
        ),
        (
            format!("{ENTITY_REF}sources = [{{ from = \"disk\" }}]\n"),
            "disk",
        ),
        (
            format!("{ENTITY_REF}sources = [{{ from = \"run\", types = [] }}]\n"),
            "non-empty",
        ),
        (
            format!("{ENTITY_REF}sources = [{{ from = \"run\", rule = \"B999\" }}]\n"),
            "B999",
        ),
        (
            format!("{ENTITY_REF}sources = [{{ from = \"run\", message = \"{{place}}\" }}]\n"),
            "{place}",
        ),
        (
            ENTITY_REF.replace("target = \"entities\"", "target = \"employees\"")
                + "sources = [{ from = \"--entities\" }]\n",
            "--entities",
        ),
        (
            "[[references]]\ncolumn = \"I\"\ntarget = \"employees\"\nkey = \"Work Email\"\n\
             rule = \"B014\"\nmessage = \"{type}\"\nhelp = \"h\"\n"
                .to_owned(),
            "{type}",
        ),
        (
            "[[references]]\ncolumn = \"I\"\ntarget = \"employees\"\nkey = \"Work Email\"\n\
             rule = \"B014\"\nmessage = \"m\"\nhelp = \"h\"\n\
             sources = [{ from = \"run\", types = [\"employee\"] }]\n"
                .to_owned(),
            "compound",
        ),
        (
            format!("{ENTITY_REF}unchecked = \"file\"\n"),
            "no [[unchecked]] for targets [\"entities\"]",
        ),
        (
            format!(
                "{ENTITY_REF}unchecked = \"file\"\n[[unchecked]]\ntargets = [\"entities\"]\n\
                 rule = \"B010\"\nmessage = \"{{count}}\"\nhelp = \"h\"\n"
            ),
            "unknown placeholder",
        ),
        (
            format!(
                "{ENTITY_REF}[[unchecked]]\ntargets = [\"entities\"]\n\
                 rule = \"B010\"\nmessage = \"m\"\nhelp = \"h\"\n"
            ),
            "sets `unchecked`",
        ),
        (format!("{ENTITY_REF}unchecked = \"files\"\n"), "files"),
    ] {
        let e = typed(&rest).expect_err(&rest);
        assert!(e.to_string().contains(want), "{rest}: {e}");
    }
    // The target side: `type_key` is a column of the target.
    let t = typed(&ENTITY_REF.replace("type_key = \"Entity Type\"", "type_key = \"Kind\""))
        .expect("parses");
    let entities = table("entities").expect("parses").expect("exists");
    let e = link(&[&t, entities]).expect_err("no Kind");
    assert!(e.to_string().contains("`type_key` names \"Kind\""), "{e}");
}

#[test]
fn a_reference_target_must_declare_its_key_and_gone_columns() {
    let filters = table("filters").expect("parses").expect("exists");
    for (rest, want) in [
        ("key = \"Nope\"\n", "no column \"Nope\""),
        (
            "key = \"ID\"\nundeclared_key = true\n",
            "drop `undeclared_key`",
        ),
        (
            "key = \"ID\"\ngone = { column = \"Gone\", in = [\"x\"] }\n\
             gone_message = \"g\"\ngone_help = \"g\"\n",
            "`gone` names \"Gone\"",
        ),
    ] {
        let t = referring(&format!(
            "column = \"I\"\npart = \"integration-id\"\n{rest}"
        ))
        .expect(rest);
        let e = link(&[&t, filters]).expect_err(rest);
        assert!(e.to_string().contains(want), "{rest}: {e}");
    }
    let t = referring(
        "column = \"I\"\npart = \"integration-id\"\nkey = \"Secret\"\nundeclared_key = true\n",
    )
    .expect("parses");
    assert!(link(&[&t, filters]).is_ok());
    // The target must be among the linked tables.
    let t = referring("column = \"I\"\npart = \"integration-id\"\nkey = \"ID\"\n").expect("parses");
    assert!(link(&[&t]).is_err());
}

#[test]
fn conditions_must_name_known_columns() {
    let text = "name = \"x\"\ntitle = \"x\"\nspec_section = \"x\"\ndirection = \"upload\"\n\
                [[columns]]\nname = \"A\"\n[[requires]]\nall = [\"B\"]\nreason = \"r\"\n";
    let e = Table::parse("x", text).expect_err("unknown column");
    assert!(e.to_string().contains("\"B\""), "{e}");
}

/// Each way a table can fail, with the whole message a reader of `rules/`
/// sees: the typed errors read as the messages of before they were typed.
#[test]
fn errors_read_as_one_line_naming_the_file_the_part_and_the_reason() {
    let cols = |rest: &str| format!("{HEAD}{rest}");
    for (text, want) in [
        (
            "name = \"y\"\ntitle = \"x\"\nspec_section = \"x\"\ndirection = \"upload\"\ncolumns = []\n"
                .to_owned(),
            "rules/x.toml: name = \"y\" does not match the registry name",
        ),
        (
            cols("[[columns]]\nname = \"A\"\n"),
            "rules/x.toml: column \"A\" is defined twice",
        ),
        (
            cols("[[columns]]\nname = \"D\"\nshape = \"integer\"\nmin = 2\nmax = 1\n"),
            "rules/x.toml: column \"D\": min 2 is greater than max 1",
        ),
        (
            cols("[[columns]]\nname = \"D\"\nshape = \"txet\"\n"),
            "rules/x.toml: column \"D\": unknown shape \"txet\"",
        ),
        (
            cols("[[columns]]\nname = \"D\"\nshape = \"text\"\nvalues = [\"a\"]\n"),
            "rules/x.toml: column \"D\": shape \"text\" takes no `values`",
        ),
        (
            cols("[[columns]]\nname = \"D\"\nshape = \"enum\"\n"),
            "rules/x.toml: column \"D\": shape \"enum\" needs non-empty `values`",
        ),
        (
            cols("[[columns]]\nname = \"D\"\nidentifier = true\nshape = \"email\"\n"),
            "rules/x.toml: column \"D\": only a text column takes `identifier`",
        ),
        (
            cols("[[columns]]\nname = \"D\"\nrequirement = \"recommended\"\n"),
            "rules/x.toml: column \"D\": `requirement` is `required` or `optional`; only `header` may be `recommended`",
        ),
        (
            cols("[[requires]]\nall = [\"Z\"]\nreason = \"r\"\n"),
            "rules/x.toml: unknown column \"Z\" in a condition",
        ),
        (
            cols("[[requires]]\nwhen = { column = \"A\" }\nall = [\"B\"]\nreason = \"r\"\n"),
            "rules/x.toml: condition on \"A\" needs exactly one of `is` or a non-empty `in`",
        ),
        (
            cols("[[requires]]\nall = [\"B\"]\nany = [\"C\"]\nreason = \"r\"\n"),
            "rules/x.toml: requires (r) needs exactly one of `all` or `any`",
        ),
        (
            cols("[[one_or_all]]\ncolumns = [\"B\"]\nreason = \"r\"\n"),
            "rules/x.toml: one_or_all needs at least two columns",
        ),
        (
            cols("[[json]]\ncolumn = \"A\"\nschema = \"labels\"\n"),
            "rules/x.toml: [[json]] binds \"A\", whose shape is not JSON",
        ),
        (
            cols("[[columns]]\nname = \"J\"\nshape = \"json\"\n[[json]]\ncolumn = \"J\"\nschema = \"nope\"\n"),
            "rules/x.toml: [[json]] on \"J\": no schema \"nope\" in rules/json.toml",
        ),
        (
            cols("[[columns]]\nname = \"J\"\nshape = \"json\"\n[[json]]\ncolumn = \"J\"\n"),
            "rules/x.toml: [[json]] on \"J\" needs `schema = \"<name>\"` or `grammar = \"filter\"` with `type_column`",
        ),
        (
            cols("[[order]]\nearlier = \"A\"\nlater = \"B\"\nreason = \"r\"\n"),
            "rules/x.toml: [[order]] needs two columns of the same date shape: \"A\", \"B\"",
        ),
        (
            cols("[[unique]]\ncolumns = []\nreason = \"r\"\n"),
            "rules/x.toml: unique needs at least one column",
        ),
        (
            cols("[identity]\ncolumns = [\"A\", \"Q\", \"B\"]\n"),
            "rules/x.toml: identity names unknown column \"Q\"",
        ),
        (
            cols("[[unique]]\ncolumns = [\"A\", \"A\"]\nreason = \"r\"\n"),
            "rules/x.toml: unique names column \"A\" twice",
        ),
        (
            cols("[identity]\ncolumns = [\"A\", \"B\"]\n"),
            "rules/x.toml: identity needs exactly three columns (the cross-row state stores two partners per value)",
        ),
        (
            cols("[[references]]\ncolumn = \"A\"\ntarget = \"filters\"\nkey = \"ID\"\nrule = \"B011\"\nmessage = \"{place}\"\nhelp = \"h\"\n"),
            "rules/x.toml: [[references]] on \"A\": {place} in \"{place}\": only a gone_message or gone_help has a deleting row to name",
        ),
        (
            cols("[[references]]\ncolumn = \"A\"\ntarget = \"filters\"\nkey = \"ID\"\nrule = \"B011\"\nmessage = \"{x}\"\nhelp = \"h\"\n"),
            "rules/x.toml: [[references]] on \"A\": unknown placeholder in \"{x}\" (known here: [\"{value}\", \"{cell}\", \"{key}\"])",
        ),
        (
            cols("[[references]]\ncolumn = \"A\"\ntarget = \"filters\"\nkey = \"ID\"\nrule = \"B999\"\nmessage = \"m\"\nhelp = \"h\"\n"),
            "rules/x.toml: [[references]] on \"A\": no rule with code \"B999\" in the registry",
        ),
        (
            cols("[[references]]\ncolumn = \"A\"\ntarget = \"filters\"\nkey = \"ID\"\nrule = \"B011\"\nmessage = \"m\"\nhelp = \"h\"\nunchecked = \"file\"\n"),
            "rules/x.toml: no [[unchecked]] for targets [\"filters\"]",
        ),
        (
            cols("[[references]]\ncolumn = \"A\"\ntarget = \"filters\"\nkey = \"ID\"\nrule = \"B011\"\nmessage = \"m\"\nhelp = \"h\"\nunchecked = \"file\"\n\
                  [[references]]\ncolumn = \"B\"\ntarget = \"filters\"\nkey = \"ID\"\nrule = \"B011\"\nmessage = \"m\"\nhelp = \"h\"\nunchecked = \"count\"\n"),
            "rules/x.toml: [[references]] to \"filters\" disagree on `unchecked`",
        ),
        (
            cols("[[references]]\ncolumn = \"A\"\ntarget = \"filters\"\nkey = \"ID\"\nrule = \"B011\"\nmessage = \"m\"\nhelp = \"h\"\nunchecked = \"count\"\n\
                  [[references]]\ncolumn = \"B\"\ntarget = \"entities\"\nkey = \"ID\"\nrule = \"B011\"\nmessage = \"m\"\nhelp = \"h\"\nunchecked = \"count\"\n"),
            "rules/x.toml: at most one target is counted (`unchecked = \"count\"`)",
        ),
        (
            cols("[[references]]\ncolumn = \"A\"\ntarget = \"filters\"\nkey = \"ID\"\nrule = \"B011\"\nmessage = \"m\"\nhelp = \"h\"\nunchecked = \"file\"\n\
                  [[unchecked]]\ntargets = [\"filters\"]\nrule = \"B010\"\nmessage = \"{count}\"\nhelp = \"h\"\n"),
            "rules/x.toml: [[unchecked]] [\"filters\"]: unknown placeholder in \"{count}\" (known here: [])",
        ),
    ] {
        let e = Table::parse("x", &text).expect_err(&text);
        assert_eq!(e.to_string(), want, "{text}");
    }
    // The target side, named by the referring table.
    let t =
        referring("column = \"I\"\npart = \"integration-id\"\nkey = \"Nope\"\n").expect("parses");
    let filters = table("filters").expect("parses").expect("exists");
    assert_eq!(
        link(&[&t, filters]).expect_err("no Nope").to_string(),
        "rules/x.toml: [[references]] on \"I\": filters has no column \"Nope\" (a key it does not declare needs `undeclared_key = true`)"
    );
    // Not TOML of the grammar: the parser's own words.
    let e = Table::parse("x", "name = \"x\"\ncolums = []\n").expect_err("typo");
    let e = e.to_string();
    assert!(
        e.starts_with("rules/x.toml: TOML parse error at line 2"),
        "{e}"
    );
    assert!(e.contains("unknown field `colums`"), "{e}");
}

/// Detection from a header, over the shipped tables.
fn detect(header: &str, file: Option<&str>) -> Detection {
    let names: Vec<&str> = header.split(',').collect();
    detect_format(tables().expect("tables"), &names, file)
}

#[test]
fn exact_variant_and_typo_headers_detect() {
    assert_eq!(
        detect("Full Name,Work Email,Start Date", None),
        Detection::Found("employees")
    );
    assert_eq!(
        detect("full name,Work Email*,Start Date", None),
        Detection::Found("employees")
    );
    assert_eq!(
        detect("Full Nmae,Work Emial,Start Date", None),
        Detection::Found("employees")
    );
}

#[test]
fn extra_columns_do_not_hide_a_complete_header() {
    assert_eq!(
        detect(
            "Full Name,Work Email,Start Date,Nickname,Team,Location,Cost Center",
            None
        ),
        Detection::Found("employees")
    );
}

#[test]
fn file_hints_break_ties_and_rescue_no_match() {
    let shared =
        "Parent Entity Source ID,Parent Entity Type,Entity Source ID,Entity Type,Source System";
    assert!(matches!(detect(shared, None), Detection::Ambiguous(_)));
    assert_eq!(
        detect(shared, Some("rbac_relations.csv")),
        Detection::Found("entity-rbac-relations")
    );
    // Without `Source System` (required in the upload, optional in the
    // RBAC variant) the names fit both; the name decides, and the
    // upload then lacks a required column.
    let short = "Parent Entity Source ID,Parent Entity Type,Entity Source ID,Entity Type";
    assert_eq!(
        detect(short, None),
        Detection::Found("entity-rbac-relations")
    );
    assert_eq!(
        detect(short, Some("entity-relations.csv")),
        Detection::Found("entity-relations")
    );
    assert_eq!(detect("Foo,Bar", None), Detection::NoMatch);
    assert_eq!(
        detect("Foo,Bar", Some("campaigns-2024.csv")),
        Detection::Found("campaigns")
    );
}

/// What a directory walk makes of a header: the format detection
/// picks, and whether the evidence lets the walk take it.
fn walked(header: &str, file: Option<&str>) -> (Detection, Option<Evidence>) {
    let names: Vec<&str> = header.split(',').collect();
    let tables = tables().expect("tables");
    let found = detect_format(tables, &names, file);
    let ev = match &found {
        Detection::Found(name) => {
            let t = tables
                .iter()
                .find(|t| t.name == *name)
                .expect("a detected table exists");
            Some(evidence(t, &names, file))
        }
        _ => None,
    };
    (found, ev)
}

/// The stray headers of issue 30: each shares a name or two with a
/// format, which detection picks, and none is evidence enough for a
/// walk.
#[test]
fn stray_headers_are_weak_evidence() {
    for (header, format, matched, names, missing) in [
        ("id,val", "rbac2", 1, 2, vec!["Identity Username"]),
        (
            "name,email",
            "entitlements",
            2,
            2,
            vec!["Privilege Name", "Privilege Value"],
        ),
        ("date,value", "rbac2", 1, 2, vec!["Identity Username"]),
        ("Name,Description,Type", "filters", 2, 3, vec!["Value"]),
    ] {
        let (found, ev) = walked(header, Some("data.csv"));
        assert_eq!(found, Detection::Found(format), "{header}");
        let missing = missing.into_iter().map(str::to_owned).collect();
        assert_eq!(
            ev,
            Some(Evidence::Weak {
                matched,
                names,
                missing
            }),
            "{header}"
        );
    }
    let (_, ev) = walked("id,val", None);
    assert_eq!(
        ev.expect("detected").describe("rbac2"),
        "only 1 of its names is a column of rbac2, which requires Identity Username too, and its file name does not say rbac2"
    );
}

/// An upload missing one required column is still taken: by its other
/// names, or, when it has too few, by a file name that says it.
#[test]
fn an_upload_missing_a_required_column_is_strong_evidence() {
    let (found, ev) = walked(
        "Employee ID,Full Name,Work Email,Department,Title",
        Some("x.csv"),
    );
    assert_eq!(found, Detection::Found("employees"));
    assert_eq!(
        ev,
        Some(Evidence::Shared {
            matched: 5,
            names: 5
        })
    );
    let (found, ev) = walked("Project,Privilege Name,Email,User ID", None);
    assert_eq!(found, Detection::Found("entitlements"));
    assert!(ev.expect("detected").is_strong());
    // Two names: too few alone, enough with the file's name.
    assert_eq!(
        walked("Name,Type", Some("x.csv")).1.map(|e| e.is_strong()),
        Some(false)
    );
    assert_eq!(
        walked("Name,Type", Some("q3_filters.csv")).1,
        Some(Evidence::FileName)
    );
    assert_eq!(
        walked("Full Name,Work Email,Start Date", None).1,
        Some(Evidence::Required)
    );
}

/// A hint counts only where it begins a word of the file name.
#[test]
fn a_file_name_says_a_format_at_a_word_start() {
    let (found, ev) = walked("Foo,Bar", Some("preview.csv"));
    assert_eq!(found, Detection::Found("reviews"));
    assert!(!ev.expect("detected").is_strong());
    let (found, ev) = walked("Foo,Bar", Some("2024-Reviews.csv"));
    assert_eq!(found, Detection::Found("reviews"));
    assert_eq!(ev, Some(Evidence::FileName));
}
