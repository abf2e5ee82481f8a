//! bdxlint installed as a user installs it, without a Rust toolchain: the
//! wheel (maturin) into a fresh venv with no index, the hook mirror
//! (`dist/pre-commit/`) through real pre-commit with no cargo on PATH, and
//! the GitHub Action's download of a release binary from a server on the
//! loopback address.
//!
//! A package of its own (see its `Cargo.toml`): `maturin` and `pre-commit`
//! must be on PATH, and `curl`, `git`, `tar` and `sha256sum` too; `.ci/run`
//! installs the Python tools into a venv of its own (`.ci/dist-tools`) and
//! runs `cargo test -p bdxlint-dist-tests -- --nocapture`, which prints the
//! figures the tests measure (wheel size, installed size, `--version`, the
//! hook's first install and run).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The main package's directory (this one is `tests/dist/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository")
}

/// The version in the main package's Cargo.toml.
fn version() -> String {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    manifest
        .lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .and_then(|v| v.strip_suffix('"'))
        .expect("a version")
        .to_owned()
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| {
        panic!("cannot run {cmd:?}: {e} (is it installed? .ci/run installs the tools this package needs)")
    })
}

fn ok(cmd: &mut Command) -> Output {
    let out = run(cmd);
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The directory the wheel is built into, once for every test of this
/// binary: `maturin build --release --locked`, as the release workflow and
/// the README say.
fn wheelhouse() -> &'static Path {
    static WHEELS: OnceLock<tempfile::TempDir> = OnceLock::new();
    WHEELS
        .get_or_init(|| {
            let dir = tempfile::tempdir().expect("tempdir");
            let start = Instant::now();
            ok(Command::new("maturin")
                .args(["build", "--release", "--locked", "--out"])
                .arg(dir.path())
                .current_dir(root()));
            eprintln!("wheel built in {:.1} s", start.elapsed().as_secs_f64());
            dir
        })
        .path()
}

fn the_wheel() -> PathBuf {
    let wheels: Vec<PathBuf> = std::fs::read_dir(wheelhouse())
        .expect("read the wheelhouse")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "whl"))
        .collect();
    assert_eq!(wheels.len(), 1, "{wheels:?}");
    wheels[0].clone()
}

