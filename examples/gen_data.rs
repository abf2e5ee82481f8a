//! Deterministic test data for the benchmarks: realistic entitlements and
//! employees exports with a sprinkling (0.1%) of bad rows.
//!
//! Usage: `cargo run --release --example gen_data -- FORMAT ROWS [IDENTITIES] > FILE`
//! where FORMAT is `entitlements`, `employees`, or `entitlements-all-bad`
//! (every row breaks a rule: the pathological input of the benchmark). The
//! same arguments always give the same bytes (a fixed-seed xorshift
//! generator, no crate needed).

use std::io::{self, BufWriter, Write};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*: fast, and deterministic across platforms.
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const DEPARTMENTS: &[&str] = &[
    "Engineering",
    "Sales",
    "Finance",
    "Support",
    "Legal, Risk & Compliance",
];
const PRIVILEGES: &[&str] = &[
    "read",
    "write",
    "admin",
    "s3:GetObject",
    "repo:push",
    "billing.view",
];
const RESOURCES: &[&str] = &[
    "prod-db",
    "acme-org/infra",
    "arn:aws:s3:::payments-reports",
    "zendesk",
    "ledger",
];

fn entitlements(out: &mut impl Write, rows: u64, identities: u64, rng: &mut Rng) -> io::Result<()> {
    writeln!(out, "Project,Privilege Name,Privilege Value,Email,User ID,Username,Name,Connection,Connection Type,Connection Provider,Connection Provider Type,Resource,Resource Type,Project Aliases")?;
    for i in 0..rows {
        let who = rng.below(identities);
        let privilege = PRIVILEGES[rng.below(PRIVILEGES.len() as u64) as usize];
        let resource = RESOURCES[rng.below(RESOURCES.len() as u64) as usize];
        let bad = rng.below(1000) == 0;
        // A bad row breaks one rule: a boolean, a missing pair or an identity conflict.
        let (value, conn_type, user) = match (bad, i % 3) {
            (true, 0) => ("yes", "group", format!("u{who}")),
            (true, 1) => ("true", "", format!("u{who}")),
            (true, _) => ("true", "group", format!("u{who}-other")),
            _ => ("true", "group", format!("u{who}")),
        };
        writeln!(
            out,
            "acme-{},{privilege},{value},user{who}@example.com,{},{user},\"User {who}, Jr.\",team-{},{conn_type},,,{resource}/{i},repository,\"acme, acme-corp\"",
            who % 7,
            100_000 + who,
            rng.below(50),
        )?;
    }
    Ok(())
}

/// Every row wrong, each in one of four ways in turn: a boolean, an
/// e-mail address, a missing Connection Type beside its Connection, and
/// an identity conflict (the previous row's e-mail and username with
/// another User ID, so that there is always an earlier row to conflict
/// with).
fn entitlements_all_bad(
    out: &mut impl Write,
    rows: u64,
    identities: u64,
    rng: &mut Rng,
) -> io::Result<()> {
    writeln!(out, "Project,Privilege Name,Privilege Value,Email,User ID,Username,Name,Connection,Connection Type,Connection Provider,Connection Provider Type,Resource,Resource Type,Project Aliases")?;
    let mut previous = 0;
    for i in 0..rows {
        let fresh = rng.below(identities);
        let privilege = PRIVILEGES[rng.below(PRIVILEGES.len() as u64) as usize];
        let resource = RESOURCES[rng.below(RESOURCES.len() as u64) as usize];
        let (who, value, at, conn_type, id) = match i % 4 {
            0 => (fresh, "yes", "@", "group", 100_000 + fresh),
            1 => (fresh, "true", ".", "group", 100_000 + fresh),
            2 => (fresh, "true", "@", "", 100_000 + fresh),
            _ => (previous, "true", "@", "group", 900_000 + i),
        };
        previous = who;
        writeln!(
            out,
            "acme-{},{privilege},{value},user{who}{at}example.com,{id},u{who},\"User {who}, Jr.\",team-{},{conn_type},,,{resource}/{i},repository,\"acme, acme-corp\"",
            who % 7,
            rng.below(50),
        )?;
    }
    Ok(())
}

fn employees(out: &mut impl Write, rows: u64, rng: &mut Rng) -> io::Result<()> {
    writeln!(out, "Employee ID,Full Name,First Name,Last Name,Work Email,Department,Title,Start Date,End Date,Employment Type,Manager,Manager Work Email,Source,Source Employee ID,Platform Roles,Metadata Version,Metadata")?;
    for i in 0..rows {
        let dept = DEPARTMENTS[rng.below(DEPARTMENTS.len() as u64) as usize];
        let bad = rng.below(1000) == 0;
        let start = if bad {
            "2024-03-07".to_owned()
        } else {
            format!(
                "{:02}/{:02}/{}",
                1 + rng.below(12),
                1 + rng.below(28),
                2000 + rng.below(25)
            )
        };
        let boss = rng.below(rows.max(1));
        writeln!(
            out,
            "E-{i},\"Person {i}\",Person,{i},person{i}@example.com,\"{dept}\",Engineer,{start},,full-time,Person {boss},person{boss}@example.com,workday,{i},\"reviewer, admin\",v1,\"{{\"\"location\"\":{{\"\"address\"\":\"\"{} Main St, Springfield\"\"}},\"\"role id\"\":\"\"r-{}\"\",\"\"manager id\"\":\"\"E-{boss}\"\",\"\"tenant\"\":\"\"acme\"\"}}\"",
            rng.below(9999),
            rng.below(40),
        )?;
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: gen_data entitlements|employees|entitlements-all-bad ROWS [IDENTITIES]";
    let format = args.first().ok_or(usage)?;
    let rows: u64 = args.get(1).ok_or(usage)?.parse()?;
    let identities: u64 = match args.get(2) {
        Some(n) => n.parse()?,
        None => (rows / 10).max(1),
    };
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 20, stdout.lock());
    match format.as_str() {
        "entitlements" => entitlements(&mut out, rows, identities, &mut rng)?,
        "employees" => employees(&mut out, rows, &mut rng)?,
        "entitlements-all-bad" => entitlements_all_bad(&mut out, rows, identities, &mut rng)?,
        _ => return Err(usage.into()),
    }
    out.flush()?;
    Ok(())
}
