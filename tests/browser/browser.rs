//! The HTML report in a real browser: headless Chromium opens each report
//! from disk, runs its script, and dumps the DOM (`--dump-dom`) or a
//! screenshot. A package of its own (see its `Cargo.toml`): it runs the
//! binary the main package's tests built (`target/<profile>/bdxlint`, or
//! the path in `BDXLINT_BIN`), and Chromium (`chromium` on the `PATH`, or
//! the path in `CHROMIUM`), which `.ci/run` installs.
//!
//! What is checked: the counts the rendered page shows per file and per
//! rule are the JSON output's, on the bundled example, a ZIP bundle and a
//! batch directory; the script ran and the style sheet applied under the
//! page's Content-Security-Policy; the filters hide what they should; cells
//! and file names holding markup stay text (no element made, no script
//! run, the title unchanged); no request leaves the page (a local listener
//! the hostile cells point at is never called, and the policy blocks one
//! planted in the page, which the same page without it makes); and
//! screenshots at a desktop and a phone width.

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The main package's directory (this one is `tests/browser/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where this package's outputs go (screenshots): `target/browser/`.
fn out_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let profile = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps/");
    let dir = profile.join("../browser");
    std::fs::create_dir_all(&dir).expect("target/browser");
    dir
}

/// `bdxlint`, as the root's tests built it (see the schema tests).
fn bdxlint() -> Command {
    let bin = std::env::var_os("BDXLINT_BIN").map_or_else(
        || {
            let exe = std::env::current_exe().expect("the test's path");
            let profile = exe
                .parent()
                .and_then(Path::parent)
                .expect("target/<profile>/deps/");
            profile.join(format!("bdxlint{}", std::env::consts::EXE_SUFFIX))
        },
        PathBuf::from,
    );
    assert!(
        bin.is_file(),
        "{}: no binary; build it first (`cargo build`, or the root's `cargo test`)",
        bin.display()
    );
    let mut c = Command::new(bin);
    c.env_remove("NO_COLOR").env_remove("BDXLINT_OUTPUT_FORMAT");
    c
}