fn python() -> String {
    std::env::var("BDXLINT_DIST_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// `bdxlint 0.1.0 (f598be7 2026-11-26)`: the version, then the commit and
/// its date when built from this git checkout.
fn expected_version_line() -> String {
    let out = run(Command::new("git")
        .args(["log", "-1", "--abbrev=7", "--date=short", "--format=%h %cd"])
        .current_dir(root()));
    let build = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if out.status.success() && !build.is_empty() {
        format!("bdxlint {} ({build})", version())
    } else {
        format!("bdxlint {}", version())
    }
}

#[test]
fn the_wheel_installs_offline_into_a_fresh_venv_and_checks_the_example() {
    let wheel = the_wheel();
    let name = wheel
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    // A binary wheel for any Python 3 (no Python code, no ABI).
    assert!(
        name.starts_with(&format!("bdxlint-{}-py3-none-", version())),
        "{name}"
    );
    let wheel_size = std::fs::metadata(&wheel).expect("wheel").len();
    let venv = tempfile::tempdir().expect("tempdir");
    ok(Command::new(python()).args(["-m", "venv"]).arg(venv.path()));
    let bin = venv
        .path()
        .join(if cfg!(windows) { "Scripts" } else { "bin" });
    ok(Command::new(bin.join("python"))
        .args(["-m", "pip", "install", "--no-index", "--quiet"])
        .arg(&wheel)
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1"));
    let exe = bin.join(format!("bdxlint{}", std::env::consts::EXE_SUFFIX));
    let installed = std::fs::metadata(&exe).expect("bdxlint installed").len();
    let out = ok(Command::new(&exe).arg("--version"));
    let line = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert_eq!(line, expected_version_line());
    eprintln!(
        "wheel {name}: {:.1} MB; installed bdxlint {:.1} MB; `bdxlint --version`: {line}",
        wheel_size as f64 / 1e6,
        installed as f64 / 1e6
    );
    assert!(
        installed < 15_000_000,
        "installed binary is {installed} bytes"
    );
    // The bundled example: six findings in two files, exit 1.
    let out = run(Command::new(&exe)
        .args(["check", "testdata/example/"])
        .current_dir(root())
        .env("NO_COLOR", "1"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("4 errors, 2 warnings, 0 infos in 2 files"),
        "{stdout}"
    );
    // Stripped: no symbol table left for `nm` to list.
    #[cfg(target_os = "linux")]
    {
        let nm = Command::new("nm").arg(&exe).output();
        if let Ok(nm) = nm {
            assert!(
                String::from_utf8_lossy(&nm.stderr).contains("no symbols"),
                "{nm:?}"
            );
        }
    }
}

/// PATH without any directory that holds `cargo`: the hook must not build.
fn path_without_cargo() -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| {
            !d.join(format!("cargo{}", std::env::consts::EXE_SUFFIX))
                .exists()
        })
        .collect();
    std::env::join_paths(dirs).expect("PATH")
}

fn git(dir: &Path, args: &[&str]) -> Output {
    ok(Command::new("git")
        .args([
            "-c",
            "user.name=bdxlint test",
            "-c",
            "user.email=test@example.com",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "tag.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir))
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).expect("copy");
        }
    }
}

/// The hook mirror as the release publishes it: its own git repository,
/// tagged v{version}; pre-commit installs its package, and through it the
/// wheel, from a wheelhouse alone (PIP_NO_INDEX, PIP_FIND_LINKS), with no
/// cargo on PATH. The first commit of a bad file installs the hook and is
/// blocked, within a minute; a clean file then commits.
#[test]
fn the_hook_mirror_installs_the_wheel_with_pre_commit_and_blocks_a_bad_file() {
    let work = tempfile::tempdir().expect("tempdir");
    // The wheelhouse: this build's wheel, and setuptools, which pip needs
    // to build the mirror's own (code-free) package.
    let house = work.path().join("wheelhouse");
    std::fs::create_dir_all(&house).expect("mkdir");
    std::fs::copy(
        the_wheel(),
        house.join(the_wheel().file_name().expect("name")),
    )
    .expect("copy the wheel");
    ok(Command::new(python())
        .args(["-m", "pip", "download", "--quiet", "--no-deps", "--dest"])
        .arg(&house)
        .arg("setuptools>=61")
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1"));

    let mirror = work.path().join("bdxlint-pre-commit");
    copy_dir(&root().join("dist/pre-commit"), &mirror);
    git(&mirror, &["init", "--quiet"]);
    git(&mirror, &["add", "-A"]);
    git(&mirror, &["commit", "--quiet", "-m", "mirror"]);
    let tag = format!("v{}", version());
    git(&mirror, &["tag", &tag]);

    let repo = work.path().join("user");
    std::fs::create_dir_all(repo.join("uploads")).expect("mkdir");
    git(&repo, &["init", "--quiet"]);
    std::fs::write(
        repo.join(".pre-commit-config.yaml"),
        format!(
            "repos:\n  - repo: {}\n    rev: {tag}\n    hooks:\n      - id: bdxlint\n        files: ^uploads/\n",
            mirror.display()
        ),
    )
    .expect("config");
    std::fs::copy(
        root().join("testdata/example/employees.csv"),
        repo.join("uploads/employees.csv"),
    )
    .expect("bad file");
    git(&repo, &["add", "-A"]);

    let env = |c: &mut Command| {
        c.current_dir(&repo)
            .env("PATH", path_without_cargo())
            .env("PRE_COMMIT_HOME", work.path().join("cache"))
            .env("PIP_NO_INDEX", "1")
            .env("PIP_FIND_LINKS", &house)
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
            .env("NO_COLOR", "1")
            .env_remove("CARGO")
            .env_remove("RUSTC");
    };
    let mut install = Command::new("pre-commit");
    install.args(["install", "--install-hooks"]);
    env(&mut install);
    let start = Instant::now();
    ok(&mut install);
    let mut commit = Command::new("git");
    commit.args([
        "-c",
        "user.name=bdxlint test",
        "-c",
        "user.email=test@example.com",
        "-c",
        "commit.gpgsign=false",
        "commit",
        "-m",
        "add the export",
    ]);
    env(&mut commit);
    let out = run(&mut commit);
    let first = start.elapsed();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "the bad file was committed: {text}");
    assert!(text.contains("error(C003) invalid-email"), "{text}");
    assert!(
        text.contains("3 errors, 1 warning, 0 infos in 1 file"),
        "{text}"
    );
    // No commit was made.
    let mut head = Command::new("git");
    head.args(["rev-parse", "--verify", "--quiet", "HEAD"]);
    env(&mut head);
    assert!(!run(&mut head).status.success(), "a commit was made");
    eprintln!(
        "pre-commit: hook installed from the wheel and first run in {:.1} s",
        first.as_secs_f64()
    );
    assert!(first < Duration::from_secs(60), "{first:?}");

    std::fs::copy(
        root().join("testdata/employees/valid.csv"),
        repo.join("uploads/employees.csv"),
    )
    .expect("good file");
    git(&repo, &["add", "-A"]);
    let again = Instant::now();
    let out = run(&mut commit);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "pre-commit: a clean file committed in {:.1} s",
        again.elapsed().as_secs_f64()
    );
    // The hook's environment holds the wheel's bdxlint, this build's.
    let installed = std::fs::read_dir(work.path().join("cache"))
        .expect("pre-commit's cache")
        .filter_map(Result::ok)
        .flat_map(|repo| std::fs::read_dir(repo.path()).into_iter().flatten())
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("py_env-"))
        .map(|e| e.path().join("bin/bdxlint"))
        .find(|p| p.exists())
        .expect("bdxlint in the hook's virtualenv");
    let out = ok(Command::new(installed).arg("--version"));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        expected_version_line()
    );
}

