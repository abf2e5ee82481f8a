//! The quick path: a column's cell check for the usual cell, by which a
//! clean cell is told clean without the full check.

use super::cells::Cells;
use super::list_cells::list_is_clean;
use crate::check::shapes;
use crate::schema::shape::{BoolSpelling, DateShape};
use crate::schema::{Braces, Shape};

/// A column's cell check for the usual cell, resolved once per file: a
/// filled cell that stands as is in the chunk (no escapes to undo, nothing
/// to trim) is clean when this says so, and
/// [`Plan::check_cell`](super::plan::Plan::check_cell) runs only
/// on the rest. Each arm is the test by which `check_cell` finds nothing.
#[derive(Clone, Copy)]
pub(super) enum QuickCell {
    /// Any filled value fits (required free text).
    Filled,
    Bool(BoolSpelling),
    Email,
    Date(DateShape),
    Enum(&'static [String]),
    List(Option<&'static [String]>, Braces),
    /// No quick check: the full one, always.
    Full,
}

impl QuickCell {
    pub(super) fn of(shape: &'static Shape) -> QuickCell {
        match shape {
            Shape::Text => QuickCell::Filled,
            Shape::Bool(spelling) => QuickCell::Bool(*spelling),
            Shape::Email => QuickCell::Email,
            Shape::Date(d) => QuickCell::Date(*d),
            Shape::Enum(values) => QuickCell::Enum(values),
            Shape::List { values, braces } => QuickCell::List(values.as_deref(), *braces),
            Shape::Integer { .. }
            | Shape::IntegrationRef
            | Shape::Json(_)
            | Shape::Brn
            | Shape::Url => QuickCell::Full,
        }
    }

    /// Whether field `i` of `cells` surely draws no finding from
    /// [`Plan::check_cell`](super::plan::Plan::check_cell) (false: run it).
    #[inline(always)]
    pub(super) fn passes(self, cells: &Cells<'_>, i: usize) -> bool {
        match self {
            // Free text draws no finding once it is filled, whatever its
            // bytes: not even for spaces around it.
            QuickCell::Filled => cells.is_filled(i),
            // A word of the spelling has nothing to trim: the cell's bytes
            // as they stand are enough. The words are constants once
            // `words` is inlined: a compare of a few bytes in place, not a
            // call to `bcmp`.
            QuickCell::Bool(spelling) => cells.as_is(i).is_some_and(|v| {
                let (t, f) = spelling.words();
                v == t.as_bytes() || v == f.as_bytes()
            }),
            QuickCell::Email => cells.plain(i).is_some_and(shapes::is_email_bytes),
            QuickCell::Date(d) => cells
                .plain(i)
                .is_some_and(|v| shapes::check_date_bytes(d, v).is_ok()),
            QuickCell::Enum(values) => cells
                .plain(i)
                .is_some_and(|v| values.iter().any(|x| x.as_bytes() == v)),
            // A list holds no `#` first: a spreadsheet's error value
            // (`#N/A`) is a one-element list to `list_is_clean`.
            QuickCell::List(values, braces) => cells
                .plain(i)
                .is_some_and(|v| v[0] != b'#' && list_is_clean(v, values, braces)),
            QuickCell::Full => false,
        }
    }
}
