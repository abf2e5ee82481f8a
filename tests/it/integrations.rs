//! The pre-commit hook manifest and the GitHub Action's run script, as
//! pre-commit and the runner use them.

use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `key: value` of each hook of the manifest, read without a YAML crate:
/// the manifest is a flat list of scalars, and this test keeps it so.
fn hooks() -> Vec<Vec<(String, String)>> {
    hooks_of(".pre-commit-hooks.yaml")
}

/// The hooks of the manifest at `rel` (the root's, or the hook mirror's).
fn hooks_of(rel: &str) -> Vec<Vec<(String, String)>> {
    let text =
        std::fs::read_to_string(Path::new(ROOT).join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let mut hooks: Vec<Vec<(String, String)>> = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let t = match t.strip_prefix("- ") {
            Some(rest) => {
                hooks.push(Vec::new());
                rest
            }
            None => t,
        };
        let (k, v) = t.split_once(": ").expect("key: value");
        let v = v.trim();
        let v = v
            .strip_prefix('\'')
            .and_then(|v| v.strip_suffix('\''))
            .unwrap_or(v);
        hooks
            .last_mut()
            .expect("a hook starts with `- `")
            .push((k.to_owned(), v.to_owned()));
    }
    hooks
}

/// The manifest's first hook, the one the README's snippet names.
fn hook() -> Vec<(String, String)> {
    hooks().swap_remove(0)
}

fn get<'a>(hook: &'a [(String, String)], key: &str) -> &'a str {
    hook.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("hook has no {key}"))
}

#[test]
fn the_hook_manifest_has_what_pre_commit_needs() {
    let all = hooks();
    let ids: Vec<&str> = all.iter().map(|h| get(h, "id")).collect();
    assert_eq!(ids, ["bdxlint", "bdxlint-system"]);
    // A script that builds bdxlint from Cargo.lock in pre-commit's clone.
    assert_eq!(get(&all[0], "language"), "script");
    assert_eq!(get(&all[0], "entry"), "scripts/pre-commit-hook.sh");
    // The same hook with the bdxlint on PATH.
    assert_eq!(get(&all[1], "language"), "system");
    assert_eq!(
        get(&all[1], "entry"),
        "bdxlint check --force-exclude --strict-detection"
    );
    for h in &all {
        for key in ["files", "types_or", "require_serial"] {
            assert_eq!(get(h, key), get(&all[0], key), "{key}");
        }
    }
    let h = hook();
    assert_eq!(get(&h, "require_serial"), "true");
    // pre-commit passes staged files by name: --force-exclude makes the
    // user's `exclude` apply to them, and --strict-detection takes a staged
    // CSV as a format only on a walk's evidence.
    let script = std::fs::read_to_string(Path::new(ROOT).join("scripts/pre-commit-hook.sh"))
        .expect("the hook script");
    assert!(script.contains("exec \"$bin\" check --force-exclude --strict-detection \"$@\""));
    // The script builds the root package's bdxlint binary.
    let manifest = std::fs::read_to_string(Path::new(ROOT).join("Cargo.toml")).expect("Cargo.toml");
    assert!(manifest.starts_with("[package]\n"), "not a package");
    assert!(
        manifest.contains("[[bin]]\nname = \"bdxlint\"\n"),
        "no bdxlint binary"
    );
    // pre-commit matches `files` with Python's re.search; this regex means
    // the same in Rust's syntax.
    let files = regex::Regex::new(get(&h, "files")).expect("files is a regex");
    for yes in [
        "employees.csv",
        "uploads/a.b.csv",
        "rbac/bundle.zip",
        "HR Export.CSV",
        "b.Zip",
    ] {
        assert!(files.is_match(yes), "{yes}");
    }
    for no in ["notes.txt", "csv", "a.csv.bak"] {
        assert!(!files.is_match(no), "{no}");
    }
    // A user's `files:` replaces the hook's; the types keep non-CSV files
    // out (types_or needs pre-commit 2.9).
    assert_eq!(get(&h, "types_or"), "[csv, zip]");
    assert_eq!(get(&h, "minimum_pre_commit_version"), "2.9.0");
    let keys: Vec<&str> = h.iter().map(|(k, _)| k.as_str()).collect();
    for k in &keys {
        assert!(
            [
                "id",
                "name",
                "description",
                "entry",
                "language",
                "files",
                "types_or",
                "minimum_pre_commit_version",
                "require_serial"
            ]
            .contains(k),
            "unexpected key {k}"
        );
    }
}

/// pre-commit's clone of this repository with bdxlint already built in its
/// target directory (this test's binary), as after the hook's first run.
fn built_clone() -> tempfile::TempDir {
    let clone = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(clone.path().join("scripts")).expect("mkdir");
    std::fs::copy(
        Path::new(ROOT).join("scripts/pre-commit-hook.sh"),
        clone.path().join("scripts/pre-commit-hook.sh"),
    )
    .expect("copy the script");
    let release = clone.path().join("target/release");
    std::fs::create_dir_all(&release).expect("mkdir");
    // A link, not a copy: a copy is a file this process holds open for
    // writing, and a child forked meanwhile by another test of this crate
    // inherits that descriptor until it execs, so running the copy can
    // fail with ETXTBSY ("Text file busy").
    #[cfg(unix)]
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_bdxlint"), release.join("bdxlint"))
        .expect("link");
    #[cfg(not(unix))]
    std::fs::copy(env!("CARGO_BIN_EXE_bdxlint"), release.join("bdxlint")).expect("copy");
    clone
}