/// A release server on the loopback address: serves the files of `dir` at
/// `/OWNER/REPO/releases/download/TAG/FILE` (the directory holds
/// `OWNER/REPO/releases/download/TAG/`), 404 for anything else, and counts
/// the requests. It lives as long as the test process.
struct Server {
    url: String,
    requests: Arc<AtomicUsize>,
}

fn serve(dir: PathBuf) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind the loopback address");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let requests = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&requests);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
            count.fetch_add(1, Ordering::SeqCst);
            let mut reader = BufReader::new(&stream);
            let mut request = String::new();
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            // The headers, up to the blank line.
            loop {
                let mut line = String::new();
                match reader.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) if line == "\r\n" || line == "\n" => break,
                    Ok(_) => {}
                }
            }
            let path = request.split_whitespace().nth(1).unwrap_or("/");
            let file = dir.join(path.trim_start_matches('/'));
            let safe = !path.contains("..");
            let body = if safe && file.is_file() {
                let mut data = Vec::new();
                std::fs::File::open(&file)
                    .and_then(|mut f| f.read_to_end(&mut data))
                    .map(|_| data)
                    .ok()
            } else {
                None
            };
            let _ = match body {
                Some(data) => stream
                    .write_all(
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            data.len()
                        )
                        .as_bytes(),
                    )
                    .and_then(|()| stream.write_all(&data)),
                None => stream.write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nNot Found",
                ),
            };
        }
    });
    Server { url, requests }
}

/// The runner's names for this machine's platform, and the release target.
fn platform() -> (&'static str, &'static str, &'static str) {
    match std::env::consts::ARCH {
        "aarch64" => ("Linux", "ARM64", "aarch64-unknown-linux-gnu"),
        _ => ("Linux", "X64", "x86_64-unknown-linux-gnu"),
    }
}

