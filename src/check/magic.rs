//! What a file is, told from its first bytes before it is read as CSV.
//!
//! A workbook, an archive or a PDF read as CSV text gives nonsense (a
//! "bare quote" on binary bytes, "UTF-16" from the NULs of a ZIP's
//! headers, a header that fits no format), and hides the one thing worth
//! saying: the file is not a CSV at all, and how to make one. The common
//! files uploaded by mistake are known by their magic bytes, and so is text
//! in UTF-16 or UTF-32, which the platform's UTF-8 reader cannot read
//! either. Either is one whole-file finding, and the file is not read
//! further: every other finding would be about bytes that are not rows.

use super::finding::Finding;
use crate::diagnostic::Diagnostic;
use crate::rules;

/// A kind of file that is not CSV text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A ZIP archive that is none of the documents below.
    Zip,
    /// An Excel workbook (Office Open XML: a ZIP with `xl/` parts).
    Xlsx,
    /// An OpenDocument spreadsheet (a ZIP whose first member, `mimetype`,
    /// names it).
    Ods,
    /// An OLE2 compound file: a legacy Excel workbook (`.xls`), or another
    /// Office 97-2003 document.
    Xls,
    Pdf,
    Gzip,
}

impl Kind {
    /// What the finding calls it.
    fn what(self) -> &'static str {
        match self {
            Kind::Zip => "a ZIP archive",
            Kind::Xlsx => "an Excel workbook (.xlsx)",
            Kind::Ods => "an OpenDocument spreadsheet (.ods)",
            Kind::Xls => "a legacy Excel workbook (.xls, or another Office 97-2003 file)",
            Kind::Pdf => "a PDF document",
            Kind::Gzip => "gzip-compressed",
        }
    }

    /// What to do about it.
    fn help(self) -> &'static str {
        match self {
            Kind::Zip => "a CSV upload is the CSV file itself, not zipped; an entity-rbac or entities-bulk bundle is checked by its path, named .zip (`bdxlint check bundle.zip`)",
            Kind::Xlsx | Kind::Xls => "this is an Excel workbook: open it in Excel and save it as CSV UTF-8 (File > Save As > \"CSV UTF-8 (Comma delimited)\"), then check that file",
            Kind::Ods => "this is a spreadsheet: save it as CSV (Text CSV, UTF-8, comma-separated), then check that file",
            Kind::Pdf => "a PDF cannot be uploaded: export the data as CSV UTF-8 from the system it came from",
            Kind::Gzip => "decompress it (`gunzip`) and check the CSV inside",
        }
    }
}

/// The one finding for a file whose first bytes (`head`) show it is not
/// UTF-8 CSV text: `not-csv` for a binary document or archive,
/// `unsupported-encoding` for UTF-16 or UTF-32 text. `None` for anything
/// that may be CSV.
pub(crate) fn not_csv(head: &[u8]) -> Option<Diagnostic> {
    let span = 0..head.len().min(4) as u64;
    if let Some(kind) = identify(head) {
        let message = format!("the file is {}, not a CSV file", kind.what());
        return Some(
            Finding::new(&rules::NOT_CSV, message)
                .help(kind.help())
                .file(span),
        );
    }
    let enc = wide_encoding(head)?;
    Some(Finding::from_template(&rules::UNSUPPORTED_ENCODING, &[("encoding", enc)]).file(span))
}

const ZIP_LOCAL: &[u8; 4] = b"PK\x03\x04";
const OLE2: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

/// The kind of binary file `head` starts, if it is one of the common ones.
pub(crate) fn identify(head: &[u8]) -> Option<Kind> {
    if head.starts_with(ZIP_LOCAL) {
        return Some(zip_kind(head));
    }
    // An empty archive, and a spanned one's first marker.
    if head.starts_with(b"PK\x05\x06") || head.starts_with(b"PK\x07\x08") {
        return Some(Kind::Zip);
    }
    if head.starts_with(&OLE2) {
        return Some(Kind::Xls);
    }
    if head.starts_with(b"%PDF-") {
        return Some(Kind::Pdf);
    }
    if head.starts_with(&[0x1F, 0x8B]) {
        return Some(Kind::Gzip);
    }
    None
}

/// Which document a ZIP starting with a local header is, from the names
/// of the members whose local headers `head` holds: an Excel workbook has
/// `xl/` parts (after `[Content_Types].xml`, which every Office Open XML
/// file has), an OpenDocument spreadsheet a first member `mimetype` that
/// says so, stored uncompressed.
fn zip_kind(head: &[u8]) -> Kind {
    const ODS: &[u8] = b"application/vnd.oasis.opendocument.spreadsheet";
    let mut at = 0;
    // Each step moves past a signature: linear in the head.
    while let Some(h) = local_header(head, at) {
        if h.name.starts_with(b"xl/") {
            return Kind::Xlsx;
        }
        if at == 0 && h.name == b"mimetype" && head[h.data..].starts_with(ODS) {
            return Kind::Ods;
        }
        // A member whose sizes follow its data (bit 3) has no size here:
        // the next header is found by its signature.
        let next = match h.size {
            Some(size) => h.data.saturating_add(size),
            None => h.data,
        };
        match memchr::memmem::find(head.get(next..).unwrap_or(&[]), ZIP_LOCAL) {
            Some(k) => at = next + k,
            None => break,
        }
    }
    Kind::Zip
}

/// A local file header of a ZIP in `head`, at `at`.
struct LocalHeader<'a> {
    name: &'a [u8],
    /// Where its data starts.
    data: usize,
    /// Its compressed size, when the header gives it.
    size: Option<usize>,
}