/// Runs the hook's `entry` as pre-commit does, from the user's repository:
/// the entry (the script in pre-commit's clone), the user's `args`, then
/// the file names.
fn run_entry_in(root: &Path, args: &[&str], files: &[String]) -> std::process::Output {
    let h = hook();
    let clone = built_clone();
    Command::new("bash")
        .arg(clone.path().join(get(&h, "entry")))
        .current_dir(root)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("FORCE_COLOR")
        .args(args)
        .args(files)
        .output()
        .expect("runs")
}

/// On first use the script builds bdxlint in the clone with the lock file
/// (`cargo build --locked`, into the clone's own target directory), then
/// runs it; a `cargo` that records its arguments stands in for the build.
#[cfg(unix)]
#[test]
fn the_hook_builds_from_the_lock_file_on_first_use() {
    let clone = built_clone();
    std::fs::remove_file(clone.path().join("target/release/bdxlint")).expect("rm");
    let bin = tempfile::tempdir().expect("tempdir");
    let log = bin.path().join("cargo.args");
    let cargo = bin.path().join("cargo");
    std::fs::write(
        &cargo,
        format!(
            "#!/bin/sh\necho \"$@\" > '{}'\ncp '{}' '{}'\n",
            log.display(),
            env!("CARGO_BIN_EXE_bdxlint"),
            clone.path().join("target/release/bdxlint").display()
        ),
    )
    .expect("fake cargo");
    let out = Command::new("chmod")
        .arg("+x")
        .arg(&cargo)
        .status()
        .expect("chmod");
    assert!(out.success());
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg(clone.path().join("scripts/pre-commit-hook.sh"))
        .arg("testdata/employees/valid.csv")
        .current_dir(ROOT)
        .env("PATH", path)
        .env("CARGO_TARGET_DIR", bin.path())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let args = std::fs::read_to_string(&log).expect("cargo ran");
    assert!(args.starts_with("build --locked --release"), "{args}");
    assert!(
        args.contains(&format!("--target-dir {}/target", clone.path().display())),
        "the clone's own target, whatever CARGO_TARGET_DIR says: {args}"
    );
}