fn sha256(path: &Path) -> String {
    let out = ok(Command::new("sha256sum").arg(path));
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .expect("a sum")
        .to_owned()
}

/// A fake release `acme/bdxlint` TAG: `bdxlint-TARGET.tar.gz` holding a
/// `bdxlint` that answers `--version`, and SHA256SUMS listing it with
/// `sum` (the true one when `None`); `with_asset: false` leaves the archive
/// out while SHA256SUMS still lists it.
fn release(dir: &Path, tag: &str, sum: Option<&str>, with_asset: bool) {
    let (_, _, target) = platform();
    let at = dir.join("acme/bdxlint/releases/download").join(tag);
    std::fs::create_dir_all(&at).expect("mkdir");
    let stage = tempfile::tempdir().expect("tempdir");
    let bin = stage.path().join("bdxlint");
    std::fs::write(
        &bin,
        format!("#!/bin/sh\necho 'bdxlint 0.1.0 (from {tag})'\n"),
    )
    .expect("fake binary");
    ok(Command::new("chmod").arg("755").arg(&bin));
    let asset = format!("bdxlint-{target}.tar.gz");
    let archive = stage.path().join(&asset);
    ok(Command::new("tar")
        .arg("-czf")
        .arg(&archive)
        .arg("-C")
        .arg(stage.path())
        .arg("bdxlint"));
    let sum = sum.map_or_else(|| sha256(&archive), str::to_owned);
    std::fs::write(
        at.join("SHA256SUMS"),
        format!("{sum}  {asset}\n{}  bdxlint-0.1.0.tar.gz\n", "0".repeat(64)),
    )
    .expect("sums");
    if with_asset {
        std::fs::copy(&archive, at.join(&asset)).expect("asset");
    }
}

/// What one run of `action-install.sh MODE` left: its output, the lines it
/// wrote to $GITHUB_OUTPUT and $GITHUB_PATH.
struct Step {
    out: Output,
    outputs: String,
    path: String,
}

impl Step {
    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.out.stderr).into_owned()
    }
    fn output(&self, key: &str) -> &str {
        self.outputs
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{key}=")))
            .unwrap_or_else(|| panic!("no {key}= in {}", self.outputs))
    }
}

/// The action as the runner starts it for `uses: acme/bdxlint@REF`: the
/// action's checkout at `_actions/acme/bdxlint/REF` under `work`, the
/// runner's variables, the tool cache in `work`, and PATH with `extra_path`
/// first.
fn install_step(
    work: &Path,
    server: &str,
    reference: &str,
    mode: &str,
    dir: Option<&str>,
    extra_path: Option<&Path>,
) -> Step {
    let (os, arch, _) = platform();
    let action = work.join("_actions/acme/bdxlint").join(reference);
    std::fs::create_dir_all(&action).expect("mkdir");
    let outputs = work.join(format!("output-{mode}"));
    let path_file = work.join("path");
    let _ = std::fs::remove_file(&outputs);
    let _ = std::fs::remove_file(&path_file);
    let mut path = std::env::var_os("PATH").unwrap_or_default();
    if let Some(extra) = extra_path {
        path = std::env::join_paths(
            std::iter::once(extra.to_path_buf()).chain(std::env::split_paths(&path)),
        )
        .expect("PATH");
    }
    let mut c = Command::new("bash");
    c.arg(root().join("scripts/action-install.sh"))
        .arg(mode)
        .current_dir(work)
        .env("PATH", path)
        .env("GITHUB_ACTION_PATH", &action)
        .env("GITHUB_SERVER_URL", server)
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_PATH", &path_file)
        .env("RUNNER_OS", os)
        .env("RUNNER_ARCH", arch)
        .env("RUNNER_TOOL_CACHE", work.join("toolcache"))
        .env("BDXLINT_ACTION_REPOSITORY", "acme/bdxlint")
        .env("BDXLINT_ACTION_REF", reference);
    if let Some(dir) = dir {
        c.env("BDXLINT_INSTALL_DIR", dir);
    }
    let out = run(&mut c);
    Step {
        out,
        outputs: std::fs::read_to_string(&outputs).unwrap_or_default(),
        path: std::fs::read_to_string(&path_file).unwrap_or_default(),
    }
}

