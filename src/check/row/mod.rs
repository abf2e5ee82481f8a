//! The per-record checker: quoting, field count, UTF-8, required cells,
//! shapes and the conditions between cells of a row, compiled once per file
//! from the table and the header ([`Plan`]).
//!
//! Bottom up: the decoded cells of a record (`cells.rs`), the requirement
//! masks (`masks.rs`), where a cell's findings point (`at.rs`); the cell
//! shapes by family (`enum_cells.rs`, `list_cells.rs`, `scalar_cells.rs`,
//! `id_cells.rs`), the quick path (`quick.rs`), the plan (`plan.rs`); the
//! checks that read the plan (`date_cells.rs`, `text_cells.rs`,
//! `json_cells.rs`, `conditions.rs`), one cell's check (`cell_check.rs`);
//! and here, a record's check, which runs them. Each file imports only
//! files listed before it.

mod at;
mod cell_check;
mod cells;
mod conditions;
mod date_cells;
mod enum_cells;
mod id_cells;
mod json_cells;
mod list_cells;
mod masks;
mod plan;
mod quick;
mod scalar_cells;
mod text_cells;

pub(crate) use cells::Cells;
pub use plan::Plan;

use super::emit::Emitter;
use super::finding::Finding;
use super::record::{report_nuls, report_quoting, report_utf8};
use super::shapes;
use crate::rules;
use crate::scan::Record;
use crate::schema::shape::DateShape;
use date_cells::month_first_evidence;
use quick::QuickCell;