/// pre-commit names every staged CSV, so the hook takes one as a format
/// only on the evidence a walk needs: a CSV that is not an upload is one
/// `unknown-format` warning, an upload that lost a required column still
/// blocks the commit.
#[test]
fn the_hook_passes_a_staged_csv_that_is_not_an_upload() {
    let root = tempfile::tempdir().expect("tempdir");
    std::fs::write(root.path().join("ids.csv"), "id,val\n1,2\n").expect("write");
    std::fs::write(
        root.path().join("more.csv"),
        "Employee ID,Full Name,Work Email,Department\nE-1,Ada Lovelace,ada@example.com,Engineering\n",
    )
    .expect("write");
    let out = run_entry_in(root.path(), &["--isolated"], &["ids.csv".to_owned()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(stdout.contains("F008"), "{stdout}");
    let out = run_entry_in(
        root.path(),
        &["--isolated"],
        &["ids.csv".to_owned(), "more.csv".to_owned()],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(stdout.contains("H001"), "{stdout}");
}

fn run_entry(files: &[&str]) -> std::process::Output {
    let files: Vec<String> = files.iter().map(|f| (*f).to_owned()).collect();
    run_entry_in(Path::new(ROOT), &[], &files)
}

/// The files pre-commit would pass: every file of the repository (relative,
/// `/`-separated, as `git ls-files` prints them) that `files` matches (the
/// user's, which replaces the hook's, as pre-commit merges a hook's
/// settings) and whose identify tags meet `types_or`, sorted.
fn staged(root: &Path, user_files: Option<&str>) -> Vec<String> {
    fn all(dir: &Path, root: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).expect("read_dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                all(&p, root, out);
            } else {
                let rel = p.strip_prefix(root).expect("below root");
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let h = hook();
    let files = regex::Regex::new(user_files.unwrap_or(get(&h, "files"))).expect("regex");
    let types_or: Vec<&str> = get(&h, "types_or")
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split(',')
        .map(str::trim)
        .collect();
    // identify's tags for the extensions that matter here: a file's
    // lowercased extension, `csv` or `zip`, is its type tag.
    let tags = |f: &str| -> Vec<String> {
        Path::new(f)
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .filter(|e| e == "csv" || e == "zip")
            .into_iter()
            .collect()
    };
    let mut out = Vec::new();
    all(root, root, &mut out);
    out.retain(|f| files.is_match(f) && tags(f).iter().any(|t| types_or.contains(&t.as_str())));
    out.sort();
    out
}

fn fixture(rel: &str) -> Vec<u8> {
    std::fs::read(Path::new(ROOT).join("testdata").join(rel)).expect("fixture")
}

fn put(root: &Path, rel: &str, data: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, data).expect("write");
}

/// A user's repository: the README's pre-commit snippet (`files: ^uploads/`,
/// a baseline in `args`), a bdxlint.toml that excludes known-broken
/// fixtures, a clean upload and a ZIP bundle, and files the hook must not
/// see.
#[test]
fn the_hook_runs_as_pre_commit_would_in_a_users_repository() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    put(
        root,
        "uploads/employees.csv",
        &fixture("employees/valid.csv"),
    );
    put(
        root,
        "uploads/fixtures/broken.csv",
        &fixture("example/employees.csv"),
    );
    put(root, "uploads/notes.txt", b"not a CSV");
    put(
        root,
        "elsewhere/broken.csv",
        &fixture("example/employees.csv"),
    );
    put(root, "bdxlint.toml", b"exclude = [\"fixtures\"]\n");
    {
        let f = std::fs::File::create(root.join("uploads/rbac.zip")).expect("zip");
        let mut w = zip::ZipWriter::new(f);
        for (name, rel) in [
            ("entities.csv", "entities/valid.csv"),
            ("relations.csv", "entity-rbac-relations/valid.csv"),
        ] {
            w.start_file(name, zip::write::SimpleFileOptions::default())
                .expect("member");
            std::io::Write::write_all(&mut w, &fixture(rel)).expect("write");
        }
        w.finish().expect("finish");
    }
    assert_eq!(
        staged(root, None).len(),
        4,
        "elsewhere/ too without the user's files"
    );
    let files = staged(root, Some("^uploads/"));
    assert_eq!(
        files,
        [
            "uploads/employees.csv",
            "uploads/fixtures/broken.csv",
            "uploads/rbac.zip"
        ]
    );
    // No baseline yet: the bundle's undefined roles are warnings, so the
    // hook passes, and the excluded fixture is not checked although named.
    let out = run_entry_in(root, &[], &files);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(!stdout.contains("broken.csv"), "{stdout}");
    assert!(
        stdout.contains("uploads/rbac.zip:relations.csv:5:15"),
        "{stdout}"
    );
    // Record a baseline, then commit a new finding: only it fails the hook.
    let out = run_entry_in(
        root,
        &["--write-baseline", ".bdxlint-baseline.json"],
        &files,
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let args = ["--baseline", ".bdxlint-baseline.json"];
    let out = run_entry_in(root, &args, &files);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8(fixture("employees/valid.csv")).expect("utf-8");
    let mut lines: Vec<&str> = text.lines().collect();
    let bad = lines[1].replacen("@example.com", "@example", 1);
    lines.push(&bad);
    put(
        root,
        "uploads/employees.csv",
        (lines.join("\n") + "\n").as_bytes(),
    );
    let out = run_entry_in(root, &args, &files);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("error(C003) invalid-email"), "{stdout}");
    assert!(stdout.contains("1 error, 0 warnings, 0 infos"), "{stdout}");
}

#[test]
fn the_hook_entry_fails_on_findings_and_passes_clean_files() {
    let out = run_entry(&[
        "testdata/example/employees.csv",
        "testdata/example/entitlements.csv",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("4 errors, 2 warnings, 0 infos in 2 files"),
        "{stdout}"
    );
    let out = run_entry(&[
        "testdata/employees/valid.csv",
        "testdata/entitlements/valid.csv",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

fn action(format: &str, dir: &Path) -> (std::process::Output, String) {
    action_on(
        format,
        dir,
        "testdata/example/employees.csv\ntestdata/example/entitlements.csv",
    )
}

fn action_on(format: &str, dir: &Path, paths: &str) -> (std::process::Output, String) {
    let path = path_with_binary();
    let gh_output = dir.join("github_output");
    let out = Command::new("bash")
        .arg(Path::new(ROOT).join("scripts/action-run.sh"))
        .current_dir(ROOT)
        .env("PATH", path)
        .env("BDXLINT_PATHS", paths)
        .env("BDXLINT_FORMAT", format)
        .env("BDXLINT_ARGS", "--ignore X")
        .env("BDXLINT_SARIF_FILE", dir.join("out.sarif"))
        .env("GITHUB_OUTPUT", &gh_output)
        .output()
        .expect("bash runs");
    let outputs = std::fs::read_to_string(&gh_output).unwrap_or_default();
    (out, outputs)
}

#[test]
fn the_action_script_annotates_and_fails_on_findings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, outputs) = action("github", dir.path());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 6);
    assert!(stdout.starts_with(
        "::error file=testdata/example/employees.csv,line=4,col=21,endColumn=41,title=C003 invalid-email::"
    ));
    assert_eq!(outputs, "exit-code=1\n");
}

/// `paths: |` in a workflow gives one path per line: every line is
/// checked, not only the first.
#[test]
fn the_action_script_reads_paths_over_several_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, outputs) = action_on(
        "github",
        dir.path(),
        "testdata/example/employees.csv\ntestdata/example/entitlements.csv\n",
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 6, "{stdout}");
    assert_eq!(outputs, "exit-code=1\n");
}

#[test]
fn the_action_script_writes_sarif_for_upload() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, outputs) = action("sarif", dir.path());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let sarif = dir.path().join("out.sarif");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).expect("SARIF written"))
            .expect("JSON");
    assert_eq!(doc["runs"][0]["results"].as_array().map(Vec::len), Some(6));
    assert_eq!(
        outputs,
        format!(
            "sarif-file={}\ncategory=bdxlint:testdata/example/employees.csv,testdata/example/entitlements.csv\nsarif-ready=true\nexit-code=1\n",
            sarif.display()
        )
    );
    // The step's log says what was found and where it went: a red step in
    // SARIF mode is never silent.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bdxlint: 4 errors, 2 warnings, 0 infos in 2 files")
            && stderr.contains("uploaded to code scanning"),
        "{stderr}"
    );
    // A file that cannot be read (exit 2) still leaves a whole log, which
    // lists it, for the upload.
    let partial = tempfile::tempdir().expect("tempdir");
    let (out, outputs) = action_on(
        "sarif",
        partial.path(),
        "testdata/example/employees.csv\nno-such-file.csv",
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(outputs.contains("sarif-ready=true"), "{outputs}");
    let doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(partial.path().join("out.sarif")).expect("SARIF written"),
    )
    .expect("JSON");
    let notes = &doc["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    assert_eq!(notes.as_array().map(Vec::len), Some(1), "{notes}");
    // A usage error writes no log, and nothing is uploaded.
    let usage = tempfile::tempdir().expect("tempdir");
    let gh_output = usage.path().join("github_output");
    let out = Command::new("bash")
        .arg(Path::new(ROOT).join("scripts/action-run.sh"))
        .current_dir(ROOT)
        .env("PATH", path_with_binary())
        .env("BDXLINT_PATHS", "testdata/example")
        .env("BDXLINT_FORMAT", "sarif")
        .env("BDXLINT_ARGS", "--no-such-flag")
        .env("BDXLINT_SARIF_FILE", usage.path().join("out.sarif"))
        .env("GITHUB_OUTPUT", &gh_output)
        .output()
        .expect("bash runs");
    assert_eq!(out.status.code(), Some(2));
    let outputs = std::fs::read_to_string(&gh_output).unwrap_or_default();
    assert!(!outputs.contains("sarif-ready"), "{outputs}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrote no SARIF log"));
    let other = tempfile::tempdir().expect("tempdir");
    let (out, outputs) = action("xml", other.path());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(outputs, "exit-code=2\n");
}

