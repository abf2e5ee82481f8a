//! Names the build in `bdxlint --version`: `bdxlint 0.1.0 (f598be7
//! 2026-11-26)`, the commit and its date, so a report or a bug names the
//! exact code that ran.
//!
//! The commit comes from git when this package is its own git checkout
//! (a clone, a worktree, the release job). Otherwise it comes from the
//! package's metadata: `.cargo_vcs_info.json`, which `cargo package` writes
//! into a published crate (the commit, no date); a tree with neither (an
//! unpacked sdist, a tarball) says only the version. A git repository that
//! merely encloses the package (a home directory kept in git, a vendored
//! copy inside a monorepo) is not asked: its commit is not this code's.
//!
//! Cargo reruns this script only when the checked-out commit can have
//! changed (HEAD, the branch it names, packed refs), not on every build.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let build = from_git(&dir).or_else(|| from_vcs_info(&dir));
    let line = match build {
        Some(build) => format!("{version} ({build})"),
        None => version,
    };
    println!("cargo:rustc-env=BDXLINT_VERSION={line}");
}

/// `git` in `dir`, its output trimmed, or `None` when git is missing or
/// fails.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    // safe.directory: a build in a container (maturin's manylinux images)
    // runs as another user than the checkout's owner, and git would refuse
    // to read it. These are read-only queries of the code being built.
    let out = Command::new("git")
        .arg("-c")
        .arg("safe.directory=*")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    Some(text.trim().to_owned())
}

/// `f598be7 2026-11-26`: the short commit and its committer date, when
/// `dir` is the top of a git work tree; registers the files whose change
/// means another commit is checked out.
fn from_git(dir: &Path) -> Option<String> {
    let top = git(dir, &["rev-parse", "--show-toplevel"])?;
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same(Path::new(&top), dir) {
        return None;
    }
    // A worktree keeps HEAD in its own git directory and the branches in
    // the common one; git prints each relative to `dir` or absolute, and
    // joining keeps an absolute one as it is.
    let git_dir = dir.join(git(dir, &["rev-parse", "--git-dir"])?);
    let common = dir.join(git(dir, &["rev-parse", "--git-common-dir"])?);
    let mut watched = vec![git_dir.join("HEAD"), common.join("packed-refs")];
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        watched.push(common.join(branch));
    }
    // A path that does not exist would make cargo rerun the script on
    // every build; a branch that lives only in packed-refs is covered by
    // packed-refs.
    for path in watched.iter().filter(|p| p.exists()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let line = git(
        dir,
        &["log", "-1", "--abbrev=7", "--date=short", "--format=%h %cd"],
    )?;
    (!line.is_empty()).then_some(line)
}

/// The short commit `cargo package` recorded in `.cargo_vcs_info.json`
/// (`{"git": {"sha1": "..."}, ...}`), read without a JSON crate: the build
/// script has no dependencies, so building bdxlint builds nothing more.
fn from_vcs_info(dir: &Path) -> Option<String> {
    let path = dir.join(".cargo_vcs_info.json");
    if !path.exists() {
        return None;
    }
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(path).ok()?;
    let at = text.find("\"sha1\"")?;
    let rest = &text[at + "\"sha1\"".len()..];
    let start = rest.find('"')? + 1;
    let sha: String = rest[start..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .take(7)
        .collect();
    (sha.len() == 7).then_some(sha)
}
