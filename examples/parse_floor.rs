//! The parse floor of the speed targets: a bare single-threaded loop that
//! reads every record with the csv crate's `ByteRecord` reader and does
//! nothing else. `bdxlint check` is measured against it (see
//! `benches/whole-program.sh`).
//!
//! Usage: `cargo run --release --example parse_floor -- FILE`

use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args_os()
        .nth(1)
        .ok_or("usage: parse_floor FILE")?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_path(path)?;
    let mut record = csv::ByteRecord::new();
    let mut records: u64 = 0;
    let mut fields: u64 = 0;
    while reader.read_byte_record(&mut record)? {
        records += 1;
        fields += record.len() as u64;
    }
    // Printed so the loop cannot be optimised away.
    writeln!(std::io::stdout(), "{records} records, {fields} fields")?;
    Ok(())
}