/// Runs the action's script with the environment the runner gives it.
fn action_env(vars: &[(&str, &std::ffi::OsStr)]) -> std::process::Output {
    let mut c = Command::new("bash");
    c.arg(Path::new(ROOT).join("scripts/action-run.sh"))
        .current_dir(ROOT)
        .env("PATH", path_with_binary());
    for (k, v) in vars {
        c.env(k, v);
    }
    c.output().expect("bash runs")
}

/// Quoted args stay one argument (and nothing in them runs); the step's
/// log and the job summary count the findings per rule in every mode; a
/// SARIF file whose directory is missing is a clear error.
#[test]
fn the_action_script_splits_args_as_a_shell_and_summarises_every_mode() {
    let dir = tempfile::tempdir().expect("tempdir");
    let baseline = dir.path().join("my baseline.json");
    let args = format!(
        "--ignore \"C004\" --write-baseline \"{}\" $(touch pwned)",
        baseline.display()
    );
    let summary = dir.path().join("summary.md");
    let out = action_env(&[
        ("BDXLINT_PATHS", "testdata/example".as_ref()),
        ("BDXLINT_FORMAT", "github".as_ref()),
        ("BDXLINT_ARGS", args.as_ref()),
        ("GITHUB_STEP_SUMMARY", summary.as_os_str()),
    ]);
    // `$(touch pwned)` is two words, a path that does not exist: exit 2,
    // and nothing ran.
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(!Path::new(ROOT).join("pwned").exists());
    // The quoted path stayed one argument: the baseline was meant, and
    // not written only because the run missed the two stray words' files.
    assert!(!baseline.exists(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("my baseline.json not written"),
        "{out:?}"
    );
    let out = action_env(&[
        ("BDXLINT_PATHS", "testdata/example".as_ref()),
        ("BDXLINT_FORMAT", "github".as_ref()),
        ("GITHUB_STEP_SUMMARY", summary.as_os_str()),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Findings per rule:"), "{stderr}");
    let text = std::fs::read_to_string(&summary).expect("summary written");
    assert!(text.contains("| `C004` | 2 |"), "{text}");
    // SARIF mode too, from the log.
    let sarif = dir.path().join("out.sarif");
    let out = action_env(&[
        ("BDXLINT_PATHS", "testdata/example".as_ref()),
        ("BDXLINT_FORMAT", "sarif".as_ref()),
        ("BDXLINT_SARIF_FILE", sarif.as_os_str()),
        ("GITHUB_STEP_SUMMARY", summary.as_os_str()),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = std::fs::read_to_string(&summary).expect("summary written");
    assert_eq!(text.matches("| `C004` | 2 |").count(), 2, "{text}");
    let out = action_env(&[
        ("BDXLINT_PATHS", "testdata/example".as_ref()),
        ("BDXLINT_FORMAT", "sarif".as_ref()),
        ("BDXLINT_SARIF_FILE", "no/such/dir/out.sarif".as_ref()),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("(no/such/dir) does not exist"));
}

/// The fenced blocks of the README that follow a line containing `marker`.
fn readme_block(marker: &str) -> String {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).expect("README.md");
    let at = readme
        .find(marker)
        .unwrap_or_else(|| panic!("README has {marker:?}"));
    let rest = &readme[at..];
    let start = rest.find("```yaml\n").expect("a yaml block") + "```yaml\n".len();
    let end = rest[start..].find("```").expect("block end") + start;
    rest[start..end].to_owned()
}

/// `inputs:` of action.yml, read as the two-space-indented keys under it.
fn action_inputs(action: &str) -> Vec<String> {
    let mut inputs = Vec::new();
    let mut inside = false;
    for line in action.lines() {
        if !line.starts_with(' ') {
            inside = line == "inputs:";
        } else if inside && line.starts_with("  ") && !line.starts_with("   ") {
            inputs.push(line.trim().trim_end_matches(':').to_owned());
        }
    }
    inputs
}

#[test]
fn the_action_passes_its_inputs_to_the_script_and_the_readme_uses_only_those() {
    let action = std::fs::read_to_string(Path::new(ROOT).join("action.yml")).expect("action.yml");
    let inputs = action_inputs(&action);
    assert_eq!(
        inputs,
        ["paths", "output-format", "args", "sarif-file", "category"]
    );
    // The upload follows the script's word that a whole log is there (exit
    // 2 included), under the category the workflow gives.
    assert!(action.contains("steps.run.outputs.sarif-ready == 'true'"));
    assert!(action.contains("category: ${{ steps.run.outputs.category }}"));
    // Each input reaches the script under the name it reads.
    for (var, input) in [
        ("BDXLINT_PATHS", "paths"),
        ("BDXLINT_FORMAT", "output-format"),
        ("BDXLINT_ARGS", "args"),
        ("BDXLINT_SARIF_FILE", "sarif-file"),
        ("BDXLINT_CATEGORY", "category"),
    ] {
        assert!(
            action.contains(&format!("{var}: ${{{{ inputs.{input} }}}}")),
            "{var}"
        );
    }
    assert!(action.contains("run: bash \"$GITHUB_ACTION_PATH/scripts/action-run.sh\""));
    // The install: the script locates the release (from the action's own
    // ref), the cache keeps it, the script downloads or builds it.
    // tests/dist runs the script against a server.
    for step in [
        "run: bash \"$GITHUB_ACTION_PATH/scripts/action-install.sh\" locate",
        "uses: actions/cache@v5",
        "if: ${{ steps.locate.outputs.cacheable == 'true' }}",
        "path: ${{ steps.locate.outputs.dir }}",
        "key: ${{ steps.locate.outputs.key }}",
        "BDXLINT_INSTALL_DIR: ${{ steps.locate.outputs.dir }}",
        "run: bash \"$GITHUB_ACTION_PATH/scripts/action-install.sh\" install",
        "uses: github/codeql-action/upload-sarif@v4",
    ] {
        assert!(action.contains(step), "{step}");
    }
    assert_eq!(
        action
            .matches("BDXLINT_ACTION_REPOSITORY: ${{ github.action_repository }}")
            .count(),
        2
    );
    assert_eq!(
        action
            .matches("BDXLINT_ACTION_REF: ${{ github.action_ref }}")
            .count(),
        2
    );
    // No address of a server in the action: the script takes the runner's.
    let script = std::fs::read_to_string(Path::new(ROOT).join("scripts/action-install.sh"))
        .expect("the install script");
    for text in [&action, &script] {
        assert!(!text.contains("https://"), "an address in the action");
    }
    // The one build from source is cargo install with the lock file.
    assert!(script.contains("cargo install --locked --quiet --path \"$GITHUB_ACTION_PATH\""));
    // The README's workflow sets only inputs the action has, and its args
    // are flags bdxlint accepts.
    let workflow = readme_block("**GitHub Actions**");
    let with_at = workflow.find("with:").expect("with:");
    for line in workflow[with_at..].lines().skip(1) {
        let Some((key, value)) = line.trim().split_once(':') else {
            continue;
        };
        assert!(inputs.iter().any(|i| i == key), "README uses input {key}");
        if key == "args" {
            let value = value.trim();
            let out = Command::new(env!("CARGO_BIN_EXE_bdxlint"))
                .current_dir(ROOT)
                .arg("check")
                .args(value.split_whitespace())
                .arg("testdata/employees/valid.csv")
                .output()
                .expect("runs");
            assert_eq!(out.status.code(), Some(0), "args: {value}: {out:?}");
        }
    }
}

#[test]
fn the_readme_pre_commit_snippet_names_this_hook() {
    let config = readme_block("**pre-commit**");
    let h = hook();
    assert!(
        config.contains(&format!("- id: {}", get(&h, "id"))),
        "{config}"
    );
    // Its args are flags the entry accepts (the baseline is written first).
    let dir = tempfile::tempdir().expect("tempdir");
    put(dir.path(), "uploads/e.csv", &fixture("employees/valid.csv"));
    let line = config
        .lines()
        .find(|l| l.trim_start().starts_with("args:"))
        .expect("args");
    let args: Vec<&str> = line
        .split_once('[')
        .and_then(|(_, r)| r.split_once(']'))
        .expect("a flow list")
        .0
        .split(',')
        .map(str::trim)
        .collect();
    assert_eq!(args, ["--baseline", ".bdxlint-baseline"]);
    let files = vec!["uploads/e.csv".to_owned()];
    let out = run_entry_in(dir.path(), &["--write-baseline", args[1]], &files);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = run_entry_in(dir.path(), &args, &files);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// Runs the README's GitLab CI `script:` (all but the install line) with
/// bash as the runner does, the built binary on PATH, in `dir`.
fn gitlab_script(dir: &Path) -> std::process::Output {
    let job = readme_block("**GitLab CI**");
    // The image must build the crate: its Rust is the package's MSRV.
    let manifest = include_str!("../../Cargo.toml");
    let msrv = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .expect("Cargo.toml has a rust-version")
        .trim_matches('"');
    assert!(job.contains(&format!("image: rust:{msrv}")), "{job}");
    let script: Vec<&str> = job
        .lines()
        .skip_while(|l| l.trim() != "script:")
        .skip(1)
        .map_while(|l| l.strip_prefix("    - "))
        .collect();
    assert!(
        script[0].starts_with("cargo install --locked "),
        "{script:?}"
    );
    Command::new("bash")
        .args(["-eo", "pipefail", "-c", &script[1..].join("\n")])
        .current_dir(dir)
        .env("PATH", path_with_binary())
        .output()
        .expect("bash runs")
}

#[test]
fn the_readme_gitlab_job_writes_both_reports_and_fails_on_findings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    put(
        root,
        "uploads/employees.csv",
        &fixture("example/employees.csv"),
    );
    let out = gitlab_script(root);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("gl-code-quality-report.json")).expect("report"),
    )
    .expect("JSON");
    assert_eq!(report.as_array().map(Vec::len), Some(4));
    assert_eq!(report[0]["location"]["path"], "uploads/employees.csv");
    let junit = std::fs::read_to_string(root.join("bdxlint-junit.xml")).expect("junit");
    assert!(
        junit.contains("<testsuites name=\"bdxlint\" tests=\"4\" failures=\"4\""),
        "{junit}"
    );
    put(
        root,
        "uploads/employees.csv",
        &fixture("employees/valid.csv"),
    );
    let out = gitlab_script(root);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let clean = std::fs::read_to_string(root.join("gl-code-quality-report.json")).expect("report");
    assert_eq!(clean.trim(), "[]");
}

/// PATH with the built binary first, as the action's install step leaves it.
fn path_with_binary() -> std::ffi::OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_bdxlint"))
        .parent()
        .expect("binary directory")
        .to_path_buf();
    std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH")
}

/// The action as a workflow runs it: from the user's checkout, the script
/// at $GITHUB_ACTION_PATH, every input at its default except `output-format`
/// (the runner sets each input's env var, defaults included).
#[test]
fn the_action_with_default_inputs_checks_the_users_checkout_under_its_config() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    put(
        root,
        "uploads/employees.csv",
        &fixture("example/employees.csv"),
    );
    put(
        root,
        "fixtures/broken.csv",
        &fixture("example/entitlements.csv"),
    );
    put(root, "bdxlint.toml", b"exclude = [\"fixtures\"]\n");
    let gh_output = root.join("github_output");
    let run = |format: &str| {
        Command::new("bash")
            .arg("-c")
            .arg("bash \"$GITHUB_ACTION_PATH/scripts/action-run.sh\"")
            .current_dir(root)
            .env("PATH", path_with_binary())
            .env("GITHUB_ACTION_PATH", ROOT)
            .env("GITHUB_OUTPUT", &gh_output)
            .env("BDXLINT_PATHS", ".")
            .env("BDXLINT_FORMAT", format)
            .env("BDXLINT_ARGS", "")
            .env("BDXLINT_SARIF_FILE", "bdxlint.sarif")
            .output()
            .expect("bash runs")
    };
    let out = run("github");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 4, "{stdout}");
    assert!(
        stdout
            .lines()
            .all(|l| l.contains(" file=uploads/employees.csv,line=")),
        "{stdout}"
    );
    let out = run("sarif");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let sarif: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("bdxlint.sarif")).expect("SARIF in the checkout"),
    )
    .expect("JSON");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 4);
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "uploads/employees.csv"
    );
    assert_eq!(
        std::fs::read_to_string(&gh_output).expect("outputs"),
        "exit-code=1\nsarif-file=bdxlint.sarif\ncategory=bdxlint:.\nsarif-ready=true\nexit-code=1\n"
    );
}