/// The report of `args` in `format`, run in `dir`.
fn report(dir: &Path, format: &str, args: &[&str]) -> String {
    let out = bdxlint()
        .current_dir(dir)
        .args(["check", "--isolated", "--output-format", format])
        .args(args)
        .output()
        .expect("runs");
    assert!(
        matches!(out.status.code(), Some(0..=2)),
        "{format} {args:?}: {out:?}"
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// Headless Chromium on `page` (a file, with an optional `#fragment`)
/// with `what` (`--dump-dom`, `--screenshot=...`), in a fresh profile and
/// with everything that would reach for the network off (the closed
/// network otherwise makes it wait on lookups). Returns standard output.
fn chromium(page: &Path, fragment: &str, what: &[&str]) -> String {
    let bin = std::env::var_os("CHROMIUM").unwrap_or_else(|| "chromium".into());
    let profile = tempfile::tempdir().expect("profile");
    let url = format!("file://{}{fragment}", page.display());
    let mut c = Command::new(&bin);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .args(what)
    .arg(&url);
    // A page that waits on something never ends on its own: a test fails
    // after two minutes rather than hanging.
    let child = c
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e} (install chromium)", bin.to_string_lossy()));
    let id = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out = match rx.recv_timeout(Duration::from_secs(120)) {
        Ok(out) => out.expect("chromium ran"),
        Err(_) => {
            let _ = Command::new("kill").arg(id.to_string()).status();
            panic!("chromium {what:?} {url}: no end after 120 s");
        }
    };
    assert!(out.status.success(), "chromium {what:?} {url}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The DOM of `html` after its script ran, opened at `fragment`.
fn dom(html: &str, fragment: &str) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let page = dir.path().join("report.html");
    std::fs::write(&page, html).expect("write");
    let dom = chromium(&page, fragment, &["--dump-dom"]);
    assert!(dom.contains("</html>"), "no DOM: {dom}");
    dom
}

/// The start tags of `dom` that begin with `prefix` (`<section class="file"`),
/// each as its attributes (Chromium writes them `name="value"`, with `&`
/// and `"` escaped).
fn tags(dom: &str, prefix: &str) -> Vec<BTreeMap<String, String>> {
    dom.match_indices(prefix)
        .map(|(at, _)| {
            let tag = &dom[at..at + dom[at..].find('>').expect("tag ends")];
            attributes(tag)
        })
        .collect()
}

fn attributes(tag: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = tag.split_once(' ').map_or("", |(_, r)| r);
    while let Some(eq) = rest.find("=\"") {
        let name = rest[..eq].trim().to_owned();
        let after = &rest[eq + 2..];
        let end = after.find('"').expect("quoted");
        let value = after[..end]
            .replace("&quot;", "\"")
            .replace("&nbsp;", "\u{a0}")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&");
        out.insert(name, value);
        rest = &after[end + 1..];
    }
    out
}

fn number(v: Option<&String>) -> u64 {
    v.and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{v:?}"))
}

/// `s` as the page writes a name in an attribute: characters that would
/// hide or reorder text as visible escapes (`src/report/html/text.rs`).
fn visible(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        let hidden = c.is_control()
            || matches!(c, '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}');
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if hidden && (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if hidden => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Per file (`path` or `path:member`, [`visible`]) and per rule, the JSON
/// output's counts.
fn json_counts(json: &str) -> (BTreeMap<String, u64>, BTreeMap<String, u64>) {
    let v: Value = serde_json::from_str(json).expect("JSON");
    let mut files = BTreeMap::new();
    let mut rules = BTreeMap::new();
    for f in v["files"].as_array().expect("files") {
        if f.get("error").is_some() {
            continue;
        }
        let mut name = f["path"].as_str().expect("path").to_owned();
        if let Some(m) = f["member"].as_str() {
            name = format!("{name}:{m}");
        }
        let diags = f["diagnostics"].as_array().expect("diagnostics");
        *files.entry(visible(&name)).or_insert(0) += diags.len() as u64;
        for d in diags {
            *rules
                .entry(d["code"].as_str().expect("code").to_owned())
                .or_insert(0) += 1;
        }
    }
    (files, rules)
}

/// Per file and per rule, the counts the rendered page holds.
fn dom_counts(dom: &str) -> (BTreeMap<String, u64>, BTreeMap<String, u64>) {
    let mut files = BTreeMap::new();
    for a in tags(dom, "<section class=\"file\"") {
        let mut name = a["data-path"].clone();
        if let Some(m) = a.get("data-member") {
            name = format!("{name}:{m}");
        }
        let count = number(a.get("data-count"));
        let by_sev: u64 = ["data-errors", "data-warnings", "data-infos"]
            .iter()
            .map(|k| number(a.get(*k)))
            .sum();
        assert_eq!(count, by_sev, "{name}");
        *files.entry(name).or_insert(0) += count;
    }
    let mut rules = BTreeMap::new();
    for a in tags(dom, "<section class=\"rule\"") {
        rules.insert(a["data-rule"].clone(), number(a.get("data-count")));
    }
    (files, rules)
}

/// The script ran, its style sheet applied, nothing was blocked, and the
/// count it shows is every finding's.
fn assert_live(dom: &str, total: u64) {
    let html = &tags(dom, "<html")[0];
    assert_eq!(
        html.get("data-js").map(String::as_str),
        Some("on"),
        "script"
    );
    assert_eq!(
        html.get("data-styled").map(String::as_str),
        Some("yes"),
        "style"
    );
    assert_eq!(html.get("data-csp-violations"), None, "{html:?}");
    let shown = &tags(dom, "<output id=\"shown\"")[0];
    assert_eq!(number(shown.get("data-shown")), total);
    let filters = &tags(dom, "<div id=\"filters\"")[0];
    assert!(!filters.contains_key("hidden"), "the filters are shown");
}

/// The JSON's counts equal the rendered page's, per file and per rule.
fn counts_agree(dir: &Path, args: &[&str]) -> (String, BTreeMap<String, u64>) {
    let (files, rules) = json_counts(&report(dir, "json", args));
    let html = report(dir, "html", args);
    let dom = dom(&html, "");
    let (dom_files, dom_rules) = dom_counts(&dom);
    assert_eq!(dom_files, files, "{args:?}");
    assert_eq!(dom_rules, rules, "{args:?}");
    let total = rules.values().sum();
    assert!(total > 0, "{args:?}: the input has findings");
    assert_live(&dom, total);
    (html, rules)
}

/// A ZIP bundle whose members have findings of their own: a failing
/// entities fixture and relations that point at nothing.
fn bundle(dir: &Path) {
    let root = root();
    let entities = std::fs::read(root.join("testdata/entities/invalid-enum.csv")).expect("fixture");
    let relations = "Parent Entity Integration ID,Parent Entity Source ID,Parent Entity Type,Entity Integration ID,Entity Source ID,Entity Type,Source System,Metadata Version,Metadata\n\
        okta/0b6c1e2a,no-such-role,role,github/int-0001,no-such-team,connection,okta,,\n";
    let file = std::fs::File::create(dir.join("rbac.zip")).expect("zip");
    let mut w = zip::ZipWriter::new(file);
    let opts = zip::write::SimpleFileOptions::default();
    for (name, data) in [
        ("entities.csv", &entities[..]),
        ("relations.csv", relations.as_bytes()),
    ] {
        w.start_file(name, opts).expect("member");
        w.write_all(data).expect("write");
    }
    w.finish().expect("finish");
}

#[test]
fn counts_in_the_page_are_the_json_counts() {
    let root = root();
    counts_agree(&root, &["testdata/example/"]);
    counts_agree(&root, &["testdata/batch/failing/"]);
    let dir = tempfile::tempdir().expect("tempdir");
    bundle(dir.path());
    counts_agree(dir.path(), &["rbac.zip"]);
}

/// The filters, set from the page's address as a person sets them: only
/// the rows, samples and rules of the chosen severity, rule or file stay,
/// and the count shown is theirs.
#[test]
fn filters_hide_what_is_not_chosen() {
    let root = root();
    let args = ["testdata/example/"];
    let v: Value = serde_json::from_str(&report(&root, "json", &args)).expect("JSON");
    let diags: Vec<&Value> = v["files"]
        .as_array()
        .expect("files")
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().expect("diagnostics"))
        .collect();
    let html = report(&root, "html", &args);
    for (fragment, key, want) in [
        ("#sev=warning", "data-sev", "warning"),
        ("#sev=error", "data-sev", "error"),
        ("#rule=C004", "data-rule", "C004"),
    ] {
        let dom = dom(&html, fragment);
        let json_key = if key == "data-sev" {
            "severity"
        } else {
            "code"
        };
        let expected = diags.iter().filter(|d| d[json_key] == want).count() as u64;
        let rows = tags(&dom, "<tr class=\"g\"");
        assert!(!rows.is_empty());
        let mut shown = 0;
        for r in &rows {
            let visible = !r.contains_key("hidden");
            assert_eq!(visible, r[key] == want, "{fragment}: {r:?}");
            if visible {
                shown += number(r.get("data-count"));
            }
        }
        assert_eq!(shown, expected, "{fragment}");
        let out = &tags(&dom, "<output id=\"shown\"")[0];
        assert_eq!(number(out.get("data-shown")), expected, "{fragment}");
        for s in tags(&dom, "<section class=\"group") {
            assert_eq!(
                !s.contains_key("hidden"),
                s[key] == want,
                "{fragment}: {s:?}"
            );
        }
    }
    // One file: the other's section is hidden.
    let dom = dom(&html, "#file=1");
    let files = tags(&dom, "<section class=\"file\"");
    assert_eq!(files.len(), 2);
    assert!(files[0].contains_key("hidden"));
    assert!(!files[1].contains_key("hidden"));
}

/// Cells that would be markup, script, a link or invisible, and a file
/// name like them; `port` is a listener's, which some of them point at.
fn hostile_dir(port: u16) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let hostile = [
        "<script>document.title=\"pwned\"</script>".to_owned(),
        "<img src=x onerror=\"document.title='pwned'\">".to_owned(),
        format!("<img src=\"http://127.0.0.1:{port}/img\">"),
        format!("<link rel=stylesheet href=\"http://127.0.0.1:{port}/css\">"),
        format!("<style>@import url(http://127.0.0.1:{port}/import);</style>"),
        "</style><b id=\"bold\">x</b>".to_owned(),
        "\"q'uo\"\"te".to_owned(),
        "javascript:alert(1)".to_owned(),
        "a\u{2028}b".to_owned(),
        "\u{202e}gnp.exe".to_owned(),
        "\u{1b}[31mred".to_owned(),
        "nul\0byte".to_owned(),
    ];
    let mut csv = String::from("Project,Privilege Name,Privilege Value,Email,User ID,Username,Name,Connection,Connection Type,Resource,Resource Type,Project Aliases\n");
    for (k, h) in hostile.iter().enumerate() {
        let q = format!("\"{}\"", h.replace('"', "\"\""));
        csv.push_str(&format!(
            "acme,s3:GetObject,{q},{q},u-{k},u{k},User,readers,group,bucket,bucket,\n"
        ));
    }
    // No `/` in a file name: the markup alone.
    let name = "<img src=x onerror=\"document.title='pwned'\">\u{202e}.csv";
    std::fs::write(dir.path().join(name), csv).expect("write");
    dir
}

/// A local HTTP server that answers every request with an empty 404
/// and counts them: what the page would fetch, it fetches from here.
struct Server {
    port: u16,
    hits: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Server {
    fn start() -> Server {
        use std::io::Read;
        use std::sync::atomic::Ordering;
        let listener = TcpListener::bind("127.0.0.1:0").expect("listener");
        let port = listener.local_addr().expect("address").port();
        let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = hits.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                counted.fetch_add(1, Ordering::SeqCst);
                let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf);
                let _ = stream.write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
            }
        });
        Server { port, hits }
    }

    fn hits(&self) -> usize {
        self.hits.load(std::sync::atomic::Ordering::SeqCst)
    }
}