/// locate, then install, as the action's steps run them.
fn locate_and_install(work: &Path, server: &str, reference: &str) -> (Step, Step) {
    let located = install_step(work, server, reference, "locate", None, None);
    assert!(located.out.status.success(), "{}", located.stderr());
    let dir = located.output("dir").to_owned();
    let installed = install_step(work, server, reference, "install", Some(&dir), None);
    (located, installed)
}

#[test]
fn the_action_downloads_checks_and_caches_the_release_binary() {
    let files = tempfile::tempdir().expect("tempdir");
    release(files.path(), "v0.1.0", None, true);
    let server = serve(files.path().to_path_buf());
    let work = tempfile::tempdir().expect("tempdir");
    let (located, installed) = locate_and_install(work.path(), &server.url, "v0.1.0");
    let (_, _, target) = platform();
    assert_eq!(located.output("cacheable"), "true");
    assert_eq!(
        located.output("key"),
        format!("bdxlint-acme-bdxlint-v0.1.0-{target}")
    );
    let dir = PathBuf::from(located.output("dir"));
    assert!(dir.starts_with(work.path().join("toolcache")), "{dir:?}");
    assert_eq!(
        installed.out.status.code(),
        Some(0),
        "{}",
        installed.stderr()
    );
    assert!(
        installed.stderr().contains(&format!(
            "installed bdxlint-{target}.tar.gz from release v0.1.0"
        )),
        "{}",
        installed.stderr()
    );
    assert_eq!(installed.path, format!("{}/bin\n", dir.display()));
    let out = ok(&mut Command::new(dir.join("bin/bdxlint")));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "bdxlint 0.1.0 (from v0.1.0)\n"
    );
    assert_eq!(
        server.requests.load(Ordering::SeqCst),
        2,
        "SHA256SUMS and the archive"
    );

    // The cache restored the directory: nothing is downloaded again.
    let again = install_step(
        work.path(),
        &server.url,
        "v0.1.0",
        "install",
        Some(&dir.display().to_string()),
        None,
    );
    assert_eq!(again.out.status.code(), Some(0), "{}", again.stderr());
    assert!(
        again.stderr().contains("from the cache"),
        "{}",
        again.stderr()
    );
    assert_eq!(server.requests.load(Ordering::SeqCst), 2);
}

#[test]
fn the_action_refuses_an_archive_whose_checksum_differs() {
    let files = tempfile::tempdir().expect("tempdir");
    release(files.path(), "v0.1.0", Some(&"ab".repeat(32)), true);
    let server = serve(files.path().to_path_buf());
    let work = tempfile::tempdir().expect("tempdir");
    let (located, installed) = locate_and_install(work.path(), &server.url, "v0.1.0");
    assert_eq!(installed.out.status.code(), Some(1));
    let stderr = installed.stderr();
    assert!(
        stderr.contains("but SHA256SUMS says abab") && stderr.contains("not installing it"),
        "{stderr}"
    );
    // Nothing unverified is left to run, nor put on PATH.
    let dir = PathBuf::from(located.output("dir"));
    assert!(!dir.join("bin/bdxlint").exists());
    assert_eq!(installed.path, "");
}

#[test]
fn the_action_fails_when_the_release_lacks_the_archive_it_lists() {
    let files = tempfile::tempdir().expect("tempdir");
    release(files.path(), "v0.1.0", None, false);
    let server = serve(files.path().to_path_buf());
    let work = tempfile::tempdir().expect("tempdir");
    let (_, installed) = locate_and_install(work.path(), &server.url, "v0.1.0");
    assert_eq!(installed.out.status.code(), Some(1));
    let (_, _, target) = platform();
    assert!(
        installed.stderr().contains(&format!(
            "release v0.1.0 lists bdxlint-{target}.tar.gz but the server answered HTTP 404"
        )),
        "{}",
        installed.stderr()
    );
    assert_eq!(installed.path, "");
}