/// A SARIF log left at `sarif-file` by an earlier step is deleted before
/// the run: a run that writes none (a usage error) uploads nothing, rather
/// than the stale log as this run's.
#[test]
fn the_action_script_deletes_a_stale_sarif_log_before_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sarif = dir.path().join("bdxlint.sarif");
    std::fs::write(&sarif, "{\"stale\": true}").expect("stale log");
    let gh_output = dir.path().join("github_output");
    let out = action_env(&[
        ("BDXLINT_PATHS", "testdata/example".as_ref()),
        ("BDXLINT_FORMAT", "sarif".as_ref()),
        ("BDXLINT_ARGS", "--no-such-flag".as_ref()),
        ("BDXLINT_SARIF_FILE", sarif.as_os_str()),
        ("GITHUB_OUTPUT", gh_output.as_os_str()),
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(!sarif.exists(), "the stale log is still there");
    let outputs = std::fs::read_to_string(&gh_output).expect("outputs");
    assert!(!outputs.contains("sarif-ready"), "{outputs}");
    // A run that writes its log replaces the stale one.
    std::fs::write(&sarif, "{\"stale\": true}").expect("stale log");
    let out = action_env(&[
        ("BDXLINT_PATHS", "testdata/example".as_ref()),
        ("BDXLINT_FORMAT", "sarif".as_ref()),
        ("BDXLINT_SARIF_FILE", sarif.as_os_str()),
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).expect("log")).expect("JSON");
    assert_eq!(doc["runs"][0]["results"].as_array().map(Vec::len), Some(6));
}

/// `paths` holds one path a line: a path with spaces stays one, blank
/// lines and surrounding spaces are dropped, and glob patterns (`**`
/// included) are expanded; a pattern that matches nothing is exit 2.
#[test]
fn the_action_script_takes_paths_with_spaces_and_globs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    put(
        root,
        "HR exports/May 2024.csv",
        &fixture("example/employees.csv"),
    );
    put(
        root,
        "HR exports/old/entitlements.csv",
        &fixture("example/entitlements.csv"),
    );
    put(root, "other/valid.csv", &fixture("employees/valid.csv"));
    let gh_output = root.join("github_output");
    let run = |paths: &str| {
        let _ = std::fs::remove_file(&gh_output);
        let out = Command::new("bash")
            .arg(Path::new(ROOT).join("scripts/action-run.sh"))
            .current_dir(root)
            .env("PATH", path_with_binary())
            .env("BDXLINT_PATHS", paths)
            .env("BDXLINT_FORMAT", "github")
            .env("GITHUB_OUTPUT", &gh_output)
            .output()
            .expect("bash runs");
        let outputs = std::fs::read_to_string(&gh_output).unwrap_or_default();
        (out, outputs)
    };
    let files = |out: &std::process::Output| -> Vec<String> {
        let mut files: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                l.split_once(" file=")?
                    .1
                    .split_once(',')
                    .map(|f| f.0.to_owned())
            })
            .collect();
        files.dedup();
        files
    };
    let (out, outputs) = run("  HR exports/May 2024.csv  \n\n");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(files(&out), ["HR exports/May 2024.csv"]);
    assert_eq!(outputs, "exit-code=1\n");
    let (out, _) = run("HR exports/**/*.csv\nother/*.csv");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        files(&out),
        ["HR exports/May 2024.csv", "HR exports/old/entitlements.csv"]
    );
    let (out, _) = run("other/[v]alid.csv");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let (out, outputs) = run("other/valid.csv\nuploads/*.csv");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("paths: uploads/*.csv matches no file"),
        "{out:?}"
    );
    assert_eq!(outputs, "exit-code=2\n");
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The package version in Cargo.toml.
fn cargo_version() -> String {
    read("Cargo.toml")
        .lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .and_then(|v| v.strip_suffix('"'))
        .expect("a version")
        .to_owned()
}