fn local_header(head: &[u8], at: usize) -> Option<LocalHeader<'_>> {
    let h = head.get(at..)?;
    if !h.starts_with(ZIP_LOCAL) || h.len() < 30 {
        return None;
    }
    let u16_at = |i: usize| usize::from(u16::from_le_bytes([h[i], h[i + 1]]));
    let flags = u16_at(6);
    let size = u32::from_le_bytes([h[18], h[19], h[20], h[21]]);
    let (name_len, extra_len) = (u16_at(26), u16_at(28));
    let name = h.get(30..30 + name_len)?;
    let data = at + 30 + name_len + extra_len;
    let size = (flags & 8 == 0 && size != u32::MAX).then_some(size as usize);
    Some(LocalHeader { name, data, size })
}

/// The wide encoding `data` (a file's first bytes) is in: UTF-32 or UTF-16
/// by a byte-order mark, or UTF-16 without one.
pub(crate) fn wide_encoding(data: &[u8]) -> Option<&'static str> {
    if data.starts_with(&[0xFF, 0xFE, 0, 0]) || data.starts_with(&[0, 0, 0xFE, 0xFF]) {
        return Some("UTF-32");
    }
    if data.starts_with(&[0xFF, 0xFE]) || data.starts_with(&[0xFE, 0xFF]) {
        return Some("UTF-16");
    }
    utf16_without_bom(data).then_some("UTF-16 (without a byte-order mark)")
}

/// Whether `data` reads as UTF-16 text without a byte-order mark. Text of
/// Latin letters in UTF-16 is pairs of bytes with a NUL on the same side,
/// from the first byte on: the header, whose names are ASCII in every
/// format. A NUL count alone took a first row of NULs after a short UTF-8
/// header for UTF-16 and left its file unchecked; a UTF-8 header has no
/// NUL at all, so it fails the first pairs whatever the rows hold.
fn utf16_without_bom(data: &[u8]) -> bool {
    const HEAD: usize = 64;
    /// Pairs at the start that must all have their NUL on one side.
    const FIRST: usize = 4;
    let head = &data[..data.len().min(HEAD) & !1];
    if head.len() < 2 * FIRST {
        return false;
    }
    let side = |pair: &[u8]| match (pair[0] == 0, pair[1] == 0) {
        (false, true) => Some(Side::Little),
        (true, false) => Some(Side::Big),
        _ => None,
    };
    let Some(first) = side(&head[..2]) else {
        return false;
    };
    let mut pairs = head.chunks_exact(2);
    if !pairs.by_ref().take(FIRST).all(|p| side(p) == Some(first)) {
        return false;
    }
    // Three pairs in four over the rest of the head: room for characters
    // beyond Latin-1.
    let same = FIRST + pairs.filter(|p| side(p) == Some(first)).count();
    same * 4 >= (head.len() / 2) * 3
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Little,
    Big,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A local header for `name` with `data` stored after it.
    fn local(name: &str, data: &[u8]) -> Vec<u8> {
        let mut h = ZIP_LOCAL.to_vec();
        h.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        h.extend_from_slice(&(data.len() as u32).to_le_bytes());
        h.extend_from_slice(&(data.len() as u32).to_le_bytes());
        h.extend_from_slice(&(name.len() as u16).to_le_bytes());
        h.extend_from_slice(&0u16.to_le_bytes());
        h.extend_from_slice(name.as_bytes());
        h.extend_from_slice(data);
        h
    }

    #[test]
    fn office_files_are_told_from_plain_zips() {
        let mut xlsx = local("[Content_Types].xml", b"<Types/>");
        xlsx.extend(local("_rels/.rels", b"<Relationships/>"));
        xlsx.extend(local("xl/workbook.xml", b"<workbook/>"));
        assert_eq!(identify(&xlsx), Some(Kind::Xlsx));
        let ods = local(
            "mimetype",
            b"application/vnd.oasis.opendocument.spreadsheet",
        );
        assert_eq!(identify(&ods), Some(Kind::Ods));
        let plain = local("entities.csv", b"App,Name\n");
        assert_eq!(identify(&plain), Some(Kind::Zip));
        // A name cut off by the end of the head ends the walk.
        assert_eq!(identify(&xlsx[..xlsx.len() - 20]), Some(Kind::Zip));
        assert_eq!(identify(b"PK\x05\x06\0\0"), Some(Kind::Zip));
        assert_eq!(identify(&OLE2), Some(Kind::Xls));
        assert_eq!(identify(b"%PDF-1.7\n"), Some(Kind::Pdf));
        assert_eq!(identify(&[0x1F, 0x8B, 8, 0]), Some(Kind::Gzip));
        assert_eq!(identify(b"PK,Name\n"), None);
        assert_eq!(identify(b"Full Name,Work Email\n"), None);
    }

    #[test]
    fn utf16_is_a_pattern_not_a_count_of_nuls() {
        let text = "Full Name,Work Email,Start Date\r\n";
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert!(utf16_without_bom(&le));
        assert!(utf16_without_bom(&be));
        // A UTF-8 header, then a first row of NULs within 64 bytes.
        let mut padded = b"Full Name,Work Email\n".to_vec();
        padded.extend_from_slice(&[0; 60]);
        assert!(!utf16_without_bom(&padded));
        // NULs alternating in the row, after a header that has none.
        let mut alternating = b"Name,Email\n".to_vec();
        alternating.extend(std::iter::repeat_n([b'a', 0], 30).flatten());
        assert!(!utf16_without_bom(&alternating));
        assert!(!utf16_without_bom(b"a\0b\0"));
    }
}
