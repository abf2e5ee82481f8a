//! Near names: the edit distance behind every "did you mean" (header
//! names, enum values, JSON keys, filter fields and operators) and format
//! detection. A leaf module, so that the schema and the checks can both use
//! it without importing each other.

/// Levenshtein distance, for "did you mean" suggestions. Short strings only.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// How many edits a name or value may be from a known one to count as a
/// slip of the keyboard. Short ones get none: one edit turns `12h` into
/// `72h` and `ID` into `OD`, which are different things, not typos.
pub(crate) fn typo_budget(value: &str) -> usize {
    match value.chars().count() {
        0..=3 => 0,
        4..=7 => 1,
        _ => 2,
    }
}

/// The index of the candidate nearest to `value` within `budget` edits, if
/// exactly one is nearest. `None` candidates are skipped.
pub(crate) fn closest<'c>(
    value: &str,
    budget: usize,
    candidates: impl IntoIterator<Item = Option<&'c str>>,
) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None;
    let mut tie = false;
    // Two strings whose lengths differ by more than the budget are further
    // apart than it: no distance is computed for them, so a huge value (an
    // 8 MB header name or cell) costs one count, not a quadratic table.
    let len = value.chars().count();
    for (i, c) in candidates.into_iter().enumerate() {
        let Some(c) = c else { continue };
        if len.abs_diff(c.chars().count()) > budget {
            continue;
        }
        let d = edit_distance(value, c);
        if d > budget {
            continue;
        }
        match best {
            Some((bd, _)) if d > bd => {}
            Some((bd, _)) if d == bd => tie = true,
            _ => {
                best = Some((d, i));
                tie = false;
            }
        }
    }
    best.filter(|_| !tie).map(|(_, i)| i)
}

/// The value of `candidates` a user probably meant: a case-insensitive
/// match, or one within a small edit distance.
pub(crate) fn suggest<'c>(value: &str, candidates: &'c [String]) -> Option<&'c str> {
    let lower = value.to_lowercase();
    let budget = typo_budget(&lower);
    let lowered: Vec<String> = candidates.iter().map(|c| c.to_lowercase()).collect();
    closest(&lower, budget, lowered.iter().map(|c| Some(c.as_str())))
        .map(|i| candidates[i].as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        let values = ["approved".to_owned(), "rejected".to_owned()];
        assert_eq!(suggest("Approved", &values), Some("approved"));
        assert_eq!(suggest("aproved", &values), Some("approved"));
        assert_eq!(suggest("xyz", &values), None);
        let ties = ["ab".to_owned(), "ac".to_owned()];
        assert_eq!(suggest("aa", &ties), None, "a tie suggests nothing");
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    /// `closest` as stated, with every distance computed.
    fn closest_slow(value: &str, budget: usize, candidates: &[String]) -> Option<usize> {
        let ds: Vec<usize> = candidates.iter().map(|c| edit_distance(value, c)).collect();
        let best = *ds.iter().filter(|d| **d <= budget).min()?;
        let at: Vec<usize> = (0..ds.len()).filter(|i| ds[*i] == best).collect();
        (at.len() == 1).then(|| at[0])
    }

    proptest::proptest! {
        #[test]
        fn the_length_cut_off_changes_no_answer(
            value in "[abé]{0,12}",
            candidates in proptest::collection::vec("[abé]{0,12}", 0..6),
            budget in 0usize..4,
        ) {
            let got = closest(&value, budget, candidates.iter().map(|c| Some(c.as_str())));
            proptest::prop_assert_eq!(got, closest_slow(&value, budget, &candidates));
        }
    }
}