/// The hook mirror (`dist/pre-commit/`) offers the root manifest's hooks
/// with the same ids and file filters, its `bdxlint` hook installing the
/// wheel (`language: python`), and its package depends on exactly this
/// version of bdxlint and carries the same version (the mirror's tag).
#[test]
fn the_hook_mirror_matches_the_manifest_and_this_version() {
    let root = hooks();
    let mirror = hooks_of("dist/pre-commit/.pre-commit-hooks.yaml");
    let ids = |hooks: &[Vec<(String, String)>]| -> Vec<String> {
        hooks.iter().map(|h| get(h, "id").to_owned()).collect()
    };
    assert_eq!(ids(&mirror), ids(&root));
    for (m, r) in mirror.iter().zip(&root) {
        for key in [
            "name",
            "files",
            "types_or",
            "require_serial",
            "minimum_pre_commit_version",
        ] {
            assert_eq!(get(m, key), get(r, key), "{key}");
        }
    }
    assert_eq!(get(&mirror[0], "language"), "python");
    assert_eq!(get(&mirror[0], "entry"), get(&root[1], "entry"));
    assert_eq!(get(&mirror[1], "language"), "system");
    assert_eq!(get(&mirror[1], "entry"), get(&root[1], "entry"));
    let version = cargo_version();
    let project = read("dist/pre-commit/pyproject.toml");
    assert!(
        project.contains(&format!("\nversion = \"{version}\"\n")),
        "the mirror's version is not {version}"
    );
    assert!(
        project.contains(&format!("\ndependencies = [\"bdxlint=={version}\"]\n")),
        "the mirror does not pin bdxlint=={version}"
    );
    // The release workflow refuses a tag whose versions disagree, reading
    // them with the same patterns.
    let release = read(".github/workflows/release.yml");
    assert!(release.contains(
        r#"sed -n 's/^dependencies = \["bdxlint==\(.*\)"\]$/\1/p' dist/pre-commit/pyproject.toml"#
    ));
}