impl Plan {
    /// Checks one record. Returns whether its cells were decoded into
    /// `cells` (false for a row with broken quoting or the wrong field count,
    /// whose cells mean nothing and which cross-row rules skip).
    pub(crate) fn check_record<'a>(
        &self,
        data: &'a [u8],
        rec: &Record,
        cells: &mut Cells<'a>,
        emit: &mut Emitter<'_>,
    ) -> bool {
        if cells.nul {
            report_nuls(data, rec, &self.map.names, emit);
        }
        let broken = !rec.problems.is_empty() || rec.fields.len() != self.width;
        if broken {
            // The cells are not checked, but bad bytes are still bad bytes.
            for (i, f) in rec.fields.iter().enumerate() {
                let (a, b) = f.content();
                report_utf8(data, a, b, f, self.map.names.get(i).cloned(), emit);
            }
        }
        if !rec.problems.is_empty() {
            report_quoting(data, rec, &self.map.names, emit);
            return false;
        }
        if rec.fields.len() != self.width {
            let (got, want) = (rec.fields.len(), self.width);
            emit.report_row(
                rec,
                Finding::new(
                    &rules::FIELD_COUNT,
                    format!("this row has {got} fields but the header has {want}"),
                )
                .help(if got > want {
                    "quote values that contain commas, or remove the extra fields; the row's cells were not checked"
                } else {
                    "add the missing fields (empty ones are fine: `a,,c`); the row's cells were not checked"
                }),
            );
            return false;
        }
        cells.decode(
            rec,
            &self.field_bits,
            &self.reads_value,
            &self.map.names,
            emit,
        );
        for &(i, c, quick) in &self.checked {
            if !quick.passes(cells, i) {
                self.check_cell(data, &rec.fields[i], i, c, cells, emit);
            } else if let QuickCell::Date(DateShape::Mdy) = quick {
                if let Some(v) = cells.plain(i) {
                    // The cell's own line, as `check_cell` names it.
                    month_first_evidence(c, v, rec.fields[i].line, emit);
                }
            }
        }
        // An identifier is looked at for an exponent, or for what is not
        // visible ASCII at either end (spaces around it); a cell held
        // decoded (escapes, bytes that are not UTF-8) is looked at whole.
        let id_suspect = |i: usize| match cells.as_is(i) {
            Some(v) => {
                super::sheet::maybe_exponent(v)
                    || !v.first().is_some_and(|&b| shapes::visible_ascii(b))
                    || !v.last().is_some_and(|&b| shapes::visible_ascii(b))
            }
            None => cells.is_filled(i),
        };
        if cells.suspicious != 0 || self.id_fields.iter().any(|&i| id_suspect(i)) {
            self.check_text_cells(data, rec, cells, emit);
        }
        // The usual row meets every requirement, and most formats have no
        // equal, grouped or ordered columns: settled here, so that the
        // checks that report stay out of line.
        let t = self.table;
        if !self.all_met(cells.filled_cols) || !t.equal.is_empty() || !t.one_or_all.is_empty() {
            self.check_conditions(rec, cells, emit);
        }
        if !t.order.is_empty() {
            self.check_order(rec, cells, emit);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::header::Header;
    use crate::scan::Scanner;
    use crate::schema::Shape;

    #[test]
    fn quick_cells_draw_no_finding() {
        // Every column of every format with a quick check: values near its
        // example, and values made of pieces that its shapes care about.
        let pieces = [
            "a", "Z", "0", "9", "@", ".", "-", "/", ":", "T", "+", " ", ",", "{", "}", "\"",
            "\u{a0}", "\t", "é", "true", "TRUE", "false", "2024", "12", "31", "02", "29", "00:00",
            "+0000", "Z", "e@x.io",
        ];
        let mut next = crate::testutil::xorshift(0x6a09_e667_f3bc_c909u64);
        let (mut quick_clean, mut full_found) = (0, 0);
        for table in crate::schema::tables().expect("rules/ parses") {
            for col in &table.columns {
                let head = format!("\"{}\"", col.name.replace('"', "\"\""));
                let mut scanner = Scanner::new(head.as_bytes(), 0, 1);
                let mut rec = Record::default();
                assert!(scanner.next_record(&mut rec));
                let header = Header {
                    names: vec![col.name.as_str().into()],
                };
                let mut sink = Emitter::new(head.as_bytes(), false);
                let plan = Plan::new(table, &header, head.as_bytes(), &rec, &mut sink);
                let Some(&(i, c, quick)) = plan.checked.first() else {
                    continue;
                };
                if matches!(quick, QuickCell::Full) {
                    continue;
                }
                let mut values: Vec<String> = Vec::new();
                let seeds: Vec<String> = col
                    .example
                    .iter()
                    .cloned()
                    .chain(match &col.shape {
                        Shape::Enum(v) => v.clone(),
                        Shape::List {
                            values: Some(v), ..
                        } => v.clone(),
                        _ => vec![],
                    })
                    .collect();
                for _ in 0..3_000 {
                    let mut v = if !seeds.is_empty() && next() & 1 == 0 {
                        seeds[(next() % seeds.len() as u64) as usize].clone()
                    } else {
                        (0..next() % 12)
                            .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                            .collect()
                    };
                    // A few edits: a byte changed, dropped or doubled.
                    for _ in 0..next() % 3 {
                        let b = v.as_bytes();
                        if b.is_empty() {
                            break;
                        }
                        let at = (next() % b.len() as u64) as usize;
                        let mut b = b.to_vec();
                        match next() % 3 {
                            0 => b[at] = pieces[(next() % 8) as usize].as_bytes()[0],
                            1 => {
                                b.remove(at);
                            }
                            _ => b.insert(at, b[at]),
                        }
                        v = String::from_utf8(b).unwrap_or_default();
                    }
                    values.push(v);
                }
                for (k, v) in values.iter().enumerate() {
                    // Quoted and not, in a chunk of valid UTF-8, in one
                    // with a bad byte on a later line, and with a bad byte
                    // in the cell.
                    let quote = k % 2 == 0
                        || v.is_empty()
                        || v.bytes().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'));
                    let mut data = if quote {
                        format!("\"{}\"", v.replace('"', "\"\""))
                    } else {
                        v.clone()
                    }
                    .into_bytes();
                    if k % 3 == 0 {
                        data.extend_from_slice(b"\n\xff");
                    }
                    if k % 5 == 1 {
                        data.insert(usize::from(quote), 0xff);
                    }
                    let data = data.as_slice();
                    let mut rec = Record::default();
                    assert!(Scanner::new(data, 0, 1).next_record(&mut rec));
                    let mut cells = Cells::for_chunk(data);
                    let mut emit = Emitter::new(data, false);
                    cells.decode(
                        &rec,
                        &plan.field_bits,
                        &plan.reads_value,
                        &plan.map.names,
                        &mut emit,
                    );
                    let clean = quick.passes(&cells, i);
                    // Only what the cell check finds: decode reports bad
                    // bytes whichever way the cell is checked.
                    emit.diags.clear();
                    plan.check_cell(data, &rec.fields[i], i, c, &cells, &mut emit);
                    if clean {
                        quick_clean += 1;
                        assert!(
                            emit.diags.is_empty(),
                            "{}/{}: {v:?} passed the quick check but drew {:?}",
                            table.name,
                            col.name,
                            emit.diags.iter().map(|d| &d.message).collect::<Vec<_>>()
                        );
                    } else if !emit.diags.is_empty() {
                        full_found += 1;
                    }
                }
            }
        }
        assert!(
            quick_clean > 20_000,
            "only {quick_clean} cells passed quickly"
        );
        assert!(full_found > 20_000, "only {full_found} cells drew findings");
    }

    #[test]
    fn spreadsheet_findings_do_not_depend_on_how_a_record_is_decoded() {
        // The quick flags of `check_record` (a cell's first byte, an
        // identifier's last ones) decide whether text cells are looked at:
        // they must find what the slow way, taken by any record with a
        // `""` escape, finds.
        let table = crate::schema::table("entitlements")
            .expect("rules/ parses")
            .expect("entitlements is a format");
        let head = "User ID,Name,Username";
        let mut hrec = Record::default();
        assert!(Scanner::new(head.as_bytes(), 0, 1).next_record(&mut hrec));
        let header = Header {
            names: head.split(',').map(str::to_owned).collect(),
        };
        let plan = Plan::new(
            table,
            &header,
            head.as_bytes(),
            &hrec,
            &mut Emitter::new(head.as_bytes(), false),
        );
        let pieces = [
            "5", "8", ".", "E", "e", "+", "-", "=", "@", "#", "N/A", "#N/A", "#REF!", "\t", " ",
            "a", "1E+5", "11",
        ];
        let mut next = crate::testutil::xorshift(0x9e37_79b9_7f4a_7c15u64);
        let mut found = 0;
        for _ in 0..20_000 {
            let mut cell = || -> String {
                (0..next() % 6)
                    .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                    .collect()
            };
            let (id, name) = (cell(), cell());
            let q = |v: &str| format!("\"{v}\"");
            let findings = |third: &str| {
                let line = format!("{},{},{third}\n", q(&id), q(&name));
                let data = line.as_bytes();
                let mut rec = Record::default();
                assert!(Scanner::new(data, 0, 1).next_record(&mut rec));
                let mut cells = Cells::for_chunk(data);
                let mut emit = Emitter::new(data, false);
                plan.check_record(data, &rec, &mut cells, &mut emit);
                emit.diags
                    .iter()
                    .filter(|d| matches!(d.rule.code, "C016" | "C017" | "C019"))
                    .filter(|d| d.column.as_deref() != Some("Username"))
                    .map(|d| (d.rule.code, d.span.clone(), d.message.clone()))
                    .collect::<Vec<_>>()
            };
            let quick = findings("ada");
            let slow = findings("\"a\"\"b\"");
            assert_eq!(quick, slow, "{id:?} {name:?}");
            found += usize::from(!quick.is_empty());
        }
        assert!(found > 2_000, "only {found} records drew a finding");
    }
}
