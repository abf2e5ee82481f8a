//! Property test for JSON as it stands in a quoted CSV cell: parsing the
//! text with every quote doubled (`Doc::parse_as(_, true, _)`, what the row
//! checker does) must say exactly what parsing the unescaped text says,
//! with every offset moved through the escaping.

use bdxlint::json::{Doc, NodeId};
use bdxlint::scan::raw_offset;
use proptest::prelude::*;

/// Text close to JSON: structure, quotes, escapes, digits, words, spaces,
/// control characters and non-ASCII, so that both valid documents and every
/// kind of syntax error come up.
fn jsonish() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just(":".to_owned()),
        Just(",".to_owned()),
        Just("\"".to_owned()),
        Just("\\\"".to_owned()),
        Just("\\".to_owned()),
        Just("\\u00e9".to_owned()),
        Just("true".to_owned()),
        Just("null".to_owned()),
        Just(" ".to_owned()),
        Just("\t".to_owned()),
        "-?[0-9]{1,3}(\\.[0-9])?".prop_map(String::from),
        "\"[a-z é]{0,12}\"".prop_map(String::from),
        "[a-z\u{1}\u{e9}]{1,3}".prop_map(String::from),
    ];
    prop::collection::vec(token, 0..24).prop_map(|t| t.concat())
}

/// The nodes of `doc` in document order.
fn nodes(doc: &Doc<'_>) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut stack = vec![doc.root()];
    while let Some(id) = stack.pop() {
        out.push(id);
        let kids: Vec<NodeId> = doc.children(id).collect();
        stack.extend(kids.into_iter().rev());
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn doubled_and_plain_parses_agree(text in jsonish()) {
        let raw = text.replace('"', "\"\"");
        let at = |offset: usize| raw_offset(raw.as_bytes(), true, offset);
        let plain = Doc::parse(&text, Vec::new()).map_err(|(e, _)| e);
        let doubled = Doc::parse_as(&raw, true, Vec::new()).map_err(|(e, _)| e);
        match (plain, doubled) {
            (Ok(a), Ok(b)) => {
                let (na, nb) = (nodes(&a), nodes(&b));
                prop_assert_eq!(na.len(), nb.len());
                for (&x, &y) in na.iter().zip(&nb) {
                    prop_assert_eq!(a.kind(x), b.kind(y));
                    let s = a.node(x).span();
                    prop_assert_eq!(at(s.start)..at(s.end), b.node(y).span());
                    prop_assert_eq!(
                        a.node(x).key_span().map(|s| at(s.start)..at(s.end)),
                        b.node(y).key_span()
                    );
                    prop_assert_eq!(a.key(x), b.key(y));
                    prop_assert_eq!(a.str(x), b.str(y));
                }
            }
            (Err(a), Err(b)) => {
                prop_assert_eq!(&a.message, &b.message);
                prop_assert_eq!(at(a.offset), b.offset);
            }
            (a, b) => prop_assert!(false, "{:?} vs {:?}", a.map(|_| ()), b.map(|_| ())),
        }
    }
}