/// The wheel is the binary alone (maturin's bin bindings), its version
/// taken from Cargo.toml rather than written twice.
#[test]
fn the_python_package_is_the_binary_with_cargos_version() {
    let project = read("pyproject.toml");
    assert!(project.contains("build-backend = \"maturin\""));
    assert!(project.contains("\nname = \"bdxlint\"\n"));
    assert!(project.contains("\nbindings = \"bin\"\n"));
    let dynamic = project
        .lines()
        .find(|l| l.starts_with("dynamic = "))
        .expect("dynamic metadata");
    assert!(dynamic.contains("\"version\""), "{dynamic}");
    assert!(
        !project.lines().any(|l| l.starts_with("version = ")),
        "a version written in pyproject.toml"
    );
}

/// The release workflow's targets, the action's platforms and the archive
/// names `cargo binstall` looks for are the same list.
#[test]
fn the_release_targets_are_what_the_action_and_binstall_fetch() {
    let release = read(".github/workflows/release.yml");
    let mut built: Vec<&str> = release
        .lines()
        .filter_map(|l| l.split_once(" target: ")?.1.split_once(','))
        .map(|(t, _)| t.trim())
        .collect();
    built.sort_unstable();
    assert_eq!(
        built,
        [
            "aarch64-apple-darwin",
            "aarch64-unknown-linux-gnu",
            "x86_64-apple-darwin",
            "x86_64-pc-windows-msvc",
            "x86_64-unknown-linux-gnu",
        ]
    );
    let script = read("scripts/action-install.sh");
    let mut fetched: Vec<&str> = script
        .lines()
        .filter_map(|l| l.trim().split_once(") echo ")?.1.strip_suffix(" ;;"))
        .filter(|t| !t.contains('"'))
        .collect();
    fetched.sort_unstable();
    assert_eq!(fetched, built);
    // The archives: bdxlint-TARGET.tar.gz, .zip on Windows, named alike
    // by the workflow, the action and binstall.
    assert!(release.contains(r#"f"archives/bdxlint-{target}.tar.gz""#));
    assert!(release.contains(r#"f"archives/bdxlint-{target}.zip""#));
    assert!(script.contains(r#"asset="bdxlint-$t.tar.gz""#));
    assert!(script.contains(r#"asset="bdxlint-$t.zip""#));
    let manifest = read("Cargo.toml");
    assert!(manifest.contains(
        "pkg-url = \"{ repo }/releases/download/v{ version }/{ name }-{ target }.tar.gz\""
    ));
    assert!(manifest.contains(
        "[package.metadata.binstall.overrides.x86_64-pc-windows-msvc]\npkg-url = \"{ repo }/releases/download/v{ version }/{ name }-{ target }.zip\""
    ));
    assert!(release.contains("sha256sum -- * > SHA256SUMS"));
    assert!(script.contains("$url/SHA256SUMS"));
}

/// `bdxlint --version` names the commit and its date (build.rs), from git
/// in a checkout.
#[test]
fn the_version_names_the_commit_and_its_date() {
    let out = Command::new(env!("CARGO_BIN_EXE_bdxlint"))
        .arg("--version")
        .output()
        .expect("runs");
    let line = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(ROOT)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    // As build.rs does: only a checkout of this package itself counts.
    let top = git(&["rev-parse", "--show-toplevel"])
        .and_then(|t| Path::new(&t).canonicalize().ok())
        .filter(|t| Path::new(ROOT).canonicalize().ok().as_ref() == Some(t));
    let build =
        top.and_then(|_| git(&["log", "-1", "--abbrev=7", "--date=short", "--format=%h %cd"]));
    match build {
        Some(build) => {
            assert_eq!(line, format!("bdxlint {} ({build})", cargo_version()));
            let re =
                regex::Regex::new(r"^bdxlint \d+\.\d+\.\d+ \([0-9a-f]{7,} \d{4}-\d{2}-\d{2}\)$")
                    .expect("regex");
            assert!(re.is_match(&line), "{line}");
        }
        None => assert_eq!(line, format!("bdxlint {}", cargo_version())),
    }
}