/// A `cargo` that records its arguments and leaves a bdxlint where `cargo
/// install --root DIR` would.
fn fake_cargo(dir: &Path) -> PathBuf {
    let log = dir.join("cargo.args");
    let cargo = dir.join("cargo");
    std::fs::write(
        &cargo,
        format!(
            "#!/bin/sh\necho \"$@\" > '{}'\nwhile [ \"$1\" != --root ]; do shift; done\nmkdir -p \"$2/bin\"\nprintf '#!/bin/sh\\necho bdxlint built\\n' > \"$2/bin/bdxlint\"\nchmod +x \"$2/bin/bdxlint\"\n",
            log.display()
        ),
    )
    .expect("fake cargo");
    ok(Command::new("chmod").arg("755").arg(&cargo));
    log
}

/// No release for the ref (a branch, a tag without one): built from the
/// action's source. A commit SHA is built without asking the server.
#[test]
fn the_action_builds_when_no_release_matches() {
    let files = tempfile::tempdir().expect("tempdir");
    let server = serve(files.path().to_path_buf());
    let work = tempfile::tempdir().expect("tempdir");
    let bin = tempfile::tempdir().expect("tempdir");
    let log = fake_cargo(bin.path());
    for (reference, cacheable, asks) in [
        ("main", "false", 1),
        ("v9.9.9", "true", 1),
        ("0123456789abcdef0123456789abcdef01234567", "true", 0),
    ] {
        let before = server.requests.load(Ordering::SeqCst);
        let located = install_step(work.path(), &server.url, reference, "locate", None, None);
        assert_eq!(located.output("cacheable"), cacheable, "{reference}");
        let dir = located.output("dir").to_owned();
        let installed = install_step(
            work.path(),
            &server.url,
            reference,
            "install",
            Some(&dir),
            Some(bin.path()),
        );
        assert_eq!(
            installed.out.status.code(),
            Some(0),
            "{}",
            installed.stderr()
        );
        let args = std::fs::read_to_string(&log).expect("cargo ran");
        let action = work.path().join("_actions/acme/bdxlint").join(reference);
        assert_eq!(
            args.trim(),
            format!(
                "install --locked --quiet --path {} --root {dir}",
                action.display()
            )
        );
        assert_eq!(installed.path, format!("{dir}/bin\n"));
        assert_eq!(
            server.requests.load(Ordering::SeqCst) - before,
            asks,
            "{reference}"
        );
        std::fs::remove_file(&log).expect("rm");
    }
}

/// In a composite action nested in another, github.action_repository and
/// github.action_ref name the outer action: the checkout's own path wins.
#[test]
fn the_action_takes_its_release_from_its_own_checkout() {
    let work = tempfile::tempdir().expect("tempdir");
    let action = work.path().join("_actions/acme/bdxlint/v0.1.0");
    std::fs::create_dir_all(&action).expect("mkdir");
    let outputs = work.path().join("outputs");
    let out = ok(Command::new("bash")
        .arg(root().join("scripts/action-install.sh"))
        .arg("locate")
        .env("GITHUB_ACTION_PATH", &action)
        .env("GITHUB_OUTPUT", &outputs)
        .env("RUNNER_OS", "Linux")
        .env("RUNNER_ARCH", "X64")
        .env("RUNNER_TOOL_CACHE", work.path())
        .env("BDXLINT_ACTION_REPOSITORY", "other/outer")
        .env("BDXLINT_ACTION_REF", "v2"));
    assert!(out.status.success());
    let text = std::fs::read_to_string(&outputs).expect("outputs");
    assert!(
        text.contains("key=bdxlint-acme-bdxlint-v0.1.0-x86_64-unknown-linux-gnu\n"),
        "{text}"
    );
}