#[test]
fn hostile_cells_and_names_render_as_text() {
    let server = Server::start();
    let dir = hostile_dir(server.port);
    // Every finding a sample (JSON's cap of 50 a file cuts none of its 26).
    let args = ["--format", "entitlements", "--max-diagnostics", "50", "."];
    let (html, rules) = counts_agree(dir.path(), &args);
    let dom = dom(&html, "");
    assert!(
        dom.contains("<title>bdxlint report</title>"),
        "title changed"
    );
    assert_eq!(dom.matches("<script").count(), 1, "one script, ours");
    assert_eq!(dom.matches("<style").count(), 1, "one style sheet, ours");
    for element in ["<img", "<link", "<b id=", "<a href=\"javascript"] {
        assert!(!dom.contains(element), "{element} became an element");
    }
    for shown in [
        "&lt;script&gt;document.title=\"pwned\"&lt;/script&gt;",
        "&lt;/style&gt;&lt;b id=\"bold\"&gt;x&lt;/b&gt;",
        "javascript:alert(1)",
        "<span class=\"esc\">\\u{2028}</span>",
        "<span class=\"esc\">\\u{202e}</span>gnp.exe",
        "<span class=\"esc\">\\x1b</span>[31mred",
        "nul<span class=\"esc\">\\x00</span>byte",
    ] {
        assert!(dom.contains(shown), "{shown} not shown");
    }
    assert!(rules.values().sum::<u64>() >= 12);
    // Nothing the cells point at was fetched.
    assert_eq!(server.hits(), 0, "the page made a request");
    let shot = out_dir().join("hostile.png");
    let page = dir.path().join("report.html");
    std::fs::write(&page, &html).expect("write");
    chromium(
        &page,
        "",
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1280,1600",
        ],
    );
    assert!(std::fs::metadata(&shot).expect("screenshot").len() > 10_000);
}

