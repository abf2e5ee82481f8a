//! Property tests for the JSON parser and the filter-expression grammar:
//! what the grammar accepts checks clean after a round trip through CSV
//! quoting, the parser agrees with serde_json on what is JSON, and random
//! mutations of filter values never panic and keep spans inside the cell.

use bdxlint::check::{check_reader, Options};
use bdxlint::json::Doc;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Field lists of some filter types, as the spec's table gives them.
fn fields(ty: &str) -> Vec<&'static str> {
    match ty {
        "PEOPLE" => vec!["ID", "manager", "title", "department", "employmentType"],
        "IDENTITIES" => vec!["brn", "identity_type", "ID", "integration"],
        "REVIEWS" => vec![
            "handle",
            "idenetity_type",
            "workflow",
            "status",
            "permission value",
        ],
        // No field list: any name goes.
        _ => vec!["anything", "custom field", "x"],
    }
}

fn text() -> impl Strategy<Value = String> {
    // Quotes, backslashes, commas and newlines exercise both JSON and CSV escaping.
    "[a-zA-Z0-9 ,\"\\\\\n\u{e9}]{0,8}"
}

fn comparison() -> impl Strategy<Value = Value> {
    prop_oneof![
        text().prop_map(|s| json!({ "_eq": s })),
        prop::collection::vec(text(), 0..3).prop_map(|v| json!({ "_in": v })),
        (text(), prop::collection::vec(text(), 1..3))
            .prop_map(|(s, v)| json!({ "_eq": s, "_in": v })),
    ]
}

fn labels() -> impl Strategy<Value = Value> {
    prop::collection::vec((text(), text()), 0..3).prop_map(|v| {
        Value::Array(
            v.into_iter()
                .map(|(k, n)| json!({ "key": k, "val": { "_eq": n } }))
                .collect(),
        )
    })
}

/// A condition over the fields of `ty`, with `employee`/`labels` where the
/// type lists them.
fn condition(ty: &'static str) -> impl Strategy<Value = Value> {
    let names = fields(ty);
    let leaf = (
        prop::sample::select(names),
        comparison(),
        prop::option::of(labels()),
    )
        .prop_map(move |(f, c, l)| {
            let mut m = Map::new();
            m.insert(f.to_owned(), c);
            if let Some(l) = l {
                if ty == "PEOPLE" || ty == "REVIEWS" {
                    m.insert("labels".into(), l);
                }
            }
            if ty == "IDENTITIES" {
                m.insert("employee".into(), json!({ "department": { "_eq": "Eng" } }));
            }
            Value::Object(m)
        });
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| json!({ "_and": v })),
            inner.clone().prop_map(|c| json!({ "_not": c })),
            prop::collection::vec(inner, 1..3).prop_map(|v| json!({ "_not": v })),
        ]
    })
}

fn typed_filter() -> impl Strategy<Value = (&'static str, Value)> {
    prop::sample::select(vec!["PEOPLE", "IDENTITIES", "REVIEWS", "CAMPAIGN"])
        .prop_flat_map(|ty| condition(ty).prop_map(move |c| (ty, c)))
}

fn filters_csv(ty: &str, value: &str) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["ID", "Name", "Type", "Value", "Status"])
        .expect("header");
    w.write_record(["flt-1", "generated", ty, value, ""])
        .expect("row");
    w.into_inner().expect("flush")
}

fn check(data: &[u8]) -> bdxlint::check::FileReport {
    let opts = Options {
        format: Some("filters".into()),
        ..Options::default()
    };
    check_reader(data, "filters.csv", None, &opts).expect("checks")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn accepted_filters_round_trip_clean((ty, value) in typed_filter(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).expect("serializes")
        } else {
            value.to_string()
        };
        let r = check(&filters_csv(ty, &text));
        let found: Vec<String> = r.diagnostics.iter().map(|d| format!("{} {}", d.rule.code, d.message)).collect();
        prop_assert!(found.is_empty(), "{ty} {text}: {found:?}");
    }

    #[test]
    fn mutated_filters_never_panic_and_keep_spans_in_the_cell(
        (ty, value) in typed_filter(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, prop::sample::select(vec!['{', '}', '[', ']', '"', ',', ':', '_', 'x', '1', ' ', '\\'])), 1..4),
    ) {
        let mut chars: Vec<char> = value.to_string().chars().collect();
        for (at, op, c) in edits {
            let i = at.index(chars.len() + 1);
            match op {
                0 => chars.insert(i, c),
                1 if i < chars.len() => { chars.remove(i); }
                _ if i < chars.len() => chars[i] = c,
                _ => chars.push(c),
            }
        }
        let text: String = chars.into_iter().collect();
        let data = filters_csv(ty, &text);
        let r = check(&data);
        // The Value cell: from the third comma of the data row to the last one.
        let row = data.iter().position(|b| *b == b'\n').expect("header line") + 1;
        let cell_end = data.len() - 2; // `,` + `\n` after Value: Status is empty
        for d in &r.diagnostics {
            prop_assert!(d.span.end as usize <= data.len());
            prop_assert!(d.span.start <= d.span.end);
            if d.rule.code.starts_with('J') || d.rule.code == "C011" || d.rule.code == "C012" {
                prop_assert!(d.span.start as usize >= row && d.span.end as usize <= cell_end,
                    "{} outside the Value cell: {:?} in {}", d.rule.code, d.span, String::from_utf8_lossy(&data));
            }
        }
    }

    #[test]
    fn parser_agrees_with_serde_json(text in "[\\[\\]{}\",:0-9a-z.eE+\\- \\\\]{0,40}") {
        let ours = Doc::parse(&text, Vec::new()).is_ok();
        let theirs = serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok();
        prop_assert_eq!(ours, theirs, "{:?}", text);
    }

    #[test]
    fn parser_accepts_what_serde_json_writes(value in any_json()) {
        let text = value.to_string();
        let doc = Doc::parse(&text, Vec::new()).map_err(|(e, _)| e);
        prop_assert!(doc.is_ok(), "{text}: {doc:?}");
    }
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        ".{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 48, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(".{0,4}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