/// The policy is what keeps requests in: a request planted in the page is
/// blocked (and reported to the page), and the same page without the
/// policy makes it, so the listener would have seen one.
#[test]
fn the_policy_blocks_every_request() {
    let server = Server::start();
    let html = report(&root(), "html", &["testdata/example/"]);
    let planted = html.replacen(
        "<main>",
        &format!(
            "<main><img src=\"http://127.0.0.1:{}/planted\" alt=\"\">",
            server.port
        ),
        1,
    );
    let d = dom(&planted, "");
    let root_tag = &tags(&d, "<html")[0];
    assert_eq!(
        root_tag.get("data-csp-violations").map(String::as_str),
        Some("1"),
        "{root_tag:?}"
    );
    assert_eq!(server.hits(), 0, "the policy let a request through");
    // The control: without the policy the same image is fetched.
    let start = planted.find("<meta http-equiv").expect("policy");
    let end = start + planted[start..].find('>').expect("tag ends") + 1;
    let mut open = planted.clone();
    open.replace_range(start..end, "");
    let _ = dom(&open, "");
    assert!(
        server.hits() >= 1,
        "without the policy the planted image was not fetched: the server sees nothing"
    );
}

/// Screenshots of the bundled example's report at a desktop and a phone
/// width, in `target/browser/`; with `BDXLINT_SCREENSHOT=1` the desktop one
/// also becomes the README's `docs/report.png`.
#[test]
fn screenshots_at_desktop_and_narrow_widths() {
    let root = root();
    let html = report(&root, "html", &["testdata/example/"]);
    let dir = tempfile::tempdir().expect("tempdir");
    let page = dir.path().join("report.html");
    std::fs::write(&page, &html).expect("write");
    for (name, size) in [("desktop", "1280,1500"), ("narrow", "390,1500")] {
        let shot = out_dir().join(format!("report-{name}.png"));
        let _ = std::fs::remove_file(&shot);
        chromium(
            &page,
            "",
            &[
                &format!("--screenshot={}", shot.display()),
                &format!("--window-size={size}"),
            ],
        );
        let png = std::fs::read(&shot).expect("screenshot");
        assert!(png.starts_with(b"\x89PNG"), "{name}");
        assert!(png.len() > 10_000, "{name}: {} bytes", png.len());
    }
    if std::env::var_os("BDXLINT_SCREENSHOT").is_some() {
        std::fs::copy(
            out_dir().join("report-desktop.png"),
            root.join("docs/report.png"),
        )
        .expect("docs/report.png");
    }
}
